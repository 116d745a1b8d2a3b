"""Harness and assembly: judge a rung's proposal, then assemble the article or step down.

The one place the hygiene ladder is decided, with one writer for its table (concurrency 1, as
Faust tables need). Outputs are produced before the table changes: a crash in between
redelivers the proposal, and judging it again gives the same article and hash (the harness is
deterministic), so consumers see at most a duplicate, never a different article.

Versions (``agents.versions``): the ladder holds one version of the article. A proposal of an
older version is dropped, a newer version's starts a fresh ladder, so what this agent emits
for an article never goes back to an older version. It also reads the candidates stage's
terminal events: a newer version whose page was unusable closes the ladder of older ones.
"""

from __future__ import annotations

from typing import Any

import faust

from agents.ladder import (
    Rung,
    advanced,
    closed,
    gate,
    is_redelivery,
    new_state,
    next_rung,
    reopens,
    upgraded,
)
from agents.versions import compared
from agents.watching import watch
from article_runtime.errors import NoValidProposal
from article_runtime.extract import deterministic_article
from article_runtime.harness.pipeline import run_hygiene_harness
from article_runtime.hygiene import HYGIENE, role_path
from article_runtime.model import AssembledArticle, AttemptRecord, CandidateSet, Usage
from streams.compensation import Stage, compensation_event, retry_context
from streams.records import assembled_record, attempt_records, attempts_from
from streams.topics import ARTICLE_ASSEMBLED, ARTICLE_COMPENSATION, HYGIENE_PROPOSAL
from streams.wiring import Emit, Event, Wiring, manual_acks, origin

LADDER_TABLE = "hygiene_ladder"


def _judge(
    proposal: dict[str, Any], candidates: CandidateSet, prior: list[AttemptRecord]
) -> AssembledArticle | tuple[str, list[AttemptRecord]]:
    """The assembled article, or (reason, attempts) when this rung does not hold."""
    article_id, rung = proposal["article_id"], proposal["role"]
    attempts = [*prior, *attempts_from(proposal["attempts"])]
    if rung == "deterministic":
        try:
            return deterministic_article(candidates, b"", source=article_id, attempts=attempts)
        except NoValidProposal as exc:
            judged = AttemptRecord(
                call=HYGIENE, role="deterministic", outcome="invalid", reason=exc.reason
            )
            return exc.reason, [*attempts, judged]
    raw = proposal["raw_answer"]
    if raw is None:
        return proposal["failure"] or "no_answer", attempts
    result = run_hygiene_harness(
        candidates, raw, source_html=b"", path=role_path(rung), source=article_id
    )
    if result.article is None:
        return result.report.reason or "invalid", attempts
    return result.article.model_copy(update={"attempts": attempts, "usage": Usage.of(attempts)})


def assembly_step(
    proposal: dict[str, Any],
    state: dict[str, Any] | None,
    *,
    has_models: bool,
    at: tuple[str, int, int] | None = None,
) -> tuple[list[Emit], dict[str, Any] | None]:
    """The outputs for one proposal and the ladder's new state (None: nothing changes)."""
    article_id, rung, version = proposal["article_id"], proposal["role"], proposal.get("version")
    attempt: int = proposal["attempt"]
    state = upgraded(state)
    passage = gate(state, version, proposal["html_hash"], proposal["attempt"])
    if passage == "stale":
        return [], None
    if passage == "fresh" or state is None or reopens(state, proposal["attempt"]):
        state = new_state(rung, version, proposal["html_hash"])
    if is_redelivery(state, rung):
        return [], None
    candidates = CandidateSet.model_validate_json(proposal["candidate_set_json"])
    prior = attempts_from(state["attempts"])
    judged = _judge(proposal, candidates, prior)
    everything = judged.attempts if isinstance(judged, AssembledArticle) else judged[1]
    new = everything[len(prior) :]  # the state keeps each rung's attempts once
    if isinstance(judged, AssembledArticle):
        hashes = judged.hashes.model_copy(update={"source_html": proposal["html_hash"]})
        article = judged.model_copy(update={"hashes": hashes})
        settled = f"assembled:{article.path}:{hashes.markdown}"
        state_after = advanced(
            state, rung, attempt_records(new), next_=None, settled=settled, attempt=attempt
        )
        emit = Emit(ARTICLE_ASSEMBLED, article_id, assembled_record(article, version=version))
        return [emit], state_after
    reason, attempts = judged
    following: Rung | None = next_rung(rung, has_models)
    stage: Stage = (
        "hygiene" if proposal["raw_answer"] is None and rung != "deterministic" else "assembly"
    )
    event = compensation_event(
        article_id,
        stage=stage,
        kind="fallback" if following else "terminal",
        reason=reason,
        next_attempt=following,
        attempts_so_far=proposal["attempt"],
        attempts=attempt_records(attempts),
        origin=at,
        retry=None if following is None else retry_context(proposal),
        version=version,
    )
    ended = None if following else f"terminal:{reason}"
    state_after = advanced(
        state, rung, attempt_records(new), next_=following, settled=ended, attempt=attempt
    )
    return [Emit(ARTICLE_COMPENSATION, article_id, event)], state_after


def unusable_page_step(
    event: dict[str, Any], state: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The ladder's new state after a compensation event, when it is a newer version's
    terminal at the candidates stage (its page was unusable); None: nothing changes."""
    version = event.get("version")
    if event["stage"] != "candidates" or event["kind"] != "terminal" or version is None:
        return None
    state = upgraded(state)
    if state is not None and compared(version, state["version"]) != "newer":
        return None
    return closed(version, event["reason"])


def register(w: Wiring) -> None:
    ladder = w.tables[LADDER_TABLE]
    has_models = w.has_hygiene_models

    async def handle(event: Event, record: dict[str, Any]) -> list[Emit]:
        article_id = record["article_id"]
        emits, state = assembly_step(
            record, ladder.get(article_id), has_models=has_models, at=origin(event)
        )
        await w.publish(emits)  # outputs first: see the module docstring
        await changed(article_id, state)
        return []

    async def changed(article_id: str, state: dict[str, Any] | None) -> None:
        if state is not None:
            ladder[article_id] = state
            await ladder.confirmed(article_id)  # Faust would commit without waiting for it

    async def learn(event: dict[str, Any]) -> None:
        article_id = event["article_id"]
        await changed(article_id, unusable_page_step(event, ladder.get(article_id)))

    @w.app.agent(w.topic(HYGIENE_PROPOSAL, ARTICLE_COMPENSATION), name="assembly")
    async def assembly(stream: faust.StreamT[bytes]) -> None:
        manual = manual_acks(stream)
        async for event in manual.events():
            ladder.expire(event.message.partition, w.settings.retention_s)
            if event.message.topic == ARTICLE_COMPENSATION.name:
                await watch(w, event, learn)
            else:
                await w.process(event, "assembly", handle)
            await manual.ack(event)

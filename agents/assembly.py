"""Harness and assembly: judge a rung's proposal, then assemble the article or step down.

The one place the hygiene ladder is decided, with one writer for its table (concurrency 1, as
Faust tables need). Outputs are produced before the table changes: a crash in between
redelivers the proposal, and judging it again gives the same article and hash (the harness is
deterministic), so consumers see at most a duplicate, never a different article.
"""

from __future__ import annotations

from typing import Any

import faust

from agents.ladder import Rung, advanced, is_redelivery, next_rung
from article_runtime.errors import NoValidProposal
from article_runtime.extract import deterministic_article
from article_runtime.harness.pipeline import run_hygiene_harness
from article_runtime.hygiene import HYGIENE, role_path
from article_runtime.model import AssembledArticle, AttemptRecord, CandidateSet, Usage
from streams.compensation import Stage, compensation_event, retry_context
from streams.records import assembled_record, attempt_records, attempts_from
from streams.topics import ARTICLE_ASSEMBLED, ARTICLE_COMPENSATION, HYGIENE_PROPOSAL
from streams.wiring import Emit, Event, Wiring, origin

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
    """The outputs for one proposal and the ladder's new state (None: nothing changes).

    The state belongs to one version of the article (its HTML hash). Ingestion may publish an
    updated page under the same ID: its first rung starts a fresh ladder, and late rungs of
    the version it replaced are dropped.
    """
    article_id, rung, version = proposal["article_id"], proposal["role"], proposal["html_hash"]
    if state is not None and state.get("version", version) != version:
        if proposal["attempt"] != 1:
            return [], None
        state = None
    if is_redelivery(state, rung):
        return [], None
    candidates = CandidateSet.model_validate_json(proposal["candidate_set_json"])
    prior = attempts_from(state["attempts"]) if state else []
    judged = _judge(proposal, candidates, prior)
    everything = judged.attempts if isinstance(judged, AssembledArticle) else judged[1]
    new = everything[len(prior) :]  # the state keeps each rung's attempts once
    if isinstance(judged, AssembledArticle):
        hashes = judged.hashes.model_copy(update={"source_html": proposal["html_hash"]})
        article = judged.model_copy(update={"hashes": hashes})
        settled = f"assembled:{article.path}:{hashes.markdown}"
        state_after = advanced(state, rung, attempt_records(new), next_=None, settled=settled)
        emit = Emit(ARTICLE_ASSEMBLED, article_id, assembled_record(article))
        return [emit], {**state_after, "version": version}
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
    )
    ended = None if following else f"terminal:{reason}"
    state_after = advanced(state, rung, attempt_records(new), next_=following, settled=ended)
    return [Emit(ARTICLE_COMPENSATION, article_id, event)], {**state_after, "version": version}


def register(w: Wiring) -> None:
    ladder = w.tables[LADDER_TABLE]
    has_models = w.has_hygiene_models

    async def handle(event: Event, record: dict[str, Any]) -> list[Emit]:
        article_id = record["article_id"]
        ladder.expire(event.message.partition, w.settings.retention_s)
        emits, state = assembly_step(
            record, ladder.get(article_id), has_models=has_models, at=origin(event)
        )
        await w.publish(emits)  # outputs first: see the module docstring
        if state is not None:
            ladder[article_id] = state
            await ladder.confirmed(article_id)  # Faust would commit without waiting for it
        return []

    @w.app.agent(w.topic(HYGIENE_PROPOSAL), name="assembly")
    async def assembly(stream: faust.StreamT[bytes]) -> None:
        await w.consume(stream, "assembly", handle)

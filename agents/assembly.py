"""Harness and assembly: judge a rung's proposal, then assemble the article or step down.

Reads ``article.proposal``. Each proposal is judged from the record alone (the answer and the
candidate set it carries): the ten steps (spec 8.1), repair review, assembly, Markdown and
hashes. An answer that holds becomes ``article.assembled``; one that does not (or a rung that
gave none) becomes a fallback event on ``article.compensation``, which the hygiene agent takes
to ask the fallback model; after the last model rung the deterministic path runs here at once,
and when nothing holds the article ends terminal. A proposal of the deterministic rung (no
providers) is the deterministic path alone.

No state of its own: judging a proposal again gives the same outputs (the harness is
deterministic), so a redelivered proposal (after a crash, a rebalance, a broker restart) is
judged again and no model is asked again. The newest version wins: a proposal whose ladder the
hygiene agent has moved past (``article_runtime.agents.ladder.superseded``, read in its table, which
this agent reads but never writes) is dropped, checked again under the article's lock just before
the outputs are produced.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import faust

from article_runtime.agents.ladder import next_rung, superseded
from article_runtime.errors import NoValidProposal
from article_runtime.extract import deterministic_article
from article_runtime.harness.pipeline import run_hygiene_harness
from article_runtime.hygiene import HYGIENE, role_path
from article_runtime.model import AssembledArticle, AttemptRecord, CandidateSet, PromptRef, Usage
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_PROPOSAL,
)
from article_runtime.streams.kafka.window import InFlight, KeyedLocks
from article_runtime.streams.service.compensation import Stage, compensation_event
from article_runtime.streams.service.proposals import (
    CarriedSetError,
    KnownSets,
    carried_of,
    origin_of,
)
from article_runtime.streams.service.records import assembled_record, attempt_records, attempts_from
from article_runtime.streams.service.wiring import Emit, Event, Wiring, manual_acks

Publish = Callable[[list[Emit]], Awaitable[None]]


def judged(proposal: dict[str, Any], candidates: CandidateSet, *, has_models: bool) -> list[Emit]:
    """What one proposal turns into: the assembled article, or the ladder's next step (a
    fallback event; after the last model rung also the deterministic path's outcome)."""
    article_id, rung = proposal["article_id"], proposal["rung"]
    attempts = attempts_from(proposal["attempts"])
    if rung == "deterministic":
        return _deterministic(proposal, candidates, attempts, number=proposal["attempt"])
    answer = proposal["answer"]
    stage: Stage = "hygiene"
    if answer is None:
        reason = (attempts[-1].reason if attempts else None) or "no_answer"
    else:
        result = run_hygiene_harness(
            candidates, answer, source_html=b"", path=role_path(rung), source=article_id
        )
        if result.article is not None:
            prompt = proposal["prompt"]
            return [_assembled(proposal, result.article, attempts, prompt)]
        reason, stage = result.report.reason or "invalid", "assembly"
        attempts = _judged_invalid(attempts, reason)
    following = next_rung(rung, has_models) or "deterministic"
    event = compensation_event(
        article_id,
        stage=stage,
        kind="fallback",
        reason=reason,
        next_attempt=following,
        attempts_so_far=proposal["attempt"],
        attempts=attempt_records(attempts),
        origin=origin_of(proposal),
        retry=_retry(proposal) if following != "deterministic" else None,
        version=proposal.get("version"),
    )
    emit = Emit(ARTICLE_COMPENSATION, article_id, event)
    if following != "deterministic":
        return [emit]
    return [emit, *_deterministic(proposal, candidates, attempts, number=proposal["attempt"] + 1)]


def _judged_invalid(attempts: list[AttemptRecord], reason: str) -> list[AttemptRecord]:
    """The rung's answered attempt (the last) as the harness judged it."""
    last = attempts[-1].model_copy(update={"outcome": "invalid", "reason": reason})
    return [*attempts[:-1], last]


def _assembled(
    proposal: dict[str, Any],
    article: AssembledArticle,
    attempts: list[AttemptRecord],
    prompt: dict[str, Any] | None,
) -> Emit:
    hashes = article.hashes.model_copy(update={"source_html": proposal["html_hash"]})
    update: dict[str, Any] = {"hashes": hashes, "attempts": attempts, "usage": Usage.of(attempts)}
    if prompt is not None:
        update["prompt"] = PromptRef.model_validate(prompt)
    article = article.model_copy(update=update)
    record = assembled_record(article, version=proposal.get("version"))
    return Emit(ARTICLE_ASSEMBLED, proposal["article_id"], record)


def _deterministic(
    proposal: dict[str, Any],
    candidates: CandidateSet,
    attempts: list[AttemptRecord],
    *,
    number: int,
) -> list[Emit]:
    article_id = proposal["article_id"]
    try:
        article = deterministic_article(candidates, b"", source=article_id, attempts=attempts)
    except NoValidProposal as exc:
        judged = AttemptRecord(
            call=HYGIENE, role="deterministic", outcome="invalid", reason=exc.reason
        )
        terminal = compensation_event(
            article_id,
            stage="assembly",
            kind="terminal",
            reason=exc.reason,
            attempts_so_far=number,
            attempts=attempt_records([*attempts, judged]),
            origin=origin_of(proposal),
            version=proposal.get("version"),
        )
        return [Emit(ARTICLE_COMPENSATION, article_id, terminal)]
    return [_assembled(proposal, article, article.attempts, None)]


def _retry(proposal: dict[str, Any]) -> dict[str, Any]:
    """What the next model rung judges against: the proposal's candidate set, as carried."""
    return {
        "url": None,
        "candidate_set_json": "",
        "candidate_set_hash": proposal["candidate_set_hash"],
        "html_hash": proposal["html_hash"],
        "candidate_set_zlib": proposal["candidate_set_zlib"],
        "redrive": proposal.get("redrive"),
    }


def unreadable(proposal: dict[str, Any], error: CarriedSetError) -> Emit:
    """The terminal event of a proposal whose candidate set cannot be judged against."""
    event = compensation_event(
        proposal["article_id"],
        stage="assembly",
        kind="terminal",
        reason=error.reason,
        detail=error.detail[:500],
        attempts_so_far=proposal["attempt"],
        attempts=proposal["attempts"],
        origin=origin_of(proposal),
        version=proposal.get("version"),
    )
    return Emit(ARTICLE_COMPENSATION, proposal["article_id"], event)


def outputs(
    proposal: dict[str, Any], *, has_models: bool, known: KnownSets | None = None
) -> list[Emit]:
    """``judged`` on the set the proposal carries (a terminal event when it cannot be read)."""
    try:
        candidates = carried_of(proposal).candidates(known)
    except CarriedSetError as error:
        return [unreadable(proposal, error)]
    return judged(proposal, candidates, has_models=has_models)


class AssemblyStage:
    """The stage's logic over the hygiene agent's ladder table (a Faust table in the worker, a
    dict in tests), which it reads and never writes."""

    def __init__(
        self,
        ladders: Mapping[str, Any],
        *,
        publish: Publish,
        has_models: bool,
        known: KnownSets | None = None,
    ) -> None:
        self.ladders, self.publish, self.has_models = ladders, publish, has_models
        self.known = known
        self.locks = KeyedLocks()

    async def on_proposal(self, proposal: dict[str, Any]) -> None:
        article_id = proposal["article_id"]
        if superseded(self.ladders.get(article_id), proposal):
            return
        emits = outputs(proposal, has_models=self.has_models, known=self.known)
        async with self.locks.hold(article_id):
            # Read again: a newer version may have been proposed while this one was judged.
            if superseded(self.ladders.get(article_id), proposal):
                return
            await self.publish(emits)


def register(w: Wiring, ladders: Mapping[str, Any], known: KnownSets) -> None:
    stage = AssemblyStage(ladders, publish=w.publish, has_models=w.has_hygiene_models, known=known)

    async def handle(event: Event, record: dict[str, Any]) -> list[Emit]:
        await stage.on_proposal(record)
        return []

    @w.app.agent(w.topic(ARTICLE_PROPOSAL), name="assembly")
    async def assembly(stream: faust.StreamT[bytes]) -> None:
        manual = manual_acks(stream)
        window = InFlight(w.settings.calls_in_flight, manual.ack)
        async for event in manual.events():
            await window.submit(event, w.process(event, "assembly", handle))

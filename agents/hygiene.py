"""Hygiene: an ingested page to its candidate set, and one rung's model answer to
``article.proposal``, many model calls in flight.

For an ingested page it builds the candidate set (one page at a time in the whole worker:
``article_runtime.agents.pages``), asks the ladder's first rung (the primary model; without
providers the deterministic rung, which asks nothing) and publishes the answer verbatim with the
candidate set it chose from; it does not judge it. The assembly agent
(``article_runtime.agents.assembly``) judges; a rung that does not hold comes back as a fallback
event on ``article.compensation``, which this agent takes to ask the fallback model, with the
candidate set the event carries. It also runs an operator's redrive of a hygiene terminal
(``article_runtime.streams.service.redrive``): the ladder again for that version, from the primary
model.

A paid answer is never paid twice: it is written to the ladder's state and confirmed by the
broker before its proposal is produced, and an input that comes again (a crash or a rebalance
redelivers what was not committed) finds its rung's answer there and publishes the same
proposal again instead of asking the model (``article_runtime.agents.ladder.passage``). A proposal
once on the topic is judged by whoever owns its partition, as often as it is delivered.

One Faust actor writes the table; its messages run in an ``InFlight`` window (up to
``ARTICLE_RUNTIME_CALLS_IN_FLIGHT`` at once, each acked when its outputs are on the broker).
Versions (``article_runtime.agents.versions``): each rung's state is decided and written under the
article's lock, after the state is read again, so an answer for v1 that comes after v2 was proposed
changes nothing, and a newer version whose page is unusable ends the article.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, replace
from typing import Any

import faust

from article_runtime import bounded_json
from article_runtime.agents.ladder import (
    Rung,
    Step,
    closed,
    is_closed,
    passage,
    proposed,
    stored_terminal,
    upgraded,
)
from article_runtime.agents.ledger import recorded_when_taken
from article_runtime.agents.pages import Pages
from article_runtime.agents.versions import version_of
from article_runtime.answer_bounds import hygiene_bounds
from article_runtime.hashing import sha256_hex
from article_runtime.hygiene import HYGIENE
from article_runtime.llm.policy import LLMRuntime, Verdict, serves
from article_runtime.llm.prompts import load_prompt
from article_runtime.llm.records import ValidationSummary
from article_runtime.llm.render import hygiene_messages
from article_runtime.model import AttemptRecord, CandidateSet, PromptRef
from article_runtime.model.attempts import Role
from article_runtime.streams.kafka.topics import (
    ARTICLE_COMPENSATION,
    ARTICLE_INGESTED,
    ARTICLE_PROPOSAL,
    INGESTED_REPARTITION,
)
from article_runtime.streams.kafka.window import InFlight, KeyedLocks
from article_runtime.streams.service.compensation import compensation_event
from article_runtime.streams.service.proposals import (
    Carried,
    CarriedSetError,
    KnownSets,
    proposal_record,
)
from article_runtime.streams.service.records import attempts_from
from article_runtime.streams.service.redrive import is_hygiene_redrive
from article_runtime.streams.service.routing import placed, source_offset
from article_runtime.streams.service.wiring import Emit, Event, Wiring, manual_acks, origin

LADDER_TABLE = "hygiene_ladder"
Publish = Callable[[list[Emit]], Awaitable[None]]


@dataclass(frozen=True)
class Answer:
    """How one model rung ended: the answer as the model wrote it (None: none came back) and
    every attempt it took (technical retries included)."""

    text: str | None
    attempts: list[AttemptRecord]
    prompt: PromptRef | None


Ask = Callable[[CandidateSet, Rung, str], Awaitable[Answer]]


def asker(llm: LLMRuntime | None) -> Ask:
    """One model rung per call, the answer kept verbatim: the provider policy's technical
    retries, no judgement (the assembly agent judges)."""

    async def ask(candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        if rung == "deterministic" or not serves(llm, HYGIENE):
            return Answer(None, [], None)
        role: Role = rung
        prompt = load_prompt(HYGIENE)
        ended = await llm.call(
            HYGIENE,
            prompt,
            hygiene_messages(prompt, candidates),
            _unjudged,
            bounds=hygiene_bounds(candidates),
            trace_key=source,
            roles=(role,),
        )
        return Answer(ended.value, ended.attempts, prompt.ref)

    return ask


def _unjudged(content: str, role: Role) -> Verdict[str]:
    """Every answer is kept as it came: judging it is the next stage's work."""
    try:
        parsed: Any = bounded_json.loads(content)
    except ValueError:
        parsed = content[:2000]
    return Verdict(content, None, ValidationSummary(), parsed)


@dataclass(frozen=True)
class Taken:
    """One hygiene input: its step on the ladder, where it sits and what it already carries."""

    article_id: str
    step: Step
    origin: tuple[str, int, int]
    prior: list[AttemptRecord]  # the ladder's attempts before this rung (a fallback event's)
    carried: Carried | None = None  # a fallback event's or redrive's set; None: build the page


class HygieneStage:
    """The stage's logic over any mapping (a Faust table in the worker, a dict in tests)."""

    def __init__(
        self,
        table: MutableMapping[str, Any],
        *,
        confirm: Callable[[str], Awaitable[None]],
        publish: Publish,
        ask: Ask,
        build: Callable[[dict[str, Any], tuple[str, int, int]], Awaitable[CandidateSet | Emit]],
        has_models: bool,
        known: KnownSets | None = None,
    ) -> None:
        self.table, self.confirm, self.publish = table, confirm, publish
        self.ask, self.build, self.has_models = ask, build, has_models
        self.known = known
        self.locks = KeyedLocks()  # an article's state: read, decided and written in turn
        self.asking = KeyedLocks()  # one ladder rung of an article version: asked in turn

    async def on_ingested(
        self, record: dict[str, Any], at: tuple[str, int, int], offset: int | None = None
    ) -> None:
        """One ``article.ingested`` record, found at ``at``: the ladder's first rung. A copy
        forwarded to its article's partition is found on the repartition topic, and its
        version is its ``offset`` where ingestion produced it."""
        rung: Rung = "runtime_primary" if self.has_models else "deterministic"
        version = version_of(record, at[2] if offset is None else offset)
        step = Step(version, sha256_hex(record["html"]), rung, 1)
        await self._take(Taken(record["article_id"], step, at, []), record)

    async def on_fallback(self, event: dict[str, Any], at: tuple[str, int, int]) -> None:
        """A fallback event of the assembly agent whose next rung is a model."""
        retry = event["retry"]
        step = Step(
            event.get("version"),
            retry["html_hash"],
            event["next_attempt"],
            event["attempts_so_far"] + 1,
            ladder=retry.get("redrive"),
            fresh=False,
        )
        carried = Carried(retry["candidate_set_zlib"], retry["candidate_set_hash"])
        begun = _origin(event) or at
        taken = Taken(event["article_id"], step, begun, attempts_from(event["attempts"]), carried)
        await self._take(taken, None)

    async def on_redrive(self, event: dict[str, Any], at: tuple[str, int, int]) -> None:
        """An operator's redrive of a hygiene terminal, found at ``at`` on its topic."""
        retry = event["retry"]
        step = Step(
            event.get("version"),
            retry["html_hash"],
            "runtime_primary" if self.has_models else "deterministic",
            event["attempts_so_far"] + 1,
            ladder=at[2],
        )
        text = retry["candidate_set_json"].encode("utf-8")
        carried = Carried.packed(text, retry["candidate_set_hash"])
        await self._take(Taken(event["article_id"], step, at, [], carried), None)

    async def _take(self, taken: Taken, page: dict[str, Any] | None) -> None:
        # Two copies of one input (a fallback event made twice from a proposal judged twice,
        # a page redelivered while its first delivery still waits for the model) take turns
        # on their rung, so the second finds the first's answer held instead of paying again.
        step = taken.step
        version = step.version or {}
        rung = f"{taken.article_id}\0{version.get('declared')}\0{version.get('ingested_offset')}"
        async with self.asking.hold(f"{rung}\0{step.ladder}\0{step.rung}"):
            await self._take_rung(taken, page)

    async def _take_rung(self, taken: Taken, page: dict[str, Any] | None) -> None:
        article_id, step = taken.article_id, taken.step
        async with self.locks.hold(article_id):
            state = upgraded(self.table.get(article_id))
            way = passage(state, step)
        if way == "stale":
            return
        if way == "replay" and state is not None and is_closed(state):
            await self.publish([stored_terminal(article_id, state, taken.origin)])
            return
        built = await self._candidates(taken, page)
        if way == "replay" and not isinstance(built, Emit):
            assert state is not None
            held = state["proposed"][step.rung]
            carried = taken.carried or Carried.of(built, self.known)
            if held["candidate_set_hash"] == carried.sha256:
                await self.publish([self._proposal(taken, carried, held)])
                return
            # The page no longer builds the set that answer chose from: ask again.
        if isinstance(built, Emit):
            await self._settle(taken, None, built)
            return
        carried = taken.carried or Carried.of(built, self.known)
        answer = await self.ask(built, step.rung, article_id)
        await self._settle(taken, (carried, answer), None)

    async def _candidates(self, taken: Taken, page: dict[str, Any] | None) -> CandidateSet | Emit:
        if page is not None:
            built = await self.build(page, taken.origin)
            if isinstance(built, Emit) and built.record.get("version") != taken.step.version:
                # A forwarded page's version is its source offset, not where it was found.
                built = replace(built, record={**built.record, "version": taken.step.version})
            return built
        assert taken.carried is not None
        try:
            return taken.carried.candidates(self.known)
        except CarriedSetError as error:
            return _unusable_set(taken, error)

    async def _settle(
        self, taken: Taken, ended: tuple[Carried, Answer] | None, terminal: Emit | None
    ) -> None:
        """Under the article's lock, the state read again: store the rung's end, have the
        broker confirm it, then produce the proposal (or the unusable page's terminal)."""
        article_id, step = taken.article_id, taken.step
        async with self.locks.hold(article_id):
            state = upgraded(self.table.get(article_id))
            way = passage(state, step)
            if way == "stale":
                return
            if way == "replay":
                assert state is not None
                if is_closed(state):
                    await self.publish([stored_terminal(article_id, state, taken.origin)])
                    return
                if ended is not None:  # a copy of this input ended the rung first
                    held = state["proposed"][step.rung]
                    await self.publish([self._proposal(taken, ended[0], held)])
                    return
            if terminal is not None:
                if step.fresh and step.ladder is None and page_terminal(terminal):
                    self.table[article_id] = closed(step.version, step.html_hash, terminal.record)
                    await self.confirm(article_id)
                await self.publish([terminal])
                return
            assert ended is not None
            carried, answer = ended
            after = proposed(
                state,
                step,
                answer=answer.text,
                attempts=answer.attempts,
                prompt=answer.prompt,
                candidate_set_hash=carried.sha256,
            )
            self.table[article_id] = after
            await self.confirm(article_id)  # the answer is durable before anyone judges it
            await self.publish([self._proposal(taken, carried, after["proposed"][step.rung])])

    def _proposal(self, taken: Taken, carried: Carried, held: dict[str, Any]) -> Emit:
        step = taken.step
        record = proposal_record(
            taken.article_id,
            version=step.version,
            rung=step.rung,
            attempt=step.number,
            answer=held["answer"],
            prompt=None if held["prompt"] is None else PromptRef.model_validate(held["prompt"]),
            attempts=[*taken.prior, *attempts_from(held["attempts"])],
            carried=carried,
            html_hash=step.html_hash or "",
            origin=taken.origin,
            redrive=step.ladder,
        )
        return Emit(ARTICLE_PROPOSAL, taken.article_id, record)


def page_terminal(emit: Emit) -> bool:
    """Whether a terminal event says the page itself is unusable (the candidates stage)."""
    return bool(emit.record["stage"] == "candidates")


def _unusable_set(taken: Taken, error: CarriedSetError) -> Emit:
    event = compensation_event(
        taken.article_id,
        stage="hygiene",
        kind="terminal",
        reason=error.reason,
        detail=error.detail[:500],
        attempts_so_far=taken.step.number - 1,
        origin=taken.origin,
        version=taken.step.version,
    )
    return Emit(ARTICLE_COMPENSATION, taken.article_id, event)


def _origin(event: dict[str, Any]) -> tuple[str, int, int] | None:
    found = event.get("origin")
    return None if found is None else (found["topic"], found["partition"], found["offset"])


def is_next_model_rung(event: dict[str, Any]) -> bool:
    """Whether a compensation event asks this agent for the ladder's next model rung: a
    fallback event of the hygiene ladder (not a redrive) that carries its candidate set."""
    return bool(
        event["kind"] == "fallback"
        and event["stage"] in ("hygiene", "assembly")
        and event["next_attempt"] in ("runtime_primary", "runtime_fallback")
        and event.get("retry") is not None
        and event["retry"].get("candidate_set_zlib") is not None
        and not is_hygiene_redrive(event)
    )


def register(w: Wiring, known: KnownSets) -> None:
    ladder_table = w.tables[LADDER_TABLE]
    pages = Pages()
    stage = HygieneStage(
        ladder_table,
        confirm=ladder_table.confirmed,
        publish=w.publish,
        ask=asker(w.llm),
        build=pages.parsed,
        has_models=w.has_hygiene_models,
        known=known,
    )

    @w.app.on_before_shutdown.connect
    async def stop_pages(_app: Any, /, *_: Any, **__: Any) -> None:
        pages.shutdown()

    async def handle(event: Event, record: dict[str, Any]) -> list[Emit]:
        at = origin(event)
        if event.message.topic == ARTICLE_COMPENSATION.name:
            if is_hygiene_redrive(record):
                await stage.on_redrive(record, at)
            elif is_next_model_rung(record):
                await stage.on_fallback(record, at)
            return []
        elsewhere = placed(w, event, record, "candidates")
        if elsewhere is not None:  # forwarded to its article's partition, or misrouted_key
            return elsewhere
        await stage.on_ingested(record, at, source_offset(event))
        return []

    topics = w.topic(ARTICLE_INGESTED, INGESTED_REPARTITION, ARTICLE_COMPENSATION)

    @w.app.agent(topics, name="hygiene")
    async def hygiene(stream: faust.StreamT[bytes]) -> None:
        manual = manual_acks(stream)
        # Bounded by calls and by bytes: a page is held and parsed while in flight.
        budget = w.settings.pages_in_flight_bytes
        window = InFlight(w.settings.calls_in_flight, manual.ack, budget=budget)
        w.bytes_in_flight["hygiene"] = lambda: window.weight
        async for event in manual.events():
            if not _may_concern(w, event):
                await manual.ack(event)  # another stage's event: nothing to do here
                continue
            ladder_table.expire(event.message.partition, w.settings.retention_s)
            weight = len(event.message.value or b"")
            await window.submit(event, w.process(event, "hygiene", handle), weight=weight)


def _may_concern(w: Wiring, event: Event) -> bool:
    """Every ingested page does; of the compensation events, values that do not decode (this
    stage turns those into terminal events), those the ledger records when taken (this stage
    runs the redrives of a hygiene terminal) and the fallback events that ask for the next
    model rung. The rest take no place in the window, where pages wait for their models."""
    message = event.message
    if message.topic != ARTICLE_COMPENSATION.name:
        return True
    record = w.decode(event)
    if isinstance(record, Emit):
        return True
    return recorded_when_taken(message.topic, record, message.partition) or is_next_model_rung(
        record
    )

"""Hygiene: an ingested page to its assembled article (or terminal event), whole, in one stage.

Candidates, the primary model, the fallback model, the deterministic path, the harness and
assembly run here, one article after another's model call is in flight: the candidate set
never travels through Kafka, and each answer is judged once, both for its trace and for the
decision. The ladder's outcome (``agents.ladder``) is written to the table and confirmed by
the broker *before* the outputs are produced: after a crash, the redelivered input finds it
and produces the same outputs again (the harness is deterministic) instead of asking the
models a second time, so consumers see at most a duplicate, never a different article.

One Faust actor writes the table. Its messages run in an ``InFlight`` window (up to
``ARTICLE_RUNTIME_CALLS_IN_FLIGHT`` at once, each acked when its outputs are on the broker).
Pages are parsed one at a time in the whole worker, on the event loop up to 1 MiB, larger ones
in the pages thread (``agents.pages``).

Versions (``agents.versions``): an article's versions may run side by side, but each one's
outcome is decided, stored and produced under the article's lock, after the state is read
again, so nothing is produced for a version older than one already settled: a slow answer for
v1 that comes after v2 settled changes nothing, and a newer version whose page is unusable
ends the article.

It also reads the compensation topic for one kind of event: an operator's redrive of a hygiene
terminal (``streams.service.redrive``), which carries the candidate set and the article's
version and runs the ladder again for that version, once. The fallback events this agent writes are
records of decisions already taken (the next rung ran in the same stage), not requests.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import faust

from agents.ladder import (
    closed,
    is_closed,
    ladder_emits,
    last_rung,
    passage,
    settled,
    stored_attempts,
    stored_terminal,
    upgraded,
)
from agents.ledger import recorded_when_taken
from agents.pages import Pages
from agents.versions import Version, version_of
from article_runtime.hashing import sha256_hex
from article_runtime.hygiene import HygieneOutcome, replayed, run_hygiene
from article_runtime.llm.policy import LLMRuntime
from article_runtime.model import CandidateSet, PromptRef
from streams.kafka.topics import ARTICLE_COMPENSATION, ARTICLE_INGESTED
from streams.kafka.window import InFlight, KeyedLocks
from streams.service.redrive import is_hygiene_redrive
from streams.service.routing import misrouted_event
from streams.service.wiring import Emit, Event, Wiring, manual_acks, origin

LADDER_TABLE = "hygiene_ladder"
Run = Callable[[CandidateSet, bytes, str], Awaitable[HygieneOutcome]]
Publish = Callable[[list[Emit]], Awaitable[None]]


@dataclass(frozen=True)
class Page:
    """What one message asks the ladder to decide: an article version and where its page is."""

    article_id: str
    version: Version | None
    html_hash: str
    origin: tuple[str, int, int]
    html: bytes = b""  # empty for a redrive, which carries the candidate set instead
    redrive: tuple[int, int] | None = None  # (offset, first rung's number) of a redrive


class HygieneLadder:
    """The stage's logic over any mapping (a Faust table in the worker, a dict in tests)."""

    def __init__(
        self,
        table: MutableMapping[str, Any],
        *,
        confirm: Callable[[str], Awaitable[None]],
        publish: Publish,
        run: Run,
        build: Callable[[dict[str, Any], tuple[str, int, int]], Awaitable[CandidateSet | Emit]],
        has_models: bool,
    ) -> None:
        self.table, self.confirm, self.publish = table, confirm, publish
        self.run, self.build, self.has_models = run, build, has_models
        self.locks = KeyedLocks()

    async def on_ingested(self, record: dict[str, Any], at: tuple[str, int, int]) -> None:
        """One ``article.ingested`` record, found at ``at``."""
        page = Page(
            record["article_id"],
            version_of(record, at[2]),
            sha256_hex(record["html"]),
            at,
            html=record["html"],
        )
        await self._decide(page, lambda: self.build(record, at))

    async def on_redrive(self, event: dict[str, Any], at: tuple[str, int, int]) -> None:
        """An operator's redrive of a hygiene terminal, found at ``at`` on its topic."""
        retry = event["retry"]
        page = Page(
            event["article_id"],
            event.get("version"),
            retry["html_hash"],
            at,
            redrive=(at[2], event["attempts_so_far"] + 1),
        )
        await self._decide(page, lambda: _ready(retry_candidates(retry)))

    async def _decide(
        self, page: Page, build: Callable[[], Awaitable[CandidateSet | Emit]]
    ) -> None:
        async with self.locks.hold(page.article_id):
            state = upgraded(self.table.get(page.article_id))
            way = passage(state, page.version, page.html_hash, redrive=page.redrive)
            if way == "stale":
                return
            if way == "replay" and await self._replayed(page, state, build):
                return
        built = await build()
        outcome = None if isinstance(built, Emit) else await self._ladder(page, built)
        async with self.locks.hold(page.article_id):
            # Read again: a newer version may have settled while this one's models answered.
            state = upgraded(self.table.get(page.article_id))
            way = passage(state, page.version, page.html_hash, redrive=page.redrive)
            if way == "stale" or (way == "replay" and await self._replayed(page, state, build)):
                return
            if isinstance(built, Emit):
                state = closed(page.version, page.html_hash, built.record)
                emits = [built]
            else:
                assert outcome is not None
                state, emits = self._settled(page, outcome)
            self.table[page.article_id] = state
            await self.confirm(page.article_id)  # durable before anyone sees the outputs
            await self.publish(emits)

    async def _ladder(self, page: Page, candidates: CandidateSet) -> HygieneOutcome:
        return await self.run(candidates, page.html, page.article_id)

    def _settled(self, page: Page, outcome: HygieneOutcome) -> tuple[dict[str, Any], list[Emit]]:
        first = 1 if page.redrive is None else page.redrive[1]
        last = last_rung(outcome, has_models=self.has_models, first=first)
        redrive = None if page.redrive is None else page.redrive[0]
        state = settled(
            outcome, version=page.version, html_hash=page.html_hash, last=last, redrive=redrive
        )
        return state, self._emits(page, outcome, first)

    def _emits(self, page: Page, outcome: HygieneOutcome, first: int) -> list[Emit]:
        return ladder_emits(
            page.article_id,
            outcome,
            has_models=self.has_models,
            first=first,
            version=page.version,
            origin=page.origin,
            html_hash=page.html_hash,
        )

    async def _replayed(
        self,
        page: Page,
        state: dict[str, Any] | None,
        build: Callable[[], Awaitable[CandidateSet | Emit]],
    ) -> bool:
        """Produce the stored outcome again (a redelivery); False when it no longer holds (the
        stored answer fails today's harness, or the page no longer builds): run afresh."""
        assert state is not None
        if is_closed(state):
            await self.publish([stored_terminal(page.article_id, state, page.origin)])
            return True
        built = await build()
        if isinstance(built, Emit):
            return False
        held = state["outcome"]
        attempts = stored_attempts(state)
        article = None
        if str(state["settled"]).startswith("assembled:"):
            article = replayed(
                built,
                page.html,
                source=page.article_id,
                role=held["role"],
                answer=held["answer"],
                attempts=attempts,
                prompt=None if held.get("prompt") is None else PromptRef(**held["prompt"]),
            )
            if article is None or not str(state["settled"]).endswith(article.hashes.markdown):
                return False
        outcome = HygieneOutcome(article, held["reason"], attempts, held["role"], held["answer"])
        first = int(state["attempt"]) - last_rung(outcome, has_models=self.has_models, first=1) + 1
        await self.publish(self._emits(page, outcome, first))
        return True


def retry_candidates(retry: dict[str, Any]) -> CandidateSet:
    return CandidateSet.model_validate_json(retry["candidate_set_json"])


async def _ready(candidates: CandidateSet) -> CandidateSet:
    return candidates


def register(w: Wiring) -> None:
    ladder_table = w.tables[LADDER_TABLE]
    pages = Pages()
    llm: LLMRuntime | None = w.llm

    async def run(candidates: CandidateSet, html: bytes, source: str) -> HygieneOutcome:
        return await run_hygiene(candidates, html, source=source, llm=llm)

    ladder = HygieneLadder(
        ladder_table,
        confirm=ladder_table.confirmed,
        publish=w.publish,
        run=run,
        build=pages.parsed,
        has_models=w.has_hygiene_models,
    )

    @w.app.on_before_shutdown.connect
    async def stop_pages(_app: Any, /, *_: Any, **__: Any) -> None:
        pages.shutdown()

    async def handle(event: Event, record: dict[str, Any]) -> list[Emit]:
        at = origin(event)
        if event.message.topic == ARTICLE_COMPENSATION.name:
            if is_hygiene_redrive(record):
                await ladder.on_redrive(record, at)
            return []
        refused = misrouted_event(w, event, record, "candidates")
        if refused is not None:
            return [refused]
        await ladder.on_ingested(record, at)
        return []

    @w.app.agent(w.topic(ARTICLE_INGESTED, ARTICLE_COMPENSATION), name="hygiene")
    async def hygiene(stream: faust.StreamT[bytes]) -> None:
        manual = manual_acks(stream)
        # Bounded by calls and by bytes: a page is held, parsed and judged while in flight.
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
    stage turns those into terminal events) and those the ledger records when taken (this
    stage runs the redrives of a hygiene terminal). The rest take no place in the window,
    where pages wait for their models."""
    message = event.message
    if message.topic != ARTICLE_COMPENSATION.name:
        return True
    record = w.decode(event)
    return recorded_when_taken(message.topic, record, message.partition)

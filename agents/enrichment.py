"""Enrichment: join an approved ECP verdict with its assembled article, whichever comes first.

One Faust actor writes the join table. Its messages run in an ``InFlight`` window (up to
``ARTICLE_RUNTIME_CALLS_IN_FLIGHT`` model calls at once, each acked when done) with one
lock per article, so an article's assembled record and verdicts never interleave while other
articles' calls run side by side. The model's answer is not deterministic, so
the result is written to the table and confirmed by the broker *before* the output is produced:
after a crash the redelivered input finds the result and produces it again (same content
hash) instead of asking the model a second time.

Table value per article (JSON): ``article`` (AssembledArticle JSON or None), ``verdicts``
(QID -> verdict) and ``results`` ("QID@article hash" -> stored outcome: an updated article
is a new version, enriched afresh).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from datetime import UTC, datetime
from typing import Any, cast

import faust

from article_runtime.enrichment.call import enrich_article
from article_runtime.enrichment.model import EnrichedArticle, EnrichmentFailure, Entity
from article_runtime.llm.policy import LLMRuntime
from article_runtime.model import AssembledArticle
from streams.compensation import compensation_event
from streams.records import assembled_article, attempt_records, enriched_record, now
from streams.topics import ARTICLE_ASSEMBLED, ARTICLE_COMPENSATION, ARTICLE_ENRICHED, ECP_VERDICT
from streams.window import InFlight, KeyedLocks
from streams.wiring import Emit, Event, Wiring

JOIN_TABLE = "enrichment_join"
Enrich = Callable[[AssembledArticle, dict[str, Any]], Awaitable[dict[str, Any]]]


def empty_state() -> dict[str, Any]:
    return {"article": None, "verdicts": {}, "results": {}}


def result_emit(stored: dict[str, Any]) -> Emit:
    """The output for a stored result; the same bytes of content every time it is replayed."""
    at = datetime.fromtimestamp(stored["at"], UTC)
    if stored["kind"] == "enriched":
        enriched = EnrichedArticle.model_validate(stored["result"])
        return Emit(ARTICLE_ENRICHED, enriched.source, enriched_record(enriched, at=at))
    failure = EnrichmentFailure.model_validate(stored["result"])
    event = compensation_event(
        failure.source,
        stage="enrichment",
        kind="terminal",
        reason=failure.reason,
        detail=None if failure.last_reason is None else f"last attempt: {failure.last_reason}",
        attempts_so_far=len(failure.attempts),
        attempts=attempt_records(failure.attempts),
        occurred_at=at,
        entity=failure.entity.model_dump(),
    )
    return Emit(ARTICLE_COMPENSATION, failure.source, event)


def make_enrich(llm: LLMRuntime | None) -> Enrich:
    async def enrich(article: AssembledArticle, verdict: dict[str, Any]) -> dict[str, Any]:
        result = await enrich_article(article, Entity.model_validate(verdict["entity"]), llm=llm)
        kind = "enriched" if isinstance(result, EnrichedArticle) else "failed"
        return {"kind": kind, "result": result.model_dump(mode="json"), "at": now().timestamp()}

    return enrich


class EnrichmentJoin:
    """The join's logic over any mapping (a Faust table in the worker, a dict in unit tests)."""

    def __init__(
        self,
        table: MutableMapping[str, Any],
        enrich: Enrich,
        confirm: Callable[[str], Awaitable[None]],
    ) -> None:
        self.table, self.enrich, self.confirm = table, enrich, confirm
        self.locks = KeyedLocks()

    async def on_message(self, topic: str, record: dict[str, Any]) -> list[Emit]:
        """One assembled article or verdict, exclusive for its article."""
        article_id = record["article_id"]
        async with self.locks.hold(article_id):
            if topic == ARTICLE_ASSEMBLED.name:
                emits = await self.on_assembled(record)
            else:
                emits = await self.on_verdict(record)
            # Faust does not flush table changes before it commits offsets: without this, a
            # crash could keep the commit and lose the stored article or verdict.
            await self.confirm(article_id)
            return emits

    async def on_assembled(self, record: dict[str, Any]) -> list[Emit]:
        article = assembled_article(record)
        state = self.table.get(article.source) or empty_state()
        state = {**state, "article": article.model_dump(mode="json")}
        self.table[article.source] = state
        return await self._settle(article.source, state)

    async def on_verdict(self, record: dict[str, Any]) -> list[Emit]:
        article_id, entity = record["article_id"], record["entity"]
        if not record["approved"] or entity is None:
            return []
        state = self.table.get(article_id) or empty_state()
        verdict = {"entity": entity, "article_hash": record["article_hash"]}
        state = {**state, "verdicts": {**state["verdicts"], entity["qid"]: verdict}}
        self.table[article_id] = state
        return await self._settle(article_id, state, only=entity["qid"])

    async def _settle(
        self, article_id: str, state: dict[str, Any], only: str | None = None
    ) -> list[Emit]:
        """Enrich the approved entities (``only`` one, or all) once the article is here.

        A stored result is produced again rather than recomputed: this input may be a
        redelivery whose first output never reached the broker.
        """
        if state["article"] is None:
            return []
        article = AssembledArticle.model_validate(state["article"])
        emits = []
        for qid, verdict in state["verdicts"].items():
            if only is not None and qid != only:
                continue
            judged_hash = verdict["article_hash"]
            if judged_hash is not None and judged_hash != article.hashes.markdown:
                continue  # a verdict on another version of the article: not ours to join
            key = f"{qid}@{article.hashes.markdown}"
            stored = state["results"].get(key)
            if stored is None:
                stored = await self.enrich(article, verdict)
                state = {**state, "results": {**state["results"], key: stored}}
                self.table[article_id] = state
                await self.confirm(article_id)  # the result is durable before anyone sees it
            emits.append(result_emit(stored))
        return emits


def register(w: Wiring) -> None:
    table = w.tables[JOIN_TABLE]
    join = EnrichmentJoin(table, make_enrich(w.llm), table.confirmed)

    async def handle(event: Event, record: dict[str, Any]) -> list[Emit]:
        return await join.on_message(event.message.topic, record)

    @w.app.agent(w.topic(ARTICLE_ASSEMBLED, ECP_VERDICT), name="enrichment")
    async def enrichment(stream: faust.StreamT[bytes]) -> None:
        manual = cast(faust.Stream[bytes], stream).noack()  # StreamT does not declare it
        window = InFlight(w.settings.calls_in_flight, manual.ack)
        async for event in manual.events():
            table.expire(event.message.partition, w.settings.retention_s)
            await window.submit(event, w.process(event, "enrichment", handle))

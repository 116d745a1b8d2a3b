"""Enrichment: join an approved ECP verdict with its assembled article, whichever comes first.

One Faust actor writes the join table. Its messages run in an ``InFlight`` window (up to
``ARTICLE_RUNTIME_CALLS_IN_FLIGHT`` model calls at once, each acked when done) with one
lock per article, so an article's assembled record and verdicts never interleave while other
articles' calls run side by side. The model's answer is not deterministic, so
the result is written to the table and confirmed by the broker *before* the output is produced:
after a crash the redelivered input finds the result and produces it again (same content
hash) instead of asking the model a second time.

The table keeps what the join needs per article, and no article text:
- ``version``: the newest version of the article seen (``article_runtime.agents.versions``);
  anything about an older version is dropped, so the join never re-enriches or settles an older
  version after a newer one. Besides assembled articles it reads the hygiene stages' terminal
  events: a newer version that ended there closes the join for older ones.
- ``article``: where that version's assembled record sits (``partition``, ``offset``) and its
  Markdown hash. The record is read back from ``article.assembled`` when a verdict comes later.
- ``verdicts``: ``"<QID>@<article hash the classifier judged, or ''>"`` -> entity.
- ``results``: ``"<QID>@<article hash>"`` -> the stored outcome (the result as JSON text;
  ``redrive``: the offset of the operator's redrive that produced it, if one did).

An operator's redrive of an entity's terminal failure (``article-runtime redrive --stage
enrichment``) arrives as a fallback event on the compensation topic; it replaces the stored
failure of the version held by a new attempt, and never enriches an entity twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

import faust

from article_runtime.agents.versions import Version, compared
from article_runtime.agents.watching import watch
from article_runtime.enrichment.call import enrich_article
from article_runtime.enrichment.model import EnrichedArticle, EnrichmentFailure, Entity
from article_runtime.llm.policy import LLMRuntime
from article_runtime.model import AssembledArticle
from article_runtime.streams.kafka.reader import RecordUnavailable, TopicReader
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_ENRICHED,
    ECP_VERDICT,
    VERDICT_REPARTITION,
)
from article_runtime.streams.kafka.window import InFlight, KeyedLocks
from article_runtime.streams.service.compensation import compensation_event
from article_runtime.streams.service.records import (
    assembled_article,
    attempt_records,
    enriched_record,
    now,
)
from article_runtime.streams.service.redrive import is_redrive_event
from article_runtime.streams.service.routing import contract_topic, placed
from article_runtime.streams.service.wiring import Emit, Event, Wiring

JOIN_TABLE = "enrichment_join"
Enrich = Callable[[AssembledArticle, Entity], Awaitable[dict[str, Any]]]
# Reads an assembled article back from its reference; raises RecordUnavailable.
ReadArticle = Callable[[dict[str, Any]], Awaitable[AssembledArticle]]
NOT_HYGIENE = ("enrichment", "decode")  # compensation stages that say nothing about a version
M = TypeVar("M", EnrichedArticle, EnrichmentFailure)


def empty_state(version: Version | None = None) -> dict[str, Any]:
    return {"version": version, "article": None, "verdicts": {}, "results": {}}


def upgraded(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """A state as this code writes it. States written before versions were carried held the
    whole article and one verdict per QID; the article stays inline until it is replaced."""
    if state is None or "version" in state:
        return state
    article = state["article"]
    ref = None
    if article is not None:
        ref = {"hash": article["hashes"]["markdown"], "inline": article}
    verdicts = {
        f"{qid}@{v['article_hash'] or ''}": v["entity"] for qid, v in state["verdicts"].items()
    }
    return {"version": None, "article": ref, "verdicts": verdicts, "results": state["results"]}


def superseded(
    state: dict[str, Any] | None, version: Version | None, *, markdown_hash: str | None = None
) -> dict[str, Any]:
    """The state once ``version`` (assembled as ``markdown_hash``, if it was) replaces what it
    held: the old article and results go, and so do verdicts on the old article unless the new
    one has the same Markdown; verdicts on other (later) versions wait on."""
    if state is None:
        return empty_state(version)
    old = state["article"]["hash"] if state["article"] else None
    verdicts = {
        key: entity
        for key, entity in state["verdicts"].items()
        if old is None or old == markdown_hash or key.rpartition("@")[2] != old
    }
    return {**empty_state(version), "verdicts": verdicts}


def result_emit(stored: dict[str, Any], article: AssembledArticle | None = None) -> Emit:
    """The output for a stored result; the same bytes of content every time it is replayed
    (an enrichment carries the ``article`` it enriches when it is given: not stored, since
    the table would hold every article's Markdown again)."""
    at = datetime.fromtimestamp(stored["at"], UTC)
    version = stored.get("version")
    result = stored["result"]
    if stored["kind"] == "enriched":
        enriched = _validated(EnrichedArticle, result)
        record = enriched_record(enriched, at=at, version=version, article=article)
        return Emit(ARTICLE_ENRICHED, enriched.source, record)
    failure = _validated(EnrichmentFailure, result)
    detail = None if failure.last_reason is None else f"last attempt: {failure.last_reason}"
    event = compensation_event(
        failure.source,
        stage="enrichment",
        kind="terminal",
        reason=failure.reason,
        detail=detail,
        attempts_so_far=len(failure.attempts),
        attempts=attempt_records(failure.attempts),
        occurred_at=at,
        entity=failure.entity.model_dump(),
        version=version,
    )
    return Emit(ARTICLE_COMPENSATION, failure.source, event)


def _validated(model: type[M], result: Any) -> M:
    # Stored as JSON text (compact in memory); results stored before were dicts.
    if isinstance(result, str):
        return model.model_validate_json(result)
    return model.model_validate(result)


def stored_result(result: EnrichedArticle | EnrichmentFailure) -> dict[str, Any]:
    kind = "enriched" if isinstance(result, EnrichedArticle) else "failed"
    return {"kind": kind, "result": result.model_dump_json(), "at": now().timestamp()}


def make_enrich(llm: LLMRuntime | None) -> Enrich:
    async def enrich(article: AssembledArticle, entity: Entity) -> dict[str, Any]:
        return stored_result(await enrich_article(article, entity, llm=llm))

    return enrich


class EnrichmentJoin:
    """The join's logic over any mapping (a Faust table in the worker, a dict in unit tests)."""

    def __init__(
        self,
        table: MutableMapping[str, Any],
        enrich: Enrich,
        confirm: Callable[[str], Awaitable[None]],
        read: ReadArticle,
    ) -> None:
        self.table, self.enrich, self.confirm, self.read = table, enrich, confirm, read
        self.locks = KeyedLocks()

    async def on_message(
        self, topic: str, record: dict[str, Any], at: tuple[int, int]
    ) -> list[Emit]:
        """One assembled article (at ``(partition, offset)``), verdict or compensation event,
        exclusive for its article."""
        article_id = record["article_id"]
        async with self.locks.hold(article_id):
            if topic == ARTICLE_ASSEMBLED.name:
                emits = await self.on_assembled(record, at)
            elif topic == ECP_VERDICT.name:
                emits = await self.on_verdict(record)
            elif is_redrive(record):
                emits = await self.on_redrive(record, at[1])
            else:
                emits = await self.on_compensation(record)
            # Faust does not flush table changes before it commits offsets: without this, a
            # crash could keep the commit and lose the stored reference or verdict.
            await self.confirm(article_id)
            return emits

    def _state(self, article_id: str) -> dict[str, Any] | None:
        return upgraded(self.table.get(article_id))

    async def on_assembled(self, record: dict[str, Any], at: tuple[int, int]) -> list[Emit]:
        article_id, version = record["article_id"], record.get("version")
        markdown_hash = record["hashes"]["markdown"]
        state = self._state(article_id)
        order = "newer" if state is None else compared(version, state["version"])
        if order == "older":
            return []  # an older version: the join has moved on
        held = state["article"] if state else None
        if state is None or order == "newer" or held is None or held["hash"] != markdown_hash:
            partition, offset = at
            ref = {"partition": partition, "offset": offset, "hash": markdown_hash}
            state = {**superseded(state, version, markdown_hash=markdown_hash), "article": ref}
        # Read into the model only when a verdict waits for it: usually none does yet.
        emits = await self._settle(article_id, state, lambda: _validated_now(record))
        # The reference reaches the table with the result ``_settle`` stores for a verdict that
        # waited (one changelog record instead of two), or here when it stored none (or the
        # table held it already). Until then the input is not acked: a crash in between
        # redelivers it.
        stored = self._state(article_id)
        held_now = None if stored is None else (stored["article"], stored["version"])
        if held_now != (state["article"], state["version"]):
            self.table[article_id] = state
        return emits

    async def on_verdict(self, record: dict[str, Any]) -> list[Emit]:
        article_id, entity = record["article_id"], record["entity"]
        if not record["approved"] or entity is None:
            return []
        key = f"{entity['qid']}@{record['article_hash'] or ''}"
        state = self._state(article_id) or empty_state()
        new = state["verdicts"].get(key) != entity
        if new:
            state = {**state, "verdicts": {**state["verdicts"], key: entity}}
        ref = state["article"]
        emits = []
        if ref is not None:
            emits = await self._settle(article_id, state, lambda: self._article(ref), only=key)
        # A new verdict reaches the table with the result ``_settle`` stores for it (one
        # changelog record instead of two), or here when it stored none. Until then it is not
        # acked: a crash in between redelivers it.
        held = self._state(article_id)
        if new and (held is None or held["verdicts"].get(key) != entity):
            self.table[article_id] = state
        return emits

    async def _article(self, ref: dict[str, Any]) -> AssembledArticle:
        if "inline" in ref:  # a state written before the join kept references
            return AssembledArticle.model_validate(ref["inline"])
        return await self.read(ref)

    async def on_redrive(self, record: dict[str, Any], offset: int) -> list[Emit]:
        """An operator's redrive (at ``offset`` of its partition) of one entity's terminal.

        The stored failure of the version held is dropped and the entity enriched again, once:
        a stored result that is a success is never redone (no second enrichment), and one this
        redrive already produced is produced again (a redelivery). A redrive of another
        version, or of an article no longer held (retention), changes nothing.
        """
        article_id, entity = record["article_id"], record.get("entity")
        state = self._state(article_id)
        if entity is None or state is None or state["article"] is None:
            return []
        if compared(record.get("version"), state["version"]) != "same":
            return []
        markdown_hash = state["article"]["hash"]
        result_key = f"{entity['qid']}@{markdown_hash}"
        stored = state["results"].get(result_key)
        if stored is not None and stored.get("redrive", -1) >= offset:
            held = state["article"]  # this redrive's own outcome, redelivered
            return [await with_article(stored, lambda: self._article(held))]
        if stored is not None and stored["kind"] == "enriched":
            return []
        verdict = next(
            (
                key
                for key in state["verdicts"]
                if key.rpartition("@")[0] == entity["qid"]
                and key.rpartition("@")[2] in ("", markdown_hash)
            ),
            f"{entity['qid']}@{markdown_hash}",
        )
        results = {k: v for k, v in state["results"].items() if k != result_key}
        state = {
            **state,
            "verdicts": {**state["verdicts"], verdict: state["verdicts"].get(verdict, entity)},
            "results": results,
        }
        self.table[article_id] = state
        ref = state["article"]
        return await self._settle(
            article_id, state, lambda: self._article(ref), only=verdict, redrive=offset
        )

    async def on_compensation(self, record: dict[str, Any]) -> list[Emit]:
        """A newer version that ended in hygiene closes the join for older versions."""
        version = record.get("version")
        if record["kind"] != "terminal" or record["stage"] in NOT_HYGIENE or version is None:
            return []
        state = self._state(record["article_id"])
        if state is not None and compared(version, state["version"]) != "newer":
            return []
        self.table[record["article_id"]] = superseded(state, version)
        return []

    async def _settle(
        self,
        article_id: str,
        state: dict[str, Any],
        load: Callable[[], Awaitable[AssembledArticle]],
        *,
        only: str | None = None,
        redrive: int | None = None,
    ) -> list[Emit]:
        """Enrich the approved entities of the article held (``only`` one verdict, or all).

        A stored result is produced again rather than recomputed: this input may be a
        redelivery whose first output never reached the broker. A failure names its entity.
        A new result made for a ``redrive`` (its offset) is stamped with it.
        """
        markdown_hash = state["article"]["hash"]
        emits, done = [], set()
        loaded: list[AssembledArticle] = []

        async def once() -> AssembledArticle:  # read at most once, for the model and outputs
            if not loaded:
                loaded.append(await load())
            return loaded[0]

        for key, entity in state["verdicts"].items():
            qid, _, judged = key.rpartition("@")
            result_key = f"{qid}@{markdown_hash}"
            if (only is not None and key != only) or judged not in ("", markdown_hash):
                continue  # another entity, or a verdict on another version of the article
            if result_key in done:
                continue  # approved twice (naming this version, and naming none)
            done.add(result_key)
            stored = state["results"].get(result_key)
            if stored is None:
                try:
                    who = Entity.model_validate(entity)
                    stored = await self._enriched(article_id, state, once, who)
                    if redrive is not None:
                        stored = {**stored, "redrive": redrive}
                    state = {**state, "results": {**state["results"], result_key: stored}}
                    self.table[article_id] = state
                    await self.confirm(article_id)  # durable before anyone sees it
                except Exception as exc:  # the entity's terminal event says what went wrong
                    emits.append(failed(article_id, entity, state["version"], exc))
                    continue
            emits.append(await with_article(stored, once))
        return emits

    async def _enriched(
        self,
        article_id: str,
        state: dict[str, Any],
        load: Callable[[], Awaitable[AssembledArticle]],
        entity: Entity,
    ) -> dict[str, Any]:
        """A new stored outcome for ``entity``: the model's, or why the article is gone."""
        try:
            article = await load()
        except RecordUnavailable as gone:
            failure = EnrichmentFailure(
                source=article_id,
                article_hash=state["article"]["hash"],
                entity=entity,
                reason=f"article_{gone.reason}",
                last_reason=gone.detail,
            )
            outcome = stored_result(failure)
        else:
            outcome = await self.enrich(article, entity)
        return {**outcome, "version": state["version"]}


async def with_article(
    stored: dict[str, Any], load: Callable[[], Awaitable[AssembledArticle]]
) -> Emit:
    """``result_emit`` with the article an enrichment is about; without it when the assembled
    record can no longer be read back (retention): the field is optional, the join key
    (``article_hash``) is there."""
    if stored["kind"] != "enriched":
        return result_emit(stored)
    try:
        article = await load()
    except RecordUnavailable:
        return result_emit(stored)
    return result_emit(stored, article)


def concerns_join(event: dict[str, Any]) -> bool:
    """Whether a compensation event can change the join: an operator's enrichment redrive, or a
    versioned terminal event of the hygiene stages (a newer version that ended there)."""
    ends_hygiene = event["kind"] == "terminal" and event["stage"] not in NOT_HYGIENE
    return is_redrive(event) or (ends_hygiene and event.get("version") is not None)


def _concerns(w: Wiring, event: Event) -> bool:
    record = w.decode(event)
    return not isinstance(record, Emit) and concerns_join(record)


def is_redrive(event: dict[str, Any]) -> bool:
    """An operator's redrive of an enrichment terminal
    (``article_runtime.streams.service.redrive``): the one fallback event the enrichment stage
    has."""
    return is_redrive_event(event) and event["stage"] == "enrichment"


def failed(
    article_id: str, entity: dict[str, Any], version: Version | None, exc: Exception
) -> Emit:
    """The terminal event for an enrichment that broke (not stored: a redelivery retries)."""
    event = compensation_event(
        article_id,
        stage="enrichment",
        kind="terminal",
        reason="internal_error",
        detail=type(exc).__name__,
        entity=entity,
        version=version,
    )
    return Emit(ARTICLE_COMPENSATION, article_id, event)


async def _validated_now(record: dict[str, Any]) -> AssembledArticle:
    return assembled_article(record)


def reader_of(w: Wiring) -> tuple[ReadArticle, TopicReader]:
    """Reads assembled articles back from their topic."""
    topic = TopicReader(w.settings.connection, ARTICLE_ASSEMBLED.name)

    async def read(ref: dict[str, Any]) -> AssembledArticle:
        value = await topic.read(ref["partition"], ref["offset"])
        article = assembled_article(w.codec.decode(value, ARTICLE_ASSEMBLED.schema))
        if article.hashes.markdown != ref["hash"]:
            raise RecordUnavailable("record_mismatch", "another article at that offset")
        return article

    return read, topic


def register(w: Wiring) -> None:
    table = w.tables[JOIN_TABLE]
    read, topic = reader_of(w)
    join = EnrichmentJoin(table, make_enrich(w.llm), table.confirmed, read)

    @w.app.on_before_shutdown.connect
    async def close_reader(_app: Any, /, *_: Any, **__: Any) -> None:
        await topic.close()

    async def handle(event: Event, record: dict[str, Any]) -> list[Emit]:
        message = event.message
        topic = contract_topic(message.topic)
        if topic is ECP_VERDICT:  # the classifier's producer is not ours
            # A verdict off its article's partition is forwarded to it (or, keyed by something
            # else than its article, ends as a terminal event naming its entity).
            elsewhere = placed(w, event, record, "enrichment", entity=record["entity"])
            if elsewhere is not None:
                return elsewhere
        return await join.on_message(topic.name, record, (message.partition, message.offset))

    def learner(event: Event) -> Callable[[dict[str, Any]], Awaitable[None]]:
        at = (event.message.partition, event.message.offset)

        async def learn(record: dict[str, Any]) -> None:
            # Only a redrive has outputs (its new enrichment); other events change state.
            await w.publish(await join.on_message(ARTICLE_COMPENSATION.name, record, at))

        return learn

    async def watched(event: Event) -> None:
        # As ``w.process`` does: a rebalance abandons a redrive's model call.
        await w.work.run(event.message, watch(w, event, learner(event)))

    topics = w.topic(ARTICLE_ASSEMBLED, ECP_VERDICT, VERDICT_REPARTITION, ARTICLE_COMPENSATION)

    @w.app.agent(topics, name="enrichment")
    async def enrichment(stream: faust.StreamT[bytes]) -> None:
        manual = cast(faust.Stream[bytes], stream).noack()  # StreamT does not declare it
        window = InFlight(w.settings.calls_in_flight, manual.ack)
        async for event in manual.events():
            message = event.message
            if message.topic == ARTICLE_COMPENSATION.name and not _concerns(w, event):
                await manual.ack(event)  # says nothing to the join: no place in the window
                continue
            if message.topic == ARTICLE_ASSEMBLED.name and message.value is not None:
                topic.remember(message.partition, message.offset, message.value)
            table.expire(event.message.partition, w.settings.retention_s)
            if event.message.topic == ARTICLE_COMPENSATION.name:
                await window.submit(event, watched(event))
            else:
                await window.submit(event, w.process(event, "enrichment", handle))

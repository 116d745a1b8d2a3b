"""Ledger: what operators read. Per-article status and outcome counters, from the topics.

It consumes every topic of the flow and is the only writer of both tables (one actor; Faust
commits offsets without waiting for table changes, so each message is acked only once the
broker has confirmed its changes).
Status is event-sourced from what is durably on the topics, so it shows what downstream sees.
Counters are keyed by source partition (``"<partition>/<name>"``): a Faust table's changelog
follows the source partition, so one key per partition keeps counts right across rebalances.

The lineage is kept for the retention period, so each entry holds only what a person reads:
fields without a value are left out, each attempt is listed once (at the first message that
carries it; later events repeat the attempts so far), and each entry names the article version
it belongs to (``@<ingested offset>``, or ``v<declared>@<offset>``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, cast

import faust

from agents.versions import label, version_of
from streams.coalesced import Coalesced
from streams.codec import CodecError
from streams.consumer import epoch_of
from streams.routing import partition_count
from streams.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_ENRICHED,
    ARTICLE_INGESTED,
    BY_NAME,
    ECP_VERDICT,
    TOPICS,
    partition_of,
)
from streams.window import InFlight
from streams.wiring import Wiring

STATUS_TABLE = "article_status"
COUNTERS_TABLE = "outcome_counters"
_log = logging.getLogger(__name__)
MAX_EVENTS = 40  # lineage entries kept per article; the topics hold the rest
CONFIRMS_IN_FLIGHT = 64  # messages whose table changes await the broker at once
_ATTEMPT_FIELDS = ("call", "role", "model", "attempt", "outcome", "reason", "latency_ms")


def _stamp(value: Any) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else None


def _attempts(record: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: a.get(k) for k in _ATTEMPT_FIELDS} for a in record.get("attempts", [])]


def observe(
    topic: str, record: dict[str, Any], offset: int | None = None
) -> tuple[dict[str, Any], list[str]]:
    """What one message (at ``offset``) says about its article (a lineage entry, its version
    named) and which counters it bumps."""
    entry, names = _observed(topic, record)
    version = record.get("version")
    if topic == ARTICLE_INGESTED.name:
        version = None if offset is None else version_of(record, offset)
    return {**entry, "version": label(version)}, names


def _observed(topic: str, record: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    if topic == ARTICLE_INGESTED.name:
        return {"stage": "ingested", "url": record["url"]}, ["ingested"]
    if topic == ARTICLE_ASSEMBLED.name:
        entry = {
            "stage": "assembled",
            "path": record["path"],
            "title": record["title"],
            "markdown_hash": record["hashes"]["markdown"],
            "prompt": record.get("prompt"),
            "attempts": _attempts(record),
        }
        return entry, [f"assembled/{record['path']}"]
    if topic == ECP_VERDICT.name:
        verdict = "approved" if record["approved"] else "rejected"
        entity = record["entity"] or {}
        entry = {
            "stage": f"ecp_{verdict}",
            "entity": entity.get("qid"),
            "classifier": record["classifier_version"],
        }
        return entry, [f"verdict/{verdict}"]
    if topic == ARTICLE_ENRICHED.name:
        entry = {
            "stage": "enriched",
            "path": record["path"],
            "entity": record["entity"]["qid"],
            "sentiment": record["sentiment"],
            "tags": [t["tag"] for t in record["tags"]],
            "prompt": record["prompt"],
            "content_hash": record["content_hash"],
            "attempts": _attempts(record),
        }
        return entry, [f"enriched/{record['path']}"]
    entry = {
        "stage": f"compensation_{record['kind']}",
        "from_stage": record["stage"],
        "reason": record["reason"],
        "detail": record["detail"],
        "next_attempt": record["next_attempt"],
        "attempts": _attempts(record),
    }
    name = f"compensation/{record['stage']}/{record['kind']}/{record['reason']}"
    return entry, [name]


def updated(
    status: dict[str, Any] | None, topic: str, entry: dict[str, Any], at: str | None
) -> dict[str, Any]:
    """The article's status after one lineage entry (a new dict: tables need reassignment)."""
    before = status or {"events": []}
    event = {k: v for k, v in {"topic": topic, "at": at, **entry}.items() if v is not None}
    if "attempts" in event:
        listed = [a for e in before["events"] for a in e.get("attempts", ())]
        event["attempts"] = [a for a in event["attempts"] if a not in listed]
        if not event["attempts"]:
            del event["attempts"]
    after = {**before, "stage": entry["stage"], "updated_at": at}
    if "path" in entry and topic == ARTICLE_ASSEMBLED.name:
        after["path"] = entry["path"]
    if "reason" in entry:
        after["last_reason"] = entry["reason"]
    after["events"] = [*before["events"], event][-MAX_EVENTS:]
    return after


def describe(w: Wiring, topic: str, value: bytes, offset: int) -> tuple[dict[str, Any], list[str]]:
    """``observe`` on a raw message; whatever it holds, the ledger records something."""
    try:
        return observe(topic, w.codec.decode(value, BY_NAME[topic].schema), offset)
    except CodecError as error:
        return {"stage": "undecodable", "reason": error.reason}, ["undecodable"]
    except Exception as exc:  # a record the views do not understand must not stop the ledger
        _log.exception("ledger could not describe a %s message", topic)
        return {"stage": "unreadable", "reason": type(exc).__name__}, ["ledger_error"]


def register(w: Wiring) -> None:
    status, counters = w.tables[STATUS_TABLE], w.tables[COUNTERS_TABLE]

    @w.app.agent(w.topic(*TOPICS), name="ledger")
    async def ledger(stream: faust.StreamT[bytes]) -> None:
        manual = cast(faust.Stream[bytes], stream).noack()  # StreamT does not declare it
        # Changes are made here, in order; writing and confirming them runs side by side, at
        # most one record in flight per key (``streams.coalesced``), and each message is acked
        # once a confirmed record holds each of its changes.
        window = InFlight(CONFIRMS_IN_FLIGHT, manual.ack)
        lineage = Coalesced(status, status.confirmed)
        counts = Coalesced(counters, counters.confirmed)
        epoch: int | None = None
        async for event in manual.events():
            message = event.message
            if epoch_of(message) != epoch:  # a new assignment: what the old one left unwritten
                lineage.forget()  # is redone by the partitions' next owners
                counts.forget()
                epoch = epoch_of(message)
            status.expire(message.partition, w.settings.retention_s)
            entry, names = describe(w, message.topic, message.value or b"", message.offset)
            key = (message.key or b"").decode("utf-8", errors="replace")
            at = datetime.fromtimestamp(message.timestamp, UTC).isoformat()
            waits = []
            # A message off its key's partition (an outside producer with another partitioner,
            # which the stages end as misrouted_key) gets no lineage entry: written here it
            # would sit on the wrong partition's changelog, where expiry never looks.
            partitions = partition_count(w.app, BY_NAME[message.topic], w.settings.partitions)
            if partition_of(key, partitions) == message.partition:
                waits.append(lineage.set(key, updated(lineage.get(key), message.topic, entry, at)))
            for name in names:
                counter = f"{message.partition}/{name}"
                waits.append(counts.set(counter, counts.get(counter, 0) + 1))
            await window.submit(event, _durable(w, message, waits))


async def _durable(w: Wiring, message: Any, waits: list[Callable[[], Awaitable[None]]]) -> None:
    """As any stage's work: a revoked partition's writes stop before the partition moves."""
    await w.work.run(message, _all(waits))


async def _all(waits: list[Callable[[], Awaitable[None]]]) -> None:
    await asyncio.gather(*(wait() for wait in waits))

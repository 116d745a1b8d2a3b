"""Ledger: what operators read. Per-article lineage, outcome counters and recent terminals.

Every message of the flow is recorded once, by the stage that handles it, before the offset of
its input is committed; no agent reads the topics a second time to learn what the stages
already know:
- a message someone else produced (an ingested page, an ECP verdict, an operator's redrive, a
  value no schema reads) when a stage takes it (``taken``);
- a message a stage produced (an assembled or enriched article, a compensation event) once the
  broker has acknowledged it (``made``), so the lineage shows what downstream sees.

Status is recorded from what is durably on the topics, as before; what changed is who writes
it. Counters are one key per source partition (``"<partition>"`` -> counts by name): a Faust
table's changelog follows the partition of the message being handled, so a key per partition
keeps counts right across rebalances, and one record carries every count a message changed.
Changes go through ``article_runtime.streams.kafka.coalesced``: made in the tables at once, and
written (a record per changed key) and confirmed before the consumer's next commit of the input
offsets, not before each input is acked: nothing the flow produces depends on them.

The lineage is kept for the retention period, so each entry holds only what a person reads:
fields without a value are left out, each attempt is listed once (at the first message that
carries it; later events repeat the attempts so far), and each entry names the article version
it belongs to (``@<ingested offset>``, or ``v<declared>@<offset>``).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from faust.streams import current_event

from article_runtime.agents.terminals import RECENT_TABLE, remembered
from article_runtime.agents.versions import label, version_of
from article_runtime.streams.kafka.coalesced import Coalesced
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_ENRICHED,
    ARTICLE_INGESTED,
    ARTICLE_PROPOSAL,
    BY_NAME,
    ECP_VERDICT,
    REPARTITIONED,
    Topic,
    partition_of,
)
from article_runtime.streams.service.redrive import is_redrive_event
from article_runtime.streams.service.routing import (
    contract_topic,
    misrouted,
    partition_count,
    source_offset,
)
from article_runtime.streams.service.wiring import Emit, Event, Wiring

STATUS_TABLE = "article_status"
COUNTERS_TABLE = "outcome_counters"
MAX_EVENTS = 40  # lineage entries kept per article; the topics hold the rest
_log = logging.getLogger(__name__)
_ATTEMPT_FIELDS = ("call", "role", "model", "attempt", "outcome", "reason", "latency_ms")
# Topics whose messages someone outside the stages writes: recorded when a stage takes them
# (a copy forwarded to its article's partition, ``article_runtime.streams.service.routing``, as its
# source's message where it is taken; where the source sat, it is only counted ``forwarded/...``).
TAKEN: frozenset[Topic] = frozenset({ARTICLE_INGESTED, ECP_VERDICT})
# Topics the stages write: recorded when the broker has them.
MADE: frozenset[Topic] = frozenset(
    {ARTICLE_PROPOSAL, ARTICLE_ASSEMBLED, ARTICLE_ENRICHED, ARTICLE_COMPENSATION}
)


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
    if topic == ARTICLE_PROPOSAL.name:
        # Its attempts are listed once judged (on the assembled article or fallback event).
        calls = record["attempts"]
        entry = {
            "stage": "proposed",
            "rung": record["rung"],
            "model": calls[-1]["model"] if calls else None,
            "answered": record["answer"] is not None,
        }
        return entry, [f"proposed/{record['rung']}"]
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


def described(
    topic: str, record: dict[str, Any] | Emit, offset: int
) -> tuple[dict[str, Any], list[str]]:
    """``observe`` for one message; for a value no schema reads, the terminal event the stage
    made of it. Whatever it holds, the ledger records something."""
    if isinstance(record, Emit):
        return {"stage": "undecodable", "reason": record.record["reason"]}, ["undecodable"]
    try:
        return observe(topic, record, offset)
    except Exception as exc:  # a record the views do not understand must not stop a stage
        _log.exception("ledger could not describe a %s message", topic)
        return {"stage": "unreadable", "reason": type(exc).__name__}, ["ledger_error"]


def forwarded(key: bytes | None, record: dict[str, Any] | Emit) -> bool:
    """Whether a message off its key's partition is forwarded there (its key is its article
    id), not ended ``misrouted_key`` or undecodable where it sits."""
    if isinstance(record, Emit):
        return False
    return misrouted(key, str(record.get("article_id", ""))) is None


def made_elsewhere(event: dict[str, Any], partition: int) -> bool:
    """Whether a compensation event taken on ``partition`` was made by a stage handling
    another one: its input sat off the article's partition (``misrouted_key``, or a key no
    one could read), and it landed where its article's key puts it."""
    origin = event.get("origin")
    return origin is not None and origin["partition"] != partition


def recorded_when_taken(topic: str, record: dict[str, Any] | Emit, partition: int) -> bool:
    """Whether a message a stage takes on ``partition`` is recorded then: nobody else does.

    Values no schema reads, pages and verdicts always; of the compensation events (the
    hygiene stage takes them), an operator's redrives and those made on another partition.
    """
    if isinstance(record, Emit) or contract_topic(topic) in TAKEN:
        return True
    if topic != ARTICLE_COMPENSATION.name:
        return False
    return is_redrive_event(record) or made_elsewhere(record, partition)


def recorded_when_made(topic: str, landed: int, partition: int) -> bool:
    """Whether a message a stage made while handling ``partition``, which ``landed`` on its
    article's partition, is recorded then: elsewhere it is recorded where it landed, when
    taken (``made_elsewhere``)."""
    return contract_topic(topic) in MADE and landed == partition


@dataclass(frozen=True)
class Seen:
    """One message as the ledger records it."""

    topic: str
    key: str
    record: dict[str, Any]  # a record the codec read, or that a stage made
    entry: dict[str, Any]
    names: list[str]
    partition: int  # where its article's key puts it


class Ledger:
    """Changes the three tables for the stages; ``flush`` writes the changes before a commit."""

    def __init__(self, w: Wiring) -> None:
        self.w = w
        self.status = w.tables[STATUS_TABLE]
        self.lineage = Coalesced(self.status)
        self.counts = Coalesced(w.tables[COUNTERS_TABLE])
        self.recent = Coalesced(w.tables[RECENT_TABLE])

    async def flush(self) -> None:
        """Every change so far, written and confirmed
        (``article_runtime.streams.kafka.coalesced``)."""
        await asyncio.gather(self.lineage.flush(), self.counts.flush(), self.recent.flush())

    def taken(self, event: Event, record: dict[str, Any] | Emit) -> None:
        """Record a message a stage just took (as ``Wiring.decode`` read it: the record, or
        the terminal event for a value that does not decode), if nobody else records it."""
        message = event.message
        if not recorded_when_taken(message.topic, record, message.partition):
            return
        topic = contract_topic(message.topic).name  # a forwarded copy's: its source
        key = (message.key or b"").decode("utf-8", errors="replace")
        home = self._partition_of(message.topic, key)
        source = BY_NAME[message.topic] in REPARTITIONED
        if source and home != message.partition and forwarded(message.key, record):
            entry, names = {"stage": "forwarded"}, [f"forwarded/{contract_topic(topic).key}"]
        else:
            entry, names = described(topic, record, source_offset(event))
        at = datetime.fromtimestamp(message.timestamp, UTC).isoformat()
        read = {} if isinstance(record, Emit) else record
        self._record(message, [Seen(topic, key, read, entry, names, home)], at)

    def made(self, emits: Sequence[Emit]) -> None:
        """Record what a stage produced and the broker acknowledged, in the task of the
        message it was produced for; what landed on another partition is recorded there,
        when the hygiene stage takes it (``made_elsewhere``)."""
        event = current_event()
        mine = [e for e in emits if e.topic in MADE]
        if not mine:
            return
        if event is None:  # not inside a stage's message: nowhere to write it
            _log.warning("ledger: %d messages produced outside a stage's message", len(mine))
            return
        partition = event.message.partition
        seen = []
        for emit in mine:
            landed = self._partition_of(emit.topic.name, emit.article_id)
            if recorded_when_made(emit.topic.name, landed, partition):
                entry, names = described(emit.topic.name, emit.record, -1)
                one = Seen(emit.topic.name, emit.article_id, emit.record, entry, names, landed)
                seen.append(one)
            elif not made_elsewhere(emit.record, landed):  # cannot be told apart when taken
                _log.warning("ledger: a %s message off its partition has no origin", emit.topic)
        self._record(event.message, seen, datetime.now(UTC).isoformat())

    def _record(self, message: Any, seen: list[Seen], at: str) -> None:
        if not self.w.work.counts(message):
            # Its assignment ended (or the flow stopped): it will be redelivered and recorded
            # by whoever owns its partition, and its changes must not be written from here.
            return
        partition = message.partition
        self.status.expire(partition, self.w.settings.retention_s)
        counted = Counter(name for one in seen for name in one.names)
        if counted:
            held = self.counts.get(str(partition)) or {}
            self.counts.set(str(partition), dict(Counter(held) + counted), partition)
        for one in seen:
            # An article off its partition (an outside producer's, which the stages forward,
            # or end as misrouted_key) gets no lineage entry: written here it would sit on the wrong
            # partition's changelog, where expiry and the views never look. It is counted.
            if one.partition == partition:
                status = updated(self.lineage.get(one.key), one.topic, one.entry, at)
                self.lineage.set(one.key, status, partition)
            if one.topic == ARTICLE_COMPENSATION.name and one.record.get("kind") == "terminal":
                key = f"{partition}/{one.record['stage']}/{one.record['reason']}"
                self.recent.set(key, remembered(self.recent.get(key), one.record), partition)

    def _partition_of(self, topic: str, key: str) -> int:
        partitions = partition_count(self.w.app, BY_NAME[topic], self.w.settings.partitions)
        return partition_of(key, partitions)

"""What every agent shares: the Faust app, its tables, the codec, the LLM runtime.

Agents are thin: decode, call a pure stage function, ``publish`` its ``Emit``s. ``publish``
awaits the broker's acknowledgement of every message before returning, and an input is acked
only after that, by our code: every agent reads a manual-ack stream, and ``consume`` (one at a
time) or ``article_runtime.streams.kafka.window.InFlight`` (many at once) acks a message when its
work is done. Faust never acks on our behalf: its own acks (of messages it skips at a rebalance, or
of one whose agent raised) are not evidence of work done and do not count. Which offsets are then
committed is decided in one place, ``article_runtime.streams.kafka.commits.CommitGate``: never past
a message whose outcome is not durably produced (at-least-once). ``process`` runs as
``InFlightWork``, so a rebalance stops it instead of waiting for it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import faust

from article_runtime.hygiene import HYGIENE
from article_runtime.llm.policy import LLMRuntime, serves
from article_runtime.streams.kafka.codec import AvroCodec, CodecError
from article_runtime.streams.kafka.consumer import InFlightWork
from article_runtime.streams.kafka.crash import exit_without_commit
from article_runtime.streams.kafka.tables import StateTable
from article_runtime.streams.kafka.topics import ARTICLE_COMPENSATION, BY_NAME, Topic, message_key
from article_runtime.streams.kafka.window import Event
from article_runtime.streams.service.broker_watch import BrokerWatch
from article_runtime.streams.service.compensation import Stage, compensation_event, undecodable
from article_runtime.streams.service.emit import Emit
from article_runtime.streams.service.logs import article_scope, log_compensation, note_record
from article_runtime.streams.service.metrics import FlowMetrics
from article_runtime.streams.service.settings import WorkerSettings

# What every agent imports from here, the message types included (defined below it).
__all__ = [
    "AHEAD_PER_CALL",
    "QUEUED_AT_MOST",
    "Emit",
    "Event",
    "Handler",
    "Recorder",
    "Unrecorded",
    "Wiring",
    "manual_acks",
    "origin",
    "outcomes",
    "queue_size",
]

_log = logging.getLogger(__name__)


class Recorder(Protocol):
    """Where the stages record the flow's messages for operators
    (``article_runtime.agents.ledger``): each call changes the record at once; the consumer makes it
    durable before its next commit."""

    def taken(self, event: Event, record: dict[str, Any] | Emit) -> None: ...

    def made(self, emits: Sequence[Emit]) -> None: ...


# Messages an agent's channel holds ahead of its window, per model call in flight, and at most
# QUEUED_AT_MOST. Faust stops fetching a partition once a channel holds four fifths of its size
# and blocks delivery when it is full. Faust's default size (4096 messages, whatever their
# bytes) let a backlog of real news pages (median 116 KB) take one worker to 974 MiB of RSS,
# the chart's limit is 1 GiB, and a page may have MAX_HTML_BYTES. Each answer frees a slot and
# a fetch returns in milliseconds, so a few messages per slot keep the window fed; past 32, a
# queue only holds more pages (128 calls in flight fed from 32 queued kept pace with an
# instant model in make bench-stream).
AHEAD_PER_CALL = 4
QUEUED_AT_MOST = 32


def queue_size(calls_in_flight: int) -> int:
    """Messages an agent's channel holds ahead of a window of ``calls_in_flight``."""
    return min(AHEAD_PER_CALL * calls_in_flight, QUEUED_AT_MOST)


class Unrecorded:
    """No record kept (a wiring without the ledger's tables)."""

    def taken(self, event: Event, record: dict[str, Any] | Emit) -> None:
        return None

    def made(self, emits: Sequence[Emit]) -> None:
        return None


@dataclass
class Wiring:
    app: faust.App
    settings: WorkerSettings
    codec: AvroCodec
    tables: Mapping[str, StateTable]
    llm: LLMRuntime | None
    work: InFlightWork
    metrics: FlowMetrics = field(default_factory=FlowMetrics)
    broker: BrokerWatch = field(default_factory=BrokerWatch)
    ledger: Recorder = field(default_factory=Unrecorded)
    # Per stage whose window has a byte budget: the bytes of input it holds in flight now.
    bytes_in_flight: dict[str, Callable[[], int]] = field(default_factory=dict)

    @property
    def has_hygiene_models(self) -> bool:
        """Whether the ladder has model rungs; without providers it starts deterministic."""
        return serves(self.llm, HYGIENE)

    def topic(self, *topics: Topic) -> faust.TopicT:
        """A raw-bytes channel over ``topics``: values are decoded by our codec, not Faust's.
        It holds at most ``queue_size`` messages: a backlog waits on the broker, not in the
        worker's memory.

        Made as ``App.topic`` makes it, less one bug: faust-streaming 0.15.3's ``App.topic``
        takes ``maxsize`` and drops it, so every queue got the 4096 default."""
        make = cast(Callable[..., faust.TopicT], self.app.conf.Topic)
        return make(
            self.app,
            topics=[t.name for t in topics],
            # the count found (article_runtime.streams.kafka.partitions)
            partitions=self.app.conf.topic_partitions,
            key_serializer="raw",
            value_serializer="raw",
            maxsize=queue_size(self.settings.calls_in_flight),
        )

    def decode(self, event: Event) -> dict[str, Any] | Emit:
        """The record, or the terminal compensation for a value our codec refuses."""
        message = event.message
        topic = BY_NAME[message.topic]
        try:
            return self.codec.decode(message.value or b"", topic.schema)
        except CodecError as error:
            record = undecodable(
                error,
                key=message.key,
                topic=message.topic,
                partition=message.partition,
                offset=message.offset,
            )
            return Emit(ARTICLE_COMPENSATION, record["article_id"], record)

    async def publish(self, emits: Iterable[Emit]) -> None:
        """Produce every message, wait until the broker has each one, then record them in the
        ledger.

        Values are our codec's bytes, so they go to Faust's producer as they are: a topic's
        ``send`` only passed them through its serializers, a future of its own and two sensor
        hooks per record on the way; the metrics count them below, once acknowledged.

        A failure to produce is not bad input: retrying it locally could reorder outputs, and
        acking it would lose the input. The process exits without committing, and the input
        is redelivered to this worker's successor.
        """
        emits, futures, producer = list(emits), [], self.app.producer
        try:
            for emit in emits:
                value = self.codec.encode(emit.topic.schema, emit.record)
                key = message_key(emit.article_id)
                headers = list(emit.headers) or None
                sent = producer.send(emit.topic.name, key, value, None, None, headers)
                futures.append(await sent)  # partition by key (murmur2), stamped now
            # Shielded: abandoning this work must not cancel the producer's own futures.
            await asyncio.shield(asyncio.gather(*futures))
            self.ledger.made(emits)
        except Exception:
            exit_without_commit("publish failed")
        self.metrics.on_published(emits)
        for emit in emits:
            if emit.topic is ARTICLE_COMPENSATION:
                log_compensation(emit.record)

    async def process(self, event: Event, stage: Stage, handle: Handler) -> None:
        """One input, start to finish: its outcomes, produced and acknowledged. Abandoned when
        its partition is revoked (the new owner is redelivered the input)."""
        await self.work.run(event.message, self._process(event, stage, handle))

    async def _process(self, event: Event, stage: Stage, handle: Handler) -> None:
        key = (event.message.key or b"").decode("utf-8", errors="replace")
        with article_scope(key, stage), self.metrics.processing(stage):
            record = self.decode(event)
            self.ledger.taken(event, record)
            await self.publish(await outcomes(self, event, record, stage, handle))

    async def consume(self, stream: faust.StreamT[bytes], stage: Stage, handle: Handler) -> None:
        """An agent's whole loop, one message at a time: process it, then ack it."""
        manual = manual_acks(stream)
        async for event in manual.events():
            await self.process(event, stage, handle)
            await manual.ack(event)


def manual_acks(stream: faust.StreamT[bytes]) -> faust.StreamT[bytes]:
    """The agent's stream with acks left to us (``StreamT`` does not declare ``noack``)."""
    return cast(faust.Stream[bytes], stream).noack()


Handler = Callable[[Event, dict[str, Any]], Awaitable[list[Emit]]]


def origin(event: Event) -> tuple[str, int, int]:
    message = event.message
    return (message.topic, message.partition, message.offset)


async def outcomes(
    w: Wiring, event: Event, record: dict[str, Any] | Emit, stage: Stage, handle: Handler
) -> list[Emit]:
    """What one input (as ``Wiring.decode`` read it) turns into; never raises, so Faust never
    acks a message we dropped.

    Undecodable values and unexpected errors become terminal compensation events that name
    where the input sits, so an operator can find and replay it.
    """
    if isinstance(record, Emit):
        return [record]
    note_record(record)
    article_id = str(record.get("article_id", ""))
    try:
        return await handle(event, record)
    except Exception as exc:
        _log.exception("%s failed on %s", stage, article_id)
        failure = compensation_event(
            article_id,
            stage=stage,
            kind="terminal",
            reason="internal_error",
            detail=type(exc).__name__,
            origin=origin(event),
        )
        return [Emit(ARTICLE_COMPENSATION, article_id, failure)]

"""Read one record back from a topic by its position, for tables that keep references.

The enrichment join keeps where an assembled article sits on its topic (partition, offset),
not the article: a 5 MiB page does not belong in a changelog record, and 72 hours of articles
do not belong in a worker's memory. When a verdict arrives later, the article is read back.

One consumer outside any group, one read at a time. It fetches little beyond the record asked
for (the broker still returns a larger first batch whole) and pauses after each read, so it
does not prefetch the rest of the topic. Before that it looks in what the worker saw on the
topic lately (``remember``): a verdict usually follows its article within seconds, and the
value at a position never changes, so most reads need no fetch at all.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from aiokafka import AIOKafkaConsumer
from aiokafka.structs import TopicPartition

from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.topics import MAX_MESSAGE_BYTES

FETCH_BYTES = 256 * 1024  # per read; a larger record still comes whole
REMEMBERED_BYTES = 32 * 1024 * 1024  # values kept for reads without a fetch, newest first


class RecordUnavailable(Exception):
    """The record cannot be read back; ``reason`` is categorical, ``detail`` for people."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


class Remembered:
    """The latest values seen at positions of one topic, at most ``limit`` bytes of them."""

    def __init__(self, limit: int = REMEMBERED_BYTES) -> None:
        self.limit, self.held = limit, 0
        self._values: OrderedDict[tuple[int, int], bytes] = OrderedDict()

    def add(self, partition: int, offset: int, value: bytes) -> None:
        self.held -= len(self._values.pop((partition, offset), b""))
        if len(value) > self.limit:
            return  # too large to keep; nor may an older value of the position stay
        self.held += len(value)
        self._values[(partition, offset)] = value
        while self.held > self.limit:
            _, oldest = self._values.popitem(last=False)
            self.held -= len(oldest)

    def get(self, partition: int, offset: int) -> bytes | None:
        return self._values.get((partition, offset))

    def __len__(self) -> int:
        return len(self._values)


class TopicReader:
    def __init__(self, connection: KafkaConnection, topic: str, *, timeout_s: float = 30.0) -> None:
        self.connection, self.topic, self.timeout_s = connection, topic, timeout_s
        self._consumer: AIOKafkaConsumer | None = None
        self._lock = asyncio.Lock()
        self._seen = Remembered()

    def remember(self, partition: int, offset: int, value: bytes) -> None:
        """A value the worker read at this position: the next read of it needs no fetch."""
        self._seen.add(partition, offset, value)

    async def read(self, partition: int, offset: int) -> bytes:
        """The value at ``offset`` of ``partition``.

        Raises:
            RecordUnavailable: ``record_expired`` (retention removed it), ``read_timeout``.
        """
        seen = self._seen.get(partition, offset)
        if seen is not None:
            return seen
        async with self._lock:
            consumer = await self._started()
            tp = TopicPartition(self.topic, partition)
            consumer.assign([tp])
            consumer.seek(tp, offset)
            try:
                message = await asyncio.wait_for(consumer.getone(tp), self.timeout_s)
            except TimeoutError:
                raise RecordUnavailable(
                    "read_timeout", f"{self.topic}[{partition}]@{offset} after {self.timeout_s} s"
                ) from None
            finally:
                consumer.pause(tp)
        if message.offset != offset or message.value is None:
            raise RecordUnavailable(
                "record_expired", f"{self.topic}[{partition}]@{offset} is gone (retention)"
            )
        return bytes(message.value)

    async def _started(self) -> AIOKafkaConsumer:
        if self._consumer is None:
            consumer = AIOKafkaConsumer(
                **self.connection.aiokafka(),
                group_id=None,
                enable_auto_commit=False,
                auto_offset_reset="earliest",  # an offset retention removed reads as a later one
                max_partition_fetch_bytes=FETCH_BYTES,
                fetch_max_bytes=MAX_MESSAGE_BYTES,
            )
            await consumer.start()
            self._consumer = consumer
        return self._consumer

    async def close(self) -> None:
        if self._consumer is not None:
            await self._consumer.stop()
            self._consumer = None

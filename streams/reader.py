"""Read one record back from a topic by its position, for tables that keep references.

The enrichment join keeps where an assembled article sits on its topic (partition, offset),
not the article: a 5 MiB page does not belong in a changelog record, and 72 hours of articles
do not belong in a worker's memory. When a verdict arrives later, the article is read back.

One consumer outside any group, one read at a time. It fetches little beyond the record asked
for (the broker still returns a larger first batch whole) and pauses after each read, so it
does not prefetch the rest of the topic.
"""

from __future__ import annotations

import asyncio

from aiokafka import AIOKafkaConsumer
from aiokafka.structs import TopicPartition

from streams.connection import KafkaConnection
from streams.topics import MAX_MESSAGE_BYTES

FETCH_BYTES = 256 * 1024  # per read; a larger record still comes whole


class RecordUnavailable(Exception):
    """The record cannot be read back; ``reason`` is categorical, ``detail`` for people."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


class TopicReader:
    def __init__(self, connection: KafkaConnection, topic: str, *, timeout_s: float = 30.0) -> None:
        self.connection, self.topic, self.timeout_s = connection, topic, timeout_s
        self._consumer: AIOKafkaConsumer | None = None
        self._lock = asyncio.Lock()

    async def read(self, partition: int, offset: int) -> bytes:
        """The value at ``offset`` of ``partition``.

        Raises:
            RecordUnavailable: ``record_expired`` (retention removed it), ``read_timeout``.
        """
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

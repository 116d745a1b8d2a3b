"""The worker's producer: Faust's aiokafka producer, with every topic tracked in aiokafka's
metadata before the first record goes to it, and a flush that covers table changes.

aiokafka refreshes its metadata for the topics it tracks, or for all topics while it tracks
none. Faust refreshes it after declaring each topic at start-up, while none is tracked, so the
first records find their topics in that all-topics answer and aiokafka never tracks them. Once
one topic is tracked (the first record to a topic made after that answer), the next refresh asks
for that topic alone and the others drop out of the producer's view: a batch already waiting
for one of them has no leader, and nothing sends it until another record to the same topic
brings the topic back, or the request timeout (Faust's: 20 minutes) fails it. In the benchmark
one partition's articles waited on such a batch while holding every calling slot, and the
worker settled nothing for 20 minutes.

Tracking each topic before its first record keeps every topic with a waiting batch in every
refresh, so a leader is always found for it.

Faust flushes the producer before it commits, and so before a revoked partition moves on; its
own buffer of table changes was part of that flush. Ours
(``article_runtime.streams.kafka.changelog``) is too: a change made before the revocation is on the
broker before the partition's next owner reads the changelog, never after.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import HeadersArg, RecordMetadata

from article_runtime.streams.kafka.tables import StateTable


class Producer(faust_aiokafka.Producer):
    """Faust's producer, tracking each topic's metadata from its first record on, whose
    flush waits for the tables' changes too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tracked: set[str] = set()

    async def send(
        self,
        topic: str,
        key: bytes | None,
        value: bytes | None,
        partition: int | None,
        timestamp: float | None,
        headers: HeadersArg | None,
        *,
        transactional_id: str | None = None,
    ) -> Awaitable[RecordMetadata]:
        if topic not in self._tracked:
            # A refresh asks for this topic from now on (the first time, one refresh at once;
            # aiokafka's send waits for it only if the topic is not in its view yet).
            self._ensure_producer().client.add_topic(topic)
            self._tracked.add(topic)
        return await super().send(
            topic, key, value, partition, timestamp, headers, transactional_id=transactional_id
        )

    async def flush(self) -> None:
        for table in self.app.tables.values():
            if isinstance(table, StateTable):
                await table.handed_over()  # then aiokafka's flush waits for their records
        await super().flush()

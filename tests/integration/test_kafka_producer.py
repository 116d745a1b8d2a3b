"""The worker's producer (``article_runtime.streams.kafka.faust_producer``) on the real broker.

- A record waiting to be sent is not stranded when the producer starts tracking another
  topic. Faust declares topics at start-up and then refreshes the producer's metadata for all
  topics; aiokafka, once it tracks any one topic, refreshes only the tracked ones. A record to
  a topic known only from the all-topics answer, still lingering when a record to a newer topic
  arrived, lost its leader and waited for the request timeout (20 minutes): the stalled
  benchmark round of stop 23. The linger here holds the first records back long enough for
  that to happen every time.
- Its flush covers the tables' changes: once it returns, every change made before it is on the
  broker (Faust flushes before it commits, and so before a revoked partition moves on).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import faust
import pytest

from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.consumer import Transport
from article_runtime.streams.kafka.tables import table
from article_runtime.streams.kafka.topics import PARTITIONS, Topic
from article_runtime.streams.local.broker import local_kafka
from bench.retained import records_on_topics

pytestmark = pytest.mark.kafka  # starts a broker

ACK_WITHIN_S = 20.0  # the broker acknowledges in milliseconds; stranded, it would take 20 min
STOP_WITHIN_S = 10.0


@pytest.fixture(scope="module")
def connection() -> Iterator[KafkaConnection]:
    with local_kafka() as found:
        yield found


def names(prefix: str, count: int) -> list[str]:
    run = uuid.uuid4().hex[:8]
    return [f"{prefix}.{run}.{n}" for n in range(count)]


def worker_app(connection: KafkaConnection, **settings: Any) -> faust.App:
    """A Faust app with the worker's transport (and so its producer), nothing started."""
    app = faust.App(
        f"kafka-producer-{uuid.uuid4().hex[:8]}",
        broker=f"kafka://{connection.bootstrap}",
        topic_partitions=PARTITIONS,
        **settings,
    )
    app.transport = Transport(app.conf.broker_consumer, app)
    return app


@asynccontextmanager
async def started(app: faust.App) -> AsyncIterator[faust.App]:
    await app.producer.start()
    try:
        yield app
    finally:
        # Bounded: a producer still holding a stranded batch would wait for it on stopping.
        await asyncio.wait_for(app.producer.stop(), STOP_WITHIN_S)


async def record_acked_after_another_topic_is_tracked(
    connection: KafkaConnection, early: list[str], late: str
) -> list[int]:
    """Faust's start-up order: declare ``early`` (an all-topics refresh), then records to each,
    lingering, then the first record to ``late``, a topic made after that refresh. Returns the
    offsets the early records got."""
    async with started(worker_app(connection, producer_linger=0.5)) as app:
        producer = app.producer
        for topic in early:
            await producer.create_topic(topic, PARTITIONS, 1)  # exists: only the refresh
        ensure_topics(connection, [Topic(late, "-")], partitions=PARTITIONS)
        last = PARTITIONS - 1
        waiting = [await producer.send(t, b"k", b"early", last, None, None) for t in early]
        await producer.send(late, b"k", b"late", 0, None, None)
        acked = await asyncio.wait_for(asyncio.gather(*waiting), ACK_WITHIN_S)
        return [metadata.offset for metadata in acked]


def test_records_waiting_for_a_topic_are_acked_after_the_producer_tracks_another(
    connection: KafkaConnection,
) -> None:
    early = names("producer.early", 3)
    ensure_topics(connection, [Topic(name, "-") for name in early], partitions=PARTITIONS)
    offsets = asyncio.run(
        record_acked_after_another_topic_is_tracked(connection, early, names("late", 1)[0])
    )
    assert offsets == [0, 0, 0]  # each the first record of its partition


async def on_the_broker_after_flush(connection: KafkaConnection, changes: int) -> int:
    """Make ``changes`` table changes and flush at once, before the loop runs again; returns
    how many records the changelog holds when the flush returns (counted with the loop held,
    so nothing is sent meanwhile)."""
    app = worker_app(connection)
    ladder = table(app, "ladder")
    changelog = ladder.changelog_topic.get_topic_name()
    ensure_topics(connection, [Topic(changelog, "-")], partitions=PARTITIONS)
    async with started(app):
        for n in range(changes):
            ladder.send_changelog(n % PARTITIONS, f"article-{n}", b"{}")
        await asyncio.wait_for(app.producer.flush(), ACK_WITHIN_S)
        return records_on_topics(connection)[changelog]


def test_a_flush_returns_once_every_table_change_made_before_it_is_on_the_broker(
    connection: KafkaConnection,
) -> None:
    assert asyncio.run(on_the_broker_after_flush(connection, 50)) == 50

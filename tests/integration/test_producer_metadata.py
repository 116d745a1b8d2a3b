"""On the real broker: a record waiting to be sent is not stranded when the producer starts
tracking another topic (``streams.kafka_producer``).

Faust declares topics at start-up and then refreshes the producer's metadata for all topics;
aiokafka, once it tracks any one topic, refreshes only the tracked ones. A record to a topic
known only from the all-topics answer, still lingering when a record to a newer topic arrives,
lost its leader and waited for the request timeout (20 minutes): the stalled benchmark round
of stop 23. The linger here holds the first record back long enough for that to happen every
time.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import faust
import pytest

from streams.admin import ensure_topics
from streams.connection import KafkaConnection
from streams.consumer import Transport
from streams.local_kafka import local_kafka
from streams.topics import PARTITIONS, Topic

ACK_WITHIN_S = 20.0  # the broker acknowledges in milliseconds; stranded, it would take 20 min
STOP_WITHIN_S = 10.0


@pytest.fixture(scope="module")
def connection() -> Iterator[KafkaConnection]:
    with local_kafka() as found:
        yield found


def names(prefix: str, count: int) -> list[str]:
    run = uuid.uuid4().hex[:8]
    return [f"{prefix}.{run}.{n}" for n in range(count)]


async def record_acked_after_another_topic_is_tracked(
    connection: KafkaConnection, early: list[str], late: str
) -> list[int]:
    """Faust's start-up order: declare ``early`` (an all-topics refresh), then records to each,
    lingering, then the first record to ``late``, a topic made after that refresh. Returns the
    offsets the early records got."""
    app = faust.App(
        f"producer-metadata-{uuid.uuid4().hex[:8]}",
        broker=f"kafka://{connection.bootstrap}",
        producer_linger=0.5,
    )
    app.transport = Transport(app.conf.broker_consumer, app)
    producer = app.producer
    await producer.start()
    try:
        for topic in early:
            await producer.create_topic(topic, PARTITIONS, 1)  # exists: only the refresh
        ensure_topics(connection, [Topic(late, "-")], partitions=PARTITIONS)
        last = PARTITIONS - 1
        waiting = [await producer.send(t, b"k", b"early", last, None, None) for t in early]
        await producer.send(late, b"k", b"late", 0, None, None)
        acked = await asyncio.wait_for(asyncio.gather(*waiting), ACK_WITHIN_S)
        return [metadata.offset for metadata in acked]
    finally:
        # Bounded: a producer still holding a stranded batch would wait for it on stopping.
        await asyncio.wait_for(producer.stop(), STOP_WITHIN_S)


def test_records_waiting_for_a_topic_are_acked_after_the_producer_tracks_another(
    connection: KafkaConnection,
) -> None:
    early = names("producer.early", 3)
    ensure_topics(connection, [Topic(name, "-") for name in early], partitions=PARTITIONS)
    offsets = asyncio.run(
        record_acked_after_another_topic_is_tracked(connection, early, names("late", 1)[0])
    )
    assert offsets == [0, 0, 0]  # each the first record of its partition

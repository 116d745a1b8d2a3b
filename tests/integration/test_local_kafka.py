"""A real Kafka broker: topics from ``article_runtime.streams.kafka.topics``, Avro values through
``article_runtime.streams.kafka.codec``.

The broker comes from ``article_runtime.streams.local.broker`` (jars from Maven Central, KRaft
single node), or from ``KAFKA_BOOTSTRAP_SERVERS``. One broker for the module; it is stopped even on
failure.
"""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, Message, Producer

from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.kafka.codec import AvroCodec, CodecError
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.topics import (
    ARTICLE_COMPENSATION,
    ARTICLE_INGESTED,
    PARTITIONS,
    PRODUCER_CONFIG,
    message_key,
)
from article_runtime.streams.local.broker import (
    BOOTSTRAP_ENV,
    BrokerStartError,
    _port_open,
    _wait_until_serving,
    local_kafka,
)
from article_runtime.streams.service.compensation import undecodable

pytestmark = pytest.mark.kafka

COUNT = 20
FEED_NONE = dict.fromkeys(("title", "subtitle", "author", "published_at", "url"))


@pytest.fixture(scope="module")
def bootstrap() -> Iterator[KafkaConnection]:
    started = not os.environ.get(BOOTSTRAP_ENV)
    with local_kafka() as connection:
        ensure_topics(connection)
        yield connection
    address = connection.bootstrap
    if started:  # the broker we started is gone, not just forgotten
        assert not _port_open(int(address.rsplit(":", 1)[1])), f"broker still on {address}"


def test_existing_cluster_is_used_as_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BOOTSTRAP_ENV, "kafka.example:9092")
    monkeypatch.setenv("KAFKA_SECURITY_PROTOCOL", "SSL")
    with local_kafka() as connection:
        assert connection.bootstrap == "kafka.example:9092"
        assert connection.security_protocol == "SSL"  # the cluster's settings come along


def test_a_broker_that_dies_reports_its_log(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "server.log").write_text("INFO starting\nERROR Invalid cluster.id\n")
    dead = subprocess.Popen(["false"])
    dead.wait()
    with pytest.raises(BrokerStartError, match="Invalid cluster"):
        _wait_until_serving(dead, KafkaConnection("127.0.0.1:9"), tmp_path, timeout_s=5)


def murmur2_partition(key: bytes, partitions: int) -> int:
    """Java's ``Utils.murmur2`` partitioner (and aiokafka's): where Faust will look for a key."""
    m, h = 0x5BD1E995, (0x9747B28C ^ len(key)) & 0xFFFFFFFF
    whole = len(key) - len(key) % 4
    for i in range(0, whole, 4):
        k = (int.from_bytes(key[i : i + 4], "little") * m) & 0xFFFFFFFF
        k = ((k ^ (k >> 24)) * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    rest = key[whole:]
    for shift, byte in reversed(list(enumerate(rest))):
        h ^= byte << (8 * shift)
    if rest:
        h = (h * m) & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * m) & 0xFFFFFFFF
    h ^= h >> 15
    return (h & 0x7FFFFFFF) % partitions


def test_murmur2_matches_the_java_client() -> None:
    # Utils.murmur2 of kafka-clients 4.4.0, printed with jshell (also in Kafka's UtilsTest).
    java = {b"21": -973932308, b"foobar": -790332482, b"abc": 479470107}
    for key, value in java.items():
        assert murmur2_partition(key, 0x7FFFFFFF) == (value & 0x7FFFFFFF) % 0x7FFFFFFF


def _article(run: str, n: int) -> dict[str, Any]:
    return {
        "article_id": f"{run}-{n:03d}",
        "url": f"https://example.org/news/{n}",
        "html": f"<html><p>Artigo {n}: café, ação</p></html>".encode(),
        "received_at": datetime(2026, 3, 14, tzinfo=UTC) + timedelta(seconds=n),
        "content_type": "text/html; charset=utf-8",
        "feed": None if n % 2 else {**FEED_NONE, "title": f"Artigo {n}", "author": "Redação"},
        "version": None if n % 3 else n // 3,  # ingestion's own version number, when it has one
    }


def _produce(
    bootstrap: KafkaConnection, topic: str, items: list[tuple[bytes, bytes]]
) -> list[tuple[bytes, int, int]]:
    """Produce in order; return (key, partition, offset) per delivered message, in order."""
    producer = Producer({**bootstrap.confluent(), **PRODUCER_CONFIG})
    delivered: list[tuple[bytes, int, int]] = []
    failures: list[str] = []

    def report(error: KafkaError | None, message: Message) -> None:
        if error is not None:
            failures.append(str(error))
        else:
            delivered.append(
                (message.key() or b"", message.partition() or 0, message.offset() or 0)
            )

    for key, value in items:
        producer.produce(topic, value=value, key=key, on_delivery=report)
    assert producer.flush(30) == 0, "messages still queued after 30 s"
    assert failures == []
    return delivered


def _consume(bootstrap: KafkaConnection, topic: str, run: str, want: int) -> list[Message]:
    """This run's messages (keys start with ``run``), bounded in time."""
    consumer = Consumer(
        {
            **bootstrap.confluent(),
            "group.id": f"test-{run}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    got: list[Message] = []
    deadline = time.monotonic() + 60
    try:
        while len(got) < want and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None:
                continue
            assert message.error() is None, message.error()
            if (message.key() or b"").startswith(run.encode()):
                got.append(message)
    finally:
        consumer.close()
    assert len(got) == want, f"consumed {len(got)} of {want} within 60 s"
    return got


def test_avro_articles_round_trip_through_the_broker(bootstrap: KafkaConnection) -> None:
    codec = AvroCodec()
    run = uuid.uuid4().hex[:8]
    articles = [_article(run, n) for n in range(COUNT)]
    items = [(message_key(a["article_id"]), codec.encode("ArticleIngested", a)) for a in articles]
    poison_key = message_key(f"{run}-poison")
    items.insert(7, (poison_key, b"<html>not avro at all</html>"))
    delivered = _produce(bootstrap, ARTICLE_INGESTED.name, items)
    assert sorted(key for key, _, _ in delivered) == sorted(key for key, _ in items)

    # Keys hash like the Java client's, and the 3 partitions are all used.
    placed = {key: partition for key, partition, _ in delivered}
    offsets = {key: offset for key, _, offset in delivered}
    assert all(p == murmur2_partition(k, PARTITIONS) for k, p in placed.items())
    assert set(placed.values()) == set(range(PARTITIONS))

    # A worker's loop: decode, or turn the value into a compensation event; never stop.
    decoded: dict[bytes, dict[str, Any]] = {}
    events: list[dict[str, Any]] = []
    by_partition: dict[int, list[bytes]] = defaultdict(list)
    for message in _consume(bootstrap, ARTICLE_INGESTED.name, run, COUNT + 1):
        key = message.key() or b""
        by_partition[message.partition() or 0].append(key)
        try:
            decoded[key] = codec.decode(message.value() or b"", "ArticleIngested")
        except CodecError as error:
            events.append(
                undecodable(
                    error,
                    key=key,
                    topic=message.topic() or "",
                    partition=message.partition() or 0,
                    offset=message.offset() or 0,
                )
            )

    assert decoded == {message_key(a["article_id"]): a for a in articles}
    for partition, keys in by_partition.items():
        sent = [key for key, _ in items if placed[key] == partition]
        assert keys == sent, f"partition {partition}: consumed out of production order"
        assert keys == sorted(keys, key=offsets.__getitem__)
    assert len(events) == 1
    assert events[0]["article_id"] == f"{run}-poison"
    assert events[0]["reason"] == "not_single_object_encoded"
    assert events[0]["origin"]["partition"] == placed[poison_key]

    # The event lands on the same partition number of the compensation topic: co-partitioned.
    back = _produce(
        bootstrap,
        ARTICLE_COMPENSATION.name,
        [(poison_key, codec.encode("CompensationEvent", events[0]))],
    )
    assert back[0][1] == placed[poison_key]
    (stored,) = _consume(bootstrap, ARTICLE_COMPENSATION.name, run, 1)
    assert codec.decode(stored.value() or b"", "CompensationEvent")["origin"] == events[0]["origin"]

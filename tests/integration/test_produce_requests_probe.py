"""``bench.produce_requests`` on the real broker: it counts every record aiokafka produced,
in fewer requests than records when many are unacknowledged at once, and one request per
record when each is awaited; and it leaves aiokafka as it was once done."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from aiokafka.producer.sender import Sender

from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.kafka.topics import PARTITIONS, Topic
from article_runtime.streams.local.broker import local_kafka
from bench.kafka_clients import aiokafka_produce
from bench.produce_requests import Counts, counting

pytestmark = pytest.mark.kafka  # starts a broker


def test_every_record_is_counted_and_records_share_requests_only_when_waiting_together() -> None:
    keys = [f"article-{n}".encode() for n in range(240)]
    original = Sender._send_produce_req
    with local_kafka() as connection:
        topic = f"bench.probe.{uuid.uuid4().hex[:8]}"
        ensure_topics(connection, [Topic(topic, "-")], partitions=PARTITIONS)
        together, one_by_one = Counts(), Counts()
        with counting(together):
            asyncio.run(aiokafka_produce(connection, topic, keys, b"v" * 300, 64))
        with counting(one_by_one):
            asyncio.run(aiokafka_produce(connection, topic, keys[:40], b"v" * 300, 1))
    assert Sender._send_produce_req is original
    assert together.records == len(keys)
    assert together.batches <= together.records
    assert 1 <= together.requests < len(keys)  # 64 unacknowledged: they share requests
    assert one_by_one.records == one_by_one.requests == one_by_one.batches == 40

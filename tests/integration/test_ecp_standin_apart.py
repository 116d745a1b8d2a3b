"""The ECP stand-in run apart from the worker (``python -m article_runtime.agents.ecp_standin``), as
the real classifier runs: one verdict per assembled article, on the article's partition, published
before its offsets are committed, so a restart judges nothing twice that was committed."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer

from article_runtime.agents.ecp_standin import CLASSIFIER_VERSION, serve
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.producer import ArticleProducer
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ECP_VERDICT,
    PARTITIONS,
    partition_of,
)
from article_runtime.streams.service.records import assembled_record
from article_runtime.streams.service.settings import StandInEntity
from tests.integration.stream_support import flow
from tests.support.stream_cases import make_articles

pytestmark = pytest.mark.kafka  # starts a broker

ENTITY = StandInEntity("Q42", "Someone")


def verdicts(connection: KafkaConnection, expected: int, timeout_s: float = 60) -> list[Any]:
    """Every message on ecp.verdict, once ``expected`` are there (or the time is up)."""
    group = {"group.id": f"read-{time.monotonic_ns()}", "auto.offset.reset": "earliest"}
    consumer = Consumer({**connection.confluent(), **group})
    consumer.subscribe([ECP_VERDICT.name])
    found: list[Any] = []
    deadline = time.monotonic() + timeout_s
    try:
        while len(found) < expected and time.monotonic() < deadline:
            found += [m for m in consumer.consume(100, timeout=0.5) if m.error() is None]
        found += [m for m in consumer.consume(100, timeout=2.0) if m.error() is None]
    finally:
        consumer.close()
    return found


def running(connection: KafkaConnection) -> tuple[threading.Thread, threading.Event]:
    stop = threading.Event()
    thread = threading.Thread(target=serve, args=(connection, ENTITY, stop), daemon=True)
    thread.start()
    return thread, stop


def test_one_verdict_per_article_on_its_partition_and_none_again_after_a_restart(
    tmp_path: Path,
) -> None:
    cases = make_articles(12, seed=5)
    codec = AvroCodec()
    with flow(tmp_path, None) as kafka:
        with ArticleProducer(kafka.connection, topic=ARTICLE_ASSEMBLED) as producer:
            producer.send_all([assembled_record(c.answers.article) for c in cases[:8]])
        thread, stop = running(kafka.connection)
        first = verdicts(kafka.connection, 8)
        stop.set()
        thread.join(timeout=30)
        with ArticleProducer(kafka.connection, topic=ARTICLE_ASSEMBLED) as producer:
            producer.send_all([assembled_record(c.answers.article) for c in cases[8:]])
        thread, stop = running(kafka.connection)
        every = verdicts(kafka.connection, 12)
        stop.set()
        thread.join(timeout=30)
    assert len(first) == 8
    assert len(every) == 12  # the restart judged only the four new articles
    for message in every:
        record = codec.decode(message.value(), ECP_VERDICT.schema)
        case = next(c for c in cases if c.article_id == record["article_id"])
        assert message.key() == case.article_id.encode()
        assert message.partition() == partition_of(case.article_id, PARTITIONS)
        assert record["article_hash"] == case.answers.article.hashes.markdown
        assert record["approved"] and record["entity"]["qid"] == ENTITY.qid
        assert record["classifier_version"] == CLASSIFIER_VERSION

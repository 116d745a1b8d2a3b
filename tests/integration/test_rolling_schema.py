"""A rolling upgrade to a release that adds a schema, on the real broker.

A pod of the old release meets a record the next release wrote (here: an ``ArticleIngested``
with one more optional field, so a new fingerprint). It must not end the article: it holds the
partition at that record, unacknowledged, and processes nothing after it there; the rest of its
partitions keep flowing. Stopped as a rolling update stops it (SIGTERM), its commit stays
before the record, and a pod of the next release takes the partition and processes the record
and the ones after it. A writer no release brings (a schema nobody deploys) is waited for only
``ARTICLE_RUNTIME_UNKNOWN_SCHEMA_WAIT_S``, then ends ``unknown_schema_fingerprint`` as before and
its partition flows on.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition

from article_runtime.streams.commands.publish_inputs import ingested_record, publish
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.topics import ARTICLE_INGESTED, PARTITIONS, partition_of
from article_runtime.streams.local.worker_process import total
from article_runtime.streams.service.settings import UNKNOWN_SCHEMA_WAIT_ENV
from tests.integration.stream_support import Flow, flow
from tests.support import next_release
from tests.support.stream_cases import make_articles

pytestmark = pytest.mark.kafka
APP_ID = "article-runtime-rolling"
WAIT_S = 15.0  # the next release's pod: how long it waits for a writer nobody deploys
ROGUE = {"name": "rogue", "type": "int", "default": 0, "doc": "no release writes this"}


def ids_on(partition: int, prefix: str, count: int) -> list[str]:
    found = (f"{prefix}-{n}" for n in range(10_000))
    return [i for i in found if partition_of(i, PARTITIONS) == partition][:count]


def offset_of(connection: KafkaConnection, partition: int, article_id: str) -> int:
    """Where ``article_id``'s record sits on ``article.ingested``'s ``partition``."""
    consumer = Consumer(connection.confluent() | {"group.id": "offset-of", "log_level": 3})
    consumer.assign([TopicPartition(ARTICLE_INGESTED.name, partition, 0)])
    try:
        while (message := consumer.poll(10)) is not None:
            if message.key() == article_id.encode():
                return int(message.offset() or 0)
    finally:
        consumer.close()
    raise AssertionError(f"{article_id} not on partition {partition}")


def committed(connection: KafkaConnection, partition: int) -> int:
    consumer = Consumer(connection.confluent() | {"group.id": APP_ID, "log_level": 3})
    try:
        (tp,) = consumer.committed([TopicPartition(ARTICLE_INGESTED.name, partition)], 10)
        return int(tp.offset)
    finally:
        consumer.close()


def raw(f: Flow, codec: AvroCodec, article_id: str, html: bytes, **extra: object) -> None:
    record = ingested_record(article_id, f"https://news.test/{article_id}", html) | extra
    f.publish_raw([(article_id, codec.encode(ARTICLE_INGESTED.schema, record))])


def test_a_newer_release_record_waits_for_a_pod_of_that_release(tmp_path: Path) -> None:
    newer = AvroCodec(next_release.schemas(tmp_path / "next"))
    rogue = AvroCodec(next_release.schemas(tmp_path / "rogue", field=ROGUE))
    pages = [case.html for case in make_articles(6, seed=37)]
    held_p, other_p = 1, 2
    first, b, c, d, e = ids_on(held_p, "roll", 5)
    (a,) = ids_on(other_p, "roll-other", 1)
    with flow(tmp_path, None) as f:
        old = f.worker("old", app_id=APP_ID)
        old.start(timeout_s=120)
        try:
            publish(f.connection, [ingested_record(first, "https://news.test/0", pages[0])])
            raw(f, newer, b, pages[1], crawl_note="written by the next release")
            publish(
                f.connection,
                [
                    ingested_record(c, "https://news.test/c", pages[2]),
                    ingested_record(a, "https://news.test/a", pages[3]),
                ],
            )
            assert all(o.settled for o in f.follow([first, a], timeout_s=120).values())
            time.sleep(5)  # b, and c behind it, are held: nothing of theirs appears
            waiting = f.follow([b, c], timeout_s=5)
            assert not any(o.settled or o.compensations for o in waiting.values()), waiting
            assert total(old.metrics(), "article_runtime_partitions_awaiting_schema") == 1
        finally:
            old.stop()  # SIGTERM, as a rolling update replaces a pod
        assert committed(f.connection, held_p) == offset_of(f.connection, held_p, b)

        settings = {
            next_release.NEXT_RELEASE_SCHEMAS_ENV: str(tmp_path / "next"),
            UNKNOWN_SCHEMA_WAIT_ENV: str(WAIT_S),
        }
        new = f.worker("new", app_id=APP_ID, settings=settings, module=next_release.__name__)
        with new:
            new.start(timeout_s=120)
            taken = f.follow([b, c], timeout_s=120)
            for article_id in (b, c):
                outcome = taken[article_id]
                assert outcome.settled and outcome.assembled, article_id
                assert outcome.hygiene_terminal is None, outcome.compensations

            # A writer no release brings: waited for, then ended as before; c's successors flow.
            published = datetime.now(UTC)
            raw(f, rogue, d, pages[4], rogue=7)
            publish(f.connection, [ingested_record(e, "https://news.test/e", pages[5])])
            ended = f.follow([d, e], timeout_s=120)
        terminal = ended[d].hygiene_terminal
        assert terminal is not None and terminal["reason"] == "unknown_schema_fingerprint"
        assert terminal["occurred_at"] >= published + timedelta(seconds=WAIT_S - 1)
        assert ended[e].settled and ended[e].assembled

"""The chart's store on the real broker: a worker on RocksDB keeps, for every partition of
every table, the offset of the last changelog record it wrote, which is where its recovery
starts after a restart (Faust's changelog callback; table changes go to the producer past
Faust's topic layer, ``article_runtime.streams.kafka.changelog``). And a restarted worker answers
for the articles settled before it."""

from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition
from rocksdict import AccessType, Rdict

from article_runtime.streams.kafka.topics import PARTITIONS
from article_runtime.streams.service.settings import DATA_DIR_ENV, STORE_ENV
from article_runtime.streams.worker.app import TABLES
from tests.integration.stream_support import Flow
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.stream_cases import make_articles, responder

pytestmark = pytest.mark.kafka
OFFSET_KEY = b"__faust\0offset__"  # where Faust's RocksDB store keeps a partition's offset
APP_ID = "article-runtime-rocks"


def test_a_rocksdb_worker_keeps_the_offset_of_every_changelog_record_it_wrote(
    kafka_flow: Flow, server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    cases = make_articles(30, seed=13)
    server.respond_with(responder(cases, PRIMARY, FALLBACK))
    ids = [c.article_id for c in cases]
    settings = {STORE_ENV: "rocksdb://", DATA_DIR_ENV: str(tmp_path / "data")}
    with kafka_flow.worker("rocks", app_id=APP_ID, settings=settings) as worker:
        worker.start()
        kafka_flow.publish_cases(cases)
        outcomes = kafka_flow.follow(ids, timeout_s=180)
    assert all(o.settled for o in outcomes.values())

    ends = changelog_ends(kafka_flow, [f"{APP_ID}-{table}-changelog" for table in TABLES])
    written = {(topic, p): end for (topic, p), end in ends.items() if end > 0}
    assert len(written) > len(TABLES)  # several partitions of several tables were written
    for (topic, partition), end in written.items():
        table = topic.removeprefix(f"{APP_ID}-").removesuffix("-changelog")
        held = persisted_offset(tmp_path / "data", table, partition)
        assert held == end - 1, (table, partition, held, end)

    # Restarted on the same store: it reads on from those offsets and knows every article.
    with kafka_flow.worker("again", app_id=APP_ID, settings=settings) as again:
        again.start(timeout_s=120)
        for article_id in (ids[0], ids[-1]):
            assert again.get(f"/articles/{article_id}/") is not None, article_id


def changelog_ends(flow: Flow, topics: list[str]) -> dict[tuple[str, int], int]:
    """Each changelog partition's end offset (one past its last record)."""
    consumer = Consumer(flow.connection.confluent() | {"group.id": "rocks-test-ends"})
    try:
        return {
            (topic, p): consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1]
            for topic in topics
            for p in range(PARTITIONS)
        }
    finally:
        consumer.close()


def persisted_offset(data: Path, table: str, partition: int) -> int | None:
    """The offset a stopped worker's RocksDB holds for one table partition."""
    found = list(data.rglob(f"{table}-{partition}.db"))
    assert len(found) == 1, (table, partition, found)
    db = Rdict(str(found[0]), access_type=AccessType.read_only())
    try:
        held = db.get(OFFSET_KEY)
    finally:
        db.close()
    return None if held is None else int(held)

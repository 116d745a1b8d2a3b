"""A record of a schema this release does not know waits for a worker that knows it, without a
broker: the codec's test, the waiting rules on a fake clock, and the consumer's delivery and
fetch around a held partition. On the real broker, with a pod of the next release taking the
partition: ``tests/integration/test_rolling_schema.py``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, cast

import pytest
from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import TP
from faust.types.tuples import ConsumerMessage
from hypothesis import given
from hypothesis import strategies as st

from article_runtime.streams.commands.publish_inputs import ingested_record
from article_runtime.streams.kafka.codec import MAGIC, AvroCodec
from article_runtime.streams.kafka.consumer import Consumer
from article_runtime.streams.kafka.topics import ARTICLE_INGESTED
from article_runtime.streams.kafka.unknown_writers import UnknownWriters
from article_runtime.streams.service.settings import UNKNOWN_SCHEMA_WAIT_ENV, WorkerSettings
from article_runtime.streams.worker.app import create_app
from tests.support import next_release

CODEC = AvroCodec()
RECORD = ingested_record("a-1", "https://news.test/a-1", b"<html><p>x</p></html>")
P0, P1 = TP("article.ingested", 0), TP("article.ingested", 1)
WAIT_S = 600.0


@pytest.fixture(scope="module")
def newer(tmp_path_factory: pytest.TempPathFactory) -> AvroCodec:
    return AvroCodec(next_release.schemas(tmp_path_factory.mktemp("next")))


def test_a_newer_releases_record_is_unknown_here_and_read_by_that_release(
    newer: AvroCodec,
) -> None:
    value = newer.encode(ARTICLE_INGESTED.schema, {**RECORD, "crawl_note": "n"})
    assert CODEC.unknown_writer(value) == value[2:10]
    assert newer.unknown_writer(value) is None
    assert newer.decode(value, ARTICLE_INGESTED.schema)["crawl_note"] == "n"
    # this release's records stay readable by the next one (its history keeps the schema)
    ours = CODEC.encode(ARTICLE_INGESTED.schema, RECORD)
    assert CODEC.unknown_writer(ours) is None and newer.unknown_writer(ours) is None
    assert newer.decode(ours, ARTICLE_INGESTED.schema)["crawl_note"] is None


@given(st.binary(max_size=40))
def test_only_a_single_object_header_with_an_unlisted_fingerprint_is_unknown(data: bytes) -> None:
    found = CODEC.unknown_writer(data)
    if len(data) < 10 or not data.startswith(b"\xc3\x01"):
        assert found is None  # not single-object encoded: the agents end it as before
    else:
        assert found == data[2:10]  # random fingerprints: none of ours (2^-64 per schema)


@given(st.sampled_from(CODEC.schema_names))
def test_every_current_writer_is_known(name: str) -> None:
    assert CODEC.unknown_writer(MAGIC + CODEC.fingerprint(name) + b"\x00") is None


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def writers(newer: AvroCodec) -> tuple[UnknownWriters, Clock, bytes, bytes]:
    clock = Clock()
    unknown = UnknownWriters(CODEC.unknown_writer, WAIT_S, clock)
    new = newer.encode(ARTICLE_INGESTED.schema, RECORD)
    return unknown, clock, new, CODEC.encode(ARTICLE_INGESTED.schema, RECORD)


def test_a_partition_waits_at_an_unknown_writer_and_only_that_partition(
    newer: AvroCodec,
) -> None:
    unknown, clock, new, ours = writers(newer)
    assert not unknown.holds(P0, 3, ours)
    assert unknown.holds(P0, 4, new)
    assert unknown.holds(P0, 5, ours)  # behind it on its partition: held too
    assert not unknown.holds(P0, 2, ours)  # before it (read again after a seek back)
    assert not unknown.holds(P1, 9, ours)  # another partition flows
    assert unknown.paused == {P0}
    clock.now += WAIT_S - 1
    assert unknown.due() == {}


def test_the_wait_counts_per_writer_from_the_first_record_met(newer: AvroCodec) -> None:
    unknown, clock, new, ours = writers(newer)
    assert unknown.holds(P0, 4, new)
    clock.now += WAIT_S / 2
    assert unknown.holds(P1, 7, new)  # the same writer, met later: its wait ends with P0's
    clock.now += WAIT_S / 2
    assert unknown.due() == {P0: 4, P1: 7}
    assert unknown.paused == {P0, P1}  # still held until sought back and released
    unknown.release(P0)
    assert unknown.paused == {P1}
    assert not unknown.holds(P0, 4, new)  # read again: it reaches the agents now
    assert not unknown.holds(P0, 5, ours)


def test_a_new_assignment_holds_a_record_again_for_what_is_left_of_its_wait(
    newer: AvroCodec,
) -> None:
    unknown, clock, new, _ = writers(newer)
    assert unknown.holds(P0, 4, new)
    clock.now += WAIT_S - 10
    unknown.reset()
    assert unknown.paused == frozenset() and unknown.held() == {}
    assert unknown.holds(P0, 4, new)
    clock.now += 10
    assert unknown.due() == {P0: 4}


def test_the_worker_consumer_holds_an_unknown_writer_and_stops_fetching_its_partition(
    newer: AvroCodec, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = WorkerSettings.from_env(
        {"KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:9", UNKNOWN_SCHEMA_WAIT_ENV: "42"}
    )
    w = create_app(settings, None)
    consumer = cast(Consumer, w.app.consumer)
    unknown = consumer.unknown_writers
    assert unknown is not None and unknown.wait_s == 42
    delivered: list[int] = []

    async def deliver(message: Any) -> None:
        delivered.append(message.offset)

    def message(tp: TP, offset: int, value: bytes) -> Any:
        return ConsumerMessage(
            tp.topic, tp.partition, offset, 0.0, 0, None, b"k", value, None, tp=tp
        )

    fetched_from: list[set[TP]] = []

    async def fetch(_self: Any, _consumer: Any, partitions: Any, *_: Any, **__: Any) -> Any:
        fetched_from.append(set(partitions))
        return {}

    monkeypatch.setattr(faust_aiokafka.AIOKafkaConsumerThread, "_fetch_records", fetch)
    # The flow's topics, as the agents' subscriptions mark them when the worker starts.
    monkeypatch.setattr(w.app.topics, "acks_enabled_for", lambda topic: topic == P0.topic)
    delivering = consumer._delivering(deliver)
    ours, new = (
        CODEC.encode(ARTICLE_INGESTED.schema, RECORD),
        newer.encode("ArticleIngested", RECORD),
    )

    async def main() -> None:
        for offset, value in ((0, ours), (1, new), (2, ours)):
            await delivering(message(P0, offset, value))
        await delivering(message(P1, 0, ours))
        thread = consumer._thread
        assert await thread._fetch_records(None, {P0, P1}, timeout=0.01) == {}
        assert await thread._fetch_records(None, {P0}, timeout=0.01) == {}

    try:
        asyncio.run(main())
    finally:
        consumer._thread.thread_loop.close()
    assert delivered == [0, 0]  # P0's offset 0, then P1's; P0 waits at offset 1
    assert fetched_from == [{P1}]  # P0 is not fetched; nothing is when only P0 is asked


def test_the_chart_and_the_settings_agree_on_the_default_wait() -> None:
    values = Path(__file__).resolve().parents[2] / "helm" / "article-runtime" / "values.yaml"
    text = values.read_text()
    assert f"unknownSchemaWaitSeconds: {int(WorkerSettings.unknown_schema_wait_s)}" in text

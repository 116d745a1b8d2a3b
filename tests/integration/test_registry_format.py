"""The schema registry's wire format on the real broker: a worker writing it, every topic's
records read back by a registry reader written apart from our codec (the schema fetched by its
ID over the registry's REST API, decoded with fastavro), and a worker refusing to start on a
schema the registry refuses.

The registry is the test server speaking Confluent's documented API
(``tests.support.registry_server``): no real registry can run on this machine (docs/registry.md).
"""

from __future__ import annotations

import io
import json
import urllib.request
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from fastavro import parse_schema, schemaless_reader

from article_runtime.streams.commands.publish_inputs import ingested_record
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.kafka.decoding import json_ready
from article_runtime.streams.kafka.preflight import EXIT_REFUSED
from article_runtime.streams.kafka.producer import ArticleProducer, PublishError
from article_runtime.streams.kafka.registry import REGISTRY_URL_ENV, VALUE_FORMAT_ENV
from article_runtime.streams.kafka.registry_codec import codec_from_env
from article_runtime.streams.kafka.topics import (
    ARTICLE_ENRICHED,
    ARTICLE_INGESTED,
    BY_NAME,
    ECP_VERDICT,
    TOPICS,
    message_key,
)
from article_runtime.streams.service.settings import UNKNOWN_SCHEMA_WAIT_ENV
from tests.integration.stream_support import Flow
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import ScriptedOpenAIServer
from tests.support.registry_server import running_registry
from tests.support.stream_cases import make_articles, responder

pytestmark = pytest.mark.kafka
UNKNOWN_ID = 987_654  # an ID the registry never gave
WAIT_S = 6


def every_value(flow: Flow, topic: str) -> list[bytes]:
    """Every value on ``topic`` from the start, read with a plain consumer."""
    consumer = Consumer({**flow.connection.confluent(), "group.id": f"raw-{topic}"})
    try:
        metadata = consumer.list_topics(topic, timeout=10).topics[topic]
        values: list[bytes] = []
        for partition in metadata.partitions:
            tp = TopicPartition(topic, partition)
            low, high = consumer.get_watermark_offsets(tp, timeout=10) or (0, 0)
            if high is None or low is None or high <= low:
                continue
            consumer.assign([TopicPartition(topic, partition, low)])
            while True:
                message = consumer.poll(5)
                assert message is not None, (topic, partition)
                if message.error() is None:
                    values.append(message.value() or b"")
                    if (message.offset() or 0) >= high - 1:
                        break
        return values
    finally:
        consumer.close()


class RegistryReader:
    """A consumer of another team: the header as documented, the schema by ID from the
    registry, the body with fastavro. Nothing of ``article_runtime.streams.kafka.codec``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.fetched: dict[int, Any] = {}

    def read(self, value: bytes) -> dict[str, Any]:
        assert value[0] == 0, value[:8]
        schema_id = int.from_bytes(value[1:5], "big")
        if schema_id not in self.fetched:
            with urllib.request.urlopen(f"{self.url}/schemas/ids/{schema_id}") as answer:
                text = json.loads(answer.read())["schema"]
            self.fetched[schema_id] = parse_schema(json.loads(text), named_schemas={})
        body = io.BytesIO(value[5:])
        record = schemaless_reader(body, self.fetched[schema_id], None)
        assert body.tell() == len(value) - 5, "bytes left after the record"
        assert isinstance(record, dict)
        return record


def test_every_topic_round_trips_in_the_registry_format(
    kafka_flow: Flow, server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = make_articles(4, seed=1)  # primary, fallback, deterministic, enrich_terminal
    server.respond_with(responder(cases, PRIMARY, FALLBACK))
    with running_registry() as registry:
        env = {REGISTRY_URL_ENV: registry.url, VALUE_FORMAT_ENV: "schema-registry"}
        for name, value in env.items():  # publish and follow here use the registry too
            monkeypatch.setenv(name, value)
        settings = {**env, UNKNOWN_SCHEMA_WAIT_ENV: str(WAIT_S)}
        with kafka_flow.worker(settings=settings) as worker:
            worker.start()
            # every subject registered at the worker's start, before any record
            assert set(registry.registry.subjects) == {f"{t.name}-value" for t in TOPICS}
            at_start = list(registry.calls)
            kafka_flow.publish_raw(
                [("poison-unknown-id", b"\x00" + UNKNOWN_ID.to_bytes(4, "big") + b"\x02")]
            )
            kafka_flow.publish_cases(cases)
            # A page and a verdict from librdkafka's default partitioner, single-object as
            # teams without a registry write: the forwarded copies are written in the
            # registry format, so the repartition topics are read back below too.
            misplaced = "crc-verdict-2"  # CRC32 and murmur2 disagree on this key (3 partitions)
            plain, producer = AvroCodec(), Producer(kafka_flow.connection.confluent())
            page = ingested_record(misplaced, "https://a.test/misplaced", cases[0].html)
            verdict = {
                "article_id": misplaced,
                "approved": False,
                "entity": None,
                "article_hash": None,
                "classifier_version": "test",
                "decided_at": 0,
            }
            for topic, schema, record in (
                (ARTICLE_INGESTED, "ArticleIngested", page),
                (ECP_VERDICT, "EcpVerdict", verdict),
            ):
                encoded = plain.encode(schema, record)
                producer.produce(topic.name, key=message_key(misplaced), value=encoded)
            assert producer.flush(30) == 0
            ids = [c.article_id for c in cases] + ["poison-unknown-id", misplaced]
            outcomes = kafka_flow.follow(ids, timeout_s=180, settle_grace_s=1.0)
            for article_id in [*(c.article_id for c in cases), misplaced]:
                assert outcomes[article_id].settled, article_id
            assert sum(len(outcomes[c.article_id].enriched) > 0 for c in cases) == 3
            # an ID the registry cannot serve held its partition first, then ended as before
            poison = outcomes["poison-unknown-id"].terminal
            assert [(c["stage"], c["reason"]) for c in poison] == [("decode", "unknown_schema_id")]
            log = worker.log_path.read_text("utf-8", errors="replace")
            assert "written with a schema this release does not know" in log
        # at its start the worker looked up, checked and registered; it fetched no schema
        assert {path.split("/")[1] for _, path in at_start} == {"subjects", "compatibility"}

        reader, ours = RegistryReader(registry.url), codec_from_env()
        seen: dict[str, list[dict[str, Any]]] = {}
        for topic in TOPICS:
            for raw in every_value(kafka_flow, topic.name):
                if raw.startswith(b"\x00" + UNKNOWN_ID.to_bytes(4, "big")):
                    continue  # the poison message above
                if raw[:2] == b"\xc3\x01" and topic in (ARTICLE_INGESTED, ECP_VERDICT):
                    # the default-partitioned producer's own records, single-object
                    seen.setdefault(topic.name, []).append(ours.decode(raw, topic.schema))
                    continue
                record = reader.read(raw)
                assert json_ready(record) == json_ready(ours.decode(raw, topic.schema))
                seen.setdefault(topic.name, []).append(record)
        assert set(seen) == set(BY_NAME), seen.keys()  # every topic, in the registry format
        published = {r["article_id"]: r["html"] for r in seen[ARTICLE_INGESTED.name]}
        assert published == {c.article_id: c.html for c in cases} | {misplaced: page["html"]}
        enriched = {r["article_id"] for r in seen[ARTICLE_ENRICHED.name]} - {misplaced}
        assert enriched == {c.article_id for c in cases if outcomes[c.article_id].enriched}


def test_a_worker_refuses_to_start_on_a_schema_the_registry_refuses(
    kafka_flow: Flow, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = {"type": "record", "name": "EcpVerdict", "fields": [{"name": "n", "type": "int"}]}
    with running_registry() as registry:
        registry.registry.register("ecp.verdict-value", json.dumps(theirs))
        env = {REGISTRY_URL_ENV: registry.url, VALUE_FORMAT_ENV: "schema-registry"}
        with kafka_flow.worker(settings=env) as worker:
            with pytest.raises(Exception, match="worker exited"):
                worker.start(timeout_s=60)
            assert worker.exited() == EXIT_REFUSED
            log = worker.log_path.read_text("utf-8", errors="replace")
            assert "refuses EcpVerdict under ecp.verdict-value" in log, log[-2000:]
            assert "Traceback" not in log


def test_a_producer_refused_by_the_registry_says_so_before_its_first_record(
    kafka_flow: Flow, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = {"type": "record", "name": "ArticleIngested", "fields": [{"name": "n", "type": "int"}]}
    with running_registry() as registry:
        registry.registry.register("article.ingested-value", json.dumps(theirs))
        monkeypatch.setenv(REGISTRY_URL_ENV, registry.url)
        monkeypatch.setenv(VALUE_FORMAT_ENV, "schema-registry")
        with pytest.raises(PublishError) as caught:
            ArticleProducer(kafka_flow.connection)
        assert caught.value.reason == "schema_refused"
        assert "article.ingested-value" in caught.value.detail
    with pytest.raises(PublishError) as caught:  # the registry is gone now
        ArticleProducer(kafka_flow.connection, timeout_s=5)
    assert caught.value.reason == "registry_unavailable"

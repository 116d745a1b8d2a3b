"""The contract as other teams meet it, on the real broker: ``article-runtime publish`` from a
folder and from stdin, ``consume`` with and without ``--dedup`` and a group, librdkafka's
partitioner against ours, and default-configured librdkafka producers under a running worker."""

from __future__ import annotations

import base64
import gzip
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from article_runtime.streams.commands.publish_inputs import ingested_record
from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.producer import ArticleProducer, PublishError
from article_runtime.streams.kafka.topics import (
    ARTICLE_INGESTED,
    ECP_VERDICT,
    PARTITIONS,
    PRODUCER_CONFIG,
    Topic,
    message_key,
    partition_of,
)
from article_runtime.streams.local.broker import BOOTSTRAP_ENV, local_kafka
from tests.conftest import REPO, SAMPLES
from tests.integration.stream_support import eventually, flow
from tests.integration.test_local_kafka import murmur2_partition

pytestmark = pytest.mark.kafka

PAGES = ("nhk.or.jp.k100.html", "lanacion.com.ar-jugada.html", "wcxb-0001.html.gz")


@pytest.fixture(scope="module")
def bootstrap() -> Iterator[str]:
    with local_kafka() as connection:
        ensure_topics(connection)
        yield connection.bootstrap


def cli(bootstrap: str, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    """The real command, in its own process, as a team runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "article_runtime.streams.commands", *args],
        input=stdin.decode("utf-8"),
        capture_output=True,
        text=True,
        env={**os.environ, BOOTSTRAP_ENV: bootstrap},
        cwd=REPO,
        timeout=180,
        check=False,
    )
    return done


def consumed(bootstrap: str, topic: str, run: str, *more: str) -> list[dict[str, Any]]:
    """This run's records (IDs start with ``run``) as ``consume`` printed them."""
    done = cli(bootstrap, "consume", topic, "--idle-timeout", "4", *more)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stdout.splitlines()]
    return [r for r in records if r["article_id"].startswith(run)]


def test_publish_a_folder_then_consume_it(bootstrap: str, tmp_path: Path) -> None:
    run = f"dir{uuid.uuid4().hex[:6]}"
    for name in PAGES:
        shutil.copy(SAMPLES / name, tmp_path / f"{run}-{name}")
    (tmp_path / f"{run}-empty.html").write_bytes(b"")
    (tmp_path / f"{run}-cut.html.gz").write_bytes(gzip.compress(b"<html><p>x</p>" * 99)[:30])
    done = cli(bootstrap, "publish", str(tmp_path))
    assert done.returncode == 1  # two inputs refused, the others published
    assert "published 3 to article.ingested (3 partitions); refused 2" in done.stdout
    assert "(1 corrupt_gzip, 1 empty_html)" in done.stdout
    refused = sorted(line.split(": ")[1:3] for line in done.stderr.splitlines())
    assert [reason for _, reason in refused] == ["corrupt_gzip", "empty_html"]

    records = consumed(bootstrap, "article.ingested", run, "--from-beginning")
    by_id = {r["article_id"]: r for r in records}
    assert len(records) == 3
    for name in PAGES:
        path = tmp_path / f"{run}-{name}"
        record = by_id[path.name.split(".html")[0]]
        assert base64.b64decode(record["html"]) == path.read_bytes()  # gzip sent as it is
        assert record["url"] == path.resolve().as_uri()


def test_publish_json_lines_from_stdin_and_consume_in_a_group(
    bootstrap: str, tmp_path: Path
) -> None:
    run = f"in{uuid.uuid4().hex[:6]}"
    page = tmp_path / "page.html.gz"
    page.write_bytes(gzip.compress((SAMPLES / PAGES[0]).read_bytes()))
    lines = [
        {"article_id": f"{run}-1", "url": "https://a.test/1", "html": "<p>Olá, mundo.</p>"},
        {
            "article_id": f"{run}-2",
            "url": "https://a.test/2",
            "html_path": str(page),
            "feed": {"title": "Título do feed", "published_at": "Sat, 14 Mar 2026 08:00:00 -0300"},
            "version": 3,
        },
        {"article_id": f"{run}-3", "url": "https://a.test/3", "htm": "typo"},
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\nnot json\n"
    done = cli(bootstrap, "publish", "-", stdin=text.encode("utf-8"))
    assert done.returncode == 1
    assert "published 2" in done.stdout and "refused 2" in done.stdout
    assert "stdin:3: unknown_field" in done.stderr and "stdin:4: invalid_json" in done.stderr

    group = f"team-{run}"
    first = consumed(bootstrap, "article.ingested", run, "--from-beginning", "--group", group)
    assert sorted(r["article_id"] for r in first) == [f"{run}-1", f"{run}-2"]
    second = next(r for r in first if r["article_id"] == f"{run}-2")
    assert second["version"] == 3 and second["feed"]["title"] == "Título do feed"
    assert base64.b64decode(second["html"]) == page.read_bytes()
    # The group committed what it printed: a second run starts after it.
    again = consumed(bootstrap, "article.ingested", run, "--from-beginning", "--group", group)
    assert again == []


def test_consume_drops_repeats_on_the_documented_keys(bootstrap: str) -> None:
    run = f"dup{uuid.uuid4().hex[:6]}"
    record = ingested_record(f"{run}-a", "https://a.test/", b"<p>Texto.</p>")
    newer = {**record, "version": 2}  # another version of the article: not a repeat
    with ArticleProducer(KafkaConnection(bootstrap)) as producer:
        results = producer.send_all([record, record, newer, record])
    assert [r.article_id for r in results] == [f"{run}-a"] * 4  # all Delivered
    everything = consumed(bootstrap, "article.ingested", run, "--from-beginning")
    once = consumed(bootstrap, "article.ingested", run, "--from-beginning", "--dedup")
    assert len(everything) == 4
    assert [r.get("version") for r in once] == [None, 2]


def test_publish_fails_clearly_without_a_cluster_or_a_topic(bootstrap: str) -> None:
    with pytest.raises(PublishError) as missing:
        ArticleProducer(KafkaConnection(bootstrap), topic=Topic("no.such.topic", "EcpVerdict"))
    assert missing.value.reason == "topic_missing"
    assert "no.such.topic" in missing.value.detail
    with pytest.raises(PublishError) as unreachable:
        ArticleProducer(KafkaConnection("127.0.0.1:9"), timeout_s=3)
    assert unreachable.value.reason == "unreachable"


@pytest.fixture(scope="module")
def seven(bootstrap: str) -> str:
    """A topic with 7 partitions: a count where CRC32 and murmur2 placements seldom agree."""
    name = f"murmur-check-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, num_partitions=7, replication_factor=1)])[name].result(30)
    return name


def placed(bootstrap: str, topic: str, keys: list[bytes], partitioner: str) -> list[int]:
    """Where librdkafka puts each key with ``partitioner``."""
    producer = Producer({"bootstrap.servers": bootstrap, "partitioner": partitioner})
    where: dict[int, int] = {}
    for index, key in enumerate(keys):

        def report(error: Any, message: Any, index: int = index) -> None:
            assert error is None, error
            where[index] = message.partition()

        producer.produce(topic, key=key, value=b"x", on_delivery=report)
    assert producer.flush(30) == 0
    producer.close()
    return [where[i] for i in range(len(keys))]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=40, unique=True))
def test_our_partition_is_librdkafkas_murmur2(bootstrap: str, seven: str, ids: list[str]) -> None:
    keys = [message_key(i.encode("utf-8", "replace").decode("utf-8")) for i in ids]
    ours = [partition_of(k.decode("utf-8"), 7) for k in keys]
    assert placed(bootstrap, seven, keys, PRODUCER_CONFIG["partitioner"]) == ours  # type: ignore[arg-type]
    assert ours == [murmur2_partition(k, 7) for k in keys]  # Java's Utils.murmur2, written out


def test_librdkafkas_default_partitioner_puts_keys_elsewhere(bootstrap: str, seven: str) -> None:
    keys = [f"article-{n}".encode() for n in range(50)]
    default = placed(bootstrap, seven, keys, "consistent_random")
    wrong = sum(d != partition_of(k.decode(), 7) for d, k in zip(default, keys, strict=True))
    assert wrong > 25  # why the contract names the partitioner


def test_default_configured_librdkafka_producers_are_forwarded_not_refused(
    tmp_path: Path,
) -> None:
    """confluent-kafka producers with no partitioner setting (CRC32) under a running worker:
    every article is processed wherever its page landed, none ends misrouted_key, an article's
    versions end with the newest (in the order they were produced), a verdict off its
    article's partition joins the article, and the ledger counts what it forwarded. A page
    keyed by something else than its article id still ends misrouted_key."""
    codec = AvroCodec()
    pages = [(SAMPLES / name).read_bytes() for name in PAGES[:2]]
    with flow(tmp_path, None) as kafka_flow:
        landed: dict[str, list[tuple[int, int]]] = {}

        def send(producer: Producer, topic: str, article_id: str, value: bytes) -> None:
            def report(error: Any, message: Any) -> None:
                assert error is None, error
                landed.setdefault(f"{topic}:{article_id}", []).append(
                    (message.partition(), message.offset())
                )

            key = message_key(article_id)
            producer.produce(topic, key=key, value=value, on_delivery=report)
            producer.flush(30)  # one at a time: the versions' order is the order sent

        # Nothing but the connection: librdkafka's defaults, its partitioner included.
        ingestion = Producer(kafka_flow.connection.confluent())
        ids = [f"crc-{n}" for n in range(12)]
        for article_id in ids:
            record = ingested_record(article_id, f"https://a.test/{article_id}", pages[0])
            send(
                ingestion,
                ARTICLE_INGESTED.name,
                article_id,
                codec.encode("ArticleIngested", record),
            )
        versioned = "crc-versions-2"  # CRC32 and murmur2 disagree on this key (3 partitions)
        urls = [f"https://a.test/{versioned}/v{n}" for n in range(3)]
        for n, url in enumerate(urls):
            record = ingested_record(versioned, url, pages[n % 2])
            send(
                ingestion, ARTICLE_INGESTED.name, versioned, codec.encode("ArticleIngested", record)
            )
        stray = "crc-stray"  # keyed by something else than its article id
        record = ingested_record(stray, "https://a.test/stray", pages[0])
        value = codec.encode("ArticleIngested", record)
        ingestion.produce(ARTICLE_INGESTED.name, key=b"not-" + message_key(stray), value=value)
        assert ingestion.flush(30) == 0
        # The classifier's producer, also librdkafka's defaults: a verdict for an article
        # whose page landed off its partition, the verdict too.
        classifier = Producer(kafka_flow.connection.confluent())
        joined = "crc-verdict-2"  # CRC32 and murmur2 disagree on this key (3 partitions)
        record = ingested_record(joined, "https://a.test/joined", pages[0])
        send(ingestion, ARTICLE_INGESTED.name, joined, codec.encode("ArticleIngested", record))
        verdict = {
            "article_id": joined,
            "approved": True,
            "entity": {"qid": "Q1", "name": "Someone", "identity": None},
            "article_hash": None,
            "classifier_version": "test",
            "decided_at": 0,
        }
        send(classifier, ECP_VERDICT.name, joined, codec.encode("EcpVerdict", verdict))
        assert classifier.flush(30) == 0

        def off(topic: str, article_id: str) -> list[tuple[int, int]]:
            return [
                where
                for where in landed[f"{topic}:{article_id}"]
                if where[0] != partition_of(article_id, PARTITIONS)
            ]

        everyone = [*ids, versioned, joined]
        forwarded = [a for a in everyone for _ in off(ARTICLE_INGESTED.name, a)]
        assert len(forwarded) >= 4 and len(set(forwarded)) < len(everyone)  # both kinds
        assert off(ARTICLE_INGESTED.name, versioned) and off(ECP_VERDICT.name, joined)

        with kafka_flow.worker() as worker:
            worker.start()
            outcomes = kafka_flow.follow([*everyone, stray], timeout_s=180)
            for article_id in everyone:
                outcome = outcomes[article_id]
                assert outcome.assembled, article_id
                reasons = [c["reason"] for c in outcome.compensations]
                assert "misrouted_key" not in reasons, (article_id, reasons)
            # The versions: each assembled one in the order produced, the newest last.
            offsets = [o for _p, o in landed[f"{ARTICLE_INGESTED.name}:{versioned}"]]

            def newest_last() -> None:
                built = kafka_flow.follow([versioned], timeout_s=10)[versioned].assembled
                seen = [a["version"]["ingested_offset"] for a in built]
                assert seen == sorted(seen) and seen[-1] == offsets[-1], (seen, offsets)
                # The newest's page (pages[0]) is what the article now says, not v1's.
                assert built[-1]["title"] == outcomes[ids[0]].assembled[-1]["title"]

            eventually(newest_last, timeout_s=60)
            # The verdict met its article: without providers, enrichment ends no_provider.
            met = outcomes[joined].enrichment_outcome("Q1")
            assert met is not None and met.get("reason") == "no_provider", met
            (refused,) = outcomes[stray].terminal
            assert (refused["stage"], refused["reason"]) == ("candidates", "misrouted_key")

            def counted() -> None:
                counters = (worker.get("/counters/") or {}).get("counters", {})
                assert counters.get("forwarded/article.ingested") == len(forwarded)
                assert counters.get("forwarded/ecp.verdict") == 1
                assert counters.get("ingested") == len(ids) + len(urls) + 2  # + joined, stray
                assert counters.get("compensation/candidates/terminal/misrouted_key") == 1

            eventually(counted)

            def lineage_of_a_forwarded_article() -> None:
                # Recorded where its copy was taken, on its article's partition, once.
                lineage = worker.get(f"/articles/{forwarded[0]}/")
                assert lineage is not None
                stages = [e["stage"] for e in lineage["events"]]
                assert stages.count("ingested") == len(off(ARTICLE_INGESTED.name, forwarded[0]))
                assert "assembled" in stages, stages

            eventually(lineage_of_a_forwarded_article)

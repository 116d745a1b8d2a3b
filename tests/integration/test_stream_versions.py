"""Versions and large pages on the real broker, with worker processes and the scripted provider.

- A page published again under its ID (v1 then v2, back to back) ends on v2, whichever
  version's model answer is slower; a newer version whose page is unusable ends the article
  even when the older version's answer comes later.
- A 4.9 MiB page goes all the way through: assembled and enriched, with tables that keep
  references (the join's changelog holds no article) and topics sized for it; the reader that
  follows those references reads records back by position and names one that is gone.
"""

from __future__ import annotations

import asyncio
import dataclasses
import html
import json
import threading
import time
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic

from article_runtime.agents.enrichment import JOIN_TABLE
from article_runtime.agents.versions import rank
from article_runtime.streams.commands.follow import ArticleOutcome
from article_runtime.streams.commands.publish_inputs import ingested_record, publish
from article_runtime.streams.kafka.admin import ensure_topics, message_sizes
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.reader import RecordUnavailable, TopicReader
from article_runtime.streams.kafka.topics import ARTICLE_ASSEMBLED, MAX_MESSAGE_BYTES, TOPICS
from article_runtime.streams.local.broker import local_kafka
from article_runtime.streams.worker.app import TABLES
from bench.retained import changelog_topic, table_bytes
from tests.integration.stream_support import ENTITY, Flow, eventually, flow
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import (
    Action,
    Delay,
    Hold,
    Responder,
    ScriptedOpenAIServer,
)
from tests.support.stream_cases import (
    CaseArticle,
    CaseResponder,
    expected,
    find_markers,
    make_articles,
    responder,
)

pytestmark = pytest.mark.kafka
APP_ID = "article-runtime-it"
SLOW_S = 2.0  # the slow version's answers, well within the stream tests' provider timeout
MIB = 1024 * 1024


def slowed(
    answer: CaseResponder, markers: set[str], after: Mapping[str, str] | None = None
) -> Responder:
    """``answer``, taking ``SLOW_S`` for requests about the pages marked ``markers`` (a page's
    marker is in its title and first paragraph, so only its own requests carry it).

    A slow page listed in ``after`` is held until the page it names has been answered, and
    then takes ``SLOW_S`` more: "the older version's answer is slower" holds on a loaded
    machine too, where the newer version may reach the model seconds late."""
    answered: defaultdict[str, threading.Event] = defaultdict(threading.Event)
    after = after or {}

    def respond(model: str, body: dict[str, Any]) -> Action | None:
        action = answer(model, body)
        about = find_markers(json.dumps(body.get("messages"), ensure_ascii=False))
        if action is None or not about & markers:
            for marker in about:
                answered[marker].set()
            return action
        slow: Action = Delay(SLOW_S, action)
        for marker in sorted(about & markers & after.keys()):
            slow = Hold(answered[after[marker]], slow)
        return slow

    return respond


@dataclasses.dataclass(frozen=True)
class Versions:
    """Two pages published as v1 and v2 of ``article_id``; ``slow`` names the slower one."""

    article_id: str
    v1: CaseArticle
    v2: CaseArticle
    slow: str

    def records(self) -> list[dict[str, object]]:
        return [ingested_record(self.article_id, p.url, p.html) for p in (self.v1, self.v2)]


def versions_in_order(records: Sequence[dict[str, Any]]) -> list[int]:
    ranks = [rank(r["version"]) for r in records]
    assert all(r[2] >= 0 for r in ranks), "every record names its version"
    assert ranks == sorted(ranks), "an older version's record came after a newer one's"
    return [r[2] for r in ranks]


def check_newest_won(pair: Versions, outcome: ArticleOutcome) -> None:
    newest = expected(pair.v2).markdown
    assert outcome.assembled, pair.article_id
    offsets = versions_in_order(outcome.assembled)
    assert outcome.assembled[-1]["markdown"] == newest, pair.article_id
    if pair.slow == "v1":  # v2 settled first: v1's late answer changes nothing
        assert {a["markdown"] for a in outcome.assembled} == {newest}
    enriched = [e for e in outcome.enriched if e["entity"]["qid"] == ENTITY[0]]
    assert enriched, pair.article_id
    versions_in_order(enriched)
    assert enriched[-1]["article_hash"] == outcome.assembled[-1]["hashes"]["markdown"]
    assert enriched[-1]["version"] == outcome.assembled[-1]["version"]
    assert len(set(offsets)) == 2 or pair.slow == "v1"  # both versions went through
    assert not [c for c in outcome.terminal if c["reason"] == "internal_error"]


def test_the_newest_version_wins_whichever_answer_is_slower(
    tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    pages = [p for p in make_articles(20, seed=41) if p.scenario == "primary"]  # one call each
    pairs = [
        Versions("versioned-slow-v1", pages[0], pages[1], slow="v1"),
        Versions("versioned-slow-v2", pages[2], pages[3], slow="v2"),
    ]
    gone = pages[4]  # v1 of "versioned-gone" is slow; its v2 is an empty page
    slow = {pairs[0].v1.marker, pairs[1].v2.marker, gone.marker}
    newer_first = {pairs[0].v1.marker: pairs[0].v2.marker}
    server.respond_with(slowed(responder(pages[:5], PRIMARY, FALLBACK), slow, newer_first))
    with flow(tmp_path, server.base_url) as f, f.worker() as worker:
        worker.start()
        records = [r for pair in pairs for r in pair.records()]
        records += [
            ingested_record("versioned-gone", gone.url, gone.html),
            ingested_record("versioned-gone", gone.url, b""),
        ]
        publish(f.connection, records)  # each article's versions back to back
        ids = [pair.article_id for pair in pairs] + ["versioned-gone"]
        # Settled once one version settled; keep reading past the slow answers so that any
        # late output of the older version would be seen.
        outcomes = f.follow(ids, timeout_s=180, settle_grace_s=3 * SLOW_S + 4)
        for pair in pairs:
            check_newest_won(pair, outcomes[pair.article_id])

        ended = outcomes["versioned-gone"]
        (terminal,) = {(c["stage"], c["reason"]): c for c in ended.terminal}.values()
        assert (terminal["stage"], terminal["reason"]) == ("candidates", "empty_html")
        assert ended.assembled == []  # v1's answer came after v2 ended the article
        assert ended.enriched == []

        def lineage_names_versions() -> None:
            lineage = worker.get(f"/articles/{pairs[1].article_id}/")
            assert lineage is not None
            assembled = [e for e in lineage["events"] if e["stage"] == "assembled"]
            assert assembled and all(e["version"].startswith("@") for e in assembled)
            last = outcomes[pairs[1].article_id].assembled[-1]
            assert assembled[-1]["version"] == f"@{last['version']['ingested_offset']}"

        eventually(lineage_names_versions, timeout_s=90)  # the ledger trails, more under load
    assert not server.responder_errors


def enlarged(case: CaseArticle, size: int) -> CaseArticle:
    """``case`` grown to ``size`` bytes of HTML with distinct paragraphs of prose (repeated
    paragraphs would be folded away as boilerplate)."""
    page = case.html.decode("utf-8")
    grown, total, n = [], len(case.html), 0
    while total < size - 400:
        text = (
            f"Na audiência número {n}, moradores do bairro {n % 97} relataram que a obra "
            f"{n * 7 % 1000} atrasou {n % 13} semanas, e os técnicos prometeram revisar o "
            f"cronograma {n % 5} vezes até o fim do ano, segundo a ata {n}."
        )
        paragraph = f"      <p>{html.escape(text)}</p>\n"
        grown.append(paragraph)
        total += len(paragraph.encode("utf-8"))
        n += 1
    bigger = page.replace("    </article>", "".join(grown) + "    </article>")
    return dataclasses.replace(case, html=bigger.encode("utf-8"))


def test_a_large_page_is_assembled_and_enriched(
    tmp_path: Path, server: ScriptedOpenAIServer
) -> None:
    (base,) = make_articles(1, seed=43)
    big = enlarged(base, int(4.9 * MIB))
    assert 4.8 * MIB < len(big.html) <= 4.9 * MIB
    want = expected(big)  # builds the scripted answers (a few seconds for this page)
    server.respond_with(responder([big], PRIMARY, FALLBACK))
    with local_kafka() as connection:
        admin = AdminClient(connection.confluent())
        # A topic made earlier with the broker's default size is raised, not left to refuse
        # the article (4.7 MiB assembled).
        small = NewTopic(ARTICLE_ASSEMBLED.name, num_partitions=3, replication_factor=1)
        admin.create_topics([small])[ARTICLE_ASSEMBLED.name].result(timeout=30)
        ensure_topics(connection)

        def sized() -> None:  # the controller applies a config change a moment later
            sizes = message_sizes(admin, [t.name for t in TOPICS], timeout_s=30)
            assert set(sizes.values()) == {MAX_MESSAGE_BYTES}, sizes

        eventually(sized, timeout_s=30)

        f = Flow(connection, tmp_path, server.base_url)
        with f.worker() as worker:
            worker.start()
            f.publish_cases([big])
            (outcome,) = f.follow([big.article_id], timeout_s=300).values()

            changelogs = [changelog_topic(APP_ID, t) for t in TABLES]
            assert set(message_sizes(admin, changelogs, timeout_s=30).values()) == {
                MAX_MESSAGE_BYTES
            }
            keys, held = table_bytes(connection, changelog_topic(APP_ID, JOIN_TABLE))
            largest = largest_value(connection, changelog_topic(APP_ID, JOIN_TABLE))
    assert outcome.settled
    assert not outcome.terminal, [(c["reason"], c["detail"]) for c in outcome.terminal]
    (article,) = {a["hashes"]["markdown"]: a for a in outcome.assembled}.values()
    assert (article["path"], article["markdown"]) == (want.hygiene_path, want.markdown)
    assert len(article["markdown"].encode("utf-8")) > 4 * MIB
    (enriched,) = {e["content_hash"]: e for e in outcome.enriched}.values()
    assert enriched["article_hash"] == article["hashes"]["markdown"]
    assert (enriched["sentiment"], tuple(t["tag"] for t in enriched["tags"])) == (
        want.sentiment,
        want.tags,
    )
    # The join kept a reference and the result, not the 4.7 MiB article.
    assert keys == 1 and held < 64 * 1024, (keys, held)
    assert largest < 64 * 1024
    assert not server.responder_errors


def largest_value(connection: KafkaConnection, topic: str) -> int:
    """The largest value ever written to ``topic`` (tables rewrite a key on every change)."""
    consumer = Consumer(
        {
            **connection.confluent(),
            "group.id": f"largest-{time.monotonic_ns()}",
            "auto.offset.reset": "earliest",
        }
    )
    consumer.subscribe([topic])
    largest, last = 0, time.monotonic()
    try:
        while time.monotonic() - last < 3.0:
            message = consumer.poll(0.2)
            if message is None or message.error() is not None:
                continue
            largest, last = max(largest, len(message.value() or b"")), time.monotonic()
    finally:
        consumer.close()
    return largest


def test_the_reader_reads_records_back_by_position_and_names_a_deleted_one() -> None:
    with local_kafka() as connection:
        ensure_topics(connection)
        producer = Producer(connection.confluent())
        for n in range(4):
            producer.produce(ARTICLE_ASSEMBLED.name, value=f"record {n}".encode(), partition=1)
        assert producer.flush(30) == 0
        admin = AdminClient(connection.confluent())

        async def reads() -> list[bytes]:
            reader = TopicReader(connection, ARTICLE_ASSEMBLED.name, timeout_s=20)
            try:
                got = [await reader.read(1, offset) for offset in (2, 0, 3, 2)]
                deleted = admin.delete_records([TopicPartition(ARTICLE_ASSEMBLED.name, 1, 2)])
                for future in deleted.values():
                    future.result(timeout=30)
                with pytest.raises(RecordUnavailable) as gone:
                    await reader.read(1, 1)
                assert gone.value.reason == "record_expired"
                assert await reader.read(1, 3) == b"record 3"  # the reader goes on
                return got
            finally:
                await reader.close()

        assert asyncio.run(reads()) == [b"record 2", b"record 0", b"record 3", b"record 2"]

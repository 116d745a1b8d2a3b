"""The stream processor end to end: real broker, worker processes, scripted provider server.

Every article must end in exactly one outcome: assembled (and enriched, the stand-in approving
everything) or a compensation event; duplicates from redelivery must carry the same hashes.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from article_runtime.hygiene import HYGIENE
from article_runtime.streams.commands.follow import ArticleOutcome
from article_runtime.streams.commands.publish_inputs import ingested_record
from article_runtime.streams.kafka.topics import PARTITIONS, partition_of
from article_runtime.streams.service.settings import RETENTION_ENV
from tests.commonmark import paragraph_texts
from tests.integration.stream_support import ENTITY, Flow, distinct, encoded, eventually
from tests.llm_support import FALLBACK, FALLBACK_KEY, PRIMARY, PRIMARY_KEY
from tests.support.openai_server import ScriptedOpenAIServer, delayed
from tests.support.stream_cases import (
    CaseArticle,
    Expected,
    expected,
    make_articles,
    responder,
)

pytestmark = pytest.mark.kafka
POISON = {
    "poison-undecodable": "not_single_object_encoded",
    "poison-wrong-schema": "incompatible_schema",
    "poison-empty-html": "empty_html",
    "poison-oversized-html": "html_too_large",
}


def scripted(server: ScriptedOpenAIServer, cases: list[CaseArticle]) -> None:
    server.respond_with(responder(cases, PRIMARY, FALLBACK))


def check_case(case: CaseArticle, outcome: ArticleOutcome) -> None:
    """One case against what its scenario must produce, duplicates included."""
    want = expected(case)
    assert outcome.settled, case.article_id
    assert outcome.hygiene_terminal is None, outcome.hygiene_terminal
    assert distinct(outcome.assembled, "hashes", "markdown") == {
        outcome.assembled[0]["hashes"]["markdown"]
    }
    article = outcome.assembled[0]
    assert article["path"] == want.hygiene_path, case.article_id
    assert article["markdown"] == want.markdown
    assert paragraph_texts(article["markdown"]) == list(want.paragraphs)  # read from the page
    assert [(a["role"], a["reason"]) for a in article["attempts"]] == list(want.hygiene_attempts)
    if want.enrichment_ok:
        assert len(distinct(outcome.enriched, "content_hash")) == 1, case.article_id
        enriched = outcome.enriched[0]
        assert enriched["entity"]["qid"] == ENTITY[0]
        assert enriched["article_hash"] == article["hashes"]["markdown"]
        assert enriched["sentiment"] == want.sentiment
        assert tuple(t["tag"] for t in enriched["tags"]) == want.tags
        assert not [c for c in outcome.terminal if c["stage"] == "enrichment"]
    else:
        assert outcome.enriched == []
        terminal = [c for c in outcome.terminal if c["stage"] == "enrichment"]
        assert {c["reason"] for c in terminal} == {"primary_and_fallback_failed"}
        roles = [(a["role"], a["reason"]) for a in terminal[0]["attempts"]]
        assert roles == list(want.enrichment_attempts)


def poison_messages() -> list[tuple[str, bytes]]:
    verdict: dict[str, Any] = {
        "article_id": "poison-wrong-schema",
        "approved": True,
        "entity": None,
        "article_hash": None,
        "classifier_version": "x",
        "decided_at": 0,
    }
    return [
        ("poison-undecodable", b"\x00 not avro at all"),
        ("poison-wrong-schema", encoded("EcpVerdict", verdict)),
        (
            "poison-empty-html",
            encoded(
                "ArticleIngested", ingested_record("poison-empty-html", "https://x.test/", b"")
            ),
        ),
        (
            "poison-oversized-html",
            encoded(
                "ArticleIngested",
                ingested_record(
                    "poison-oversized-html",
                    "https://x.test/big",
                    b"<html><body><p>" + b"a" * (6 * 1024 * 1024) + b"</p></body></html>",
                ),
            ),
        ),
    ]


def test_every_path_and_every_poison_message_ends_in_one_outcome(
    kafka_flow: Flow, server: ScriptedOpenAIServer
) -> None:
    cases = make_articles(16, seed=1)
    scripted(server, cases)
    assert {c.scenario for c in cases} == {
        "primary",
        "fallback",
        "deterministic",
        "enrich_terminal",
    }
    with kafka_flow.worker() as worker:
        worker.start()
        kafka_flow.publish_raw(poison_messages()[:2])
        kafka_flow.publish_cases(cases)
        kafka_flow.publish_raw(poison_messages()[2:])
        ids = [c.article_id for c in cases] + list(POISON)
        outcomes = kafka_flow.follow(ids, timeout_s=120, settle_grace_s=1.0)
        for case in cases:
            check_case(case, outcomes[case.article_id])
        # No crash, no rebalance: every model was asked exactly what each scenario needs.
        assert len(server.calls) == sum(model_calls(expected(c)) for c in cases)
        for article_id, reason in POISON.items():
            terminal = outcomes[article_id].terminal
            assert [c["reason"] for c in terminal] == [reason], article_id
            assert outcomes[article_id].assembled == []
            assert terminal[0]["origin"]["topic"] == "article.ingested"

        def views_agree() -> None:
            counters = worker.get("/counters/")
            assert counters is not None
            totals = counters["counters"]
            paths = [expected(c).hygiene_path for c in cases]
            for path in ("primary", "fallback", "deterministic"):
                assert totals.get(f"assembled/{path}", 0) == paths.count(path)
            assert totals.get("ingested") == len(cases) + 2  # two poison values still decode
            assert totals.get("undecodable") == 2  # the ledger saw the two it could not read

            reasons = worker.get("/compensations/")
            assert reasons is not None
            listed = {(r["stage"], r["kind"], r["reason"]) for r in reasons["reasons"]}
            assert ("decode", "terminal", "not_single_object_encoded") in listed
            assert ("candidates", "terminal", "html_too_large") in listed
            assert ("assembly", "fallback", "unknown_block_id") in listed

            fallback_case = next(c for c in cases if c.scenario == "fallback")
            lineage = worker.get(f"/articles/{fallback_case.article_id}/")
            assert lineage is not None and lineage["path"] == "fallback"
            events: Any = lineage["events"]
            # The primary's invalid answer is one fallback decision; the fallback's answer is
            # the assembled article's, which names its prompt; each attempt is listed once.
            fell = [e for e in events if e["stage"] == "compensation_fallback"]
            assert [(e["from_stage"], e["next_attempt"]) for e in fell] == [
                ("assembly", "runtime_fallback")
            ]
            (assembled,) = [e for e in events if e["stage"] == "assembled"]
            assert assembled["prompt"]["name"] == "article_content_hygiene"
            hygiene = [a for e in events for a in e.get("attempts", ()) if a["call"] == HYGIENE]
            assert [a["model"] for a in hygiene] == [PRIMARY, FALLBACK]

        eventually(views_agree)
        assert worker.get("/articles/never-seen/") is None  # 404
    assert not server.responder_errors

    # The keys went to the provider (each in its Authorization header) and nowhere else:
    # not into any topic or table changelog, not into the worker's log.
    assert {c.authorization for c in server.calls} == {
        f"Bearer {PRIMARY_KEY}",
        f"Bearer {FALLBACK_KEY}",
    }
    stored = kafka_flow.every_message()
    assert any(cases[0].marker.encode() in m for m in stored)  # the scan does see content
    log = worker.log_path.read_bytes()
    for key in (PRIMARY_KEY, FALLBACK_KEY):
        assert not [m for m in stored if key.encode() in m]
        assert key.encode() not in log


def test_sigkill_mid_stream_then_restart_loses_nothing_and_changes_no_hash(
    kafka_flow: Flow, server: ScriptedOpenAIServer
) -> None:
    cases = make_articles(40, seed=2)
    # A quarter second per call: the kill lands mid-stream.
    server.respond_with(delayed(responder(cases, PRIMARY, FALLBACK), 0.25))
    ids = [c.article_id for c in cases]
    first = kafka_flow.worker("w1")
    first.start()
    kafka_flow.publish_cases(cases)
    deadline = time.monotonic() + 60
    settled_before = kafka_flow.follow(ids, timeout_s=0.5)
    while time.monotonic() < deadline:
        settled_before = kafka_flow.follow(ids, timeout_s=0.5)
        if sum(o.settled for o in settled_before.values()) >= 3:
            break
    first.kill()
    done = sum(o.settled for o in settled_before.values())
    assert 0 < done < len(cases), f"kill did not land mid-stream ({done} settled)"

    with kafka_flow.worker("w2") as second:
        second.start()
        outcomes = kafka_flow.follow(ids, timeout_s=120, settle_grace_s=3.0)
    for case in cases:
        check_case(case, outcomes[case.article_id])
    # The kill really hit work in flight: some inputs were delivered twice and asked again.
    once = sum(model_calls(expected(c)) for c in cases)
    assert len(server.calls) > once


def model_calls(want: Expected) -> int:
    """Provider calls one case needs when every input is delivered once."""
    hygiene = [role for role, _ in want.hygiene_attempts if role != "deterministic"]
    return len(hygiene) + len(want.enrichment_attempts)


def test_two_workers_split_the_partitions_and_the_flow_stays_complete(
    kafka_flow: Flow, server: ScriptedOpenAIServer
) -> None:
    cases = make_articles(24, seed=3)
    scripted(server, cases)
    ids = [c.article_id for c in cases]
    # One worker on each event loop: the default (uvloop) and the one an operator can ask for.
    stdlib = {"ARTICLE_RUNTIME_EVENT_LOOP": "asyncio"}
    with kafka_flow.worker("a") as a, kafka_flow.worker("b", settings=stdlib) as b:
        a.start(need_partitions=False)
        b.start(need_partitions=False)
        deadline = time.monotonic() + 60
        owned: dict[str, list[int]] = {}
        loops: dict[str, str] = {}
        while time.monotonic() < deadline:
            owned = {}
            for name, w in (("a", a), ("b", b)):
                health = w.get("/health/")
                owned[name] = list(health["partitions"]) if health else []
                loops[name] = health["event_loop"] if health else "?"
            if owned["a"] and owned["b"] and sorted(owned["a"] + owned["b"]) == [0, 1, 2]:
                break
            time.sleep(0.5)
        assert owned["a"] and owned["b"], owned
        assert sorted(owned["a"] + owned["b"]) == [0, 1, 2], owned
        assert loops == {"a": "uvloop", "b": "asyncio"}, loops

        kafka_flow.publish_cases(cases)
        outcomes = kafka_flow.follow(ids, timeout_s=120, settle_grace_s=1.0)
        for case in cases:
            check_case(case, outcomes[case.article_id])

        def views_agree() -> None:
            ingested = 0
            for w in (a, b):
                counters = w.get("/counters/")
                assert counters is not None
                totals: Any = counters["counters"]
                assert totals.get("ingested", 0) > 0  # both did part of the work
                ingested += totals.get("ingested", 0)
            assert ingested == len(cases)
            for case in cases:  # either worker answers for any article (proxied to its owner)
                lineage: Any = a.get(f"/articles/{case.article_id}/")
                assert lineage is not None, case.article_id
                for w in (a, b):
                    ladder: Any = w.get(f"/table/hygiene_ladder/{case.article_id}/")
                    assert ladder is not None and ladder["value"], case.article_id
                final = "enriched" if expected(case).enrichment_ok else "compensation_terminal"
                assert final in {e["stage"] for e in lineage["events"]}, case.article_id

        eventually(views_agree)


def test_per_article_state_expires_after_the_retention_period(
    kafka_flow: Flow, server: ScriptedOpenAIServer
) -> None:
    old = make_articles(4, seed=4)
    later = make_articles(40, seed=5)

    # A later article on the same partition as the first old one: sweeps go partition by partition.
    def where(case: CaseArticle) -> int:
        return partition_of(case.article_id, PARTITIONS)  # the flow's topics have the default

    newer = next(c for c in later if where(c) == where(old[0]))
    scripted(server, [*old, newer])
    worker = kafka_flow.worker(settings={RETENTION_ENV: str(2 / 3600)})  # two seconds
    with worker:
        worker.start()
        first = old[0].article_id
        # Before the worker has written a table: an unknown key, not a server error (Faust's
        # own /table/ view failed on a changelog its producer had not written yet).
        for name in ("hygiene_ladder", "enrichment_join", "article_status"):
            assert worker.answer(f"/table/{name}/{first}/") == (
                404,
                {
                    "table": name,
                    "article_id": first,
                    "partition": where(old[0]),
                    "error": "unknown",
                },
            )
        missing = worker.answer(f"/table/no_such_table/{first}/")
        assert missing is not None and missing[0] == 404, missing
        kafka_flow.publish_cases(old)
        kafka_flow.follow([c.article_id for c in old], timeout_s=60)

        def kept() -> None:
            assert worker.get(f"/articles/{first}/") is not None
            for name in ("hygiene_ladder", "enrichment_join"):
                assert worker.get(f"/table/{name}/{first}/") is not None, name

        eventually(kept)

        time.sleep(3)
        kafka_flow.publish_cases([newer])
        (outcome,) = kafka_flow.follow([newer.article_id], timeout_s=60).values()
        check_case(newer, outcome)

        def forgotten() -> None:
            assert worker.get(f"/articles/{first}/") is None  # 404
            for name in ("hygiene_ladder", "enrichment_join"):
                assert worker.get(f"/table/{name}/{first}/") is None, name
            assert worker.get(f"/articles/{newer.article_id}/") is not None

        eventually(forgotten)

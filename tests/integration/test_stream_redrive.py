"""Redrive after an outage, on the real broker with a worker process and the scripted provider.

The enrichment provider is down: every article is assembled and then ends terminal for its
entity. The provider comes back; ``article-runtime redrive --stage enrichment`` (first
``--dry-run``) republishes them as new attempts; every article is then enriched exactly once
per entity, with the content hash a first run gives, and a second redrive finds nothing left.
``/compensations/`` names the articles that ended terminal, per reason.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from article_runtime.enrichment.call import ENRICHMENT
from article_runtime.streams.commands import main
from article_runtime.streams.commands.follow import ArticleOutcome
from tests.integration.stream_support import ENTITY, Flow, distinct
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import (
    Action,
    Reply,
    Responder,
    ScriptedOpenAIServer,
    Status,
)
from tests.support.stream_cases import call_kind, expected, make_articles, responder

pytestmark = pytest.mark.kafka


def outage(answer: Responder, down: threading.Event) -> Responder:
    """``answer``, except that enrichment calls get 503 while ``down`` is set."""

    def respond(model: str, body: dict[str, Any]) -> Action | None:
        if down.is_set() and call_kind(body) == ENRICHMENT:
            return Status(503)
        return answer(model, body)

    return respond


def redrive(
    args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> list[dict[str, Any]]:
    capsys.readouterr()
    assert main(["redrive", *args]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def until(
    kafka_flow: Flow, ids: list[str], done: Any, timeout_s: float = 120.0
) -> dict[str, ArticleOutcome]:
    """Outcomes once ``done(outcome)`` holds for every article (late duplicates included)."""
    deadline = time.monotonic() + timeout_s
    while True:
        outcomes = kafka_flow.follow(ids, timeout_s=10, settle_grace_s=1.0)
        if all(done(outcomes[i]) for i in ids) or time.monotonic() > deadline:
            return outcomes


def test_terminal_enrichments_of_an_outage_are_redriven_once_per_entity(
    kafka_flow: Flow,
    server: ScriptedOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cases = [c for c in make_articles(12, seed=21) if expected(c).enrichment_ok]
    ids = sorted(c.article_id for c in cases)
    down = threading.Event()
    down.set()
    server.respond_with(outage(responder(cases, PRIMARY, FALLBACK), down))
    for name, value in kafka_flow.connection.environ().items():
        monkeypatch.setenv(name, value)
    qid = ENTITY[0]

    with kafka_flow.worker() as worker:
        worker.start()
        kafka_flow.publish_cases(cases)
        before = kafka_flow.follow(ids, timeout_s=120, settle_grace_s=1.0)
        for article_id in ids:
            outcome = before[article_id]
            assert outcome.settled and outcome.enriched == [], article_id
            assert (outcome.enrichment_outcome(qid) or {}).get("kind") == "terminal", article_id
        reasons = {before[i].terminal[0]["reason"] for i in ids}
        (reason,) = reasons

        listed = worker.get("/compensations/")
        assert listed is not None
        (row,) = [r for r in listed["reasons"] if r["stage"] == "enrichment"]
        assert row["reason"] == reason and row["count"] == len(ids)
        assert sorted(r["article_id"] for r in row["recent"]) == ids

        # The provider is back. A dry run lists every article and publishes nothing.
        down.clear()
        planned = redrive(["--stage", "enrichment", "--dry-run"], monkeypatch, capsys)
        assert sorted(p["article_id"] for p in planned) == ids
        assert {(p["action"], p["entity"], p["reason"]) for p in planned} == {
            ("would_redrive", qid, reason)
        }
        assert redrive(["--stage", "hygiene"], monkeypatch, capsys) == []  # none ended there
        one = redrive(["--stage", "enrichment", "--article", ids[0]], monkeypatch, capsys)
        assert [(p["article_id"], p["action"]) for p in one] == [(ids[0], "redriven")]
        rest = redrive(["--stage", "enrichment", "--reason", reason], monkeypatch, capsys)
        assert sorted(p["article_id"] for p in rest) == ids[1:]  # ids[0] is redriven already
        assert redrive(["--stage", "enrichment"], monkeypatch, capsys) == []

        after = until(kafka_flow, ids, lambda o: bool(o.enriched))
        for case in cases:
            outcome = after[case.article_id]
            assert outcome.enriched, case.article_id
            assert {r["entity"]["qid"] for r in outcome.enriched} == {qid}
            assert len(distinct(outcome.enriched, "content_hash")) == 1, case.article_id
            record = outcome.enriched[0]
            assert record["article_hash"] == outcome.assembled[0]["hashes"]["markdown"]
            assert record["sentiment"] == expected(case).sentiment
            assert tuple(t["tag"] for t in record["tags"]) == expected(case).tags
            assert record["version"] == outcome.assembled[0]["version"]
        # one enrichment call per article since the outage (no second enrichment)
        calls = [c for c in server.calls if call_kind(c.body or {}) == ENRICHMENT]
        ok = [c for c in calls if isinstance(c.action, Reply)]
        assert len(ok) == len(ids)
    assert not server.responder_errors

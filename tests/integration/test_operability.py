"""What an operator reads from a running worker, on the real broker: ``/metrics`` counts what
the flow did, the JSON log follows each article, and readiness tells the truth through a
broker outage (stopped under the worker, started again on the same ports and data)."""

from __future__ import annotations

import json
import os
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from article_runtime.streams.commands.follow import ArticleOutcome
from article_runtime.streams.kafka.topics import PARTITIONS, READ
from article_runtime.streams.local.worker_process import Samples, WorkerProcess, total
from article_runtime.streams.service.health import UNREACHABLE_AFTER_S
from article_runtime.streams.service.logs import LOG_FORMAT_ENV, LOG_LEVEL_ENV
from tests.integration.fault_scenarios import APP_ID, Watcher, _fault_flow, lag_by_partition
from tests.integration.stream_support import Flow, eventually
from tests.llm_support import FALLBACK, FALLBACK_KEY, PRIMARY, PRIMARY_KEY
from tests.support.openai_server import ScriptedOpenAIServer, delayed
from tests.support.stream_cases import make_articles, responder

pytestmark = pytest.mark.kafka
JSON_LOGS = {LOG_FORMAT_ENV: "json", LOG_LEVEL_ENV: "debug"}


def test_a_native_crash_leaves_every_threads_python_stack_in_the_log(kafka_flow: Flow) -> None:
    """C code that aborts (glibc on a corrupted heap) or faults takes the worker down without
    a Python traceback; the log must still say where each thread was, and whoever follows
    the outputs (the bench, a test) must hear of it instead of waiting out its timeout."""
    with kafka_flow.worker() as worker:
        worker.start()
        assert worker.process is not None
        os.kill(worker.process.pid, signal.SIGABRT)
        worker.process.wait(timeout=30)
        log = worker.log_path.read_text(encoding="utf-8", errors="replace")
        cases = make_articles(3)
        kafka_flow.publish_cases(cases)
        checks: list[bool] = []

        def alive() -> bool:
            checks.append(worker.exited() is None)
            return checks[-1]

        outcomes = kafka_flow.follow([c.article_id for c in cases], timeout_s=600, alive=alive)
    dump = log[log.find("Fatal Python error") :]
    assert dump.startswith("Fatal Python error: Aborted"), log[-2000:]
    # Every thread's stack, not only the one the signal landed on: faulthandler's all-threads
    # form names each thread ("Current thread 0x..." / "Thread 0x...") where its one-thread
    # form prints a bare "Stack". How many threads it lists is CPython's to get right: it
    # walks the thread list without a lock, and one CI run's dump listed one of the two.
    assert "Thread 0x" in dump or "Current thread 0x" in dump, dump
    assert "Stack (most recent call first)" not in dump, dump
    assert "File " in dump, dump  # at least one Python frame, with its file and line
    assert worker.exited() == -signal.SIGABRT
    assert not any(o.settled for o in outcomes.values())
    # A dead worker's outputs are not waited for: following stopped at the first check that
    # found it dead, instead of waiting out its 600 s.
    assert checks and checks[-1] is False and checks.count(False) == 1


def scrape(worker: WorkerProcess) -> Samples:
    return worker.metrics()


def by(samples: Samples, name: str, *keys: str) -> Counter[tuple[str, ...]]:
    found: Counter[tuple[str, ...]] = Counter()
    for (n, labels), value in samples.items():
        if n == name and value:
            found[tuple(dict(labels)[k] for k in keys)] += int(value)
    return found


def test_metrics_equal_what_the_flow_did_and_the_json_log_follows_each_article(
    kafka_flow: Flow, server: ScriptedOpenAIServer
) -> None:
    cases = make_articles(12, seed=7)  # every scenario: primary, fallback, deterministic, ...
    server.respond_with(responder(cases, PRIMARY, FALLBACK))
    ids = [c.article_id for c in cases]
    with kafka_flow.worker(settings=JSON_LOGS) as worker:
        worker.start()
        kafka_flow.publish_cases(cases)
        outcomes = kafka_flow.follow(ids, timeout_s=120, settle_grace_s=1.0)
        assert all(o.settled for o in outcomes.values())
        on_topics = _what_the_topics_hold(outcomes)

        def counters_agree() -> None:
            got = scrape(worker)
            ingested = "article_runtime_messages_in_total"
            assert total(got, ingested, agent="hygiene", topic="article.ingested") == len(ids)
            out = "article_runtime_messages_out_total"
            for topic in ("article.assembled", "article.enriched", "article.compensation"):
                assert total(got, out, topic=topic) == on_topics[topic], topic
            # Counted by the agent that produced them (the stages produce past Faust's sensors).
            made = on_topics["article.assembled"], on_topics["article.enriched"]
            assert total(got, out, agent="assembly", topic="article.assembled") == made[0]
            assert total(got, out, agent="hygiene", topic="article.assembled") == 0
            # Every proposal the hygiene agent made, the assembly agent took.
            proposed = total(got, out, agent="hygiene", topic="article.proposal")
            taken = total(got, ingested, agent="assembly", topic="article.proposal")
            assert proposed == taken >= len(ids)
            assert total(got, out, agent="enrichment", topic="article.enriched") == made[1]
            compensations = by(
                got, "article_runtime_compensation_events_total", "stage", "kind", "reason"
            )
            assert compensations == on_topics["compensations"]
            settled = by(got, "article_runtime_articles_settled_total", "phase", "path")
            assert settled == on_topics["settled"]
            calls = by(got, "article_runtime_model_calls_total", "model")
            assert calls == Counter((c.model,) for c in server.calls)
            assert total(got, "article_runtime_model_tokens_total") > 0
            assert total(got, "article_runtime_model_cost_usd_total") > 0
            assert total(got, "article_runtime_in_flight") == 0
            # Every page is one hygiene message, and so is every fallback event that asks for
            # the fallback model; other compensation events (no redrive here) are acked
            # without taking the stage's time.
            assert (
                total(got, "article_runtime_stage_seconds_count", stage="hygiene")
                == total(got, ingested, agent="hygiene", topic="article.ingested")
                + on_topics["asks_fallback_model"]
            )
            lags = {k: v for (n, k), v in got.items() if n == "article_runtime_consumer_lag"}
            flow_partitions = PARTITIONS * len(READ)  # the flow's output no stage reads
            assert len(lags) >= flow_partitions and set(lags.values()) == {0}
            assert lag_by_partition(kafka_flow.connection, "article-runtime-it") == {}
            assert total(got, "article_runtime_table_keys", table="hygiene_ladder") == len(ids)
            assert total(got, "article_runtime_ready") == 1
            assert total(got, "faust_messages_received_total") > 0  # Faust's own sensor

        eventually(counters_agree, timeout_s=30)
        samples = scrape(worker)
    lines = [json.loads(line) for line in worker.log_path.read_text().splitlines()]
    _check_log(lines, samples, on_topics, set(ids))
    text = worker.log_path.read_text()
    assert "openai" in text  # the provider client's own debug lines are in the log, masked
    for secret in (PRIMARY_KEY, FALLBACK_KEY, "Bearer sk-"):
        assert secret not in text


def _what_the_topics_hold(outcomes: dict[str, ArticleOutcome]) -> dict[str, Any]:
    everything = list(outcomes.values())
    compensations = [c for o in everything for c in o.compensations]
    settled: Counter[tuple[str, ...]] = Counter()
    for o in everything:
        settled.update(("hygiene", a["path"]) for a in o.assembled)
        settled.update(("enrichment", e["path"]) for e in o.enriched)
        settled.update(
            ("enrichment" if c["stage"] == "enrichment" else "hygiene", "terminal")
            for c in o.terminal
        )
    fallbacks_in_call = sum(
        1
        for record in [*(e for o in everything for e in o.enriched), *compensations]
        if record.get("stage", "enrichment") == "enrichment"
        and [a["role"] for a in record["attempts"]][:1] == ["runtime_primary"]
        and "runtime_fallback" in [a["role"] for a in record["attempts"]]
    )
    return {
        "article.assembled": sum(len(o.assembled) for o in everything),
        "article.enriched": sum(len(o.enriched) for o in everything),
        "article.compensation": len(compensations),
        "compensations": Counter((c["stage"], c["kind"], c["reason"]) for c in compensations),
        "asks_fallback_model": sum(c["next_attempt"] == "runtime_fallback" for c in compensations),
        "settled": settled,
        "fallbacks": sum(c["kind"] == "fallback" for c in compensations) + fallbacks_in_call,
        "terminal": sum(c["kind"] == "terminal" for c in compensations),
    }


def _check_log(
    lines: list[dict[str, Any]], samples: Samples, on_topics: dict[str, Any], ids: set[str]
) -> None:
    """Every line is JSON; one line per invalid answer, fallback and terminal failure, each
    naming its article and reason; the startup line lists the settings."""
    (startup,) = [line for line in lines if line.get("event") == "startup"]
    assert startup["settings"]["kafka"]["bootstrap.servers"]
    assert startup["settings"]["log"] == {"format": "json", "level": "debug"}
    calls = startup["settings"]["providers"]["article_content_hygiene"]
    assert calls["runtime_primary"]["api_key_env"] == "TEST_PRIMARY_KEY"
    events = Counter(line.get("event") for line in lines)
    invalid = total(samples, "article_runtime_model_calls_total", outcome="invalid")
    assert invalid > 0 and events["invalid_answer"] == invalid
    assert events["fallback"] == on_topics["fallbacks"] > 0
    assert events["terminal"] == on_topics["terminal"] > 0
    for line in lines:
        if line.get("event") in ("invalid_answer", "fallback", "terminal"):
            assert line["article_id"] in ids and line["reason"] and line["stage"], line
        if line.get("event") == "invalid_answer":
            assert line["rung"] and line["model"] in (PRIMARY, FALLBACK), line
            assert line["prompt_version"], line
    about_articles = [line for line in lines if line.get("article_id") in ids]
    assert len(about_articles) > len(ids)  # Faust's and the clients' lines too, not only ours


def test_readiness_fails_while_the_broker_is_down_and_nothing_published_before_is_lost(
    tmp_path: Path,
) -> None:
    cases = make_articles(30, seed=8)
    ids = [c.article_id for c in cases]
    with _fault_flow(tmp_path) as (broker, provider_url, server):
        # A second per answer: most articles are still in flight when the broker stops.
        server.respond_with(delayed(responder(cases, PRIMARY, FALLBACK), 1.0))
        f = Flow(broker.connection, tmp_path, provider_url)
        worker = f.worker("w1", app_id=APP_ID, settings=JSON_LOGS)
        try:
            worker.start(timeout_s=120)
            assert worker.answer("/health/ready/") == (
                200,
                {"ready": True, "reasons": [], "app": APP_ID},
            )
            with Watcher(broker.connection, ids) as watcher:
                f.publish_cases(cases)
                while watcher.settled < 2:
                    watcher.check()
                    time.sleep(0.2)
                broker.kill()
                stopped = time.monotonic()
                unready = _wait_for(worker, 503, UNREACHABLE_AFTER_S + 15)
                took = time.monotonic() - stopped
                assert unready is not None, f"still ready {took:.0f} s after the broker stopped"
                reasons = unready["reasons"]
                assert any(r.startswith("broker_unreachable") for r in reasons), reasons
                health = worker.get("/health/")
                assert health is not None and health["status"] != "ok"
                assert worker.answer("/health/live/") == (200, {"status": "alive"})
                assert watcher.settled < len(ids), "the outage landed after everything settled"
                broker.start()
                back = _wait_for(worker, 200, 120)
                assert back is not None and back["ready"], "readiness did not come back"
                deadline = time.monotonic() + 180
                while watcher.settled < len(ids) and time.monotonic() < deadline:
                    watcher.check()
                    time.sleep(0.5)
                assert watcher.settled == len(ids), f"{len(ids) - watcher.settled} lost"
                assert worker.process is not None and worker.process.poll() is None
        finally:
            worker.kill()
            broker.kill()


def _wait_for(worker: WorkerProcess, status: int, within_s: float) -> dict[str, Any] | None:
    """The readiness body once it answers ``status``, or None when it did not in time."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        answer = worker.answer("/health/ready/")
        if answer is not None and answer[0] == status:
            return answer[1]
        time.sleep(0.5)
    return None

"""A backlog waits on the broker: an agent's queue holds a few messages per model call in
flight, whatever was published, and every article still settles (partitions paused and
resumed again and again lose nothing). Many calls in flight do not lift the bound: the
hygiene stage holds at most its pages' budget of bytes in flight."""

from __future__ import annotations

import dataclasses

import pytest

from article_runtime.streams.local.worker_process import WorkerProcess, total
from article_runtime.streams.service.settings import CALLS_IN_FLIGHT_ENV, PAGES_IN_FLIGHT_ENV
from article_runtime.streams.service.wiring import queue_size
from tests.integration.stream_support import Flow, repeatedly
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import ScriptedOpenAIServer, delayed
from tests.support.stream_cases import make_articles, responder

pytestmark = pytest.mark.kafka
CALLS = 2
# The agents whose queues a message can wait in: hygiene, enrichment and the ECP stand-in.
AGENTS = 3
HELD = "article_runtime_messages_held"


def test_a_backlog_waits_on_the_broker_and_every_article_still_settles(
    kafka_flow: Flow, server: ScriptedOpenAIServer
) -> None:
    cases = make_articles(150, seed=11)
    ids = [c.article_id for c in cases]
    # Slow answers and two calls at a time: the articles pile up far faster than they settle.
    server.respond_with(delayed(responder(cases, PRIMARY, FALLBACK), 0.1))
    with kafka_flow.worker(settings={CALLS_IN_FLIGHT_ENV: str(CALLS)}) as worker:
        worker.start()
        peak: dict[str, float] = {}

        def sample() -> None:
            for name, count in held_before_an_agent(worker).items():
                peak[name] = max(peak.get(name, 0.0), count)

        with repeatedly(sample, every_s=0.1):
            kafka_flow.publish_cases(cases)
            outcomes = kafka_flow.follow(ids, timeout_s=300, alive=lambda: worker.exited() is None)
    assert all(o.settled for o in outcomes.values()), "a backlog lost articles"
    bound = AGENTS * queue_size(CALLS)
    # The worker did hold more than its queues may (fetched, not yet handed to an agent), so
    # the bound was put to the test: Faust's own queues take up to 4096 messages each.
    assert peak["waiting"] > bound, peak
    assert 0 < peak["delivered"] <= bound, peak


def test_pages_in_flight_stay_within_their_byte_budget_whatever_the_calls_in_flight(
    kafka_flow: Flow, server: ScriptedOpenAIServer
) -> None:
    """32 calls in flight, pages of 200 KiB and a budget of 1 MiB: the hygiene stage holds
    at most 1 MiB of input at once (5 such pages), and every article settles."""
    padding = b"<!-- " + b"x" * (200 * 1024) + b" -->"  # what scripts and styles weigh
    cases = [dataclasses.replace(c, html=c.html + padding) for c in make_articles(60, seed=5)]
    ids = [c.article_id for c in cases]
    server.respond_with(delayed(responder(cases, PRIMARY, FALLBACK), 0.3))
    settings = {CALLS_IN_FLIGHT_ENV: "32", PAGES_IN_FLIGHT_ENV: "1"}
    with kafka_flow.worker(settings=settings) as worker:
        worker.start()
        peak = {"bytes": 0.0, "messages": 0.0}

        def sample() -> None:
            metrics = worker.metrics()
            weight = total(metrics, "article_runtime_bytes_in_flight", stage="hygiene")
            messages = total(metrics, "article_runtime_in_flight", stage="hygiene")
            peak["bytes"] = max(peak["bytes"], weight)
            peak["messages"] = max(peak["messages"], messages)

        with repeatedly(sample, every_s=0.05):
            kafka_flow.publish_cases(cases)
            outcomes = kafka_flow.follow(ids, timeout_s=300, alive=lambda: worker.exited() is None)
    assert all(o.settled for o in outcomes.values()), "a budgeted window lost articles"
    assert 200 * 1024 < peak["bytes"] <= 1024 * 1024, peak
    # The window also holds the fallback events that ask the fallback model (a few KB each:
    # the compressed candidate set), so it may hold more messages than pages; never more
    # than its calls.
    assert 2 <= peak["messages"] <= 32, peak


def held_before_an_agent(worker: WorkerProcess) -> dict[str, float]:
    """``article_runtime_messages_held`` of the stages before an agent takes a message, and
    their sum (in the worker, no agent has taken it yet)."""
    metrics = worker.metrics()
    held = {s: total(metrics, HELD, stage=s) for s in ("fetched", "read", "delivered")}
    return held | {"waiting": sum(held.values())}

"""A backlog waits on the broker: an agent's queue holds a few messages per model call in
flight, whatever was published, and every article still settles (partitions paused and
resumed again and again lose nothing)."""

from __future__ import annotations

import threading
import time

import pytest

from streams.settings import CALLS_IN_FLIGHT_ENV
from streams.wiring import AHEAD_PER_CALL
from streams.worker_process import WorkerProcess, total
from tests.integration.stream_support import Flow
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
        with HeldSampler(worker) as held:
            kafka_flow.publish_cases(cases)
            outcomes = kafka_flow.follow(ids, timeout_s=300, alive=lambda: worker.exited() is None)
    assert all(o.settled for o in outcomes.values()), "a backlog lost articles"
    bound = AGENTS * AHEAD_PER_CALL * CALLS
    # The worker did hold more than its queues may (fetched, not yet handed to an agent), so
    # the bound was put to the test: Faust's own queues take up to 4096 messages each.
    assert held.peak["waiting"] > bound, held.peak
    assert 0 < held.peak["delivered"] <= bound, held.peak


class HeldSampler:
    """Peaks of ``article_runtime_messages_held`` before an agent takes a message, sampled
    in a thread."""

    def __init__(self, worker: WorkerProcess) -> None:
        self.worker = worker
        self.peak: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            metrics = self.worker.metrics()
            held = {s: total(metrics, HELD, stage=s) for s in ("fetched", "read", "delivered")}
            held["waiting"] = sum(held.values())  # in the worker, no agent has taken it yet
            for name, count in held.items():
                self.peak[name] = max(self.peak.get(name, 0.0), count)
            time.sleep(0.1)

    def __enter__(self) -> HeldSampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

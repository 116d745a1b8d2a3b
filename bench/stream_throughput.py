"""Throughput of the whole stream flow: one worker, an instant scripted provider, real broker.

Run: ``.venv/bin/python -m bench.stream_throughput [--articles N] [--calls-in-flight K]
[--latency S]``.
Publishes N synthetic articles (the integration tests' cases: every hygiene path and the
enrichment failure, in pt and en) at once and times them from the first publish until each
one's final outcome is on its topic. The provider answers instantly, so this measures our
runtime and Kafka, not a model; ``--latency`` makes every answer take S seconds, to see what
calls in flight buy. Prints articles/s and the settle-time percentiles.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from streams.follow import ArticleOutcome
from streams.settings import CALLS_IN_FLIGHT_ENV
from tests.integration.stream_support import flow
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import delayed, running_server
from tests.support.stream_cases import make_articles, responder


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.stream_throughput")
    parser.add_argument("--articles", type=int, default=200)
    parser.add_argument("--calls-in-flight", type=int, default=8)
    parser.add_argument(
        "--latency", type=float, default=0.0, help="seconds the provider takes per answer"
    )
    args = parser.parse_args(argv)
    cases = make_articles(args.articles, seed=7)
    for case in cases:
        _ = case.answers  # build the scripted answers before the clock starts
    settled_at: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as work, running_server() as server:
        answer = responder(cases, PRIMARY, FALLBACK)
        server.respond_with(delayed(answer, args.latency) if args.latency else answer)
        with flow(Path(work), server.base_url) as f:
            worker = f.worker(settings={CALLS_IN_FLIGHT_ENV: str(args.calls_in_flight)})
            with worker:
                worker.start()
                started = time.monotonic()
                f.publish_cases(cases)

                def settled(outcome: ArticleOutcome) -> None:
                    settled_at[outcome.article_id] = time.monotonic() - started

                outcomes = f.follow(
                    [c.article_id for c in cases], timeout_s=600, on_settled=settled
                )
                assert worker.process is not None
                worker_cpu_s = cpu_seconds(worker.process.pid)
    done = sum(o.settled for o in outcomes.values())
    total = max(settled_at.values())
    times = sorted(settled_at.values())
    calls = len(server.calls)
    print(f"articles                 {done}/{len(cases)} settled")
    print(f"provider calls           {calls}")
    print(f"calls in flight          {args.calls_in_flight} per calling agent")
    print(f"provider latency         {args.latency:.2f} s per answer")
    print(f"wall time                {total:.2f} s")
    print(f"throughput               {done / total:.1f} articles/s")
    print(f"worker CPU per article   {1000 * worker_cpu_s / len(cases):.0f} ms (start-up included)")
    print(f"machine cores            {os.cpu_count()} (broker, worker, provider server, follower)")
    p50, p95 = statistics.median(times), times[int(0.95 * (len(times) - 1))]
    print(f"settle time p50 / p95    {p50:.2f} s / {p95:.2f} s")
    return 0 if done == len(cases) else 1


if __name__ == "__main__":
    raise SystemExit(main())

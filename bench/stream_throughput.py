"""Throughput and retained memory of the whole stream flow: one worker, real broker.

Run: ``.venv/bin/python -m bench.stream_throughput [--articles N] [--warmup W]
[--calls-in-flight K] [--latency S] [--retention-h H]``.
Publishes W synthetic articles (the integration tests' cases: every hygiene path and the
enrichment failure, in pt and en) to warm the worker up, then N more at once, and times those
from the first publish until each one's final outcome is on its topic. The provider answers
instantly, so this measures our runtime and Kafka, not a model; ``--latency`` makes every answer
take S seconds, to see what calls in flight buy.

It also prints what the worker retains per article (state is kept for the retention period,
72 h by default): the growth of its resident memory over the N articles, and of its tables'
contents (read back from their changelog topics), with the RSS that a million retained
articles would need at that rate. ``--retention-h`` shortens the retention: with a few seconds
the tables stay nearly empty, and the RSS growth left is the worker's own, not retained state.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.retained import changelog_topic, rss_bytes, table_bytes
from streams.app import TABLES
from streams.follow import ArticleOutcome
from streams.settings import CALLS_IN_FLIGHT_ENV, RETENTION_ENV
from streams.worker_process import WorkerProcess
from tests.integration.stream_support import Flow, flow
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import delayed, running_server
from tests.support.stream_cases import make_articles, responder

APP_ID = "article-runtime-bench"
KIB, MIB = 1024, 1024 * 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Snapshot:
    """The worker at one moment: resident memory, CPU so far, bytes held by each table."""

    rss: int
    cpu_s: float
    tables: dict[str, int]


def snapshot(f: Flow, worker: WorkerProcess, *, quiet_s: float = 2.0) -> Snapshot:
    """Once the tables stop changing (the ledger trails the outputs by a moment)."""
    assert worker.process is not None
    pid = worker.process.pid
    sizes: dict[str, int] = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        now = {t: table_bytes(f.connection, changelog_topic(APP_ID, t))[1] for t in TABLES}
        if now == sizes:
            break
        sizes = now
        time.sleep(quiet_s)
    return Snapshot(rss_bytes(pid), cpu_seconds(pid), sizes)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.stream_throughput")
    parser.add_argument("--articles", type=int, default=300)
    parser.add_argument(
        "--warmup",
        type=int,
        default=200,
        help="articles published first, not measured (fills the libraries' bounded caches)",
    )
    parser.add_argument("--calls-in-flight", type=int, default=8)
    parser.add_argument(
        "--latency", type=float, default=0.0, help="seconds the provider takes per answer"
    )
    parser.add_argument(
        "--retention-h", type=float, default=None, help="state retention (worker default: 72)"
    )
    args = parser.parse_args(argv)
    cases = make_articles(args.warmup + args.articles, seed=7)
    warm, measured = cases[: args.warmup], cases[args.warmup :]
    for case in cases:
        _ = case.answers  # build the scripted answers before the clock starts
    settled_at: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as work, running_server() as server:
        answer = responder(cases, PRIMARY, FALLBACK)
        server.respond_with(delayed(answer, args.latency) if args.latency else answer)
        with flow(Path(work), server.base_url) as f:
            settings = {CALLS_IN_FLIGHT_ENV: str(args.calls_in_flight)}
            if args.retention_h is not None:
                settings[RETENTION_ENV] = str(args.retention_h)
            with f.worker(app_id=APP_ID, settings=settings) as worker:
                worker.start()
                assert worker.process is not None
                idle_rss = rss_bytes(worker.process.pid)
                f.publish_cases(warm)
                f.follow([c.article_id for c in warm], timeout_s=600)
                before = snapshot(f, worker)
                started = time.monotonic()
                f.publish_cases(measured)

                def settled(outcome: ArticleOutcome) -> None:
                    settled_at[outcome.article_id] = time.monotonic() - started

                outcomes = f.follow(
                    [c.article_id for c in measured], timeout_s=600, on_settled=settled
                )
                after = snapshot(f, worker)
    done = sum(o.settled for o in outcomes.values())
    total = max(settled_at.values())
    times = sorted(settled_at.values())
    n = len(measured)
    print(f"articles                 {done}/{n} settled (after {len(warm)} to warm up)")
    print(f"provider calls           {len(server.calls)} (warm-up included)")
    print(f"calls in flight          {args.calls_in_flight} per calling agent")
    print(f"provider latency         {args.latency:.2f} s per answer")
    print(f"wall time                {total:.2f} s")
    print(f"throughput               {done / total:.1f} articles/s")
    print(f"worker CPU per article   {1000 * (after.cpu_s - before.cpu_s) / n:.0f} ms")
    print(f"machine cores            {os.cpu_count()} (broker, worker, provider server, follower)")
    p50, p95 = statistics.median(times), times[int(0.95 * (len(times) - 1))]
    print(f"settle time p50 / p95    {p50:.2f} s / {p95:.2f} s")
    print_retained(idle_rss, before, after, n)
    return 0 if done == n else 1


def print_retained(idle_rss: int, before: Snapshot, after: Snapshot, n: int) -> None:
    """Bytes per retained article: RSS growth and table growth over the measured articles.

    The RSS growth includes the worker's own (the allocator keeping freed memory), which
    ``--retention-h`` with a few seconds shows alone."""
    per_rss = (after.rss - before.rss) / n
    grown = {t: (after.tables[t] - before.tables[t]) / n for t in TABLES}
    print(
        f"worker RSS               {idle_rss / MIB:.0f} MiB idle, {before.rss / MIB:.0f} MiB "
        f"after warm-up, {after.rss / MIB:.0f} MiB after {n} more articles"
    )
    print(f"RSS growth per article   {per_rss / KIB:.1f} KiB")
    parts = ", ".join(f"{t} {v:.0f}" for t, v in grown.items())
    print(f"table bytes per article  {sum(grown.values()):.0f} B ({parts})")
    million = before.rss + per_rss * 1_000_000
    print(f"RSS for 1M articles      {million / (1024 * MIB):.1f} GiB at this growth")


if __name__ == "__main__":
    raise SystemExit(main())

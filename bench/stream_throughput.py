"""Throughput of the whole stream flow with 1, 2, 3... workers side by side, and what one worker
retains: real broker, worker processes, a scripted provider.

Run: ``.venv/bin/python -m bench.stream_throughput [--workers 1,2,3] [--partitions P]
[--articles N] [--warmup W] [--calls-in-flight K] [--latency S] [--retention-h H]``
(``make bench-stream WORKERS=1,2,3``). Each worker count gets a fresh broker with P topic
partitions (6 by default: 1, 2 and 3 workers all get even shares). It publishes W synthetic
articles (the integration tests' cases: every hygiene path and the enrichment failure, in pt
and en) to warm the workers up, then N more at once, and times those
from the first publish until each one's final outcome is on its topic. The provider answers
instantly, so this measures our runtime and Kafka, not a model; ``--latency`` makes every answer
take S seconds, to see what calls in flight buy.

Beside throughput it prints the CPU seconds the workers, the broker and this process (provider
server and follower) spent on the measured articles: on a small machine, what limits scaling.
With one worker it also prints what the worker retains per article (state is kept for the
retention period, 72 h by default): the growth of its resident memory over the N articles, and
of its tables' contents (read back from their changelog topics), with the RSS that a million
retained articles would need at that rate. ``--retention-h`` shortens the retention: with a few
seconds the tables stay nearly empty, and the RSS growth left is the worker's own, not
retained state.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.retained import changelog_topic, rss_bytes, table_bytes
from streams.admin import ensure_topics
from streams.app import TABLES
from streams.follow import ArticleOutcome
from streams.local_kafka import local_broker
from streams.settings import CALLS_IN_FLIGHT_ENV, RETENTION_ENV
from streams.worker_process import WorkerProcess
from tests.integration.stream_support import Flow
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import ScriptedOpenAIServer, delayed, running_server
from tests.support.stream_cases import CaseArticle, make_articles, responder

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


@dataclass(frozen=True)
class Run:
    """One worker count's figures over the measured articles."""

    workers: int
    settled: int
    articles: int
    wall_s: float
    settle_times: list[float]
    cpu_s: dict[str, float]  # workers (together), broker, this process (provider, follower)
    retained: tuple[int, Snapshot, Snapshot] | None  # one worker only: idle RSS, before, after


def measure(
    workers: int, args: argparse.Namespace, cases: Sequence[CaseArticle], work: Path
) -> tuple[Run, int]:
    """Publish the warm-up, then the measured articles, with ``workers`` worker processes."""
    warm, measured = cases[: args.warmup], cases[args.warmup :]
    settled_at: dict[str, float] = {}
    with running_server() as server, local_broker(partitions=args.partitions) as broker:
        answer = responder(cases, PRIMARY, FALLBACK)
        server.respond_with(delayed(answer, args.latency) if args.latency else answer)
        ensure_topics(broker.connection, partitions=args.partitions)
        f = Flow(broker.connection, work, server.base_url)
        settings = {CALLS_IN_FLIGHT_ENV: str(args.calls_in_flight)}
        if args.retention_h is not None:
            settings[RETENTION_ENV] = str(args.retention_h)
        running = [f.worker(f"w{n}", app_id=APP_ID, settings=settings) for n in range(workers)]
        try:
            for worker in running:
                worker.start(need_partitions=False)
            wait_for_shares(running, args.partitions)
            idle_rss = rss_bytes(pid_of(running[0]))
            f.publish_cases(warm)
            f.follow([c.article_id for c in warm], timeout_s=600)
            before = snapshot(f, running[0]) if workers == 1 else None
            cpu_before = cpu_now(running, broker.process)
            started = time.monotonic()
            f.publish_cases(measured)

            def settled(outcome: ArticleOutcome) -> None:
                settled_at[outcome.article_id] = time.monotonic() - started

            outcomes = f.follow([c.article_id for c in measured], timeout_s=600, on_settled=settled)
            cpu = {k: v - cpu_before[k] for k, v in cpu_now(running, broker.process).items()}
            after = snapshot(f, running[0]) if workers == 1 else None
        finally:
            for worker in running:
                worker.stop()
    retained = (idle_rss, before, after) if before and after else None
    done = sum(o.settled for o in outcomes.values())
    times = sorted(settled_at.values())
    wall = max(times) if times else float("nan")
    return Run(workers, done, len(measured), wall, times, cpu, retained), calls(server)


def calls(server: ScriptedOpenAIServer) -> int:
    return len(server.calls)


def pid_of(worker: WorkerProcess) -> int:
    assert worker.process is not None
    return worker.process.pid


def wait_for_shares(workers: list[WorkerProcess], partitions: int, timeout_s: float = 120) -> None:
    """Until every worker owns partitions and together they own all (a settled group)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        owned = [(w.get("/health/") or {}).get("partitions", []) for w in workers]
        if all(owned) and sorted(p for ps in owned for p in ps) == list(range(partitions)):
            return
        time.sleep(0.5)
    raise RuntimeError(f"workers did not share the {partitions} partitions: {owned}")


def cpu_now(
    workers: list[WorkerProcess], broker: subprocess.Popen[bytes] | None
) -> dict[str, float]:
    """CPU seconds so far of the workers (summed), the broker, this process, and of the whole
    machine (busy and in all: other people's processes share these cores)."""
    assert broker is not None
    own = os.times()
    busy, total = machine_cpu_seconds()
    return {
        "workers": sum(cpu_seconds(pid_of(w)) for w in workers),
        "broker": cpu_seconds(broker.pid),
        "bench": own.user + own.system,
        "machine busy": busy,
        "machine": total,
    }


def machine_cpu_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of every core since boot (Linux /proc/stat)."""
    ticks = [int(n) for n in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks) - idle) / hz, sum(ticks) / hz


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.stream_throughput")
    parser.add_argument(
        "--workers",
        default="1,2,3",
        help="worker counts to measure side by side, e.g. 1,2,3 (a fresh broker for each)",
    )
    parser.add_argument("--partitions", type=int, default=6, help="partitions of every topic")
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
    counts = [int(n) for n in args.workers.split(",") if n.strip()]
    if not counts or min(counts) < 1 or max(counts) > args.partitions:
        parser.error(f"--workers takes counts from 1 to --partitions ({args.partitions})")
    cases = make_articles(args.warmup + args.articles, seed=7)
    for case in cases:
        _ = case.answers  # build the scripted answers before the clock starts
    runs = []
    for workers in counts:
        with tempfile.TemporaryDirectory() as work:
            run, provider_calls = measure(workers, args, cases, Path(work))
        runs.append(run)
        print(f"{workers} worker(s): {run.settled}/{run.articles} settled, "
              f"{provider_calls} provider calls", flush=True)  # fmt: skip
    print()
    print(f"articles measured        {args.articles} (after {args.warmup} to warm up), "
          f"{args.partitions} partitions, provider latency {args.latency:.2f} s, "
          f"{args.calls_in_flight} calls in flight per calling agent")  # fmt: skip
    print(f"machine cores            {os.cpu_count()} (broker, workers, provider server, follower)")
    print_side_by_side(runs)
    for run in runs:
        if run.retained is not None:
            print()
            print_retained(*run.retained, run.articles)
    return 0 if all(r.settled == r.articles for r in runs) else 1


def ours(run: Run) -> float:
    return sum(run.cpu_s[part] for part in ("workers", "broker", "bench"))


def print_side_by_side(runs: list[Run]) -> None:
    """One column per worker count: throughput, settle times, and where the CPU went."""

    def row(label: str, cell: Callable[[Run], str]) -> None:
        print(f"{label:<25}" + "".join(f"{cell(r):>14}" for r in runs))

    row("workers", lambda r: str(r.workers))
    row("settled", lambda r: f"{r.settled}/{r.articles}")
    row("wall time (s)", lambda r: f"{r.wall_s:.2f}")
    row("throughput (art/s)", lambda r: f"{r.settled / r.wall_s:.1f}")
    row("settle p50 (s)", lambda r: f"{statistics.median(r.settle_times):.2f}")
    row("settle p95 (s)", lambda r: f"{r.settle_times[int(0.95 * (len(r.settle_times) - 1))]:.2f}")
    row("CPU workers (s)", lambda r: f"{r.cpu_s['workers']:.1f}")
    row("CPU broker (s)", lambda r: f"{r.cpu_s['broker']:.1f}")
    row("CPU bench process (s)", lambda r: f"{r.cpu_s['bench']:.1f}")
    row("our CPU / all cores", lambda r: f"{ours(r) / r.cpu_s['machine']:.0%}")
    row("machine CPU busy", lambda r: f"{r.cpu_s['machine busy'] / r.cpu_s['machine']:.0%}")
    row("worker CPU/article (ms)", lambda r: f"{1000 * r.cpu_s['workers'] / r.articles:.0f}")


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

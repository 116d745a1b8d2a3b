"""Throughput of the whole stream flow with 1, 2, 3... workers side by side with the same work
done in one process, and what one worker retains: real broker, worker processes, a scripted
provider.

Run: ``.venv/bin/python -m bench.stream_throughput [--workers 1,2,3] [--partitions P]
[--articles N] [--warmup W] [--calls-in-flight K] [--latency S] [--retention-h H]
[--rounds R] [--profile DIR]`` (``make bench-stream WORKERS=1,2,3 ROUNDS=R``).

First the yardstick: the same articles' work in one process without the stream
(``bench.inprocess``: candidates, both model calls to the same scripted server, harness,
assembly, enrichment), its articles/s and CPU per article. Each stream column is then read
against it: its articles/s as a share of the in-process figure, the worker and broker CPU per
article beside the in-process CPU per article. The gap is what the stream costs.

Each worker count gets a fresh broker with P topic partitions (6 by default: 1, 2 and 3
workers all get even shares). It publishes W articles to warm the workers up, then N more at
once, and times those from the first publish until each one's final outcome is on its topic.
The articles are raw news pages (``--pages aeb``, the default: ``bench.page_cases``) or the
integration tests' 4 KB synthetic cases (``--pages synthetic``); either way every hygiene path
and the enrichment failure come in turn. The provider answers instantly, so this measures our
runtime and Kafka, not a model; ``--latency`` makes every answer take S seconds, to see what
calls in flight buy.

Beside throughput it prints the CPU seconds the workers, the broker and this process (provider
server and follower) spent on the measured articles: on a small machine, what limits scaling.
Of the workers' it shows the main thread's apart: the event loop every stage runs on, which
bounds what one worker can do (the rest is Faust's consumer thread and the parsing executor).
It also counts the records written to the broker per article (every topic, table changelogs
included): unlike CPU time on a shared machine, a figure other people's load does not move.
And the workers' produce requests per article, with the records each carried: the workers run
as ``bench.produce_requests``, which counts them (aiokafka itself does not).
With one worker it also prints what the worker retains per article (state is kept for the
retention period, 72 h by default): the growth of its resident memory over the N articles, and
of its tables' contents (read back from their changelog topics), with the RSS that a million
retained articles would need at that rate. ``--retention-h`` shortens the retention: with a few
seconds the tables stay nearly empty, and the RSS growth left is the worker's own, not
retained state.

``--profile DIR`` samples the first worker with py-spy (not a project dependency: ``uv tool
install py-spy`` or ``pip install py-spy``) over the measured articles of every worker count,
writes the collapsed stacks to ``DIR/workers-<n>.txt`` and prints where the worker's CPU went
per article (``bench.profile_summary``); it samples the in-process run too (whole, warm-up
included, ``DIR/in-process.txt``), so the parts read side by side (with several rounds, the
last round's).

On a small shared machine one run's ratio moves by a tenth from one run to the next (both
columns move, not always together). ``--rounds R`` measures every column R times, in turn,
and prints each figure's median, each ratio taken inside its round first.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from article_runtime.streams.commands.follow import ArticleOutcome
from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.local.broker import local_broker
from article_runtime.streams.local.worker_process import WorkerProcess, total
from article_runtime.streams.service.event_loop import EVENT_LOOPS
from article_runtime.streams.service.settings import (
    CALLS_IN_FLIGHT_ENV,
    ECP_STANDIN_NAME_ENV,
    ECP_STANDIN_QID_ENV,
    RETENTION_ENV,
    event_loop_of,
)
from article_runtime.streams.worker.app import TABLES
from bench.cpu import cpu_seconds, cpu_split, machine_cpu_seconds, stolen_cpu_seconds
from bench.page_cases import DEFAULT_PAGES, PAGE_SETS, page_articles
from bench.produce_requests import COUNTS_ENV, WRITE_EVERY_S, Counts, read_counts
from bench.profile_summary import print_profile
from bench.retained import changelog_topic, records_on_topics, rss_bytes, table_bytes
from tests.integration.stream_support import ENTITY, Flow
from tests.llm_support import FALLBACK, FALLBACK_KEY, PRIMARY, PRIMARY_KEY, providers_yaml
from tests.support.openai_server import ScriptedOpenAIServer, delayed, running_server
from tests.support.stream_cases import CaseArticle, responder

APP_ID = "article-runtime-bench"
KIB, MIB = 1024, 1024 * 1024
SEED = 7


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
    """One column's figures over the measured articles: in-process (``workers`` 0) or a
    worker count."""

    label: str
    workers: int
    settled: int
    articles: int
    wall_s: float
    settle_times: list[float]
    # workers (together; in-process: that process), broker, this process (provider server,
    # follower), the machine (busy, in all)
    cpu_s: dict[str, float]
    retained: tuple[int, Snapshot, Snapshot] | None  # one worker only: idle RSS, before, after
    # produced to each topic, changelogs included (not in-process)
    records: dict[str, int] | None = None
    # per stage: (seconds from taking a message to its outputs confirmed, summed; messages)
    stages: dict[str, tuple[float, float]] = field(default_factory=dict)
    produced: Counts | None = None  # the workers' produce requests (not in-process)


def measure_in_process(args: argparse.Namespace, work: Path, base_url: str) -> Run:
    """The same articles' work in one process, without the stream (``bench.inprocess``)."""
    providers = work / "providers.yaml"
    providers.write_text(yaml.safe_dump(providers_yaml(base_url, timeout_s=20.0)))
    command = [sys.executable, "-m", "bench.inprocess", "--providers", str(providers)]
    command += ["--articles", str(args.articles), "--warmup", str(args.warmup)]
    command += ["--seed", str(SEED), "--in-flight", str(args.calls_in_flight)]
    command += ["--loop", args.in_process_loop, "--pages", args.pages]
    if args.profile is not None:
        # Sampled from start to end, warm-up included: read per article of both together.
        command = [*spy_command(args.profile / IN_PROCESS_STACKS), "--", *command]
    env = {**os.environ, "TEST_PRIMARY_KEY": PRIMARY_KEY, "TEST_FALLBACK_KEY": FALLBACK_KEY}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"bench.inprocess failed:\n{done.stderr[-4000:]}")
    # Its figures are its last JSON line (py-spy, when sampling it, prints after it).
    figures = json.loads(next(ln for ln in reversed(done.stdout.splitlines()) if ln[:1] == "{"))
    cpu = {
        "workers": figures["cpu_s"],
        "workers (kernel)": figures["system_s"],
        "machine busy": figures["machine_busy_s"],
        "machine": figures["machine_s"],
        "machine stolen": figures["machine_stolen_s"],
    }
    n, times = figures["articles"], sorted(figures["settle_times"])
    return Run("in-process", 0, n, n, figures["wall_s"], times, cpu, None)


def measure(
    workers: int,
    args: argparse.Namespace,
    cases: Sequence[CaseArticle],
    work: Path,
    server: ScriptedOpenAIServer,
) -> Run:
    """Publish the warm-up, then the measured articles, with ``workers`` worker processes."""
    warm, measured = cases[: args.warmup], cases[args.warmup :]
    settled_at: dict[str, float] = {}
    work.mkdir(parents=True, exist_ok=True)
    with local_broker(partitions=args.partitions) as broker:
        ensure_topics(broker.connection, partitions=args.partitions)
        f = Flow(broker.connection, work, server.base_url)
        settings = {CALLS_IN_FLIGHT_ENV: str(args.calls_in_flight)}
        if args.retention_h is not None:
            settings[RETENTION_ENV] = str(args.retention_h)
        if not args.standin_in_worker:
            # The classifier is not the worker's work.
            settings |= {ECP_STANDIN_QID_ENV: "", ECP_STANDIN_NAME_ENV: ""}
        counts = [work / f"w{n}.produce.json" for n in range(workers)]
        running = [
            f.worker(
                f"w{n}",
                app_id=APP_ID,
                settings=settings | {COUNTS_ENV: str(counts[n])},
                module="bench.produce_requests",  # the worker, its produce requests counted
            )
            for n in range(workers)
        ]
        classifier = None if args.standin_in_worker else standin_apart(broker.connection, work)
        try:
            for worker in running:
                worker.start(need_partitions=False)
            wait_for_shares(running, args.partitions)
            idle_rss = rss_bytes(pid_of(running[0]))
            f.publish_cases(warm)
            f.follow([c.article_id for c in warm], timeout_s=600, alive=lambda: all_alive(running))
            stop_if_one_died(running)
            before = snapshot(f, running[0]) if workers == 1 else None
            profile = None if args.profile is None else args.profile / f"workers-{workers}.txt"
            with sampled(pid_of(running[0]), profile):
                records_before = records_on_topics(broker.connection)
                produced_before = produced_so_far(counts)
                stages_before = stage_seconds(running)
                cpu_before = cpu_now(running, broker.process, classifier)
                started = time.monotonic()
                f.publish_cases(measured)

                def settled(outcome: ArticleOutcome) -> None:
                    settled_at[outcome.article_id] = time.monotonic() - started

                ids = [c.article_id for c in measured]
                outcomes = f.follow(
                    ids, timeout_s=600, on_settled=settled, alive=lambda: all_alive(running)
                )
                stop_if_one_died(running)
                cpu_after = cpu_now(running, broker.process, classifier)
                cpu = {k: v - cpu_before[k] for k, v in cpu_after.items()}
                stages = {
                    name: (seconds - stages_before.get(name, (0.0, 0.0))[0],
                           count - stages_before.get(name, (0.0, 0.0))[1])
                    for name, (seconds, count) in stage_seconds(running).items()
                }  # fmt: skip
                records = {
                    topic: held - records_before.get(topic, 0)
                    for topic, held in quiet_records(broker.connection).items()
                }
                produced = produced_so_far(counts, since=produced_before)
            after = snapshot(f, running[0]) if workers == 1 else None
        finally:
            for worker in running:
                worker.stop()
            if classifier is not None:
                classifier.terminate()
                classifier.wait(timeout=30)
    retained = (idle_rss, before, after) if before and after else None
    done = sum(o.settled for o in outcomes.values())
    times = sorted(settled_at.values())
    wall = max(times) if times else float("nan")
    label = f"{workers} worker" + ("s" if workers > 1 else "")
    return Run(
        label, workers, done, len(measured), wall, times, cpu, retained, records, stages, produced
    )


def produced_so_far(paths: list[Path], since: Counts | None = None) -> Counts:
    """The workers' produce requests together (``bench.produce_requests``), less ``since``."""
    time.sleep(2 * WRITE_EVERY_S)  # the workers' files trail their counts by up to this
    found = [read_counts(path) for path in paths]
    start = since or Counts()
    return Counts(
        requests=sum(c.requests for c in found) - start.requests,
        batches=sum(c.batches for c in found) - start.batches,
        records=sum(c.records for c in found) - start.records,
    )


def stage_seconds(workers: list[WorkerProcess]) -> dict[str, tuple[float, float]]:
    """Per stage, over the workers: the seconds their messages took (from taking one to its
    outputs confirmed) and how many there were, from each worker's /metrics."""
    found: dict[str, tuple[float, float]] = {}
    for worker in workers:
        samples = worker.metrics()
        stages = {dict(labels)["stage"] for (name, labels) in samples if name == STAGE_SUM}
        for stage in stages:
            seconds, count = found.get(stage, (0.0, 0.0))
            found[stage] = (
                seconds + total(samples, STAGE_SUM, stage=stage),
                count + total(samples, STAGE_COUNT, stage=stage),
            )
    return found


STAGE_SUM, STAGE_COUNT = "article_runtime_stage_seconds_sum", "article_runtime_stage_seconds_count"


def quiet_records(connection: KafkaConnection, quiet_s: float = 4.0) -> dict[str, int]:
    """Records on each topic once no more are written: table changes trail the outputs, the
    ledger's until the next commit (Faust commits every 2.8 s), so quiet means longer."""
    count, deadline = records_on_topics(connection), time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(quiet_s)
        now = records_on_topics(connection)
        if now == count:
            break
        count = now
    return count


@contextmanager
def sampled(pid: int, output: Path | None) -> Iterator[None]:
    """py-spy samples ``pid`` while inside (collapsed stacks to ``output``); nothing when
    ``output`` is None."""
    if output is None:
        yield
        return
    command = [*spy_command(output), "--pid", str(pid)]
    spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        yield
    finally:
        spy.send_signal(2)  # SIGINT: py-spy writes what it sampled and exits
        spy.communicate(timeout=60)


IN_PROCESS_STACKS = "in-process.txt"


def spy_command(output: Path) -> list[str]:
    """py-spy sampling the thread that holds the interpreter, 100 times a second, collapsed
    stacks to ``output``; the process to sample follows (``--pid N`` or ``-- command``).

    Each sample stops the process: sampling without stops (``--nonblocking``) lost a third
    of the worker's samples and a quarter of the in-process run's, not evenly. The stops slow
    both runs, so a profiled run's throughput is not a measurement; its split is."""
    sampling = ["record", "--gil", "--rate", "100"]
    return [py_spy(), *sampling, "--format", "raw", "--output", str(output)]


def py_spy() -> str:
    found = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if found is None:
        raise SystemExit("--profile needs py-spy: uv tool install py-spy (or pip install py-spy)")
    return found


def pid_of(worker: WorkerProcess) -> int:
    assert worker.process is not None
    return worker.process.pid


def all_alive(workers: list[WorkerProcess]) -> bool:
    return all(w.exited() is None for w in workers)


def stop_if_one_died(workers: list[WorkerProcess]) -> None:
    """A worker that died mid-run makes every figure after it meaningless: say so, with its
    log's end (a crash in C code leaves each thread's Python stack there), and stop."""
    for n, worker in enumerate(workers):
        code = worker.exited()
        if code is not None:
            raise SystemExit(f"worker w{n} died (exit {code}) during the run:\n{worker.tail(60)}")


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
    workers: list[WorkerProcess],
    broker: subprocess.Popen[bytes] | None,
    classifier: subprocess.Popen[bytes] | None = None,
) -> dict[str, float]:
    """CPU seconds so far of the workers (summed), the broker, the ECP stand-in when it runs
    apart, this process, and of the whole machine (busy and in all: other people's processes
    share these cores)."""
    assert broker is not None
    own = os.times()
    busy, total = machine_cpu_seconds()
    split = [cpu_split(pid_of(w)) for w in workers]
    found = {
        "workers": sum(user + kernel for user, kernel in split),
        "workers (kernel)": sum(kernel for _, kernel in split),
        # A process's first thread has its pid: the event loop the stages run on. The rest is
        # Faust's consumer thread (aiokafka on its own loop) and the page-parsing executor.
        "workers (main thread)": sum(sum(cpu_split(pid_of(w), pid_of(w))) for w in workers),
        "broker": cpu_seconds(broker.pid),
        "bench": own.user + own.system,
        "machine busy": busy,
        "machine": total,
        "machine stolen": stolen_cpu_seconds(),
    }
    if classifier is not None:
        found["ECP stand-in"] = cpu_seconds(classifier.pid)
    return found


def standin_apart(connection: KafkaConnection, work: Path) -> subprocess.Popen[bytes]:
    """The ECP stand-in as its own process (``python -m article_runtime.agents.ecp_standin``), as
    the real classifier runs beside the workers."""
    env = {
        **os.environ,
        **connection.environ(),
        ECP_STANDIN_QID_ENV: ENTITY[0],
        ECP_STANDIN_NAME_ENV: ENTITY[1],
    }
    log = (work / "ecp-standin.log").open("ab")
    command = [sys.executable, "-m", "article_runtime.agents.ecp_standin"]
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)


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
    parser.add_argument(
        "--standin-in-worker",
        action="store_true",
        help="run the ECP stand-in inside the worker, as make demo does (default: apart, as "
        "the real classifier runs)",
    )
    parser.add_argument(
        "--in-process-loop",
        choices=EVENT_LOOPS,
        default="uvloop",
        help="the in-process yardstick's event loop: the workers' (uvloop), where the work also "
        "runs fastest since the model calls go over aiohttp",
    )
    parser.add_argument(
        "--pages",
        choices=PAGE_SETS,
        default=DEFAULT_PAGES,
        help="the articles: the raw news pages of ../shared/bench/aeb, median about 116 KB "
        "(bench.page_cases; the default, the pages the runtime is for), or synthetic pages of "
        "about 4 KB (tests.support.stream_cases), where the stream's fixed cost per message "
        "weighs against little work",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure every column this many times, in turn, and print each figure's median "
        "(on a shared machine one run's ratio moves by a tenth)",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        metavar="DIR",
        help="sample the first worker with py-spy over the measured articles (stacks to DIR)",
    )
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.workers.split(",") if n.strip()]
    if not counts or min(counts) < 1 or max(counts) > args.partitions:
        parser.error(f"--workers takes counts from 1 to --partitions ({args.partitions})")
    if args.profile is not None:
        py_spy()  # before anything starts: say at once that it is missing
        args.profile.mkdir(parents=True, exist_ok=True)
    cases = page_articles(args.warmup + args.articles, seed=SEED, pages=args.pages)
    for case in cases:
        _ = case.answers  # build the scripted answers before the clock starts
    rounds: list[list[Run]] = []
    with running_server() as server, tempfile.TemporaryDirectory() as work:
        answer = responder(cases, PRIMARY, FALLBACK)
        server.respond_with(delayed(answer, args.latency) if args.latency else answer)
        columns: list[Callable[[], Run]] = [
            lambda: measure_in_process(args, Path(work), server.base_url)
        ]
        columns += [
            lambda n=n: measure(n, args, cases, Path(work) / f"w{n}", server)  # type: ignore[misc]
            for n in counts
        ]
        for number in range(1, args.rounds + 1):
            runs = []
            for column in columns:
                calls_before = len(server.calls)
                run = column()
                runs.append(run)
                print(f"round {number}, {run.label}: {run.settled}/{run.articles} settled, "
                      f"{len(server.calls) - calls_before} provider calls", flush=True)  # fmt: skip
            rounds.append(runs)
            if args.rounds > 1:
                print_round(number, runs)
    print()
    print(f"articles measured        {args.articles} (after {args.warmup} to warm up), "
          f"{args.partitions} partitions, provider latency {args.latency:.2f} s, "
          f"{args.calls_in_flight} calls in flight per calling agent")  # fmt: skip
    print(f"machine cores            {os.cpu_count()} (broker, workers, provider server, follower)")
    print(f"pages                    {args.pages} (median {median_kb(cases):.0f} KB of HTML)")
    worker_loop = event_loop_of(os.environ)
    print(f"event loops              in-process {args.in_process_loop}, workers {worker_loop}")
    if args.rounds > 1:
        print(
            f"each figure: the median of {args.rounds} rounds (each column once per round, in turn)"
        )
    print_side_by_side(rounds)
    runs = rounds[-1]
    for run in runs[1:]:
        print_records(run)
    for run in runs:
        if run.retained is not None:
            print()
            print_retained(*run.retained, run.articles)
    if args.profile is not None:
        print()
        print("(py-spy stopped each sampled process 100 times a second: this run's throughput and")
        print(" CPU figures are slowed by it; measure them without --profile)")
        print(f"where the in-process CPU went (py-spy, {args.profile}, warm-up included):")
        print_profile(args.profile / IN_PROCESS_STACKS, args.articles + args.warmup)
        for run in runs[1:]:
            print()
            print(f"where the first worker's CPU went, {run.label} (py-spy, {args.profile}):")
            print_profile(args.profile / f"workers-{run.workers}.txt", run.articles)
    return 0 if all(r.settled == r.articles for runs in rounds for r in runs) else 1


def median_kb(cases: Sequence[CaseArticle]) -> float:
    return statistics.median(len(case.html) for case in cases) / 1024


def ours(run: Run) -> float:
    parts = ("workers", "broker", "ECP stand-in", "bench")
    return sum(run.cpu_s.get(part, 0.0) for part in parts)


def print_round(number: int, runs: list[Run]) -> None:
    """One round's throughput of each column, and each stream column's against the round's
    in-process run."""
    base = runs[0]
    parts = [f"{base.label} {throughput(base):.1f} art/s"]
    parts += [f"{r.label} {throughput(r):.1f} ({against(r, base):.2f})" for r in runs[1:]]
    print(f"round {number}: " + ", ".join(parts), flush=True)


Cell = Callable[[Run, Run], float | None]  # a figure of a run, beside its round's in-process one


def print_side_by_side(rounds: list[list[Run]]) -> None:
    """One column for the in-process yardstick, one per worker count: throughput against
    the yardstick's, settle times, and where the CPU went. With several rounds each figure is
    its median over the rounds, a ratio taken within each round first."""

    def row(label: str, cell: Cell, form: str = "{:.1f}") -> None:
        cells = []
        for column in range(len(rounds[0])):
            found = [cell(runs[column], runs[0]) for runs in rounds]
            values = [v for v in found if v is not None]
            cells.append(form.format(statistics.median(values)) if values else "-")
        print(f"{label:<28}" + "".join(f"{c:>14}" for c in cells))

    def per_article(part: str) -> Cell:
        return lambda r, _: None if part not in r.cpu_s else 1000 * r.cpu_s[part] / r.articles

    def seconds(part: str) -> Cell:
        return lambda r, _: r.cpu_s.get(part)

    print(f"{'':<28}" + "".join(f"{r.label:>14}" for r in rounds[0]))
    print(f"{'settled':<28}" + "".join(f"{_settled(rounds, c):>14}" for c in range(len(rounds[0]))))
    row("wall time (s)", lambda r, _: r.wall_s, "{:.2f}")
    row("throughput (art/s)", lambda r, _: throughput(r))
    row("throughput / in-process", against, "{:.2f}")
    row("settle p50 (s)", lambda r, _: statistics.median(r.settle_times), "{:.2f}")
    row("settle p95 (s)", lambda r, _: p95(r.settle_times), "{:.2f}")
    row("worker CPU/article (ms)", per_article("workers"))
    row("  of which kernel (ms)", per_article("workers (kernel)"))
    row("  of which main thread (ms)", per_article("workers (main thread)"))
    row("worker busy (cores each)", busy, "{:.2f}")
    row("broker CPU/article (ms)", per_article("broker"))
    if any("ECP stand-in" in r.cpu_s for runs in rounds for r in runs):
        row("ECP stand-in CPU/article (ms)", per_article("ECP stand-in"))
    row("records/article", lambda r, _: None if r.records is None else total_records(r))
    row("produce requests/article", lambda r, _: _requests(r, lambda c: c.requests / r.articles))
    row("records/produce request", lambda r, _: _requests(r, lambda c: c.records / c.requests))
    row("CPU/article / in-process", cpu_against, "{:.2f}")
    for stage in sorted({name for runs in rounds for r in runs for name in r.stages}):
        row(f"{stage} s/message", lambda r, _, stage=stage: _per_message(r, stage), "{:.3f}")  # type: ignore[misc]
    row("CPU workers (s)", seconds("workers"))
    row("CPU broker (s)", seconds("broker"))
    row("CPU bench process (s)", seconds("bench"))
    row("our CPU / all cores", lambda r, _: ours(r) / r.cpu_s["machine"], "{:.0%}")
    row("machine CPU busy", lambda r, _: r.cpu_s["machine busy"] / r.cpu_s["machine"], "{:.0%}")
    row("  stolen by the host", _stolen, "{:.1%}")
    print("(in-process: the same work in one process; its CPU is in the worker row. records: what")
    print(" ingestion, the stages and the tables' changelogs wrote to the broker per article.")
    print(" s/message: a stage's mean time from taking a message to its outputs confirmed; a")
    print(" stage holding K messages at once takes at most K / that many a second. produce")
    print(" requests: the workers' requests to the broker, each carrying records of several")
    print(" partitions and topics; aiokafka keeps one in flight per broker. stolen: time this")
    print(" virtual machine had work for but its host ran something else)")


def busy(run: Run, _: Run) -> float | None:
    """Each worker's CPU over the wall time (the in-process run's: its own). A worker that
    does its work on one event loop can use about one core: near 1.0 it is working, below it
    it waits (on the broker, a full window, a fetch), and its throughput is not its CPU's."""
    if not run.wall_s > 0:
        return None
    return run.cpu_s["workers"] / run.wall_s / max(run.workers, 1)


def _settled(rounds: list[list[Run]], column: int) -> str:
    """Settled of measured, over every round (nothing may be missing in any)."""
    runs = [runs[column] for runs in rounds]
    return f"{sum(r.settled for r in runs)}/{sum(r.articles for r in runs)}"


def total_records(run: Run) -> float:
    """Records written per article, every topic and changelog together."""
    return sum((run.records or {}).values()) / run.articles


def print_records(run: Run) -> None:
    """Records written per article, topic by topic (changelogs by their table's name)."""
    held = {
        topic.removeprefix(f"{APP_ID}-").removesuffix("-changelog"): count / run.articles
        for topic, count in sorted((run.records or {}).items())
        if count
    }
    parts = ", ".join(f"{name} {per:.2f}" for name, per in held.items())
    print(f"records/article, {run.label}: {parts}")


def _stolen(run: Run, _: Run) -> float | None:
    """The share of the machine's CPU time its hypervisor gave to other machines meanwhile."""
    stolen = run.cpu_s.get("machine stolen")
    return None if stolen is None else stolen / run.cpu_s["machine"]


def _requests(run: Run, figure: Callable[[Counts], float]) -> float | None:
    produced = run.produced
    return None if produced is None or not produced.requests else figure(produced)


def _per_message(run: Run, stage: str) -> float | None:
    seconds, count = run.stages.get(stage, (0.0, 0.0))
    return seconds / count if count else None


def against(run: Run, base: Run) -> float:
    """A run's throughput as a share of its round's in-process run's."""
    return throughput(run) / throughput(base)


def cpu_against(run: Run, base: Run) -> float:
    """A run's CPU per article against its round's in-process run's."""
    return cpu_per_article(run) / cpu_per_article(base)


def p95(times: list[float]) -> float:
    """The 95th percentile of sorted ``times`` (the value at that rank, not interpolated)."""
    return times[int(0.95 * (len(times) - 1))]


def throughput(run: Run) -> float:
    return run.settled / run.wall_s if run.wall_s > 0 else math.nan


def cpu_per_article(run: Run) -> float:
    """Worker(s) and broker CPU seconds per article (in-process: that process's)."""
    return (run.cpu_s["workers"] + run.cpu_s.get("broker", 0.0)) / run.articles


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

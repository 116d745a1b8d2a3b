"""An operator's bad day, on the real broker: the fault scenarios of ``make soak`` and the tests.

Each run gets its own broker (``article_runtime.streams.local.broker.local_broker``, which can be
SIGKILLed and started again on the same ports and log dir), the scripted provider (a quarter second
per answer, so work is in flight when the fault lands) and worker processes. The fault lands
mid-stream, once about a quarter of the articles have settled:

- ``broker_restart``: SIGKILL the broker, start it again on the same ports and data.
- ``join_leave``: a second worker joins, then leaves (SIGTERM); twice.
- ``kill_in_rebalance``: a second worker joins and, while the group rebalances, one of the
  two (the old one on even runs, the newcomer on odd runs) is SIGKILLed.

Workers that exit by themselves are started again, as Kubernetes would (the worker is
crash-only: it exits rather than ack what it could not produce).

A run ends when every article has settled, or when it cannot: **lost** means articles never
settled although the group had committed every input (lag 0: nothing will ever process them
again); **stuck** means the group stopped making progress with inputs uncommitted.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaException, TopicPartition

from article_runtime.streams.commands.follow import FOLLOWED, ArticleOutcome
from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.kafka.codec import AvroCodec, CodecError
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.topics import BY_NAME, PARTITIONS, READ
from article_runtime.streams.local.broker import LocalBroker, local_broker
from article_runtime.streams.local.worker_process import WorkerProcess, WorkerStartError
from tests.integration.stream_support import ENTITY, Flow, distinct
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import delayed, running_server
from tests.support.stream_cases import CaseArticle, expected, make_articles, responder

APP_ID = "article-runtime-faults"
SCENARIOS = ("broker_restart", "join_leave", "kill_in_rebalance")
ANSWER_S = 0.25  # per model answer: calls are in flight when the fault lands
FAULT_AT = 0.25  # share of articles settled when the fault lands
RESERVE = 0.2  # share of articles held back and fed to the flow as each fault step lands
FEEDS = 4  # the most fault steps a scenario feeds (join_leave: join, leave, twice)
LEAVE_GRACE_S = 20.0  # a leaving worker must be gone by then (Faust's stop waits for streams)
LOST_AFTER_S = 12.0  # every input committed this long, articles unsettled: they are lost
STALL_S = 90.0  # no article settled and no offset committed for this long: stuck
WAIT_EMPTY = b"wait_empty: Waiting for tasks"
REVOKING = b"Revoking previously assigned partitions"  # aiokafka, as a rebalance starts


@dataclass
class RunResult:
    scenario: str
    run: int
    articles: int
    settled: int = 0
    lost: int = 0
    stuck: bool = False
    wrong: list[str] = field(default_factory=list)  # articles whose outcome is not the expected
    problems: list[str] = field(default_factory=list)  # untruthful health, hung leaves...
    recover_s: float | None = None  # fault over -> first article settled after it
    finish_s: float | None = None  # fault over -> every article settled
    notes: list[str] = field(default_factory=list)  # restarts and the like: facts, not failures
    timeline: list[tuple[str, float]] = field(default_factory=list)  # (step, s after publish)

    @property
    def passed(self) -> bool:
        return self.settled == self.articles and not (
            self.lost or self.stuck or self.wrong or self.problems
        )

    def summary(self) -> str:
        state = "passed" if self.passed else "FAILED"
        parts = [f"{self.scenario} #{self.run}: {state}, {self.settled}/{self.articles} settled"]
        if self.lost:
            parts.append(f"{self.lost} lost")
        if self.stuck:
            parts.append("stuck")
        if self.recover_s is not None:
            parts.append(f"recovered in {self.recover_s:.1f} s")
        parts += self.wrong[:3] + self.problems + self.notes
        return "; ".join(parts)


class Watcher:
    """Follows the output topics in a thread: which articles have settled, and when."""

    def __init__(self, connection: KafkaConnection, ids: Sequence[str]) -> None:
        self._connection = connection
        self._lock = threading.Lock()
        self._outcomes = {a: ArticleOutcome(a) for a in ids}
        self._settled_at: dict[str, float] = {}
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="watcher", daemon=True)

    def __enter__(self) -> Watcher:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        codec = AvroCodec()
        consumer = Consumer(
            {
                **self._connection.confluent(),
                "group.id": f"watch-{uuid.uuid4().hex}",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                "log_level": 0,  # the broker restarts on purpose: its disconnects are not news
            }
        )
        consumer.subscribe([t.name for t in FOLLOWED])
        try:
            while not self._stop.is_set():
                message = consumer.poll(0.2)
                if message is None or message.error() is not None:
                    continue
                key = (message.key() or b"").decode("utf-8", errors="replace")
                topic = str(message.topic())
                with self._lock:
                    outcome = self._outcomes.get(key)
                    if outcome is None:
                        continue
                    try:
                        outcome.add(
                            topic, codec.decode(message.value() or b"", BY_NAME[topic].schema)
                        )
                    except CodecError:
                        continue
                    if outcome.settled and key not in self._settled_at:
                        self._settled_at[key] = time.monotonic()
        except BaseException as exc:  # surfaced by the caller through ``check``
            self._error = exc
        finally:
            consumer.close()

    def check(self) -> None:
        if self._error is not None:
            raise RuntimeError("the output watcher failed") from self._error

    @property
    def settled(self) -> int:
        with self._lock:
            return len(self._settled_at)

    def settled_times(self) -> list[float]:
        with self._lock:
            return sorted(self._settled_at.values())

    def outcomes(self) -> dict[str, ArticleOutcome]:
        with self._lock:
            return {
                a: ArticleOutcome(
                    a, list(o.assembled), list(o.verdicts), list(o.enriched), list(o.compensations)
                )
                for a, o in self._outcomes.items()
            }


def committed_lag(connection: KafkaConnection, group: str) -> int | None:
    """Messages on the flow's topics that ``group`` has not committed; None if the broker
    does not answer (it may be down on purpose)."""
    behind = lag_by_partition(connection, group)
    return None if behind is None else sum(behind.values())


def lag_by_partition(connection: KafkaConnection, group: str) -> dict[str, int] | None:
    """``"topic/partition" -> uncommitted messages``, for partitions that have some."""
    consumer = Consumer(
        {
            **connection.confluent(),
            "group.id": group,
            "log_level": 0,
            "enable.auto.commit": False,
        }
    )
    try:
        partitions = [TopicPartition(t.name, p) for t in READ for p in range(PARTITIONS)]
        behind = {}
        for tp in consumer.committed(partitions, timeout=10):
            low, high = consumer.get_watermark_offsets(tp, timeout=10)
            start = tp.offset if tp.offset >= 0 else low
            if high > start:
                behind[f"{tp.topic}/{tp.partition}@{start}"] = high - start
        return behind
    except KafkaException:
        return None
    finally:
        consumer.close()


def wrong_outcome(case: CaseArticle, outcome: ArticleOutcome) -> str | None:
    """What is wrong with a settled article's outputs (duplicates included), or None."""
    want = expected(case)
    if outcome.hygiene_terminal is not None:
        return f"{case.article_id}: hygiene ended {outcome.hygiene_terminal['reason']}"
    if len(distinct(outcome.assembled, "hashes", "markdown")) != 1:
        return f"{case.article_id}: duplicates disagree on the Markdown hash"
    article = outcome.assembled[0]
    if (article["path"], article["markdown"]) != (want.hygiene_path, want.markdown):
        return f"{case.article_id}: assembled {article['path']}, wanted {want.hygiene_path}"
    if want.enrichment_ok:
        if len(distinct(outcome.enriched, "content_hash")) != 1:
            return f"{case.article_id}: enriched duplicates disagree"
        enriched = outcome.enriched[0]
        got = (
            enriched["entity"]["qid"],
            enriched["sentiment"],
            tuple(t["tag"] for t in enriched["tags"]),
        )
        if got != (ENTITY[0], want.sentiment, want.tags):
            return f"{case.article_id}: enriched {got}"
    elif outcome.enriched or {c["reason"] for c in outcome.terminal} != {
        "primary_and_fallback_failed"
    }:
        return f"{case.article_id}: enrichment should have ended terminally"
    return None


class Run:
    """One scenario run: broker, provider, workers, the watcher and the bookkeeping."""

    def __init__(
        self, broker: LocalBroker, flow: Flow, cases: list[CaseArticle], result: RunResult
    ) -> None:
        self.broker, self.flow, self.cases, self.result = broker, flow, cases, result
        self.workers: dict[str, WorkerProcess] = {}
        self.retired: list[WorkerProcess] = []
        self.restarts = 0
        self.published_at = time.monotonic()
        self.main_published = threading.Event()  # all but the reserve are on the broker
        # Held back and published a few at a time as fault steps land, so every step meets
        # work just published (mid-stream by construction, whatever the machine's speed).
        self.reserve: list[CaseArticle] = []
        self.feed_size = 1

    # -- workers ------------------------------------------------------------------------------

    def start_worker(self, name: str, *, need_partitions: bool = True) -> WorkerProcess:
        worker = self.flow.worker(name, app_id=APP_ID)
        self.workers[name] = worker
        worker.start(timeout_s=120, need_partitions=need_partitions)
        return worker

    def leave(self, name: str) -> None:
        """SIGTERM: Faust's graceful stop; a worker still there after the grace is a hang."""
        worker = self.workers.pop(name)
        self.retired.append(worker)
        started = time.monotonic()
        code = worker.stop(grace_s=LEAVE_GRACE_S)
        if time.monotonic() - started >= LEAVE_GRACE_S:
            self.result.problems.append(f"{name} did not leave within {LEAVE_GRACE_S:.0f} s")
        elif code not in (0, None):
            self.result.notes.append(f"{name} left with exit code {code}")

    def kill(self, name: str) -> None:
        worker = self.workers.pop(name)
        self.retired.append(worker)
        worker.kill()

    def supervise(self) -> None:
        """Start again any worker that exited by itself (what Kubernetes does)."""
        for name, worker in list(self.workers.items()):
            process = worker.process
            if process is not None and process.poll() is not None:
                self.restarts += 1
                self.result.notes.append(f"{name} exited {process.returncode}, restarted")
                self.retired.append(worker)
                replacement = self.flow.worker(f"{name}-r{self.restarts}", app_id=APP_ID)
                self.workers[name] = replacement
                with contextlib.suppress(WorkerStartError):
                    replacement.start(timeout_s=120, need_partitions=False)

    def owned(self) -> dict[str, list[int]]:
        found = {}
        for name, worker in self.workers.items():
            health = worker.get("/health/")
            if health is not None:
                found[name] = list(health.get("partitions", []))
        return found

    def settled_ownership(self, timeout_s: float = 60.0) -> dict[str, list[int]]:
        """What each live worker's health lists once the group has settled (a worker killed
        last is noticed only after the session timeout): each partition exactly once."""
        deadline = time.monotonic() + timeout_s
        owned = self.owned()
        while time.monotonic() < deadline:
            owned = self.owned()
            if sorted(p for ps in owned.values() for p in ps) == list(range(PARTITIONS)):
                break
            self.supervise()
            time.sleep(0.5)
        return owned

    def wait_until_owning(self, name: str, timeout_s: float = 90.0) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.owned().get(name):
                return True
            self.supervise()
            time.sleep(0.3)
        return False

    def dump_stacks(self) -> None:
        """Ask every live worker to write its threads and tasks to its log (mode's SIGUSR1)."""
        for worker in self.workers.values():
            if worker.process is not None and worker.process.poll() is None:
                os.kill(worker.process.pid, signal.SIGUSR1)
        time.sleep(3.0)

    def stop_all(self) -> None:
        """Teardown: the run is judged, nothing left to commit; SIGKILL is quickest."""
        for worker in [*self.workers.values(), *self.retired]:
            worker.kill()
        self.broker.kill()

    # -- progress -----------------------------------------------------------------------------

    def wait_settled(self, watcher: Watcher, count: int, timeout_s: float = 180.0) -> int:
        """Until ``count`` articles settled (or all of them), bounded by ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        target = min(count, len(self.cases))
        while watcher.settled < target and time.monotonic() < deadline:
            watcher.check()
            self.supervise()
            time.sleep(0.2)
        return watcher.settled

    def step(self, watcher: Watcher, label: str, *, feed: bool = True) -> None:
        """Record a fault step; one that lands after every article settled tests nothing.

        With ``feed``, a few reserved articles are published first, so the fault lands on
        work in flight however fast the flow ran (the broker must be up to feed)."""
        self.result.timeline.append((label, time.monotonic() - self.published_at))
        if feed and self.reserve:
            batch, self.reserve = self.reserve[: self.feed_size], self.reserve[self.feed_size :]
            self.flow.publish_cases(batch)
            return
        if watcher.settled >= len(self.cases) - len(self.reserve):
            self.result.problems.append(f"{label}: every article had already settled")

    def publish_reserve(self, timeout_s: float = 60.0) -> None:
        """The articles no fault step fed, once the fault is over (the broker may still be
        coming back: retried until ``timeout_s``)."""
        deadline = time.monotonic() + timeout_s
        while self.reserve:
            try:
                self.flow.publish_cases(self.reserve)
                self.reserve = []
            except (RuntimeError, KafkaException):
                if time.monotonic() > deadline:
                    raise
                time.sleep(1.0)

    @property
    def all_published(self) -> bool:
        """Before this, lag 0 is no sign of a loss."""
        return self.main_published.is_set() and not self.reserve

    def finish(self, watcher: Watcher, fault_over: float, *, cap_s: float = 300.0) -> None:
        """Wait until every article settles, or until they are lost or stuck."""
        total = len(self.cases)
        last_progress, last_state = time.monotonic(), (-1, -1)
        idle_since: float | None = None
        deadline = fault_over + cap_s
        overlap_seen = 0
        while time.monotonic() < deadline:
            watcher.check()
            self.supervise()
            settled = watcher.settled
            if settled == total:
                break
            lag = committed_lag(self.broker.connection, APP_ID)
            state = (settled, -1 if lag is None else lag)
            if state != last_state:
                last_progress, last_state = time.monotonic(), state
            if lag == 0 and self.all_published:
                idle_since = idle_since or time.monotonic()
                if time.monotonic() - idle_since >= LOST_AFTER_S:
                    self.result.lost = total - settled
                    break
            else:
                idle_since = None
            if time.monotonic() - last_progress >= STALL_S:
                self.result.stuck = True
                self.result.problems.append(f"no progress for {STALL_S:.0f} s (lag {lag})")
                self.dump_stacks()
                break
            overlap_seen = overlap_seen + 1 if _overlap(self.owned()) else 0
            if overlap_seen == 4:
                self.result.problems.append(f"two workers list one partition: {self.owned()}")
            time.sleep(1.0)
        else:
            self.result.stuck = True
            self.result.problems.append(f"not settled {cap_s:.0f} s after the fault")
        self.result.settled = watcher.settled
        if self.result.settled < total:  # what an investigation starts from
            unsettled = [o for o in watcher.outcomes().values() if not o.settled]
            self.result.notes.append(
                f"uncommitted {lag_by_partition(self.broker.connection, APP_ID)}"
            )
            self.result.notes.append(f"unsettled {[_stage(o) for o in unsettled[:5]]}")
        after = [t for t in watcher.settled_times() if t >= fault_over]
        if after:
            self.result.recover_s = after[0] - fault_over
            if self.result.settled == total:
                self.result.finish_s = after[-1] - fault_over

    def verify(self, watcher: Watcher) -> None:
        """Every settled article as its scenario wants it; health lists each partition once."""
        time.sleep(2.0)  # late duplicates from redelivery
        by_id = {c.article_id: c for c in self.cases}
        for article_id, outcome in watcher.outcomes().items():
            if outcome.settled:
                problem = wrong_outcome(by_id[article_id], outcome)
                if problem:
                    self.result.wrong.append(problem)
        if self.result.settled == len(self.cases):
            owned = self.settled_ownership()
            listed = sorted(p for ps in owned.values() for p in ps)
            if listed != list(range(PARTITIONS)):
                self.result.problems.append(f"health at rest does not add up: {owned}")
            self.result.problems += self.incomplete_lineage()
        for worker in [*self.workers.values(), *self.retired]:
            with contextlib.suppress(OSError):
                hangs = worker.log_path.read_bytes().count(WAIT_EMPTY)
                if hangs:
                    self.result.notes.append(f"{worker.log_path.stem}: {hangs}x wait_empty")

    def incomplete_lineage(self, timeout_s: float = 30.0) -> list[str]:
        """Articles whose lineage, as the views show it once all settled, misses a stage
        their outputs went through. The ledger's records wait for the commit
        (``article_runtime.streams.kafka.coalesced``): a change lost to the fault without its input
        being redelivered shows here, on whichever worker now owns the partition."""
        live = next(iter(self.workers.values()), None)
        if live is None:
            return ["no worker left to ask for the lineage"]
        missing: dict[str, set[str]] = {}
        deadline = time.monotonic() + timeout_s
        for case in self.cases:
            while (gap := missing_stages(live, case)) and time.monotonic() <= deadline:
                time.sleep(0.5)  # a view proxied to an owner still recovering
            if gap:
                missing[case.article_id] = gap
        if not missing:
            return []
        first = sorted(missing.items())[:3]
        return [f"{len(missing)} articles' lineage incomplete, e.g. {first}"]


def missing_stages(worker: WorkerProcess, case: CaseArticle) -> set[str]:
    """The stages a settled article's lineage must show (the ECP stand-in approves every one)
    that ``worker``'s view of it does not."""
    final = "enriched" if expected(case).enrichment_ok else "compensation_terminal"
    lineage = worker.get(f"/articles/{case.article_id}/")
    shown = {e["stage"] for e in lineage["events"]} if lineage else set()
    return {"ingested", "proposed", "assembled", "ecp_approved", final} - shown


def _stage(outcome: ArticleOutcome) -> str:
    """How far an unsettled article got, as the output topics show it."""
    if outcome.enriched or outcome.terminal:
        return f"{outcome.article_id}: enrichment partly done"
    if outcome.verdicts:
        return f"{outcome.article_id}: verdict, not enriched"
    if outcome.assembled:
        return f"{outcome.article_id}: assembled, no verdict"
    if outcome.compensations:
        return f"{outcome.article_id}: in the fallback ladder"
    return f"{outcome.article_id}: no output"


def _overlap(owned: dict[str, list[int]]) -> bool:
    listed = [p for ps in owned.values() for p in ps]
    return len(listed) != len(set(listed))


# -- the scenarios --------------------------------------------------------------------------------


def broker_restart(run: Run, watcher: Watcher) -> float:
    run.step(watcher, "broker SIGKILL")
    run.broker.kill()
    time.sleep(3.0)  # down long enough for clients to notice; start-up adds several seconds
    run.broker.start()
    run.step(watcher, "broker serving again", feed=False)
    return time.monotonic()


def join_leave(run: Run, watcher: Watcher) -> float:
    for round_ in (1, 2):
        name = f"joiner{round_}"
        run.step(watcher, f"{name} joins")
        run.start_worker(name, need_partitions=False)
        if not run.wait_until_owning(name):
            run.result.problems.append(f"{name} never owned a partition")
        run.wait_settled(watcher, watcher.settled + 2, timeout_s=30)
        run.step(watcher, f"{name} leaves")
        run.leave(name)
    return time.monotonic()


def kill_in_rebalance(run: Run, watcher: Watcher) -> float:
    """The kill lands while the group rebalances for a newcomer: as soon as the old worker
    logs that it is revoking its partitions (at most 30 s after the newcomer starts)."""
    revoking = run.workers["w1"].log_path
    seen = _count(revoking, REVOKING)
    joiner = run.flow.worker("joiner", app_id=APP_ID)
    run.workers["joiner"] = joiner
    run.step(watcher, "joiner starts")
    joiner.start(timeout_s=120, need_partitions=False)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _count(revoking, REVOKING) == seen:
        time.sleep(0.05)
    victim = "w1" if run.result.run % 2 == 0 else "joiner"
    run.step(watcher, f"{victim} SIGKILL")
    run.kill(victim)
    run.result.notes.append(f"killed {victim}")
    return time.monotonic()


def _count(log: Path, line: bytes) -> int:
    try:
        return log.read_bytes().count(line)
    except OSError:
        return 0


FAULTS: dict[str, Callable[[Run, Watcher], float]] = {
    "broker_restart": broker_restart,
    "join_leave": join_leave,
    "kill_in_rebalance": kill_in_rebalance,
}


@contextlib.contextmanager
def _fault_flow(work: Path) -> Iterator[tuple[LocalBroker, str, Any]]:
    with running_server() as server, local_broker(start_timeout_s=120) as broker:
        ensure_topics(broker.connection)
        yield broker, server.base_url, server


def run_scenario(
    scenario: str,
    work: Path,
    *,
    run: int = 0,
    articles: int = 200,
    publish_over_s: float = 0.0,
    seed: int = 11,
) -> RunResult:
    """One run of ``scenario`` on a fresh broker; every process it starts is stopped, also
    when the run fails. ``publish_over_s`` spreads the articles over that many seconds (a
    stream that outlasts the faults) instead of publishing them all at once (a backlog)."""
    cases = make_articles(articles, seed=seed + run)
    for case in cases:
        _ = case.answers  # build the scripted answers before anything starts
    result = RunResult(scenario, run, articles)
    work.mkdir(parents=True, exist_ok=True)
    with _fault_flow(work) as (broker, provider_url, server):
        server.respond_with(delayed(responder(cases, PRIMARY, FALLBACK), ANSWER_S))
        flow = Flow(broker.connection, work, provider_url)
        r = Run(broker, flow, cases, result)
        held = max(FEEDS, int(len(cases) * RESERVE))
        main, r.reserve, r.feed_size = cases[:-held], cases[-held:], held // FEEDS
        try:
            r.start_worker("w1")
            with (
                Watcher(broker.connection, [c.article_id for c in cases]) as watcher,
                _publishing(flow, main, publish_over_s, r.main_published),
            ):
                r.published_at = time.monotonic()
                r.wait_settled(watcher, max(1, int(len(main) * FAULT_AT)))
                fault_over = FAULTS[scenario](r, watcher)
                r.publish_reserve()
                r.finish(watcher, fault_over)
                r.verify(watcher)
        except WorkerStartError as error:  # a failed run to count, not the end of a soak
            result.problems.append(f"a worker did not start: {str(error).splitlines()[0]}")
        finally:
            r.stop_all()
    return result


@contextlib.contextmanager
def _publishing(
    flow: Flow, cases: list[CaseArticle], over_s: float, done: threading.Event
) -> Iterator[None]:
    """Publish ``cases`` now, or spread over ``over_s`` seconds from a thread; ``done`` is
    set once every case is on the broker."""
    if over_s <= 0:
        flow.publish_cases(cases)
        done.set()
        yield
        return
    chunks = max(1, int(over_s / 0.5))
    size = -(-len(cases) // chunks)
    stop = threading.Event()

    def trickle() -> None:
        for start in range(0, len(cases), size):
            while not stop.is_set():
                try:  # the broker may be down on purpose: publish the chunk again later
                    flow.publish_cases(cases[start : start + size])
                    break
                except (RuntimeError, KafkaException):
                    stop.wait(1.0)
            if stop.wait(0.5):
                return
        done.set()

    thread = threading.Thread(target=trickle, name="publisher", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=60)

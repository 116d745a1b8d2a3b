"""The consumer's side of the commit gate, without a broker: how
``article_runtime.streams.kafka.consumer.Consumer`` feeds ``CommitGate`` (records registered at
fetch, messages stamped with their assignment's epoch, acks counted in that epoch only, the flow's
stops and revocations closing the gate).

``test_commits.py`` checks the gate's rules on their own; these check that the consumer keeps
them where Faust calls it: a consumer that acked with the gate's current epoch, or that
stopped the flow without closing the gate, commits past work nobody did.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Iterator
from types import SimpleNamespace
from typing import Any, cast

import pytest
from aiokafka.errors import IllegalStateError, KafkaError
from aiokafka.structs import ConsumerRecord, OffsetAndMetadata
from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import TP, Message
from faust.types.tuples import ConsumerMessage

import article_runtime.streams.kafka.consumer as streams_consumer
from article_runtime.streams.kafka.commits import DELIVERED, RECEIVED, CommitGate
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.consumer import (
    DROP_ONCE_ENV,
    RECOVERY_STALL_S,
    Consumer,
    DeliverySensor,
    InFlightWork,
    epoch_of,
    stamp,
)
from article_runtime.streams.service.settings import WorkerSettings
from article_runtime.streams.worker.app import create_app

INPUT = TP("article.ingested", 0)


def record(tp: TP, offset: int) -> ConsumerRecord[bytes, bytes]:
    return ConsumerRecord(
        topic=tp.topic,
        partition=tp.partition,
        offset=offset,
        timestamp=1_700_000_000_000,
        timestamp_type=0,
        key=b"k",
        value=b"v",
        checksum=None,
        serialized_key_size=1,
        serialized_value_size=1,
        headers=(),
    )


@pytest.fixture
def consumer(monkeypatch: pytest.MonkeyPatch) -> Iterator[Consumer]:
    """The worker's own consumer, as ``create_app`` builds it, never connected: the Kafka
    client's fetch returns what ``fetch`` below hands it, and rebalance callbacks reach no
    table or agent. It gets its own event loop: Faust asks for the current one, which Python
    3.12+ no longer makes (alone, these tests failed with 'There is no current event loop')."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    w = create_app(WorkerSettings(KafkaConnection("127.0.0.1:9")), None)
    made = cast(Consumer, w.app.consumer)

    async def nothing(*_: Any, **__: Any) -> None:
        return None

    monkeypatch.setattr(made, "_on_partitions_assigned", nothing)
    monkeypatch.setattr(made, "commit_and_end_transactions", nothing)
    monkeypatch.setattr(w.app.topics, "acks_enabled_for", lambda topic: topic == INPUT.topic)
    try:
        yield made
    finally:
        made._thread.thread_loop.close()
        loop.close()
        asyncio.set_event_loop(None)


def fetch(
    consumer: Consumer,
    monkeypatch: pytest.MonkeyPatch,
    tp: TP,
    offsets: range,
    *,
    stop_meanwhile: bool = False,
) -> list[Message]:
    """One fetch of ``offsets`` through the consumer thread (which registers them with the
    gate), each record then turned into a message as Faust's fetcher does. With
    ``stop_meanwhile`` the flow stops while the client waits for the broker."""
    records = {tp: [record(tp, offset) for offset in offsets]}

    async def client_fetch(*_: Any, **__: Any) -> Any:
        if stop_meanwhile:
            consumer.stop_flow()
        return records

    monkeypatch.setattr(faust_aiokafka.AIOKafkaConsumerThread, "_fetch_records", client_fetch)
    fetched = asyncio.run(consumer._thread._fetch_records(None, {tp}))
    return [consumer._to_message(tp, r) for r in fetched[tp]]


def assign(consumer: Consumer) -> None:
    """A rebalance gave the worker its partitions, and the flow resumed."""
    asyncio.run(consumer.on_partitions_assigned({INPUT}))
    consumer.resume_flow()


def test_an_ack_from_an_old_assignment_does_not_commit_the_new_assignments_message(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a rebalance the same offsets are fetched again from the committed offset. A late
    ack of the old delivery is no evidence that the new one was processed: the consumer must
    ack with the message's epoch, not the gate's current one."""
    assign(consumer)
    (old,) = fetch(consumer, monkeypatch, INPUT, range(0, 1))
    consumer.stop_flow()
    assign(consumer)  # the next assignment, before the old message's work ended
    (new,) = fetch(consumer, monkeypatch, INPUT, range(0, 1))
    assert epoch_of(new) == cast(int, epoch_of(old)) + 1

    assert consumer.ack(old) is False
    assert consumer.gate.committable() == {INPUT: 0}  # still held by offset 0
    assert consumer.ack(new) is True
    assert consumer.gate.committable() == {INPUT: 1}


def test_acks_after_the_flow_stopped_do_not_count_until_it_resumes(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Faust stops the flow before it drops what it handed out (and acks what its streams
    skip): those acks must not move the commit. Resuming the flow makes acks count again."""
    assign(consumer)
    first, second = fetch(consumer, monkeypatch, INPUT, range(7, 9))

    consumer.stop_flow()
    assert not consumer.gate.open
    assert consumer.ack(first) is False
    assert consumer.gate.committable() == {INPUT: 7}

    consumer.resume_flow()
    assert consumer.gate.open
    assert consumer.ack(second) is True
    assert consumer.gate.committable() == {INPUT: 7}  # offset 7's ack was spent while stopped
    # Faust counts every first ack toward its commit-every trigger, counted or not; a second
    # ack of the same message is no ack at all.
    assert consumer._n_acked == 2
    assert consumer.ack(second) is False and consumer._n_acked == 2


def test_a_revocation_closes_the_gate_and_later_acks_do_not_count(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``wait_empty`` is Faust's revocation (and shutdown) step: from there on the partition
    may already be someone else's, and an ack of its work is not ours to commit."""
    assign(consumer)
    done, late = fetch(consumer, monkeypatch, INPUT, range(3, 5))
    assert consumer.ack(done) is True

    asyncio.run(consumer.wait_empty())
    assert not consumer.gate.open
    assert consumer.ack(late) is False
    assert consumer.gate.committable() == {INPUT: 4}


def test_a_revocation_says_how_much_work_it_abandoned_only_when_there_was_some(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    assign(consumer)
    (message,) = fetch(consumer, monkeypatch, INPUT, range(0, 1))

    async def main() -> None:
        running = asyncio.create_task(consumer.work.run(message, asyncio.sleep(10)))
        await asyncio.sleep(0.01)
        await consumer.wait_empty()
        assert await running is False

    asyncio.run(main())
    assert "abandoned 1 messages in flight" in caplog.text
    caplog.clear()
    asyncio.run(consumer.wait_empty())
    assert "abandoned" not in caplog.text


def test_records_returned_after_the_flow_stopped_are_not_owed(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records the client returns once the flow has stopped (it stopped while the fetch
    waited) are dropped by Faust, which seeks back to the committed offset: registering them
    would hold the commit for messages nobody will deliver in this epoch."""
    assign(consumer)
    (kept,) = fetch(consumer, monkeypatch, INPUT, range(0, 1))
    fetch(consumer, monkeypatch, INPUT, range(1, 3), stop_meanwhile=True)
    consumer.resume_flow()
    assert consumer.ack(kept) is True
    assert consumer.gate.holding() == {}  # nothing owed: 1 and 2 come again after the seek
    assert consumer.gate.committable() == {INPUT: 1}


def test_only_topics_the_agents_ack_are_registered(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table's changelog is read by recovery, never acked: owed, it would hold nothing
    back but would be counted as held."""
    assign(consumer)
    fetch(consumer, monkeypatch, TP("hygiene-ledger-changelog", 0), range(0, 5))
    assert consumer.gate.committable() == {}
    assert sum(consumer.gate.held().values()) == 0


def run_task(consumer: Consumer, task: Any, monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """Run one of the consumer's background tasks for ``n`` ticks of its timer."""

    async def timer(*args: Any, **kwargs: Any) -> AsyncIterator[float]:
        for _ in range(n):
            yield 0.0

    monkeypatch.setattr(consumer, "itertimer", timer)
    asyncio.run(task(consumer))


def test_a_message_dropped_before_an_agent_is_read_again_after_two_checks(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Offset 5 was read but never reached an agent while 6 did: Faust's fetcher dropped it.
    Seen at two checks in a row, its partition is read again from it; a message seen at one
    check only may still be on its way."""
    assign(consumer)
    dropped, later = fetch(consumer, monkeypatch, INPUT, range(5, 7))
    DeliverySensor(consumer.gate).on_stream_event_in(
        INPUT, later.offset, cast(Any, None), cast(Any, SimpleNamespace(message=later))
    )
    seeks: list[dict[TP, int]] = []

    async def seek_wait(offsets: dict[TP, int]) -> None:
        seeks.append(offsets)

    monkeypatch.setattr(consumer._thread, "seek_wait", seek_wait)
    run_task(consumer, Consumer._read_dropped_again, monkeypatch, 1)
    assert seeks == []  # one sighting: maybe still on its way
    run_task(consumer, Consumer._read_dropped_again, monkeypatch, 2)
    assert seeks == [{INPUT: dropped.offset}]
    consumer.stop_flow()
    run_task(consumer, Consumer._read_dropped_again, monkeypatch, 3)
    assert seeks == [{INPUT: dropped.offset}]  # not while the flow is stopped


def test_a_failed_read_again_is_logged_and_the_checks_go_on(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    assign(consumer)
    _, later = fetch(consumer, monkeypatch, INPUT, range(5, 7))
    consumer.gate.reached(epoch_of(later), INPUT, later.offset, RECEIVED)

    async def seek_wait(offsets: dict[TP, int]) -> None:
        raise RuntimeError("the consumer thread is gone")

    monkeypatch.setattr(consumer._thread, "seek_wait", seek_wait)
    run_task(consumer, Consumer._read_dropped_again, monkeypatch, 3)  # does not raise
    assert "reading" in caplog.text and "again from 5 failed" in caplog.text


def test_a_commit_held_back_by_the_same_offset_at_two_checks_is_reported(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    assign(consumer)
    fetch(consumer, monkeypatch, INPUT, range(3, 5))
    run_task(consumer, Consumer._report_held_back, monkeypatch, 1)
    assert "held back" not in caplog.text  # once is slow work, not yet worth a line
    run_task(consumer, Consumer._report_held_back, monkeypatch, 2)
    (line,) = [r.getMessage() for r in caplog.records if "held back" in r.getMessage()]
    assert "by offset 3" in line and "2 owed" in line and "as far as: read" in line
    caplog.clear()
    consumer.stop_flow()
    run_task(consumer, Consumer._report_held_back, monkeypatch, 3)
    assert "held back" not in caplog.text  # a stopped flow holds everything: no news


def test_delivery_notes_what_reached_the_queues_and_the_drop_switch_drops_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(DROP_ONCE_ENV, f"{INPUT.topic}:{INPUT.partition}:8")
    w = create_app(WorkerSettings(KafkaConnection("127.0.0.1:9")), None)
    consumer = cast(Consumer, w.app.consumer)
    monkeypatch.setattr(w.app.topics, "acks_enabled_for", lambda topic: topic == INPUT.topic)
    try:
        assign(consumer)
        eight, nine = fetch(consumer, monkeypatch, INPUT, range(8, 10))
        handed: list[int] = []

        async def deliver(message: Message) -> None:
            handed.append(message.offset)

        delivering = consumer._delivering(deliver)
        for message in (eight, nine, eight):
            asyncio.run(delivering(message))
    finally:
        consumer._thread.thread_loop.close()
    assert handed == [9, 8]  # 8 dropped the first time only
    assert consumer.gate.holding() == {INPUT: (8, 2, DELIVERED)}


def test_commits_count_only_when_the_broker_took_them(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assign(consumer)
    (done,) = fetch(consumer, monkeypatch, INPUT, range(0, 1))
    consumer.ack(done)
    answers = [False, True]

    async def commit_offsets(*_: Any, **__: Any) -> bool:
        return answers.pop(0)

    monkeypatch.setattr(faust_aiokafka.Consumer, "_commit_offsets", commit_offsets)
    assert list(consumer._filter_tps_with_pending_acks()) == [INPUT]
    assert list(consumer._filter_tps_with_pending_acks({INPUT.topic})) == [INPUT]
    assert list(consumer._filter_tps_with_pending_acks({INPUT})) == [INPUT]
    assert list(consumer._filter_tps_with_pending_acks({"other"})) == []
    assert asyncio.run(consumer._commit_offsets({INPUT: 1})) is False
    assert consumer._filter_committable_offsets([INPUT]) == {INPUT: 1}  # still to commit
    assert asyncio.run(consumer._commit_offsets({INPUT: 1})) is True
    assert consumer._filter_committable_offsets([INPUT]) == {}
    assert list(consumer._filter_tps_with_pending_acks()) == []


class FakeClient:
    """The aiokafka consumer as the consumer thread uses it for seeks and commits."""

    def __init__(self, assigned: set[TP], committed: dict[TP, int | None]) -> None:
        self.assigned, self._committed = assigned, committed
        self.seeks: dict[TP, int] = {}
        self.commits: list[dict[TP, OffsetAndMetadata]] = []
        self.refuse: Exception | None = None

    def assignment(self) -> set[TP]:
        return self.assigned

    async def committed(self, tp: TP) -> int | None:
        if self.refuse is not None:
            raise self.refuse
        return self._committed[tp]

    async def beginning_offsets(self, tps: list[TP]) -> dict[TP, int]:
        return {tp: 100 + tp.partition for tp in tps}

    def seek(self, tp: TP, offset: int) -> None:
        self.seeks[tp] = offset

    async def commit(self, offsets: dict[TP, OffsetAndMetadata]) -> None:
        if self.refuse is not None:
            raise self.refuse
        self.commits.append(offsets)


def test_every_input_partition_is_sought_to_its_commit_or_the_log_start(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """aiokafka leaves the position alone for a committed offset of 0 or none; after a seek
    back that left records fetched and dropped behind the position."""
    one, two, three = (TP(INPUT.topic, n) for n in (1, 2, 3))
    changelog = TP("hygiene-ledger-changelog", 0)
    client = FakeClient({INPUT, one, two, three, changelog}, {INPUT: 0, one: 7, two: None})
    client._committed[three] = -1  # what the broker says for no commit
    monkeypatch.setattr(consumer._thread, "_ensure_consumer", lambda: client)

    found = asyncio.run(consumer._thread._seek_to_committed())

    assert found == {INPUT: 0, one: 7, two: None, three: None}
    assert client.seeks == {INPUT: 0, one: 7, two: 102, three: 103}  # the changelog: recovery's

    client.refuse = IllegalStateError()  # revoked meanwhile: the next owner starts anew
    client.seeks.clear()
    asyncio.run(consumer._thread._seek_to_committed())
    assert client.seeks == {}


def test_only_assigned_partitions_are_committed_and_a_refused_commit_is_retried_later(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    other = TP(INPUT.topic, 1)
    client = FakeClient({INPUT}, {})
    monkeypatch.setattr(consumer._thread, "_ensure_consumer", lambda: client)
    monkeypatch.setattr(consumer._thread, "assignment", lambda: {INPUT})

    assert asyncio.run(consumer._thread._commit({INPUT: 4, other: 9})) is True
    assert client.commits == [{INPUT: OffsetAndMetadata(4, "")}]
    assert asyncio.run(consumer._thread._commit({other: 9})) is False  # nothing of ours
    client.refuse = KafkaError("coordinator moved")
    assert asyncio.run(consumer._thread._commit({INPUT: 5})) is False
    assert "commit of 1 partitions failed, retried later" in caplog.text
    assert len(client.commits) == 1


def test_table_recovery_that_hears_nothing_for_too_long_exits_the_worker(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch
) -> None:
    exits: list[str] = []
    monkeypatch.setattr(streams_consumer, "exit_without_commit", exits.append)
    recovery = cast(Any, consumer.app.tables).recovery
    now = [1000.0]
    monkeypatch.setattr(streams_consumer, "monotonic", lambda: now[0])
    monkeypatch.setattr(recovery, "_active_events_received_at", {INPUT: 990.0})
    monkeypatch.setattr(recovery, "_recovery_started_at", 900.0)
    monkeypatch.setattr(type(recovery), "in_recovery", True)
    monkeypatch.setattr(recovery, "need_recovery", lambda: True)

    run_task(consumer, Consumer._watch_recovery, monkeypatch, 1)
    assert exits == []  # the last event came 10 s ago
    now[0] = 990.0 + RECOVERY_STALL_S + 1
    run_task(consumer, Consumer._watch_recovery, monkeypatch, 1)
    assert len(exits) == 1 and f"{RECOVERY_STALL_S:.0f} s" in exits[0]
    monkeypatch.setattr(recovery, "_active_events_received_at", {})  # none yet: since start
    now[0] = 900.0 + RECOVERY_STALL_S - 1
    run_task(consumer, Consumer._watch_recovery, monkeypatch, 1)
    assert len(exits) == 1
    now[0] = 900.0 + RECOVERY_STALL_S + 1  # nothing received since recovery started
    run_task(consumer, Consumer._watch_recovery, monkeypatch, 1)
    assert len(exits) == 2


def test_what_is_done_for_a_message_counts_only_in_its_epoch_while_the_flow_runs() -> None:
    """``InFlightWork.counts`` is the ledger's question before it records an outcome: the same
    rule as the gate's for acks."""
    gate = CommitGate()
    work = InFlightWork(gate)
    gate.begin()
    message = ConsumerMessage("t", 0, 0, 0.0, 0, None, b"k", b"v", None, tp=INPUT)
    stamp(message, gate.epoch)
    assert not work.counts(message) and not work.flowing  # assigned, flow not resumed yet
    gate.resume()
    assert work.counts(message) and work.flowing
    gate.close()
    assert not work.counts(message) and not work.flowing
    gate.resume()
    gate.begin()
    gate.resume()
    assert work.flowing and not work.counts(message)  # an older epoch's message


def test_work_that_ignores_its_cancellation_is_reported_not_awaited(
    caplog: pytest.LogCaptureFixture,
) -> None:
    gate = CommitGate()
    gate.begin()
    gate.resume()
    work = InFlightWork(gate)
    message = ConsumerMessage("t", 0, 0, 0.0, 0, None, b"k", b"v", None, tp=INPUT)
    stamp(message, gate.epoch)

    stop = asyncio.Event()

    async def stubborn() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await stop.wait()  # ignores the cancellation until the test lets it go

    async def main() -> None:
        running = asyncio.create_task(work.run(message, stubborn()))
        await asyncio.sleep(0.01)
        assert len(work) == 1
        assert await work.abandon(timeout_s=0.05) == 1
        stop.set()
        await asyncio.wait_for(running, 1)

    asyncio.run(main())
    assert "1 abandoned tasks still running" in caplog.text


def test_work_waiting_for_a_stopped_flow_is_closed_when_its_caller_is_cancelled() -> None:
    """Shutdown cancels what waits for the flow: the work must not be left un-run and
    un-closed (it would never run, and Python would warn it was never awaited)."""
    gate = CommitGate()
    gate.begin()  # the flow is not running: run() waits
    work = InFlightWork(gate)
    message = ConsumerMessage("t", 0, 0, 0.0, 0, None, b"k", b"v", None, tp=INPUT)
    stamp(message, gate.epoch)

    async def job() -> None:
        raise AssertionError("must not run")

    async def main() -> Any:
        pending = job()
        waiting = asyncio.create_task(work.run(message, pending))
        await asyncio.sleep(0.01)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        return pending

    pending = asyncio.run(main())
    assert inspect.getcoroutinestate(pending) == inspect.CORO_CLOSED


def test_the_consumers_checks_run_as_background_tasks(consumer: Consumer) -> None:
    """The checks above are only as good as their running: each must be one of the tasks
    the consumer's service starts with it."""
    started = {task.fun.__name__ for task in consumer._get_tasks()}
    assert {"_report_held_back", "_read_dropped_again", "_watch_recovery"} <= started


def test_an_ack_wakes_whoever_waits_for_one_and_later_acks_do_no_harm(
    consumer: Consumer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Faust's commit waits on ``_waiting_for_ack``; resolving it twice would raise."""
    assign(consumer)
    first, second = fetch(consumer, monkeypatch, INPUT, range(0, 2))

    async def main() -> None:
        waiting: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        consumer._waiting_for_ack = waiting
        consumer.ack(first)
        assert waiting.done()
        consumer.ack(second)  # the future is already resolved: left alone

    asyncio.run(main())


def test_work_under_way_is_cancelled_with_its_caller() -> None:
    """Shutdown cancels the agent awaiting ``run``: the work it started must stop too, not
    go on writing behind the next owner's back."""
    gate = CommitGate()
    gate.begin()
    gate.resume()
    work = InFlightWork(gate)
    message = ConsumerMessage("t", 0, 0, 0.0, 0, None, b"k", b"v", None, tp=INPUT)
    stamp(message, gate.epoch)
    stopped = []

    async def job() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            stopped.append(True)
            raise

    async def main() -> None:
        caller = asyncio.create_task(work.run(message, job()))
        await asyncio.sleep(0.01)
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        await asyncio.sleep(0)  # the work's cancellation is delivered
        assert stopped == [True] and len(work) == 0

    asyncio.run(main())

"""The pieces of our Faust consumer that need no broker: the work a revocation abandons, and
flow control that does not drop what it handed out."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import TP
from faust.types.tuples import ConsumerMessage
from hypothesis import assume, example, given
from hypothesis import strategies as st
from mode.utils.queues import FlowControlQueue

from article_runtime.streams.kafka.commits import CommitGate
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.consumer import (
    DROP_ONCE_ENV,
    FETCH_MIN_BYTES,
    Consumer,
    FlowControl,
    InFlightWork,
    drop_once_from,
    epoch_of,
    recovery_stalled,
    stamp,
)
from article_runtime.streams.service.settings import StandInEntity, WorkerSettings
from article_runtime.streams.worker.app import create_app


def _stamped(epoch: int) -> Any:
    message = ConsumerMessage("t", 0, 0, 0.0, 0, None, b"k", b"v", None, tp=TP("t", 0))
    # what article_runtime.streams.kafka.consumer does to every message it hands out
    stamp(message, epoch)
    assert epoch_of(message) == epoch
    return message


def test_in_flight_work_runs_in_its_epoch_and_is_abandoned_when_it_ends() -> None:
    gate = CommitGate()
    gate.begin()
    gate.resume()
    work = InFlightWork(gate)
    finished: list[str] = []

    async def job(name: str, seconds: float) -> None:
        await asyncio.sleep(seconds)
        finished.append(name)

    async def main() -> None:
        quick = await work.run(_stamped(gate.epoch), job("quick", 0))
        slow = asyncio.create_task(work.run(_stamped(gate.epoch), job("slow", 5)))
        await asyncio.sleep(0.01)
        assert len(work) == 1
        gate.close()
        assert await work.abandon(timeout_s=1) == 1
        assert (quick, await slow) == (True, False)
        stale = _stamped(gate.epoch - 1)  # a message of an ended epoch never starts
        assert not await work.run(stale, job("stale", 0))

    asyncio.run(main())
    assert finished == ["quick"]


def test_work_of_the_current_epoch_waits_for_a_stopped_flow_instead_of_being_dropped() -> None:
    """Regression (make soak, broker restart): a message handed out in this epoch that reached
    its agent while the flow was stopped was skipped as if its epoch had ended; nothing
    delivered it again and its offset held the commit back forever."""
    gate = CommitGate()
    gate.begin()
    work = InFlightWork(gate)
    finished: list[str] = []

    async def job(name: str) -> None:
        finished.append(name)

    async def main() -> None:
        waiting = asyncio.create_task(work.run(_stamped(gate.epoch), job("resumed")))
        await asyncio.sleep(0.2)
        assert finished == [] and not waiting.done()  # not run while the flow is stopped
        gate.resume()
        assert await asyncio.wait_for(waiting, 1) is True
        # The same wait ends without running when the epoch ends instead: the next owner is
        # redelivered the message from the committed offset.
        gate.close()
        ended = asyncio.create_task(work.run(_stamped(gate.epoch), job("ended")))
        await asyncio.sleep(0.2)
        gate.begin()
        assert await asyncio.wait_for(ended, 1) is False

    asyncio.run(main())
    assert finished == ["resumed"]


def test_resuming_a_running_flow_keeps_what_the_queues_hold() -> None:
    """faust-streaming's recovery resumes the flow a second time after messages were handed
    out; its FlowControlEvent clears every queue on resume, dropping them."""

    async def main() -> None:
        flow = FlowControl()
        queue: FlowControlQueue[str] = FlowControlQueue(flow_control=flow, clear_on_resume=True)
        flow.resume()
        await queue.put("handed out")
        flow.resume()  # already running: nothing was buffered during a suspension
        assert queue.qsize() == 1
        flow.suspend()
        flow.resume()  # after a suspension, what was buffered is stale and dropped
        assert queue.qsize() == 0

    asyncio.run(main())


def test_recovery_counts_as_stalled_only_when_behind_and_silent_for_the_whole_period() -> None:
    def stalled(recovering: bool, behind: bool, silent_s: float) -> bool:
        return recovery_stalled(
            recovering=recovering,
            behind=behind,
            last_event_at=100.0,
            now=100.0 + silent_s,
            after_s=45.0,
        )

    assert stalled(True, True, 46.0)
    assert not stalled(True, True, 44.0)  # a slow changelog is not a stuck one
    assert not stalled(True, True, 45.0)  # silent for longer than the period, not as long
    assert not stalled(True, False, 300.0)  # caught up: nothing to receive
    assert not stalled(False, True, 300.0)  # not recovering


@given(
    st.text(st.sampled_from("abc.-_:"), min_size=1, max_size=20),
    st.integers(0, 10**6),
    st.integers(0, 10**12),
)
def test_the_drop_once_switch_names_one_message(topic: str, partition: int, offset: int) -> None:
    assume(not topic.endswith(":"))
    assert drop_once_from(f"{topic}:{partition}:{offset}") == (topic, partition, offset)


@given(st.text(max_size=30))
@example(":1:2")  # no topic
@example("t::2")  # no partition
@example("t:x:2")  # a partition that is no number
def test_the_drop_once_switch_refuses_anything_else_clearly(value: str) -> None:
    """Whatever the value: nothing (unset), one message it spells exactly, or a clear error."""
    try:
        named = drop_once_from(value)
    except ValueError as exc:
        assert DROP_ONCE_ENV in str(exc)
        return
    if named is None:
        assert value == ""
    else:
        topic, partition, offset = named
        spelled = value.rsplit(":", 2)
        assert topic == spelled[0] != ""
        assert (partition, offset) == (int(spelled[1]), int(spelled[2]))


@pytest.mark.parametrize(("calls", "queued"), [(1, 4), (8, 32), (128, 32)])
def test_every_agent_queue_holds_a_few_messages_per_call_in_flight(calls: int, queued: int) -> None:
    """A backlog stays on the broker: Faust's ``App.topic`` drops ``maxsize``, so without
    ``Wiring.topic`` making the topic itself every agent's queue would hold 4096 messages;
    and many calls in flight do not make the queues longer (32 at most)."""
    settings = WorkerSettings(
        KafkaConnection("127.0.0.1:9"),
        calls_in_flight=calls,
        ecp_standin=StandInEntity("Q1", "One"),  # its agent reads a queue too
    )
    w = create_app(settings, None)
    try:
        sizes = {
            name: aiter(agent.channel_iterator).queue.maxsize
            for name, agent in w.app.agents.items()
        }
    finally:
        cast(Consumer, w.app.consumer)._thread.thread_loop.close()
    assert sizes == dict.fromkeys(("hygiene", "assembly", "enrichment", "ecp_standin"), queued)


def test_the_worker_consumer_fetches_in_batches_of_its_settings() -> None:
    """Faust leaves aiokafka answering each fetch at the first record; the worker's consumer
    waits for ``FETCH_MIN_BYTES`` up to its fetch wait (what aiokafka's fetcher is built
    from when it starts)."""

    settings = WorkerSettings(KafkaConnection("127.0.0.1:9"), fetch_wait_ms=37)
    w = create_app(settings, None)
    thread = cast(Consumer, w.app.consumer)._thread

    async def made() -> tuple[int, int]:
        client = thread._create_worker_consumer(w.app.transport)
        try:
            return client._fetch_min_bytes, client._fetch_max_wait_ms
        finally:
            await client.stop()

    try:
        assert asyncio.run(made()) == (FETCH_MIN_BYTES, 37)
    finally:
        thread.thread_loop.close()  # made with the thread, which never starts here
    assert FETCH_MIN_BYTES > 1


def test_held_table_changes_are_confirmed_before_a_commit_and_at_every_revocation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ledger's changes wait for the commit (``article_runtime.streams.kafka.coalesced``): the
    consumer has them written and confirmed before it commits offsets, and when an assignment ends
    (revocation, shutdown) even with nothing to commit, so none outlives it."""
    w = create_app(WorkerSettings(KafkaConnection("127.0.0.1:9")), None)
    consumer = cast(Consumer, w.app.consumer)
    order: list[str] = []

    async def flush() -> None:
        await asyncio.sleep(0)  # a flush waits for the broker
        order.append("flushed")

    async def commit_offsets(*_: Any, **__: Any) -> bool:
        order.append("committed")
        return True

    async def commit_and_end_transactions() -> None:
        order.append("commit asked")

    try:
        assert consumer.before_commit == [cast(Any, w.ledger).flush]  # what create_app hooks
        consumer.before_commit[:] = [flush]
        monkeypatch.setattr(faust_aiokafka.Consumer, "_commit_offsets", commit_offsets)
        monkeypatch.setattr(consumer, "commit_and_end_transactions", commit_and_end_transactions)

        async def main() -> None:
            assert await consumer._commit_offsets({TP("article.ingested", 0): 5})
            await consumer.wait_empty()

        asyncio.run(main())
    finally:
        consumer._thread.thread_loop.close()
    assert order == ["flushed", "committed", "flushed", "commit asked"]

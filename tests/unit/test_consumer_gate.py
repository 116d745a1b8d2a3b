"""The consumer's side of the commit gate, without a broker: how ``streams.consumer.Consumer``
feeds ``CommitGate`` (records registered at fetch, messages stamped with their assignment's
epoch, acks counted in that epoch only, the flow's stops and revocations closing the gate).

``test_commits.py`` checks the gate's rules on their own; these check that the consumer keeps
them where Faust calls it: a consumer that acked with the gate's current epoch, or that
stopped the flow without closing the gate, commits past work nobody did.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, cast

import pytest
from aiokafka.structs import ConsumerRecord
from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import TP, Message

from streams.app import create_app
from streams.connection import KafkaConnection
from streams.consumer import Consumer, epoch_of
from streams.settings import WorkerSettings

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
    table or agent."""
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

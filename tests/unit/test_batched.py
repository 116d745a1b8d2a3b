"""Batched table changes (``streams.batched``): each key written once per batch, read through
before it is written, every message acked only after its changes are confirmed, and a batch of
an ended epoch never written."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, cast

from faust.types import TP
from faust.types.tuples import ConsumerMessage
from hypothesis import given, settings
from hypothesis import strategies as st

from streams.batched import BatchedChanges
from streams.commits import CommitGate
from streams.consumer import InFlightWork, stamp
from streams.wiring import Event


@dataclass
class _Event:
    message: Any


def _event(epoch: int, offset: int, partition: int = 0) -> Event:
    message = ConsumerMessage(
        "t", partition, offset, 0.0, 0, None, b"k", b"v", None, tp=TP("t", partition)
    )
    stamp(message, epoch)
    return cast(Event, _Event(message))


@dataclass
class FakeTable:
    """Writes land at once; each one is confirmed only when the test releases it."""

    data: dict[str, Any] = field(default_factory=dict)
    writes: list[tuple[str, Any, int]] = field(default_factory=list)
    released: asyncio.Event = field(default_factory=asyncio.Event)

    def get(self, key: Any, default: Any, /) -> Any:
        return self.data.get(key, default)

    def write(self, key: Any, value: Any, *, partition: int) -> None:
        self.data[key] = value
        self.writes.append((key, value, partition))

    async def confirmed(self, key: Any) -> None:
        await self.released.wait()


def _flowing() -> tuple[CommitGate, InFlightWork]:
    gate = CommitGate()
    gate.begin()
    gate.resume()
    return gate, InFlightWork(gate)


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


def test_messages_are_acked_only_once_their_batch_is_confirmed_each_key_written_once() -> None:
    acked: list[int] = []

    async def ack(event: Event) -> None:
        acked.append(event.message.offset)

    async def main() -> None:
        gate, work = _flowing()
        table = FakeTable()
        changes = BatchedChanges({"c": table}, ack=ack, work=work)
        writer = asyncio.ensure_future(changes.run())
        # The first message is sealed at once; the next three gather while it is confirmed.
        for offset in range(4):
            await changes.begin(_event(gate.epoch, offset, partition=offset % 2))
            count = changes.get("c", "n", 0) + 1  # reads through unwritten changes
            changes.set("c", "n", count, partition=offset % 2)
            if offset == 0:
                await _settle()
        await _settle()
        assert acked == [] and table.writes == [("n", 1, 0)]  # nothing confirmed yet
        table.released.set()
        await _settle()
        assert acked == [0, 1, 2, 3]
        # The batch of three wrote "n" once, its last value, on the last message's partition.
        assert table.writes == [("n", 1, 0), ("n", 4, 1)]
        writer.cancel()

    asyncio.run(main())


def test_a_batch_of_an_ended_epoch_is_dropped_unwritten_and_the_new_epoch_reads_the_table() -> (
    None
):
    acked: list[int] = []

    async def ack(event: Event) -> None:
        acked.append(event.message.offset)

    async def main() -> None:
        gate, work = _flowing()
        table = FakeTable(data={"n": 10})
        table.released.set()
        gate.close()  # the flow stops: the writer waits for it, holding its batch back
        changes = BatchedChanges({"c": table}, ack=ack, work=work)
        writer = asyncio.ensure_future(changes.run())
        old = gate.epoch
        await changes.begin(_event(old, 0))
        changes.set("c", "n", 11, partition=0)
        await _settle()
        await changes.begin(_event(old, 1))  # gathered while the first waits
        changes.set("c", "n", 12, partition=0)
        gate.begin()  # a rebalance: the old epoch ends before anything was written
        gate.resume()
        await changes.begin(_event(gate.epoch, 5))  # a message of the new epoch
        assert changes.get("c", "n", 0) == 10  # the old epoch's changes are gone
        changes.set("c", "n", 11, partition=0)
        for _ in range(10):
            await asyncio.sleep(0.06)  # InFlightWork polls a stopped flow every 50 ms
        assert table.writes == [("n", 11, 0)]  # only the new epoch's change, once
        assert 5 in acked
        writer.cancel()

    asyncio.run(main())


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("abcd"), st.integers(0, 5), st.booleans()), min_size=1, max_size=40
    )
)
def test_the_tables_end_as_if_every_change_had_been_written_one_by_one(
    changes_made: list[tuple[str, int, bool]],
) -> None:
    """Whatever the batches, each key ends with the value the last change gave it."""
    expected: dict[str, int] = {}
    acked: list[int] = []

    async def ack(event: Event) -> None:
        acked.append(event.message.offset)

    async def main() -> None:
        gate, work = _flowing()
        table = FakeTable()
        table.released.set()
        changes = BatchedChanges({"c": table}, ack=ack, work=work, max_pending=3)
        writer = asyncio.ensure_future(changes.run())
        for offset, (key, value, pause) in enumerate(changes_made):
            await changes.begin(_event(gate.epoch, offset))
            total = changes.get("c", key, 0) + value
            changes.set("c", key, total, partition=0)
            expected[key] = expected.get(key, 0) + value
            if pause:
                await _settle()
        while len(acked) < len(changes_made):
            await asyncio.sleep(0.001)
        assert table.data == expected
        assert sorted(acked) == list(range(len(changes_made)))
        writer.cancel()

    asyncio.run(main())

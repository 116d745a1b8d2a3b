"""Coalesced table writes: at most one record in flight per key, nothing acked before a
confirmed record holds it, and the table ends with the last value of every key."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from streams.coalesced import Coalesced


class Broker(dict[str, Any]):
    """A table whose records are confirmed when the test says so, in any order."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[tuple[str, Any]] = []
        self.unconfirmed: dict[str, asyncio.Event] = {}
        self.confirmed: dict[str, Any] = {}  # each key's last confirmed value

    def __setitem__(self, key: str, value: Any) -> None:
        assert key not in self.unconfirmed, f"two records of {key} in flight"
        super().__setitem__(key, value)
        self.records.append((key, value))
        self.unconfirmed[key] = asyncio.Event()

    async def confirm(self, key: str) -> None:
        waiting = self.unconfirmed.get(key)
        if waiting is not None:
            await waiting.wait()

    def release(self, key: str) -> None:
        self.confirmed[key] = self[key]
        self.unconfirmed.pop(key).set()


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


@settings(max_examples=200, deadline=None)
@given(
    changes=st.lists(
        st.tuples(st.sampled_from("abc"), st.integers(0, 99)), min_size=1, max_size=30
    ),
    data=st.data(),
)
def test_every_change_is_acked_only_once_a_confirmed_record_holds_it(
    changes: list[tuple[str, int]], data: st.DataObject
) -> None:
    async def scenario() -> None:
        broker = Broker()
        writes = Coalesced(broker, broker.confirm)
        tasks: list[tuple[str, int, asyncio.Task[None]]] = []
        made: dict[str, list[int]] = {}
        for key, value in changes:
            wait = writes.set(key, value)
            made.setdefault(key, []).append(value)
            assert writes.get(key) == value  # read back in the order made
            tasks.append((key, len(made[key]) - 1, asyncio.ensure_future(wait())))
            await settle()
            while broker.unconfirmed:
                if not data.draw(st.booleans()):
                    break
                broker.release(data.draw(st.sampled_from(sorted(broker.unconfirmed))))
                await settle()
            for k, n, task in tasks:
                if task.done():  # acked: a confirmed record holds change n of k, or a later one
                    held = broker.confirmed.get(k)
                    assert held in made[k][n:], (k, n, held)
        while broker.unconfirmed:
            broker.release(sorted(broker.unconfirmed)[0])
            await settle()
        await asyncio.gather(*(task for _, _, task in tasks))
        assert dict(broker) == {key: values[-1] for key, values in made.items()}
        assert len(broker.records) <= len(changes)
        assert writes.pending == 0

    asyncio.run(scenario())


def test_changes_made_while_a_record_is_in_flight_go_out_as_one() -> None:
    async def scenario() -> Broker:
        broker = Broker()
        writes = Coalesced(broker, broker.confirm)
        first = asyncio.ensure_future(writes.set("k", 1)())
        await settle()
        later = [asyncio.ensure_future(writes.set("k", n)()) for n in (2, 3, 4)]
        await settle()
        assert broker.records == [("k", 1)]  # the others wait for it
        broker.release("k")
        await settle()
        assert first.done() and not any(t.done() for t in later)
        broker.release("k")
        await asyncio.gather(first, *later)
        return broker

    assert asyncio.run(scenario()).records == [("k", 1), ("k", 4)]


def test_changes_of_an_ended_assignment_are_never_written() -> None:
    async def scenario() -> Broker:
        broker = Broker()
        writes = Coalesced(broker, broker.confirm)
        first = asyncio.ensure_future(writes.set("k", 1)())
        await settle()
        dropped = asyncio.ensure_future(writes.set("k", 2)())
        await settle()
        writes.forget()  # the partition was revoked: its messages will be redelivered
        assert writes.get("k") == 1  # what the table holds
        broker.release("k")
        await asyncio.gather(first, dropped)
        return broker

    assert asyncio.run(scenario()).records == [("k", 1)]

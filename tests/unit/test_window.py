"""In-flight window: bounded work, each message acked once its own work is done."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, cast

import pytest
from faust.types import TP
from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.streams.kafka.window import InFlight, KeyedLocks
from article_runtime.streams.service.wiring import Event


@dataclass
class _Message:
    tp: TP
    offset: int


@dataclass
class _Event:
    message: _Message


def event(partition: int, offset: int) -> Event:
    return cast(Event, _Event(_Message(TP("t", partition), offset)))


def test_each_message_is_acked_when_its_own_work_is_done_never_before() -> None:
    acked: list[int] = []
    running = 0
    most = 0
    delays = {0: 0.05, 1: 0.0, 2: 0.02, 3: 0.0}  # offset 0 is the slowest

    async def ack(e: Any) -> None:
        acked.append(e.message.offset)

    async def work(offset: int) -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(delays[offset])
        assert offset not in acked  # not acked while its work runs
        running -= 1

    async def main() -> None:
        window = InFlight(limit=2, ack=ack)
        for offset in range(4):
            await window.submit(event(0, offset), work(offset))
        await window.drain()

    asyncio.run(main())
    assert sorted(acked) == [0, 1, 2, 3]
    assert acked.index(1) < acked.index(0)  # a slow message holds back no other ack
    assert most == 2  # never more than the limit at once


@settings(max_examples=150, deadline=None)
@given(
    limit=st.integers(1, 6),
    budget=st.integers(1, 100),
    jobs=st.lists(st.tuples(st.integers(0, 150), st.integers(0, 3)), min_size=1, max_size=25),
)
def test_a_budget_bounds_the_weight_in_flight_and_still_runs_every_message(
    limit: int, budget: int, jobs: list[tuple[int, int]]
) -> None:
    """Any weights (some heavier than the whole budget, some none) and any durations: the
    weight in flight never passes the budget but for one heavy message alone, the count never
    passes the limit, every message runs and is acked once, and nothing is held at the end."""
    acked: list[int] = []
    running: dict[int, int] = {}
    seen: list[tuple[int, int, int]] = []  # (messages, weighing ones, weight) at every start

    async def ack(e: Any) -> None:
        acked.append(e.message.offset)

    async def work(offset: int, weight: int, ticks: int) -> None:
        running[offset] = weight
        weights = running.values()
        seen.append((len(running), sum(1 for w in weights if w), sum(weights)))
        for _ in range(ticks):
            await asyncio.sleep(0)
        del running[offset]

    async def main() -> InFlight:
        window = InFlight(limit=limit, ack=ack, budget=budget)
        for offset, (weight, ticks) in enumerate(jobs):
            await window.submit(event(0, offset), work(offset, weight, ticks), weight=weight)
        await window.drain()
        return window

    window = asyncio.run(main())
    assert sorted(acked) == list(range(len(jobs)))
    for count, weighing, weight in seen:
        assert count <= limit
        assert weight <= budget or weighing == 1, (count, weighing, weight)
    assert window.weight == 0


def test_a_message_heavier_than_the_budget_waits_for_the_rest_then_runs_alone() -> None:
    order: list[str] = []

    async def ack(e: Any) -> None:
        order.append(f"ack {e.message.offset}")

    async def work(offset: int, delay: float) -> None:
        order.append(f"start {offset}")
        await asyncio.sleep(delay)
        order.append(f"end {offset}")

    async def main() -> None:
        window = InFlight(limit=8, ack=ack, budget=10)
        await window.submit(event(0, 0), work(0, 0.02), weight=4)
        await window.submit(event(0, 1), work(1, 0.0), weight=50)  # waits for 0 to end
        await window.submit(event(0, 2), work(2, 0.0), weight=1)  # waits for 1 to end
        await window.drain()

    asyncio.run(main())
    assert order.index("end 0") < order.index("start 1") < order.index("end 1")
    assert order.index("end 1") < order.index("start 2")


def test_a_submit_abandoned_while_waiting_for_room_gives_its_slot_back() -> None:
    """A rebalance cancels the agent while it waits for room: the slot it took must not be
    lost, or the window would shrink by one at every rebalance."""

    async def ack(e: Any) -> None:
        return None

    async def main() -> None:
        window = InFlight(limit=2, ack=ack, budget=10)
        gate = asyncio.Event()

        async def held() -> None:
            await gate.wait()

        await window.submit(event(0, 0), held(), weight=10)
        waiting = asyncio.create_task(window.submit(event(0, 1), held(), weight=5))
        await asyncio.sleep(0.01)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        gate.set()
        await window.drain()
        assert window.weight == 0
        # Both slots are free again: two held messages are taken at once, neither waits.
        again = asyncio.Event()

        async def until_released() -> None:
            await again.wait()

        await window.submit(event(0, 2), until_released(), weight=1)
        await asyncio.wait_for(window.submit(event(0, 3), until_released(), weight=1), 1.0)
        again.set()
        await window.drain()

    asyncio.run(main())


def test_keyed_locks_serialize_one_key_and_forget_it_afterwards() -> None:
    locks = KeyedLocks()
    trace: list[str] = []

    async def hold(key: str, name: str) -> None:
        async with locks.hold(key):
            trace.append(f"{name} in")
            await asyncio.sleep(0.01)
            trace.append(f"{name} out")

    async def main() -> None:
        await asyncio.gather(hold("a", "1"), hold("a", "2"), hold("b", "3"))

    asyncio.run(main())
    assert trace.index("1 out") < trace.index("2 in")  # same key: one at a time
    assert trace.index("3 in") < trace.index("1 out")  # another key runs alongside
    assert len(locks) == 0

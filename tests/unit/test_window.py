"""In-flight window: bounded work, each message acked once its own work is done."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, cast

from faust.types import TP

from streams.window import InFlight, KeyedLocks
from streams.wiring import Event


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

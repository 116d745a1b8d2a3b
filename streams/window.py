"""Many messages in flight in one agent, acked strictly in offset order per partition.

faust-streaming's agent ``concurrency=N`` can commit an offset past a message still in flight
(bug #606), and a crash then loses that message. Here the agent stays a single actor on a
manual-ack stream: each message's work runs as a task, at most ``limit`` at once, and a
message is acked only when it and every earlier message of its partition are done. The
committed offset therefore never passes a message whose outputs are not on the broker.

A slow message holds back the acks behind it (not the work): finished messages wait, at most
``backlog`` of them, before intake pauses.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from faust.types import TP

from streams.wiring import Event, exit_without_commit


@dataclass
class _Entry:
    event: Event
    done: bool = False


@dataclass
class InFlight:
    """The window; ``ack`` is the stream's manual ack."""

    limit: int
    ack: Callable[[Event], Awaitable[Any]]
    backlog_factor: int = 4
    _running: asyncio.Semaphore = field(init=False)
    _pending: asyncio.Semaphore = field(init=False)
    _order: dict[TP, deque[_Entry]] = field(default_factory=dict)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._running = asyncio.Semaphore(self.limit)
        self._pending = asyncio.Semaphore(self.limit * self.backlog_factor)

    async def submit(self, event: Event, work: Coroutine[Any, Any, None]) -> None:
        """Start ``work`` for ``event`` once a slot is free (this is the back-pressure)."""
        await self._pending.acquire()
        await self._running.acquire()
        entry = _Entry(event)
        self._order.setdefault(event.message.tp, deque()).append(entry)
        task = asyncio.create_task(self._run(entry, work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, entry: _Entry, work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except Exception:  # work never raises by contract; acking past it would lose it
            exit_without_commit("in-flight work raised")
        finally:
            self._running.release()
        entry.done = True
        queue = self._order[entry.event.message.tp]
        while queue and queue[0].done:
            await self.ack(queue.popleft().event)
            self._pending.release()

    @property
    def in_flight(self) -> int:
        return len(self._tasks)

    async def drain(self) -> None:
        """Wait for every submitted message (tests; Faust cancels tasks on shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks))


class KeyedLocks:
    """One lock per key, dropped when nobody holds or awaits it: serializes one article's
    messages inside a window while different articles run side by side."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._users[key] = self._users.get(key, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[key] -= 1
            if not self._users[key]:
                del self._users[key], self._locks[key]

    def __len__(self) -> int:
        return len(self._locks)

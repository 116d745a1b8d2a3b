"""Many messages in flight in one agent, each acked as soon as its work is done.

faust-streaming's agent ``concurrency=N`` runs N copies of the agent (bug #606: it could
commit past a message still in flight, and copies cannot share a table). Here the agent stays
a single actor on a manual-ack stream: each message's work runs as a task, at most ``limit``
at once, and the message is acked when its work has finished (its outputs are on the broker).
Acks may come out of offset order: which offsets are committed is decided by
``streams.commits.CommitGate``, never past a message still in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from streams.crash import exit_without_commit
from streams.wiring import Event


@dataclass
class InFlight:
    """The window; ``ack`` is the stream's manual ack."""

    limit: int
    ack: Callable[[Event], Awaitable[Any]]
    _running: asyncio.Semaphore = field(init=False)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._running = asyncio.Semaphore(self.limit)

    async def submit(self, event: Event, work: Coroutine[Any, Any, None]) -> None:
        """Start ``work`` for ``event`` once a slot is free (this is the back-pressure)."""
        await self._running.acquire()
        task = asyncio.create_task(self._run(event, work))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, event: Event, work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except Exception:  # work never raises by contract; acking past it would lose it
            exit_without_commit("in-flight work raised")
        finally:
            self._running.release()
        await self.ack(event)

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

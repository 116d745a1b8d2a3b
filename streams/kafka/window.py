"""Many messages in flight in one agent, each acked as soon as its work is done.

faust-streaming's agent ``concurrency=N`` runs N copies of the agent (bug #606: it could
commit past a message still in flight, and copies cannot share a table). Here the agent stays
a single actor on a manual-ack stream: each message's work runs as a task, at most ``limit``
at once, and the message is acked when its work has finished (its outputs are on the broker).
Acks may come out of offset order: which offsets are committed is decided by
``article_runtime.streams.kafka.commits.CommitGate``, never past a message still in flight.

A count alone does not bound memory: many calls in flight (what keeps a worker busy while
models take seconds to answer) of multi-MiB pages would hold gigabytes. So a window may also
take a ``budget``: the summed weight (the messages' bytes) it holds at once. A message
heavier than the whole budget still runs, alone, so no page is refused for its size here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from faust.types import EventT

from article_runtime.streams.kafka.crash import exit_without_commit

Event = EventT[bytes]  # every topic carries raw Avro bytes, decoded by our codec


@dataclass
class InFlight:
    """The window; ``ack`` is the stream's manual ack; ``budget`` (optional) bounds the
    summed ``weight`` of the messages in flight."""

    limit: int
    ack: Callable[[Event], Awaitable[Any]]
    budget: int | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _working: int = 0  # messages whose work runs (their tasks may still be acking)
    _weight: int = 0
    _freed: asyncio.Event = field(default_factory=asyncio.Event)

    async def submit(
        self, event: Event, work: Coroutine[Any, Any, None], *, weight: int = 0
    ) -> None:
        """Start ``work`` for ``event`` once a slot and ``weight`` of the budget are free
        (this is the back-pressure: the agent takes no other message meanwhile)."""
        try:
            while not self._fits(weight):
                self._freed.clear()
                await self._freed.wait()
        except BaseException:  # abandoned while waiting (a rebalance): it never runs
            work.close()
            raise
        self._working += 1
        self._weight += weight
        task = asyncio.create_task(self._run(event, work, weight))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _fits(self, weight: int) -> bool:
        if self._working >= self.limit:
            return False
        if self.budget is None or self._weight == 0:
            return True  # no budget, or nothing else weighs: even the heaviest runs
        return self._weight + weight <= self.budget

    async def _run(self, event: Event, work: Coroutine[Any, Any, None], weight: int) -> None:
        try:
            await work
        except Exception:  # work never raises by contract; acking past it would lose it
            exit_without_commit("in-flight work raised")
        finally:
            self._working -= 1
            self._weight -= weight
            self._freed.set()
        await self.ack(event)

    @property
    def in_flight(self) -> int:
        return len(self._tasks)

    @property
    def weight(self) -> int:
        """The summed weight of the messages in flight now."""
        return self._weight

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

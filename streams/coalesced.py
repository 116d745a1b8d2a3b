"""Table writes with at most one changelog record in flight per key.

The ledger changes two tables for every message of the flow: the article's lineage and its
partition's counters. Each change was a changelog record of its own, produced and confirmed
one by one, and most were overwritten a moment later (a busy partition bumps its counters on
every message; hygiene takes a page and makes its fallback events and its article at once).
Here a change goes out at once when its key has no record in flight, and otherwise waits for that
record and then goes out together with every change made meanwhile, as the key's next record:
under load a hot key writes one record per round trip instead of one per message, and a quiet
flow writes as before, without waiting.

What holds, as with a write per change:
- a message is acked only once a record holding its change is confirmed (``durable``);
- changes are read back in the order they were made (``get`` reads through what is pending);
- a record is produced in the task of a message that changed the key, so Faust sends it to
  that message's changelog partition (keys here follow their source partition);
- changes of an assignment that ended are dropped unwritten (``forget``): their messages are
  redelivered to the partition's next owner, which makes them again on what the table holds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Coalesced:
    """One table's writes; ``set`` in message order, then await what it returns."""

    table: MutableMapping[str, Any]
    confirm: Callable[[str], Awaitable[None]]  # until the key's latest record is confirmed
    _latest: dict[str, tuple[int, Any]] = field(default_factory=dict)  # not yet confirmed
    _confirmed: dict[str, int] = field(default_factory=dict)  # of keys in _latest
    _writing: dict[str, asyncio.Future[None]] = field(default_factory=dict)
    _changes: int = 0

    def get(self, key: str, default: Any = None) -> Any:
        """The value ``key`` has with every change made so far."""
        if key in self._latest:
            return self._latest[key][1]
        return self.table.get(key, default)

    def set(self, key: str, value: Any) -> Callable[[], Awaitable[None]]:
        """Change ``key``; the result waits until a record holding this change is confirmed."""
        self._changes += 1
        change = self._changes
        self._latest[key] = (change, value)
        return lambda: self.durable(key, change)

    async def durable(self, key: str, change: int) -> None:
        """Until ``change`` of ``key`` is in a confirmed record: written now when no record of
        the key is in flight, else with the next one."""
        while key in self._latest and self._confirmed.get(key, 0) < change:
            writing = self._writing.get(key)
            if writing is not None:
                await asyncio.shield(writing)
            else:
                await self._write(key)
        # Not pending any more: confirmed (or forgotten with its assignment, and redelivered).

    async def _write(self, key: str) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._writing[key] = done
        change, value = self._latest[key]
        try:
            self.table[key] = value
            await self.confirm(key)
            if self._latest.get(key, (None,))[0] == change:
                del self._latest[key]  # nothing newer: the table holds the value
                self._confirmed.pop(key, None)
            elif key in self._latest:
                self._confirmed[key] = change
        finally:
            del self._writing[key]
            done.set_result(None)

    def forget(self) -> None:
        """Drop every change not yet written: the assignment they were made in ended."""
        self._latest.clear()
        self._confirmed.clear()

    @property
    def pending(self) -> int:
        return len(self._latest)

"""Table changes of many messages written together, each key once, acked once confirmed.

The ledger makes two table changes per message of every topic (the article's lineage and a
counter), and each change was a changelog record of its own, produced, confirmed and waited
for one by one: more than half of everything a worker produced, and a third of its CPU
(``make bench-stream``). Many of those changes overwrite one another soon after: under load,
one batch of messages bumps the same counters and appends to the same articles' lineage.

``BatchedChanges`` keeps the changes of the messages handled since the last write in memory
(later messages read through them), and one writer task writes each changed key once, with the
value the last message left, waits until the broker has confirmed every record, and only then
acks the batch's messages. While one batch is being confirmed the next one gathers, so batches
grow with the load and a lone message is written at once. What a consumer of the changelog
sees is each key's latest value, as before; what is no longer written is the intermediate
values nobody would have read.

Guarantees kept: a message is acked only after every change it made is confirmed (at-least-once:
a crash before that redelivers it); a batch whose assignment epoch ended before it was written
is dropped, not written behind the new owner's back (its messages are redelivered to the new
owner, as any unacked message is); changes go to the changelog partition of the message that
made them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Container, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from faust.types import Message

from streams.consumer import epoch_of
from streams.crash import exit_without_commit
from streams.wiring import Event

MAX_PENDING = 1024  # messages gathered before the reader waits for the writer


class Writable(Protocol):
    """What a batch needs of a table (``streams.tables.StateTable``)."""

    def get(self, key: Any, default: Any, /) -> Any: ...
    def write(self, key: Any, value: Any, *, partition: int) -> None: ...
    async def confirmed(self, key: Any) -> None: ...


class Work(Protocol):
    """Runs work for a delivered message unless its epoch ended (``InFlightWork``)."""

    async def run(self, message: Message, work: Coroutine[Any, Any, None]) -> bool: ...


@dataclass
class Batch:
    """Messages handled together and the value each changed key ends with."""

    events: list[Event] = field(default_factory=list)
    values: dict[tuple[str, str], tuple[int, Any]] = field(default_factory=dict)


class BatchedChanges:
    """Changes to ``tables`` (by name) gathered per batch; ``run`` is the writer task."""

    def __init__(
        self,
        tables: Mapping[str, Writable],
        *,
        ack: Callable[[Event], Awaitable[Any]],
        work: Work,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self.tables, self.ack, self.work, self.max_pending = tables, ack, work, max_pending
        self._pending = Batch()
        self._writing = Batch()  # sealed, being written: still read through until confirmed
        self._has_pending = asyncio.Event()
        self._room = asyncio.Event()
        self._room.set()
        self._epoch: int | None = None  # of the messages gathered

    # -- the reader's side: begin, get and set, then the next message ----------------------

    async def begin(self, event: Event) -> None:
        """``event``'s changes follow; it is acked once they are confirmed.

        Waits while ``max_pending`` messages already wait for the writer (back-pressure). A
        message of another epoch than the batch gathered so far means that batch's epoch
        ended: its messages will be redelivered to whoever owns their partitions now, so its
        changes are dropped unwritten."""
        await self._room.wait()
        epoch = epoch_of(event.message)
        if epoch != self._epoch:
            # Neither the batch gathering nor the one the writer holds is read through any
            # longer: the writer will find its epoch over and not write it.
            self._pending, self._writing, self._epoch = Batch(), Batch(), epoch
        self._pending.events.append(event)
        self._has_pending.set()
        if len(self._pending.events) >= self.max_pending:
            self._room.clear()

    def get(self, table: str, key: str, default: Any = None) -> Any:
        """The value ``key`` has once everything handled so far is written."""
        for batch in (self._pending, self._writing):
            if (table, key) in batch.values:
                return batch.values[(table, key)][1]
        return self.tables[table].get(key, default)

    def set(self, table: str, key: str, value: Any, *, partition: int) -> None:
        """Change ``key``; its changelog record goes to ``partition`` (the message's)."""
        self._pending.values[(table, key)] = (partition, value)

    def held(self, table: str) -> Container[str]:
        """Keys of ``table`` changed and not confirmed yet (expiry must not drop them)."""
        return _Held(self, table)

    def is_held(self, table: str, key: str) -> bool:
        return (table, key) in self._pending.values or (table, key) in self._writing.values

    # -- the writer -------------------------------------------------------------------------

    async def run(self) -> None:
        """Forever: seal what is pending, write it, wait for the broker, ack its messages."""
        while True:
            await self._has_pending.wait()
            self._has_pending.clear()
            if not self._pending.events:
                continue
            batch, self._pending = self._pending, Batch()
            self._writing = batch
            self._room.set()
            try:
                await self.work.run(batch.events[0].message, self._write(batch))
            except asyncio.CancelledError:
                raise
            except Exception:  # a change the broker refused: nothing may be acked past it
                exit_without_commit("ledger table changes failed")
            finally:
                if self._writing is batch:
                    self._writing = Batch()
            for event in batch.events:
                await self.ack(event)  # an ack of an ended epoch counts for nothing

    async def _write(self, batch: Batch) -> None:
        """Each key once, then every confirmation (runs only in the batch's own epoch)."""
        waits = []
        for (table, key), (partition, value) in batch.values.items():
            self.tables[table].write(key, value, partition=partition)
            waits.append(self.tables[table].confirmed(key))
        await asyncio.gather(*waits)


@dataclass(frozen=True)
class _Held:
    changes: BatchedChanges
    table: str

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.changes.is_held(self.table, key)

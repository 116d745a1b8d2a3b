"""Table changes held until the next commit, then written together: one record per key.

The ledger changes three tables for every message of the flow: the article's lineage, its
partition's counters and, for a terminal event, the recent terminals. Written and confirmed
one message at a time, they were about five of the thirteen records an article costs, and
most were overwritten a moment later (a busy partition bumps its counters on every message;
an article's lineage changes with each of its messages). Nothing the flow produces depends on
them, so they follow the rule Kafka Streams keeps for its state stores: a change is made in
memory at once (the views read it there), and its record is written and confirmed before the
next commit of the offsets, which is when the input that made it stops being redelivered.
Between two commits a key's changes go out as one record holding the latest value.

What holds, as with a record per change:
- no input offset is committed before a confirmed record holds every change its message made
  (the consumer awaits ``flush`` before each commit, and at a revocation or shutdown);
- changes are read back at once, in the order they were made (the table holds them);
- a record goes to the changelog partition the change was made for (keys here follow their
  source partition), though it is sent from the commit, outside the message; changes are made
  only for messages of the running assignment
  (``article_runtime.streams.kafka.consumer.InFlightWork.counts``), and its end (revocation,
  shutdown) flushes them before its last commit, so none is written to a partition the worker no
  longer owns;
- a worker that dies between two commits loses the held changes and its uncommitted offsets
  together: its successor is redelivered those messages and records them.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, Protocol


class HeldTable(Protocol):
    """What ``Coalesced`` needs of a table (``article_runtime.streams.kafka.tables.StateTable``)."""

    def get(self, key: Any, default: Any, /) -> Any: ...

    def hold(self, key: str, value: Any) -> bytes: ...

    def send_held(self, key: str, held: bytes, partition: int) -> None: ...

    def all_confirmed(self) -> Awaitable[None]: ...


@dataclass
class Coalesced:
    """One table's changes; ``set`` them as messages make them, ``flush`` before a commit."""

    table: HeldTable
    _held: dict[str, tuple[int, bytes]] = field(default_factory=dict)  # key: partition, value

    def get(self, key: str, default: Any = None) -> Any:
        """The value ``key`` has with every change made so far."""
        return self.table.get(key, default)

    def set(self, key: str, value: Any, partition: int) -> None:
        """Change ``key`` now; its record (to ``partition``'s changelog) goes with the next
        ``flush``."""
        self._held[key] = (partition, self.table.hold(key, value))

    async def flush(self) -> None:
        """Write every key changed since the last flush, its latest value, and return once the
        broker has confirmed every record of the table sent so far: these, and those of a
        flush still waiting (a periodic commit's beside a revocation's). Changes made
        meanwhile wait for the next flush."""
        held, self._held = self._held, {}
        for key, (partition, value) in held.items():
            self.table.send_held(key, value, partition)
        await self.table.all_confirmed()

    @property
    def pending(self) -> int:
        return len(self._held)

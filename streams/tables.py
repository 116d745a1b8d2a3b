"""Faust tables as the agents use them: per-article state that is confirmed and expires.

Two things Faust's ``Table`` does not offer:
- Waiting for one change to be durable. A change goes to the changelog through the
  producer's buffer, and Faust commits source offsets without waiting for it: a crash could
  keep the commit and lose the change. Agents await ``confirmed`` before their input is acked
  (and the enrichment agent before it produces an output that depends on the change).
- Forgetting. Per-article state (ladder, join, lineage) would grow without bound in a
  long-running worker; ``expire`` drops keys untouched for the retention period, one source
  partition at a time, from inside the owning agent (a deletion is a changelog tombstone on
  the current event's partition, so only that partition's keys may go).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import Any, cast

import faust
from faust.types import FutureMessage
from faust.types.tables import TableT

from streams.topics import PARTITIONS, partition_of

SWEEP_EVERY_S = 60.0  # at most, per partition: a sweep scans every key of the table


def expired(
    keys: Iterable[str],
    touched: dict[str, float],
    *,
    partition: int,
    now: float,
    max_age_s: float,
    partition_of: Callable[[str], int] = partition_of,
) -> list[str]:
    """Keys of ``partition`` untouched for longer than ``max_age_s``.

    A key with no recorded touch (restored from the changelog after a restart) counts as
    touched now: state is never dropped earlier than the retention period after start.
    """
    old = []
    for key in keys:
        if partition_of(key) != partition:
            continue
        if now - touched.setdefault(key, now) > max_age_s:
            old.append(key)
    return old


class StateTable(faust.Table):  # type: ignore[type-arg]  # faust.Table's parameters are not public
    def __post_init__(self) -> None:
        super().__post_init__()
        self._latest: dict[Any, FutureMessage] = {}
        self._touched: dict[str, float] = {}
        self._swept: dict[int, float] = {}

    def send_changelog(self, *args: Any, **kwargs: Any) -> FutureMessage:
        fut = super().send_changelog(*args, **kwargs)
        key = args[1] if len(args) > 1 else kwargs["key"]
        self._latest[key] = fut
        self._touched[key] = time.time()
        fut.add_done_callback(lambda done: self._forget(key, done))
        return fut

    def _forget(self, key: Any, done: FutureMessage) -> None:
        if self._latest.get(key) is done:
            del self._latest[key]

    async def confirmed(self, key: Any) -> None:
        """Return once the latest change of ``key`` is acknowledged by the broker."""
        pending = self._latest.get(key)
        if pending is not None:
            await asyncio.shield(pending)  # abandoned work must not cancel Faust's future

    def expire(self, partition: int, max_age_s: float) -> int:
        """Drop this partition's keys untouched for ``max_age_s`` (sweeps at most once a minute).

        Call it from the owning agent while it handles an event of ``partition``.
        """
        now = time.time()
        if now - self._swept.get(partition, 0.0) < min(SWEEP_EVERY_S, max_age_s / 2):
            return 0
        self._swept[partition] = now
        old = expired(
            list(self.keys()), self._touched, partition=partition, now=now, max_age_s=max_age_s
        )
        for key in old:
            del self[key]
            self._touched.pop(key, None)
        return len(old)


def table(app: faust.App, name: str) -> StateTable:
    """A table co-partitioned with the topics (its changelog follows the source partition),
    string keys, JSON values that agents reassign whole on every change."""
    made = StateTable(
        app, name=name, default=None, beacon=app.tables.beacon, partitions=PARTITIONS, key_type=str
    )
    app.tables.add(cast(TableT[str, Any], made))
    return made

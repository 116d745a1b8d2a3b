"""A record written with a schema this release does not know waits for a worker that does.

During a rolling upgrade two releases share the consumer group, and a release that adds a
schema (a new field, a new enum symbol) writes records the pods of the old release cannot
decode: their codec has no writer schema for the fingerprint (``unknown_schema_fingerprint``).
Ending such a record as a terminal event would end its article for good in the middle of an
ordinary upgrade. Instead the consumer (``article_runtime.streams.kafka.consumer``) neither delivers
it nor anything after it on its partition: it stops fetching that partition, leaves the record
unacknowledged (so the commit stays before it), and waits. The upgrade soon replaces this pod
or moves the partition to a new one, which reads it from the committed offset and decodes it.

A fingerprint is waited for at most ``wait_s`` from the first time this process met it: a
writer nobody deploys (a producer outside the contract) is no upgrade, so once its wait is
over the partition is read again from the held record, and the record and every later one of
that writer reach the agents, which end them as ``unknown_schema_fingerprint`` as before. The
wait must be longer than a whole rolling upgrade (``ARTICLE_RUNTIME_UNKNOWN_SCHEMA_WAIT_S``).

With a schema registry a writer is a registry ID, and a newer release's is served by the
registry: only an ID this worker has not fetched yet (fetched meanwhile in a thread) or one the
registry cannot serve (it is away) holds a partition. ``known`` tells when the writer can be
read, and the partition is then read again at once rather than at the end of its wait.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from faust.types import TP

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Held:
    """A partition held at ``offset``, whose record has the writer ``fingerprint``."""

    offset: int
    fingerprint: bytes
    until: float  # when the fingerprint's wait ends (monotonic)


class UnknownWriters:
    """Which partitions are held, and until when. Decisions on the event loop; the consumer's
    thread reads ``paused`` (a frozen set, replaced whole)."""

    def __init__(
        self,
        unknown: Callable[[bytes], bytes | None],
        wait_s: float,
        clock: Callable[[], float] = time.monotonic,
        known: Callable[[bytes], bool] | None = None,
    ) -> None:
        self.unknown, self.wait_s, self.clock = unknown, wait_s, clock
        self.known = known
        self._first_met: dict[bytes, float] = {}
        self._held: dict[TP, Held] = {}
        self._lock = threading.Lock()
        self.paused: frozenset[TP] = frozenset()

    def holds(self, tp: TP, offset: int, value: bytes | None) -> bool:
        """Whether the message at ``offset`` of ``tp`` must not reach the agents now: its
        partition is held at it or before it, or its writer is unknown and still waited for
        (then the partition is held from it)."""
        held = self._held.get(tp)
        if held is not None and offset >= held.offset:
            return True
        fingerprint = self.unknown(value or b"")
        if fingerprint is None:
            return False
        now = self.clock()
        first = self._first_met.setdefault(fingerprint, now)
        if now - first >= self.wait_s:
            return False  # waited long enough: no upgrade brings this writer
        with self._lock:
            self._held[tp] = Held(offset, fingerprint, first + self.wait_s)
            self.paused = frozenset(self._held)
        _log.warning(
            "offset %d of %s was written with a schema this release does not know "
            "(fingerprint %s): its partition waits there up to %.0f s more for a worker "
            "that knows it (a rolling upgrade), then it ends unknown_schema_fingerprint",
            offset,
            tp,
            fingerprint.hex(),
            first + self.wait_s - now,
            extra={"event": "unknown_schema_held", "fingerprint": fingerprint.hex()},
        )
        return True

    def due(self) -> dict[TP, int]:
        """The partitions whose wait is over, or whose writer can be read now, each with its
        held offset: seek there, then ``release`` it (still held until then, so nothing after
        the record goes first)."""
        now, known = self.clock(), self.known
        return {
            tp: held.offset
            for tp, held in self._held.items()
            if held.until <= now or (known is not None and known(held.fingerprint))
        }

    def release(self, tp: TP) -> None:
        with self._lock:
            self._held.pop(tp, None)
            self.paused = frozenset(self._held)

    def reset(self) -> None:
        """A new assignment: every partition is read again from its committed offset, and a
        record still unknown is held again for what is left of its writer's wait."""
        with self._lock:
            self._held.clear()
            self.paused = frozenset()

    def held(self) -> dict[TP, Held]:
        return dict(self._held)

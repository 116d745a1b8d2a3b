"""Which input offsets may be committed: the one place that decides it.

A worker may commit offset ``N`` of a partition only when every message before ``N`` that
the consumer handed to the agents has been acknowledged by them, i.e. its outputs and table
changes are confirmed by the broker. faust-streaming 0.15.3 decides this from its own
bookkeeping, and that bookkeeping also counts messages nobody processed: on a rebalance it
cancels deliveries after advancing its read offset and records the skipped offsets as "gaps"
that it commits, and its streams ack the messages they drop. ``CommitGate`` replaces that
decision; ``article_runtime.streams.kafka.consumer`` feeds it.

The rules, each checked by the unit tests:
- **Registered at fetch.** Every record the Kafka client returns is owed from that moment, so
  a message Faust drops later holds the commit back instead of being skipped.
- **Acks count only in their epoch, while the flow runs.** An epoch is one assignment, from
  the rebalance that gave it to the revocation that ends it. Faust's own acks of messages it
  never processed happen only after the flow stopped (revocation, shutdown) or for messages
  of an older generation; neither counts. Abandoned work is redelivered from the committed
  offset when the next epoch begins.
- **The commit point** of a partition is its lowest owed offset, or one past the highest
  registered offset when nothing is owed. It never moves back.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from faust.types import TP

FETCHED = "fetched"  # the Kafka client returned it
READ = "read"  # Faust's fetcher turned it into a message
DELIVERED = "delivered"  # handed to the agents' queues
RECEIVED = "received"  # an agent took it from its queue
WORKING = "working"  # an agent's work for it started
DONE = "done"  # its work ended; the ack is on its way
STAGES = (FETCHED, READ, DELIVERED, RECEIVED, WORKING, DONE)  # in the order a message goes
_RANK = {stage: rank for rank, stage in enumerate(STAGES)}


@dataclass
class _Partition:
    owed: dict[int, str] = field(default_factory=dict)  # registered, not yet acked: stage
    end: int | None = None  # one past the highest registered offset
    received: int = -1  # the highest offset an agent took from its queue, or acknowledged

    def point(self) -> int | None:
        return min(self.owed) if self.owed else self.end


@dataclass
class CommitGate:
    """Thread-safe: records are registered on the consumer's thread, acks on the event loop."""

    epoch: int = 0
    open: bool = False  # acks count only while the flow runs
    _partitions: dict[TP, _Partition] = field(default_factory=dict)
    _committed: dict[TP, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def begin(self) -> int:
        """A new assignment: forget the last epoch's messages (they will be fetched again
        from the committed offsets), and count nothing until the flow resumes."""
        with self._lock:
            self.epoch += 1
            self.open = False
            self._partitions.clear()
            self._committed.clear()
            return self.epoch

    def resume(self) -> None:
        with self._lock:
            self.open = True

    def close(self) -> None:
        """The flow stopped: from now on, acks of this epoch are not evidence of work done."""
        with self._lock:
            self.open = False

    def fetched(self, epoch: int, tp: TP, offsets: Iterable[int]) -> None:
        """Records the client returned for ``tp`` (in offset order). An offset below what was
        already registered is a re-read of a message already owed or acknowledged."""
        with self._lock:
            if epoch != self.epoch:
                return
            partition = self._partitions.setdefault(tp, _Partition())
            for offset in offsets:
                if partition.end is None or offset >= partition.end:
                    partition.owed[offset] = FETCHED
                    partition.end = offset + 1

    def reached(self, epoch: int | None, tp: TP, offset: int, stage: str) -> None:
        """How far an owed message got: what a commit held back reports, and the evidence
        that a delivery was dropped."""
        with self._lock:
            partition = self._partitions.get(tp)
            if epoch != self.epoch or partition is None or offset not in partition.owed:
                return
            if _RANK[stage] > _RANK[partition.owed[offset]]:  # a second delivery is no step back
                partition.owed[offset] = stage
            if _RANK[stage] >= _RANK[RECEIVED]:
                partition.received = max(partition.received, offset)

    def acked(self, epoch: int | None, tp: TP, offset: int) -> bool:
        """Whether this acknowledgement counts (see the module docstring)."""
        with self._lock:
            if not self.open or epoch != self.epoch:
                return False
            partition = self._partitions.get(tp)
            if partition is None or offset not in partition.owed:
                return False
            del partition.owed[offset]
            partition.received = max(partition.received, offset)
            return True

    def committable(self, tps: Iterable[TP] | None = None) -> dict[TP, int]:
        """The offset to commit per partition, where it moved past the last commit."""
        wanted = None if tps is None else set(tps)
        points = {}
        with self._lock:
            for tp, partition in self._partitions.items():
                point = partition.point()
                if point is None or (wanted is not None and tp not in wanted):
                    continue
                if point > self._committed.get(tp, -1):
                    points[tp] = point
        return points

    def committed(self, offsets: Mapping[TP, int]) -> None:
        with self._lock:
            for tp, offset in offsets.items():
                self._committed[tp] = max(offset, self._committed.get(tp, -1))

    def dropped(self) -> dict[TP, tuple[int, str]]:
        """Per partition, the oldest owed message that never reached an agent although a later
        one of the partition did.

        A partition's messages reach the agents in offset order (one fetcher hands them to
        FIFO queues), so such a message was dropped on the way, and nothing delivers it again
        in this epoch: Faust's fetcher can lose one (seen in about 1 broker restart in 20).
        ``article_runtime.streams.kafka.consumer`` reads the partition again from there. Each with
        how far it got.
        """
        with self._lock:
            lost = {}
            for tp, p in self._partitions.items():
                behind = [
                    offset
                    for offset, stage in p.owed.items()
                    if offset < p.received and _RANK[stage] < _RANK[RECEIVED]
                ]
                if behind:
                    oldest = min(behind)
                    lost[tp] = (oldest, p.owed[oldest])
            return lost

    def held(self) -> dict[str, int]:
        """How many owed messages are at each stage: what the worker holds of its input."""
        with self._lock:
            counts = dict.fromkeys(STAGES, 0)
            for p in self._partitions.values():
                for stage in p.owed.values():
                    counts[stage] += 1
            return counts

    def holding(self) -> dict[TP, tuple[int, int, str]]:
        """Per partition with messages owed: the oldest owed offset, how many are owed, and
        how far the oldest got."""
        with self._lock:
            held = {}
            for tp, p in self._partitions.items():
                if p.owed:
                    oldest = min(p.owed)
                    held[tp] = (oldest, len(p.owed), p.owed[oldest])
            return held

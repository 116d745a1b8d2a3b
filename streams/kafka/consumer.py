"""faust-streaming's aiokafka consumer, with our commit decision and abandoned work.

Agents, streams and tables stay on Faust; this replaces only the consumer's bookkeeping of
what may be committed (``article_runtime.streams.kafka.commits.CommitGate``) and what a rebalance
waits for. What faust-streaming 0.15.3 does there, read in its source and seen on the real broker
(``tests/integration/test_stream_faults.py``, ``make soak``):

- At a rebalance, ``Consumer._drain_messages`` cancels a delivery after the read offset moved
  on and the message was counted for every agent; the agents' queues are cleared; a stream
  acks the stale messages it skips. ``wait_empty`` then waits for acks that never come, and
  the revocation never ends (the group hangs with lag). Skipped offsets become "gaps" that
  ``_new_offset`` commits without any output (lost articles, lag 0).
- aiokafka's ``seek_to_committed`` does nothing for a committed offset of 0 or none, so a seek
  back after a rebalance left records fetched and dropped behind the position.

Here, instead:
- Records are registered with the gate on the consumer's thread as the client returns them,
  before anything can drop them; acks count only in their epoch while the flow runs.
- A revocation does not wait for acks: it stops the work in flight (``InFlightWork``),
  commits what was acknowledged, and the next owner starts again from there.
- Seeking to the committed offset always seeks, to the start of the log when none exists.
- Resuming a flow that already runs does not clear the agents' queues (``FlowControl``):
  Faust's recovery resumes it a second time after the stream partitions were fetching,
  dropping messages it had just handed out (seen: the first messages of a partition taken
  over after a SIGKILL never processed, the group stuck behind them).
- A message dropped on its way to the agents inside one assignment is read again. Records
  are followed from fetch to the agent (``article_runtime.streams.kafka.commits`` stages); a message
  that never reached an agent while a later one of its partition did was dropped, since a
  partition's messages reach the agents in offset order, and nothing else would deliver it before
  the next rebalance (seen in about 1 broker restart in 20: an article never settled and its
  partition's commit stayed held back). Its partition is fetched again from it.
- A failed commit is logged and retried by the next one instead of crashing the worker.
- A record written with a schema this release does not know (a newer release's, during a
  rolling upgrade) is not delivered, nor anything after it on its partition: the partition
  waits there, unacknowledged, for a worker that knows the schema
  (``article_runtime.streams.kafka.unknown_writers``).
- Table recovery that stops receiving changelog events while it still needs some exits the
  worker (crash-only; it starts again and reads the changelogs afresh). Seen in about 1 of 30
  fault runs: a partition taken back after a peer left, recovered from offset 0, received
  nothing and Faust only warned "No event received for active tp" forever.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from time import monotonic
from typing import Any, ClassVar, cast

import faust
from aiokafka.errors import IllegalStateError, KafkaError
from aiokafka.structs import OffsetAndMetadata
from faust.tables.manager import TableManager
from faust.transport.drivers import aiokafka as faust_aiokafka
from faust.types import TP, EventT, Message, StreamT
from faust.types.transports import TPorTopicSet
from mode import Service
from mode.utils.queues import FlowControlEvent

from article_runtime.streams.kafka.commits import (
    DELIVERED,
    DONE,
    READ,
    RECEIVED,
    WORKING,
    CommitGate,
)
from article_runtime.streams.kafka.crash import exit_without_commit
from article_runtime.streams.kafka.faust_producer import Producer
from article_runtime.streams.kafka.unknown_writers import UnknownWriters

_log = logging.getLogger(__name__)
_EPOCH = "_article_runtime_epoch"  # set on every message this consumer hands out
ABANDON_TIMEOUT_S = 10.0  # cancelled work that does not stop by then is logged, not awaited
FLOW_POLL_S = 0.05  # how often work that arrived while the flow was stopped checks it again
HELD_BACK_S = 60.0  # an offset owed this long while the flow runs is reported
DROP_CHECK_S = 10.0  # a message seen dropped at two checks this far apart is read again
RECOVERY_STALL_S = 45.0  # table recovery with nothing received this long exits the worker
UNKNOWN_WRITERS_CHECK_S = 5.0  # how often partitions held for an unknown writer are checked
FETCH_MIN_BYTES = 64 * 1024  # what a fetch waits for (up to the fetch wait) before it returns
# Fault injection for the tests, off unless set: "topic:partition:offset" of one message whose
# first delivery to the agents is dropped, as Faust's fetcher sometimes does on its own.
DROP_ONCE_ENV = "ARTICLE_RUNTIME_TEST_DROP_ONCE"


def drop_once_from(value: str | None) -> tuple[str, int, int] | None:
    """The message ``DROP_ONCE_ENV`` names; a clear error when it names none."""
    if not value:
        return None
    parts = value.rsplit(":", 2)
    if len(parts) != 3 or not parts[0] or not all(p.isascii() and p.isdigit() for p in parts[1:]):
        raise ValueError(f"{DROP_ONCE_ENV} must be topic:partition:offset, not {value!r}")
    return parts[0], int(parts[1]), int(parts[2])


def recovery_stalled(
    *, recovering: bool, behind: bool, last_event_at: float, now: float, after_s: float
) -> bool:
    """Whether table recovery is stuck: it is still behind a changelog's end and has received
    no changelog event for ``after_s`` (since it started, or since the last one)."""
    return recovering and behind and now - last_event_at > after_s


def stamp(message: Message, epoch: int) -> None:
    setattr(message, _EPOCH, epoch)


def epoch_of(message: Message) -> int | None:
    """The assignment epoch a delivered message belongs to (None: not from our consumer)."""
    epoch: int | None = getattr(message, _EPOCH, None)
    return epoch


class InFlightWork:
    """Work started for delivered messages, cancelled when its epoch ends.

    A revoked partition's work must stop before the partition moves: finished late, it would
    write table changes behind its new owner's back. Cancelling is safe because nothing of it
    was acknowledged: the new owner is redelivered the message.
    """

    def __init__(self, gate: CommitGate) -> None:
        self._gate = gate
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self, message: Message, work: Coroutine[Any, Any, None]) -> bool:
        """Run ``work`` unless its epoch is over; False when it did not run to the end.

        A message of the current epoch that arrives while the flow is stopped waits for it to
        resume: it is owed in this epoch, and nothing would deliver it again before the epoch
        ends (seen in 1 of 21 broker restarts: one article never settled, its offset owed
        forever). Only when the epoch ends is it dropped, and then redelivered from the
        committed offset to whoever owns the partition next."""
        epoch = epoch_of(message)
        try:
            while epoch is not None and epoch == self._gate.epoch and not self._gate.open:
                await asyncio.sleep(FLOW_POLL_S)
        except asyncio.CancelledError:
            work.close()
            raise
        if epoch is not None and epoch != self._gate.epoch:
            work.close()  # a message of an ended epoch: its partition will deliver it again
            return False
        self._gate.reached(epoch, message.tp, message.offset, WORKING)
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:  # our caller is cancelled (shutdown): so is the work
            task.cancel()
            raise
        finally:
            self._tasks.discard(task)
        if task.cancelled():
            return False
        task.result()  # work never raises by contract; if it does, the caller sees it
        self._gate.reached(epoch, message.tp, message.offset, DONE)
        return True

    async def abandon(self, timeout_s: float = ABANDON_TIMEOUT_S) -> int:
        """Cancel every running piece of work and wait (bounded) until it has stopped."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=timeout_s)
            if pending:
                _log.warning(
                    "%d abandoned tasks still running after %.0f s", len(pending), timeout_s
                )
        return len(tasks)

    def counts(self, message: Message) -> bool:
        """Whether what is done for ``message`` now counts, as its ack would
        (``CommitGate``): it belongs to the running assignment, and the flow runs."""
        return self._gate.open and epoch_of(message) == self._gate.epoch

    @property
    def flowing(self) -> bool:
        """Whether the current epoch's messages are being processed (the flow runs)."""
        return self._gate.open

    def __len__(self) -> int:
        return len(self._tasks)


class FlowControl(FlowControlEvent):
    """Faust's flow control of the agents' queues (``app.flow_control``), except that
    resuming a flow that already runs changes nothing. Clearing the queues on resume drops
    what was buffered while the flow was suspended; when it was not suspended, what the
    queues hold was handed out in this epoch and must be processed."""

    def resume(self) -> None:
        if not self.is_active():
            super().resume()


class DeliverySensor(faust.Sensor):
    """Notes each message an agent takes from its queue (Faust calls it for every event a
    stream yields; a message a stream skips never gets here)."""

    def __init__(self, gate: CommitGate, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.gate = gate

    def on_stream_event_in(
        self, tp: TP, offset: int, stream: StreamT[Any], event: EventT[Any]
    ) -> dict[str, Any] | None:
        self.gate.reached(epoch_of(event.message), tp, offset, RECEIVED)
        return None


class ConsumerThread(faust_aiokafka.AIOKafkaConsumerThread):
    """The thread that owns the aiokafka consumer: registration, seeks and commits."""

    consumer: Consumer

    def _create_worker_consumer(self, transport: Any) -> Any:
        """Faust's consumer, fetching in batches: Faust leaves aiokafka's ``fetch_min_bytes``
        at 1, so the broker answers each fetch as soon as one record is there, and a busy
        worker spends more on fetching than on the records (make bench-stream). aiokafka reads
        both settings when it starts its fetcher, after this."""
        consumer = super()._create_worker_consumer(transport)
        consumer._fetch_min_bytes = FETCH_MIN_BYTES
        consumer._fetch_max_wait_ms = cast(Transport, transport).fetch_wait_ms
        return consumer

    async def _fetch_records(
        self,
        consumer: Any,
        active_partitions: Any,
        timeout: float | None = None,
        max_records: int | None = None,
    ) -> Any:
        gate = self.consumer.gate
        epoch = gate.epoch
        held = self.consumer.held_for_schema()
        if held and active_partitions:
            # Partitions waiting at a record of an unknown writer are not fetched meanwhile.
            # (aiokafka reads an empty set as "every partition": fetch nothing instead.)
            active_partitions = set(active_partitions) - held
            if not active_partitions:
                await asyncio.sleep(min(timeout or 0.0, 1.0))
                return {}
        records = await super()._fetch_records(consumer, active_partitions, timeout, max_records)
        # Registered here, in the step that moved the client's position: nothing can drop a
        # record between the two. Records returned while the flow stopped are not owed by
        # this epoch: Faust drops them and seeks back to the committed offset.
        if records and self.consumer.flow_active and gate.epoch == epoch:
            acking = self.app.topics.acks_enabled_for
            for tp, batch in records.items():
                if acking(tp.topic):
                    gate.fetched(epoch, tp, (record.offset for record in batch))
        return records

    async def seek_to_committed(self) -> Mapping[TP, int]:
        result: Mapping[TP, int] = await self.call_thread(self._seek_to_committed)
        return result

    async def _seek_to_committed(self) -> dict[TP, int | None]:
        """aiokafka's version leaves the position alone when the committed offset is 0 or
        missing; ours seeks every input partition (to the log start when none is committed,
        as ``auto_offset_reset=earliest`` says). Table changelogs are left to recovery."""
        consumer = self._ensure_consumer()
        acking = self.app.topics.acks_enabled_for
        inputs = [tp for tp in consumer.assignment() if acking(tp.topic)]
        committed: dict[TP, int | None] = {}
        try:
            for tp in inputs:
                offset = await consumer.committed(tp)
                committed[tp] = offset if offset is not None and offset >= 0 else None
            fresh = [tp for tp, offset in committed.items() if offset is None]
            starts = await consumer.beginning_offsets(fresh) if fresh else {}
            for tp, offset in committed.items():
                consumer.seek(tp, starts[tp] if offset is None else offset)
        except IllegalStateError:  # revoked meanwhile: the next owner starts from the commit
            pass
        return committed

    async def _commit(self, offsets: Mapping[TP, int]) -> bool:
        consumer = self._ensure_consumer()
        assigned = self.assignment()
        mine = {tp: OffsetAndMetadata(o, "") for tp, o in offsets.items() if tp in assigned}
        if not mine:
            return False
        try:
            await consumer.commit(mine)
        except KafkaError as exc:  # rebalancing, coordinator moved or down: commit later
            _log.warning("commit of %d partitions failed, retried later: %r", len(mine), exc)
            return False
        return True


class Consumer(faust_aiokafka.Consumer):
    """Faust's consumer with ``CommitGate`` deciding what is committed."""

    _thread: ConsumerThread

    def __init__(self, transport: Transport, *args: Any, **kwargs: Any) -> None:
        self.gate, self.work = transport.gate, transport.work
        self.before_commit = transport.before_commit
        self.unknown_writers = transport.unknown_writers
        super().__init__(transport, *args, **kwargs)
        self.callback = self._delivering(self.callback)

    def held_for_schema(self) -> frozenset[TP]:
        """Partitions waiting at a record of a writer schema this release does not know."""
        unknown = self.unknown_writers
        return frozenset() if unknown is None else unknown.paused

    def _delivering(self, deliver: Any) -> Any:
        """Faust's delivery to the agents' queues, noting each message that made it, and
        holding back a record of an unknown writer (and its partition after it)."""
        gate = self.gate
        drop = drop_once_from(os.environ.get(DROP_ONCE_ENV))
        unknown, acking = self.unknown_writers, self.app.topics.acks_enabled_for

        async def delivering(message: Message) -> None:
            nonlocal drop
            if drop == (message.topic, message.partition, message.offset):
                drop = None
                self.log.warning(
                    "dropping %s@%d once (%s)", message.tp, message.offset, DROP_ONCE_ENV
                )
                return
            if (
                unknown is not None
                and acking(message.topic)
                and unknown.holds(message.tp, message.offset, message.value)
            ):
                return  # owed, never acked: the commit stays before it
            await deliver(message)
            gate.reached(epoch_of(message), message.tp, message.offset, DELIVERED)

        return delivering

    @Service.task
    async def _report_held_back(self) -> None:
        """Log partitions whose commit is held back by the same message for a while: slow
        work (a model call being retried), or a message that was handed out and never
        processed, which the next rebalance redelivers."""
        seen: dict[TP, int] = {}
        async for _ in self.itertimer(HELD_BACK_S, name="held_back"):
            holding = self.gate.holding() if self.gate.open else {}
            waiting = self.held_for_schema()  # said once when it began to wait
            for tp, (oldest, owed, stage) in holding.items():
                if seen.get(tp) == oldest and tp not in waiting:
                    self.log.warning(
                        "commit of %s held back by offset %d for %.0f s (%d owed; it got as "
                        "far as: %s)",
                        tp,
                        oldest,
                        HELD_BACK_S,
                        owed,
                        stage,
                    )
            seen = {tp: oldest for tp, (oldest, _, _) in holding.items()}

    @Service.task
    async def _read_dropped_again(self) -> None:
        """Read a partition again from a message Faust's fetcher dropped on its way to the
        agents (``CommitGate.dropped``: owed in this epoch, never taken by an agent, while a
        later message of its partition was). Nothing else would deliver it before the next
        rebalance, and the commit would stay behind it. Seen in about 1 broker restart in 20.

        The messages after it are delivered again too: their outputs are idempotent, and acks
        of messages no longer owed do not count twice. Two checks apart, so a message still
        on its way is not mistaken for a dropped one; if the read misses it again (a batch
        fetched before the seek moved Faust's read offset past it), the next check repeats it.
        """
        seen: dict[TP, int] = {}
        async for _ in self.itertimer(DROP_CHECK_S, name="read_dropped_again"):
            dropped = self.gate.dropped() if self.gate.open else {}
            again = {tp: at for tp, at in dropped.items() if seen.get(tp) == at[0]}
            seen = {tp: offset for tp, (offset, _) in dropped.items() if tp not in again}
            for tp, (offset, stage) in again.items():
                self.log.warning(
                    "offset %d of %s was dropped before reaching an agent (it got as far as: "
                    "%s): reading it again",
                    offset,
                    tp,
                    stage,
                )
                try:
                    # On the consumer's own thread (the client's fetcher lives on its loop),
                    # moving Faust's "already delivered" read offset back too.
                    await self._thread.seek_wait({tp: offset})
                except Exception:  # a Faust service task that raises stops the whole worker
                    self.log.exception("reading %s again from %d failed", tp, offset)

    @Service.task
    async def _release_unknown_writers(self) -> None:
        """Read a partition again from its held record once its writer's wait is over: the
        record and the ones after it then reach the agents (the record ends as
        ``unknown_schema_fingerprint``). Sought while still held, so nothing after the record
        is delivered before it."""
        unknown = self.unknown_writers
        if unknown is None:
            return
        async for _ in self.itertimer(UNKNOWN_WRITERS_CHECK_S, name="unknown_writers"):
            for tp, offset in unknown.due().items():
                self.log.warning(
                    "no worker took %s at offset %d while its writer schema was waited for: "
                    "reading it again from there",
                    tp,
                    offset,
                )
                try:
                    if tp in self.assignment():
                        await self._thread.seek_wait({tp: offset})
                except Exception:  # a Faust service task that raises stops the whole worker
                    self.log.exception("reading %s again from %d failed", tp, offset)
                finally:
                    unknown.release(tp)

    @Service.task
    async def _watch_recovery(self) -> None:
        recovery = cast(TableManager, self.app.tables).recovery
        async for _ in self.itertimer(5.0, name="recovery_watch"):
            # Faust's own bookkeeping of the recovery in progress (0.15.3).
            received = recovery._active_events_received_at.values()
            started = recovery._recovery_started_at or monotonic()
            stalled = recovery_stalled(
                recovering=recovery.in_recovery,
                behind=recovery.need_recovery(),
                last_event_at=max(received, default=started),
                now=monotonic(),
                after_s=RECOVERY_STALL_S,
            )
            if stalled:
                exit_without_commit(f"table recovery received nothing for {RECOVERY_STALL_S:.0f} s")

    def _new_consumer_thread(self) -> ConsumerThread:
        return ConsumerThread(self, loop=self.loop, beacon=self.beacon)

    def _to_message(self, tp: TP, record: Any) -> Any:
        message = super()._to_message(tp, record)
        epoch = self.gate.epoch
        stamp(message, epoch)
        self.gate.reached(epoch, tp, message.offset, READ)
        return message

    # -- the flow: an epoch runs from an assignment to the next revocation ------------------

    async def on_partitions_assigned(self, assigned: set[TP], generation_id: int = 0) -> None:
        self.gate.begin()
        if self.unknown_writers is not None:
            self.unknown_writers.reset()
        await super().on_partitions_assigned(assigned, generation_id)

    def stop_flow(self) -> None:
        self.gate.close()
        super().stop_flow()

    def resume_flow(self) -> None:
        super().resume_flow()
        self.gate.resume()

    async def wait_empty(self) -> None:
        """Revocation and shutdown: stop the work in flight, commit what was acknowledged.

        Faust's version waits for every message it handed out to be acked, and some never
        will be (cleared from queues, cancelled mid-delivery): the rebalance hung forever.
        """
        self.gate.close()
        abandoned = await self.work.abandon()
        if abandoned:
            self.log.info("abandoned %d messages in flight; they will be redelivered", abandoned)
        self._unacked_messages.clear()
        await self._before_commit()  # even with nothing to commit: no change outlives the epoch
        await self.commit_and_end_transactions()

    # -- acks and commits ---------------------------------------------------------------------

    def ack(self, message: Message) -> bool:
        """Faust calls this once every stream that received the message has acked it."""
        if message.acked:
            return False
        message.acked = True
        self._unacked_messages.discard(message)
        self._n_acked += 1
        counted = self.gate.acked(epoch_of(message), message.tp, message.offset)
        if self._waiting_for_ack is not None and not self._waiting_for_ack.done():
            self._waiting_for_ack.set_result(None)
        return counted

    async def _add_gap(self, tp: TP, offset_from: int, offset_to: int) -> None:
        """Offsets Faust did not deliver are never filled in: the gate holds them back."""

    def _filter_tps_with_pending_acks(self, topics: TPorTopicSet | None = None) -> Iterator[TP]:
        for tp in self.gate.committable():
            if topics is None or tp in topics or tp.topic in topics:
                yield tp

    def _filter_committable_offsets(self, tps: Any) -> dict[TP, int]:
        return self.gate.committable(tps)

    async def _before_commit(self) -> None:
        """Table changes held for the commit (``article_runtime.streams.kafka.coalesced``), written
        and confirmed."""
        for flush in self.before_commit:
            await flush()

    async def _commit_offsets(
        self, offsets: Mapping[TP, int], start_new_transaction: bool = True
    ) -> bool:
        await self._before_commit()
        did_commit: bool = await super()._commit_offsets(offsets, start_new_transaction)
        if did_commit:
            self.gate.committed(offsets)
        return did_commit


class Transport(faust_aiokafka.Transport):
    """The aiokafka transport, making our ``Consumer`` and ``Producer``; it owns the gate and
    the work."""

    Consumer: ClassVar[Any] = Consumer
    Producer: ClassVar[Any] = Producer

    fetch_wait_ms = 50  # the worker sets its own (``WorkerSettings.fetch_wait_ms``)
    # Set by the worker before its consumer is made; None: every record reaches the agents.
    unknown_writers: UnknownWriters | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.gate = CommitGate()
        self.work = InFlightWork(self.gate)
        # Awaited before every commit of offsets: what must be durable before the inputs that
        # made it stop being redelivered (the ledger's held changes).
        self.before_commit: list[Callable[[], Awaitable[None]]] = []
        self.app.sensors.add(DeliverySensor(self.gate))

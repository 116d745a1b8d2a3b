"""Faust tables as the agents use them: per-article state that is confirmed, expires, and is
held packed.

Three things Faust's ``Table`` does not offer:
- Waiting for one change to be durable. Faust sends a change through its producer buffer and
  commits source offsets without waiting for it: a crash could keep the commit and lose the
  change. Here a change goes to the producer in order, past Faust's buffer and topic layers
  (``article_runtime.streams.kafka.changelog``), and agents await ``confirmed`` before their input
  is acked (and the enrichment agent before it produces an output that depends on the change); a
  change that could not be written ends the worker without a commit, as a failed output does.
  Changes nothing depends on (the ledger's) can instead be held in memory and sent before the next
  commit (``hold``, ``send_held``, ``all_confirmed``: ``article_runtime.streams.kafka.coalesced``).
- Forgetting. Per-article state (ladder, join, lineage) would grow without bound in a
  long-running worker; ``expire`` drops keys untouched for the retention period, one source
  partition at a time, from inside the owning agent (a deletion is a changelog tombstone on
  the current event's partition, so only that partition's keys may go).
- Holding values compactly. The memory store keeps values as Python objects, and a dict of
  small dicts and strings costs about four times its JSON. Values here are packed (compact JSON
  as bytes, deflated when that pays: lineage and join values shrink to about a third) in memory
  and on the changelog, and unpacked on every read. Changelog records an earlier release wrote
  as JSON read back the same way.

The stages change a table about eight times per article and read it as often, so packing is
on the worker's hot path. orjson writes the same compact UTF-8 JSON as ``json.dumps`` did in
a tenth of its time (an integer beyond 64 bits still goes through ``json``; a non-finite
float, which JSON has no word for, is written as null, where ``json`` wrote ``NaN``; values
are read back with ``json``, as orjson reads a large integer as a float). The deflater is set
up with a quarter of zlib's default hash memory (``memLevel`` 4), which halves its cost on
values of a few KiB (most of it was setting up its tables) for a few bytes more.
``python -m bench.table_packing`` measures both.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import zlib
from collections.abc import Callable, ItemsView, Iterable, ValuesView
from typing import Any, cast

import faust
import orjson
from faust.streams import current_event
from faust.types.tables import TableT

from article_runtime.streams.kafka.changelog import Acked, OrderedSends
from article_runtime.streams.kafka.crash import exit_without_commit
from article_runtime.streams.kafka.topics import MAX_MESSAGE_BYTES, PARTITIONS, partition_of

SWEEP_EVERY_S = 60.0  # at most, per partition: a sweep scans every key of the table
DEFLATE_FROM = 256  # bytes of JSON; below this deflating saves little or grows the value
DEFLATE_MEMORY = 4  # zlib's memLevel (default 8): setting up its hash tables cost the most
_DEFLATED = b"x"  # zlib's first byte at every level and memLevel; no JSON text starts with it
_log = logging.getLogger(__name__)


def expired(
    keys: Iterable[str],
    touched: dict[str, float],
    *,
    partition: int,
    now: float,
    max_age_s: float,
    partition_of: Callable[[str], int],
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


def packed(value: Any) -> bytes:
    """A table value as it is held: compact JSON, UTF-8, deflated when large enough."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:  # an integer beyond 64 bits
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(text) < DEFLATE_FROM:
        return text
    deflater = zlib.compressobj(1, zlib.DEFLATED, zlib.MAX_WBITS, DEFLATE_MEMORY)
    return deflater.compress(text) + deflater.flush()


def unpacked(held: bytes | str | Any) -> Any:
    """A held value back as the agents use it (JSON text of any earlier release included)."""
    if isinstance(held, bytes) and held.startswith(_DEFLATED):
        held = zlib.decompress(held)
    # json, not orjson: orjson reads an integer beyond 64 bits as a float.
    return json.loads(held) if isinstance(held, bytes | str) else held


class StateTable(faust.Table):  # type: ignore[type-arg]  # faust.Table's parameters are not public
    def __getitem__(self, key: Any) -> Any:
        return unpacked(super().__getitem__(key))

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, packed(value))

    def items(self) -> ItemsView[Any, Any]:
        return {key: unpacked(held) for key, held in self.data.items()}.items()

    def values(self) -> ValuesView[Any]:
        return {key: unpacked(held) for key, held in self.data.items()}.values()

    def __post_init__(self) -> None:
        super().__post_init__()
        self._latest: dict[Any, Acked] = {}
        self._sends = OrderedSends(lambda: self.app.producer)
        self._touched: dict[str, float] = {}
        self._swept: dict[int, float] = {}

    def partition_for_key(self, key: Any) -> int | None:
        """The partition of the message being handled, as Faust's own, without its check of
        the source topic's partition count against the changelog's.

        Faust checks against the consumer's metadata snapshot, taken at the last rebalance: a
        changelog created after it reads as 0 partitions and the first write of the table
        from a new source topic raises ``PartitionsMismatch``, which stopped a worker (seen
        on a fresh broker). The worker checks every table's changelog against the topics of
        the agents that write it, on the cluster itself, before it starts
        (``article_runtime.streams.worker.main.check_partitions``).
        """
        event = current_event()
        if event is None:
            raise TypeError("Cannot modify table key from outside of stream iteration")
        return int(event.message.partition)

    def on_key_set(self, key: Any, value: Any) -> None:
        partition = cast(int, self.partition_for_key(key))
        self.send_changelog(partition, key, value)
        self._touched[key] = time.time()
        self._maybe_set_key_ttl(key, partition)
        self._sensor_on_set(self, key, value)

    def on_key_del(self, key: Any) -> None:
        partition = cast(int, self.partition_for_key(key))
        self.send_changelog(partition, key, value=None, value_serializer="raw")
        self._touched.pop(key, None)
        self._maybe_del_key_ttl(key, partition)
        self._sensor_on_del(self, key)

    def hold(self, key: str, value: Any) -> bytes:
        """Change ``key`` in memory only, for changes whose record waits for the next commit
        (``article_runtime.streams.kafka.coalesced``); the packed value is what ``send_held``
        writes."""
        held = packed(value)
        self.data[key] = held
        self._touched[key] = time.time()
        return held

    def send_held(self, key: str, held: bytes, partition: int) -> None:
        """The record of a change ``hold`` made, to ``partition``'s changelog: sent from the
        commit, outside any message, so the partition is given rather than the current
        event's. A key that expired meanwhile stays deleted (its tombstone is on its way).

        Sending does not count as touching the key: it expires by when it last changed."""
        if key in self.data:
            self.send_changelog(partition, key, held)

    def send_changelog(  # type: ignore[override]  # a future of the record, not Faust's message
        self,
        partition: int,
        key: Any,
        value: Any,
        key_serializer: Any = None,
        value_serializer: Any = None,
    ) -> Acked:
        """One change, to the producer past Faust's buffer and topic
        (``article_runtime.streams.kafka.changelog``).

        Key and value are serialized by the changelog topic as Faust's own send does, so
        recovery reads them back the same; once the broker has the record, Faust's callback
        keeps its offset (RocksDB: where recovery starts).
        """
        topic = cast(faust.Topic, self.changelog_topic)  # Faust's own: it serializes
        final_key, _ = topic.prepare_key(key, key_serializer or self.key_serializer, None, {})
        final_value, _ = topic.prepare_value(
            value, value_serializer or self.value_serializer, None, {}
        )
        acked = self._sends.send(topic.get_topic_name(), final_key, final_value, partition)
        self._latest[key] = acked
        acked.add_done_callback(lambda done: self._sent(key, done))
        return acked

    def _sent(self, key: Any, done: Acked) -> None:
        if self._latest.get(key) is done:
            del self._latest[key]
        if done.cancelled():
            return
        if (exc := done.exception()) is not None:
            # Whoever awaits ``confirmed`` fails with it; one superseded meanwhile, nobody.
            _log.warning("changelog %s: a change was not written (%r)", self.name, exc)
            return
        self._on_changelog_sent(done)  # type: ignore[arg-type]  # reads .result() only

    async def handed_over(self) -> None:
        """Return once every change made so far is with the producer (``Producer.flush``)."""
        await self._sends.handed_over()

    async def confirmed(self, key: Any) -> None:
        """Return once the latest change of ``key`` is acknowledged by the broker.

        A change the producer could not write (a broker away longer than the producer's
        request timeout) ends the worker without a commit, as a failed output does
        (``Wiring.publish``): the input is redelivered and the change made again, instead of
        the article ending as the stage's ``internal_error``. Nothing about the input made
        it fail: table values are small and every changelog allows the topics' message size.
        """
        pending = self._latest.get(key)
        if pending is None:
            return
        try:
            await asyncio.shield(pending)  # abandoned work must not cancel the record's future
        except asyncio.CancelledError:
            raise  # the work or the loop is ending, not the write failing
        except Exception:
            exit_without_commit(f"changelog {self.name}: a change was not written")

    async def all_confirmed(self) -> None:
        """Return once every change sent so far is acknowledged (``confirmed`` of each key)."""
        await asyncio.gather(*(self.confirmed(key) for key in list(self._latest)))

    def expire(self, partition: int, max_age_s: float) -> int:
        """Drop this partition's keys untouched for ``max_age_s`` (sweeps at most once a minute).

        Call it from the owning agent while it handles an event of ``partition``.
        """
        now = time.time()
        if now - self._swept.get(partition, 0.0) < min(SWEEP_EVERY_S, max_age_s / 2):
            return 0
        self._swept[partition] = now
        old = expired(
            list(self.keys()),
            self._touched,
            partition=partition,
            now=now,
            max_age_s=max_age_s,
            partition_of=lambda key: partition_of(key, self.partitions or PARTITIONS),
        )
        for key in old:
            del self[key]
            self._touched.pop(key, None)
        return len(old)


def table(app: faust.App, name: str) -> StateTable:
    """A table co-partitioned with the topics (its changelog follows the source partition),
    string keys, JSON values (held packed) that agents reassign whole on every change.

    Faust creates the changelog topic with the broker's default message size (1 MiB) unless
    told otherwise; values here are small (references and hashes, not articles), but a table
    must never be the place a large page fails, so the changelog gets the topics' size.
    """
    made = StateTable(
        app,
        name=name,
        default=None,
        beacon=app.tables.beacon,
        partitions=app.conf.topic_partitions,  # the topics' count: the changelog follows them
        key_type=str,
        value_type=bytes,  # packed values go to the changelog as they are
        extra_topic_configs={"max.message.bytes": str(MAX_MESSAGE_BYTES)},
    )
    app.tables.add(cast(TableT[str, Any], made))
    return made

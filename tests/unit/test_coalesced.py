"""Table changes held until the commit (``article_runtime.streams.kafka.coalesced``): read back at
once, written as one record per changed key with its latest value and the partition it was made for,
and ``flush`` returns only once a confirmed record holds every change made before it."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.streams.kafka.coalesced import Coalesced


class Table(dict[str, Any]):
    """A table whose records the broker confirms when the test says so, in any order."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[tuple[str, bytes, int]] = []  # key, packed value, partition
        self.unconfirmed: dict[str, list[asyncio.Event]] = {}  # each key's records in flight
        self.confirmed_values: dict[str, bytes] = {}  # each key's last confirmed value

    def hold(self, key: str, value: Any) -> bytes:
        self[key] = value
        return str(value).encode()

    def send_held(self, key: str, held: bytes, partition: int) -> None:
        self.records.append((key, held, partition))
        self.unconfirmed.setdefault(key, []).append(asyncio.Event())

    async def all_confirmed(self) -> None:
        for waiting in [e for events in self.unconfirmed.values() for e in events]:
            await waiting.wait()

    def release(self, key: str) -> None:
        """The broker confirms the key's records so far (a partition's, in order)."""
        self.confirmed_values[key] = self._last(key)
        for waiting in self.unconfirmed.pop(key):
            waiting.set()

    def _last(self, key: str) -> bytes:
        return [held for k, held, _ in self.records if k == key][-1]


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(
        st.one_of(
            st.tuples(st.sampled_from("abc"), st.integers(0, 5)),
            st.just("flush"),
            st.just("confirm"),
        ),
        min_size=1,
        max_size=40,
    ),
)
def test_a_flush_returns_only_once_a_confirmed_record_holds_every_change_before_it(
    steps: list[Any],
) -> None:
    async def scenario() -> None:
        table = Table()
        writes = Coalesced(table)
        made: dict[str, Any] = {}  # each key's latest value and partition
        flushes: list[tuple[dict[str, Any], asyncio.Task[None]]] = []
        for n, step in enumerate(steps):  # a change's value is its step: later is larger
            if step == "flush":
                flushes.append((dict(made), asyncio.ensure_future(writes.flush())))
            elif step == "confirm":
                for key in sorted(table.unconfirmed):
                    table.release(key)
            else:
                key, partition = step
                writes.set(key, n, partition)
                made[key] = (n, partition)
                assert writes.get(key) == n  # read back at once, in the order made
            await settle()
            for before, task in flushes:
                if task.done():  # a confirmed record holds each change made before it, or later
                    for key, (value, _) in before.items():
                        assert int(table.confirmed_values.get(key, b"-1")) >= value, key
        last = asyncio.ensure_future(writes.flush())
        await settle()
        for key in sorted(table.unconfirmed):
            table.release(key)
        await asyncio.gather(last, *(task for _, task in flushes))
        # The latest record of every key holds its latest value, for its latest partition.
        latest = {key: (held, partition) for key, held, partition in table.records}
        assert latest == {k: (str(v).encode(), p) for k, (v, p) in made.items()}
        assert writes.pending == 0

    asyncio.run(scenario())


def test_changes_between_two_flushes_go_out_as_one_record_per_key() -> None:
    async def scenario() -> Table:
        table = Table()
        writes = Coalesced(table)
        for n in (1, 2, 3):
            writes.set("k", n, 4)
        writes.set("j", 7, 2)
        assert table.records == []  # nothing is written before the commit asks
        flushing = asyncio.ensure_future(writes.flush())
        await settle()
        assert not flushing.done()  # the broker has not confirmed them yet
        writes.set("k", 5, 4)  # made during the flush: waits for the next one
        table.release("k")
        table.release("j")
        await flushing
        return table

    assert asyncio.run(scenario()).records == [("k", b"3", 4), ("j", b"7", 2)]


def test_a_flush_with_nothing_changed_writes_nothing() -> None:
    table = Table()
    asyncio.run(Coalesced(table).flush())
    assert table.records == []

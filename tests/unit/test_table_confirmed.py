"""``StateTable.confirmed``: a change the broker has returns, a change the producer could not
write ends the worker without a commit (as a failed output does), and work being abandoned is
cancelled, not ended."""

from __future__ import annotations

import asyncio
from typing import Any

import faust
import pytest
from aiokafka.structs import RecordMetadata, TopicPartition

from article_runtime.streams.kafka import tables
from article_runtime.streams.kafka.tables import StateTable, table
from article_runtime.streams.kafka.topics import PARTITIONS, partition_of


class Exited(Exception):
    """Stands in for ``os._exit``: the test sees the exit instead of losing its process."""


@pytest.fixture
def exits(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    why: list[str] = []

    def exit_without_commit(reason: str) -> None:
        why.append(reason)
        raise Exited(reason)

    monkeypatch.setattr(tables, "exit_without_commit", exit_without_commit)
    return why


def ladder() -> StateTable:
    return table(faust.App("table-confirmed", broker="kafka://127.0.0.1:1"), "ladder")


async def confirm(pending: asyncio.Future[object] | None, settle: object) -> None:
    """``confirmed`` of a key whose latest change is ``pending``, which ``settle`` settles."""
    made = ladder()
    if pending is not None:
        made._latest["a1"] = pending
    waiting = asyncio.ensure_future(made.confirmed("a1"))
    await asyncio.sleep(0)
    if isinstance(settle, BaseException):
        assert pending is not None
        pending.set_exception(settle)
    elif settle == "cancel-record":
        assert pending is not None
        pending.cancel()
    elif settle == "abandon":
        waiting.cancel()
    elif pending is not None:
        pending.set_result(settle)
    await waiting


def test_an_acknowledged_change_returns(exits: list[str]) -> None:
    async def run() -> None:
        await confirm(asyncio.get_running_loop().create_future(), "metadata")
        await confirm(None, None)  # no change in flight for the key: nothing to wait for

    asyncio.run(run())
    assert exits == []


@pytest.mark.parametrize("error", [TimeoutError("no leader"), RuntimeError("producer closed")])
def test_a_change_not_written_ends_the_worker_without_commit(
    exits: list[str], error: Exception
) -> None:
    async def run() -> None:
        await confirm(asyncio.get_running_loop().create_future(), error)

    with pytest.raises(Exited):
        asyncio.run(run())
    assert exits == ["changelog ladder: a change was not written"]


@pytest.mark.parametrize("settle", ["cancel-record", "abandon"])
def test_cancelled_work_or_records_are_cancelled_not_exits(exits: list[str], settle: str) -> None:
    async def run() -> None:
        await confirm(asyncio.get_running_loop().create_future(), settle)

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(run())
    assert exits == []


def held_table(sent: list[tuple[bytes, bytes | None, int]]) -> StateTable:
    """A table whose records are captured (key, value, partition) and confirmed at once."""
    made = ladder()

    def send(topic: str, key: bytes, value: bytes | None, partition: int) -> asyncio.Future[Any]:
        sent.append((key, value, partition))
        done = asyncio.get_running_loop().create_future()
        where = TopicPartition(topic, partition)
        done.set_result(RecordMetadata(topic, partition, where, 0, None, 0, None))
        return done

    made._sends.send = send  # type: ignore[method-assign]
    made.partition_for_key = lambda key: 0  # type: ignore[method-assign]  # expiry's tombstones
    return made


def test_a_held_change_is_read_at_once_and_written_only_when_sent() -> None:
    """``hold`` then ``send_held`` (``article_runtime.streams.kafka.coalesced``): the value reads
    back before any record, and the record carries the held value to the partition given."""
    sent: list[tuple[bytes, bytes | None, int]] = []

    async def run() -> None:
        made = held_table(sent)
        held = made.hold("a1", {"stage": "ingested"})
        assert made["a1"] == {"stage": "ingested"} and sent == []
        made.send_held("a1", held, 4)
        assert sent == [(b'"a1"', held, 4)]  # keys are JSON strings
        await made.all_confirmed()

    asyncio.run(run())


def test_a_held_key_expires_by_when_it_changed_and_stays_deleted() -> None:
    """Sending a held change is not a touch (with a retention shorter than the time between
    commits, the record would keep refreshing the key), and a key that expired before its
    record went out is not written back after its tombstone."""
    sent: list[tuple[bytes, bytes | None, int]] = []

    count = ladder().partitions or PARTITIONS  # sweeps go partition by partition
    home = partition_of("a1", count)
    other = next(k for k in (f"a{n}" for n in range(2, 99)) if partition_of(k, count) == home)

    async def run() -> None:
        made = held_table(sent)
        kept = made.hold("a1", {"n": 1})
        made._touched["a1"] -= 10  # changed ten seconds ago
        made.send_held("a1", kept, home)
        gone = made.hold(other, {"n": 2})
        made._touched[other] -= 10
        assert made.expire(home, max_age_s=5) == 2
        made.send_held(other, gone, home)
        assert "a1" not in made.data and other not in made.data

    asyncio.run(run())
    # a1's record, then both tombstones (on the partition faked for deletions), and no more.
    written = [(key, value is None, partition) for key, value, partition in sent]
    assert written == [(b'"a1"', False, home), (b'"a1"', True, 0), (f'"{other}"'.encode(), True, 0)]

"""``StateTable.confirmed``: a change the broker has returns, a change the producer could not
write ends the worker without a commit (as a failed output does), and work being abandoned is
cancelled, not ended."""

from __future__ import annotations

import asyncio

import faust
import pytest

from streams import tables
from streams.tables import StateTable, table


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

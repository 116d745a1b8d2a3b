"""The worker's loop choice takes effect on every loop made after it, and is reported truly."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from article_runtime.streams.service import event_loop


@pytest.fixture(autouse=True)
def stdlib_policy_after() -> Iterator[None]:
    yield
    asyncio.set_event_loop_policy(None)


async def loop_name() -> str:
    return event_loop.running_loop()


def in_a_new_thread() -> str:
    """What a loop made in another thread runs on, as Faust's consumer thread makes its own."""
    found: list[str] = []
    thread = threading.Thread(target=lambda: found.append(asyncio.run(loop_name())))
    thread.start()
    thread.join()
    return found[0]


@pytest.mark.parametrize("name", event_loop.EVENT_LOOPS)
def test_every_loop_made_after_the_choice_is_the_chosen_one(name: str) -> None:
    event_loop.use(name)
    assert asyncio.run(loop_name()) == name
    assert in_a_new_thread() == name


def test_choosing_asyncio_undoes_uvloop() -> None:
    event_loop.use("uvloop")
    event_loop.use("asyncio")
    assert asyncio.run(loop_name()) == "asyncio"

"""Where the hygiene stage parses a page: on the event loop up to the limit (a thread cost more
CPU than the parse, both threads trading the interpreter lock), even while the thread parses a
larger one; larger ones in the pages thread, so no page stalls the loop long; and never two at
once, even when the stage stops waiting for one (two parses at once crashed a worker in lxml).
Either way the candidate set is the same."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.agents.candidates import candidates_of
from article_runtime.agents.pages import INLINE_PAGE_BYTES, Pages
from article_runtime.streams.commands.publish_inputs import ingested_record
from tests.support.stream_cases import make_articles

AT = ("article.ingested", 0, 5)


def padded(html: bytes, size: int) -> bytes:
    """The page grown to ``size`` bytes by a comment before its end (no text added)."""
    filler = size - len(html) - len(b"<!---->")
    assert filler >= 0
    cut = html.rindex(b"</html>") if b"</html>" in html else len(html)
    return html[:cut] + b"<!--" + b"x" * filler + b"-->" + html[cut:]


@pytest.mark.parametrize(
    ("size", "on_loop"), [(INLINE_PAGE_BYTES, True), (INLINE_PAGE_BYTES + 1, False)]
)
def test_a_page_is_parsed_on_the_loop_up_to_the_limit_and_in_the_pages_thread_beyond(
    size: int, on_loop: bool
) -> None:
    case = make_articles(1, seed=3)[0]
    record = ingested_record(case.article_id, case.url, padded(case.html, size))
    assert len(record["html"]) == size
    parsed_on: list[str] = []

    def spied(*args: Any, **kwargs: Any) -> Any:
        parsed_on.append(threading.current_thread().name)
        return candidates_of(*args, **kwargs)

    pages = Pages(parse=spied)
    try:
        built = asyncio.run(pages.parsed(record, AT))
    finally:
        pages.shutdown()
    assert (parsed_on == [threading.current_thread().name]) is on_loop
    assert built == candidates_of(record, at=AT)


SMALL = 100  # the limit the tests below give ``Pages``: pages of a few bytes either side


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([1, SMALL, SMALL + 1, 2 * SMALL]), st.booleans()),
        min_size=1,
        max_size=8,
    ),
    st.floats(0.0, 0.003),
    st.floats(0.0, 0.004),
)
def test_no_two_pages_are_parsed_at_once_wherever_each_is_parsed_and_whoever_stops_waiting(
    pages_asked: list[tuple[int, bool]], parse_s: float, cancel_after_s: float
) -> None:
    """Pages of any mix of sizes, all asked for at once, some of the waits cancelled (a revoked
    partition): each parse sleeps (releasing the interpreter lock, as lxml does) so an overlap
    would show, and none may overlap, nor may a cancelled wait free the slot while its page is
    still being parsed in the thread. Every wait not cancelled gets its own page's result."""
    running, peak, count = 0, 0, threading.Lock()

    def slow(record: dict[str, Any], *, at: tuple[str, int, int]) -> Any:
        nonlocal running, peak
        with count:
            running += 1
            peak = max(peak, running)
        time.sleep(parse_s)
        with count:
            running -= 1
        return record["article_id"]

    records = [
        {"article_id": f"a{n}", "html": b"x" * size} for n, (size, _) in enumerate(pages_asked)
    ]
    pages = Pages(parse=slow, inline_bytes=SMALL)

    async def all_at_once() -> list[Any]:
        tasks = [asyncio.create_task(pages.parsed(r, AT)) for r in records]
        await asyncio.sleep(cancel_after_s)
        for task, (_, cancel) in zip(tasks, pages_asked, strict=True):
            if cancel:
                task.cancel()
        return await asyncio.gather(*tasks, return_exceptions=True)

    try:
        results = asyncio.run(all_at_once())
    finally:
        pages.shutdown()
    assert peak == 1
    for record, (_, cancel), result in zip(records, pages_asked, results, strict=True):
        if not cancel:
            assert result == record["article_id"]


def test_a_page_within_the_limit_is_parsed_on_the_loop_even_while_the_thread_parses() -> None:
    """The page waits for the slot and is then parsed on the loop: it does not follow the large
    one into the thread (before, any page asked for while the thread parsed went there, and on
    real pages the thread took nearly every page)."""
    parsed_on: dict[str, str] = {}
    large_started, large_may_end = threading.Event(), threading.Event()

    def spied(record: dict[str, Any], *, at: tuple[str, int, int]) -> Any:
        parsed_on[record["article_id"]] = threading.current_thread().name
        if record["article_id"] == "large":
            large_started.set()
            assert large_may_end.wait(5)
        return record["article_id"]

    pages = Pages(parse=spied, inline_bytes=SMALL)

    async def both() -> list[Any]:
        large = asyncio.create_task(
            pages.parsed({"article_id": "large", "html": b"x" * 2 * SMALL}, AT)
        )
        assert await asyncio.to_thread(large_started.wait, 5)
        small = asyncio.create_task(pages.parsed({"article_id": "small", "html": b"x"}, AT))
        await asyncio.sleep(0.01)
        assert "small" not in parsed_on  # one parse at a time: it waits for the slot
        large_may_end.set()
        return list(await asyncio.gather(large, small))

    try:
        assert asyncio.run(both()) == ["large", "small"]
    finally:
        pages.shutdown()
    assert parsed_on["large"].startswith("candidates")
    assert parsed_on["small"] == threading.current_thread().name

"""Where the hygiene stage parses a page: small ones on the event loop (a thread cost more CPU
than the parse, both threads trading the interpreter lock), large ones in the pages thread, so
no page stalls the loop long; and never two at once (two parses at once crashed a worker in
lxml). Either way the candidate set is the same."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.candidates import candidates_of
from agents.pages import INLINE_PAGE_BYTES, Pages
from streams.publish import ingested_record
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


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.sampled_from([1, INLINE_PAGE_BYTES, INLINE_PAGE_BYTES + 1, 2 * INLINE_PAGE_BYTES]),
        min_size=1,
        max_size=8,
    ),
    st.floats(0.0, 0.003),
)
def test_no_two_pages_are_parsed_at_once_wherever_each_is_parsed(
    sizes: list[int], parse_s: float
) -> None:
    """Pages of any mix of sizes, all asked for at once: each parse sleeps (releasing the
    interpreter lock, as lxml does) so an overlap would show, and none may overlap."""
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

    records = [{"article_id": f"a{n}", "html": b"x" * size} for n, size in enumerate(sizes)]
    pages = Pages(parse=slow)

    async def all_at_once() -> list[Any]:
        return await asyncio.gather(*(pages.parsed(r, AT) for r in records))

    try:
        built = asyncio.run(all_at_once())
    finally:
        pages.shutdown()
    assert peak == 1
    assert built == [r["article_id"] for r in records]

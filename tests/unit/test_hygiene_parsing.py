"""Where the hygiene stage parses a page: small ones on the event loop (a thread cost more CPU
than the parse, both threads trading the interpreter lock), large ones in the pages thread, so
no page stalls the loop long. Either way the candidate set is the same."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import agents.hygiene
from agents.candidates import candidates_of
from agents.hygiene import INLINE_PAGE_BYTES, parsed
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
    size: int, on_loop: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = make_articles(1, seed=3)[0]
    record = ingested_record(case.article_id, case.url, padded(case.html, size))
    assert len(record["html"]) == size
    parsed_on: list[str] = []

    def spied(*args: Any, **kwargs: Any) -> Any:
        parsed_on.append(threading.current_thread().name)
        return candidates_of(*args, **kwargs)

    monkeypatch.setattr(agents.hygiene, "candidates_of", spied)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="pages") as pages:
        built = asyncio.run(parsed(record, AT, pages))
    assert (parsed_on == [threading.current_thread().name]) is on_loop
    assert built == candidates_of(record, at=AT)

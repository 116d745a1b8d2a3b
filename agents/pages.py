"""Where the hygiene stage parses ingested pages: one page at a time in the whole worker, on
the event loop unless the page is too large for that.

Two page parses at once crash the process: with a small page parsed on the event loop while a
large one was parsed in the pages thread, both inside trafilatura (lxml underneath), a worker
aborted in C code twice in about a dozen ``make bench-stream --pages aeb`` runs (glibc
``free(): invalid pointer``; faulthandler showed the loop in trafilatura's tree copy and the
thread in ``trafilatura.extract``). So the worker has one parse slot, taken in turn on the
event loop. A page up to ``INLINE_PAGE_BYTES`` is parsed on the loop once the slot is free; a
larger one is parsed in the pages thread, and the slot stays taken until that parse has ended,
even when the stage stops waiting for it (a revoked partition cancels its work).

Pages used to go to the thread whenever the slot was busy, which on real news pages meant
while the thread parsed: the thread then took about a third of the worker's CPU, and the loop
and the thread traded the interpreter lock at every switch interval (``bench/THROUGHPUT.md``,
the eleventh look).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from article_runtime.agents.candidates import candidates_of
from article_runtime.model import CandidateSet
from article_runtime.streams.service.wiring import Emit

# Pages up to this size are parsed on the event loop. On the 161 usable raw news pages of
# ../shared/bench/aeb (median 116 KiB, largest 1.4 MiB) a parse takes 9-19 ms median by size
# and 97 ms at most, so the loop (acks, model answers, web views; heartbeats run in the
# consumer's own thread) waits no longer than that. Hostile pages within the limit
# (bench.slow_pages) take up to about a second: 0.98 s for 830 KB of inline tags in one
# paragraph, 0.84 s for 300 KB of nested tables; the liveness probe allows a minute. A larger
# page, rare and possibly pathological, goes to the pages thread so that it cannot stall the
# loop for longer.
INLINE_PAGE_BYTES = 1024 * 1024
Parse = Callable[..., CandidateSet | Emit]  # ``candidates_of``'s shape: (record, *, at)


class Pages:
    """The worker's one parse slot, and the thread that parses the pages too large for the loop."""

    def __init__(self, parse: Parse = candidates_of, *, inline_bytes: int = INLINE_PAGE_BYTES):
        self._parse = parse
        self._inline_bytes = inline_bytes
        self._slot = asyncio.Lock()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="candidates")

    async def parsed(self, record: dict[str, Any], at: tuple[str, int, int]) -> CandidateSet | Emit:
        """The candidate set of an ingested page (or its terminal event)."""
        await self._slot.acquire()
        if len(record["html"]) <= self._inline_bytes:
            try:
                return self._parse(record, at=at)
            finally:
                self._slot.release()
        loop = asyncio.get_running_loop()
        try:
            parsing = self._thread.submit(self._parse, record, at=at)
        except BaseException:
            self._slot.release()
            raise
        # Released when the parse has ended, not when this coroutine stops waiting for it: a
        # cancelled wait leaves the thread parsing, and no other parse may start meanwhile.
        parsing.add_done_callback(lambda _: _on_loop(loop, self._slot.release))
        return await asyncio.wrap_future(parsing)

    def shutdown(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)


def _on_loop(loop: asyncio.AbstractEventLoop, call: Callable[[], None]) -> None:
    """``call`` on ``loop`` from any thread; nothing once the loop is closed (the worker is
    stopping and nobody waits for the slot)."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(call)

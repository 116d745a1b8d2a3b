"""Where the hygiene stage parses ingested pages: one page at a time in the whole worker.

Two page parses at once crash the process: with a small page parsed on the event loop while a
large one was parsed in the pages thread, both inside trafilatura (lxml underneath), a worker
aborted in C code twice in about a dozen ``make bench-stream --pages aeb`` runs (glibc
``free(): invalid pointer``; faulthandler showed the loop in trafilatura's tree copy and the
thread in ``trafilatura.extract``). So every parse holds one lock. A small page is parsed on
the loop only when the lock is free at once (the loop never waits for it); otherwise, and
always for a large page, the page goes to the pages thread, which waits for the lock.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agents.candidates import candidates_of
from article_runtime.model import CandidateSet
from streams.wiring import Emit

# Pages up to this size may be parsed on the event loop: here about 30 ms median and under
# 100 ms at most on the real pages of ../shared/bench. Handing such a page to a thread cost
# more CPU than parsing it: the thread and the event loop, both busy, traded the interpreter
# lock at every switch interval (6 ms of worker CPU per article in make bench-stream). A
# larger page goes to the thread, so no page stalls the loop (heartbeats, acks, model answers)
# for long.
INLINE_PAGE_BYTES = 128 * 1024
Parse = Callable[..., CandidateSet | Emit]  # ``candidates_of``'s shape: (record, *, at)


class Pages:
    """The pages thread and the lock every parse holds."""

    def __init__(self, parse: Parse = candidates_of) -> None:
        self._parse = parse
        self._parsing = threading.Lock()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="candidates")

    async def parsed(self, record: dict[str, Any], at: tuple[str, int, int]) -> CandidateSet | Emit:
        """The candidate set of an ingested page (or its terminal event)."""
        if len(record["html"]) <= INLINE_PAGE_BYTES and self._parsing.acquire(blocking=False):
            try:
                return self._parse(record, at=at)
            finally:
                self._parsing.release()
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, self._parsed_when_free, record, at)

    def _parsed_when_free(
        self, record: dict[str, Any], at: tuple[str, int, int]
    ) -> CandidateSet | Emit:
        with self._parsing:
            return self._parse(record, at=at)

    def shutdown(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)

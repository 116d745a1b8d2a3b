"""Table changes to the producer, in the order they were made, from code that cannot await.

A Faust table writes each change from ``__setitem__`` (synchronous) by way of its changelog
topic's ``send_soon``: a ``FutureMessage`` and a ``PendingMessage`` per change, Faust's
producer buffer, the topic's publish path with two sensor hooks, and a future per layer.
The stages' tables change about seven times per article; the profile put those layers at
about 4% of the worker's CPU, on top of the producer's own send. ``OrderedSends`` does what
they did for us and no more: one queue, drained by one task, so a key's changes reach the
producer in the order they were made, and a future per change that the broker's
acknowledgement (or the send's failure) settles.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Callable
from typing import Any, cast

from faust.types import ProducerT

Acked = asyncio.Future[Any]  # settles with the producer's RecordMetadata


class OrderedSends:
    """One table's changelog records on their way to ``producer()``."""

    def __init__(self, producer: Callable[[], ProducerT]) -> None:
        self._producer = producer
        self._queue: deque[tuple[str, bytes, bytes | None, int, Acked]] = deque()
        self._draining: asyncio.Task[None] | None = None

    def send(self, topic: str, key: bytes, value: bytes | None, partition: int) -> Acked:
        """Queue one record (``None``: a deletion); the result settles once the broker has it."""
        acked: Acked = asyncio.get_running_loop().create_future()
        self._queue.append((topic, key, value, partition, acked))
        if self._draining is None:
            self._draining = asyncio.ensure_future(self._drain())
        return acked

    async def handed_over(self) -> None:
        """Return once every record queued so far is with the producer, so that the producer's
        flush covers it. Records queued meanwhile are not waited for: under a steady stream of
        changes the queue may never be empty, and a flush must still end."""
        if self._queue:
            # Handed over in order: once the last record queued so far has settled (acked,
            # refused or cancelled), it and every one before it went to the producer.
            await asyncio.wait({self._queue[-1][-1]})  # never cancels the record's future

    async def _drain(self) -> None:
        try:
            while self._queue:
                topic, key, value, partition, acked = self._queue[0]
                try:
                    # Awaited one at a time: the producer appends records in call order.
                    producer = self._producer()
                    sent = await producer.send(topic, key, value, partition, None, None)
                except Exception as exc:  # the record's failure, for whoever awaits it
                    _settle_failed(acked, exc)
                else:
                    future = cast("asyncio.Future[Any]", sent)  # aiokafka's, typed loosely
                    future.add_done_callback(functools.partial(_settle, acked))
                self._queue.popleft()
        finally:
            self._draining = None
            while self._queue:  # left only when this task was cancelled (the loop is closing)
                self._queue.popleft()[-1].cancel()


def _settle(acked: Acked, done: asyncio.Future[Any]) -> None:
    if acked.done():
        return
    if done.cancelled():
        acked.cancel()
    elif (exc := done.exception()) is not None:
        _settle_failed(acked, exc)
    else:
        acked.set_result(done.result())


def _settle_failed(acked: Acked, exc: BaseException) -> None:
    if not acked.done():
        acked.set_exception(exc)

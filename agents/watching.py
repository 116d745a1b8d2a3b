"""Messages an agent reads only to learn from, on a topic another agent owns.

The assembly and enrichment agents read the compensation topic to learn that a newer version
of an article ended early. Problems with those messages are their owner's to report (the
compensation agent turns an undecodable value into a terminal event): a watcher logs and moves
on, so one bad message does not become three events.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from article_runtime.streams.kafka.codec import CodecError
from article_runtime.streams.kafka.topics import BY_NAME
from article_runtime.streams.service.wiring import Event, Wiring

_log = logging.getLogger(__name__)


async def watch(
    w: Wiring, event: Event, learn: Callable[[dict[str, Any]], Awaitable[None]]
) -> None:
    """Decode ``event`` and hand it to ``learn``; never raises, never emits."""
    message = event.message
    try:
        record = w.codec.decode(message.value or b"", BY_NAME[message.topic].schema)
    except CodecError:
        return
    try:
        await learn(record)
    except Exception:
        _log.exception("could not learn from %s[%d]@%d", *_where(event))


def _where(event: Event) -> tuple[str, int, int]:
    message = event.message
    return message.topic, message.partition, message.offset

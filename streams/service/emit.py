"""What a stage hands the wiring to produce: one message, its topic, article key and record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from article_runtime.streams.kafka.topics import Topic


@dataclass(frozen=True)
class Emit:
    """One message a stage wants produced: topic, article key, Avro record (and headers: only
    a forwarded record carries one, where it was produced,
    ``article_runtime.streams.service.routing``)."""

    topic: Topic
    article_id: str
    record: dict[str, Any]
    headers: tuple[tuple[str, bytes], ...] = ()

"""Reading our topics from outside the worker: decode a message, print it, drop repeats.

Consumer code imports these instead of re-implementing the contract (``schemas/README.md``):

    from article_runtime.streams.kafka.decoding import Deduplicator, decode_message, json_ready

    seen = Deduplicator()
    record = decode_message(message.topic(), message.value())  # raises DecodeError
    if seen.first(message.topic(), record):
        handle(json_ready(record))

``decode_message`` resolves any writer schema we ever released to the current reader schema,
so records written before a schema change read the same way (new fields take their defaults).
Delivery is at-least-once: a fault repeats a message, never changes it, and ``DEDUP_KEYS``
names per topic the fields that identify a repeat.
"""

from __future__ import annotations

import base64
import json
from collections import OrderedDict
from collections.abc import Mapping
from datetime import datetime
from functools import cache
from typing import Any

from article_runtime.streams.kafka.codec import AvroCodec, DecodeError
from article_runtime.streams.kafka.registry_codec import codec_from_env
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_ENRICHED,
    ARTICLE_INGESTED,
    ARTICLE_PROPOSAL,
    BY_NAME,
    ECP_VERDICT,
    SOURCE_OF,
)

__all__ = [
    "DEDUP_KEYS",
    "DecodeError",
    "Deduplicator",
    "UnknownTopic",
    "decode_message",
    "dedup_key",
    "json_ready",
]

# By contract name (``Topic.key``), the fields (dotted paths) that identify one record: two
# messages equal on them are one record delivered twice. Only fields a redelivery cannot change
# are named (no timestamps of when a stage ran, which a redelivered input gets anew).
DEDUP_KEYS: dict[str, tuple[str, ...]] = {
    ARTICLE_INGESTED.key: ("article_id", "received_at", "version"),
    # One rung of one ladder is answered once (a repeat proposes the answer held).
    ARTICLE_PROPOSAL.key: ("article_id", "version", "redrive", "attempt", "rung"),
    ARTICLE_ASSEMBLED.key: ("article_id", "hashes.markdown"),
    ECP_VERDICT.key: ("article_id", "entity.qid", "article_hash", "approved"),
    ARTICLE_ENRICHED.key: ("article_id", "entity.qid", "content_hash"),
    ARTICLE_COMPENSATION.key: (
        "article_id",
        "stage",
        "kind",
        "reason",
        "next_attempt",
        "attempts_so_far",
        "entity.qid",
        "version",
        "origin",
    ),
}
DEDUP_MEMORY = 1_000_000  # keys a ``Deduplicator`` remembers (the oldest are forgotten first)


class UnknownTopic(ValueError):
    """Not one of our topics: there is no schema to read it with."""


@cache
def _codec() -> AvroCodec:
    return codec_from_env()  # reads the registry's wire format too when one is configured


def decode_message(topic: str, value: bytes | None) -> dict[str, Any]:
    """The record a message of ``topic`` holds, as Python values (bytes, aware datetimes).

    Raises:
        UnknownTopic: ``topic`` is not one of ours.
        DecodeError: the value is not a record of the topic's schema (``reason`` says how).
    """
    found = BY_NAME.get(topic)
    if found is None:
        raise UnknownTopic(f"{topic} is not one of: {', '.join(BY_NAME)}")
    return _codec().decode(value or b"", found.schema)


def json_ready(value: Any) -> Any:
    """``value`` with bytes as base64 text and datetimes as ISO 8601 (UTC): what JSON can hold."""
    if isinstance(value, Mapping):
        return {key: json_ready(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(item) for item in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _at(record: Mapping[str, Any], path: str) -> Any:
    value: Any = record
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    # Canonical JSON: hashable, and dicts (version, origin) compare by content, not key order.
    return json.dumps(json_ready(value), sort_keys=True, ensure_ascii=False)


def dedup_key(topic: str, record: Mapping[str, Any]) -> tuple[str, ...]:
    """What identifies ``record`` on ``topic`` (``DEDUP_KEYS``): equal keys, same record."""
    paths = DEDUP_KEYS[SOURCE_OF.get(BY_NAME[topic], BY_NAME[topic]).key]
    return (topic, *(_at(record, path) for path in paths))


class Deduplicator:
    """Remembers the last ``memory`` keys it saw; ``first`` is False for a repeat among them."""

    def __init__(self, memory: int = DEDUP_MEMORY) -> None:
        self.memory = memory
        self._seen: OrderedDict[tuple[str, ...], None] = OrderedDict()

    def first(self, topic: str, record: Mapping[str, Any]) -> bool:
        key = dedup_key(topic, record)
        if key in self._seen:
            self._seen.move_to_end(key)
            return False
        self._seen[key] = None
        if len(self._seen) > self.memory:
            self._seen.popitem(last=False)
        return True

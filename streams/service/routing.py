"""Whether a message sits where the contract puts it: key = article id, partition = murmur2.

Every stage that keeps per-article state finds an article's messages on one partition number
of every topic. A producer that hashes keys another way (librdkafka's default
``consistent_random`` is CRC32) puts an article elsewhere, and its state would be split or
joined with nothing, silently. Inputs from outside the worker are checked here; a misrouted one
ends as a terminal compensation event with reason ``misrouted_key``.
"""

from __future__ import annotations

from typing import Any

import faust

from streams.kafka.topics import ARTICLE_COMPENSATION, BY_NAME, Topic, message_key, partition_of
from streams.service.compensation import Stage, compensation_event
from streams.service.wiring import Emit, Event, Wiring, origin

MISROUTED_KEY = "misrouted_key"


def misrouted(key: bytes | None, article_id: str, partition: int, partitions: int) -> str | None:
    """Why a message of ``article_id`` with ``key`` on ``partition`` is misplaced, or None."""
    if key != message_key(article_id):
        shown = "no key" if key is None else f"key {key[:80]!r}"
        return f"{shown}, not the article id as UTF-8 (schemas/README.md)"
    expected = partition_of(article_id, partitions)
    if partition != expected:
        return (
            f"on partition {partition}, murmur2 of the key puts it on {expected} of {partitions}: "
            "its producer does not partition with murmur2 (schemas/README.md)"
        )
    return None


def partition_count(app: faust.App, topic: Topic, configured: int) -> int:
    """The topic's partition count as the cluster reports it (the worker's until then)."""
    known = app.consumer.topic_partitions(topic.name)
    return known or configured


def misrouted_event(
    w: Wiring,
    event: Event,
    record: dict[str, Any],
    stage: Stage,
    entity: dict[str, Any] | None = None,
) -> Emit | None:
    """The terminal ``misrouted_key`` event for a message off its article's partition (it would
    wait for state the worker never sees there), or None when it sits where it belongs."""
    message = event.message
    partitions = partition_count(w.app, BY_NAME[message.topic], w.settings.partitions)
    why = misrouted(message.key, record["article_id"], message.partition, partitions)
    if why is None:
        return None
    failure = compensation_event(
        record["article_id"],
        stage=stage,
        kind="terminal",
        reason=MISROUTED_KEY,
        detail=why[:500],
        origin=origin(event),
        entity=entity,
    )
    return Emit(ARTICLE_COMPENSATION, record["article_id"], failure)

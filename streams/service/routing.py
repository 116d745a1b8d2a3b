"""Where a message from outside the worker is handled: on its article's partition.

Every stage that keeps per-article state finds an article's messages on one partition number
of every topic, the one murmur2 of the article id picks (the Java client's and aiokafka's
partitioner). Producers outside the worker (ingestion, the ECP classifier) need not hash alike:
librdkafka's default (``consistent_random``: CRC32, as kcat, confluent-kafka, Go and .NET
producers use it) puts most articles elsewhere. Such a record is forwarded, as Kafka Streams
does with a repartition topic: re-produced, keyed by its article, to the topic's internal
repartition topic (``article_runtime.streams.kafka.topics.REPARTITIONED``), which the stage reads
beside the source, co-partitioned. Its input offset is committed only once the forwarded copy is
acknowledged (the wiring's commits-follow-acks: an input is acked after its outputs).

The copy carries where the record was produced (header ``FORWARDED_FROM``): an ingested page's
version is its offset there (``article_runtime.agents.versions``), so versions of one article
compare as they were published, whatever order their copies arrive in. A record whose key is not its
article id cannot be placed by anyone: it ends as a terminal compensation event ``misrouted_key``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import faust

from article_runtime.streams.kafka.topics import (
    ARTICLE_COMPENSATION,
    BY_NAME,
    REPARTITIONED,
    SOURCE_OF,
    Topic,
    message_key,
    partition_of,
)
from article_runtime.streams.service.compensation import Stage, compensation_event
from article_runtime.streams.service.wiring import Emit, Event, Wiring, origin

MISROUTED_KEY = "misrouted_key"
FORWARDED_FROM = "article-runtime-forwarded-from"  # {"partition": int, "offset": int}, JSON


def misrouted(key: bytes | None, article_id: str) -> str | None:
    """Why a message of ``article_id`` with ``key`` cannot be placed, or None."""
    if key != message_key(article_id):
        shown = "no key" if key is None else f"key {key[:80]!r}"
        return f"{shown}, not the article id as UTF-8 (schemas/README.md)"
    return None


def partition_count(app: faust.App, topic: Topic, configured: int) -> int:
    """The topic's partition count as the cluster reports it (the worker's until then)."""
    known = app.consumer.topic_partitions(topic.name)
    return known or configured


def contract_topic(name: str) -> Topic:
    """The topic a message on ``name`` belongs to: a repartition topic's is its source."""
    topic = BY_NAME[name]
    return SOURCE_OF.get(topic, topic)


def source_offset(event: Event) -> int:
    """The offset a message had where its producer wrote it: a forwarded copy's source offset
    (its header), any other message's own."""
    message = event.message
    if BY_NAME[message.topic] in SOURCE_OF:
        headers = message.headers or ()
        pairs = headers.items() if isinstance(headers, Mapping) else headers
        for name, value in pairs:
            if name == FORWARDED_FROM:
                return int(json.loads(value)["offset"])
    return int(message.offset)


def forwarded_from(partition: int, offset: int) -> tuple[tuple[str, bytes], ...]:
    """The header a forwarded copy carries: where the record sits on its source topic."""
    where = json.dumps({"partition": partition, "offset": offset}).encode("utf-8")
    return ((FORWARDED_FROM, where),)


def placed(
    w: Wiring,
    event: Event,
    record: dict[str, Any],
    stage: Stage,
    entity: dict[str, Any] | None = None,
) -> list[Emit] | None:
    """None for a message to handle here (on its article's partition, or a forwarded copy);
    else what becomes of it: its copy for the repartition topic, or, for a key that is not
    the article id, the terminal ``misrouted_key`` event that says so."""
    message = event.message
    topic = BY_NAME[message.topic]
    article_id = record["article_id"]
    why = misrouted(message.key, article_id)
    if why is not None:
        failure = compensation_event(
            article_id,
            stage=stage,
            kind="terminal",
            reason=MISROUTED_KEY,
            detail=why[:500],
            origin=origin(event),
            entity=entity,
        )
        return [Emit(ARTICLE_COMPENSATION, article_id, failure)]
    internal = REPARTITIONED.get(topic)
    if internal is None:  # a forwarded copy: produced by us, keyed by its article
        return None
    partitions = partition_count(w.app, topic, w.settings.partitions)
    if message.partition == partition_of(article_id, partitions):
        return None
    headers = forwarded_from(message.partition, message.offset)
    return [Emit(internal, article_id, record, headers)]

"""Read a topic as it stands: every partition from a start to where it ended when asked.

For the commands that look at what a topic holds (``redrive``, ``replay``): one consumer
outside any group, nothing committed, records published after the read began left out.
Values that do not decode are skipped (the worker turned them into events already).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Consumer, KafkaError, TopicPartition

from article_runtime.streams.kafka.codec import AvroCodec, CodecError
from article_runtime.streams.kafka.topics import BY_NAME

READ_TIMEOUT_S = 30.0


class Unavailable(Exception):
    """What was asked for cannot be read; the message starts with a categorical reason."""


@dataclass(frozen=True)
class Read:
    """One decoded record and where it sits."""

    record: dict[str, Any]
    partition: int
    offset: int
    timestamp_ms: int


def read_to_end(
    consumer: Consumer,
    topic: str,
    codec: AvroCodec,
    *,
    since_ms: int | None = None,
    timeout_s: float = READ_TIMEOUT_S,
) -> Iterator[Read]:
    """Every decodable record of ``topic`` from ``since_ms`` (a time: the first record at or
    after it on each partition; None: the oldest kept) up to each partition's end when called.

    Raises:
        Unavailable: the topic is missing, or the cluster stopped answering.
    """
    metadata = consumer.list_topics(topic, timeout=timeout_s).topics[topic]
    if metadata.error is not None:
        raise Unavailable(f"topic_unavailable: {topic}: {metadata.error}")
    ends: dict[int, int] = {}
    starts = []
    for partition in sorted(metadata.partitions):
        low, high = consumer.get_watermark_offsets(
            TopicPartition(topic, partition), timeout=timeout_s
        )
        start = low
        if since_ms is not None:
            (found,) = consumer.offsets_for_times(
                [TopicPartition(topic, partition, since_ms)], timeout=timeout_s
            )
            start = high if found.offset < 0 else max(low, found.offset)
        if high > start:
            ends[partition] = high
            starts.append(TopicPartition(topic, partition, start))
    consumer.assign(starts)
    schema = BY_NAME[topic].schema
    reading = set(ends)
    try:
        while reading:
            message = consumer.poll(timeout_s)
            if message is None:
                raise Unavailable(f"read_timeout: {topic} after {timeout_s} s")
            partition, error = int(message.partition() or 0), message.error()
            if error is not None:
                if error.code() != KafkaError._PARTITION_EOF:
                    raise Unavailable(f"read_failed: {error}")
                reading.discard(partition)
                continue
            offset = int(message.offset() or 0)
            if offset >= ends[partition]:
                reading.discard(partition)  # published after the read began
                continue
            if offset == ends[partition] - 1:
                reading.discard(partition)
            try:
                record = codec.decode(message.value() or b"", schema)
            except CodecError:
                continue
            yield Read(record, partition, offset, int(message.timestamp()[1]))
    finally:
        consumer.unassign()

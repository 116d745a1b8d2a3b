"""What a worker retains per article: its resident memory and its tables' contents.

Both are read from outside the worker, as an operator would: RSS from ``/proc/<pid>/status``,
table contents from the tables' changelog topics (the latest value of each key, tombstones
removing keys), which is exactly what a restarted worker loads back into memory.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from confluent_kafka import OFFSET_BEGINNING, Consumer, Message, TopicPartition

from article_runtime.streams.kafka.connection import KafkaConnection


def rss_bytes(pid: int) -> int:
    """Resident set size of a live process (Linux ``VmRSS``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def changelog_topic(app_id: str, table: str) -> str:
    """Faust's name for a table's changelog topic."""
    return f"{app_id}-{table}-changelog"


def table_bytes(
    connection: KafkaConnection, topic: str, *, timeout_s: float = 60.0
) -> tuple[int, int]:
    """(keys, bytes of keys and values) in the table behind a changelog ``topic`` now."""
    latest = live_records(connection, topic, timeout_s=timeout_s)
    return len(latest), sum(len(key) + len(value) for key, value in latest.items())


def live_records(
    connection: KafkaConnection, topic: str, *, timeout_s: float = 60.0
) -> dict[bytes, bytes]:
    """The table behind a changelog ``topic`` now: each key's latest value, tombstones
    applied."""
    consumer = Consumer(
        {
            **connection.confluent(),
            "group.id": f"table-bytes-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
        }
    )
    try:
        latest: dict[bytes, bytes] = {}
        for message in _to_the_end(consumer, topic, timeout_s):
            key, value = message.key() or b"", message.value()
            if value is None:
                latest.pop(key, None)  # a tombstone: the key was deleted
            else:
                latest[key] = value
        return latest
    finally:
        consumer.close()


def _to_the_end(consumer: Consumer, topic: str, timeout_s: float) -> Iterator[Message]:
    """Every message of ``topic`` up to its current end."""
    metadata = consumer.list_topics(topic, timeout=10).topics.get(topic)
    partitions = [] if metadata is None else list(metadata.partitions)
    ends = {}
    for partition in partitions:
        _low, high = consumer.get_watermark_offsets(TopicPartition(topic, partition), timeout=10)
        if high > 0:
            ends[partition] = high
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in ends])
    deadline = time.monotonic() + timeout_s
    while ends:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{topic} not read to its end in {timeout_s:.0f} s")
        message = consumer.poll(0.5)
        if message is None or message.error() is not None:
            continue
        yield message
        partition, offset = message.partition(), message.offset()
        if offset is not None and offset + 1 >= ends.get(partition, 0):
            ends.pop(partition, None)


def records_on_topics(connection: KafkaConnection, *, timeout_s: float = 10.0) -> dict[str, int]:
    """How many records each topic of the cluster holds (table changelogs included; the
    broker's internal topics left out): the sum of its partitions' end offsets."""
    consumer = Consumer({**connection.confluent(), "group.id": f"records-{uuid.uuid4().hex}"})
    try:
        topics = consumer.list_topics(timeout=timeout_s).topics
        held = {}
        for name, metadata in topics.items():
            if name.startswith("__"):
                continue
            held[name] = sum(
                consumer.get_watermark_offsets(TopicPartition(name, p), timeout=timeout_s)[1]
                for p in metadata.partitions
            )
        return held
    finally:
        consumer.close()

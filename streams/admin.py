"""Create the topics of ``streams.topics`` on a cluster (idempotent), for tests and the demo."""

from __future__ import annotations

from collections.abc import Iterable

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic  # typed here; the admin re-export is not

from streams.topics import MAX_MESSAGE_BYTES, TOPICS, Topic


def ensure_topics(
    bootstrap: str,
    topics: Iterable[Topic] = TOPICS,
    *,
    replication_factor: int = 1,
    timeout_s: float = 30.0,
) -> None:
    """Create missing topics; existing ones are left as they are (partition counts included)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    config = {"max.message.bytes": str(MAX_MESSAGE_BYTES)}
    wanted = [
        NewTopic(
            t.name,
            num_partitions=t.partitions,
            replication_factor=replication_factor,
            config=config,
        )
        for t in topics
    ]
    futures = admin.create_topics(wanted, operation_timeout=timeout_s, request_timeout=timeout_s)
    for future in futures.values():
        try:
            future.result(timeout=timeout_s)
        except KafkaException as error:
            if error.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                raise

"""Create the topics of ``article_runtime.streams.kafka.topics`` on a cluster (idempotent), for the
worker, tests, demo.

Missing topics are created with the partition count asked for, unless some of them exist:
then with the count those have (``article_runtime.streams.kafka.partitions.found_count``), so a
worker never adds topics that cannot join the ones already there. Existing topics keep their count.

Every topic gets the message size its largest record needs (``MAX_MESSAGE_BYTES``), the
broker's 1 MiB default being far too small for a 5 MiB page's candidate set. Topics that exist
with less (created by an earlier release, or by hand) are raised to it; nothing else about an
existing topic changes. The tables' changelog topics get the same size where Faust creates
them (``article_runtime.streams.kafka.tables``).
"""

from __future__ import annotations

from collections.abc import Iterable

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._config import (  # typed here; the admin re-export is not
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
)
from confluent_kafka.cimpl import NewTopic  # typed here; the admin re-export is not

from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.partitions import found_count
from article_runtime.streams.kafka.topics import MAX_MESSAGE_BYTES, PARTITIONS, TOPICS, Topic

SIZE = "max.message.bytes"


def ensure_topics(
    connection: KafkaConnection,
    topics: Iterable[Topic] = TOPICS,
    *,
    partitions: int = PARTITIONS,
    replication_factor: int = 1,
    timeout_s: float = 30.0,
) -> dict[str, int]:
    """Create missing topics; raise the message size of existing ones that allow less.

    Returns each topic's partition count as the cluster has it now."""
    admin = AdminClient(connection.confluent())
    names = [t.name for t in topics]
    existing = partition_counts(admin, names, timeout_s=timeout_s)
    count = found_count(existing, partitions)
    wanted = [
        NewTopic(
            name,
            num_partitions=count,
            replication_factor=replication_factor,
            config={SIZE: str(MAX_MESSAGE_BYTES)},
        )
        for name in names
        if name not in existing
    ]
    if wanted:
        futures = admin.create_topics(
            wanted, operation_timeout=timeout_s, request_timeout=timeout_s
        )
        for future in futures.values():
            try:
                future.result(timeout=timeout_s)
            except KafkaException as error:  # another worker created it meanwhile
                if error.args[0].code() != KafkaError.TOPIC_ALREADY_EXISTS:
                    raise
    raise_message_size(admin, list(existing), timeout_s=timeout_s)
    return partition_counts(admin, names, timeout_s=timeout_s)


def partition_counts(
    admin: AdminClient, names: Iterable[str], *, timeout_s: float = 30.0
) -> dict[str, int]:
    """The partition count of each topic of ``names`` that exists."""
    listed = admin.list_topics(timeout=timeout_s).topics
    return {
        name: len(listed[name].partitions)
        for name in names
        if name in listed and listed[name].error is None
    }


def message_sizes(admin: AdminClient, names: Iterable[str], *, timeout_s: float) -> dict[str, int]:
    """The ``max.message.bytes`` each topic allows now."""
    resources = [ConfigResource(ConfigResource.Type.TOPIC, name) for name in names]
    if not resources:
        return {}
    found = admin.describe_configs(resources, request_timeout=timeout_s)
    return {
        resource.name: int(future.result(timeout=timeout_s)[SIZE].value)
        for resource, future in found.items()
    }


def raise_message_size(admin: AdminClient, names: Iterable[str], *, timeout_s: float) -> list[str]:
    """Give every topic in ``names`` that allows less than ``MAX_MESSAGE_BYTES`` that much;
    returns the topics changed."""
    small = [
        name
        for name, size in message_sizes(admin, names, timeout_s=timeout_s).items()
        if size < MAX_MESSAGE_BYTES
    ]
    if not small:
        return []
    entry = ConfigEntry(SIZE, str(MAX_MESSAGE_BYTES), incremental_operation=AlterConfigOpType.SET)
    resources = [
        ConfigResource(ConfigResource.Type.TOPIC, name, incremental_configs=[entry])
        for name in small
    ]
    for future in admin.incremental_alter_configs(resources, request_timeout=timeout_s).values():
        future.result(timeout=timeout_s)
    return small

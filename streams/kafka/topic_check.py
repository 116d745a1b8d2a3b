"""Check, without changing anything, that the topics a worker needs exist as it needs them.

For clusters whose topics are made by the platform's own tooling (Strimzi ``KafkaTopic``,
Terraform) and where the worker may only describe, read and write them
(``ARTICLE_RUNTIME_TOPICS=check``, docs/topics.md). Each problem is one line that names the
topic, what it has and what it needs, so the operator can fix the tooling's definition:
- it exists;
- one partition count for all of them (the flow's topics and the tables' changelogs are read
  together by partition number, ``article_runtime.streams.kafka.partitions``);
- ``cleanup.policy``: ``compact`` for a table's changelog (only its latest value per key
  matters, and it is read back whole at every start), no compaction for the flow's topics
  (compaction would drop an article's earlier records, which stages read by offset);
- ``max.message.bytes`` at least ``MAX_MESSAGE_BYTES``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._config import ConfigResource  # typed here; the admin re-export is not

from article_runtime.streams.kafka.admin import SIZE, partition_counts
from article_runtime.streams.kafka.partitions import found_count
from article_runtime.streams.kafka.topics import MAX_MESSAGE_BYTES

POLICY = "cleanup.policy"
COMPACT = "compact"


@dataclass(frozen=True)
class Wanted:
    """A topic the worker needs, and whether it is a table's changelog (compacted)."""

    name: str
    compacted: bool = False


def needed_config(wanted: Wanted) -> str:
    """How the topic must be made, as the line that reports it missing says it."""
    policy = "compact" if wanted.compacted else "delete"
    return f"{POLICY}={policy}, {SIZE}>={MAX_MESSAGE_BYTES}"


def config_problems(wanted: Wanted, policy: str | None, size: int | None) -> list[str]:
    """What is wrong with one existing topic's configs (none read: nothing to say)."""
    found = []
    compacted = policy is not None and COMPACT in policy.split(",")
    if policy is not None and compacted != wanted.compacted:
        why = (
            f"a table's changelog must be compacted ({POLICY}={COMPACT})"
            if wanted.compacted
            else f"the flow's topics must not be compacted ({POLICY}=delete): compaction "
            "drops an article's earlier records"
        )
        found.append(f"topic {wanted.name} has {POLICY}={policy}: {why}")
    if size is not None and size < MAX_MESSAGE_BYTES:
        found.append(
            f"topic {wanted.name} allows {SIZE}={size}: the worker needs at least "
            f"{MAX_MESSAGE_BYTES} (a page's candidate set)"
        )
    return found


def count_problems(counts: dict[str, int], wanted: Sequence[Wanted], default: int) -> list[str]:
    """Missing topics, and those whose partition count differs from most of the others."""
    count = found_count(counts, default)
    found = []
    for topic in wanted:
        if topic.name not in counts:
            found.append(
                f"topic {topic.name} does not exist: create it with {count} partitions, "
                f"{needed_config(topic)}"
            )
        elif counts[topic.name] != count:
            found.append(
                f"topic {topic.name} has {counts[topic.name]} partitions, the others {count}: "
                "the worker's topics are read together and need one count"
            )
    return found


def topic_problems(
    admin: AdminClient, wanted: Sequence[Wanted], *, default: int, timeout_s: float = 30.0
) -> list[str]:
    """Every problem with ``wanted`` on the cluster, one line each (none: ready to run)."""
    counts = partition_counts(admin, [t.name for t in wanted], timeout_s=timeout_s)
    found = count_problems(counts, wanted, default)
    existing = [t for t in wanted if t.name in counts]
    if not existing:
        return found
    resources = {t.name: ConfigResource(ConfigResource.Type.TOPIC, t.name) for t in existing}
    futures = admin.describe_configs(list(resources.values()), request_timeout=timeout_s)
    by_name = {resource.name: future for resource, future in futures.items()}
    for topic in existing:
        try:
            configs = by_name[topic.name].result(timeout=timeout_s)
        except KafkaException as error:
            found.append(
                f"topic {topic.name}: its configs cannot be read ({error.args[0].str()}): "
                "the worker needs DescribeConfigs on it"
            )
            continue
        policy = configs[POLICY].value if POLICY in configs else None
        size = int(configs[SIZE].value) if SIZE in configs else None
        found += config_problems(topic, policy, size)
    return found

"""Every topic in one place: name and Avro value schema.

All topics are keyed by ``article_id`` (UTF-8 bytes, no Avro) and share one partition count,
so every topic is co-partitioned: an article's messages land on the same partition number
everywhere, which is what lets the enrichment agent join verdicts with assembled articles.
The count is not fixed here: topics that exist keep theirs, and ``ARTICLE_RUNTIME_PARTITIONS``
is what missing ones are created with (``article_runtime.streams.kafka.partitions`` checks they all
agree).

Names are configurable (docs/topics.md): each topic has its contract name (``Topic.key``, e.g.
``article.ingested``); the name it has on the cluster is ``ARTICLE_RUNTIME_TOPIC_PREFIX`` plus
that, or exactly what its own variable says (``ARTICLE_RUNTIME_TOPIC_ARTICLE_INGESTED``). A
process resolves them once: the worker from its settings (``use_names``), a command from its
environment the first time a name is asked for.
"""

from __future__ import annotations

import functools
import os
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from aiokafka.partitioner import murmur2

PARTITIONS = 3  # the default of ARTICLE_RUNTIME_PARTITIONS, for topics the worker creates
# The largest record a topic, a table changelog, a producer or a consumer here takes. The
# largest records are ingestion's pages (up to the decoder's 5 MiB), the assembled articles
# made of them, and a hygiene redrive, which carries the candidate set (about 9 MiB of JSON
# for a 5 MiB page of mostly text).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
# A redrive whose candidate set is above this is not published (``candidate_set_too_large``):
# the rest of its compensation record (attempts, detail) must fit in what is left.
MAX_CANDIDATE_SET_BYTES = 12 * 1024 * 1024

# librdkafka (confluent-kafka) hashes keys with CRC32 by default; the Java client and aiokafka
# (under Faust) use murmur2. Every producer must hash alike or co-partitioning silently breaks.
PRODUCER_CONFIG: dict[str, str | bool] = {
    "partitioner": "murmur2_random",
    "enable.idempotence": True,
}


PREFIX_ENV = "ARTICLE_RUNTIME_TOPIC_PREFIX"
# Kafka's legal topic characters; a name is at most 249 of them and neither "." nor "..".
_LEGAL = frozenset(string.ascii_letters + string.digits + "._-")
_MAX_NAME = 249


class TopicNameError(ValueError):
    """A configured topic name Kafka would refuse, or two topics given one name."""


@dataclass(frozen=True)
class Topic:
    key: str  # the contract's name (schemas/README.md); ``name`` is the one on the cluster
    schema: str  # record name of the value schema under schemas/avro/

    @property
    def name(self) -> str:
        """Its name on the cluster (a topic outside the contract, made ad hoc: its key)."""
        return names().get(self.key, self.key)

    @property
    def env(self) -> str:
        """The variable that names this topic exactly (no prefix added)."""
        return "ARTICLE_RUNTIME_TOPIC_" + self.key.upper().replace(".", "_")


ARTICLE_INGESTED = Topic("article.ingested", "ArticleIngested")
ARTICLE_PROPOSAL = Topic("article.proposal", "ArticleProposal")
ARTICLE_ASSEMBLED = Topic("article.assembled", "ArticleAssembled")
ECP_VERDICT = Topic("ecp.verdict", "EcpVerdict")
ARTICLE_ENRICHED = Topic("article.enriched", "ArticleEnriched")
ARTICLE_COMPENSATION = Topic("article.compensation", "CompensationEvent")
# Internal: where the worker forwards an outside producer's record that sits off its article's
# partition (``article_runtime.streams.service.routing``), as Kafka Streams' repartition topics do.
INGESTED_REPARTITION = Topic("article.ingested.repartition", "ArticleIngested")
VERDICT_REPARTITION = Topic("ecp.verdict.repartition", "EcpVerdict")

TOPICS: tuple[Topic, ...] = (
    ARTICLE_INGESTED,
    ARTICLE_PROPOSAL,
    ARTICLE_ASSEMBLED,
    ECP_VERDICT,
    ARTICLE_ENRICHED,
    ARTICLE_COMPENSATION,
    INGESTED_REPARTITION,
    VERDICT_REPARTITION,
)
# The topics an outside producer writes, each with the internal topic its misplaced records
# are forwarded to, and back.
REPARTITIONED: dict[Topic, Topic] = {
    ARTICLE_INGESTED: INGESTED_REPARTITION,
    ECP_VERDICT: VERDICT_REPARTITION,
}
SOURCE_OF: dict[Topic, Topic] = {internal: source for source, internal in REPARTITIONED.items()}
# The topics of the contract (schemas/README.md): every one but the worker's own internal ones.
PUBLIC: tuple[Topic, ...] = tuple(t for t in TOPICS if t not in SOURCE_OF)
# What the worker's stages read: every topic but the flow's output, which downstream consumes.
READ: tuple[Topic, ...] = tuple(t for t in TOPICS if t is not ARTICLE_ENRICHED)


def topic_names(env: Mapping[str, str]) -> dict[str, str]:
    """Each topic's name on the cluster (by ``Topic.key``) as ``env`` configures it; raises
    ``TopicNameError`` for a name Kafka refuses or one shared by two topics."""
    prefix = env.get(PREFIX_ENV, "").strip()
    found = {t.key: (env.get(t.env, "").strip() or prefix + t.key) for t in TOPICS}
    for topic in TOPICS:
        name = found[topic.key]
        if name in (".", "..") or len(name) > _MAX_NAME or not set(name) <= _LEGAL:
            where = topic.env if env.get(topic.env, "").strip() else PREFIX_ENV
            raise TopicNameError(
                f"{where}: {name!r} is not a Kafka topic name (at most {_MAX_NAME} of "
                "a-z A-Z 0-9 . _ -)"
            )
    shared = {n for n in found.values() if list(found.values()).count(n) > 1}
    if shared:
        raise TopicNameError(f"several topics are named {', '.join(sorted(shared))}")
    return found


_names: dict[str, str] | None = None


def names() -> dict[str, str]:
    """The names this process uses: those ``use_names`` installed, else the environment's."""
    global _names
    if _names is None:
        _names = topic_names(os.environ)
    return _names


def use_names(found: Mapping[str, str] | None) -> None:
    """Install the names the worker's settings resolved (None: read the environment again)."""
    global _names
    _names = None if found is None else dict(found)


class _ByName(Mapping[str, Topic]):
    """Topics by their name on the cluster, as the names in use now say."""

    def __getitem__(self, name: str) -> Topic:
        for topic in TOPICS:
            if topic.name == name:
                return topic
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter([t.name for t in TOPICS])

    def __len__(self) -> int:
        return len(TOPICS)


BY_NAME: Mapping[str, Topic] = _ByName()


@functools.lru_cache(maxsize=4096)  # an article's messages ask several times; murmur2 is Python
def partition_of(article_id: str, partitions: int) -> int:
    """The partition every producer here (murmur2, Java-compatible) puts this article on."""
    return int(murmur2(message_key(article_id)) & 0x7FFFFFFF) % partitions


def message_key(article_id: str) -> bytes:
    """The key of every message: the article id, so partitioning follows the article."""
    return article_id.encode("utf-8")

"""Every topic in one place: name and Avro value schema.

All topics are keyed by ``article_id`` (UTF-8 bytes, no Avro) and share one partition count,
so every topic is co-partitioned: an article's messages land on the same partition number
everywhere, which is what lets the enrichment agent join verdicts with assembled articles.
The count is not fixed here: topics that exist keep theirs, and ``ARTICLE_RUNTIME_PARTITIONS``
is what missing ones are created with (``streams.kafka.partitions`` checks they all agree).
"""

from __future__ import annotations

import functools
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


@dataclass(frozen=True)
class Topic:
    name: str
    schema: str  # record name of the value schema under schemas/avro/


ARTICLE_INGESTED = Topic("article.ingested", "ArticleIngested")
ARTICLE_PROPOSAL = Topic("article.proposal", "ArticleProposal")
ARTICLE_ASSEMBLED = Topic("article.assembled", "ArticleAssembled")
ECP_VERDICT = Topic("ecp.verdict", "EcpVerdict")
ARTICLE_ENRICHED = Topic("article.enriched", "ArticleEnriched")
ARTICLE_COMPENSATION = Topic("article.compensation", "CompensationEvent")

TOPICS: tuple[Topic, ...] = (
    ARTICLE_INGESTED,
    ARTICLE_PROPOSAL,
    ARTICLE_ASSEMBLED,
    ECP_VERDICT,
    ARTICLE_ENRICHED,
    ARTICLE_COMPENSATION,
)
BY_NAME: dict[str, Topic] = {topic.name: topic for topic in TOPICS}
# What the worker's stages read: every topic but the flow's output, which downstream consumes.
READ: tuple[Topic, ...] = tuple(t for t in TOPICS if t is not ARTICLE_ENRICHED)


@functools.lru_cache(maxsize=4096)  # an article's messages ask several times; murmur2 is Python
def partition_of(article_id: str, partitions: int) -> int:
    """The partition every producer here (murmur2, Java-compatible) puts this article on."""
    return int(murmur2(message_key(article_id)) & 0x7FFFFFFF) % partitions


def message_key(article_id: str) -> bytes:
    """The key of every message: the article id, so partitioning follows the article."""
    return article_id.encode("utf-8")

"""Core models to Avro records and back: the one place the topic contracts meet the core.

The Avro schemas mirror the pydantic models field for field, except that the article is named
by ``article_id`` on the wire (``source`` in the core) and every record carries its own time.
Round trips are tested against ``schemas/avro/`` so a drift shows up as a failing test.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from article_runtime.enrichment.model import EnrichedArticle
from article_runtime.hashing import sha256_hex
from article_runtime.model import AssembledArticle, AttemptRecord, FeedMetadata, Usage
from article_runtime.resources import AVRO_DIR


def now() -> datetime:
    return datetime.now(UTC)


@functools.cache
def avro_attempt_fields() -> set[str]:
    """The fields of the Avro ``AttemptRecord`` (the same in every schema that carries one)."""
    schema = json.loads((AVRO_DIR / "CompensationEvent.avsc").read_text(encoding="utf-8"))
    attempts = next(f for f in schema["fields"] if f["name"] == "attempts")
    return {f["name"] for f in attempts["type"]["items"]["fields"]}


def attempt_records(attempts: Sequence[AttemptRecord]) -> list[dict[str, Any]]:
    """Attempts as the topics carry them: the fields the Avro ``AttemptRecord`` has. A field
    the core adds to its record before the schema has it stays off the wire instead of making
    the codec refuse the whole record (and the worker exit); reading back, the core's default
    fills it."""
    fields = avro_attempt_fields()
    return [a.model_dump(include=fields) for a in attempts]


def attempts_from(records: Sequence[dict[str, Any]]) -> list[AttemptRecord]:
    return [AttemptRecord.model_validate(r) for r in records]


def usage_record(attempts: Sequence[AttemptRecord]) -> dict[str, Any]:
    return Usage.of(list(attempts)).model_dump()


def feed_metadata(record: dict[str, Any] | None) -> FeedMetadata | None:
    return None if record is None else FeedMetadata.model_validate(record)


def assembled_record(
    article: AssembledArticle,
    *,
    at: datetime | None = None,
    version: dict[str, Any] | None = None,
) -> dict[str, Any]:
    record = article.model_dump(exclude={"source", "attempts"})
    return {
        "article_id": article.source,
        **record,
        "attempts": attempt_records(article.attempts),
        "assembled_at": at or now(),
        "version": version,
    }


def assembled_article(record: dict[str, Any]) -> AssembledArticle:
    wire_only = ("article_id", "assembled_at", "version")
    fields = {k: v for k, v in record.items() if k not in wire_only}
    return AssembledArticle.model_validate({"source": record["article_id"], **fields})


def enrichment_content_hash(result: EnrichedArticle) -> str:
    """Stable over reprocessing: what the enrichment says, not when or by which attempt."""
    content = {
        "article_hash": result.article_hash,
        "entity": result.entity.qid,
        "sentiment": result.sentiment,
        "tags": [t.model_dump() for t in result.tags],
    }
    return sha256_hex(json.dumps(content, ensure_ascii=False, sort_keys=True))


def enriched_record(
    result: EnrichedArticle,
    *,
    at: datetime | None = None,
    version: dict[str, Any] | None = None,
    article: AssembledArticle | None = None,
) -> dict[str, Any]:
    """An ``ArticleEnriched`` record, carrying the ``article`` it enriches when given."""
    record = result.model_dump(exclude={"source", "attempts"})
    return {
        "article_id": result.source,
        **record,
        "attempts": attempt_records(result.attempts),
        "content_hash": enrichment_content_hash(result),
        "enriched_at": at or now(),
        "version": version,
        "article": None if article is None else article_content(article),
    }


def article_content(article: AssembledArticle) -> dict[str, Any]:
    """What ``article.enriched`` carries of the assembled article (``EnrichedArticleContent``):
    what a reader shows, so downstream needs no join with ``article.assembled``."""
    return {
        "title": article.title,
        "subtitle": article.subtitle,
        "author": article.author,
        "published_at": article.published_at,
        "source_url": article.source_url,
        "language": article.language,
        "markdown": article.markdown,
    }

"""What the stream stage tests share: records as they travel on the wire, and enriched results.

Every emit of every test passes through ``wire``, so a record that does not fit its topic's
Avro contract fails the test that produced it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from article_runtime.enrichment.model import EnrichedArticle, Entity, Tag
from article_runtime.model import AssembledArticle, AttemptRecord, PromptRef
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.kafka.topics import TOPICS, Topic
from article_runtime.streams.service.wiring import Emit
from tests.llm_support import PRIMARY

CODEC = AvroCodec()
AT = datetime(2026, 3, 14, 9, 26, 53, 589000, tzinfo=UTC)


def wire(emit: Emit) -> dict[str, Any]:
    """The record as the next stage decodes it: encoded with its topic's schema and back.

    Every emit of every test passes through here, so a record that does not fit its topic's
    Avro contract fails the test that produced it.
    """
    assert emit.topic in TOPICS
    assert emit.record["article_id"] == emit.article_id  # the key names the record's article
    decoded = CODEC.decode(CODEC.encode(emit.topic.schema, emit.record), emit.topic.schema)
    assert decoded["article_id"] == emit.article_id
    return decoded


def wired(emits: Sequence[Emit]) -> list[dict[str, Any]]:
    return [wire(emit) for emit in emits]


def sha256(data: bytes | str) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def on_wire(schema: str, record: dict[str, Any]) -> dict[str, Any]:
    return CODEC.decode(CODEC.encode(schema, record), schema)


def only(emits: Sequence[Emit], topic: Topic) -> dict[str, Any]:
    assert [e.topic for e in emits] == [topic]
    return wire(emits[0])


def enriched_for(
    article: AssembledArticle, entity: Entity, answer: dict[str, Any]
) -> EnrichedArticle:
    return EnrichedArticle(
        source=article.source,
        article_hash=article.hashes.markdown,
        entity=entity,
        language=article.language,
        sentiment=answer["sentiment"],
        tags=[Tag.model_validate(tag) for tag in answer["tags"]],
        path="primary",
        prompt=PromptRef(name="article_sentiment_tags", version="1.0.0", sha256="ab" * 32),
        attempts=[
            AttemptRecord(
                call="article_sentiment_tags", role="runtime_primary", outcome="ok", model=PRIMARY
            )
        ],
    )

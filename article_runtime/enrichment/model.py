"""The enrichment contract. Mirrors ``schemas/json/article_sentiment_tags.*.schema.json``."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Sentiment = Literal["positive", "negative", "neutral"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Entity(_Frozen):
    """Only the ECP entity's minimal identity: never the full ECP record (spec 5.2)."""

    qid: str
    name: str
    identity: str | None = None


class EvidenceBlock(_Frozen):
    id: str
    text: str


class EnrichmentInput(_Frozen):
    title: str
    subtitle: str | None
    language: str | None
    entity: Entity
    blocks: list[EvidenceBlock]


class Tag(_Frozen):
    tag: str = Field(min_length=1, max_length=60)
    evidence_block_ids: list[str] = Field(min_length=1, max_length=5)


class EnrichmentProposal(_Frozen):
    sentiment: Sentiment
    tags: list[Tag] = Field(min_length=3, max_length=8)

"""The enrichment contract. Mirrors ``schemas/json/article_sentiment_tags.*.schema.json``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from article_runtime.model.article import PromptRef
from article_runtime.model.attempts import AttemptRecord, Usage
from article_runtime.model.base import Frozen

Sentiment = Literal["positive", "negative", "neutral"]


class Entity(Frozen):
    """Only the ECP entity's minimal identity: never the full ECP record (spec 5.2)."""

    qid: str
    name: str
    identity: str | None = None


class EvidenceBlock(Frozen):
    id: str
    text: str
    # A heading names a topic: a tag equal to it is a tag, not body text lifted (spec 9.3).
    # Not part of the call's input (excluded from dumps), only of the harness's judgement.
    heading: bool = Field(default=False, exclude=True)


class EnrichmentInput(Frozen):
    title: str
    subtitle: str | None
    language: str | None
    entity: Entity
    blocks: list[EvidenceBlock]


class Tag(Frozen):
    tag: str = Field(min_length=1, max_length=60)
    evidence_block_ids: list[str] = Field(min_length=1, max_length=5)


class EnrichmentProposal(Frozen):
    sentiment: Sentiment
    tags: list[Tag] = Field(min_length=3, max_length=8)


class EnrichedArticle(Frozen):
    """The enrichment topic's value: sentiment and tags for one article and one ECP entity."""

    source: str
    article_hash: str  # the assembled Markdown's hash: consumers join and deduplicate on it
    entity: Entity
    language: str | None
    sentiment: Sentiment
    tags: list[Tag]
    path: Literal["primary", "fallback"]
    prompt: PromptRef
    attempts: list[AttemptRecord] = Field(default_factory=list)
    usage: Usage = Usage()
    # The cited blocks' text, so evidence_block_ids read without the article; None in results
    # stored before it was carried (rebuild: ``blocks.evidence_blocks`` of the article).
    evidence: list[EvidenceBlock] | None = None


class EnrichmentFailure(Frozen):
    """A terminal failure (spec 9.4): no provider, or primary and fallback both failed."""

    source: str
    article_hash: str
    entity: Entity
    terminal: Literal[True] = True
    reason: str  # no_provider | no_text_blocks | primary_and_fallback_failed
    last_reason: str | None = None  # the last attempt's reason, when there was one
    attempts: list[AttemptRecord] = Field(default_factory=list)
    usage: Usage = Usage()

"""The candidate set: everything deterministic extraction found in one article (spec 5.1, 6.2).

IDs are opaque: a kind prefix plus a counter in document order (``b7``, ``l2``, ``i1``,
``t3``); they reveal nothing about content or position beyond order.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from article_runtime.model.base import Frozen

CANDIDATE_SET_VERSION = "1.0.0"

BlockType = Literal["heading", "paragraph", "list_item", "quote", "code", "table", "figure_caption"]


class Block(Frozen):
    """One unit of text the model may keep or drop, as found in the page."""

    id: str
    type: BlockType
    text: str = Field(description="Original text, whitespace normalized, nothing else changed.")
    level: int | None = Field(default=None, description="Heading level 1-6.")
    list_id: str | None = Field(default=None, description="Opaque list ID for list items.")
    ordered: bool | None = Field(default=None, description="Whether the list is numbered.")
    section_id: str | None = Field(default=None, description="ID of the heading block above.")
    container_id: str = Field(description="Opaque ID of the nearest block-level container.")
    rows: list[list[str]] | None = Field(default=None, description="Table cells, row by row.")
    extractors: list[str] = Field(description="Extractors that produced the same content.")


class MetadataCandidate(Frozen):
    id: str
    text: str
    source: str = Field(description="Where it came from: og:title, json-ld:headline, h1, ...")

    @property
    def sources(self) -> list[str]:
        """Each place giving this text, in order (``source`` joins them with ``+``)."""
        return self.source.split("+")


class MetadataCandidates(Frozen):
    title: list[MetadataCandidate] = Field(default_factory=list)
    subtitle: list[MetadataCandidate] = Field(default_factory=list)
    author: list[MetadataCandidate] = Field(default_factory=list)


class LinkCandidate(Frozen):
    id: str
    text: str = Field(description="Anchor text, as it stands in the owning block.")
    href: str = Field(description="Absolute URL.")
    block_id: str
    start: int = Field(description="Offset of the anchor text in the owning block's text.")


class ImageCandidate(Frozen):
    id: str
    src: str = Field(description="Absolute URL.")
    alt: str = ""
    caption: str = ""
    after_block_id: str | None = Field(
        default=None, description="The image stands after this block; None: before the first."
    )


class Decisions(Frozen):
    """Deterministic decisions the model may not change."""

    published_at: str | None = Field(default=None, description="ISO 8601.")
    published_at_source: str | None = None
    source_url: str | None = Field(default=None, description="Absolute URL.")
    source_url_source: str | None = None


class FeedMetadata(Frozen):
    """What ingestion may know from the feed item; each field is one more candidate."""

    title: str | None = None
    subtitle: str | None = None
    author: str | None = None
    published_at: str | None = None
    url: str | None = None


class CandidateSet(Frozen):
    schema_version: str = CANDIDATE_SET_VERSION
    blocks: list[Block]
    metadata_candidates: MetadataCandidates
    links: list[LinkCandidate] = Field(default_factory=list)
    images: list[ImageCandidate] = Field(default_factory=list)
    decisions: Decisions
    language: str | None = Field(default=None, description="ISO 639-1 code, or None if unknown.")
    language_declared: str | None = None
    language_detected: str | None = None

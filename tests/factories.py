"""Candidate sets for harness tests, written by hand rather than built by the code under test."""

from __future__ import annotations

from typing import Any

from article_runtime.model import (
    Block,
    CandidateSet,
    Decisions,
    ImageCandidate,
    LinkCandidate,
    MetadataCandidate,
    MetadataCandidates,
)
from article_runtime.model.proposal import Repair, RepairCategory

PARAGRAPH = (
    "A prefeitura do Rio anunciou nesta segunda-feira um plano de R$ 1,2 bilhão "
    "para conter enchentes na zona norte."
)
LINKED = "O plano foi detalhado no Diário Oficial e prevê obras em 14 bairros até 2026."


def candidate_set(**overrides: Any) -> CandidateSet:
    """A small Portuguese article page: heading, two paragraphs, a list, boilerplate, images."""
    data: dict[str, Any] = {
        "blocks": [
            Block(
                id="b1",
                type="heading",
                level=2,
                text="Plano contra enchentes",
                container_id="c1",
                extractors=["dom", "trafilatura"],
            ),
            Block(
                id="b2",
                type="paragraph",
                text=PARAGRAPH,
                container_id="c1",
                section_id="b1",
                extractors=["dom", "trafilatura"],
            ),
            Block(
                id="b3",
                type="paragraph",
                text=LINKED,
                container_id="c1",
                section_id="b1",
                extractors=["dom", "trafilatura"],
            ),
            Block(
                id="b4",
                type="list_item",
                text="Piscinões na Tijuca",
                list_id="L1",
                ordered=True,
                container_id="c1",
                section_id="b1",
                extractors=["dom"],
            ),
            Block(
                id="b5",
                type="list_item",
                text="Dragagem do canal do Mangue",
                list_id="L1",
                ordered=True,
                container_id="c1",
                section_id="b1",
                extractors=["dom"],
            ),
            Block(
                id="b6",
                type="paragraph",
                text="Assine a newsletter e receba as notícias",
                container_id="c2",
                extractors=[],
            ),
        ],
        "metadata_candidates": MetadataCandidates(
            title=[
                MetadataCandidate(
                    id="t1", text="Rio anuncia plano contra enchentes", source="og:title"
                ),
                MetadataCandidate(id="t2", text="Rio anuncia plano | Jornal", source="title"),
            ],
            subtitle=[
                MetadataCandidate(id="s1", text="Obras em 14 bairros", source="meta:description")
            ],
            author=[MetadataCandidate(id="a1", text="Ana Souza", source="json-ld:author")],
        ),
        "links": [
            LinkCandidate(
                id="l1",
                text="Diário Oficial",
                href="https://example.org/do",
                block_id="b3",
                start=LINKED.index("Diário"),
            ),
            LinkCandidate(
                id="l2",
                text="newsletter",
                href="https://ads.example.com/nl",
                block_id="b6",
                start=10,
            ),
        ],
        "images": [
            ImageCandidate(
                id="i1",
                src="https://example.org/img/mapa.jpg",
                alt="Mapa das obras",
                after_block_id="b2",
            ),
            ImageCandidate(
                id="i2", src="https://ads.example.com/banner.jpg", alt="", after_block_id="b6"
            ),
        ],
        "decisions": Decisions(
            published_at="2024-03-04T10:00:00-03:00", source_url="https://example.org/rio-enchentes"
        ),
        "language": "pt",
    }
    data.update(overrides)
    return CandidateSet(**data)


def proposal(**overrides: Any) -> dict[str, Any]:
    """The right answer for ``candidate_set()``: the article without the newsletter box."""
    data: dict[str, Any] = {
        "title_candidate_id": "t1",
        "subtitle_candidate_id": "s1",
        "author_candidate_id": "a1",
        "kept_block_ids": ["b1", "b2", "b3", "b4", "b5"],
        "kept_link_ids": ["l1"],
        "kept_image_ids": ["i1"],
        "repairs": [],
    }
    data.update(overrides)
    return data


def repair(target: str, original: str, replacement: str, category: RepairCategory) -> Repair:
    """A proposed repair as the model would send it."""
    return Repair(
        target_id=target,
        original=original,
        replacement=replacement,
        category=category,
        justification="test",
    )


def mojibake(text: str, codec: str = "cp1252") -> str:
    """Real mojibake: UTF-8 bytes read back in a legacy codec."""
    return text.encode("utf-8").decode(codec)

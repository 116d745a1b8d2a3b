"""The deterministic path: an extractive selection without a model (spec 10, step 4).

Evidence is extractor agreement plus document structure. Measured on WCXB and AEB (see
bench/run.py): trafilatura's matched blocks alone lose recall, our DOM heuristic alone loses
precision on news pages; the union, with a length bar on blocks only the DOM heuristic
chose (higher outside trafilatura's span), beats both.
"""

from __future__ import annotations

from collections.abc import Sequence

from article_runtime.candidates.extractors import TRAFILATURA
from article_runtime.model.candidates import Block, CandidateSet
from article_runtime.model.proposal import HygieneProposal

__all__ = ["deterministic_proposal", "kept_blocks"]


MIN_CHARS = 30  # a block only our DOM heuristic chose must be at least this long
MIN_CHARS_OUTSIDE = 150  # ... and this long when it lies outside trafilatura's span


def kept_blocks(blocks: Sequence[Block]) -> list[Block]:
    """The blocks the deterministic path keeps, in base order.

    trafilatura's blocks are kept; a block only the DOM heuristic chose is kept when it is
    prose-sized, with a higher bar outside the span trafilatura's blocks cover.
    """
    traf = [i for i, b in enumerate(blocks) if TRAFILATURA in b.extractors]
    first, last = (traf[0], traf[-1]) if traf else (0, -1)
    keep: list[Block] = []
    for i, block in enumerate(blocks):
        if TRAFILATURA in block.extractors or (
            block.extractors
            and len(block.text) >= MIN_CHARS
            and (first <= i <= last or len(block.text) >= MIN_CHARS_OUTSIDE)
        ):
            keep.append(block)
    return keep


def deterministic_proposal(candidates: CandidateSet) -> HygieneProposal:
    """First metadata candidates, kept blocks, their links and the images between them."""
    kept = kept_blocks(candidates.blocks)
    kept_ids = {b.id for b in kept}
    position = {b.id: i for i, b in enumerate(candidates.blocks)}
    last = position[kept[-1].id] if kept else -1
    meta = candidates.metadata_candidates
    return HygieneProposal(
        title_candidate_id=meta.title[0].id if meta.title else "",
        subtitle_candidate_id=meta.subtitle[0].id if meta.subtitle else None,
        author_candidate_id=meta.author[0].id if meta.author else None,
        kept_block_ids=[b.id for b in kept],
        kept_link_ids=[link.id for link in candidates.links if link.block_id in kept_ids],
        kept_image_ids=[
            image.id
            for image in candidates.images
            if image.after_block_id in kept_ids and position[image.after_block_id] < last
        ],
        repairs=[],
    )

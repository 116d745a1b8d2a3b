"""A title candidate taken from the page's own text when no markup offers one.

Every proposal must choose a title candidate (spec 6.2), so a page with body text but no
``h1``, headline, ``og:title``, feed title or ``<title>`` would be lost although its blocks are
fine. The fallback is text the page shows, never written by us: the first heading block, else
the first sentence of the first paragraph (of another body block when there is none). Blocks an
extractor chose (the article) are tried before the rest (chrome). A sentence longer than a title
may be is cut at the last word end that fits: still the page's own words, in the page's order.
"""

from __future__ import annotations

from collections.abc import Sequence

from article_runtime.model.candidates import Block, MetadataCandidate
from article_runtime.text.segments import nfc, normalize_space, segments
from article_runtime.text.sentences import sentences

__all__ = ["fallback_title"]


def _fitting(text: str, limit: int, locale: str) -> str:
    """``text`` up to its last word end within ``limit`` characters (all of it if it fits)."""
    if len(text) <= limit:
        return text
    ends = [end for _, end, status in segments(text, locale) if status >= 100 and end <= limit]
    return text[: ends[-1]].strip() if ends else ""


def _first_sentence(text: str, limit: int, locale: str) -> str:
    for sentence in sentences(text, locale):
        found = _fitting(normalize_space(sentence), limit, locale)
        if found:
            return found
    return ""


def fallback_title(
    blocks: Sequence[Block], *, limit: int, locale: str = "root"
) -> MetadataCandidate | None:
    """The first heading, else the first sentence of the first paragraph or other body block;
    None when no block has text.

    ``limit`` is the longest title the metadata sources accept.
    """
    chosen = [b for b in blocks if b.extractors]
    for group in (chosen, list(blocks)):
        for block in group:
            text = nfc(normalize_space(block.text))
            if block.type == "heading" and text and len(text) <= limit:
                return MetadataCandidate(id="t1", text=text, source="fallback:heading")
        prose = [b for b in group if b.type == "paragraph"]
        for block in prose + [b for b in group if b.type not in ("heading", "paragraph")]:
            text = _first_sentence(nfc(block.text), limit, locale)
            if text:
                return MetadataCandidate(id="t1", text=text, source="fallback:first-sentence")
    return None

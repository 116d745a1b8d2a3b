"""The enrichment answer's per-article bounds: the block IDs it may cite, the text it reads."""

from __future__ import annotations

from article_runtime.answer_bounds import AnswerBounds
from article_runtime.enrichment.model import EnrichmentInput


def enrichment_bounds(inp: EnrichmentInput) -> AnswerBounds:
    """Every array of the enrichment schema has its ``maxItems``: only IDs and text here."""
    texts = [inp.title, *([inp.subtitle] if inp.subtitle else []), *(b.text for b in inp.blocks)]
    return AnswerBounds(lists={}, ids=[b.id for b in inp.blocks], texts=texts)

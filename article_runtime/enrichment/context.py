"""The enrichment call's context (spec 9.2): the entity, then the final article as data.

One item a line, each opening with a fixed word (``title: ``, ``subtitle: ``) or a block ID
(``p1: ``), as in the hygiene context: a text that holds a line break or opens with a quote
mark is written as a JSON string (``llm.lines``), so no article text can start a line that
reads as a block ID, a field or an instruction. Lists, tables and code are blocks of several
lines: they are the texts this matters for.
"""

from __future__ import annotations

from article_runtime.enrichment.model import EnrichmentInput
from article_runtime.llm.lines import line_text

__all__ = ["BLOCKS_HEAD", "render_enrichment_data", "render_entity"]

BLOCKS_HEAD = "# body blocks: id: text"


def render_entity(inp: EnrichmentInput) -> str:
    """The structural context: the article's language and the ECP entity's minimal identity."""
    entity = inp.entity
    parts = [entity.qid, entity.name, *([entity.identity] if entity.identity else [])]
    return "\n".join(
        [
            f"language: {line_text(inp.language or 'unknown')}",
            f"ECP entity: {' | '.join(line_text(part) for part in parts)}",
        ]
    )


def render_enrichment_data(inp: EnrichmentInput) -> str:
    """Title, subtitle when there is one, then every evidence block by its ID, in order."""
    lines = [f"title: {line_text(inp.title)}"]
    if inp.subtitle:
        lines.append(f"subtitle: {line_text(inp.subtitle)}")
    lines.append(BLOCKS_HEAD)
    lines.extend(f"{block.id}: {line_text(block.text)}" for block in inp.blocks)
    return "\n".join(lines)

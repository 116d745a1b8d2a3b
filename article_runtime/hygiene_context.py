"""The candidate set rendered as the data part of the hygiene context (spec 5, 6.2).

A compact line format, not JSON: the model needs IDs, types, structure, extractor agreement
and the original text, nothing else (no hrefs beyond the host, no raw HTML). Every line
starts with an ID, so the model can only answer with IDs it has seen.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from article_runtime.model import Block, CandidateSet

_TYPE_CODES = {
    "paragraph": "p",
    "list_item": "li",
    "quote": "quote",
    "code": "code",
    "table": "table",
    "figure_caption": "caption",
}
_EXTRACTOR_CODES = {"dom": "D", "trafilatura": "T"}


def _block_line(block: Block) -> str:
    kind = f"h{block.level or 2}" if block.type == "heading" else _TYPE_CODES[block.type]
    fields = [block.id, kind, block.container_id]
    if block.list_id:
        fields.append(f"{block.list_id}{'#' if block.ordered else '*'}")
    if block.section_id:
        fields.append(f"under={block.section_id}")
    agreed = "".join(_EXTRACTOR_CODES.get(name, "?") for name in block.extractors)
    fields.append(f"[{agreed}]")
    text = json.dumps(block.text, ensure_ascii=False) if "\n" in block.text else block.text
    return f"{' '.join(fields)}: {text}"


def _host(url: str) -> str:
    return urlsplit(url).hostname or "?"


def render_hygiene_context(candidates: CandidateSet) -> str:
    """The article data the hygiene model reads, sections in the order of spec 5.3 (4 and 5)."""
    meta = candidates.metadata_candidates
    decisions = candidates.decisions
    lines = [
        f"candidate_set_version: {candidates.schema_version}",
        f"language: {candidates.language or 'unknown'}",
        "# fixed decisions (not yours to change)",
        f"published_at: {decisions.published_at or 'unknown'}",
        f"source_url: {decisions.source_url or 'unknown'}",
        "# metadata candidates: id source: text",
    ]
    for group in (meta.title, meta.subtitle, meta.author):
        lines.extend(f"{c.id} {c.source}: {c.text}" for c in group)
    lines.append(
        "# blocks in base order: id type container [list] [under=heading] [extractors]: text"
    )
    lines.extend(_block_line(block) for block in candidates.blocks)
    lines.append("# links: id block host: anchor text")
    lines.extend(f"{ln.id} {ln.block_id} {_host(ln.href)}: {ln.text}" for ln in candidates.links)
    lines.append("# images: id after=block host: alt | caption")
    lines.extend(
        f"{im.id} after={im.after_block_id or '-'} {_host(im.src)}: {im.alt} | {im.caption}"
        for im in candidates.images
    )
    return "\n".join(lines)

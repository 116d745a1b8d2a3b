"""The candidate set rendered as the data part of the hygiene context (spec 5, 6.2).

A compact line format, not JSON: the model needs IDs, types, structure, extractor agreement
and the original text, nothing else (no hrefs beyond the host, no raw HTML). Every line
starts with an ID, so the model can only answer with IDs it has seen.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from article_runtime.candidates.urls import url_host
from article_runtime.model import Block, CandidateSet, ImageCandidate, LinkCandidate

_TYPE_CODES = {
    "paragraph": "",
    "list_item": "li",
    "quote": "quote",
    "code": "code",
    "table": "table",
    "figure_caption": "caption",
}
_EXTRACTOR_CODES = {"dom": "D", "trafilatura": "T"}

FORMAT_NOTE = (
    "An empty line separates blocks that sit in different page containers. "
    "Each block line is 'id [type] [agreement]: text'. type: h1-h6, li<list> (li<list># "
    "for a numbered list), quote, code, table, caption; no type means a paragraph. agreement: "
    "the extractors that chose the block (D = DOM density heuristic, T = trafilatura); "
    "none shown means neither did."
)


def _block_line(block: Block) -> str:
    if block.type == "heading":
        kind = f"h{block.level or 2}"
    elif block.type == "list_item":
        kind = f"li{(block.list_id or '').removeprefix('list')}{'#' if block.ordered else ''}"
    else:
        kind = _TYPE_CODES[block.type]
    agreed = "".join(_EXTRACTOR_CODES.get(name, "?") for name in block.extractors)
    text = json.dumps(block.text, ensure_ascii=False) if "\n" in block.text else block.text
    tags = " ".join(tag for tag in (kind, agreed) if tag)
    return f"{block.id} {tags}: {text}" if tags else f"{block.id}: {text}"


def _block_lines(blocks: Sequence[Block]) -> list[str]:
    lines: list[str] = []
    for n, block in enumerate(blocks):
        if n and block.container_id != blocks[n - 1].container_id:
            lines.append("")
        lines.append(_block_line(block))
    return lines


def _host(url: str) -> str:
    return (url_host(url) or "?").removeprefix("www.")


def _image_line(image: ImageCandidate) -> str:
    head = f"{image.id} {image.after_block_id or '-'} {_host(image.src)}"
    words = " | ".join(part for part in (image.alt, image.caption) if part)
    return f"{head}: {words}" if words else head


def _link_line(link: LinkCandidate, block_text: str) -> str:
    """A link whose anchor is its whole block needs no anchor text: the block line shows it."""
    head = f"{link.id} {link.block_id} {_host(link.href)}"
    return head if link.text == block_text else f"{head}: {link.text}"


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
    lines.append("# blocks in base order")
    lines.extend(_block_lines(candidates.blocks))
    lines.append("# links: id block host[: anchor text, when not the whole block]")
    texts = {b.id: b.text for b in candidates.blocks}
    lines.extend(_link_line(ln, texts.get(ln.block_id, "")) for ln in candidates.links)
    lines.append("# images: id after-block host[: alt][ | caption]")
    lines.extend(_image_line(im) for im in candidates.images)
    return "\n".join(lines)

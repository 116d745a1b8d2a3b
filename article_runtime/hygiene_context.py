"""The candidate set rendered as the data part of the hygiene context (spec 5, 6.2).

A compact line format, not JSON: the model needs IDs, types, structure, extractor agreement
and the original text, nothing else (no hrefs beyond a foreign host, no raw HTML). Every
item line starts with its ID, so the model can only answer with IDs it has seen; every text
that holds a line break is written as a JSON string, so no text starts a line of its own.

What the format means is said once, in the prompt's fixed part (``context_instructions``),
not here: the data carries only what differs between articles. Measured token by token in
``bench/context_tokens.py``; what was cut carried nothing the model could not read elsewhere:

- extractor agreement is a line (``[DT]``) where it changes, not a tag on every block;
- a link or image on the article's own host shows no host, a link whose anchor is its
  whole block shows no anchor text, and a metadata candidate whose text is a block's shows
  that block's ID (``= b1``) instead of the text again;
- a paragraph's line is its ID and its text (``b7 Text``): only other types carry a code and
  a colon (``b8 h2: Text``); a metadata candidate found in several places shows the first and
  how many more (``og:title+3``), the agreement the model weighs, not each name.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

from article_runtime.candidates.urls import url_host
from article_runtime.model import Block, CandidateSet, ImageCandidate, LinkCandidate

__all__ = ["SECTIONS", "render_hygiene_context"]

SECTIONS = ("# metadata", "# blocks", "# links", "# images")
"""The section heads, in order; the prompt's ``context_instructions`` explains each."""

_TYPE_CODES = {
    "paragraph": "",
    "list_item": "li",
    "quote": "quote",
    "code": "code",
    "table": "table",
    "figure_caption": "caption",
}
_EXTRACTOR_CODES = {"dom": "D", "trafilatura": "T"}
NO_AGREEMENT = "[-]"


def _text(text: str) -> str:
    """The text as it stands, or as a JSON string when a line break is in it or it opens
    with a quote mark (and would read as a JSON string)."""
    if "\n" in text or text.startswith('"'):
        return json.dumps(text, ensure_ascii=False)
    return text


def _is_kind(word: str) -> bool:
    """Whether ``word`` reads as one of this format's type codes (``h2``, ``li3#``, ``quote``):
    every ``h<digits>`` and ``li`` word does, so no level or list ID can slip past."""
    if word[:1] == "h" and word[1:].isdigit():
        return True
    return word.startswith("li") or (word != "" and word in _TYPE_CODES.values())


def _paragraph_text(text: str) -> str:
    """A paragraph's text, as a JSON string when it would read as a type code and a colon
    (``h2: ...``), so a paragraph's line can never be read as another type's."""
    first = (text.split(None, 1) or [""])[0]
    if first.endswith(":") and _is_kind(first[:-1]):
        return json.dumps(text, ensure_ascii=False)
    return _text(text)


def _kind(block: Block) -> str:
    if block.type == "heading":
        return f"h{block.level or 2}"
    if block.type == "list_item":
        return f"li{(block.list_id or '').removeprefix('list')}{'#' if block.ordered else ''}"
    return _TYPE_CODES[block.type]


def agreement(block: Block) -> str:
    """The extractors that chose the block, as the line that opens its run (``[DT]``)."""
    codes = "".join(_EXTRACTOR_CODES.get(name, "?") for name in block.extractors)
    return f"[{codes}]" if codes else NO_AGREEMENT


def _block_lines(blocks: Sequence[Block]) -> Iterator[str]:
    """One line a block; an empty line where the page container changes, an agreement line
    where the set of extractors that chose the blocks changes."""
    shown = ""
    for n, block in enumerate(blocks):
        if n and block.container_id != blocks[n - 1].container_id:
            yield ""
        agreed = agreement(block)
        if agreed != shown:
            yield agreed
            shown = agreed
        kind = _kind(block)
        yield (
            f"{block.id} {kind}: {_text(block.text)}"
            if kind
            else f"{block.id} {_paragraph_text(block.text)}"
        )


def _site(url: str | None) -> str | None:
    host = url_host(url) if url else None
    return host.removeprefix("www.") if host else None


def _host_tag(url: str, own: str | None) -> str:
    """`` host`` of a link or image, or nothing when it is on the article's own host."""
    host = _site(url) or "?"
    return "" if host == own else f" {host}"


def _link_line(link: LinkCandidate, block_text: str, own: str | None) -> str:
    """A link whose anchor is its whole block needs no anchor text: the block line shows it."""
    head = f"{link.id} {link.block_id}{_host_tag(link.href, own)}"
    return head if link.text == block_text else f"{head}: {_text(link.text)}"


def _image_line(image: ImageCandidate, own: str | None) -> str:
    head = f"{image.id} {image.after_block_id or '-'}{_host_tag(image.src, own)}"
    words = " | ".join(_text(part) for part in (image.alt, image.caption) if part)
    return f"{head}: {words}" if words else head


def _sources(source: str) -> str:
    """``og:title+3`` for ``og:title+h1+title+twitter:title``: the first place and how many more."""
    first, *more = source.split("+")
    return f"{first}+{len(more)}" if more else first


def _metadata_lines(candidates: CandidateSet) -> Iterator[str]:
    """``id source: text``, or ``id source = bN`` when a block holds exactly that text."""
    meta = candidates.metadata_candidates
    block_of: dict[str, str] = {}
    for block in candidates.blocks:
        block_of.setdefault(block.text, block.id)
    for group in (meta.title, meta.subtitle, meta.author):
        for c in group:
            same, where = block_of.get(c.text), _sources(c.source)
            yield f"{c.id} {where} = {same}" if same else f"{c.id} {where}: {_text(c.text)}"


def render_hygiene_context(candidates: CandidateSet) -> str:
    """The article data the hygiene model reads, sections in the order of spec 5.3 (4 and 5)."""
    decisions = candidates.decisions
    own = _site(decisions.source_url)
    texts = {b.id: b.text for b in candidates.blocks}
    metadata, blocks, links, images = SECTIONS
    lines = [
        f"candidate_set_version: {candidates.schema_version}",
        f"language: {candidates.language or 'unknown'}",
        f"published_at: {decisions.published_at or 'unknown'}",
        f"source_url: {decisions.source_url or 'unknown'}",
        metadata,
        *_metadata_lines(candidates),
        blocks,
        *_block_lines(candidates.blocks),
        links,
        *(_link_line(ln, texts.get(ln.block_id, ""), own) for ln in candidates.links),
        images,
        *(_image_line(im, own) for im in candidates.images),
    ]
    return "\n".join(lines)

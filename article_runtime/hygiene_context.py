"""The candidate set rendered as the data part of the hygiene context (spec 5, 6.2).

A compact line format, not JSON: the model needs IDs, types, structure, extractor agreement
and the original text, nothing else (no hrefs beyond a foreign host, no raw HTML). Every
line starts with an ID or a fixed word (``language: ``, an agreement line like ``[DT]``),
so the model can only answer with IDs it has seen and no section heads are needed; every
text that holds a line break or opens with a quote mark is written as a JSON string, so no
text starts a line of its own, and no text can pass for a type code or a host (below).

What the format means is said once, in the prompt's fixed part (``context_instructions``),
not here: the data carries only what differs between articles. Measured token by token in
``bench/context_tokens.py``; what was cut carried nothing the model could not read elsewhere:

- extractor agreement is a line (``[DT]``) where it changes, not a tag on every block;
- a link or image on the article's own host shows no host, a link whose anchor is its
  whole block shows no anchor text, and a metadata candidate whose text is a block's shows
  that block's ID (``= b1``) instead of the text again;
- a paragraph's line is its ID and its text (``b7 Text``): only other types carry a code and
  a colon (``b8 h2: Text``; a paragraph reading ``h2: ...`` is a JSON string); a metadata
  candidate found in several places shows the first and how many more (``og:title+3``), the
  agreement the model weighs, not each name;
- a link's line follows its block's line and an image's the block it stands after, so
  neither names a block (``l2 Anchor``, ``i1 x.test: Alt | Caption``; a host always ends with
  its colon, and without a host a first word ending with one is a JSON string); the
  candidate set's version is one for every article and stands in the prompt's prefix.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence

from article_runtime.candidates.urls import url_host
from article_runtime.llm.lines import line_text as _text
from article_runtime.model import Block, CandidateSet, ImageCandidate, LinkCandidate

__all__ = ["HEADS", "render_hygiene_context"]

HEADS = ("language: ", "published_at: ", "source_url: ")
"""The data's first lines, in order: the language and the fixed decisions."""

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


def _block_lines(blocks: Sequence[Block]) -> Iterator[tuple[str | None, str]]:
    """One line a block, with its ID; an empty line where the page container changes, an
    agreement line where the set of extractors that chose the blocks changes (ID None)."""
    shown = ""
    for n, block in enumerate(blocks):
        if n and block.container_id != blocks[n - 1].container_id:
            yield None, ""
        agreed = agreement(block)
        if agreed != shown:
            yield None, agreed
            shown = agreed
        kind = _kind(block)
        yield (
            block.id,
            (
                f"{block.id} {kind}: {_text(block.text)}"
                if kind
                else f"{block.id} {_paragraph_text(block.text)}"
            ),
        )


def _site(url: str | None) -> str | None:
    host = url_host(url) if url else None
    return host.removeprefix("www.") if host else None


def _host_tag(url: str, own: str | None) -> str:
    """`` host`` of a link or image, or nothing when it is on the article's own host."""
    host = _site(url) or "?"
    return "" if host == own else f" {host}"


def _item_line(item_id: str, host: str, parts: Sequence[str]) -> str:
    """``id words`` or ``id host: words`` (the parts joined by `` | ``), ``id`` or ``id host:``
    without words. A host always ends with its colon, and without a host a first word ending
    with a colon is written as a JSON string, so no text passes for a host."""
    if not parts:
        return f"{item_id}{host}:" if host else item_id
    first, *more = parts
    if not host and not first.startswith('"') and (first.split(None, 1) or [""])[0][-1:] == ":":
        first = json.dumps(first, ensure_ascii=False)
    words = " | ".join([first, *more])
    return f"{item_id}{host}: {words}" if host else f"{item_id} {words}"


def _link_line(link: LinkCandidate, block_text: str, own: str | None) -> str:
    """A link whose anchor is its whole block needs no anchor text: the block line shows it."""
    anchor = [] if link.text == block_text else [_text(link.text)]
    return _item_line(link.id, _host_tag(link.href, own), anchor)


def _image_words(text: str, *, before: bool) -> str:
    """An alt or caption, as a JSON string also when it holds the `` | `` between the two,
    or ends with `` |`` ``before`` the other (``a | | b`` would split after ``a``)."""
    if " | " in text or (before and text.endswith(" |")):
        return json.dumps(text, ensure_ascii=False)
    return _text(text)


def _image_line(image: ImageCandidate, own: str | None) -> str:
    words = [part for part in (image.alt, image.caption) if part]
    parts = [_image_words(part, before=n < len(words) - 1) for n, part in enumerate(words)]
    return _item_line(image.id, _host_tag(image.src, own), parts)


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


def _attached(candidates: CandidateSet, own: str | None) -> dict[str | None, list[str]]:
    """The link and image lines that follow each block's line (key None: before the first
    block). A link names its block and an image the block it follows by where it stands,
    not by a block ID on its line. An image after no known block stands before the first, as
    the harness places it; a link on no known block is left out: it could never be placed."""
    texts = {b.id: b.text for b in candidates.blocks}
    after: dict[str | None, list[str]] = {}
    for link in candidates.links:
        if link.block_id in texts:
            line = _link_line(link, texts[link.block_id], own)
            after.setdefault(link.block_id, []).append(line)
    for image in candidates.images:
        anchor = image.after_block_id if image.after_block_id in texts else None
        after.setdefault(anchor, []).append(_image_line(image, own))
    return after


def render_hygiene_context(candidates: CandidateSet) -> str:
    """The article data the hygiene model reads, in the order of spec 5.3 (4 and 5): the
    language and fixed decisions, metadata candidates, then the blocks in base order, each
    followed by its links and the images after it. Every line opens with an ID or a fixed
    word, so no section heads are needed."""
    decisions = candidates.decisions
    own = _site(decisions.source_url)
    attached = _attached(candidates, own)
    language, published_at, source_url = HEADS
    lines = [
        f"{language}{candidates.language or 'unknown'}",
        f"{published_at}{decisions.published_at or 'unknown'}",
        f"{source_url}{decisions.source_url or 'unknown'}",
        *_metadata_lines(candidates),
        *attached.pop(None, ()),
    ]
    for block_id, line in _block_lines(candidates.blocks):
        lines.append(line)
        if block_id is not None:  # taken once: a repeated block ID cannot repeat its items
            lines.extend(attached.pop(block_id, ()))
    return "\n".join(lines)

"""Build the candidate set of one article: decode, parse once, segment, vote, number.

The core of the hygiene path's input (spec 5, 6.2): everything the model may choose from,
with opaque IDs in document order and nothing it could not ground.
"""

from __future__ import annotations

from collections.abc import Sequence

from selectolax.lexbor import LexborHTMLParser

from article_runtime.candidates.bounds import check_tree_depth, count_tags
from article_runtime.candidates.decode import decode_html
from article_runtime.candidates.depth import scan_page
from article_runtime.candidates.extractors import trafilatura_input, vote
from article_runtime.candidates.fallback_title import fallback_title
from article_runtime.candidates.language import MAX_SAMPLE_CHARS, decide_language, declared_language
from article_runtime.candidates.metadata import MAX_TEXT, extract_metadata
from article_runtime.candidates.prune import prune, prune_unvoted
from article_runtime.candidates.segment import RawBlock, Segmentation, segment
from article_runtime.candidates.urls import normalize_url
from article_runtime.errors import InputError
from article_runtime.model.candidates import (
    Block,
    CandidateSet,
    FeedMetadata,
    ImageCandidate,
    LinkCandidate,
)


def _number(blocks: Sequence[RawBlock]) -> tuple[list[Block], dict[int, str]]:
    """Final blocks with opaque IDs; maps raw index -> block ID."""
    ids = {b.index: f"b{n}" for n, b in enumerate(blocks, 1)}
    containers: dict[int, str] = {}
    lists: dict[int, str] = {}
    out: list[Block] = []
    for b in blocks:
        container = containers.setdefault(b.container, f"c{len(containers) + 1}")
        list_id = None
        if b.list_key is not None and b.type == "list_item":
            list_id = lists.setdefault(b.list_key, f"list{len(lists) + 1}")
        out.append(
            Block(
                id=ids[b.index],
                type=b.type,
                text=b.text,
                level=b.level,
                list_id=list_id,
                ordered=b.ordered if list_id else None,
                section_id=ids.get(b.section) if b.section is not None else None,
                container_id=container,
                rows=b.rows,
                extractors=b.extractors,
            )
        )
    return out, ids


def _links(seg: Segmentation, ids: dict[int, str]) -> list[LinkCandidate]:
    kept = [link for link in seg.links if link.block in ids]
    return [
        LinkCandidate(id=f"l{n}", text=k.text, href=k.href, block_id=ids[k.block], start=k.start)
        for n, k in enumerate(kept, 1)
    ]


def _images(seg: Segmentation, ids: dict[int, str]) -> list[ImageCandidate]:
    """Common images, each placed after the last kept block before it; one per source."""
    ordered = sorted(ids)
    out: list[ImageCandidate] = []
    seen: set[str] = set()
    cursor = -1
    for image in seg.images:
        if image.src in seen:
            continue
        seen.add(image.src)
        after: str | None = None
        if image.after is not None:
            while cursor + 1 < len(ordered) and ordered[cursor + 1] <= image.after:
                cursor += 1
            after = ids[ordered[cursor]] if cursor >= 0 else None
        out.append(
            ImageCandidate(
                id=f"i{len(out) + 1}",
                src=image.src,
                alt=image.alt,
                caption=image.caption,
                after_block_id=after,
            )
        )
    return out


def _language_sample(blocks: Sequence[RawBlock]) -> str:
    chosen = [b.text for b in blocks if b.extractors] or [b.text for b in blocks]
    return " ".join(chosen)[:MAX_SAMPLE_CHARS]


def _parse(text: str) -> LexborHTMLParser:
    tree = LexborHTMLParser(text)
    tree.strip_tags(["rt", "rp"])  # ruby readings are pronunciation aids, not text (titles too)
    return tree


def _full_trafilatura_input(text: str) -> str | None:
    """What trafilatura's full mode reads (about 5% of pages): parsed again, as the fast
    mode's input took out what the full mode reads."""
    return trafilatura_input(_parse(text), fast=False)


def build_candidates(
    html: bytes | str, *, url: str | None = None, feed: FeedMetadata | None = None
) -> CandidateSet:
    """Everything deterministic extraction found in one article.

    ``url`` (where ingestion fetched the page) counts only in normal form: one that is no
    absolute http(s) URL is treated as unknown, like a missing one.

    Raises:
        InputError: ``empty_html``, ``html_too_large``, ``not_html``, ``corrupt_gzip``
            (decoding), ``html_too_deep``, ``too_many_elements``, ``no_text_blocks``.
    """
    url = normalize_url(url)
    text = decode_html(html)
    counts = count_tags(text)
    if not counts.bounded:  # bounds.py: most pages are too small for the exact scan to be needed
        scan_page(text)
    tree = _parse(text)
    if counts.bounded:
        check_tree_depth(tree)
    seg = segment(tree, url)
    if not seg.blocks:
        raise InputError("no_text_blocks", "the page has no visible text")
    blocks = prune(seg.blocks)
    metadata, decisions = extract_metadata(tree, url, feed)
    declared = declared_language(tree)
    # trafilatura_input takes from the tree what trafilatura would delete: its last reader
    vote(
        blocks, seg.container_parent, trafilatura_input(tree), lambda: _full_trafilatura_input(text)
    )
    blocks = prune_unvoted(blocks)  # chrome outside everything an extractor chose
    language, declared, detected = decide_language(declared, _language_sample(blocks))
    final, ids = _number(blocks)
    if not metadata.title:  # no markup names a title: the page's own first heading or sentence
        title = fallback_title(final, limit=MAX_TEXT, locale=language or "root")
        metadata = metadata.model_copy(update={"title": [title] if title else []})
    return CandidateSet(
        blocks=final,
        metadata_candidates=metadata,
        links=_links(seg, ids),
        images=_images(seg, ids),
        decisions=decisions,
        language=language,
        language_declared=declared,
        language_detected=detected,
    )

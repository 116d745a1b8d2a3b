"""Assembly by the harness, never the model (spec 8.4).

Texts are fetched by ID and accepted repairs applied; the result is a document (``document``)
whose every piece of text is a slice of a kept block's repaired text or of an image's alt or
caption: the same pieces grounding checks and the Markdown renders. Base order is kept, links
are materialized from candidate hrefs only, common images placed after their block.

A repair is applied to what is rendered or refused before assembly (``renderable``): one that
would straddle a link's anchor edge or a table cell cannot be shown as the log would say.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from article_runtime.harness import document as doc
from article_runtime.harness import markdown as md
from article_runtime.harness.repairs import CROSSES_LINK_BOUNDARY, ReviewedRepair, apply_repairs
from article_runtime.model import Block, CandidateSet, HygieneProposal, LinkCandidate

__all__ = [
    "OUTSIDE_TABLE_CELL",
    "Assembly",
    "assemble",
    "link_boundaries",
    "renderable",
]

OUTSIDE_TABLE_CELL = "outside_table_cell"  # a repair on a table must lie inside one cell


@dataclass(frozen=True)
class Assembly:
    title: str
    subtitle: str | None
    author: str | None
    document: doc.Document

    @cached_property
    def markdown(self) -> str:
        """``render(document)``: nothing else reaches the Markdown."""
        return md.render(self.document)

    @cached_property
    def body_text(self) -> str:
        """The kept blocks' repaired text, one a line: what word counts see."""
        return doc.body_text(self.document)


def link_boundaries(candidates: CandidateSet, kept_link_ids: Sequence[str]) -> dict[str, list[int]]:
    """Offsets a repair may not straddle: the edges of every kept link's anchor text."""
    kept = set(kept_link_ids)
    edges: dict[str, list[int]] = {}
    for ln in candidates.links:
        if ln.id in kept:
            edges.setdefault(ln.block_id, []).extend((ln.start, ln.start + len(ln.text)))
    return edges


def _cell_spans(block: Block) -> list[list[tuple[int, int]]] | None:
    """Each cell's span in the block's text (cells joined by one space, empty ones skipped),
    or None when the text is not made of the rows that way (the table renders as text)."""
    if block.type != "table" or not block.rows:
        return None
    text, pos, seen = block.text, 0, False
    spans: list[list[tuple[int, int]]] = []
    for row in block.rows:
        spans.append([])
        for cell in row:
            if not cell:
                spans[-1].append((pos, pos))
                continue
            if seen:
                if text[pos : pos + 1] != " ":
                    return None
                pos += 1
            if not text.startswith(cell, pos):
                return None
            spans[-1].append((pos, pos + len(cell)))
            pos, seen = pos + len(cell), True
    return spans if pos == len(text) else None


def _anchors(block: Block, links: Iterable[LinkCandidate]) -> list[LinkCandidate]:
    """The links that can be shown on ``block``: anchor text where it says, no overlaps."""
    if block.type in ("code", "table"):
        return []  # code is literal and cells carry no links
    shown: list[LinkCandidate] = []
    end = 0
    for ln in sorted(links, key=lambda ln: ln.start):
        stop = ln.start + len(ln.text)
        if ln.text and ln.start >= end and block.text[ln.start : stop] == ln.text:
            shown.append(ln)
            end = stop
    return shown


def _shown_spans(block: Block, links: Sequence[LinkCandidate]) -> list[tuple[int, int]]:
    """The spans of the block's text that render as one piece each, in order."""
    cells = _cell_spans(block)
    if cells is not None:
        return [span for row in cells for span in row if span[1] > span[0]]
    cuts = sorted({0, len(block.text)} | {e for ln in _anchors(block, links) for e in _edges(ln)})
    return list(itertools.pairwise(cuts))


def renderable(
    blocks: Mapping[str, Block],
    links: Mapping[str, Sequence[LinkCandidate]],
    reviews: Sequence[ReviewedRepair],
) -> list[ReviewedRepair]:
    """``reviews`` with every accepted repair that assembly could not show as applied refused:
    one must lie inside one shown piece (a table cell, the text between link anchor edges).

    ``blocks``: the kept blocks by ID; ``links``: the kept links by block ID.
    """
    spans: dict[str, tuple[list[int], list[int]]] = {}  # block ID -> (starts, ends)
    out: list[ReviewedRepair] = []
    for r in reviews:
        block = blocks.get(r.repair.target_id)
        if r.accepted and r.start is not None and block is not None:
            if block.id not in spans:
                shown = _shown_spans(block, links.get(block.id, ()))
                spans[block.id] = ([a for a, _ in shown], [b for _, b in shown])
            starts, ends = spans[block.id]
            k = bisect.bisect_right(starts, r.start) - 1
            if k < 0 or r.start + len(r.repair.original) > ends[k]:
                table = block.type == "table" and _cell_spans(block) is not None
                r = replace(
                    r, accepted=False, reason=OUTSIDE_TABLE_CELL if table else CROSSES_LINK_BOUNDARY
                )
        out.append(r)
    return out


def _edges(ln: LinkCandidate) -> tuple[int, int]:
    return ln.start, ln.start + len(ln.text)


@dataclass(frozen=True, slots=True)
class _Repaired:
    """A block's text after its accepted repairs, and where each original offset moved."""

    key: doc.SourceKey
    text: str
    ends: tuple[int, ...]  # original end of each applied repair, in order
    moved: tuple[int, ...]  # length change of the text up to and including each repair

    def at(self, offset: int) -> int:
        """The repaired offset of an original offset no repair straddles."""
        k = bisect.bisect_right(self.ends, offset)
        return offset + (self.moved[k - 1] if k else 0)

    def piece(self, start: int, end: int, href: str | None = None) -> doc.Piece:
        a, b = self.at(start), self.at(end)
        return doc.Piece(self.text[a:b], self.key, a, href)


def _repaired(block: Block, repairs: Sequence[ReviewedRepair]) -> _Repaired:
    if not repairs:  # most blocks: nothing moves (about a quarter of assembly's time)
        return _Repaired((block.id, "text"), block.text, (), ())
    applied = sorted((r for r in repairs if r.accepted and r.start is not None), key=_start)
    ends = tuple(_start(r) + len(r.repair.original) for r in applied)
    deltas = (len(r.repair.replacement) - len(r.repair.original) for r in applied)
    text = apply_repairs(block.text, applied)
    return _Repaired((block.id, "text"), text, ends, tuple(itertools.accumulate(deltas)))


def _start(r: ReviewedRepair) -> int:
    return r.start or 0


def _inline(text: _Repaired, size: int, links: Sequence[LinkCandidate]) -> doc.Inline:
    """The block's text cut at its links' edges: plain pieces and anchor pieces."""
    if not links:
        return (text.piece(0, size),) if size else ()
    cuts = sorted({0, size} | {e for ln in links for e in _edges(ln)})
    href_at = {ln.start: ln.href for ln in links}
    out: list[doc.Piece] = []
    for a, b in itertools.pairwise(cuts):
        out.append(text.piece(a, b, href_at.get(a)))
    return tuple(out)


def _table(block: Block, text: _Repaired) -> doc.Table | None:
    cells = _cell_spans(block)
    if cells is None:
        return None
    return doc.Table(tuple(tuple(text.piece(a, b) for a, b in row) for row in cells))


def _node(block: Block, text: _Repaired, links: Sequence[LinkCandidate]) -> doc.Node | None:
    """One block as a document node; None when nothing of it is left to show."""
    if not text.text:
        return None
    if block.type == "code":
        return doc.Code(text.piece(0, len(block.text)))
    if block.type == "table" and (table := _table(block, text)) is not None:
        return table
    inline = _inline(text, len(block.text), links)
    if block.type == "heading":
        return doc.Heading(min(max(block.level or 2, 1), 6), inline)
    if block.type == "quote":
        return doc.Quote(inline)
    return doc.Paragraph(inline)


def _same_list(prev: Block | None, block: Block) -> bool:
    return (
        prev is not None
        and block.type == "list_item"
        and prev.type == "list_item"
        and block.list_id == prev.list_id
    )


def assemble(
    candidates: CandidateSet,
    proposal: HygieneProposal,
    accepted: Mapping[str, Sequence[ReviewedRepair]],
) -> Assembly:
    """Build the article from IDs. ``accepted`` maps target ID to its accepted repairs."""
    blocks = {b.id: b for b in candidates.blocks}
    kept_blocks = [blocks[i] for i in proposal.kept_block_ids]
    kept_links = set(proposal.kept_link_ids)
    links_of: dict[str, list[LinkCandidate]] = {}
    for ln in candidates.links:
        if ln.id in kept_links:
            links_of.setdefault(ln.block_id, []).append(ln)

    images_after: dict[str | None, list[doc.Image]] = {}
    for anchor, image in _placed_images(candidates, proposal):
        images_after.setdefault(anchor, []).append(image)

    nodes: list[doc.Node] = list(images_after.get(None, []))
    items: list[doc.Inline] = []  # the list run being built
    held: list[doc.Image] = []  # images after its items wait for the run's end
    prev: Block | None = None
    for block in kept_blocks:
        if (items or held) and not _same_list(prev, block):
            if items:
                nodes.append(doc.ListRun(bool(prev and prev.ordered), tuple(items)))
            nodes.extend(held)
            items, held = [], []
        text = _repaired(block, accepted.get(block.id, []))
        anchors = _anchors(block, links_of.get(block.id, ()))
        if block.type == "list_item":
            if text.text:
                items.append(_inline(text, len(block.text), anchors))
            held.extend(images_after.get(block.id, []))
        else:
            if (node := _node(block, text, anchors)) is not None:
                nodes.append(node)
            nodes.extend(images_after.get(block.id, []))
        prev = block
    if items:
        nodes.append(doc.ListRun(bool(prev and prev.ordered), tuple(items)))
    nodes.extend(held)

    m = candidates.metadata_candidates
    meta = {c.id: c.text for c in (*m.title, *m.subtitle, *m.author)}

    def chosen(cid: str | None) -> str | None:
        if cid is None:
            return None
        return apply_repairs(meta[cid], [r for r in accepted.get(cid, []) if r.start is not None])

    return Assembly(
        title=chosen(proposal.title_candidate_id) or "",
        subtitle=chosen(proposal.subtitle_candidate_id),
        author=chosen(proposal.author_candidate_id),
        document=tuple(nodes),
    )


def _placed_images(
    candidates: CandidateSet, proposal: HygieneProposal
) -> list[tuple[str | None, doc.Image]]:
    """Each kept image goes after its block, or after the nearest kept block before it."""
    order = {b.id: n for n, b in enumerate(candidates.blocks)}
    kept_positions = sorted((order[i], i) for i in proposal.kept_block_ids)
    positions = [pos for pos, _ in kept_positions]
    kept_images = set(proposal.kept_image_ids)
    placed: list[tuple[str | None, doc.Image]] = []
    for img in candidates.images:
        if img.id not in kept_images:
            continue
        limit = order.get(img.after_block_id or "", -1)
        before = bisect.bisect_right(positions, limit)  # kept blocks at or before the limit
        anchor = kept_positions[before - 1][1] if before else None
        field_name = "alt" if img.alt else "caption"
        label = img.alt or img.caption
        placed.append((anchor, doc.Image(doc.Piece(label, (img.id, field_name), 0), img.src)))
    return placed

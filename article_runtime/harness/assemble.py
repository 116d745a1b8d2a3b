"""Assembly by the harness, never the model (spec 8.4).

Texts are fetched by ID, accepted repairs applied, base order kept, links materialized from
candidate hrefs only, common images placed after their block, Markdown serialized.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from article_runtime.harness import markdown as md
from article_runtime.harness.repairs import ReviewedRepair, apply_repairs
from article_runtime.model import Block, CandidateSet, HygieneProposal, LinkCandidate


@dataclass(frozen=True, slots=True)
class Assembly:
    title: str
    subtitle: str | None
    author: str | None
    markdown: str
    body_text: str  # kept blocks' repaired text, one block a line: what word counts see


def link_boundaries(candidates: CandidateSet, kept_link_ids: Sequence[str]) -> dict[str, list[int]]:
    """Offsets a repair may not straddle: the edges of every kept link's anchor text."""
    kept = set(kept_link_ids)
    edges: dict[str, list[int]] = {}
    for ln in candidates.links:
        if ln.id in kept:
            edges.setdefault(ln.block_id, []).extend((ln.start, ln.start + len(ln.text)))
    return edges


def _inline(block: Block, links: Sequence[LinkCandidate], repairs: Sequence[ReviewedRepair]) -> str:
    """The block's text with repairs applied inside segments and links materialized."""
    text = block.text
    cuts = sorted({0, len(text)} | {e for ln in links for e in (ln.start, ln.start + len(ln.text))})
    href_at = {ln.start: ln for ln in links}
    parts: list[str] = []
    for a, b in itertools.pairwise(cuts):
        local = [
            dataclasses.replace(r, start=r.start - a)
            for r in repairs
            if r.start is not None and a <= r.start and r.start + len(r.repair.original) <= b
        ]
        segment = apply_repairs(text[a:b], local)
        anchor = href_at.get(a)
        if anchor is not None and a + len(anchor.text) == b:
            if parts and parts[-1].endswith("!"):  # "!" right before "[" would open an image
                parts[-1] = parts[-1][:-1] + "\\!"
            parts.append(md.link(segment, anchor.href))
        else:
            parts.append(md.escape_text(segment))
    return "".join(parts)


def _plain(block: Block, repairs: Sequence[ReviewedRepair]) -> str:
    return apply_repairs(block.text, [r for r in repairs if r.start is not None])


def _render_run(blocks: Sequence[Block], inline: Mapping[str, str]) -> str:
    """Render one block, or one run of consecutive items of the same list."""
    first = blocks[0]
    if first.type == "list_item":
        return md.list_items([inline[b.id] for b in blocks], ordered=bool(first.ordered))
    if first.type == "heading":
        return md.heading(first.level or 2, inline[first.id])
    if first.type == "quote":
        return md.quote(inline[first.id])
    if first.type == "code":
        return md.code(first.text)
    if first.type == "table" and first.rows:
        return md.table(first.rows)
    return inline[first.id]


def _runs(blocks: Sequence[Block]) -> list[list[Block]]:
    runs: list[list[Block]] = []
    for block in blocks:
        prev = runs[-1][-1] if runs else None
        same_list = (
            prev is not None
            and block.type == "list_item"
            and prev.type == "list_item"
            and block.list_id == prev.list_id
        )
        if same_list:
            runs[-1].append(block)
        else:
            runs.append([block])
    return runs


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

    inline = {b.id: _inline(b, links_of.get(b.id, []), accepted.get(b.id, [])) for b in kept_blocks}
    chunks_after: dict[str | None, list[str]] = {}
    for img in _placed_images(candidates, proposal):
        chunks_after.setdefault(img[0], []).append(md.image(img[1], img[2]))

    chunks: list[str] = list(chunks_after.get(None, []))
    for run in _runs(kept_blocks):
        chunks.append(_render_run(run, inline))
        for block in run:
            chunks.extend(chunks_after.get(block.id, []))

    m = candidates.metadata_candidates
    meta = {c.id: c.text for c in (*m.title, *m.subtitle, *m.author)}

    def chosen(cid: str | None) -> str | None:
        if cid is None:
            return None
        return apply_repairs(meta[cid], [r for r in accepted.get(cid, []) if r.start is not None])

    title = chosen(proposal.title_candidate_id) or ""
    return Assembly(
        title=title,
        subtitle=chosen(proposal.subtitle_candidate_id),
        author=chosen(proposal.author_candidate_id),
        markdown="\n\n".join(chunks) + "\n",
        body_text="\n".join(_plain(b, accepted.get(b.id, [])) for b in kept_blocks),
    )


def _placed_images(
    candidates: CandidateSet, proposal: HygieneProposal
) -> list[tuple[str | None, str, str]]:
    """Each kept image goes after its block, or after the nearest kept block before it."""
    order = {b.id: n for n, b in enumerate(candidates.blocks)}
    kept_positions = sorted((order[i], i) for i in proposal.kept_block_ids)
    kept_images = set(proposal.kept_image_ids)
    placed: list[tuple[str | None, str, str]] = []
    for img in candidates.images:
        if img.id not in kept_images:
            continue
        anchor: str | None = None
        if img.after_block_id is not None:
            limit = order[img.after_block_id]
            before = [bid for pos, bid in kept_positions if pos <= limit]
            anchor = before[-1] if before else None
        placed.append((anchor, img.alt or img.caption, img.src))
    return placed

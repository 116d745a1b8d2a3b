"""The ten validations of spec 8.1, in order, each failing with a categorical reason.

Each step is a pure function of what the earlier steps established; the first failure stops
the run (the rest are reported as skipped). Steps 1-6 and 8-10 invalidate the whole proposal
(the caller falls back); step 7 judges each repair alone and never fails the proposal except
for grounding violations (spec 8.3): a repair naming an ID that does not exist, or one whose
replacement brings in a URL.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pydantic import ValidationError

from article_runtime import contracts
from article_runtime.answer_bounds import (
    AnswerBounds,
    hygiene_bounds,
    list_overflow,
    longest_answer_length,
)
from article_runtime.candidates.urls import is_url
from article_runtime.harness.assemble import Assembly, assemble, link_boundaries, renderable
from article_runtime.harness.grounding import check_grounding
from article_runtime.harness.repair_edit import TargetRole
from article_runtime.harness.repairs import ReviewedRepair, apply_repairs, review_repairs
from article_runtime.harness.runner import StepFailure, parse_json
from article_runtime.model import Block, CandidateSet, HygieneProposal, LinkCandidate
from article_runtime.text import count_words

MIN_BODY_WORDS = 15
TARGET_NOT_KEPT = "target_not_kept"


@dataclass
class Run:
    """What the steps establish, in order."""

    candidates: CandidateSet
    raw: str | bytes | Mapping[str, Any] | HygieneProposal
    data: Any = None
    proposal: HygieneProposal | None = None
    reviews: list[ReviewedRepair] = field(default_factory=list)
    assembly: Assembly | None = None
    notes: dict[int, str] = field(default_factory=dict)

    @cached_property
    def bounds(self) -> AnswerBounds:
        return hygiene_bounds(self.candidates)

    @cached_property
    def kinds(self) -> dict[str, str]:
        c = self.candidates
        m = c.metadata_candidates
        kinds = {b.id: "block" for b in c.blocks}
        kinds |= {x.id: "link" for x in c.links}
        kinds |= {x.id: "image" for x in c.images}
        for kind, group in (("title", m.title), ("subtitle", m.subtitle), ("author", m.author)):
            kinds |= {x.id: kind for x in group}
        return kinds

    @cached_property
    def targets(self) -> dict[str, str]:
        """Texts a repair may touch: the kept blocks and the chosen metadata candidates."""
        p = self.need_proposal()
        kept = set(p.kept_block_ids)
        texts = {b.id: b.text for b in self.candidates.blocks if b.id in kept}
        chosen = {p.title_candidate_id, p.subtitle_candidate_id, p.author_candidate_id}
        m = self.candidates.metadata_candidates
        texts |= {c.id: c.text for c in (*m.title, *m.subtitle, *m.author) if c.id in chosen}
        return texts

    @cached_property
    def kept_blocks(self) -> dict[str, Block]:
        kept = set(self.need_proposal().kept_block_ids)
        return {b.id: b for b in self.candidates.blocks if b.id in kept}

    @cached_property
    def kept_links(self) -> dict[str, list[LinkCandidate]]:
        """Kept links by the ID of their block."""
        kept = set(self.need_proposal().kept_link_ids)
        by_block: dict[str, list[LinkCandidate]] = {}
        for ln in self.candidates.links:
            if ln.id in kept:
                by_block.setdefault(ln.block_id, []).append(ln)
        return by_block

    def need_proposal(self) -> HygieneProposal:
        assert self.proposal is not None, "steps ran out of order"
        return self.proposal


def json_parseable(run: Run) -> None:
    """An answer longer than the longest valid one (``answer_too_long``) is refused before
    it is parsed: 12 MB of repeated IDs would take seconds to parse and judge."""
    if isinstance(run.raw, HygieneProposal):
        run.data = run.raw.model_dump(mode="json")
        return
    limit = longest_answer_length(contracts.HYGIENE_OUTPUT, run.bounds)
    run.data = parse_json(run.raw, max_length=limit)


def schema_valid(run: Run) -> None:
    """The schema, then what it cannot say for every article: no ID list holds more items
    than the article has candidates of that kind (the schema makes them unique)."""
    violation = contracts.first_violation(contracts.HYGIENE_OUTPUT, run.data)
    if violation is None:
        violation = list_overflow(run.data, run.bounds)
    if violation is not None:
        raise StepFailure("schema_violation", violation)
    try:
        run.proposal = HygieneProposal.model_validate(run.data)
    except ValidationError as exc:  # the schema and the model disagree: a contract bug
        raise StepFailure("schema_violation", str(exc)[:300]) from exc


def _expect_kind(kinds: Mapping[str, str], cid: str, kind: str, what: str) -> None:
    found = kinds.get(cid)
    if found is None:
        raise StepFailure(f"unknown_{what}_id", cid)
    if found != kind:
        raise StepFailure(f"wrong_kind_{what}_id", f"{cid} is a {found}, not a {kind}")


def metadata_ids(run: Run) -> None:
    p, kinds = run.need_proposal(), run.kinds
    _expect_kind(kinds, p.title_candidate_id, "title", "metadata")
    if p.subtitle_candidate_id is not None:
        _expect_kind(kinds, p.subtitle_candidate_id, "subtitle", "metadata")
    if p.author_candidate_id is not None:
        _expect_kind(kinds, p.author_candidate_id, "author", "metadata")


def block_ids(run: Run) -> None:
    """Kept IDs are unique by then (the schema's ``uniqueItems``, step 2)."""
    kinds, seen = run.kinds, set(run.need_proposal().kept_block_ids)
    for bid in run.need_proposal().kept_block_ids:
        _expect_kind(kinds, bid, "block", "block")
    removed: set[str] = set()
    for item in run.need_proposal().removed_block_reasons or ():  # spec 6.4
        _expect_kind(kinds, item.block_id, "block", "block")
        if item.block_id in seen:
            raise StepFailure("removed_block_kept", item.block_id)
        if item.block_id in removed:
            raise StepFailure("duplicate_removed_block_id", item.block_id)
        removed.add(item.block_id)


def canonical_order(run: Run) -> None:
    position = {b.id: n for n, b in enumerate(run.candidates.blocks)}
    kept = run.need_proposal().kept_block_ids
    for before, after in itertools.pairwise(kept):
        if position[after] < position[before]:
            raise StepFailure("order_violation", f"{after} comes before {before} in the page")


def links_and_images(run: Run) -> None:
    p, kinds = run.need_proposal(), run.kinds
    for lid in p.kept_link_ids:
        _expect_kind(kinds, lid, "link", "link")
    for iid in p.kept_image_ids:
        _expect_kind(kinds, iid, "image", "image")
    kept_blocks, kept_links = set(p.kept_block_ids), set(p.kept_link_ids)
    orphans = [
        ln.id
        for ln in run.candidates.links
        if ln.id in kept_links and ln.block_id not in kept_blocks
    ]
    if orphans:
        run.notes[6] = f"{len(orphans)} kept link(s) ignored: their block is not kept"


def _urls(text: str) -> set[str]:
    """Whitespace-separated pieces that read as absolute URLs (urllib, not a pattern); one
    too broken to parse still counts."""
    return {
        piece
        for piece in text.split()
        if is_url(piece.strip("()<>[]\"'.,;")) or piece.lower().startswith("www.")
    }


def repairs(run: Run) -> None:
    p, kinds = run.need_proposal(), run.kinds
    for repair in p.repairs:
        if kinds.get(repair.target_id) not in ("block", "title", "subtitle", "author"):
            raise StepFailure("unknown_repair_target", repair.target_id)
    for repair in p.repairs:
        invented = _urls(repair.replacement) - _urls(repair.original)
        if invented:
            raise StepFailure("ungrounded_url", sorted(invented)[0])
    targets = run.targets
    reviewable = [r for r in p.repairs if r.target_id in targets]
    reviewed = iter(
        review_repairs(
            reviewable,
            targets,
            boundaries=link_boundaries(run.candidates, p.kept_link_ids),
            locale=run.candidates.language,
            roles=target_roles(run.candidates),
        )
    )
    reviews = [
        next(reviewed)
        if r.target_id in targets
        else ReviewedRepair(r, False, TARGET_NOT_KEPT, None)
        for r in p.repairs
    ]
    run.reviews = renderable(run.kept_blocks, run.kept_links, reviews)
    accepted = sum(r.accepted for r in run.reviews)
    run.notes[7] = f"{accepted} applied, {len(run.reviews) - accepted} rejected"


def target_roles(candidates: CandidateSet) -> dict[str, TargetRole]:
    """Code blocks are verbatim; author and title candidates read as names."""
    meta = candidates.metadata_candidates
    roles: dict[str, TargetRole] = {b.id: "code" for b in candidates.blocks if b.type == "code"}
    roles |= {c.id: "author" for c in meta.author}
    roles |= {c.id: "title" for c in meta.title}
    return roles


def accepted_by_target(reviews: Sequence[ReviewedRepair]) -> dict[str, list[ReviewedRepair]]:
    grouped: dict[str, list[ReviewedRepair]] = {}
    for r in reviews:
        if r.accepted:
            grouped.setdefault(r.repair.target_id, []).append(r)
    return grouped


def assembly(run: Run) -> None:
    try:
        run.assembly = assemble(
            run.candidates, run.need_proposal(), accepted_by_target(run.reviews)
        )
    except (KeyError, ValueError) as exc:
        raise StepFailure("assembly_failed", repr(exc)[:200]) from exc


def grounding(run: Run) -> None:
    p, c = run.need_proposal(), run.candidates
    assert run.assembly is not None
    kept_links, kept_images = set(p.kept_link_ids), set(p.kept_image_ids)
    images = [img for img in c.images if img.id in kept_images]
    accepted = accepted_by_target(run.reviews)
    sources = {
        (bid, "text"): apply_repairs(b.text, accepted.get(bid, []))
        for bid, b in run.kept_blocks.items()
    }
    for img in images:
        sources |= {(img.id, "alt"): img.alt, (img.id, "caption"): img.caption}
    urls = [ln.href for ln in c.links if ln.id in kept_links] + [i.src for i in images]
    violation = check_grounding(run.assembly.document, sources, urls)
    if violation is not None:
        raise StepFailure(*violation)


def content_shortfall(kept: Sequence[Block], body_text: str) -> StepFailure | None:
    """Why kept blocks with this text are too little to be an article, or None (step 10)."""
    if not any(b.type != "heading" for b in kept):
        return StepFailure("no_body_blocks")
    count = count_words(body_text, at_most=MIN_BODY_WORDS)
    if count < MIN_BODY_WORDS:
        return StepFailure("content_too_short", f"{count} words < {MIN_BODY_WORDS}")
    return None


def content_minimum(run: Run) -> None:
    assert run.assembly is not None
    if not run.assembly.title.strip():
        raise StepFailure("empty_title")
    kept = [run.kept_blocks[i] for i in run.need_proposal().kept_block_ids]
    shortfall = content_shortfall(kept, run.assembly.body_text)
    if shortfall is not None:
        raise shortfall


STEPS = (
    json_parseable,
    schema_valid,
    metadata_ids,
    block_ids,
    canonical_order,
    links_and_images,
    repairs,
    assembly,
    grounding,
    content_minimum,
)
STEP_NAMES: tuple[str, ...] = tuple(step.__name__ for step in STEPS)

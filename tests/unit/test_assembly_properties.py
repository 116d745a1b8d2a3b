"""Assembly and grounding agree by construction, and the deterministic path always holds.

Candidate sets are generated the way the builder lays them out (blocks of every type with
hostile text, links on anchor spans, tables whose text is their cells joined by spaces, images
after blocks); selections and repairs are arbitrary. Whatever is chosen, the harness must never
reject its own assembly, the Markdown must read back as the kept blocks and nothing else, and
an accepted repair must show in what is rendered.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.deterministic import deterministic_proposal
from article_runtime.errors import NoValidProposal
from article_runtime.harness import document as doc
from article_runtime.harness.assemble import OUTSIDE_TABLE_CELL, assemble, renderable
from article_runtime.harness.grounding import check_grounding
from article_runtime.harness.pipeline import run_hygiene_harness, validate
from article_runtime.harness.repairs import ReviewedRepair, apply_repairs
from article_runtime.model import (
    Block,
    CandidateSet,
    Decisions,
    HygieneProposal,
    ImageCandidate,
    LinkCandidate,
    MetadataCandidate,
    MetadataCandidates,
    Repair,
)
from article_runtime.model.candidates import BlockType
from article_runtime.text import count_words
from tests.commonmark import parse
from tests.unit.test_markdown_properties import HOSTILE_TEXT, HOSTILE_URL, kept, shown, target

WORDS = ["Lula", "disse", "error", "E0382", "edges", "0", "東京", "3-1", "não", "über", "the"]
TYPES: list[BlockType] = ["heading", "paragraph", "list_item", "quote", "code", "table"]

token = st.one_of(st.sampled_from(HOSTILE_TEXT), st.sampled_from(WORDS), st.text(max_size=3))
texts = st.lists(token, min_size=1, max_size=10).map(" ".join).filter(bool)
hrefs = st.lists(st.sampled_from(HOSTILE_URL), max_size=5).map("".join)


def _normal(text: str) -> str:
    return " ".join(text.split())


@st.composite
def tables(draw: st.DrawFn) -> tuple[str, list[list[str]]]:
    """Rows of whitespace-normalized cells and the text the builder makes of them."""
    rows = draw(
        st.lists(st.lists(texts.map(_normal) | st.just(""), min_size=1, max_size=3), max_size=3)
    )
    rows = [row for row in rows if any(row)] or [["x"]]
    return " ".join(cell for row in rows for cell in row if cell), rows


@st.composite
def candidate_sets(draw: st.DrawFn) -> CandidateSet:
    blocks: list[Block] = []
    links: list[LinkCandidate] = []
    list_id = 0
    for n in range(1, draw(st.integers(1, 8)) + 1):
        kind = draw(st.sampled_from(TYPES))
        extra: dict[str, Any] = {}
        if kind == "table":
            text, extra["rows"] = draw(tables())
        else:
            text = draw(texts)
        if kind == "heading":
            extra["level"] = draw(st.integers(1, 6))
        if kind == "list_item":
            if not (blocks and blocks[-1].type == "list_item" and draw(st.booleans())):
                list_id += 1
            extra["list_id"] = f"list{list_id}"
            extra["ordered"] = list_id % 2 == 0
        extractors = draw(st.sampled_from([[], ["dom"], ["trafilatura"], ["dom", "trafilatura"]]))
        block = Block(
            id=f"b{n}", type=kind, text=text, container_id="c1", extractors=extractors, **extra
        )
        blocks.append(block)
        cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=4))))
        for start, end in zip(cuts[::2], cuts[1::2], strict=False):
            if end > start:
                links.append(
                    LinkCandidate(
                        id=f"l{len(links) + 1}",
                        text=text[start:end],
                        href=draw(hrefs),
                        block_id=block.id,
                        start=start,
                    )
                )
    images = [
        ImageCandidate(
            id=f"i{n}",
            src=draw(hrefs),
            alt=draw(st.one_of(st.just(""), texts)),
            caption=draw(st.one_of(st.just(""), texts)),
            after_block_id=draw(st.one_of(st.none(), st.sampled_from([b.id for b in blocks]))),
        )
        for n in range(1, draw(st.integers(0, 3)) + 1)
    ]
    return CandidateSet(
        blocks=blocks,
        metadata_candidates=MetadataCandidates(
            title=[MetadataCandidate(id="t1", text=draw(texts), source="h1")]
        ),
        links=links,
        images=images,
        decisions=Decisions(),
    )


@st.composite
def selections(draw: st.DrawFn) -> tuple[CandidateSet, HygieneProposal]:
    cs = draw(candidate_sets())

    def some(ids: list[str]) -> list[str]:
        return [i for i in ids if draw(st.booleans())]

    proposal = HygieneProposal(
        title_candidate_id="t1",
        subtitle_candidate_id=None,
        author_candidate_id=None,
        kept_block_ids=some([b.id for b in cs.blocks]),
        kept_link_ids=some([ln.id for ln in cs.links]),
        kept_image_ids=some([i.id for i in cs.images]),
        repairs=[],
    )
    return cs, proposal


def _block_kinds(cs: CandidateSet, kept_ids: list[str]) -> list[str]:
    """What the kept blocks are, as Markdown blocks: one list per run of one list's items."""
    blocks = {b.id: b for b in cs.blocks}
    kinds: list[str] = []
    previous: Block | None = None
    for block in (blocks[i] for i in kept_ids):
        same_list = previous is not None and previous.list_id == block.list_id
        if block.type == "list_item" and kinds and kinds[-1] == "list" and same_list:
            continue
        kinds.append(
            {"list_item": "list", "figure_caption": "paragraph"}.get(block.type, block.type)
        )
        previous = block
    return kinds


def _text_of(block: tuple[Any, ...]) -> list[str]:
    kind = block[0]
    if kind in ("paragraph", "quote"):
        return ["".join(t for t, _ in block[1])]
    if kind == "heading":
        return ["".join(t for t, _ in block[2])]
    if kind == "list":
        return ["".join(t for t, _ in item) for item in block[2]]
    if kind == "code":
        return [block[1].removesuffix("\n")]
    if kind == "table":
        return [" ".join("".join(t for t, _ in cell) for row in block[1] for cell in row if cell)]
    return []


def _spans_of(block: tuple[Any, ...]) -> list[tuple[str, str | None]]:
    if block[0] in ("paragraph", "quote"):
        return list(block[1])
    if block[0] == "heading":
        return list(block[2])
    if block[0] == "list":
        return [span for item in block[2] for span in item]
    return []


def _expected_text(block: Block) -> str:
    if block.type == "code":
        return kept(block.text).replace("\r\n", "\n").replace("\r", "\n")
    return shown(block.text)


@settings(max_examples=200, deadline=None)
@given(selections())
def test_any_valid_selection_assembles_grounded_and_reads_back_as_its_blocks(
    chosen: tuple[CandidateSet, HygieneProposal],
) -> None:
    cs, proposal = chosen
    run, report = validate(cs, proposal)
    outcomes = {s.name: (s.outcome, s.reason, s.detail) for s in report.steps}
    assert outcomes["assembly"][0] == "passed", outcomes["assembly"]
    assert outcomes["grounding"][0] == "passed", outcomes["grounding"]
    assert run.assembly is not None

    parsed = parse(run.assembly.markdown)
    blocks = [b for b in parsed if b[0] != "image"]
    assert [b[0] for b in blocks] == _block_kinds(cs, proposal.kept_block_ids)
    text = {b.id: b for b in cs.blocks}
    assert [t for b in blocks for t in _text_of(b)] == [
        _expected_text(text[i]) for i in proposal.kept_block_ids
    ]
    kept_images = [i for i in cs.images if i.id in proposal.kept_image_ids]
    assert len(parsed) - len(blocks) == len(kept_images)
    shown_links = [(t, unquote(h)) for b in blocks for t, h in _spans_of(b) if h is not None]
    kept_links = [
        (shown(ln.text), target(ln.href))
        for i in proposal.kept_block_ids
        if text[i].type not in ("code", "table")
        for ln in cs.links
        if ln.block_id == i and ln.id in proposal.kept_link_ids
    ]
    assert shown_links == kept_links


@settings(max_examples=200, deadline=None)
@given(selections())
def test_links_and_images_change_no_body_text(chosen: tuple[CandidateSet, HygieneProposal]) -> None:
    """What ``deterministic._enough`` relies on to count words without them."""
    cs, proposal = chosen
    bare = proposal.model_copy(update={"kept_link_ids": [], "kept_image_ids": []})
    assert assemble(cs, bare, {}).body_text == assemble(cs, proposal, {}).body_text


@st.composite
def repaired(draw: st.DrawFn) -> tuple[CandidateSet, HygieneProposal, list[ReviewedRepair]]:
    """A selection and repairs reviewed as accepted anywhere in the kept blocks' text."""
    cs, proposal = draw(selections())
    reviews: list[ReviewedRepair] = []
    for block in cs.blocks:
        if block.id not in proposal.kept_block_ids:
            continue
        cuts = sorted(set(draw(st.lists(st.integers(0, len(block.text)), max_size=4))))
        for start, end in zip(cuts[::2], cuts[1::2], strict=False):
            if end > start:
                repair = Repair.model_construct(  # no checks: any text, surrogates too
                    target_id=block.id,
                    original=block.text[start:end],
                    replacement=draw(st.one_of(st.just(""), texts)),
                    category="spacing",
                    justification="generated",
                )
                reviews.append(ReviewedRepair(repair, True, "accepted_spacing", start))
    return cs, proposal, reviews


@settings(max_examples=200, deadline=None)
@given(repaired())
def test_an_accepted_repair_is_rendered_or_refused_never_ignored(
    case: tuple[CandidateSet, HygieneProposal, list[ReviewedRepair]],
) -> None:
    cs, proposal, reviews = case
    blocks = {b.id: b for b in cs.blocks if b.id in proposal.kept_block_ids}
    links: dict[str, list[LinkCandidate]] = {}
    for ln in cs.links:
        if ln.id in proposal.kept_link_ids:
            links.setdefault(ln.block_id, []).append(ln)
    judged = renderable(blocks, links, reviews)
    applied: dict[str, list[ReviewedRepair]] = {}
    for r in judged:
        if r.accepted:
            applied.setdefault(r.repair.target_id, []).append(r)
    assembly = assemble(cs, proposal, applied)

    sources = {(i, "text"): apply_repairs(b.text, applied.get(i, [])) for i, b in blocks.items()}
    for img in cs.images:
        sources |= {(img.id, "alt"): img.alt, (img.id, "caption"): img.caption}
    urls = [ln.href for ln in cs.links] + [i.src for i in cs.images]
    assert check_grounding(assembly.document, sources, urls) is None
    # grounding holds each shown block to its whole repaired text; every block with text shows
    on_screen = {p.source[0] for p in doc.pieces(assembly.document) if p.text}
    for i, block in blocks.items():
        if sources[(i, "text")].strip():
            assert i in on_screen, (block, sources[(i, "text")])


def _only(block: Block) -> tuple[CandidateSet, HygieneProposal]:
    """A page of one block, and the proposal keeping it."""
    title = MetadataCandidate(id="t1", text="T", source="h1")
    cs = CandidateSet(
        blocks=[block], metadata_candidates=MetadataCandidates(title=[title]), decisions=Decisions()
    )
    proposal = HygieneProposal(
        title_candidate_id="t1",
        subtitle_candidate_id=None,
        author_candidate_id=None,
        kept_block_ids=[block.id],
        kept_link_ids=[],
        kept_image_ids=[],
        repairs=[],
    )
    return cs, proposal


def _accepted(block: Block, original: str, replacement: str) -> ReviewedRepair:
    repair = Repair(
        target_id=block.id,
        original=original,
        replacement=replacement,
        category="punctuation_corruption",
        justification="x",
    )
    return ReviewedRepair(repair, True, "accepted", block.text.index(original))


def test_a_repair_inside_a_table_cell_is_rendered_and_one_across_cells_refused() -> None:
    rows = [["Time", "Score"], ["Flamengo", "3-1"]]
    table = Block(
        id="b1",
        type="table",
        text="Time Score Flamengo 3-1",
        rows=rows,
        container_id="c1",
        extractors=["dom"],
    )
    inside, across = _accepted(table, "Flamengo", "Flamengo!"), _accepted(table, "e F", "e; F")
    judged = renderable({"b1": table}, {}, [inside, across])
    assert [(r.accepted, r.reason) for r in judged] == [
        (True, "accepted"),
        (False, OUTSIDE_TABLE_CELL),
    ]
    cs, proposal = _only(table)
    cells = [[(("Time", None),), (("Score", None),)], [(("Flamengo!", None),), (("3-1", None),)]]
    assert parse(assemble(cs, proposal, {"b1": [judged[0]]}).markdown) == [("table", cells)]


def test_a_repair_on_a_code_block_is_rendered() -> None:
    code = Block(
        id="b1", type="code", text="let x = 1;;\nprint(x)", container_id="c", extractors=[]
    )
    cs, proposal = _only(code)
    assembly = assemble(cs, proposal, {"b1": [_accepted(code, ";;", ";")]})
    assert parse(assembly.markdown) == [("code", "let x = 1;\nprint(x)\n")]


def test_what_the_harness_logs_as_applied_is_what_it_renders() -> None:
    """End to end: a repair on code is either applied in the rendered code or logged rejected."""
    text = "print(x);; # done right, and then the loop runs over every row of the table once more"
    code = Block(id="b1", type="code", text=text, container_id="c", extractors=[])
    cs, proposal = _only(code)
    repair = Repair(
        target_id="b1",
        original=";;",
        replacement=";",
        category="punctuation_corruption",
        justification="doubled semicolon",
    )
    result = run_hygiene_harness(
        cs,
        proposal.model_copy(update={"repairs": [repair]}),
        source_html=b"",
        path="primary",
        source="x",
    )
    assert result.article is not None
    applied = bool(result.repairs.applied)
    shown = text.replace(";;", ";") if applied else text
    assert parse(result.article.markdown) == [("code", shown + "\n")]


# --- the deterministic path -----------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(candidate_sets())
def test_the_deterministic_proposal_holds_whenever_the_page_has_an_article(
    cs: CandidateSet,
) -> None:
    """Valid unless even every block together is no article (only headings, or too short),
    or no title candidate has text: then it says so."""
    if not any(c.text.strip() for c in cs.metadata_candidates.title):
        with pytest.raises(NoValidProposal) as refused:
            deterministic_proposal(cs)
        assert refused.value.reason == "no_title_candidate"
        return
    _, report = validate(cs, deterministic_proposal(cs))
    if report.valid:
        return
    has_body = any(b.type != "heading" for b in cs.blocks)
    words = count_words("\n".join(b.text for b in cs.blocks), at_most=15)
    assert report.reason == ("content_too_short" if has_body else "no_body_blocks")
    assert not has_body or words < 15, report


def test_each_image_follows_the_nearest_kept_block_at_or_before_its_own() -> None:
    """Base order decides: an image after a dropped block moves up to the kept block before
    it, one before every kept block opens the article."""
    blocks = [
        Block(
            id=f"b{n}", type="paragraph", text=f"Paragraph {n}.", container_id="c1", extractors=[]
        )
        for n in range(1, 6)
    ]
    anchors = [None, "b2", "b4", "b5", "b1"]
    images = [
        ImageCandidate(
            id=f"i{n}",
            src=f"https://example.org/{n}.jpg",
            alt=f"Image {n}",
            caption="",
            after_block_id=after,
        )
        for n, after in enumerate(anchors, 1)
    ]
    cs = CandidateSet(
        blocks=blocks,
        metadata_candidates=MetadataCandidates(
            title=[MetadataCandidate(id="t1", text="Title", source="h1")]
        ),
        images=images,
        decisions=Decisions(),
    )
    proposal = HygieneProposal(
        title_candidate_id="t1",
        subtitle_candidate_id=None,
        author_candidate_id=None,
        kept_block_ids=["b1", "b3", "b5"],
        kept_link_ids=[],
        kept_image_ids=[i.id for i in images],
        repairs=[],
    )
    order = [next(doc.pieces([node])).source[0] for node in assemble(cs, proposal, {}).document]
    assert order == ["i1", "b1", "i2", "i5", "b3", "i3", "b5", "i4"]

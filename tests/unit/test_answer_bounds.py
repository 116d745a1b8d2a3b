"""The longest valid answer bounds what is parsed and what a model may write (issues 35, 40).

Valid answers are generated here from the schema's rules as written in this file (every ID of
the article at most once, at most 64 repairs of at most 200 characters...), in every layout a
JSON writer can give them, and must pass the limits; answers past them must be refused.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime import contracts
from article_runtime.answer_bounds import (
    AnswerBounds,
    answer_tokens,
    compile_shape,
    hygiene_bounds,
    list_overflow,
    longest_answer_length,
    shape_length,
)
from article_runtime.bounded_json import significant_length
from article_runtime.candidates import build_candidates
from article_runtime.enrichment.bounds import enrichment_bounds
from article_runtime.enrichment.harness import validate_enrichment
from article_runtime.enrichment.model import EnrichmentInput, Entity, EvidenceBlock
from article_runtime.errors import ContractError
from article_runtime.harness.pipeline import validate
from article_runtime.model import CandidateSet
from article_runtime.tokens import count_tokens
from tests.factories import candidate_set, proposal

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
HYGIENE, ENRICHMENT = contracts.HYGIENE_OUTPUT, contracts.ENRICHMENT_OUTPUT
CATEGORIES = ("encoding", "unicode", "spacing", "punctuation_corruption", "obvious_typo")
REASONS = ("advertising", "recommendation", "navigation", "newsletter", "player_interface")
MAX_REPAIRS, MAX_TEXT = 64, 200  # the hygiene schema's bounds, as the spec's contract says
MAX_TAGS, MAX_TAG, MAX_EVIDENCE = 8, 60, 5


@cache
def sample(name: str) -> CandidateSet:
    raw = (SAMPLES / name).read_bytes()
    return build_candidates(gzip.decompress(raw) if name.endswith(".gz") else raw)


ARTICLES = ("factory", "nhk.or.jp.k100.html", "wcxb-0004.html.gz")


def article(name: str) -> CandidateSet:
    return candidate_set() if name == "factory" else sample(name)


def escaped(value: Any) -> str:
    """JSON with every character of every string written as a \\u escape (a surrogate pair
    for characters past U+FFFF): the longest way to write the same value."""
    if isinstance(value, str):
        units = value.encode("utf-16-be")
        return '"' + "".join(f"\\u{units[i : i + 2].hex()}" for i in range(0, len(units), 2)) + '"'
    if isinstance(value, list):
        return "[" + ",".join(escaped(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{escaped(k)}:{escaped(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def layouts(value: Any) -> list[str]:
    return [
        json.dumps(value, ensure_ascii=False, separators=(",", ":")),
        json.dumps(value, ensure_ascii=True),
        json.dumps(value, ensure_ascii=False, indent=2),
        json.dumps(value, ensure_ascii=False, indent=4),
        escaped(value),
    ]


def in_order(data: st.DataObject, ids: list[str]) -> list[str]:
    chosen = data.draw(st.sets(st.sampled_from(ids))) if ids else set()
    return [i for i in ids if i in chosen]


def hygiene_answer(data: st.DataObject, c: CandidateSet, text: st.SearchStrategy[str]) -> Any:
    """A schema-valid answer for ``c``: its IDs each at most once, repairs within bounds."""
    m = c.metadata_candidates
    blocks = [b.id for b in c.blocks]
    targets = blocks + [x.id for x in (*m.title, *m.subtitle, *m.author)]
    repair = st.fixed_dictionaries(
        {
            "target_id": st.sampled_from(targets),
            "original": text.filter(bool),
            "replacement": text,
            "category": st.sampled_from(CATEGORIES),
            "justification": text,
        }
    )
    answer: dict[str, Any] = {
        "title_candidate_id": data.draw(st.sampled_from([x.id for x in m.title])),
        "subtitle_candidate_id": data.draw(st.sampled_from([None, *(x.id for x in m.subtitle)])),
        "author_candidate_id": data.draw(st.sampled_from([None, *(x.id for x in m.author)])),
        "kept_block_ids": in_order(data, blocks),
        "kept_link_ids": in_order(data, [ln.id for ln in c.links]),
        "kept_image_ids": in_order(data, [im.id for im in c.images]),
        "repairs": data.draw(st.lists(repair, max_size=MAX_REPAIRS)),
    }
    if data.draw(st.booleans()):
        removed = in_order(data, blocks)
        reasons = st.sampled_from(REASONS)
        answer["removed_block_reasons"] = [
            {"block_id": b, "reason": data.draw(reasons)} for b in removed
        ]
    return answer


ANY_TEXT = st.text(st.characters(codec="utf-8"), max_size=MAX_TEXT)


@pytest.mark.parametrize("name", ARTICLES)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_no_layout_of_a_valid_answer_is_too_long(name: str, data: st.DataObject) -> None:
    c = article(name)
    answer = hygiene_answer(data, c, ANY_TEXT)
    assert contracts.first_violation(contracts.HYGIENE_OUTPUT, answer) is None
    limit = longest_answer_length(HYGIENE, hygiene_bounds(c))
    for text in layouts(answer):
        assert significant_length(text) <= limit
        _, report = validate(c, text)
        assert report.steps[0].outcome == "passed"


def maximal_hygiene_answer(c: CandidateSet) -> dict[str, Any]:
    """The longest answer the schema and the article allow, written out by hand: every ID
    list full, every optional field present, 64 repairs of 200 astral characters."""
    ids = [b.id for b in c.blocks] + [t.id for t in c.metadata_candidates.title]
    longest = max(ids, key=len)
    astral = "\U0001f600" * MAX_TEXT
    return {
        "title_candidate_id": longest,
        "subtitle_candidate_id": longest,
        "author_candidate_id": longest,
        "kept_block_ids": [b.id for b in c.blocks],
        "kept_link_ids": [ln.id for ln in c.links],
        "kept_image_ids": [im.id for im in c.images],
        "repairs": [
            {
                "target_id": longest,
                "original": astral,
                "replacement": astral,
                "category": "punctuation_corruption",
                "justification": astral,
            }
        ]
        * MAX_REPAIRS,
        "removed_block_reasons": [
            {"block_id": longest, "reason": "player_interface"} for _ in c.blocks
        ],
    }


@pytest.mark.parametrize("name", ARTICLES)
def test_the_limit_is_the_longest_valid_answer_written_longest(name: str) -> None:
    c = article(name)
    longest = maximal_hygiene_answer(c)
    assert contracts.first_violation(contracts.HYGIENE_OUTPUT, longest) is None
    text = escaped(longest)
    assert significant_length(text) == longest_answer_length(HYGIENE, hygiene_bounds(c))
    _, report = validate(c, text + " " * 1000)  # layout is never counted
    assert report.steps[0].outcome == "passed"
    _, report = validate(c, text[:-1] + ',"x":0}')
    assert (report.reason, report.steps[0].outcome) == ("answer_too_long", "failed")


@pytest.mark.parametrize("field", ["kept_block_ids", "kept_link_ids", "kept_image_ids"])
def test_twelve_megabytes_of_one_repeated_id_are_refused_before_parsing(field: str) -> None:
    c = candidate_set()
    one = {"kept_block_ids": "b2", "kept_link_ids": "l1", "kept_image_ids": "i1"}[field]
    raw = json.dumps(proposal(**{field: [one] * 2_400_000}))
    assert len(raw) > 12_000_000
    _, report = validate(c, raw)
    assert (report.reason, report.steps[0].name) == ("answer_too_long", "json_parseable")


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_an_id_list_longer_than_the_candidates_of_its_kind_is_a_schema_violation(
    data: st.DataObject,
) -> None:
    """Distinct IDs (the schema's uniqueItems holds), more of them than the article has."""
    c = candidate_set()
    kinds = {
        "kept_block_ids": [b.id for b in c.blocks],
        "kept_link_ids": [ln.id for ln in c.links],
        "kept_image_ids": [im.id for im in c.images],
    }
    field = data.draw(st.sampled_from(sorted(kinds)))
    kind = kinds[field]
    extra = data.draw(st.integers(1, 50))
    ids = kind + [f"zz{n}" for n in range(extra)]
    answer = proposal(**{field: ids})
    assert list_overflow(answer, hygiene_bounds(c)) == f"{field}: maxItems {len(kind)}"
    _, report = validate(c, json.dumps(answer))
    failed = [s for s in report.steps if s.outcome == "failed"]
    assert [(s.name, s.reason, s.detail) for s in failed] == [
        ("schema_valid", "schema_violation", f"{field}: maxItems {len(kind)}")
    ]


def article_windows(c: CandidateSet, width: int) -> st.SearchStrategy[str]:
    """Pieces of the article's own text of at most ``width`` characters: what repairs quote."""
    texts = [b.text for b in c.blocks if b.text]
    return st.sampled_from(texts).flatmap(
        lambda t: st.integers(0, max(len(t) - 1, 0)).flatmap(
            lambda at: st.integers(0, width).map(lambda n: t[at : at + n])
        )
    )


@pytest.mark.parametrize("name", ARTICLES)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_an_answer_quoting_the_article_fits_the_output_cap(name: str, data: st.DataObject) -> None:
    """In the layouts models write (UTF-8, compact or indented), a valid answer whose text
    comes from the article never needs more tokens than the cap sent for that article."""
    c = article(name)
    answer = hygiene_answer(data, c, article_windows(c, MAX_TEXT))
    cap = answer_tokens(HYGIENE, hygiene_bounds(c), "o200k_base")
    utf8 = layouts(answer)
    for text in (utf8[0], utf8[2], utf8[3]):  # compact, indent 2, indent 4: as models write
        assert count_tokens(text) <= cap


@pytest.mark.parametrize("name", ARTICLES)
def test_the_longest_answer_quoting_the_article_fits_the_output_cap(name: str) -> None:
    """Every repair at 200 characters of the article's densest stretch (its text cut every
    200 characters, as the cap reads it), in the wider layout: the cap holds it."""
    c = article(name)
    whole = "\n".join(hygiene_bounds(c).texts)
    pieces = [whole[at : at + MAX_TEXT] for at in range(0, len(whole), MAX_TEXT)]
    densest = max(
        (piece for piece in pieces if len(piece) == MAX_TEXT),
        key=lambda piece: count_tokens(json.dumps(piece, ensure_ascii=False)),
    )
    longest = maximal_hygiene_answer(c)
    for repair in longest["repairs"]:
        repair.update(original=densest, replacement=densest, justification=densest)
    cap = answer_tokens(HYGIENE, hygiene_bounds(c), "o200k_base")
    assert count_tokens(json.dumps(longest, ensure_ascii=False, indent=2)) <= cap


PT = EnrichmentInput(
    title="Rio anuncia plano contra enchentes",
    subtitle=None,
    language="pt",
    entity=Entity(qid="Q1", name="Rio"),
    blocks=[
        EvidenceBlock(id="p1", text="A prefeitura do Rio anunciou um plano contra enchentes."),
        EvidenceBlock(id="p22", text="As obras de drenagem começam em março e terminam em 2026."),
    ],
)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_no_layout_of_a_valid_enrichment_answer_is_too_long(data: st.DataObject) -> None:
    ids = [b.id for b in PT.blocks]
    tag = st.fixed_dictionaries(
        {
            "tag": st.text(st.characters(codec="utf-8"), min_size=1, max_size=MAX_TAG),
            "evidence_block_ids": st.lists(st.sampled_from(ids), min_size=1, max_size=5),
        }
    )
    answer = {
        "sentiment": data.draw(st.sampled_from(["positive", "negative", "neutral"])),
        "tags": data.draw(st.lists(tag, min_size=3, max_size=MAX_TAGS)),
    }
    assert contracts.first_violation(contracts.ENRICHMENT_OUTPUT, answer) is None
    limit = longest_answer_length(ENRICHMENT, enrichment_bounds(PT))
    for text in layouts(answer):
        assert significant_length(text) <= limit
        assert validate_enrichment(text, PT).report.steps[0].outcome == "passed"


def test_a_long_enrichment_answer_is_refused_before_parsing() -> None:
    tags = [{"tag": "x", "evidence_block_ids": ["p1"]}] * 100_000
    raw = json.dumps({"sentiment": "neutral", "tags": tags})
    report = validate_enrichment(raw, PT).report
    assert (report.reason, report.steps[0].outcome) == ("answer_too_long", "failed")


def test_an_unbounded_part_of_a_schema_is_a_contract_error() -> None:
    """A new free-text field or ID list without a bound must be given one, not ignored."""
    bounds = AnswerBounds(lists={}, ids=["b1"])
    for schema in (
        {"type": "object", "properties": {"ids": {"type": "array", "items": {"type": "string"}}}},
        {"type": "object", "properties": {"note": {"type": "string"}}},
        {"type": "object", "properties": {"n": {"type": "integer"}}},
    ):
        with pytest.raises(ContractError, match="malformed_schema"):
            shape_length(compile_shape(schema), bounds)


@pytest.mark.parametrize("name", ARTICLES)
def test_the_structure_of_the_longest_answer_is_counted_within_one_token_a_repeat(
    name: str,
) -> None:
    """Free text aside (no tokens a character), the cap is the longest answer written out
    with empty strings, counted whole: at least that, and at most one token more for each
    repeated object (repairs, removal reasons) where two of them meet."""
    c = article(name)
    longest = maximal_hygiene_answer(c)
    for repair in longest["repairs"]:
        repair.update(original="", replacement="", justification="")
    exact = count_tokens(json.dumps(longest, ensure_ascii=False, indent=2))
    counted = answer_tokens(HYGIENE, hygiene_bounds(c), "o200k_base", density=lambda *_: 0.0)
    repeats = len(longest["repairs"]) - 1 + len(longest["removed_block_reasons"]) - 1
    assert exact <= counted <= exact + repeats

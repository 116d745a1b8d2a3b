"""Every step of spec 8.1 against adversarial proposals, on a handcrafted candidate set."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError
from pydantic_core import InitErrorDetails

from article_runtime.harness import steps
from article_runtime.harness.pipeline import run_hygiene_harness, validate
from article_runtime.harness.steps import STEP_NAMES
from article_runtime.model import Block, HygieneProposal, LinkCandidate
from tests.factories import LINKED, PARAGRAPH, candidate_set, proposal

EXPECTED_MARKDOWN = (
    "## Plano contra enchentes\n\n"
    "A prefeitura do Rio anunciou nesta segunda-feira um plano de R$ 1,2 bilhão "
    "para conter enchentes na zona norte.\n\n"
    "![Mapa das obras](https://example.org/img/mapa.jpg)\n\n"
    "O plano foi detalhado no [Diário Oficial](https://example.org/do) e prevê obras em "
    "14 bairros até 2026.\n\n"
    "1. Piscinões na Tijuca\n"
    "2. Dragagem do canal do Mangue\n"
)


def outcome_of(raw: Any) -> tuple[bool, str | None, int | None]:
    """(valid, reason, number of the failed step) for a raw proposal."""
    _, report = validate(candidate_set(), raw)
    failed = [s.step for s in report.steps if s.outcome == "failed"]
    return report.valid, report.reason, failed[0] if failed else None


def test_valid_proposal_assembles_expected_markdown() -> None:
    result = run_hygiene_harness(
        candidate_set(), proposal(), source_html=b"<html/>", path="primary", source="x.html"
    )
    assert result.report.valid
    assert [s.name for s in result.report.steps] == list(STEP_NAMES)
    assert all(s.outcome == "passed" for s in result.report.steps)
    assert result.article is not None
    assert result.article.markdown == EXPECTED_MARKDOWN
    assert result.article.title == "Rio anuncia plano contra enchentes"
    assert result.article.subtitle == "Obras em 14 bairros"
    assert result.article.author == "Ana Souza"
    assert result.article.published_at == "2024-03-04T10:00:00-03:00"
    assert result.article.source_url == "https://example.org/rio-enchentes"


def test_hashes_are_sha256_of_markdown_and_html() -> None:
    import hashlib

    result = run_hygiene_harness(
        candidate_set(), proposal(), source_html=b"<html/>", path="primary", source="x.html"
    )
    assert result.article is not None
    assert result.article.hashes.markdown == hashlib.sha256(EXPECTED_MARKDOWN.encode()).hexdigest()
    assert result.article.hashes.source_html == hashlib.sha256(b"<html/>").hexdigest()
    other = candidate_set(language="es")
    again = run_hygiene_harness(
        other, proposal(), source_html=b"<html/>", path="primary", source="x.html"
    )
    assert again.article is not None
    assert again.article.hashes.candidate_set != result.article.hashes.candidate_set


@pytest.mark.parametrize(
    ("raw", "reason", "step"),
    [
        ("{not json", "invalid_json", 1),
        (b"\xff\xfe\x00", "invalid_json", 1),
        ("[]", "schema_violation", 2),
        (json.dumps(proposal(markdown="# Rewritten article")), "schema_violation", 2),
        (json.dumps(proposal(body="text")), "schema_violation", 2),
        (
            json.dumps({k: v for k, v in proposal().items() if k != "kept_block_ids"}),
            "schema_violation",
            2,
        ),
        (json.dumps(proposal(kept_block_ids="b1 b2")), "schema_violation", 2),
        (
            json.dumps(
                proposal(
                    repairs=[
                        {
                            "target_id": "b2",
                            "original": "Rio",
                            "replacement": "RJ",
                            "category": "style",
                            "justification": "",
                        }
                    ]
                )
            ),
            "schema_violation",
            2,
        ),
        (json.dumps(proposal(title_candidate_id="t9")), "unknown_metadata_id", 3),
        (json.dumps(proposal(title_candidate_id="s1")), "wrong_kind_metadata_id", 3),
        (json.dumps(proposal(title_candidate_id="b1")), "wrong_kind_metadata_id", 3),
        (json.dumps(proposal(subtitle_candidate_id="t2")), "wrong_kind_metadata_id", 3),
        (json.dumps(proposal(author_candidate_id="a7")), "unknown_metadata_id", 3),
        (json.dumps(proposal(kept_block_ids=["b1", "b2", "b99"])), "unknown_block_id", 4),
        (json.dumps(proposal(kept_block_ids=["b1", "l1"])), "wrong_kind_block_id", 4),
        (json.dumps(proposal(kept_block_ids=["b1", "t1"])), "wrong_kind_block_id", 4),
        (json.dumps(proposal(kept_block_ids=["b1", "b2", "b2"])), "schema_violation", 2),
        (json.dumps(proposal(kept_link_ids=["l1", "l1"])), "schema_violation", 2),
        (json.dumps(proposal(kept_image_ids=["i1", "i1"])), "schema_violation", 2),
        (json.dumps(proposal(kept_block_ids=["b2", "b1", "b3"])), "order_violation", 5),
        (json.dumps(proposal(kept_block_ids=["b1", "b3", "b2"])), "order_violation", 5),
        (json.dumps(proposal(kept_link_ids=["l1", "l9"])), "unknown_link_id", 6),
        (json.dumps(proposal(kept_link_ids=["i1"])), "wrong_kind_link_id", 6),
        (json.dumps(proposal(kept_image_ids=["i3"])), "unknown_image_id", 6),
        (json.dumps(proposal(kept_image_ids=["b2"])), "wrong_kind_image_id", 6),
        (
            json.dumps(
                proposal(
                    repairs=[
                        {
                            "target_id": "b42",
                            "original": "Rio",
                            "replacement": "Rio",
                            "category": "spacing",
                            "justification": "x",
                        }
                    ]
                )
            ),
            "unknown_repair_target",
            7,
        ),
        (json.dumps(proposal(kept_block_ids=["b1"])), "no_body_blocks", 10),
        (json.dumps(proposal(kept_block_ids=["b4", "b5"])), "content_too_short", 10),
    ],
)
def test_invalid_proposals_fail_at_their_step(raw: Any, reason: str, step: int) -> None:
    valid, got_reason, got_step = outcome_of(raw)
    assert (valid, got_reason, got_step) == (False, reason, step)


def test_steps_after_a_failure_are_skipped() -> None:
    _, report = validate(candidate_set(), json.dumps(proposal(kept_block_ids=["b3", "b2"])))
    assert [s.outcome for s in report.steps] == ["passed"] * 4 + ["failed"] + ["skipped"] * 5


def test_link_whose_block_is_dropped_is_ignored_not_materialized() -> None:
    result = run_hygiene_harness(
        candidate_set(),
        proposal(kept_link_ids=["l1", "l2"]),
        source_html=b"",
        path="primary",
        source="x",
    )
    assert result.article is not None
    assert "ads.example.com" not in result.article.markdown
    assert result.report.steps[5].detail == "1 kept link(s) ignored: their block is not kept"


def test_dropped_link_renders_as_plain_text() -> None:
    result = run_hygiene_harness(
        candidate_set(), proposal(kept_link_ids=[]), source_html=b"", path="primary", source="x"
    )
    assert result.article is not None
    assert "no Diário Oficial e prevê" in result.article.markdown
    assert "](" not in result.article.markdown.replace("![Mapa das obras](", "")


def test_repair_on_block_not_kept_is_rejected_alone() -> None:
    repair = {
        "target_id": "b6",
        "original": "Assine",
        "replacement": "Assinee",
        "category": "obvious_typo",
        "justification": "typo",
    }
    result = run_hygiene_harness(
        candidate_set(), proposal(repairs=[repair]), source_html=b"", path="primary", source="x"
    )
    assert result.report.valid
    assert [r.reason for r in result.repairs.rejected] == ["target_not_kept"]
    assert result.repairs.applied == []


def test_model_cannot_add_a_field_for_text() -> None:
    for name in ("markdown", "body", "text", "title"):
        valid, reason, _ = outcome_of(json.dumps(proposal(**{name: "invented"})))
        assert (valid, reason) == (False, "schema_violation")


def test_exclamation_before_a_link_cannot_turn_it_into_an_image() -> None:
    text = "Incrível!Veja o vídeo completo da prefeitura sobre as obras nos catorze bairros do Rio"
    blocks = [
        Block(id="b1", type="paragraph", text=text, container_id="c1", extractors=["dom"]),
    ]
    links = [
        LinkCandidate(
            id="l1",
            text="Veja",
            href="https://example.org/v",
            block_id="b1",
            start=text.index("Veja"),
        ),
    ]
    candidates = candidate_set(blocks=blocks, links=links, images=[])
    result = run_hygiene_harness(
        candidates,
        proposal(kept_block_ids=["b1"], kept_image_ids=[]),
        source_html=b"",
        path="primary",
        source="x",
    )
    assert result.article is not None
    assert result.article.markdown.startswith("Incrível\\![Veja](https://example.org/v) o vídeo")


def test_proposal_object_with_null_optionals_is_valid() -> None:
    """Regression: a HygieneProposal passed as an object kept its null subtitle/author."""
    from article_runtime.model import HygieneProposal

    obj = HygieneProposal.model_validate(
        proposal(subtitle_candidate_id=None, author_candidate_id=None)
    )
    _, report = validate(candidate_set(), obj)
    assert report.valid, report.reason


@pytest.mark.parametrize(
    ("removed", "reason"),
    [
        ([{"block_id": "b404", "reason": "advertising"}], "unknown_block_id"),
        ([{"block_id": "t1", "reason": "navigation"}], "wrong_kind_block_id"),
        ([{"block_id": "b2", "reason": "advertising"}], "removed_block_kept"),
        ([{"block_id": "b6", "reason": "newsletter"}] * 2, "duplicate_removed_block_id"),
    ],
)
def test_removed_block_reasons_name_blocks_that_are_left_out(
    removed: list[dict[str, str]], reason: str
) -> None:
    assert outcome_of(proposal(removed_block_reasons=removed)) == (False, reason, 4)


def test_removed_block_reasons_are_kept_in_the_report() -> None:
    removed = [{"block_id": "b6", "reason": "newsletter"}]
    result = run_hygiene_harness(
        candidate_set(),
        proposal(removed_block_reasons=removed),
        source_html=b"<html/>",
        path="primary",
        source="x.html",
    )
    assert result.article is not None
    assert [r.model_dump() for r in result.article.harness.removed_blocks] == removed
    assert result.report.removed_blocks == result.article.harness.removed_blocks


def test_more_repairs_than_the_schema_allows_are_refused_whole() -> None:
    """Each repair is reviewed against its whole target: their number is bounded (64)."""
    repair = {"target_id": "b2", "original": "plano", "replacement": "plano",
              "category": "spacing", "justification": "x"}  # fmt: skip
    assert outcome_of(proposal(repairs=[repair] * 64))[1] != "schema_violation"
    assert outcome_of(proposal(repairs=[repair] * 65)) == (False, "schema_violation", 2)


# -- repairs as they reach the article ---------------------------------------------------------


def _fix(target: str, original: str, replacement: str, category: str) -> dict[str, str]:
    return {"target_id": target, "original": original, "replacement": replacement,
            "category": category, "justification": "x"}  # fmt: skip


def _with_texts(texts: dict[str, str], **overrides: Any) -> Any:
    """The factory's page with some blocks' texts replaced (links re-pointed to their text)."""
    base = candidate_set()
    blocks = [b.model_copy(update={"text": texts.get(b.id, b.text)}) for b in base.blocks]
    by_id = {b.id: b for b in blocks}
    links = [ln.model_copy(update={"start": by_id[ln.block_id].text.index(ln.text)})
             for ln in base.links]  # fmt: skip
    return candidate_set(**({"blocks": blocks, "links": links} | overrides))


def test_accepted_repairs_reach_the_article_and_rejected_ones_do_not() -> None:
    paragraph = PARAGRAPH.replace("anunciou", "anun\u200bciou")
    repairs = [
        _fix("b2", "anun\u200bciou", "anunciou", "unicode"),
        _fix("b2", "bilhão", "milhão", "obvious_typo"),  # a real word for another: refused
    ]
    result = run_hygiene_harness(
        _with_texts({"b2": paragraph}),
        proposal(repairs=repairs),
        source_html=b"",
        path="primary",
        source="x",
    )
    assert result.article is not None
    assert "A prefeitura do Rio anunciou nesta" in result.article.markdown
    assert "\u200b" not in result.article.markdown
    assert "bilhão" in result.article.markdown and "milhão" not in result.article.markdown
    assert [r.original for r in result.repairs.applied] == ["anun\u200bciou"]
    assert [r.original for r in result.repairs.rejected] == ["bilhão"]
    assert [s.detail for s in result.report.steps[5:8]] == [None, "1 applied, 1 rejected", None]


def test_a_repair_may_cross_the_edge_of_a_link_that_is_not_kept() -> None:
    """A link left out renders as plain text: nothing in the block is cut at its edges."""
    linked = LINKED.replace("no Diário", "no\u200b Diário")
    fix = _fix("b3", "no\u200b Diário", "no Diário", "unicode")
    candidates = _with_texts({"b3": linked})
    dropped = run_hygiene_harness(
        candidates,
        proposal(kept_link_ids=[], repairs=[fix]),
        source_html=b"",
        path="primary",
        source="x",
    )
    assert dropped.article is not None
    assert "detalhado no Diário Oficial e prevê" in dropped.article.markdown
    assert [r.original for r in dropped.repairs.applied] == [fix["original"]]
    kept = run_hygiene_harness(
        candidates, proposal(repairs=[fix]), source_html=b"", path="primary", source="x"
    )
    assert kept.article is not None
    assert [r.reason for r in kept.repairs.rejected] == ["crosses_link_boundary"]
    assert "no\u200b [Diário Oficial](https://example.org/do)" in kept.article.markdown


@pytest.mark.parametrize(
    "url", ["https://evil.example/x", "http://evil.example", "www.evil.example", "WWW.evil.example"]
)
def test_a_repair_that_brings_in_a_url_fails_the_proposal(url: str) -> None:
    repairs = [_fix("b2", "zona norte.", f"zona norte. {url}", "spacing")]
    assert outcome_of(proposal(repairs=repairs)) == (False, "ungrounded_url", 7)
    _, report = validate(candidate_set(), proposal(repairs=repairs))
    assert report.steps[6].detail == url


def test_code_blocks_take_only_encoding_and_unicode_fixes() -> None:
    code = Block(id="b7", type="code", text="total  = soma(1,  2)", container_id="c1",
                 extractors=["dom"])  # fmt: skip
    base = candidate_set()
    paragraph = PARAGRAPH.replace("para conter", "para  conter")
    blocks = [b.model_copy(update={"text": paragraph}) if b.id == "b2" else b for b in base.blocks]
    candidates = candidate_set(blocks=[*blocks, code])
    repairs = [
        _fix("b7", "total  =", "total =", "spacing"),
        _fix("b2", "para  conter", "para conter", "spacing"),
    ]
    result = run_hygiene_harness(
        candidates,
        proposal(kept_block_ids=["b1", "b2", "b3", "b4", "b5", "b7"], repairs=repairs),
        source_html=b"",
        path="primary",
        source="x",
    )
    assert result.article is not None
    assert [r.reason for r in result.repairs.rejected] == ["verbatim_block"]
    assert [r.original for r in result.repairs.applied] == ["para  conter"]
    assert "total  = soma(1,  2)" in result.article.markdown
    assert "bilhão para conter enchentes" in result.article.markdown


@pytest.mark.parametrize(("words", "valid"), [(14, False), (15, True)])
def test_an_article_needs_fifteen_words(words: int, valid: bool) -> None:
    text = " ".join(["casa", "rio", "mar", "sol", "lua"] * 3)
    text = " ".join(text.split()[:words]) + "."
    blocks = [Block(id="b1", type="paragraph", text=text, container_id="c1", extractors=["dom"])]
    candidates = candidate_set(blocks=blocks, links=[], images=[])
    _, report = validate(candidates, proposal(kept_block_ids=["b1"], kept_link_ids=[],
                                              kept_image_ids=[]))  # fmt: skip
    assert (report.valid, report.reason) == (valid, None if valid else "content_too_short")


@pytest.mark.parametrize("error", [KeyError("b9"), ValueError("bad")])
def test_an_assembly_bug_fails_step_8_and_does_not_crash(
    error: Exception, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Steps 3-7 leave assembly nothing to refuse; should it raise anyway, the proposal fails
    (the caller falls back) instead of the worker."""

    def broken(*_: Any) -> Any:
        raise error

    monkeypatch.setattr(steps, "assemble", broken)
    assert outcome_of(proposal()) == (False, "assembly_failed", 8)


def test_a_proposal_the_schema_admits_and_the_model_refuses_is_a_schema_violation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The schema and the model disagreeing is a contract bug: the proposal fails, nothing
    crashes."""

    class Refusing(HygieneProposal):
        @classmethod
        def model_validate(cls, *_: Any, **__: Any) -> Any:
            missing: InitErrorDetails = {
                "type": "missing",
                "loc": ("title_candidate_id",),
                "input": {},
            }
            raise ValidationError.from_exception_data("HygieneProposal", [missing])

    monkeypatch.setattr(steps, "HygieneProposal", Refusing)
    assert outcome_of(proposal()) == (False, "schema_violation", 2)

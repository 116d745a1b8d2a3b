"""Every step of spec 8.1 against adversarial proposals, on a handcrafted candidate set."""

from __future__ import annotations

import json
from typing import Any

import pytest

from article_runtime.harness.pipeline import run_hygiene_harness, validate
from article_runtime.harness.steps import STEP_NAMES
from article_runtime.model import Block, LinkCandidate
from tests.factories import candidate_set, proposal

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

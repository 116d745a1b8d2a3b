"""What an attempt record says about a refused answer: the step, and its detail only when the
detail cannot quote the article (issue 40)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from article_runtime.harness.pipeline import validate
from article_runtime.llm.records import TEXT_FREE_DETAILS, failed_step
from article_runtime.model import HarnessReport, StepOutcome
from tests.factories import candidate_set, proposal


@settings(max_examples=200)
@given(reason=st.text(min_size=1, max_size=30), detail=st.text(max_size=40))
def test_a_detail_is_kept_only_for_the_reasons_that_name_no_text(reason: str, detail: str) -> None:
    report = HarnessReport(
        valid=False,
        reason=reason,
        steps=[
            StepOutcome(step=1, name="json_parseable", outcome="passed"),
            StepOutcome(
                step=2, name="schema_valid", outcome="failed", reason=reason, detail=detail
            ),
            StepOutcome(step=3, name="metadata_ids", outcome="skipped"),
        ],
    )
    step, kept = failed_step(report)
    assert step == "schema_valid"
    assert kept == (detail if reason in TEXT_FREE_DETAILS else None)


def test_a_valid_answer_has_no_failed_step() -> None:
    _, report = validate(candidate_set(), json.dumps(proposal()))
    assert report.valid and failed_step(report) == (None, None)


def test_a_schema_violation_never_quotes_the_answer() -> None:
    """The validator's own message quotes the offending value; the detail is path and rule."""
    quote = "A prefeitura do Rio anunciou nesta segunda-feira um plano " * 5
    repair = {"target_id": "b2", "original": quote, "replacement": "x",
              "category": "spacing", "justification": "x"}  # fmt: skip
    _, report = validate(candidate_set(), json.dumps(proposal(repairs=[repair])))
    step, detail = failed_step(report)
    assert (step, detail) == ("schema_valid", "repairs/0/original: maxLength 200")

"""The checks on the stored handwritten answers: good ones pass, each bad one fails exactly
the checks (and reason codes) its label names, and the labelled assertion passes only when
the label is right. Also spec 11.2 straight on the runtime's review: labelled-unambiguous
repairs accepted, disguised edits rejected."""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
import pytest

from evals.answers_store import answer_names, answer_text, caught_by, load_answer
from evals.assertions.common import reason_code
from evals.assertions.judge import CHECKS, judge
from evals.paths import ENRICHMENT, HYGIENE
from evals.suite import output_schema
from evals.tools.make_cases import fixes

HANDWRITTEN = [
    (prompt, name)
    for prompt in (HYGIENE, ENRICHMENT)
    for name in answer_names(prompt)
    if load_answer(prompt, name).get("origin") == "handwritten"
]
IDS = [n for _, n in HANDWRITTEN]


def _schema_failure(prompt: str, output: str) -> bool:
    try:
        answer = json.loads(output)
    except ValueError:
        return True
    return not jsonschema_rs.is_valid(output_schema(prompt), answer)


def _context(stored: dict[str, Any], expect: dict[str, str | None]) -> dict[str, Any]:
    return {"vars": {"input": stored["input"]}, "config": {"expect": expect}}


@pytest.mark.parametrize(("prompt", "name"), HANDWRITTEN, ids=IDS)
def test_each_answer_is_caught_by_the_intended_checks(prompt: str, name: str) -> None:
    stored = load_answer(prompt, name)
    output, context = answer_text(stored), _context(stored, {})
    failures = {
        check: reason_code(result["reason"])
        for check, function in CHECKS[prompt].items()
        if not (result := function(output, context))["pass"]
    }
    if _schema_failure(prompt, output):
        failures["schema"] = "schema"
    wanted = caught_by(stored)
    assert set(failures) == set(wanted), (failures, wanted)
    for check, code in wanted.items():
        assert code is None or failures[check] == code
    assert (stored["expect"] == "pass") == (not wanted)


@pytest.mark.parametrize(("prompt", "name"), HANDWRITTEN, ids=IDS)
def test_the_labelled_assertion_passes_only_on_the_right_label(prompt: str, name: str) -> None:
    stored = load_answer(prompt, name)
    output = answer_text(stored)
    label = {k: v for k, v in caught_by(stored).items() if k != "schema"}
    assert judge(prompt, output, _context(stored, label))["pass"]

    if label:  # a bad answer judged as if it were good: the checks that catch it fail the test
        verdict = judge(prompt, output, _context(stored, {}))
        assert not verdict["pass"]
        assert {
            c["metadata"]["check"] for c in verdict["componentResults"] if not c["pass"]
        } == set(label)
        wrong_code: dict[str, str | None] = dict.fromkeys(label, "some_other_reason")
        verdict = judge(prompt, output, _context(stored, wrong_code))
        assert not verdict["pass"]
        assert "caught for another reason" in verdict["reason"]
    # An answer labelled to be caught by a check that accepts it: the test fails, loudly.
    for check in (c for c in CHECKS[prompt] if c not in label):
        verdict = judge(prompt, output, _context(stored, {**label, check: None}))
        assert not verdict["pass"]
        assert f"{check}: not caught" in verdict["reason"]


def test_a_label_naming_no_check_fails() -> None:
    stored = load_answer(HYGIENE, "wcxb-0001--good")
    verdict = judge(HYGIENE, answer_text(stored), _context(stored, {"harnes": None}))
    assert not verdict["pass"]
    assert "unknown check 'harnes'" in verdict["reason"]


def test_spec_11_2_labels_match_the_runtime_review() -> None:
    from article_runtime.harness.repairs import review_repairs
    from article_runtime.harness.steps import target_roles
    from article_runtime.model.proposal import Repair
    from evals.cases import candidate_set, load_case

    for fix in fixes():
        candidates = candidate_set(load_case(HYGIENE, fix.page))
        targets = {b.id: b.text for b in candidates.blocks}
        meta = candidates.metadata_candidates
        targets |= {c.id: c.text for c in (*meta.title, *meta.subtitle, *meta.author)}
        target = next(i for i, text in targets.items() if fix.original in text)
        repair = Repair(
            target_id=target,
            original=fix.original,
            replacement=fix.replacement,
            category=fix.category,
            justification="test",
        )
        roles = target_roles(candidates)
        [reviewed] = review_repairs([repair], targets, locale=candidates.language, roles=roles)
        assert reviewed.accepted == (fix.label == "unambiguous"), (fix, reviewed.reason)


def test_every_forbidden_kind_of_spec_11_2_is_covered() -> None:
    labelled = list(fixes())
    kinds = {f.label for f in labelled}
    assert kinds >= {
        "synonym", "paraphrase", "title_improvement", "name_change", "date_change",
        "number_change", "score_change", "factual_correction", "tone_change", "quote_rewrite",
    }  # fmt: skip
    accepted = {f.category for f in labelled if f.label == "unambiguous"}
    assert accepted == {"encoding", "unicode", "spacing", "punctuation_corruption", "obvious_typo"}
    assert len({f.page for f in labelled}) >= 3  # several languages and scripts

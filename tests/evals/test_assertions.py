"""The assertion functions on the stored handwritten answers: good ones pass, each bad one
fails on exactly the assertions (and reason codes) its file names. Also spec 11.2 straight
on the runtime's review: labelled-unambiguous repairs accepted, disguised edits rejected."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema_rs
import pytest

from evals.answers_store import answer_names, answer_text, load_answer
from evals.assertions import enrichment, hygiene, repairs
from evals.assertions.common import reason_code
from evals.cases import load_case
from evals.paths import ENRICHMENT, HYGIENE, REPO
from evals.suite import output_schema

Check = Callable[[str, dict[str, Any]], dict[str, Any]]
CHECKS: dict[str, dict[str, Check]] = {
    HYGIENE: {
        "harness": hygiene.harness,
        "kept_blocks": hygiene.kept_blocks,
        "metadata": hygiene.metadata,
        "repairs": repairs.repairs,
        "labelled_repairs": repairs.labelled_repairs,
    },
    ENRICHMENT: {"harness": enrichment.harness, "sentiment": enrichment.sentiment},
}
HANDWRITTEN = [
    (prompt, name)
    for prompt in (HYGIENE, ENRICHMENT)
    for name in answer_names(prompt)
    if load_answer(prompt, name).get("origin") == "handwritten"
]


def _schema_failure(prompt: str, output: str) -> bool:
    try:
        answer = json.loads(output)
    except ValueError:
        return True
    return not jsonschema_rs.is_valid(output_schema(prompt), answer)


@pytest.mark.parametrize(("prompt", "name"), HANDWRITTEN, ids=[n for _, n in HANDWRITTEN])
def test_each_answer_is_caught_by_the_intended_assertion(prompt: str, name: str) -> None:
    stored = load_answer(prompt, name)
    page = load_case(prompt, stored["input"]).data.get("page", "")
    if not (REPO / page).resolve().exists():
        pytest.skip(f"{page} is not laid out beside the repository")
    output, context = answer_text(stored), {"vars": {"input": stored["input"]}}
    failures = {
        metric: reason_code(result["reason"])
        for metric, check in CHECKS[prompt].items()
        if not (result := check(output, context))["pass"]
    }
    if _schema_failure(prompt, output):
        failures["schema"] = "schema"
    wanted = stored["caught_by"]
    assert set(failures) == set(wanted), (failures, wanted)
    for metric, code in wanted.items():
        assert code is None or failures[metric] == code
    assert (stored["expect"] == "pass") == (not wanted)


def test_spec_11_2_labels_match_the_runtime_review() -> None:
    from article_runtime.harness.repairs import review_repairs
    from article_runtime.model.proposal import Repair
    from evals.cases import candidate_set
    from evals.tools.make_cases import FIXES

    for fix in FIXES:
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
        [reviewed] = review_repairs([repair], targets, locale=candidates.language)
        assert reviewed.accepted == (fix.label == "unambiguous"), (fix, reviewed.reason)


def test_every_forbidden_kind_of_spec_11_2_is_covered() -> None:
    from evals.tools.make_cases import FIXES

    kinds = {f.label for f in FIXES}
    assert kinds >= {
        "synonym", "paraphrase", "title_improvement", "name_change", "date_change",
        "number_change", "score_change", "factual_correction", "tone_change", "quote_rewrite",
    }  # fmt: skip
    accepted = {f.category for f in FIXES if f.label == "unambiguous"}
    assert accepted == {"encoding", "unicode", "spacing", "punctuation_corruption", "obvious_typo"}
    assert len({f.page for f in FIXES}) >= 3  # several languages and scripts

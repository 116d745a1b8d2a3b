"""Enrichment assertions: the runtime's enrichment harness and the sentiment towards the entity."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # Promptfoo loads assertion files by path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evals.assertions.common import (
    Result,
    answer_object,
    case_of,
    failed,
    not_applicable,
    passed,
)
from evals.cases import enrichment_input, stale_reason
from evals.paths import ENRICHMENT

SENTIMENTS = ("positive", "negative", "neutral")


def harness(output: str, context: dict[str, Any]) -> Result:
    """``validate_enrichment``: schema, enum, 3-8 tags, duplicates, evidence, tag language."""
    from article_runtime.enrichment.harness import validate_enrichment

    verdict = validate_enrichment(output, enrichment_input(case_of(ENRICHMENT, context)))
    if verdict.report.valid:
        return passed()
    step = next(s for s in verdict.report.steps if s.outcome == "failed")
    return failed(str(verdict.report.reason), f"step {step.step} {step.name}: {step.detail or ''}")


def sentiment(output: str, context: dict[str, Any]) -> Result:
    """The sentiment towards the case's entity, not the article's overall tone."""
    case = case_of(ENRICHMENT, context)
    if (stale := stale_reason(case)) is not None:
        return failed("stale_case", stale)
    answer = answer_object(output)
    value = answer.get("sentiment") if answer is not None else None
    if value not in SENTIMENTS:
        return not_applicable("no sentiment from the enum")
    expected = case.expected["sentiment"]
    entity = case.entry["entity"]["name"]
    if value != expected:
        return failed("wrong_sentiment", f"{value} towards {entity}, expected {expected}")
    return passed(f"{value} towards {entity}")

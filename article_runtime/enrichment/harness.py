"""The enrichment harness (spec 9.4): judges one model answer against the context it was given.

A report with one outcome per step (the steps after a failure are skipped) and, only when
every step passed, the validated proposal. An invalid answer is never repaired: the caller
falls back to the next model, and fails terminally when that answer is invalid too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from article_runtime.enrichment.model import EnrichmentInput, EnrichmentProposal
from article_runtime.enrichment.steps import STEPS, Run
from article_runtime.harness.steps import StepFailure
from article_runtime.model import HarnessReport, StepOutcome

__all__ = ["EnrichmentVerdict", "validate_enrichment"]


@dataclass(frozen=True, slots=True)
class EnrichmentVerdict:
    report: HarnessReport
    proposal: EnrichmentProposal | None  # None when the answer is invalid


def validate_enrichment(
    raw: str | bytes | Mapping[str, Any], inp: EnrichmentInput
) -> EnrichmentVerdict:
    """Run the steps in order over ``raw`` (the model's answer) for the context ``inp``."""
    run = Run(inp, raw)
    outcomes: list[StepOutcome] = []
    failure: StepFailure | None = None
    for number, step in enumerate(STEPS, start=1):
        name = step.__name__
        if failure is not None:
            outcomes.append(StepOutcome(step=number, name=name, outcome="skipped"))
            continue
        try:
            step(run)
        except StepFailure as exc:
            failure = exc
            outcomes.append(
                StepOutcome(
                    step=number,
                    name=name,
                    outcome="failed",
                    reason=exc.reason,
                    detail=exc.detail or None,
                )
            )
            continue
        outcomes.append(StepOutcome(step=number, name=name, outcome="passed"))
    report = HarnessReport(
        valid=failure is None, reason=failure.reason if failure else None, steps=outcomes
    )
    return EnrichmentVerdict(report, run.proposal if failure is None else None)

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
from article_runtime.harness.runner import run_steps
from article_runtime.model import HarnessReport

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
    report = run_steps(STEPS, run)
    return EnrichmentVerdict(report, run.proposal if report.valid else None)

"""Runs the ten steps over one proposal and, when it holds, builds the assembled article."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from article_runtime.harness.repairs import ReviewedRepair
from article_runtime.harness.runner import run_steps
from article_runtime.harness.steps import STEPS, Run
from article_runtime.hashing import model_hash, sha256_hex
from article_runtime.model import (
    AssembledArticle,
    CandidateSet,
    HarnessReport,
    Hashes,
    HygieneProposal,
    RepairDecision,
    RepairLog,
)
from article_runtime.model.article import Path


@dataclass(frozen=True, slots=True)
class HarnessResult:
    report: HarnessReport
    repairs: RepairLog
    article: AssembledArticle | None  # None when the proposal is invalid as a whole


def _decision(r: ReviewedRepair) -> RepairDecision:
    return RepairDecision(
        target_id=r.repair.target_id,
        original=r.repair.original,
        replacement=r.repair.replacement,
        category=r.repair.category,
        decision="applied" if r.accepted else "rejected",
        reason=r.reason,
        justification=r.repair.justification,
    )


def _passed(report: HarnessReport, step: str) -> bool:
    return any(s.name == step and s.outcome == "passed" for s in report.steps)


def validate(
    candidates: CandidateSet, proposal: str | bytes | Mapping[str, Any] | HygieneProposal
) -> tuple[Run, HarnessReport]:
    """Steps 1-10 in order; stops at the first failure."""
    run = Run(candidates, proposal)
    return run, run_steps(STEPS, run, run.notes)


def run_hygiene_harness(
    candidates: CandidateSet,
    proposal: str | bytes | Mapping[str, Any] | HygieneProposal,
    *,
    source_html: bytes,
    path: Path,
    source: str,
) -> HarnessResult:
    """Validate ``proposal`` against ``candidates`` and assemble the article if it holds."""
    run, report = validate(candidates, proposal)
    if run.proposal is not None and _passed(report, "block_ids"):
        report = report.model_copy(
            update={"removed_blocks": list(run.proposal.removed_block_reasons or ())}
        )
    log = RepairLog(
        applied=[_decision(r) for r in run.reviews if r.accepted],
        rejected=[_decision(r) for r in run.reviews if not r.accepted],
    )
    if not report.valid or run.assembly is None:
        return HarnessResult(report, log, None)
    assembly = run.assembly
    article = AssembledArticle(
        source=source,
        title=assembly.title,
        subtitle=assembly.subtitle,
        author=assembly.author,
        published_at=candidates.decisions.published_at,
        source_url=candidates.decisions.source_url,
        language=candidates.language,
        markdown=assembly.markdown,
        path=path,
        repairs=log,
        hashes=Hashes(
            markdown=sha256_hex(assembly.markdown),
            source_html=sha256_hex(source_html),
            candidate_set=model_hash(candidates),
        ),
        harness=report,
    )
    return HarnessResult(report, log, article)

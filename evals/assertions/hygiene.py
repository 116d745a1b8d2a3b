"""Hygiene assertions: the runtime's ten-step harness, the kept set and the metadata choice."""

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
from evals.cases import candidate_set, page_bytes, stale_reason
from evals.paths import HYGIENE
from evals.thresholds import KEPT_BLOCKS


def harness(output: str, context: dict[str, Any]) -> Result:
    """The answer holds through ``run_hygiene_harness``, exactly as in production."""
    from article_runtime.harness.pipeline import run_hygiene_harness

    case = case_of(HYGIENE, context)
    result = run_hygiene_harness(
        candidate_set(case), output, source_html=page_bytes(case), path="primary", source=case.name
    )
    if result.report.valid:
        return passed(f"{len(result.repairs.applied)} repair(s) applied")
    step = next(s for s in result.report.steps if s.outcome == "failed")
    return failed(str(result.report.reason), f"step {step.step} {step.name}: {step.detail or ''}")


def kept_blocks(output: str, context: dict[str, Any]) -> Result:
    """Precision and recall of the offered kept IDs against the truth-derived expected set."""
    case = case_of(HYGIENE, context)
    if (stale := stale_reason(case)) is not None:
        return failed("stale_case", stale)
    answer = answer_object(output)
    if answer is None or not isinstance(answer.get("kept_block_ids"), list):
        return not_applicable("no kept_block_ids to judge")
    offered = {b.id for b in candidate_set(case).blocks}  # unknown IDs are the harness's job
    ignore = set(case.expected.get("ignore_block_ids", []))
    kept = {str(i) for i in answer["kept_block_ids"]} & offered - ignore
    expected = set(case.expected["kept_block_ids"]) - ignore
    hits = len(kept & expected)
    precision = hits / len(kept) if kept else 1.0
    recall = hits / len(expected) if expected else 1.0
    min_p, min_r = KEPT_BLOCKS[case.category]
    detail = f"precision {precision:.2f} (min {min_p}), recall {recall:.2f} (min {min_r})"
    checks = (("precision", precision >= min_p), ("recall", recall >= min_r))
    low = [name for name, ok in checks if not ok]
    if low:
        return failed("low_" + "_and_".join(low), detail)
    return passed(detail)


def metadata(output: str, context: dict[str, Any]) -> Result:
    """Title, subtitle and author chosen among the candidates the case accepts."""
    case = case_of(HYGIENE, context)
    if (stale := stale_reason(case)) is not None:
        return failed("stale_case", stale)
    answer = answer_object(output)
    if answer is None:
        return not_applicable("not a JSON object")
    for field in ("title", "subtitle", "author"):
        accepted = case.expected.get(f"{field}_candidate_ids")
        chosen = answer.get(f"{field}_candidate_id")
        if accepted is not None and chosen not in accepted:
            return failed(f"wrong_{field}", f"{chosen} not in {accepted}")
    return passed()

"""Repair assertions (spec 11.2): every proposed repair must pass the runtime's review, and
every defect the case labels unambiguous must be repaired exactly as labelled."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # Promptfoo loads assertion files by path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pydantic import ValidationError

from evals.assertions.common import (
    Result,
    answer_object,
    case_of,
    failed,
    not_applicable,
    passed,
)
from evals.cases import candidate_set, stale_reason
from evals.paths import HYGIENE
from evals.thresholds import LABELLED_REPAIRS

Reviewed = list[tuple[tuple[str, str, str], bool, str]]


def _reviewed(output: str, context: dict[str, Any]) -> Reviewed | None:
    """(target, original, replacement), accepted, reason for each repair, via ``review_repairs``."""
    from article_runtime.harness.assemble import link_boundaries
    from article_runtime.harness.repairs import review_repairs
    from article_runtime.harness.steps import target_roles
    from article_runtime.model.proposal import Repair

    answer = answer_object(output)
    if answer is None or not isinstance(answer.get("repairs"), list):
        return None
    try:
        proposed = [Repair.model_validate(r) for r in answer["repairs"]]
    except ValidationError:
        return None  # the schema assertion reports it
    candidates = candidate_set(case_of(HYGIENE, context))
    meta = candidates.metadata_candidates
    targets = {b.id: b.text for b in candidates.blocks}
    targets |= {c.id: c.text for c in (*meta.title, *meta.subtitle, *meta.author)}
    links = [str(i) for i in answer.get("kept_link_ids") or []]
    reviews = review_repairs(
        proposed,
        targets,
        boundaries=link_boundaries(candidates, links),
        locale=candidates.language,
        roles=target_roles(candidates),
    )
    return [
        ((r.repair.target_id, r.repair.original, r.repair.replacement), r.accepted, r.reason)
        for r in reviews
    ]


def repairs(output: str, context: dict[str, Any]) -> Result:
    """No proposed repair may be one the runtime rejects (synonym, paraphrase, number...)."""
    reviewed = _reviewed(output, context)
    if reviewed is None:
        return not_applicable("no valid repairs list")
    rejected = [(key, reason) for key, ok, reason in reviewed if not ok]
    if rejected:
        (target, original, replacement), reason = rejected[0]
        detail = f"{len(rejected)} rejected; {target} {original!r}->{replacement!r}: {reason}"
        return failed("rejected_repair", detail)
    return passed(f"{len(reviewed)} repair(s) accepted")


def labelled_repairs(output: str, context: dict[str, Any]) -> Result:
    """The labelled unambiguous defects are repaired as labelled and accepted."""
    case = case_of(HYGIENE, context)
    labelled = case.expected.get("repairs") or []
    if not labelled:
        return not_applicable("no labelled defect in this case")
    if (stale := stale_reason(case)) is not None:
        return failed("stale_case", stale)
    reviewed = _reviewed(output, context)
    if reviewed is None:
        return not_applicable("no valid repairs list")
    accepted = {key for key, ok, _ in reviewed if ok}
    wanted = [(r["target_id"], r["original"], r["replacement"]) for r in labelled]
    missed = [w for w in wanted if w not in accepted]
    share = 1 - len(missed) / len(wanted)
    minimum = LABELLED_REPAIRS.get(case.category, 1.0)
    detail = f"{len(wanted) - len(missed)}/{len(wanted)} labelled repairs (min {minimum:.0%})"
    if share < minimum:
        return failed("missed_repair", f"{detail}; first missed {missed[0][0]} {missed[0][1]!r}")
    return passed(detail)

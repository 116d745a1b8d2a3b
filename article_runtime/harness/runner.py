"""Runs ordered validation steps and reports each one: shared by both harnesses.

A step is a function of the run's state that raises ``StepFailure`` with a categorical reason;
the first failure stops the run and the remaining steps are reported as skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from article_runtime import bounded_json
from article_runtime.model import HarnessReport, StepOutcome

R = TypeVar("R")


class StepFailure(Exception):
    """A validation failed: ``reason`` is categorical, ``detail`` names the offending item."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail


def parse_json(raw: str | bytes | Mapping[str, Any], *, max_length: int | None = None) -> Any:
    """Step 1 of both harnesses: the answer as data, or ``invalid_json`` (malformed, nested
    beyond ``bounded_json.MAX_DEPTH``, holding a lone surrogate, or an object holding a key
    twice), or ``answer_too_long`` before any parsing when its characters outside JSON
    whitespace are more than ``max_length`` (what the longest valid answer can hold)."""
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        return bounded_json.loads(raw, unique_keys=True, max_length=max_length)
    except bounded_json.TooLongError as exc:
        raise StepFailure("answer_too_long", str(exc)) from exc
    except ValueError as exc:
        raise StepFailure("invalid_json", str(exc)[:200]) from exc


def run_steps(
    steps: Sequence[Callable[[R], None]],
    run: R,
    notes: Mapping[int, str] | None = None,
) -> HarnessReport:
    """Each step in order, named after its function; ``notes`` holds details steps leave."""
    outcomes: list[StepOutcome] = []
    failure: StepFailure | None = None
    for number, step in enumerate(steps, start=1):
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
        detail = notes.get(number) if notes is not None else None
        outcomes.append(StepOutcome(step=number, name=name, outcome="passed", detail=detail))
    return HarnessReport(
        valid=failure is None, reason=failure.reason if failure else None, steps=outcomes
    )

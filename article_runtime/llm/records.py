"""What a Langfuse generation carries for one model attempt (spec 12)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from article_runtime.model.attempts import AttemptRecord
from article_runtime.model.base import Frozen
from article_runtime.tokens import TOKENIZER

__all__ = ["AttemptRecord", "GenerationRecord", "ValidationSummary", "step_verdict"]


class ValidationSummary(Frozen):
    """The verdicts a trace needs: schema, grounding, repairs (spec 12)."""

    schema_valid: bool | None = None
    grounding_valid: bool | None = None
    reason: str | None = None
    repairs_applied: list[dict[str, Any]] = Field(default_factory=list)
    repairs_rejected: list[dict[str, Any]] = Field(default_factory=list)


def step_verdict(
    outcomes: Mapping[str, str], checks: Sequence[str], reached_after: Sequence[str]
) -> bool | None:
    """Whether the named ``checks`` held, for a trace (spec 12): False as soon as one of them
    failed, True when all passed, None when the answer never got that far (the steps in
    ``reached_after``, such as schema validation, did not all pass; or a step in between
    failed and the checks were skipped)."""
    if any(outcomes.get(name) == "failed" for name in checks):
        return False
    if any(outcomes.get(name) != "passed" for name in reached_after):
        return None
    if all(outcomes.get(name) == "passed" for name in checks):
        return True
    return None


class GenerationRecord(Frozen):
    """Everything one Langfuse generation carries (spec 12). Never secrets or headers."""

    prompt_name: str
    prompt_version: str
    prompt_hash: str
    schema_version: str
    attempt: AttemptRecord
    provider_host: str | None = None  # where the model was called (no path, no credentials)
    context: list[dict[str, str]]  # the normalized messages sent (role, content)
    context_tokens: int
    tokenizer: str = TOKENIZER  # the encoding context_tokens (and any fallback count) is in
    answer: Any = None  # the parsed structured answer, or the raw text if it did not parse
    validation: ValidationSummary = ValidationSummary()
    is_retry: bool = False
    is_fallback: bool = False
    trace_key: str | None = None  # groups one article's attempts into one trace (article ID)

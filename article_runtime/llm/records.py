"""What a Langfuse generation carries for one model attempt (spec 12)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from article_runtime.model.attempts import AttemptRecord
from article_runtime.model.base import Frozen

__all__ = ["AttemptRecord", "GenerationRecord", "ValidationSummary"]


class ValidationSummary(Frozen):
    """The verdicts a trace needs: schema, grounding, repairs (spec 12)."""

    schema_valid: bool | None = None
    grounding_valid: bool | None = None
    reason: str | None = None
    repairs_applied: list[dict[str, Any]] = Field(default_factory=list)
    repairs_rejected: list[dict[str, Any]] = Field(default_factory=list)


class GenerationRecord(Frozen):
    """Everything one Langfuse generation carries (spec 12). Never secrets or headers."""

    prompt_name: str
    prompt_version: str
    prompt_hash: str
    schema_version: str
    attempt: AttemptRecord
    context: list[dict[str, str]]  # the normalized messages sent (role, content)
    context_tokens: int
    answer: Any = None  # the parsed structured answer, or the raw text if it did not parse
    validation: ValidationSummary = ValidationSummary()
    is_retry: bool = False
    is_fallback: bool = False
    trace_key: str | None = None  # groups one article's attempts into one trace (article ID)

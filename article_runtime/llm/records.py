"""What a Langfuse generation carries for one model attempt (spec 12)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from article_runtime import bounded_json
from article_runtime.model import HarnessReport
from article_runtime.model.attempts import AttemptRecord
from article_runtime.model.base import Frozen
from article_runtime.tokens import TOKENIZER

__all__ = [
    "TEXT_FREE_DETAILS",
    "AttemptRecord",
    "GenerationRecord",
    "ValidationSummary",
    "failed_step",
    "step_verdict",
    "traced_answer",
]

TEXT_FREE_DETAILS = frozenset(
    {
        "invalid_json",  # the parser's position; a repeated key only by a field name
        "answer_too_long",  # lengths
        "schema_violation",  # path: rule
        "unknown_metadata_id",  # the ID (16 characters at most, by step 2)
        "wrong_kind_metadata_id",
        "unknown_block_id",
        "wrong_kind_block_id",
        "removed_block_kept",
        "duplicate_removed_block_id",
        "order_violation",  # two IDs
        "unknown_link_id",
        "wrong_kind_link_id",
        "unknown_image_id",
        "wrong_kind_image_id",
        "unknown_repair_target",
        "content_too_short",  # a word count
        "too_few_tags",  # counts
        "too_many_tags",
        "unknown_evidence_id",
        "tag_language_mismatch",  # language codes
    }
)
"""Harness reasons whose step detail names only IDs, schema paths, counts or language codes.
Any other reason's detail may quote the article or the model's text (a tag, a repaired
fragment, an invented URL): records and traces leave it out. A new reason is left out until
it is listed here."""


TRACED_TEXT = 2000  # characters of an unparsed answer a trace keeps


def traced_answer(content: str, report: HarnessReport) -> Any:
    """The answer as a trace shows it: parsed when the harness parsed it, else its first
    characters (an answer refused as too long or malformed is never parsed again here)."""
    parsed = any(s.name == "json_parseable" and s.outcome == "passed" for s in report.steps)
    if parsed:
        try:
            return bounded_json.loads(content)
        except ValueError:  # pragma: no cover - the harness parsed it already
            pass
    return content[:TRACED_TEXT]


def failed_step(report: HarnessReport) -> tuple[str | None, str | None]:
    """The step that refused an answer and its detail when it holds no text (else None)."""
    for outcome in report.steps:
        if outcome.outcome == "failed":
            shown = outcome.reason in TEXT_FREE_DETAILS
            return outcome.name, outcome.detail if shown else None
    return None, None


class ValidationSummary(Frozen):
    """The verdicts a trace needs: schema, grounding, repairs (spec 12), and where the answer
    was refused (``step``, ``detail``: see ``failed_step``)."""

    schema_valid: bool | None = None
    grounding_valid: bool | None = None
    reason: str | None = None
    step: str | None = None
    detail: str | None = None
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
    output_cap: int | None = None  # the output tokens the request allowed (None: uncapped)
    finish_reason: str | None = None  # as the provider reported it ("stop", "length"...)
    answer: Any = None  # the parsed structured answer, or the raw text if it did not parse
    validation: ValidationSummary = ValidationSummary()
    is_retry: bool = False
    is_fallback: bool = False
    trace_key: str | None = None  # groups one article's attempts into one trace (article ID)

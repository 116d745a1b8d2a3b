"""One ``GenerationRecord`` as the fields of one Langfuse generation (spec 12), already masked.

Pure: no SDK import, so the mapping is testable and cheap to import.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from article_runtime.llm.records import GenerationRecord
from article_runtime.tracing.masking import Redactor

Level = Literal["DEFAULT", "WARNING", "ERROR"]


@dataclass(frozen=True, slots=True)
class GenerationFields:
    name: str
    model: str | None
    version: str
    input: Any
    output: Any
    metadata: dict[str, Any]
    usage_details: dict[str, int]
    cost_details: dict[str, float]
    level: Level
    status_message: str | None
    latency_ns: int


def level_for(outcome: str) -> Level:
    """ERROR for a technical failure, WARNING for an answer that failed validation or was cut
    at the output cap (the call worked; the answer could not be used)."""
    if outcome == "ok":
        return "DEFAULT"
    if outcome in ("invalid", "output_truncated"):
        return "WARNING"
    return "ERROR"


def generation_fields(record: GenerationRecord, redactor: Redactor) -> GenerationFields:
    attempt = record.attempt
    validation = record.validation
    metadata: dict[str, Any] = {
        "prompt_version": record.prompt_version,
        "prompt_hash": record.prompt_hash,
        "schema_version": record.schema_version,
        "logical_call": attempt.call,
        "role": attempt.role,
        "provider": attempt.provider,
        "provider_host": record.provider_host,
        "attempt": attempt.attempt,
        "outcome": attempt.outcome,
        "reason": attempt.reason,
        "step": attempt.step,
        "detail": attempt.detail,
        "output_cap": record.output_cap,
        "finish_reason": record.finish_reason,
        "http_status": attempt.http_status,
        "retry_after_s": attempt.retry_after_s,
        "latency_ms": attempt.latency_ms,
        "is_retry": record.is_retry,
        "is_fallback": record.is_fallback,
        "schema_valid": validation.schema_valid,
        "grounding_valid": validation.grounding_valid,
        "validation_reason": validation.reason,
        "repairs_applied": validation.repairs_applied,
        "repairs_rejected": validation.repairs_rejected,
        "context_tokens": record.context_tokens,
        "tokenizer": record.tokenizer,
        "prompt_tokens": attempt.prompt_tokens,
        "completion_tokens": attempt.completion_tokens,
        "cost_usd": attempt.cost_usd,
    }
    status = attempt.reason or validation.reason
    if status is None and attempt.outcome != "ok":
        status = attempt.outcome
    return GenerationFields(
        name=redactor.text(record.prompt_name),
        model=None if attempt.model is None else redactor.text(attempt.model),
        version=redactor.text(record.prompt_version),
        input=redactor.scrub(record.context),
        output=redactor.scrub(record.answer),
        metadata=redactor.scrub(metadata),
        usage_details={
            "input": attempt.prompt_tokens,
            "output": attempt.completion_tokens,
            "total": attempt.prompt_tokens + attempt.completion_tokens,
        },
        cost_details={"total": attempt.cost_usd},
        level=level_for(attempt.outcome),
        status_message=None if status is None else redactor.text(status),
        latency_ns=max(0, round(attempt.latency_ms * 1_000_000)),
    )

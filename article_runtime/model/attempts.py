"""One record per judged proposal: a model answer, a recorded proposal, or the deterministic one.

The same records feed the CLI's JSON output, compensation events, traces and web views, so the
reason codes stay one vocabulary (STYLE.md).
"""

from __future__ import annotations

from typing import Literal

from article_runtime.model.base import Frozen

LogicalCall = Literal["article_content_hygiene", "article_sentiment_tags"]
Role = Literal["runtime_primary", "runtime_fallback", "recorded", "deterministic"]

# ok: a valid answer. invalid: the answer failed validation (never retried on the same model).
# output_truncated: the provider cut the answer at the output cap (finish_reason "length"): a
# model looping or a cap too small; paid for, never judged, never retried on the same model.
# The rest are technical failures; RETRYABLE ones are retried on the same provider, bounded.
AttemptOutcome = Literal[
    "ok",
    "invalid",
    "timeout",
    "connection_error",
    "rate_limited",
    "server_error",
    "client_error",
    "output_truncated",
]
RETRYABLE: frozenset[str] = frozenset(
    {"timeout", "connection_error", "rate_limited", "server_error"}
)


class AttemptRecord(Frozen):
    call: LogicalCall
    role: Role
    provider: str | None = None
    model: str | None = None
    attempt: int = 1  # 1-based per role: 2 is the first technical retry on that provider
    outcome: AttemptOutcome
    reason: str | None = None  # categorical: harness reason or technical error kind
    # Why, for a person: the harness step that refused the answer and its detail (the first
    # schema violation as "path: rule", the offending ID), or the technical failure's. Never
    # article text: a step whose detail could quote it leaves it out.
    step: str | None = None
    detail: str | None = None
    http_status: int | None = None
    retry_after_s: float | None = None
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


class Usage(Frozen):
    """Totals over every attempt of a call, failed ones included: they were paid for."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @classmethod
    def of(cls, attempts: list[AttemptRecord]) -> Usage:
        return cls(
            prompt_tokens=sum(a.prompt_tokens for a in attempts),
            completion_tokens=sum(a.completion_tokens for a in attempts),
            cost_usd=round(sum(a.cost_usd for a in attempts), 8),
        )

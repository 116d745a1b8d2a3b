"""Compensation event records: the one way a worker gives up on an input without crashing.

Agents catch ``CodecError`` (and their own categorical failures) and emit one of these on
``article.compensation`` instead of raising, because Faust acks a message whose agent raised:
it would be lost silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from article_runtime.streams.kafka.codec import CodecError

Stage = Literal[
    "ingest", "candidates", "hygiene", "assembly", "enrichment", "compensation", "decode"
]
Kind = Literal["fallback", "terminal"]
NextAttempt = Literal["runtime_primary", "runtime_fallback", "deterministic"]
# The hygiene ladder's rungs in order (the Avro enum HygieneRole).
RUNGS: tuple[NextAttempt, ...] = ("runtime_primary", "runtime_fallback", "deterministic")


def compensation_event(
    article_id: str,
    *,
    stage: Stage,
    kind: Kind,
    reason: str,
    detail: str | None = None,
    next_attempt: NextAttempt | None = None,
    attempts_so_far: int = 0,
    attempts: Sequence[dict[str, Any]] = (),
    origin: tuple[str, int, int] | None = None,
    occurred_at: datetime | None = None,
    retry: dict[str, Any] | None = None,
    entity: dict[str, Any] | None = None,
    version: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``CompensationEvent`` record; ``origin`` is (topic, partition, offset) when known.

    ``retry`` (a ``RetryContext``) carries the candidate set a hygiene redrive judges again;
    ``version`` is the article version (``article_runtime.agents.versions``) the event is about.
    """
    if (kind == "fallback") != (next_attempt is not None):
        raise ValueError("a fallback names its next attempt; a terminal event has none")
    return {
        "article_id": article_id,
        "stage": stage,
        "kind": kind,
        "reason": reason,
        "detail": detail,
        "next_attempt": next_attempt,
        "attempts_so_far": attempts_so_far,
        "attempts": list(attempts),
        "occurred_at": occurred_at or datetime.now(UTC),
        "origin": (
            None
            if origin is None
            else {"topic": origin[0], "partition": origin[1], "offset": origin[2]}
        ),
        "retry": retry,
        "entity": entity,
        "version": version,
    }


def undecodable(
    error: CodecError,
    *,
    key: bytes | None,
    topic: str,
    partition: int,
    offset: int,
    occurred_at: datetime | None = None,
) -> dict[str, Any]:
    """The terminal event for a message value the codec refused; the key names the article."""
    return compensation_event(
        (key or b"").decode("utf-8", errors="replace"),
        stage="decode",
        kind="terminal",
        reason=error.reason,
        detail=error.detail[:500] or None,
        origin=(topic, partition, offset),
        occurred_at=occurred_at,
    )

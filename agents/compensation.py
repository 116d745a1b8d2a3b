"""Compensation: turn a fallback decision into the next hygiene request.

Stateless: the event carries the candidate set the next rung needs (``retry``). The ladder is
bounded by the assembly agent, which names at most two fallbacks per article; terminal events
stay on the compensation topic for people and the ledger. An operator's redrive
(``article-runtime redrive``, ``streams.redrive``) of a hygiene terminal is one more fallback
event, numbered after the ladder's attempts, so it becomes a request here like any other.
"""

from __future__ import annotations

from typing import Any

import faust

from streams.compensation import compensation_event
from streams.records import now
from streams.topics import ARTICLE_COMPENSATION, HYGIENE_REQUEST
from streams.wiring import Emit, Event, Wiring


def compensation_step(event: dict[str, Any]) -> list[Emit]:
    """The next rung's request for a hygiene fallback event (a redrive's included); nothing
    for a terminal one, nor for an enrichment redrive (the enrichment agent's to act on)."""
    if event["kind"] != "fallback" or event["stage"] == "enrichment":
        return []
    article_id, retry = event["article_id"], event.get("retry")
    if retry is None or event["next_attempt"] is None:
        missing = compensation_event(
            article_id,
            stage=event["stage"],
            kind="terminal",
            reason="retry_context_missing",
            detail=f"fallback after {event['reason']} carried no candidate set",
            attempts_so_far=event["attempts_so_far"],
            attempts=event["attempts"],
            version=event.get("version"),
        )
        return [Emit(ARTICLE_COMPENSATION, article_id, missing)]
    request = {
        "article_id": article_id,
        "role": event["next_attempt"],
        "attempt": event["attempts_so_far"] + 1,
        **retry,
        "requested_at": now(),
        "version": event.get("version"),
    }
    return [Emit(HYGIENE_REQUEST, article_id, request)]


def register(w: Wiring) -> None:
    async def handle(_event: Event, record: dict[str, Any]) -> list[Emit]:
        return compensation_step(record)

    @w.app.agent(w.topic(ARTICLE_COMPENSATION), name="compensation")
    async def compensation(stream: faust.StreamT[bytes]) -> None:
        await w.consume(stream, "compensation", handle)

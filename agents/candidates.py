"""Candidates: raw HTML from ingestion to the first hygiene request of the ladder.

CPU only (no model call), so one message at a time, in a worker thread: a 5 MiB page takes
seconds to parse, and the event loop must keep serving heartbeats, web views and the model
calls in flight meanwhile. Unusable HTML ends here as a terminal compensation event with the
decoder's categorical reason (empty, too large, not HTML...), and so does a candidate set too
big for the hygiene topics to carry (``candidate_set_too_large``): a page of many tiny blocks
can make one several times larger than its HTML.

The request is stamped with the article's version (``agents.versions``): the position of the
ingested record on its partition, or ingestion's declared version. So a record must sit on its
article's partition: one its producer put elsewhere (not murmur2, or not keyed by the article
id) ends here as a terminal ``misrouted_key`` event, without a version, and nothing else reads
it (``streams.routing``). Re-producing it to its partition was the alternative; it would order
the copy by when this worker got to it rather than when ingestion published it (so it could
overtake a newer version), double the message for everyone else reading ``article.ingested``,
and leave the producer's misconfiguration unnoticed. The event names where the record sits and
what its producer must change; once fixed, the producer publishes the article again.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import faust

from agents.ladder import first_rung
from agents.versions import version_of
from article_runtime.candidates import build_candidates
from article_runtime.errors import InputError
from article_runtime.hashing import model_hash, sha256_hex
from streams.compensation import compensation_event
from streams.records import feed_metadata, now
from streams.routing import misrouted_event
from streams.topics import (
    ARTICLE_COMPENSATION,
    ARTICLE_INGESTED,
    HYGIENE_REQUEST,
    MAX_CANDIDATE_SET_BYTES,
)
from streams.wiring import Emit, Event, Wiring, origin


def candidates_step(
    record: dict[str, Any], *, has_models: bool, at: tuple[str, int, int] | None = None
) -> Emit:
    """The hygiene request for the ladder's first rung, or why the HTML cannot be used.

    ``at`` is where the record sits (topic, partition, offset): its offset orders the versions.
    """
    article_id = record["article_id"]
    html: bytes = record["html"]
    version = None if at is None else version_of(record, at[2])

    def terminal(reason: str, detail: str) -> Emit:
        event = compensation_event(
            article_id,
            stage="candidates",
            kind="terminal",
            reason=reason,
            detail=detail[:500] or None,
            origin=at,
            version=version,
        )
        return Emit(ARTICLE_COMPENSATION, article_id, event)

    try:
        candidates = build_candidates(
            html, url=record["url"], feed=feed_metadata(record.get("feed"))
        )
    except InputError as exc:
        return terminal(exc.reason, exc.detail)
    candidate_set_json = candidates.model_dump_json()
    size = len(candidate_set_json.encode("utf-8"))
    if size > MAX_CANDIDATE_SET_BYTES:
        detail = f"{size} bytes > {MAX_CANDIDATE_SET_BYTES} ({len(candidates.blocks)} blocks)"
        return terminal("candidate_set_too_large", detail)
    request = {
        "article_id": article_id,
        "role": first_rung(has_models),
        "attempt": 1,
        "url": record["url"],
        "candidate_set_json": candidate_set_json,
        "candidate_set_hash": model_hash(candidates),
        "html_hash": sha256_hex(html),
        "requested_at": now(),
        "version": version,
    }
    return Emit(HYGIENE_REQUEST, article_id, request)


def register(w: Wiring) -> None:
    has_models = w.has_hygiene_models

    async def handle(event: Event, record: dict[str, Any]) -> list[Emit]:
        refused = misrouted_event(w, event, record, "candidates")
        if refused is not None:
            return [refused]
        step = functools.partial(candidates_step, has_models=has_models, at=origin(event))
        return [await asyncio.to_thread(step, record)]

    @w.app.agent(w.topic(ARTICLE_INGESTED), name="candidates")
    async def candidates(stream: faust.StreamT[bytes]) -> None:
        await w.consume(stream, "candidates", handle)

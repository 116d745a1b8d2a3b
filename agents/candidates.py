"""Candidates: an ingested record's candidate set, or why its HTML cannot be used.

Pure and CPU only; the hygiene agent runs it one page at a time, on the event loop or, for a
page over 1 MiB, in the pages thread (``article_runtime.agents.pages``). Unusable HTML ends as a
terminal compensation event of stage ``candidates`` with the decoder's categorical reason (empty,
too large, not HTML...).

The article's version (``article_runtime.agents.versions``) is the position of its ingested record
on the partition its producer put it on, or ingestion's declared version. A record off its article's
partition (its producer not hashing with murmur2) is forwarded there first, and its version is
still its offset where it was produced (``article_runtime.streams.service.routing``); one not keyed
by its article id ends as a terminal ``misrouted_key`` event before this runs.
"""

from __future__ import annotations

from typing import Any

from article_runtime.agents.versions import version_of
from article_runtime.candidates import build_candidates
from article_runtime.errors import InputError
from article_runtime.hashing import model_hash, sha256_hex
from article_runtime.model import CandidateSet
from article_runtime.streams.kafka.topics import ARTICLE_COMPENSATION
from article_runtime.streams.service.compensation import compensation_event
from article_runtime.streams.service.records import feed_metadata
from article_runtime.streams.service.wiring import Emit


def candidates_of(record: dict[str, Any], *, at: tuple[str, int, int]) -> CandidateSet | Emit:
    """The candidate set of an ``ArticleIngested`` record found at ``at`` (topic, partition,
    offset), or the terminal event that says why its page cannot be used."""
    try:
        return build_candidates(
            record["html"], url=record["url"], feed=feed_metadata(record.get("feed"))
        )
    except InputError as exc:
        article_id = record["article_id"]
        event = compensation_event(
            article_id,
            stage="candidates",
            kind="terminal",
            reason=exc.reason,
            detail=exc.detail[:500] or None,
            origin=at,
            version=version_of(record, at[2]),
        )
        return Emit(ARTICLE_COMPENSATION, article_id, event)


def retry_context(record: dict[str, Any], candidates: CandidateSet) -> dict[str, Any]:
    """The ``RetryContext`` of an ingested record: what a redrive of its hygiene judges again
    without the page (``article_runtime.streams.service.redrive``)."""
    return {
        "url": record["url"],
        "candidate_set_json": candidates.model_dump_json(),
        "candidate_set_hash": model_hash(candidates),
        "html_hash": sha256_hex(record["html"]),
    }

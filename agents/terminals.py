"""Terminals: the articles that ended terminal lately, per stage and reason, for operators.

``/compensations/`` counts events by reason; after an outage an operator also needs to know
which articles to look at or redrive. The ledger (``article_runtime.agents.ledger``) keeps, per
source partition, stage and reason, the last ``RECENT_PER_REASON`` terminal events (article, entity,
version, when), so the list stays bounded however long the outage. Keys are
``"<partition>/<stage>/<reason>"``: like the counters, a key follows its source partition
across rebalances.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from article_runtime.agents.versions import label

RECENT_TABLE = "recent_terminals"
RECENT_PER_REASON = 50


def entry(event: dict[str, Any]) -> dict[str, Any]:
    """What the view lists about one terminal event."""
    at = event["occurred_at"]
    return {
        "article_id": event["article_id"],
        "entity": (event.get("entity") or {}).get("qid"),
        "version": label(event.get("version")),
        "at": at.isoformat() if isinstance(at, datetime) else str(at),
    }


def remembered(held: list[dict[str, Any]] | None, event: dict[str, Any]) -> list[dict[str, Any]]:
    """The list after one terminal event: newest last, one entry per (article, entity), at
    most ``RECENT_PER_REASON``."""
    new = entry(event)
    same = (new["article_id"], new["entity"])
    kept = [e for e in held or () if (e["article_id"], e["entity"]) != same]
    return [*kept, new][-RECENT_PER_REASON:]


def recent(
    held: Iterable[tuple[str, list[dict[str, Any]]]], partitions: Iterable[int]
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Per (stage, reason), the newest ``RECENT_PER_REASON`` entries over ``partitions``,
    newest first."""
    owned = {str(p) for p in partitions}
    merged: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for key, entries in held:
        partition, _, name = key.partition("/")
        if partition in owned:
            stage, _, reason = name.partition("/")
            merged.setdefault((stage, reason), []).extend(entries)
    return {
        key: sorted(entries, key=lambda e: e["at"], reverse=True)[:RECENT_PER_REASON]
        for key, entries in merged.items()
    }

"""Operator views on the worker's web port (Faust's web server).

- ``/health/``: liveness and readiness (the chart's probes).
- ``/counters/``: outcome counters of the partitions this worker owns.
- ``/articles/{article_id}/``: one article's lineage; Faust routes the request to the worker
  that owns the article's partition.
- ``/compensations/``: compensation counts by stage, kind and reason on this worker.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from faust.web import Request, Response, View

from agents.ledger import COUNTERS_TABLE, STATUS_TABLE
from streams.topics import ARTICLE_INGESTED
from streams.wiring import Wiring

COMPENSATION_PREFIX = "compensation/"


def local_partitions(w: Wiring) -> list[int]:
    """Partitions of the flow this worker owns (all topics are co-partitioned)."""
    assigned = w.app.assignor.assigned_actives()
    return sorted(tp.partition for tp in assigned if tp.topic == ARTICLE_INGESTED.name)


def summed(counters: dict[str, int], partitions: list[int]) -> dict[str, int]:
    """Counter totals over ``partitions`` (table keys are ``"<partition>/<name>"``)."""
    owned = {str(p) for p in partitions}
    totals: Counter[str] = Counter()
    for key, value in counters.items():
        partition, _, name = key.partition("/")
        if partition in owned:
            totals[name] += value
    return dict(sorted(totals.items()))


def register(w: Wiring) -> None:
    app, status, counters = w.app, w.tables[STATUS_TABLE], w.tables[COUNTERS_TABLE]

    def local_counters() -> tuple[list[int], dict[str, int]]:
        partitions = local_partitions(w)
        return partitions, summed(dict(counters.items()), partitions)

    @app.page("/health/")
    async def health(web: View, request: Request) -> Response:
        return web.json({"status": "ok", "app": app.conf.id, "partitions": local_partitions(w)})

    @app.page("/counters/")
    async def counter_view(web: View, request: Request) -> Response:
        partitions, totals = local_counters()
        return web.json({"partitions": partitions, "counters": totals})

    @app.page("/compensations/")
    async def compensations(web: View, request: Request) -> Response:
        partitions, totals = local_counters()
        reasons = []
        for name, count in totals.items():
            if name.startswith(COMPENSATION_PREFIX):
                stage, kind, reason = name[len(COMPENSATION_PREFIX) :].split("/", 2)
                reasons.append({"stage": stage, "kind": kind, "reason": reason, "count": count})
        return web.json({"partitions": partitions, "reasons": reasons})

    # Routed by the source topic's partitioner (raw key), not table_route: that one hashes the
    # table's JSON-serialized key ('"id"') and would ask the wrong worker.
    @app.page("/articles/{article_id}/")
    @app.topic_route(topic=w.topics[ARTICLE_INGESTED.name], match_info="article_id")
    async def article(web: View, request: Request, article_id: str) -> Response:
        found: dict[str, Any] | None = status.get(article_id)
        if found is None:
            return web.json({"article_id": article_id, "error": "unknown"}, status=404)
        return web.json({"article_id": article_id, **found})

"""Operator views on the worker's web port (Faust's web server).

- ``/health/``: liveness and readiness (the chart's probes).
- ``/counters/``: outcome counters of the partitions this worker owns.
- ``/articles/{article_id}/``: one article's lineage, from whichever worker owns the article's
  partition (other workers proxy the request). Faust's own ``table_route`` is not used: it
  hashes the table's JSON-serialized key, which lands on another partition than the raw key,
  and its topic variant fails until the worker has produced to that topic.
- ``/compensations/``: compensation counts by stage, kind and reason on this worker.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from faust.web import Request, Response, View

from agents.ledger import COUNTERS_TABLE, STATUS_TABLE
from streams.topics import ARTICLE_INGESTED, partition_of
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

    @app.page("/articles/{article_id}/")
    async def article(web: View, request: Request, article_id: str) -> Response:
        """Answered by the worker that owns the article's partition, proxied from any other."""
        partition = partition_of(article_id)
        owner = owner_url(w, partition)
        if partition not in local_partitions(w) and owner not in (
            None,
            str(app.conf.canonical_url),
        ):
            async with app.http_client.get(f"{owner}/articles/{article_id}/") as response:
                return web.json(await response.json(), status=response.status)
        found: dict[str, Any] | None = status.get(article_id)
        if found is None:
            return web.json({"article_id": article_id, "error": "unknown"}, status=404)
        return web.json({"article_id": article_id, "partition": partition, **found})


def owner_url(w: Wiring, partition: int) -> str | None:
    """The web URL of the worker owning ``partition`` of the status table, if assigned."""
    changelog = w.tables[STATUS_TABLE].changelog_topic.get_topic_name()
    for url, topics in w.app.router.table_metadata(STATUS_TABLE).items():
        if partition in topics.get(changelog, ()):
            return str(url)
    return None

"""Operator views on the worker's web port (Faust's web server).

A view never presents partial state as an answer. Until the worker owns a settled assignment
and its tables have recovered from their changelogs (``serving``), the views answer 503 with
``{"status": "recovering"}``; a table half read back would show counters of 0 or 995 of 1237
and 404 for articles it knows.

- ``/health/``: always 200 while the process lives: ``status`` is ``ok`` (ready),
  ``recovering`` or ``unready``, ``reasons`` says why it is not ready
  (``article_runtime.streams.service.health``, which also serves the probes ``/health/live/`` and
  ``/health/ready/``), and ``partitions`` lists only what this worker owns once settled.
- ``/counters/``: outcome counters of the partitions this worker owns.
- ``/articles/{article_id}/``: one article's lineage, from whichever worker owns the article's
  partition (other workers proxy the request). Faust's own ``table_route`` is not used: it
  hashes the table's JSON-serialized key, which lands on another partition than the raw key,
  and its topic variant fails until the worker has produced to that topic.
- ``/table/{name}/{article_id}/``: one article's entry in a per-article table (``ARTICLE_TABLES``:
  lineage, hygiene ladder, enrichment join), routed as ``/articles/`` is. It replaces Faust's
  ``/table/`` and ``/router/`` views (switched off in ``article_runtime.streams.worker.app``), which
  route through the same key hashing and answered 500 for a table whose changelog the worker had not
  yet produced to.
- ``/compensations/``: compensation counts by stage, kind and reason on this worker; each
  terminal reason also lists ``recent``: its latest articles (``article_runtime.agents.terminals``,
  bounded).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, cast
from urllib.parse import quote

import aiohttp
from faust.tables.manager import TableManager
from faust.web import Request, Response, View

from article_runtime.agents.enrichment import JOIN_TABLE
from article_runtime.agents.hygiene import LADDER_TABLE
from article_runtime.agents.ledger import COUNTERS_TABLE, STATUS_TABLE
from article_runtime.agents.terminals import RECENT_TABLE, recent
from article_runtime.streams.kafka.topics import ARTICLE_INGESTED, partition_of
from article_runtime.streams.service.event_loop import running_loop
from article_runtime.streams.service.health import reasons_now
from article_runtime.streams.service.wiring import Wiring

COMPENSATION_PREFIX = "compensation/"
RECOVERING = {"status": "recovering"}
# Tables keyed by article id, so each key sits on its article's partition.
ARTICLE_TABLES = (STATUS_TABLE, LADDER_TABLE, JOIN_TABLE)


def serving(w: Wiring) -> bool:
    """Whether this worker's assignment is settled and its tables are whole: no rebalance in
    progress (revocation to recovery's end), tables recovered, the flow running. The same
    answer a readiness probe wants."""
    app = w.app
    recovered = cast(TableManager, app.tables).recovery.completed.is_set()
    return recovered and not app.rebalancing and w.work.flowing


def local_partitions(w: Wiring) -> list[int]:
    """Partitions of the flow this worker owns (all topics are co-partitioned); none while
    its assignment is not settled, since it may no longer own what it last had."""
    if not serving(w):
        return []
    assigned = w.app.consumer.assignment()
    return sorted(tp.partition for tp in assigned if tp.topic == ARTICLE_INGESTED.name)


def summed(counters: dict[str, Any], partitions: list[int]) -> dict[str, int]:
    """Counter totals over ``partitions``: a table key per partition holds its counts by
    name; keys an earlier release wrote (``"<partition>/<name>"``, one count each) add to them.
    """
    owned = {str(p) for p in partitions}
    totals: Counter[str] = Counter()
    for key, value in counters.items():
        partition, _, name = key.partition("/")
        if partition not in owned:
            continue
        if name:
            totals[name] += value
        else:
            totals.update(value)
    return dict(sorted(totals.items()))


def register(w: Wiring) -> None:
    app, status, counters = w.app, w.tables[STATUS_TABLE], w.tables[COUNTERS_TABLE]

    def local_counters() -> tuple[list[int], dict[str, int]]:
        partitions = local_partitions(w)
        return partitions, summed(dict(counters.items()), partitions)

    @app.page("/health/")
    async def health(web: View, request: Request) -> Response:
        status = "ok" if serving(w) else RECOVERING["status"]
        reasons = reasons_now(w)
        if status == "ok" and reasons:
            status = "unready"  # the assignment is settled, yet the broker does not answer
        return web.json(
            {
                "status": status,
                "app": app.conf.id,
                "partitions": local_partitions(w),
                "reasons": reasons,
                "event_loop": running_loop(),
            }
        )

    @app.page("/counters/")
    async def counter_view(web: View, request: Request) -> Response:
        if not serving(w):
            return web.json(RECOVERING, status=503)
        partitions, totals = local_counters()
        return web.json({"partitions": partitions, "counters": totals})

    @app.page("/compensations/")
    async def compensations(web: View, request: Request) -> Response:
        if not serving(w):
            return web.json(RECOVERING, status=503)
        partitions, totals = local_counters()
        latest = recent(w.tables[RECENT_TABLE].items(), partitions)
        reasons = []
        for name, count in totals.items():
            if name.startswith(COMPENSATION_PREFIX):
                stage, kind, reason = name[len(COMPENSATION_PREFIX) :].split("/", 2)
                row: dict[str, Any] = {"stage": stage, "kind": kind, "reason": reason}
                if kind == "terminal":
                    row["recent"] = latest.get((stage, reason), [])
                reasons.append({**row, "count": count})
        return web.json({"partitions": partitions, "reasons": reasons})

    @app.page("/articles/{article_id}/")
    async def article(web: View, request: Request, article_id: str) -> Response:
        """Answered by the worker that owns the article's partition, proxied from any other."""
        partition = partition_of(article_id, w.settings.partitions)
        elsewhere = await owners_answer(w, web, partition, f"/articles/{segment(article_id)}/")
        if elsewhere is not None:
            return elsewhere
        found: dict[str, Any] | None = status.get(article_id)
        if found is None:
            return web.json({"article_id": article_id, "error": "unknown"}, status=404)
        return web.json({"article_id": article_id, "partition": partition, **found})

    @app.page("/table/{name}/{article_id}/")
    async def table_entry(web: View, request: Request, name: str, article_id: str) -> Response:
        """One article's entry in a per-article table, routed as ``/articles/`` is."""
        if name not in ARTICLE_TABLES:
            unknown = {"table": name, "error": "unknown table", "tables": list(ARTICLE_TABLES)}
            return web.json(unknown, status=404)
        partition = partition_of(article_id, w.settings.partitions)
        path = f"/table/{segment(name)}/{segment(article_id)}/"
        elsewhere = await owners_answer(w, web, partition, path)
        if elsewhere is not None:
            return elsewhere
        found = w.tables[name].get(article_id)
        answer = {"table": name, "article_id": article_id, "partition": partition}
        if found is None:
            return web.json({**answer, "error": "unknown"}, status=404)
        return web.json({**answer, "value": found})


def segment(text: str) -> str:
    """``text`` as one segment of a proxied path (a ``?``, ``#`` or space in an id stays in
    it rather than ending the path)."""
    return quote(text, safe="")


async def owners_answer(w: Wiring, web: View, partition: int, path: str) -> Response | None:
    """None when this worker serves ``partition`` settled (answer here); else the owner's
    answer to ``path`` (an absolute path, quoted), or 503 while no settled owner answers."""
    if not serving(w):
        return web.json(RECOVERING, status=503)
    if partition in local_partitions(w):
        return None
    owner = owner_url(w, partition)
    if owner in (None, str(w.app.conf.canonical_url)):
        return web.json(RECOVERING, status=503)  # no settled owner known yet
    try:
        async with w.app.http_client.get(f"{owner}{path}") as response:
            return web.json(await response.json(), status=response.status)
    except aiohttp.ClientError:
        return web.json(RECOVERING, status=503)  # the owner is gone: a rebalance follows


def owner_url(w: Wiring, partition: int) -> str | None:
    """The web URL of the worker owning ``partition`` of the status table, if assigned."""
    changelog = w.tables[STATUS_TABLE].changelog_topic.get_topic_name()
    for url, topics in w.app.router.table_metadata(STATUS_TABLE).items():
        if partition in topics.get(changelog, ()):
            return str(url)
    return None

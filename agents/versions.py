"""Versions of one article: ingestion may publish a page again under the same article ID.

The versions' messages race through the flow (hygiene answers many requests at once, and a
slow model answer can finish after a newer version's), so the order in which they arrive
says nothing. Their order is where they entered: the offset of their ``article.ingested``
record (every version of an article is on the same partition), or ingestion's own version
number when it declares one. The candidates stage stamps that on its request and every later
record carries it; the agents that keep per-article state (the hygiene ladder, the enrichment
join) compare it with what they hold and never let an older version overwrite, re-enrich or
settle after a newer one.

A version is the ``ArticleVersion`` Avro record: ``{"ingested_offset": int, "declared": int |
None}``. A declared version ranks above any record without one; records written before
versions were carried have none (``None``) and rank below every versioned record.
"""

from __future__ import annotations

from typing import Any, Literal

Version = dict[str, Any]  # the ArticleVersion record
Order = Literal["older", "same", "newer"]


def version_of(ingested: dict[str, Any], offset: int) -> Version:
    """The version of an ``ArticleIngested`` record found at ``offset`` on its partition."""
    return {"ingested_offset": offset, "declared": ingested.get("version")}


def rank(version: Version | None) -> tuple[int, int, int]:
    """A sort key: declared versions first by number, then position on the input partition."""
    if version is None:
        return (0, 0, -1)
    declared = version.get("declared")
    offset = int(version["ingested_offset"])
    return (0, 0, offset) if declared is None else (1, int(declared), offset)


def compared(incoming: Version | None, held: Version | None) -> Order:
    """Whether ``incoming`` is older than, the same as, or newer than ``held``."""
    a, b = rank(incoming), rank(held)
    return "older" if a < b else "newer" if a > b else "same"


def label(version: Version | None) -> str | None:
    """A short human form for views and logs: ``@<offset>`` or ``v<declared>@<offset>``."""
    if version is None:
        return None
    declared = version.get("declared")
    at = f"@{version['ingested_offset']}"
    return at if declared is None else f"v{declared}{at}"

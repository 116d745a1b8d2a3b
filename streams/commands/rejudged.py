"""Recorded answers judged again with the harness as it is now, and what that would change.

Pure: ``article-runtime replay`` (``article_runtime.streams.commands.replay``) reads the records.
Per article, the ladder of its newest version is run again over the answers ``article.proposal``
recorded, rung after rung, exactly as the assembly agent runs it
(``article_runtime.agents.assembly.outputs``); no model is asked. Where the ladder would now need a
rung no model was asked for (a primary answer that held then and no longer does), the outcome is
``needs_model``: finding out would cost a call. The result is compared with what the topics recorded
for that version: the outcome (assembled or terminal, and why), the path, the accepted repairs and
the Markdown hash.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from article_runtime.agents.assembly import outputs
from article_runtime.agents.versions import label, rank
from article_runtime.streams.kafka.topics import ARTICLE_ASSEMBLED, ARTICLE_COMPENSATION

FIELDS = ("outcome", "path", "repairs", "markdown_hash")
# Terminal events that end an article's hygiene ladder (not an enrichment's).
LADDER_STAGES = frozenset({"candidates", "hygiene", "assembly"})


@dataclass(frozen=True)
class Settled:
    """How a ladder ended: ``assembled`` (with its path, accepted repairs and Markdown hash),
    ``terminal`` (with its reason) or ``needs_model`` (the rung no model was asked for)."""

    outcome: str
    path: str | None = None
    reason: str | None = None
    repairs: tuple[tuple[str, str, str, str], ...] = ()
    markdown_hash: str | None = None

    def shown(self) -> dict[str, Any]:
        found: dict[str, Any] = {"outcome": self.outcome}
        if self.outcome == "assembled":
            found |= {
                "path": self.path,
                "markdown_hash": self.markdown_hash,
                "repairs": [list(r) for r in self.repairs],
            }
        else:
            found["reason"] = self.reason
        return found


def assembled(record: dict[str, Any]) -> Settled:
    applied = record["repairs"]["applied"]
    repairs = tuple(
        (r["target_id"], r["category"], r["original"], r["replacement"]) for r in applied
    )
    return Settled("assembled", record["path"], None, repairs, record["hashes"]["markdown"])


def terminal(event: dict[str, Any]) -> Settled:
    return Settled("terminal", reason=event["reason"])


def ladder_of(proposals: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """An article's proposals of its newest version's latest ladder, by rung number."""
    found = list(proposals)
    if not found:
        return []
    newest = max(found, key=lambda p: (rank(p.get("version")), p.get("redrive") or -1))
    mine = [
        p
        for p in found
        if p.get("version") == newest.get("version") and p.get("redrive") == newest.get("redrive")
    ]
    by_number: dict[int, dict[str, Any]] = {}
    for proposal in mine:
        by_number.setdefault(int(proposal["attempt"]), proposal)  # repeats carry one answer
    return [by_number[n] for n in sorted(by_number)]


def replayed(ladder: Sequence[dict[str, Any]]) -> Settled | None:
    """The ladder run again over its recorded answers (None: no proposal)."""
    if not ladder:
        return None
    has_models = any(p["rung"] != "deterministic" for p in ladder)
    recorded = {int(p["attempt"]): p for p in ladder}
    proposal = ladder[0]
    while True:
        emits = outputs(proposal, has_models=has_models)
        for emit in emits:
            if emit.topic is ARTICLE_ASSEMBLED:
                return assembled(emit.record)
            if emit.topic is ARTICLE_COMPENSATION and emit.record["kind"] == "terminal":
                return terminal(emit.record)
        event = emits[-1].record  # a fallback event asking for the next model rung
        following = recorded.get(int(event["attempts_so_far"]) + 1)
        if following is None or following["rung"] != event["next_attempt"]:
            return Settled("needs_model", reason=event["next_attempt"])
        proposal = following


def recorded_outcome(
    version: dict[str, Any] | None,
    records: Iterable[tuple[str, dict[str, Any]]],
) -> Settled | None:
    """What the topics recorded last for ``version``: its assembled article or the terminal
    event that ended its ladder (``records``: (topic, record) of one article, any order)."""
    last: tuple[Any, Settled] | None = None
    for topic, record in records:
        if record.get("version") != version:
            continue
        if topic == ARTICLE_ASSEMBLED.name:
            at, settled = record["assembled_at"], assembled(record)
        elif (
            topic == ARTICLE_COMPENSATION.name
            and record["kind"] == "terminal"
            and record["stage"] in LADDER_STAGES
        ):
            at, settled = record["occurred_at"], terminal(record)
        else:
            continue
        if last is None or at >= last[0]:
            last = (at, settled)
    return None if last is None else last[1]


def changes(recorded: Settled, now: Settled) -> list[str]:
    """Which of ``FIELDS`` differ between what was recorded and what the harness says now."""
    found = []
    if (recorded.outcome, recorded.reason) != (now.outcome, now.reason):
        found.append("outcome")
    if recorded.path != now.path:
        found.append("path")
    if recorded.repairs != now.repairs:
        found.append("repairs")
    if recorded.markdown_hash != now.markdown_hash:
        found.append("markdown_hash")
    return found


def line(
    article_id: str, ladder: Sequence[dict[str, Any]], recorded: Settled | None
) -> dict[str, Any]:
    """The JSON line of one article."""
    now = replayed(ladder)
    found: dict[str, Any] = {
        "article_id": article_id,
        "version": label(ladder[0].get("version")) if ladder else None,
        "rungs": [p["rung"] for p in ladder],
        "models": sorted({a["model"] for p in ladder for a in p["attempts"] if a.get("model")}),
        "recorded": None if recorded is None else recorded.shown(),
        "replayed": None if now is None else now.shown(),
    }
    if recorded is not None and now is not None:
        found["changes"] = changes(recorded, now)
    return found


def summary(lines: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The last line: how many articles, how many would change, and in what."""
    compared = [one for one in lines if "changes" in one]
    by_field = {f: sum(f in one["changes"] for one in compared) for f in FIELDS}
    return {
        "summary": {
            "articles": len(lines),
            "compared": len(compared),
            "unchanged": sum(not one["changes"] for one in compared),
            "changed": sum(bool(one["changes"]) for one in compared),
            "changes": by_field,
            "needs_model": sum(
                (one["replayed"] or {}).get("outcome") == "needs_model" for one in lines
            ),
            "not_recorded": sum(one["recorded"] is None for one in lines),
            "model_calls": 0,
        }
    }

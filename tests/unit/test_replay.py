"""``article-runtime replay`` without a broker: recorded answers judged again.

The records are what the hygiene and assembly stages produce (``LadderStages``, through the
Avro contracts); the replay must find nothing changed while the harness is the one that
judged them, report exactly what a harness change alters, and never ask a model.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable
from typing import Any

import pytest

from article_runtime.agents.hygiene import Answer
from article_runtime.agents.ladder import Rung
from article_runtime.harness.pipeline import HarnessResult, run_hygiene_harness
from article_runtime.model import AttemptRecord, CandidateSet
from article_runtime.streams.commands.rejudged import (
    ladder_of,
    line,
    recorded_outcome,
    replayed,
    summary,
)
from article_runtime.streams.kafka.topics import ARTICLE_PROPOSAL
from tests.support.stream_cases import NOT_JSON, CaseArticle, make_articles
from tests.unit.ladder_stages import LadderStages
from tests.unit.stream_helpers import AT, on_wire

CASES = make_articles(8, seed=41)  # primary, fallback, deterministic, enrich_terminal, ...
HYGIENE = "article_content_hygiene"


def scripted(case: CaseArticle) -> Callable[..., Any]:
    """The case's models, as the scripted provider of the stream tests answers them."""

    async def ask(candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        holds = case.scenario in ("primary", "enrich_terminal") or (
            rung == "runtime_fallback" and case.scenario == "fallback"
        )
        valid = case.answers.hygiene_primary if rung == "runtime_primary" else None
        text = (
            json.dumps(valid or case.answers.hygiene_fallback)
            if holds
            else json.dumps(case.answers.hygiene_invented_block)
            if rung == "runtime_primary"
            else NOT_JSON
        )
        role: Any = rung
        call = AttemptRecord(call=HYGIENE, role=role, outcome="ok", model=f"model-{rung}")
        return Answer(text, [call], None)

    return ask


def ingested(case: CaseArticle) -> dict[str, Any]:
    record = {"article_id": case.article_id, "url": case.url, "html": case.html,
              "received_at": AT, "content_type": None, "feed": None}  # fmt: skip
    return on_wire("ArticleIngested", record)


@functools.cache
def recorded_run_cache() -> list[tuple[CaseArticle, list[tuple[Any, dict[str, Any]]]]]:
    """Every case through the two stages: what the topics would hold."""
    runs = []
    for n, case in enumerate(CASES):
        stages = LadderStages(scripted(case), has_models=True)
        at = ("article.ingested", 0, 100 + n)
        work = stages.hygiene.on_ingested(ingested(case), at)
        runs.append((case, asyncio.run(stages.settle(work))))
    return runs


def replay_lines() -> list[dict[str, Any]]:
    lines = []
    for case, out in recorded_run_cache():
        proposals = [r for t, r in out if t is ARTICLE_PROPOSAL]
        ladder = ladder_of(proposals)
        recorded = recorded_outcome(ladder[0]["version"], [(t.name, r) for t, r in out])
        lines.append(line(case.article_id, ladder, recorded))
    return lines


def test_with_the_harness_that_judged_them_nothing_would_change() -> None:
    lines = replay_lines()
    assert [one["changes"] for one in lines] == [[]] * len(CASES)
    paths = [one["replayed"]["path"] for one in lines]
    path_of = {"enrich_terminal": "primary"}
    assert paths == [path_of.get(c.scenario, c.scenario) for c in CASES]
    fell = next(one for one in lines if one["replayed"]["path"] == "fallback")
    assert fell["rungs"] == ["runtime_primary", "runtime_fallback"]
    assert fell["models"] == ["model-runtime_fallback", "model-runtime_primary"]
    total = summary(lines)["summary"]
    assert (total["articles"], total["compared"], total["unchanged"], total["changed"]) == (
        len(CASES), len(CASES), len(CASES), 0)  # fmt: skip
    assert total["model_calls"] == 0


def test_a_harness_change_is_reported_article_by_article(monkeypatch: pytest.MonkeyPatch) -> None:
    recorded_run_cache()  # the records, made with today's harness
    real = run_hygiene_harness

    def without_last_block(candidates: CandidateSet, proposal: str, **kwargs: Any) -> HarnessResult:
        """A new rule: the last block an answer keeps is dropped (say, a trailing credit)."""
        try:
            answer = json.loads(proposal)
        except ValueError:
            return real(candidates, proposal, **kwargs)
        kept = answer.get("kept_block_ids") or []
        return real(candidates, json.dumps({**answer, "kept_block_ids": kept[:-1]}), **kwargs)

    monkeypatch.setattr("article_runtime.agents.assembly.run_hygiene_harness", without_last_block)
    lines = replay_lines()
    # What the rule changes, scenario by scenario: a valid answer loses its last block (other
    # Markdown); the primary's answer that named an invented block last now holds, so those
    # articles would take the primary path with the primary's selection (its last paragraph
    # out: other Markdown), and its debris repair where the deterministic path had none.
    want = {
        "primary": (["markdown_hash"], "primary"),
        "enrich_terminal": (["markdown_hash"], "primary"),
        "fallback": (["path", "markdown_hash"], "primary"),
        "deterministic": (["path", "repairs", "markdown_hash"], "primary"),
    }
    for case, one in zip(CASES, lines, strict=True):
        assert case.answers.hygiene_invented_block["kept_block_ids"][-1] not in {
            b.id for b in case.answers.candidates.blocks
        }
        assert (one["changes"], one["replayed"]["path"]) == want[case.scenario], one
    total = summary(lines)["summary"]
    assert (total["changed"], total["unchanged"], total["needs_model"]) == (len(CASES), 0, 0)
    assert total["changes"] == {
        "outcome": 0,
        "path": sum(c.scenario in ("fallback", "deterministic") for c in CASES),
        "repairs": sum(c.scenario == "deterministic" for c in CASES),
        "markdown_hash": len(CASES),
    }


def test_an_answer_that_no_longer_holds_needs_the_rung_no_model_was_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    runs = recorded_run_cache()
    monkeypatch.setattr("article_runtime.agents.assembly.run_hygiene_harness", refusing_everything)
    case, out = next((c, o) for c, o in runs if c.scenario == "primary")
    ladder = ladder_of([r for t, r in out if t is ARTICLE_PROPOSAL])
    now = replayed(ladder)
    assert now is not None and (now.outcome, now.reason) == ("needs_model", "runtime_fallback")
    recorded = recorded_outcome(ladder[0]["version"], [(t.name, r) for t, r in out])
    one = line(case.article_id, ladder, recorded)
    assert {"outcome", "path", "markdown_hash"} <= set(one["changes"])


def refusing_everything(candidates: CandidateSet, proposal: str, **kwargs: Any) -> HarnessResult:
    """A harness that holds no model answer (every one fails its first step)."""
    return run_hygiene_harness(candidates, "not json", **kwargs)


def test_the_ladder_replayed_is_the_newest_versions_and_a_repeat_counts_once() -> None:
    _, out = recorded_run_cache()[1]  # a fallback case: two proposals
    proposals = [r for t, r in out if t is ARTICLE_PROPOSAL]
    older = [{**p, "version": {"ingested_offset": 1, "declared": None}} for p in proposals]
    assert ladder_of([*older, *proposals, *proposals]) == proposals

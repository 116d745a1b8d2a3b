"""Answers the stream recorded become the suite's stored answers, labelled by a person.

The proposal is what the hygiene stage publishes for a case's page ingested under the case's
URL (``article_runtime.agents.hygiene`` over a dict, through the Avro contract): the set it carries
is the one the case builds, so the answer lands on that case, in the form ``make evals-live
RECORD=1`` stores and the offline suite checks (``evals.run.stale_recording`` finds it current).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from article_runtime.agents.hygiene import Answer
from article_runtime.agents.ladder import Rung
from article_runtime.llm.prompts import load_prompt
from article_runtime.model import AttemptRecord, CandidateSet
from article_runtime.streams.kafka.topics import ARTICLE_PROPOSAL
from evals.cases import load_case, page_bytes
from evals.paths import HYGIENE
from evals.run import stale_recording
from evals.tools.recorded import recorded
from tests.unit.ladder_stages import LadderStages
from tests.unit.stream_helpers import AT, on_wire

CASE = "aeb-wsj-gaming"
ANSWER = {"title_candidate_id": "t1", "kept_block_ids": ["b1"], "repairs": []}


def proposed(url: str | None) -> dict[str, Any]:
    """The proposal the stream makes for the case's page ingested under ``url``."""

    async def ask(candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        call = AttemptRecord(call=HYGIENE, role="runtime_primary", outcome="ok", model="gpt-x")
        return Answer(json.dumps(ANSWER), [call], load_prompt(HYGIENE).ref)

    stages = LadderStages(ask, has_models=True)
    record = on_wire("ArticleIngested", {"article_id": "wsj-1", "url": url or "",
                     "html": page_bytes(load_case(HYGIENE, CASE)), "received_at": AT,
                     "content_type": None, "feed": None})  # fmt: skip
    asyncio.run(stages.hygiene.on_ingested(record, ("article.ingested", 0, 5)))
    (proposal,) = [r for t, r in stages.out if t is ARTICLE_PROPOSAL]
    return proposal


def test_a_proposal_for_a_case_page_becomes_that_cases_answer_to_review(tmp_path: Path) -> None:
    url = load_case(HYGIENE, CASE).entry.get("url")
    proposal = proposed(url)
    verdicts = list(recorded([proposal], tmp_path))
    assert verdicts == [{"article_id": "wsj-1", "rung": "runtime_primary", "case": CASE,
                         "model": "gpt-x", "action": "written"}]  # fmt: skip
    stored = json.loads((tmp_path / HYGIENE / f"{CASE}--gpt-x.json").read_text("utf-8"))
    assert (stored["origin"], stored["expect"], stored["answer"]) == (
        "recorded:gpt-x",
        None,
        ANSWER,
    )
    assert stale_recording(HYGIENE, stored) is None  # it answers what the suite sends today
    assert [v["action"] for v in recorded([proposal], tmp_path)] == ["exists"]


def test_what_cannot_become_an_answer_is_said_not_written(tmp_path: Path) -> None:
    proposal = proposed(load_case(HYGIENE, CASE).entry.get("url"))
    other_set = {**proposal, "candidate_set_hash": "0" * 64}
    old_prompt = {**proposal, "prompt": {**proposal["prompt"], "sha256": "1" * 64}}
    no_answer = {**proposal, "answer": None}
    actions = [v["action"] for v in recorded([other_set, old_prompt, no_answer], tmp_path)]
    assert actions == ["no_case", "stale_prompt", "no_answer"]
    assert not (tmp_path / HYGIENE).exists()

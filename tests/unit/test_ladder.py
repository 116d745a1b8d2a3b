"""The hygiene ladder's pure decisions (spec 10): rung order, which version a message belongs
to, what a redelivery or a redrive replays, and the outputs one outcome makes."""

from __future__ import annotations

from typing import Any, cast

import pytest

from agents.ladder import (
    closed,
    ladder_emits,
    last_rung,
    next_rung,
    passage,
    rungs,
    settled,
    upgraded,
)
from article_runtime.harness.pipeline import run_hygiene_harness
from article_runtime.hygiene import HygieneOutcome
from article_runtime.model import AssembledArticle, AttemptRecord
from article_runtime.model.article import Path
from streams.kafka.topics import ARTICLE_ASSEMBLED, ARTICLE_COMPENSATION
from streams.service.compensation import RUNGS
from tests import factories

V1 = {"ingested_offset": 10, "declared": None}
V2 = {"ingested_offset": 11, "declared": None}
ORIGIN = ("article.ingested", 1, 10)


def attempt(role: str, outcome: str = "invalid", reason: str | None = "unknown_block_id") -> Any:
    return AttemptRecord.model_validate(
        {"call": "article_content_hygiene", "role": role, "outcome": outcome, "reason": reason}
    )


def article(path: Path = "primary") -> AssembledArticle:
    result = run_hygiene_harness(
        factories.candidate_set(), factories.proposal(), source_html=b"", path=path, source="a"
    )
    assert result.article is not None
    return result.article


def outcome(
    attempts: list[AttemptRecord], *, assembled: str | None, role: str | None = None
) -> HygieneOutcome:
    made = None if assembled is None else article(cast(Path, assembled))
    reason = None if made is not None else "content_too_short"
    return HygieneOutcome(made, reason, attempts, role, None if role is None else "{}")  # type: ignore[arg-type]


PRIMARY_OK = [attempt("runtime_primary", "ok", None)]
FELL_TWICE = [
    attempt("runtime_primary"),
    attempt("runtime_fallback", "timeout", "timeout"),
    attempt("runtime_fallback", "timeout", "timeout"),
    attempt("deterministic", "ok", None),
]


# -- rung order --------------------------------------------------------------------------------


def test_with_models_every_rung_follows_in_order_and_without_only_the_deterministic() -> None:
    assert rungs(True) == RUNGS
    assert rungs(False) == ("deterministic",)
    assert next_rung("runtime_primary", True) == "runtime_fallback"
    assert next_rung("runtime_fallback", True) == "deterministic"
    assert next_rung("runtime_primary", False) == "deterministic"


@pytest.mark.parametrize("has_models", [True, False])
def test_nothing_comes_after_the_deterministic_rung(has_models: bool) -> None:
    assert next_rung("deterministic", has_models) is None


def test_rungs_are_numbered_from_the_first_and_count_each_rung_reached_once() -> None:
    assert last_rung(outcome(PRIMARY_OK, assembled="primary", role="runtime_primary"),
                     has_models=True, first=1) == 1  # fmt: skip
    assert last_rung(outcome(FELL_TWICE, assembled="deterministic"), has_models=True, first=1) == 3
    assert last_rung(outcome(FELL_TWICE, assembled="deterministic"), has_models=True, first=4) == 6


# -- passage: versions, redeliveries, redrives -------------------------------------------------


def test_an_older_version_is_stale_a_newer_one_runs_and_the_same_one_replays() -> None:
    held = settled(outcome(PRIMARY_OK, assembled="primary", role="runtime_primary"),
                   version=V2, html_hash="h2", last=1)  # fmt: skip
    assert passage(None, V1, "h1") == "run"
    assert passage(held, V1, "h1") == "stale"
    assert passage(held, V2, "h2") == "replay"
    assert passage(held, {"ingested_offset": 12, "declared": None}, "h3") == "run"


def test_a_declared_version_outranks_any_offset_and_unversioned_records_rank_lowest() -> None:
    declared = {"ingested_offset": 3, "declared": 7}
    held = closed(declared, "h", {"reason": "empty_html", "detail": None})
    assert passage(held, {"ingested_offset": 900, "declared": None}, "x") == "stale"
    assert passage(held, {"ingested_offset": 2, "declared": 8}, "x") == "run"
    assert passage(closed(V1, "h", {"reason": "r", "detail": None}), None, "x") == "stale"


def test_a_redrive_reopens_a_terminal_ladder_once_and_replays_its_own_outcome() -> None:
    terminal = settled(outcome(FELL_TWICE[:3], assembled=None), version=V1, html_hash="h", last=3)
    assert passage(terminal, V1, "h", redrive=(40, 4)) == "run"
    assert passage(terminal, V1, "h", redrive=(40, 3)) == "stale"  # numbered inside the ladder
    assert passage(terminal, V2, "h", redrive=(40, 4)) == "run"  # no ladder for it yet
    assert passage(terminal, {"ingested_offset": 9, "declared": None}, "h", redrive=(40, 4)) == (
        "stale"
    )
    after = settled(outcome(PRIMARY_OK, assembled="primary", role="runtime_primary"),
                    version=V1, html_hash="h", last=4, redrive=40)  # fmt: skip
    assert passage(after, V1, "h", redrive=(40, 4)) == "replay"  # the redrive, redelivered
    assert passage(after, V1, "h", redrive=(41, 7)) == "stale"  # assembled: nothing to redo
    assert passage(after, V1, "h") == "replay"  # the ingested record, redelivered


def test_unversioned_records_tell_pages_apart_by_their_html_hash() -> None:
    legacy = upgraded({"awaiting": None, "settled": "assembled:primary:m", "attempts": [],
                       "version": "h1"})  # fmt: skip
    assert legacy is not None and (legacy["version"], legacy["html_hash"]) == (None, "h1")
    assert passage(legacy, None, "h2") == "run"  # another page under the same ID
    assert passage(legacy, None, "h2", redrive=(5, 4)) == "stale"
    assert passage(legacy, V1, "h2") == "run"  # any versioned record is newer


def test_a_state_an_earlier_release_wrote_is_never_replayed_but_a_redrive_reopens_it() -> None:
    awaiting = {"version": V1, "html_hash": "h", "awaiting": "runtime_fallback",
                "settled": None, "attempts": [{"role": "runtime_primary"}]}  # fmt: skip
    ended = {**awaiting, "awaiting": None, "settled": "terminal:timeout", "attempt": 3}
    for old in (awaiting, ended):
        assert passage(old, V1, "h") == "stale"
        assert passage(old, V2, "h") == "run"
    assert passage(awaiting, V1, "h", redrive=(9, 4)) == "stale"
    assert passage(ended, V1, "h", redrive=(9, 4)) == "run"


def test_passage_does_not_change_the_state_it_reads() -> None:
    held = settled(outcome(FELL_TWICE, assembled="deterministic"), version=V1, html_hash="h",
                   last=3)  # fmt: skip
    snapshot = repr(held)
    for version in (None, V1, V2):
        passage(held, version, "h", redrive=(1, 4))
        passage(held, version, "h")
    assert repr(held) == snapshot


# -- outputs -----------------------------------------------------------------------------------


def test_a_primary_answer_is_one_assembled_article_naming_the_pages_hash_and_version() -> None:
    emits = ladder_emits("a", outcome(PRIMARY_OK, assembled="primary", role="runtime_primary"),
                         has_models=True, version=V1, origin=ORIGIN, html_hash="page")  # fmt: skip
    assert [e.topic for e in emits] == [ARTICLE_ASSEMBLED]
    record = emits[0].record
    assert record["hashes"]["source_html"] == "page" and record["version"] == V1


def test_each_model_rung_that_failed_is_one_fallback_event_naming_the_next_rung() -> None:
    emits = ladder_emits("a", outcome(FELL_TWICE, assembled="deterministic"), has_models=True,
                         version=V1, origin=ORIGIN)  # fmt: skip
    assert [e.topic for e in emits] == [
        ARTICLE_COMPENSATION,
        ARTICLE_COMPENSATION,
        ARTICLE_ASSEMBLED,
    ]
    primary, fallback = (e.record for e in emits[:2])
    # An invalid answer was the harness's call; a timeout means the model never answered.
    assert (primary["stage"], primary["reason"], primary["next_attempt"]) == (
        "assembly", "unknown_block_id", "runtime_fallback")  # fmt: skip
    assert (fallback["stage"], fallback["reason"], fallback["next_attempt"]) == (
        "hygiene", "timeout", "deterministic")  # fmt: skip
    assert [e["attempts_so_far"] for e in (primary, fallback)] == [1, 2]
    # Each event carries the attempts so far; the article carries them all.
    assert [len(e["attempts"]) for e in (primary, fallback)] == [1, 3]
    assert {e["kind"] for e in (primary, fallback)} == {"fallback"}
    assert all(e["origin"]["offset"] == 10 and e["version"] == V1 for e in (primary, fallback))


def test_a_ladder_that_ends_without_an_article_ends_in_one_terminal_event() -> None:
    ended = outcome([*FELL_TWICE[:3], attempt("deterministic", "invalid", "content_too_short")],
                    assembled=None)  # fmt: skip
    emits = ladder_emits("a", ended, has_models=True, first=4)
    *fallbacks, terminal = [e.record for e in emits]
    assert [f["attempts_so_far"] for f in fallbacks] == [4, 5]  # a redrive's numbering
    assert (terminal["kind"], terminal["stage"], terminal["reason"]) == (
        "terminal", "assembly", "content_too_short")  # fmt: skip
    assert terminal["attempts_so_far"] == 6 and len(terminal["attempts"]) == 4


def test_without_models_the_deterministic_path_alone_makes_no_fallback_event() -> None:
    alone = outcome([attempt("deterministic", "ok", None)], assembled="deterministic")
    assert [e.topic for e in ladder_emits("a", alone, has_models=False)] == [ARTICLE_ASSEMBLED]


def test_the_settled_state_holds_what_a_replay_needs_and_no_article_text() -> None:
    done = outcome(PRIMARY_OK, assembled="primary", role="runtime_primary")
    state = settled(done, version=V1, html_hash="h", last=1)
    assert done.article is not None
    assert state["settled"] == f"assembled:primary:{done.article.hashes.markdown}"
    assert state["outcome"]["role"] == "runtime_primary" and state["outcome"]["answer"] == "{}"
    assert done.article.markdown not in repr(state)

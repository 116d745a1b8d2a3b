"""The hygiene fallback ladder's pure decisions (spec 10): rung order, redelivery, attempts,
and which version of an article a ladder belongs to."""

from __future__ import annotations

from typing import Any

import pytest

from agents.ladder import (
    RUNGS,
    Rung,
    advanced,
    closed,
    first_rung,
    gate,
    is_redelivery,
    new_state,
    next_rung,
    upgraded,
)

V1 = {"ingested_offset": 10, "declared": None}
V2 = {"ingested_offset": 11, "declared": None}


def attempt(
    role: str, outcome: str = "invalid", reason: str | None = "unknown_block_id"
) -> dict[str, Any]:
    return {"call": "article_content_hygiene", "role": role, "outcome": outcome, "reason": reason}


# -- rung order --------------------------------------------------------------------------------


def test_the_ladder_starts_with_the_primary_model_only_when_models_exist() -> None:
    assert first_rung(True) == "runtime_primary"
    assert first_rung(False) == "deterministic"


def test_with_models_every_rung_follows_in_order() -> None:
    assert next_rung("runtime_primary", True) == "runtime_fallback"
    assert next_rung("runtime_fallback", True) == "deterministic"


def test_without_models_only_the_deterministic_rung_remains() -> None:
    assert next_rung("runtime_primary", False) == "deterministic"
    assert next_rung("runtime_fallback", False) == "deterministic"


@pytest.mark.parametrize("has_models", [True, False])
def test_nothing_comes_after_the_deterministic_rung(has_models: bool) -> None:
    assert next_rung("deterministic", has_models) is None


@pytest.mark.parametrize("has_models", [True, False])
def test_a_ladder_walk_visits_each_rung_once_and_ends(has_models: bool) -> None:
    walked: list[Rung] = []
    rung: Rung | None = first_rung(has_models)
    while rung is not None:
        walked.append(rung)
        rung = next_rung(rung, has_models)
    if has_models:
        assert walked == ["runtime_primary", "runtime_fallback", "deterministic"]
    else:
        assert walked == ["deterministic"]


# -- redelivery --------------------------------------------------------------------------------


def test_a_first_proposal_is_never_a_redelivery() -> None:
    for rung in RUNGS:
        assert not is_redelivery(None, rung)


def test_only_the_awaited_rung_is_judged() -> None:
    state = new_state("runtime_fallback", V1, "h")
    assert state == {
        "version": V1,
        "html_hash": "h",
        "awaiting": "runtime_fallback",
        "settled": None,
        "attempts": [],
    }
    assert not is_redelivery(state, "runtime_fallback")
    assert is_redelivery(state, "runtime_primary")  # already judged: a redelivery
    assert is_redelivery(state, "deterministic")  # not yet asked for


def test_a_settled_article_takes_no_more_proposals() -> None:
    settled: dict[str, Any] = {"awaiting": None, "settled": "assembled:primary:h", "attempts": []}
    terminal: dict[str, Any] = {"awaiting": None, "settled": "terminal:x", "attempts": []}
    for state in (settled, terminal):
        for rung in RUNGS:
            assert is_redelivery(state, rung)


# -- advancing ---------------------------------------------------------------------------------


def test_advanced_names_the_next_rung_and_keeps_the_attempts_while_one_is_awaited() -> None:
    primary = [attempt("runtime_primary")]
    start = new_state("runtime_primary", V1, "h")
    state = advanced(start, "runtime_primary", primary, next_="runtime_fallback", settled=None)
    assert state == {**start, "awaiting": "runtime_fallback", "attempts": primary}


def test_advanced_keeps_each_rungs_attempts_once_then_drops_them_when_settled() -> None:
    primary = [attempt("runtime_primary")]
    fallback = [
        attempt("runtime_fallback", "timeout", "timeout"),
        attempt("runtime_fallback", "timeout", "timeout"),
    ]
    deterministic = [attempt("deterministic", "ok", None)]
    state = new_state("runtime_primary", V1, "h")
    state = advanced(state, "runtime_primary", primary, next_="runtime_fallback", settled=None)
    state = advanced(state, "runtime_fallback", fallback, next_="deterministic", settled=None)
    assert state["attempts"] == [*primary, *fallback]
    state = advanced(
        state, "deterministic", deterministic, next_=None, settled="assembled:deterministic:h"
    )
    # The output carries every attempt; the settled ladder keeps only what it decides on.
    assert state == {
        "version": V1,
        "html_hash": "h",
        "awaiting": None,
        "settled": "assembled:deterministic:h",
        "attempts": [],
    }


def test_settling_clears_the_awaited_rung_even_if_a_next_one_is_named() -> None:
    start = new_state("runtime_primary", V1, "h")
    state = advanced(start, "runtime_primary", [], next_="runtime_fallback", settled="terminal:x")
    assert state["awaiting"] is None
    assert is_redelivery(state, "runtime_fallback")


def test_advanced_does_not_mutate_the_state_it_was_given() -> None:
    primary = [attempt("runtime_primary")]
    start = new_state("runtime_primary", V1, "h")
    before = advanced(start, "runtime_primary", primary, next_="runtime_fallback", settled=None)
    snapshot = {**before, "attempts": list(before["attempts"])}
    advanced(before, "runtime_fallback", [attempt("runtime_fallback")], next_=None, settled="t")
    assert before == snapshot


# -- versions ----------------------------------------------------------------------------------


def test_a_proposal_of_an_older_version_is_stale_and_a_newer_one_starts_afresh() -> None:
    held = new_state("runtime_fallback", V2, "h2")
    assert gate(None, V1, "h1", 1) == "fresh"
    assert gate(held, V1, "h1", 1) == "stale"
    assert gate(held, V1, "h1", 2) == "stale"
    assert gate(held, V2, "h2", 2) == "held"
    assert gate(held, {"ingested_offset": 12, "declared": None}, "h2", 2) == "fresh"


def test_a_declared_version_outranks_any_offset_and_unversioned_records_rank_lowest() -> None:
    declared = {"ingested_offset": 3, "declared": 7}
    held = new_state("runtime_primary", declared, "h")
    assert gate(held, {"ingested_offset": 900, "declared": None}, "x", 1) == "stale"
    assert gate(held, {"ingested_offset": 2, "declared": 8}, "x", 1) == "fresh"
    assert gate(new_state("runtime_primary", V1, "h"), None, "x", 1) == "stale"


def test_unversioned_records_keep_the_pages_html_hash_as_their_version() -> None:
    # Written before versions were carried: another page under the same ID starts afresh at
    # its first rung, and a late rung of the replaced page is dropped.
    legacy = upgraded(
        {"awaiting": None, "settled": "assembled:primary:m", "attempts": [], "version": "h1"}
    )
    assert legacy is not None and (legacy["version"], legacy["html_hash"]) == (None, "h1")
    assert gate(legacy, None, "h1", 1) == "held"
    assert gate(legacy, None, "h2", 1) == "fresh"
    assert gate(legacy, None, "h2", 2) == "stale"
    assert gate(legacy, V1, "h2", 2) == "fresh"  # any versioned record is newer


def test_a_version_closed_before_its_ladder_began_takes_no_proposals() -> None:
    state = closed(V2, "empty_html")
    assert state["settled"] == "terminal:empty_html" and state["version"] == V2
    assert gate(state, V1, "h1", 1) == "stale"
    for rung in RUNGS:
        assert is_redelivery(state, rung)

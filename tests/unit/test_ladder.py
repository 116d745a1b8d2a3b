"""The hygiene fallback ladder's pure decisions (spec 10): rung order, redelivery, attempts."""

from __future__ import annotations

from typing import Any

import pytest

from agents.ladder import RUNGS, Rung, advanced, first_rung, is_redelivery, new_state, next_rung


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
    state = new_state("runtime_fallback")
    assert state == {"awaiting": "runtime_fallback", "settled": None, "attempts": []}
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


def test_advanced_from_nothing_names_the_next_rung_and_keeps_the_attempts() -> None:
    primary = [attempt("runtime_primary")]
    state = advanced(None, "runtime_primary", primary, next_="runtime_fallback", settled=None)
    assert state == {"awaiting": "runtime_fallback", "settled": None, "attempts": primary}


def test_advanced_keeps_each_rungs_attempts_once_in_order() -> None:
    primary = [attempt("runtime_primary")]
    fallback = [
        attempt("runtime_fallback", "timeout", "timeout"),
        attempt("runtime_fallback", "timeout", "timeout"),
    ]
    deterministic = [attempt("deterministic", "ok", None)]
    state = advanced(None, "runtime_primary", primary, next_="runtime_fallback", settled=None)
    state = advanced(state, "runtime_fallback", fallback, next_="deterministic", settled=None)
    state = advanced(
        state, "deterministic", deterministic, next_=None, settled="assembled:deterministic:h"
    )
    assert state == {
        "awaiting": None,
        "settled": "assembled:deterministic:h",
        "attempts": [*primary, *fallback, *deterministic],
    }
    assert len(state["attempts"]) == 4


def test_settling_clears_the_awaited_rung_even_if_a_next_one_is_named() -> None:
    state = advanced(None, "runtime_primary", [], next_="runtime_fallback", settled="terminal:x")
    assert state["awaiting"] is None
    assert is_redelivery(state, "runtime_fallback")


def test_advanced_does_not_mutate_the_state_it_was_given() -> None:
    primary = [attempt("runtime_primary")]
    before = advanced(None, "runtime_primary", primary, next_="runtime_fallback", settled=None)
    snapshot = {**before, "attempts": list(before["attempts"])}
    advanced(before, "runtime_fallback", [attempt("runtime_fallback")], next_=None, settled="t")
    assert before == snapshot

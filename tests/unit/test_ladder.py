"""The hygiene ladder's pure decisions (spec 10) across its two agents: rung order, what an
input that comes again replays (never asking a model twice), which version and ladder a
proposal belongs to, and what the assembly agent makes of each proposal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from article_runtime.agents.assembly import judged, outputs
from article_runtime.agents.ladder import (
    Step,
    closed,
    next_rung,
    passage,
    proposed,
    rungs,
    superseded,
    upgraded,
)
from article_runtime.model import AttemptRecord, CandidateSet
from article_runtime.streams.kafka.topics import ARTICLE_ASSEMBLED, ARTICLE_COMPENSATION
from article_runtime.streams.service.compensation import RUNGS
from article_runtime.streams.service.proposals import (
    Carried,
    CarriedSetError,
    KnownSets,
    proposal_record,
)
from tests import factories

V1 = {"ingested_offset": 10, "declared": None}
V2 = {"ingested_offset": 11, "declared": None}
ORIGIN = ("article.ingested", 1, 10)
HYGIENE = "article_content_hygiene"


def attempt(role: str, outcome: str = "ok", reason: str | None = None) -> AttemptRecord:
    return AttemptRecord.model_validate(
        {"call": HYGIENE, "role": role, "outcome": outcome, "reason": reason, "model": role}
    )


def first(version: Any = V1, html: str = "h", rung: Any = "runtime_primary") -> Step:
    return Step(version, html, rung, 1)


def fallback_step(version: Any = V1, ladder: int | None = None, number: int = 2) -> Step:
    return Step(version, "h", "runtime_fallback", number, ladder=ladder, fresh=False)


def held(step: Step, state: dict[str, Any] | None = None, answer: str | None = "{}") -> Any:
    rung = step.rung
    return proposed(
        state, step, answer=answer, attempts=[attempt(rung)], prompt=None, candidate_set_hash="c"
    )


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


# -- passage: an input that comes again never asks a model twice -------------------------------


def test_a_rung_whose_answer_is_held_replays_and_the_next_rung_runs() -> None:
    state = held(first())
    assert passage(None, first()) == "run"
    assert passage(state, first()) == "replay"  # the page, redelivered: no second call
    assert passage(state, fallback_step()) == "run"  # the fallback rung is not paid yet
    after = held(fallback_step(), state)
    assert passage(after, fallback_step()) == "replay"  # the fallback event, redelivered
    assert passage(after, first()) == "replay"
    assert set(after["proposed"]) == {"runtime_primary", "runtime_fallback"}


def test_an_older_version_is_stale_and_a_newer_one_starts_its_own_ladder() -> None:
    state = held(first(V2))
    assert passage(state, first(V1)) == "stale"
    assert passage(state, fallback_step(V1)) == "stale"
    newer = Step({"ingested_offset": 12, "declared": None}, "h3", "runtime_primary", 1)
    assert passage(state, newer) == "run"
    assert held(newer, state)["proposed"].keys() == {"runtime_primary"}  # nothing of V2 kept


def test_a_declared_version_outranks_any_offset_and_unversioned_records_rank_lowest() -> None:
    declared = {"ingested_offset": 3, "declared": 7}
    shut = closed(declared, "h", {"reason": "empty_html", "detail": None})
    assert passage(shut, first({"ingested_offset": 900, "declared": None})) == "stale"
    assert passage(shut, first({"ingested_offset": 2, "declared": 8})) == "run"
    assert passage(closed(V1, "h", {"reason": "r", "detail": None}), first(None)) == "stale"


def test_an_unusable_page_replays_its_terminal_and_stops_its_ladder() -> None:
    shut = closed(V1, "h", {"reason": "empty_html", "detail": None})
    assert passage(shut, first()) == "replay"
    assert passage(shut, fallback_step()) == "stale"


def test_a_redrive_starts_a_new_ladder_once_and_its_fallback_belongs_to_it() -> None:
    state = held(fallback_step(), held(first()))
    redrive = Step(V1, "h", "runtime_primary", 4, ladder=40)
    assert passage(state, redrive) == "run"
    assert passage(state, Step(V1, "h", "runtime_primary", 2, ladder=40)) == "stale"
    after = held(redrive, state)
    assert after["redrive"] == 40 and after["proposed"].keys() == {"runtime_primary"}
    assert passage(after, redrive) == "replay"  # the redrive, redelivered
    assert passage(after, fallback_step(ladder=40, number=5)) == "run"
    assert passage(after, fallback_step()) == "stale"  # the first pass's fallback is over
    assert passage(after, first()) == "stale"  # the page, redelivered: the redrive supersedes
    assert passage(after, Step(V1, "h", "runtime_primary", 4, ladder=41)) == "stale"


def test_unversioned_records_tell_pages_apart_by_their_html_hash() -> None:
    legacy = upgraded({"awaiting": None, "settled": "assembled:primary:m", "attempts": [],
                       "version": "h1"})  # fmt: skip
    assert legacy is not None and (legacy["version"], legacy["html_hash"]) == (None, "h1")
    assert passage(legacy, first(None, "h2")) == "run"  # another page under the same ID
    assert passage(legacy, Step(None, "h2", "runtime_primary", 4, ladder=5)) == "stale"
    assert passage(legacy, first(V1, "h2")) == "run"  # any versioned record is newer


def test_a_state_an_earlier_release_wrote_is_never_replayed_but_a_redrive_reopens_it() -> None:
    one_stage = {"version": V1, "html_hash": "h", "settled": "terminal:timeout", "attempt": 3,
                 "redrive": None, "outcome": {"role": None, "answer": None}}  # fmt: skip
    awaiting = {"version": V1, "html_hash": "h", "awaiting": "runtime_fallback",
                "settled": None, "attempts": [{"role": "runtime_primary"}]}  # fmt: skip
    for old in (one_stage, awaiting):
        assert passage(old, first()) == "stale"
        assert passage(old, fallback_step()) == "stale"
        assert passage(old, first(V2)) == "run"
    assert passage(one_stage, Step(V1, "h", "runtime_primary", 4, ladder=9)) == "run"
    assert passage(one_stage, Step(V1, "h", "runtime_primary", 3, ladder=9)) == "stale"


def test_passage_and_proposed_do_not_change_the_state_they_read() -> None:
    state = held(first())
    snapshot = repr(state)
    for version in (None, V1, V2):
        passage(state, first(version))
        passage(state, fallback_step(version))
        held(fallback_step(version), state)
    assert repr(state) == snapshot


# -- superseded: the assembly agent keeps the newest version -----------------------------------


def record(step: Step, rung: Any = None, *, redrive: int | None = None) -> dict[str, Any]:
    return {"version": step.version, "html_hash": step.html_hash, "redrive": redrive,
            "rung": rung or step.rung}  # fmt: skip


def test_a_proposal_is_judged_unless_the_hygiene_agent_moved_past_its_ladder() -> None:
    state = held(first(V1))
    assert not superseded(None, record(first(V1)))
    assert not superseded(state, record(first(V1)))
    assert not superseded(state, record(first(V2)))  # newer than anything held: judge it
    assert superseded(held(first(V2)), record(first(V1)))
    assert superseded(held(first(V1, "other")), record(first(V1)))
    assert superseded(closed(V2, "h", {"reason": "r", "detail": None}), record(first(V1)))
    assert superseded(closed(V1, "h", {"reason": "r", "detail": None}), record(first(V1)))
    redriven = held(Step(V1, "h", "runtime_primary", 4, ladder=7), state)
    assert superseded(redriven, record(first(V1)))
    assert not superseded(redriven, record(first(V1), redrive=7))


# -- what the assembly agent makes of a proposal -----------------------------------------------


def proposal(
    rung: Any,
    answer: str | None,
    attempts: list[AttemptRecord],
    *,
    number: int = 1,
    candidates: CandidateSet | None = None,
) -> dict[str, Any]:
    carried = Carried.of(candidates or factories.candidate_set())
    return proposal_record(
        "a", version=V1, rung=rung, attempt=number, answer=answer, prompt=None,
        attempts=attempts, carried=carried, html_hash="page", origin=ORIGIN, redrive=None,
    )  # fmt: skip


VALID = json.dumps(factories.proposal())
INVALID = json.dumps(factories.proposal(kept_block_ids=["b2", "b99"]))


def test_an_answer_that_holds_is_one_assembled_article_naming_the_pages_hash_and_version() -> None:
    emits = outputs(proposal("runtime_primary", VALID, [attempt("runtime_primary")]),
                    has_models=True)  # fmt: skip
    assert [e.topic for e in emits] == [ARTICLE_ASSEMBLED]
    made = emits[0].record
    assert (made["path"], made["hashes"]["source_html"], made["version"]) == ("primary", "page", V1)
    assert [a["outcome"] for a in made["attempts"]] == ["ok"]


def test_an_invalid_primary_answer_is_one_fallback_event_carrying_the_set_for_the_next_rung() -> (
    None
):
    sent = proposal("runtime_primary", INVALID, [attempt("runtime_primary")])
    (emit,) = outputs(sent, has_models=True)
    event = emit.record
    assert emit.topic is ARTICLE_COMPENSATION
    assert (event["kind"], event["stage"], event["next_attempt"]) == (
        "fallback", "assembly", "runtime_fallback")  # fmt: skip
    assert event["reason"] == "unknown_block_id" and event["attempts_so_far"] == 1
    assert [(a["outcome"], a["reason"]) for a in event["attempts"]] == [
        ("invalid", "unknown_block_id")
    ]
    retry = event["retry"]
    assert retry["candidate_set_zlib"] == sent["candidate_set_zlib"]
    assert retry["candidate_set_hash"] == sent["candidate_set_hash"]
    assert event["origin"]["offset"] == 10 and event["version"] == V1


def test_a_rung_that_gave_no_answer_falls_back_as_the_models_failure_not_the_harness() -> None:
    timed_out = [attempt("runtime_primary", "timeout", "timeout")] * 2
    (emit,) = outputs(proposal("runtime_primary", None, timed_out), has_models=True)
    assert (emit.record["stage"], emit.record["reason"]) == ("hygiene", "timeout")


def test_after_the_last_model_rung_the_deterministic_path_runs_in_the_same_step() -> None:
    tried = [attempt("runtime_primary", "invalid", "unknown_block_id"), attempt("runtime_fallback")]
    emits = outputs(proposal("runtime_fallback", INVALID, tried, number=2), has_models=True)
    assert [e.topic for e in emits] == [ARTICLE_COMPENSATION, ARTICLE_ASSEMBLED]
    event, made = (e.record for e in emits)
    assert (event["next_attempt"], event["retry"], event["attempts_so_far"]) == (
        "deterministic", None, 2)  # fmt: skip
    assert made["path"] == "deterministic"
    assert [a["role"] for a in made["attempts"]] == [
        "runtime_primary",
        "runtime_fallback",
        "deterministic",
    ]


def test_without_models_a_deterministic_proposal_is_the_deterministic_path_alone() -> None:
    emits = outputs(proposal("deterministic", None, []), has_models=False)
    assert [e.topic for e in emits] == [ARTICLE_ASSEMBLED]
    assert emits[0].record["path"] == "deterministic"


def test_a_ladder_where_nothing_holds_ends_in_one_terminal_event() -> None:
    empty = factories.candidate_set(blocks=[])
    tried = [attempt("runtime_primary", "invalid", "x"), attempt("runtime_fallback")]
    sent = proposal("runtime_fallback", INVALID, tried, number=5, candidates=empty)
    *_, terminal = (e.record for e in judged(sent, empty, has_models=True))
    assert (terminal["kind"], terminal["stage"]) == ("terminal", "assembly")
    assert terminal["attempts_so_far"] == 6 and terminal["attempts"][-1]["role"] == "deterministic"


def test_a_carried_set_that_is_not_the_one_named_ends_terminal_instead_of_being_judged() -> None:
    sent = proposal("runtime_primary", VALID, [attempt("runtime_primary")])
    other = Carried.of(factories.candidate_set(blocks=[]))
    (emit,) = outputs({**sent, "candidate_set_zlib": other.zlib}, has_models=True)
    assert (emit.record["kind"], emit.record["reason"]) == (
        "terminal", "candidate_set_hash_mismatch")  # fmt: skip
    (emit,) = outputs({**sent, "candidate_set_zlib": b"not zlib"}, has_models=True)
    assert emit.record["reason"] == "candidate_set_corrupt"


# -- the sets a worker knows -------------------------------------------------------------------


def test_a_known_set_is_found_by_the_hash_of_its_json_and_the_oldest_go_first() -> None:
    sets = [factories.candidate_set(), factories.candidate_set(blocks=[]), newsletter()]
    sizes = [len(s.model_dump_json().encode("utf-8")) for s in sets]
    known = KnownSets(max_bytes=sizes[1] + sizes[2])  # room for the last two
    carried = [Carried.of(s, known) for s in sets]
    assert known.get(carried[0].sha256) is None  # the oldest went
    assert known.held_bytes == sizes[1] + sizes[2]
    assert known.get(carried[2].sha256) is sets[2]
    # Found by hash, the set is not inflated again: what it carries is not read.
    unreadable = Carried(b"not zlib", carried[2].sha256)
    assert unreadable.candidates(known) is sets[2]
    with pytest.raises(CarriedSetError):
        unreadable.candidates()
    # Read once, a carried set is known afterwards.
    fresh = KnownSets()
    assert carried[0].candidates(fresh) == sets[0] and fresh.get(carried[0].sha256) == sets[0]


def newsletter() -> CandidateSet:
    blocks = [b for b in factories.candidate_set().blocks if b.id == "b6"]
    return factories.candidate_set(blocks=blocks, links=[], images=[])

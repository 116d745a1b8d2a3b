"""Redrive without a broker: what the command selects, and what the agents make of a redrive.

A redrive is a fallback event on the compensation topic (``streams.redrive``); these tests
drive the stage functions the agents run with it, through the Avro contract, and check that
a redrive runs again what ended terminal, once, with the hashes of a first run, and that
nothing else (a redelivery, an older version, a success) is run again.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.assembly import assembly_step
from agents.compensation import compensation_step
from agents.ladder import advanced, new_state
from streams.compensation import compensation_event, retry_context
from streams.redrive import (
    REASON,
    Found,
    Selection,
    moment,
    redrive_event,
    selected,
    still_terminal,
)
from streams.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_ENRICHED,
    HYGIENE_REQUEST,
)
from tests.support.stream_cases import CaseArticle, make_articles
from tests.unit.stream_helpers import on_wire, only
from tests.unit.test_stream_stages import (
    ENTITY_A,
    ORIGIN,
    VERSION,
    Join,
    model_proposal,
    request_for,
)

ENTITY = {"qid": ENTITY_A.qid, "name": ENTITY_A.name, "identity": None}
NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def case() -> CaseArticle:
    (first,) = make_articles(1)  # scenario "primary": its answers are usable
    return first


def terminal(
    article_id: str,
    *,
    stage: str = "assembly",
    reason: str = "no_title_candidate",
    attempts_so_far: int = 3,
    version: dict[str, Any] | None = VERSION,
    entity: dict[str, Any] | None = None,
    at: datetime = NOW,
) -> dict[str, Any]:
    event = compensation_event(
        article_id,
        stage=stage,  # type: ignore[arg-type]
        kind="terminal",
        reason=reason,
        attempts_so_far=attempts_so_far,
        origin=ORIGIN,
        occurred_at=at,
        entity=entity,
        version=version,
    )
    return on_wire(ARTICLE_COMPENSATION.schema, event)


def terminal_ladder(request: dict[str, Any], attempt: int | None = 3) -> dict[str, Any]:
    """The ladder of ``request``'s version once its last rung ended terminal."""
    state = new_state("deterministic", request["version"], request["html_hash"])
    ended = advanced(state, "deterministic", [], next_=None, settled="terminal:x", attempt=attempt)
    if attempt is None:  # as a release before redrive wrote it
        assert "attempt" not in ended
    return ended


def redriven_request(case: CaseArticle, request: dict[str, Any]) -> dict[str, Any]:
    """The hygiene request the compensation agent makes of a redrive of ``case``'s terminal."""
    found = Found(terminal(case.article_id), partition=1, offset=99)
    event = on_wire(ARTICLE_COMPENSATION.schema, redrive_event(found, retry=retry_context(request)))
    assert (event["kind"], event["reason"], event["next_attempt"]) == (
        "fallback",
        REASON,
        "runtime_primary",
    )
    assert event["origin"] == {"topic": ARTICLE_COMPENSATION.name, "partition": 1, "offset": 99}
    return only(compensation_step(event), HYGIENE_REQUEST)


def test_a_hygiene_redrive_reopens_a_terminal_ladder_and_assembles_as_a_first_run(
    case: CaseArticle,
) -> None:
    request = request_for(case)
    answer = json.dumps(case.answers.hygiene_valid)
    first_run, _ = assembly_step(
        model_proposal(request, "runtime_primary", raw_answer=answer), None, has_models=True
    )

    again = redriven_request(case, request)
    assert again["version"] == request["version"] == VERSION  # the same version, not a new one
    assert (again["role"], again["attempt"]) == ("runtime_primary", 4)
    assert again["candidate_set_hash"] == request["candidate_set_hash"]
    proposal = model_proposal(again, "runtime_primary", raw_answer=answer)
    emits, state = assembly_step(proposal, terminal_ladder(request), has_models=True)

    article = only(emits, ARTICLE_ASSEMBLED)
    expected = only(first_run, ARTICLE_ASSEMBLED)
    assert article["hashes"] == expected["hashes"]
    assert article["markdown"] == expected["markdown"]
    assert article["version"] == VERSION
    assert state is not None and state["settled"].startswith("assembled:")
    assert state["attempt"] == 4
    # The redrive's proposal redelivered after it settled: nothing more.
    assert assembly_step(proposal, state, has_models=True) == ([], None)


@pytest.mark.parametrize("stored_attempt", [3, None])
def test_a_redelivered_proposal_of_the_first_pass_does_not_reopen_the_ladder(
    case: CaseArticle, stored_attempt: int | None
) -> None:
    request = request_for(case)
    ladder = terminal_ladder(request, stored_attempt)
    for attempt in (1, 2, 3):
        late = {**request, "attempt": attempt}
        proposal = model_proposal(late, "runtime_primary", raw_answer=None, failure="timeout")
        assert assembly_step(proposal, ladder, has_models=True) == ([], None)
    # while a redrive, numbered after a whole ladder, does (states without the number too)
    redrive = model_proposal(redriven_request(case, request), "runtime_primary", raw_answer=None)
    emits, _ = assembly_step(redrive, ladder, has_models=True)
    assert only(emits, ARTICLE_COMPENSATION)["kind"] == "fallback"


def test_a_redrive_of_an_older_version_changes_nothing(case: CaseArticle) -> None:
    request = request_for(case)
    newer = request_for(case, offset=int(VERSION["ingested_offset"] or 0) + 5)
    answer = json.dumps(case.answers.hygiene_valid)
    proposal = model_proposal(redriven_request(case, request), "runtime_primary", raw_answer=answer)
    assert assembly_step(proposal, terminal_ladder(newer), has_models=True) == ([], None)


def test_two_redrives_of_one_terminal_run_the_ladder_once(case: CaseArticle) -> None:
    request = request_for(case)
    first = model_proposal(redriven_request(case, request), "runtime_primary", raw_answer=None)
    emits, state = assembly_step(first, terminal_ladder(request), has_models=True)
    assert only(emits, ARTICLE_COMPENSATION)["next_attempt"] == "runtime_fallback"
    second = model_proposal(redriven_request(case, request), "runtime_primary", raw_answer=None)
    assert assembly_step(second, state, has_models=True) == ([], None)


def test_an_enrichment_redrive_is_not_a_hygiene_request(case: CaseArticle) -> None:
    found = Found(terminal(case.article_id, stage="enrichment", entity=ENTITY), 1, 7)
    event = on_wire(ARTICLE_COMPENSATION.schema, redrive_event(found))
    assert event["entity"] == ENTITY and event["version"] == VERSION
    assert compensation_step(event) == []


def test_a_hygiene_redrive_without_its_candidates_is_refused(case: CaseArticle) -> None:
    with pytest.raises(ValueError, match="candidate set"):
        redrive_event(Found(terminal(case.article_id), 1, 7))


# -- enrichment ---------------------------------------------------------------------------------


def enrichment_redrive(case: CaseArticle, version: dict[str, Any] = VERSION) -> dict[str, Any]:
    found = Found(terminal(case.article_id, stage="enrichment", entity=ENTITY), 1, 7)
    return on_wire(ARTICLE_COMPENSATION.schema, redrive_event(found) | {"version": version})


def test_an_enrichment_redrive_replaces_the_stored_failure_once(case: CaseArticle) -> None:
    healthy = Join(case)
    healthy.article()
    first_run = only(healthy.verdict(), ARTICLE_ENRICHED)

    join = Join(case, failing=True)
    join.article()
    failure = only(join.verdict(), ARTICLE_COMPENSATION)
    assert failure["kind"] == "terminal"
    join._failing = False  # the provider is back

    redrive = enrichment_redrive(case)
    enriched = only(join.deliver(ARTICLE_COMPENSATION.name, redrive, (1, 500)), ARTICLE_ENRICHED)
    assert enriched["content_hash"] == first_run["content_hash"]
    assert enriched["entity"] == first_run["entity"]
    assert len(join.enriched) == 2  # the failed call, then the redrive's

    # Redelivered: the same output again, no new call.
    again = join.deliver(ARTICLE_COMPENSATION.name, redrive, (1, 500))
    assert only(again, ARTICLE_ENRICHED) == enriched
    # A later redrive of the same (old) terminal: the entity has its result, nothing more.
    assert join.deliver(ARTICLE_COMPENSATION.name, redrive, (1, 501)) == []
    # A verdict redelivered replays the result, not the failure.
    assert only(join.verdict(), ARTICLE_ENRICHED)["content_hash"] == enriched["content_hash"]
    assert len(join.enriched) == 2


def test_an_enrichment_redrive_of_another_version_or_unknown_article_does_nothing(
    case: CaseArticle,
) -> None:
    join = Join(case, failing=True)
    older = {**VERSION, "ingested_offset": int(VERSION["ingested_offset"] or 0) - 1}
    assert join.deliver(ARTICLE_COMPENSATION.name, enrichment_redrive(case), (1, 3)) == []
    join.article()
    join.verdict()
    join._failing = False
    redrive = enrichment_redrive(case, older)
    assert join.deliver(ARTICLE_COMPENSATION.name, redrive, (1, 500)) == []
    assert len(join.enriched) == 1


# -- selection ----------------------------------------------------------------------------------


def test_only_events_no_later_attempt_followed_are_selected() -> None:
    a = Found(terminal("a"), 0, 1)
    b = Found(terminal("b", at=NOW - timedelta(hours=3)), 0, 2)
    b_redriven = Found(on_wire(ARTICLE_COMPENSATION.schema, redrive_event(b, retry=RETRY)), 0, 3)
    c_enrichment = Found(terminal("c", stage="enrichment", entity=ENTITY), 0, 4)
    d_then_fallback = Found(terminal("d", reason="timeout"), 0, 5)
    d_later = Found({**terminal("d"), "kind": "fallback", "next_attempt": "deterministic"}, 0, 6)
    events = [a, b, b_redriven, c_enrichment, d_then_fallback, d_later]

    assert {f.event["article_id"] for f in still_terminal(events)} == {"a", "c"}
    assert selected(events, Selection("hygiene")) == [a]
    assert selected(events, Selection("enrichment")) == [c_enrichment]
    assert selected(events, Selection("hygiene", reason="timeout")) == []
    assert selected(events, Selection("hygiene", article_id="zz")) == []
    assert selected(events, Selection("hygiene", since=NOW + timedelta(seconds=1))) == []
    assert selected(events, Selection("hygiene", until=NOW - timedelta(seconds=1))) == []
    assert selected([b], Selection("hygiene", until=NOW - timedelta(hours=1))) == [b]
    # candidates-stage terminals (an unusable page) are not the model ladder's
    unusable = Found(terminal("e", stage="candidates", reason="empty_html"), 0, 7)
    assert selected([unusable], Selection("hygiene")) == []


RETRY = {
    "url": "https://x.test/",
    "candidate_set_json": "{}",
    "candidate_set_hash": "0" * 64,
    "html_hash": "1" * 64,
}


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from("smhdSMHD"))
def test_a_duration_is_that_long_before_now(n: int, unit: str) -> None:
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}[unit.lower()]
    try:
        want = NOW - timedelta(seconds=n * seconds)
    except OverflowError:
        with pytest.raises(ValueError, match="year 1"):
            moment(f"{n}{unit}", NOW)
        return
    assert moment(f"{n}{unit}", NOW) == want


@given(st.datetimes(timezones=st.sampled_from([UTC, None])))
def test_an_iso_time_reads_back_as_written_and_is_never_naive(at: datetime) -> None:
    read = moment(at.isoformat(), NOW)
    assert read.tzinfo is not None
    assert read == (at if at.tzinfo else at.replace(tzinfo=UTC))


@given(st.text(max_size=30))
def test_any_other_text_is_a_clear_error(text: str) -> None:
    try:
        moment(text, NOW)
    except ValueError as exc:
        assert "ISO 8601" in str(exc) or "year 1" in str(exc)

"""Redrive without a broker: what the command selects, and what the agents make of a redrive.

A redrive is a fallback event on the compensation topic
(``article_runtime.streams.service.redrive``); these tests drive the stages' logic with it (the
hygiene ladder, the enrichment join), through the Avro contract, and check that a redrive runs again
what ended terminal, once, with the hashes of a first run, and that nothing else (a redelivery, an
older version, a success) is run again.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from article_runtime.agents.candidates import retry_context
from article_runtime.agents.hygiene import Answer, Ask
from article_runtime.agents.ladder import Rung
from article_runtime.candidates import build_candidates
from article_runtime.model import CandidateSet
from article_runtime.streams.kafka.topics import ARTICLE_COMPENSATION, ARTICLE_ENRICHED
from article_runtime.streams.service.compensation import compensation_event
from article_runtime.streams.service.redrive import (
    REASON,
    Found,
    Selection,
    is_hygiene_redrive,
    matching,
    moment,
    redrive_event,
    selected,
    still_terminal,
)
from tests.support.stream_cases import CaseArticle, make_articles
from tests.unit.stream_helpers import CODEC, on_wire, only
from tests.unit.test_stream_stages import (
    ENTITY_A,
    INGESTED_AT,
    VERSION,
    Hygiene,
    Join,
    answered,
    ingested,
    newsletter_only,
    settled_records,
    timed_out,
)

ORIGIN = INGESTED_AT

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
    attempts: list[dict[str, Any]] | None = None,
    wire: bool = True,
) -> dict[str, Any]:
    """A terminal event, as read from the topic (``wire``: through the Avro contract); by
    default one whose models were down (both timed out)."""
    if attempts is None:
        attempts = [attempt("runtime_primary", "timeout"), attempt("runtime_fallback", "timeout")]
    event = compensation_event(
        article_id,
        stage=stage,  # type: ignore[arg-type]
        kind="terminal",
        reason=reason,
        attempts_so_far=attempts_so_far,
        attempts=attempts,
        origin=ORIGIN,
        occurred_at=at,
        entity=entity,
        version=version,
    )
    return on_wire(ARTICLE_COMPENSATION.schema, event) if wire else event


def attempt(role: str, outcome: str, model: str | None = None) -> dict[str, Any]:
    call = "article_content_hygiene"
    model = model or f"{role}-model"
    return {"call": call, "role": role, "model": model, "outcome": outcome, "reason": outcome}


def counted(ask: Ask) -> tuple[Ask, list[Rung]]:
    """``ask`` recording each model rung it asks (each one paid for)."""
    calls: list[Rung] = []

    async def counting(candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        calls.append(rung)
        return await ask(candidates, rung, source)

    return counting, calls


async def down(candidates: CandidateSet, rung: Rung, source: str) -> Answer:
    """The provider is down: no answer, after a timeout."""
    return Answer(None, [timed_out(rung)], None)


def back(case: CaseArticle) -> Ask:
    """The provider is back: the primary answers the case's valid proposal."""

    async def ask(candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        return Answer(json.dumps(case.answers.hygiene_primary), [answered()], None)

    return ask


def redrive_of(
    case: CaseArticle,
    last: dict[str, Any],
    offset: int = 99,
    candidates: CandidateSet | None = None,
) -> dict[str, Any]:
    """The redrive the command publishes for the terminal event ``last`` of ``case`` (its
    candidate set rebuilt from the page, unless given)."""
    found = Found(last, partition=1, offset=offset)
    built = candidates or build_candidates(case.html, url=case.url)
    retry = retry_context(ingested(case), built)
    event = on_wire(ARTICLE_COMPENSATION.schema, redrive_event(found, retry=retry))
    assert (event["kind"], event["reason"], event["next_attempt"]) == (
        "fallback",
        REASON,
        "runtime_primary",
    )
    assert event["origin"] == {"topic": ARTICLE_COMPENSATION.name, "partition": 1, "offset": offset}
    assert is_hygiene_redrive(event)
    return event


def ended_terminal(case: CaseArticle) -> tuple[Hygiene, dict[str, Any], list[Rung]]:
    """Stages whose models were down and whose page held too little for the deterministic
    path: the case's ladder ended terminal."""
    ask, calls = counted(down)
    stage = Hygiene(has_models=True, ask=ask, build=newsletter_only)
    *_, (_, last) = stage.ingest(ingested(case))
    assert (last["kind"], last["attempts_so_far"], last["version"]) == ("terminal", 3, VERSION)
    assert calls == ["runtime_primary", "runtime_fallback"]
    return stage, last, calls


def test_a_hygiene_redrive_runs_the_ladder_again_and_assembles_as_a_first_run(
    case: CaseArticle,
) -> None:
    first_run = Hygiene(has_models=True, ask=back(case)).ingest(ingested(case))
    stage, last, _ = ended_terminal(case)
    stage._ask = back(case)  # the provider is back

    event = redrive_of(case, last)
    assert event["version"] == VERSION  # the same version, not a new one
    assert event["attempts_so_far"] == 3  # its rungs are numbered after a whole ladder
    out = stage.redrive(event, 500)

    (_, article), (_, expected) = out[-1], first_run[-1]
    assert article["hashes"] == expected["hashes"]
    assert article["markdown"] == expected["markdown"]
    assert article["version"] == VERSION
    state = stage.table[case.article_id]
    assert (state["redrive"], state["attempt"]) == (500, 4)
    assert stage.rungs_asked[-1:] == ["runtime_primary"] and len(stage.rungs_asked) == 3
    # The redrive redelivered after it settled: its outputs again, no second call.
    assert settled_records(stage.redrive(event, 500)) == settled_records(out)
    assert len(stage.rungs_asked) == 3


def test_a_redelivered_input_of_the_first_pass_does_not_reopen_the_ladder(
    case: CaseArticle,
) -> None:
    stage, _, calls = ended_terminal(case)
    again = stage.ingest(ingested(case))
    assert [r["kind"] for _, r in again if "kind" in r][-1] == "terminal"  # produced again
    assert calls == ["runtime_primary", "runtime_fallback"]  # nobody asked again


def test_a_redrive_of_an_older_version_changes_nothing(case: CaseArticle) -> None:
    stage, last, _ = ended_terminal(case)
    newer = ("article.ingested", 1, int(VERSION["ingested_offset"] or 0) + 5)
    stage._ask = back(case)
    stage.ingest(ingested(case), newer)
    assert stage.redrive(redrive_of(case, last), 500) == []
    assert stage.table[case.article_id]["version"]["ingested_offset"] == newer[2]


def test_two_redrives_of_one_terminal_run_the_ladder_once(case: CaseArticle) -> None:
    stage, last, calls = ended_terminal(case)
    thin = newsletter_only({}, ORIGIN)  # still too little for the deterministic path
    first = stage.redrive(redrive_of(case, last, candidates=thin), 500)  # models still down
    events = [r for _, r in first if "kind" in r]
    assert [r["attempts_so_far"] for r in events] == [4, 5, 6]
    assert stage.redrive(redrive_of(case, last, offset=100), 501) == []
    assert len(calls) == 4  # the first pass's two rungs, the first redrive's two
    # A redrive of the terminal that redrive ended with is numbered after it, and runs.
    again = events[-1]
    out = stage.redrive(redrive_of(case, again, offset=101, candidates=thin), 502)
    assert [r["attempts_so_far"] for _, r in out if "kind" in r] == [7, 8, 9]
    assert len(calls) == 6


def test_only_an_operators_redrive_of_a_hygiene_terminal_is_acted_on(case: CaseArticle) -> None:
    found = Found(terminal(case.article_id, stage="enrichment", entity=ENTITY), 1, 7)
    event = on_wire(ARTICLE_COMPENSATION.schema, redrive_event(found))
    assert event["entity"] == ENTITY and event["version"] == VERSION
    assert not is_hygiene_redrive(event)
    # The fallback events the ladder writes record decisions already carried out.
    fallback = compensation_event(
        case.article_id,
        stage="assembly",
        kind="fallback",
        reason="unknown_block_id",
        next_attempt="runtime_fallback",
    )
    assert not is_hygiene_redrive(on_wire(ARTICLE_COMPENSATION.schema, fallback))
    retried = {**on_wire(ARTICLE_COMPENSATION.schema, fallback), "reason": REASON}
    assert not is_hygiene_redrive(retried)  # no candidate set: nothing to judge


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


# What the issue names as an outage's failures (timeouts, connection errors, 429, 5xx), written
# here apart from the runtime's own set; every other outcome the contract knows (and one it
# does not know yet) is an answer, but for a refused request (client_error), which is neither.
OUTAGE = ("timeout", "connection_error", "rate_limited", "server_error")


def _field(record: Any, name: str) -> Any:
    return next(f["type"] for f in record["fields"] if f["name"] == name)


_ATTEMPT = _field(CODEC.schema("CompensationEvent"), "attempts")["items"]
CONTRACT_OUTCOMES = tuple(_field(_ATTEMPT, "outcome")["symbols"])
OUTCOMES = (*CONTRACT_OUTCOMES, "output_truncated")
ROLES = ("runtime_primary", "runtime_fallback", "deterministic")


@given(
    st.lists(st.tuples(st.sampled_from(ROLES), st.sampled_from(OUTCOMES)), max_size=6),
    st.sampled_from(("content_too_short", "primary_and_fallback_failed", "no_provider")),
    st.booleans(),
)
def test_by_default_only_outage_terminals_are_redriven_and_an_answering_model_never(
    tried: list[tuple[str, str]], reason: str, named: bool
) -> None:
    attempts = [attempt(role, outcome) for role, outcome in tried]
    known = all(outcome in CONTRACT_OUTCOMES for _, outcome in tried)
    event = Found(terminal("a", reason=reason, attempts=attempts, wire=known), 0, 1)
    models = [outcome for role, outcome in tried if role != "deterministic"]
    a_model_answered = any(o not in (*OUTAGE, "client_error") for o in models)
    an_outage = reason == "no_provider" or (bool(models) and all(o in OUTAGE for o in models))
    selection = Selection("hygiene", reason=reason if named else None)
    ((found, why),) = matching([event], selection)
    assert found is event
    if a_model_answered:
        assert why is not None and why.startswith("answered:")
    elif an_outage or named:
        assert why is None
    else:
        assert why is not None and why.startswith("not_an_outage:")
    assert selected([event], selection) == ([] if why else [event])


def test_a_deterministic_failure_is_redriven_only_when_named() -> None:
    no_models = Found(terminal("a", reason="content_too_short", attempts=[]), 0, 1)
    assert selected([no_models], Selection("hygiene")) == []
    assert selected([no_models], Selection("hygiene", reason="content_too_short")) == [no_models]
    invalid = [attempt("runtime_primary", "invalid", "m1"), attempt("runtime_fallback", "timeout")]
    asked = Found(terminal("b", reason="content_too_short", attempts=invalid), 0, 2)
    ((_, why),) = matching([asked], Selection("hygiene", reason="content_too_short"))
    assert why is not None and "m1 (invalid)" in why


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

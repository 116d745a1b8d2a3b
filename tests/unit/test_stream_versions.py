"""Versions of one article (a page published again under its ID): the newest one wins.

Ingestion may publish v1 and v2 of a page back to back; their messages race (hygiene answers
many requests at once, and v1's model answer may be the slower one). The stages that keep
per-article state, the assembly ladder and the enrichment join, must never let an older
version overwrite, re-enrich or settle after a newer one, whatever order messages arrive in.
The last test drives every stage through arbitrary interleavings and redeliveries.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agents.candidates
from agents.assembly import assembly_step, unusable_page_step
from agents.candidates import candidates_step
from agents.compensation import compensation_step
from agents.ecp_standin import standin_verdict
from agents.enrichment import EnrichmentJoin, stored_result
from agents.hygiene import hygiene_step, proposal
from agents.ladder import new_state
from agents.versions import Version, compared, rank
from article_runtime.enrichment.model import Entity
from article_runtime.model import AssembledArticle
from streams.compensation import compensation_event
from streams.reader import RecordUnavailable
from streams.records import assembled_article
from streams.settings import StandInEntity
from streams.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_ENRICHED,
    ARTICLE_INGESTED,
    ECP_VERDICT,
    HYGIENE_PROPOSAL,
    HYGIENE_REQUEST,
)
from streams.wiring import Emit
from tests.support.stream_cases import CaseArticle, make_articles
from tests.unit.stream_helpers import AT, enriched_for, on_wire, only, wire, wired

ARTICLE_ID = "versioned-0001"
ENTITY = StandInEntity("Q42", "Prefeitura")
PAGES = make_articles(3, seed=31)  # three different pages, published as versions of one ID


def v(offset: int, declared: int | None = None) -> Version:
    return {"ingested_offset": offset, "declared": declared}


def ingested(
    page: CaseArticle, *, html: bytes | None = None, declared: int | None = None
) -> dict[str, Any]:
    record = {
        "article_id": ARTICLE_ID,
        "url": page.url,
        "html": page.html if html is None else html,
        "received_at": AT,
        "content_type": "text/html; charset=utf-8",
        "feed": None,
        "version": declared,
    }
    return on_wire(ARTICLE_INGESTED.schema, record)


_REQUESTS: dict[tuple[int, int, int | None], Emit] = {}


def first_emit(page: CaseArticle, offset: int, declared: int | None = None) -> Emit:
    """What the candidates stage makes of ``page`` found at ``offset`` (cached: it parses)."""
    key = (PAGES.index(page), offset, declared)
    if key not in _REQUESTS:
        record = ingested(page, declared=declared)
        _REQUESTS[key] = candidates_step(
            record, has_models=True, at=("article.ingested", 0, offset)
        )
    return copy.deepcopy(_REQUESTS[key])


def request(page: CaseArticle, offset: int, declared: int | None = None) -> dict[str, Any]:
    return only([first_emit(page, offset, declared)], HYGIENE_REQUEST)


def answered(request: dict[str, Any], page: CaseArticle, *, valid: bool = True) -> dict[str, Any]:
    """The hygiene agent's proposal for ``request``: the page's valid answer or one inventing
    a block."""
    answer = page.answers.hygiene_valid if valid else page.answers.hygiene_invented_block
    return wire(proposal(request, raw_answer=json.dumps(answer)))


def markdown_of(page: CaseArticle) -> str:
    return page.answers.article.markdown


# -- the candidates stage stamps the version -----------------------------------------------------


def test_the_version_is_the_ingested_offset_or_the_declared_number() -> None:
    page = PAGES[0]
    assert request(page, 40)["version"] == v(40)
    assert request(page, 40, declared=7)["version"] == v(40, 7)
    assert candidates_step(ingested(page), has_models=True).record["version"] is None
    unusable = candidates_step(
        ingested(page, html=b""), has_models=True, at=("article.ingested", 0, 41)
    )
    event = only([unusable], ARTICLE_COMPENSATION)
    assert (event["reason"], event["version"]) == ("empty_html", v(41))


def test_versions_rank_by_declared_number_then_offset_and_unversioned_lowest() -> None:
    ordered = [None, v(0), v(5), v(900), v(3, 1), v(4, 1), v(2, 2)]
    assert sorted(ordered, key=rank) == ordered
    assert compared(v(5), v(5)) == "same"
    assert compared(v(5), v(900)) == "older"
    assert compared(v(1, 3), v(900)) == "newer"


def test_a_candidate_set_too_big_for_the_hygiene_topics_ends_at_the_candidates_stage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    page = PAGES[0]
    size = len(request(page, 1)["candidate_set_json"].encode("utf-8"))
    monkeypatch.setattr(agents.candidates, "MAX_CANDIDATE_SET_BYTES", size - 1)
    emit = candidates_step(ingested(page), has_models=True, at=("article.ingested", 0, 2))
    event = only([emit], ARTICLE_COMPENSATION)
    assert (event["stage"], event["kind"], event["reason"]) == (
        "candidates",
        "terminal",
        "candidate_set_too_large",
    )
    assert event["detail"] is not None and event["detail"].startswith(f"{size} bytes > {size - 1}")
    assert event["version"] == v(2)
    monkeypatch.setattr(agents.candidates, "MAX_CANDIDATE_SET_BYTES", size)
    assert only([candidates_step(ingested(page), has_models=True)], HYGIENE_REQUEST)


# -- assembly: the ladder holds one version ------------------------------------------------------


@pytest.mark.parametrize("slow", ["v1", "v2"])
def test_the_newest_version_is_the_one_assembled_last_whichever_answer_is_slower(
    slow: str,
) -> None:
    old, new = PAGES[0], PAGES[1]
    first = answered(request(old, 10), old)
    second = answered(request(new, 11), new)
    arrivals = [second, first] if slow == "v1" else [first, second]

    state = None
    assembled = []
    for record in arrivals:
        emits, changed = assembly_step(record, state, has_models=True)
        state = changed or state
        assembled += [wire(e) for e in emits]

    assert assembled[-1]["markdown"] == markdown_of(new)
    assert assembled[-1]["version"] == v(11)
    assert [a["version"] for a in assembled] == ([v(11)] if slow == "v1" else [v(10), v(11)])
    assert state is not None and state["version"] == v(11)


def test_an_older_versions_remaining_rungs_stop_once_a_newer_version_is_judged() -> None:
    old, new = PAGES[0], PAGES[1]
    emits, state = assembly_step(
        answered(request(old, 10), old, valid=False), None, has_models=True
    )
    fallback = only(emits, ARTICLE_COMPENSATION)
    assert (fallback["kind"], fallback["version"]) == ("fallback", v(10))
    (next_request,) = wired(compensation_step(fallback))
    assert (next_request["role"], next_request["version"]) == ("runtime_fallback", v(10))

    emits, state = assembly_step(answered(request(new, 11), new), state, has_models=True)
    assert only(emits, ARTICLE_ASSEMBLED)["markdown"] == markdown_of(new)

    late = answered(next_request, old)  # v1's fallback answers after v2 settled
    assert assembly_step(late, state, has_models=True) == ([], None)


def test_a_newer_version_whose_page_is_unusable_closes_the_older_ladder() -> None:
    old = PAGES[0]
    state = new_state("runtime_primary", v(10), request(old, 10)["html_hash"])
    emit = candidates_step(ingested(old, html=b""), has_models=True, at=("article.ingested", 0, 11))
    unusable = only([emit], ARTICLE_COMPENSATION)

    closed = unusable_page_step(unusable, state)
    assert closed is not None
    assert (closed["version"], closed["settled"]) == (v(11), "terminal:empty_html")
    assert assembly_step(answered(request(old, 10), old), closed, has_models=True) == ([], None)
    # Only a newer version's terminal at the candidates stage says anything to the ladder.
    assert unusable_page_step(unusable, closed) is None
    assert unusable_page_step({**unusable, "version": v(9)}, state) is None
    assert unusable_page_step({**unusable, "version": None}, state) is None
    assert unusable_page_step({**unusable, "stage": "assembly"}, state) is None


# -- enrichment: the join holds one version ------------------------------------------------------


@dataclass
class Join:
    """The join over dicts: the table, and ``article.assembled`` to read articles back from."""

    table: dict[str, Any] = field(default_factory=dict)
    topic: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    enriched: list[str] = field(default_factory=list)  # markdown hash per enrich call

    def __post_init__(self) -> None:
        self.join = EnrichmentJoin(self.table, self._enrich, self._confirm, self._read)

    async def _enrich(self, article: AssembledArticle, entity: Entity) -> dict[str, Any]:
        self.enriched.append(article.hashes.markdown)
        page = next(p for p in PAGES if p.answers.article.markdown == article.markdown)
        return stored_result(enriched_for(article, entity, page.answers.enrichment_valid))

    async def _confirm(self, key: str) -> None:
        assert key == ARTICLE_ID

    async def _read(self, ref: dict[str, Any]) -> AssembledArticle:
        record = self.topic.get((ref["partition"], ref["offset"]))
        if record is None:
            raise RecordUnavailable("record_expired", "gone")
        return assembled_article(record)

    def deliver(
        self, topic: str, record: dict[str, Any], at: tuple[int, int] = (0, 0)
    ) -> list[Emit]:
        if topic == ARTICLE_ASSEMBLED.name:
            self.topic[at] = record
        return asyncio.run(self.join.on_message(topic, record, at))


def assembled(page: CaseArticle, offset: int) -> dict[str, Any]:
    emits, _ = assembly_step(answered(request(page, offset), page), None, has_models=True)
    return only(emits, ARTICLE_ASSEMBLED)


def verdict(record: dict[str, Any]) -> dict[str, Any]:
    return wire(standin_verdict(record, ENTITY))


def test_an_older_assembled_version_after_a_newer_one_is_not_enriched() -> None:
    join = Join()
    old, new = assembled(PAGES[0], 10), assembled(PAGES[1], 11)
    assert join.deliver(ARTICLE_ASSEMBLED.name, new, (0, 501)) == []
    assert join.deliver(ARTICLE_ASSEMBLED.name, old, (0, 502)) == []  # older: dropped
    out = only(join.deliver(ECP_VERDICT.name, verdict(new)), ARTICLE_ENRICHED)
    assert (out["article_hash"], out["version"]) == (new["hashes"]["markdown"], v(11))
    assert join.deliver(ECP_VERDICT.name, verdict(old)) == []  # a verdict on the old version
    assert join.enriched == [new["hashes"]["markdown"]]
    assert join.table[ARTICLE_ID]["article"]["offset"] == 501


def test_a_newer_version_is_enriched_afresh_and_the_older_one_never_again() -> None:
    join = Join()
    old, new = assembled(PAGES[0], 10), assembled(PAGES[1], 11)
    join.deliver(ARTICLE_ASSEMBLED.name, old, (0, 501))
    assert only(join.deliver(ECP_VERDICT.name, verdict(old)), ARTICLE_ENRICHED)["version"] == v(10)
    join.deliver(ARTICLE_ASSEMBLED.name, new, (0, 502))
    out = only(join.deliver(ECP_VERDICT.name, verdict(new)), ARTICLE_ENRICHED)
    assert (out["article_hash"], out["version"]) == (new["hashes"]["markdown"], v(11))
    # Late and redelivered messages of the old version change nothing.
    assert join.deliver(ECP_VERDICT.name, verdict(old)) == []
    assert join.deliver(ARTICLE_ASSEMBLED.name, old, (0, 501)) == []
    assert join.enriched == [old["hashes"]["markdown"], new["hashes"]["markdown"]]
    results = join.table[ARTICLE_ID]["results"]
    assert list(results) == [f"Q42@{new['hashes']['markdown']}"]  # the old result is gone


def test_a_verdict_on_the_next_version_waits_while_an_older_one_is_held() -> None:
    join = Join()
    old, new = assembled(PAGES[0], 10), assembled(PAGES[1], 11)
    join.deliver(ARTICLE_ASSEMBLED.name, old, (0, 501))
    assert join.deliver(ECP_VERDICT.name, verdict(new)) == []  # its article is not here yet
    out = only(join.deliver(ARTICLE_ASSEMBLED.name, new, (0, 502)), ARTICLE_ENRICHED)
    assert out["article_hash"] == new["hashes"]["markdown"]
    assert join.enriched == [new["hashes"]["markdown"]]


def test_a_newer_version_that_ended_in_hygiene_closes_the_join_for_older_ones() -> None:
    join = Join()
    old = assembled(PAGES[0], 10)
    join.deliver(ARTICLE_ASSEMBLED.name, old, (0, 501))
    ended = compensation_event(
        ARTICLE_ID, stage="assembly", kind="terminal", reason="no_body_blocks", version=v(11)
    )
    assert join.deliver(ARTICLE_COMPENSATION.name, on_wire("CompensationEvent", ended)) == []
    assert join.deliver(ECP_VERDICT.name, verdict(old)) == []  # v1's verdict came late
    assert join.deliver(ARTICLE_ASSEMBLED.name, old, (0, 501)) == []  # and so did a redelivery
    assert join.enriched == []
    assert join.table[ARTICLE_ID]["version"] == v(11)
    # Fallbacks, enrichment's own events and events without a version say nothing.
    state = copy.deepcopy(join.table)
    for other in (
        {**ended, "kind": "fallback", "next_attempt": "deterministic", "version": v(12)},
        {**ended, "stage": "enrichment", "version": v(12)},
        {**ended, "version": None},
    ):
        join.deliver(ARTICLE_COMPENSATION.name, other)
    assert join.table == state


def test_a_join_state_written_before_versions_were_carried_still_joins() -> None:
    page = PAGES[0]
    article = page.answers.article.model_copy(update={"source": ARTICLE_ID})
    record = assembled(page, 10)
    legacy = {
        "article": article.model_dump(mode="json"),
        "verdicts": {},
        "results": {},
    }
    join = Join(table={ARTICLE_ID: legacy})  # nothing on the topic: the article is inline
    out = only(join.deliver(ECP_VERDICT.name, verdict(record)), ARTICLE_ENRICHED)
    assert out["article_hash"] == article.hashes.markdown
    state = join.table[ARTICLE_ID]
    assert state["version"] is None and "inline" in state["article"]
    # The first versioned article replaces it, and the article text leaves the table.
    join.deliver(ARTICLE_ASSEMBLED.name, assembled(PAGES[1], 11), (0, 7))
    assert "inline" not in join.table[ARTICLE_ID]["article"]


# -- any interleaving ------------------------------------------------------------------------


SCENARIOS = ("primary", "fallback", "deterministic", "unusable")


@dataclass
class Flow:
    """Every stage of the flow for one article's versions, topics as lists, tables as dicts.

    Each stage reads its topics in order (Kafka keeps a partition's order); hygiene answers
    its requests in any order (many calls in flight); any input may be delivered again.
    ``outputs`` logs (stage, record) for every assembled, enriched or compensation record.
    """

    versions: list[tuple[CaseArticle, str, int, int | None]]  # page, scenario, offset, declared
    topics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    read: dict[str, int] = field(default_factory=dict)  # "<stage>/<topic>" -> next position
    asked: list[int] = field(default_factory=list)  # requests hygiene has not answered yet
    ladder: dict[str, Any] = field(default_factory=dict)
    outputs: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    seen: dict[str, Version | None] = field(default_factory=dict)  # newest input per stage

    def __post_init__(self) -> None:
        self.join = Join()
        for topic in (HYGIENE_REQUEST, HYGIENE_PROPOSAL, ARTICLE_ASSEMBLED, ECP_VERDICT):
            self.topics[topic.name] = []
        for topic in (ARTICLE_ENRICHED, ARTICLE_COMPENSATION):
            self.topics[topic.name] = []
        self.topics[ARTICLE_INGESTED.name] = [{"index": i} for i in range(len(self.versions))]

    # -- plumbing

    def next(self, stage: str, topic: str) -> dict[str, Any] | None:
        position = self.read.get(f"{stage}/{topic}", 0)
        pending = self.topics[topic][position:]
        return pending[0] if pending else None

    def take(self, stage: str, topic: str) -> dict[str, Any]:
        record = self.next(stage, topic)
        assert record is not None
        self.read[f"{stage}/{topic}"] = self.read.get(f"{stage}/{topic}", 0) + 1
        return record

    def publish(self, stage: str, emits: list[Emit]) -> None:
        for emit in emits:
            record = wire(emit)
            if emit.topic in (ARTICLE_ASSEMBLED, ARTICLE_ENRICHED, ARTICLE_COMPENSATION):
                self.outputs.append((stage, record))
                self.check_not_older(stage, record)
            if emit.topic == HYGIENE_REQUEST:
                self.asked.append(len(self.topics[emit.topic.name]))
            self.topics[emit.topic.name].append(record)

    def saw(self, stage: str, version: Version | None) -> None:
        if version is not None and compared(version, self.seen.get(stage)) == "newer":
            self.seen[stage] = version

    def check_not_older(self, stage: str, record: dict[str, Any]) -> None:
        """No output for an older version after the stage has seen a newer one's input."""
        newest = self.seen.get(stage)
        assert compared(record["version"], newest) != "older", (stage, record, newest)

    # -- the stages

    def actions(self) -> dict[str, Callable[[st.DataObject], None]]:
        found: dict[str, Callable[[st.DataObject], None]] = {}
        if self.next("candidates", ARTICLE_INGESTED.name):
            found["candidates"] = lambda _: self.candidates()
        if self.asked:
            found["hygiene"] = self.hygiene
        if self.next("assembly", HYGIENE_PROPOSAL.name):
            found["assembly"] = lambda _: self.assembly(
                self.take("assembly", HYGIENE_PROPOSAL.name)
            )
        if self.next("assembly", ARTICLE_COMPENSATION.name):
            found["assembly_watch"] = lambda _: self.assembly_watch()
        if self.next("compensation", ARTICLE_COMPENSATION.name):
            found["compensation"] = lambda _: self.compensation()
        if self.next("ecp", ARTICLE_ASSEMBLED.name):
            found["ecp"] = lambda _: self.ecp()
        for topic in (ARTICLE_ASSEMBLED, ECP_VERDICT, ARTICLE_COMPENSATION):
            if self.next("enrichment", topic.name):
                found[f"enrichment:{topic.name}"] = self.enrichment_of(topic.name)
        return found

    def redeliveries(self) -> dict[str, Callable[[st.DataObject], None]]:
        found: dict[str, Callable[[st.DataObject], None]] = {}
        if self.read.get(f"assembly/{HYGIENE_PROPOSAL.name}"):
            found["assembly_again"] = self.assembly_again
        if self.topics[HYGIENE_REQUEST.name]:
            found["hygiene_again"] = self.hygiene_again
        if self.read.get(f"enrichment/{ARTICLE_ASSEMBLED.name}") or self.read.get(
            f"enrichment/{ECP_VERDICT.name}"
        ):
            found["enrichment_again"] = self.enrichment_again
        return found

    def candidates(self) -> None:
        index = self.take("candidates", ARTICLE_INGESTED.name)["index"]
        page, scenario, offset, declared = self.versions[index]
        if scenario == "unusable":
            record = ingested(page, html=b"", declared=declared)
            emit = candidates_step(record, has_models=True, at=("article.ingested", 0, offset))
        else:
            emit = first_emit(page, offset, declared)
        self.publish("candidates", [emit])

    def answer(self, request: dict[str, Any]) -> Emit:
        page, scenario, _, _ = next(
            entry
            for entry in self.versions
            if entry[0].answers.candidates.model_dump_json() == request["candidate_set_json"]
        )
        rung = request["role"]
        if rung == "deterministic":
            return asyncio.run(hygiene_step(request, None))
        valid = scenario == "primary" or (scenario == "fallback" and rung == "runtime_fallback")
        answer = page.answers.hygiene_valid if valid else page.answers.hygiene_invented_block
        return proposal(request, raw_answer=json.dumps(answer))

    def hygiene(self, data: st.DataObject) -> None:
        position = self.asked.pop(data.draw(st.integers(0, len(self.asked) - 1)))
        self.publish("hygiene", [self.answer(self.topics[HYGIENE_REQUEST.name][position])])

    def hygiene_again(self, data: st.DataObject) -> None:
        requests = self.topics[HYGIENE_REQUEST.name]
        self.publish("hygiene", [self.answer(data.draw(st.sampled_from(requests)))])

    def assembly(self, record: dict[str, Any]) -> None:
        self.saw("assembly", record["version"])
        emits, state = assembly_step(record, self.ladder.get(ARTICLE_ID), has_models=True)
        self.publish("assembly", emits)
        if state is not None:
            self.ladder[ARTICLE_ID] = state

    def assembly_again(self, data: st.DataObject) -> None:
        done = self.topics[HYGIENE_PROPOSAL.name][: self.read[f"assembly/{HYGIENE_PROPOSAL.name}"]]
        self.assembly(data.draw(st.sampled_from(done)))

    def assembly_watch(self) -> None:
        event = self.take("assembly", ARTICLE_COMPENSATION.name)
        state = unusable_page_step(event, self.ladder.get(ARTICLE_ID))
        if state is not None:
            self.saw("assembly", event["version"])
            self.ladder[ARTICLE_ID] = state

    def compensation(self) -> None:
        self.publish(
            "compensation", compensation_step(self.take("compensation", ARTICLE_COMPENSATION.name))
        )

    def ecp(self) -> None:
        self.publish("ecp", [standin_verdict(self.take("ecp", ARTICLE_ASSEMBLED.name), ENTITY)])

    def enrichment_of(self, topic: str) -> Callable[[st.DataObject], None]:
        def deliver(_: st.DataObject) -> None:
            position = self.read.get(f"enrichment/{topic}", 0)
            self.enrichment(topic, self.take("enrichment", topic), position)

        return deliver

    def enrichment(self, topic: str, record: dict[str, Any], position: int) -> None:
        ends_hygiene = topic == ARTICLE_COMPENSATION.name and record["kind"] == "terminal"
        if topic == ARTICLE_ASSEMBLED.name or (
            ends_hygiene and record["stage"] not in ("enrichment", "decode")
        ):
            self.saw("enrichment", record["version"])
        self.publish("enrichment", self.join.deliver(topic, record, (0, position)))

    def enrichment_again(self, data: st.DataObject) -> None:
        topic = data.draw(st.sampled_from([ARTICLE_ASSEMBLED.name, ECP_VERDICT.name]))
        done = self.read.get(f"enrichment/{topic}", 0)
        if done:
            position = data.draw(st.integers(0, done - 1))
            self.enrichment(topic, self.topics[topic][position], position)


@st.composite
def versions(draw: st.DrawFn) -> list[tuple[CaseArticle, str, int, int | None]]:
    count = draw(st.integers(2, 3))
    scenarios = draw(st.lists(st.sampled_from(SCENARIOS), min_size=count, max_size=count))
    offsets = sorted(
        draw(st.lists(st.integers(0, 10_000), min_size=count, max_size=count, unique=True))
    )
    declared: list[int | None] = [None] * count
    if draw(st.booleans()):  # ingestion declares versions, maybe not in publishing order
        declared = list(draw(st.permutations(list(range(1, count + 1)))))
    return [(PAGES[i], scenarios[i], offsets[i], declared[i]) for i in range(count)]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(chosen=versions(), data=st.data())
def test_in_any_interleaving_the_newest_version_settles_and_nothing_older_follows_it(
    chosen: list[tuple[CaseArticle, str, int, int | None]], data: st.DataObject
) -> None:
    flow = Flow(chosen)
    redeliveries = data.draw(st.integers(0, 4))
    for _ in range(200):
        actions = flow.actions()
        if redeliveries:
            actions |= flow.redeliveries()
        if not actions:
            break
        name = data.draw(st.sampled_from(sorted(actions)))
        redeliveries -= name.endswith("_again")
        actions[name](data)  # every output is checked against what its stage has seen
    assert not flow.actions(), "the flow did not settle"

    newest = max((v(offset, declared) for _, _, offset, declared in chosen), key=rank)
    page, scenario = next((p, s) for p, s, o, d in chosen if v(o, d) == newest)
    assert flow.ladder[ARTICLE_ID]["version"] == newest
    assert flow.join.table[ARTICLE_ID]["version"] == newest
    outcomes = [
        (stage, r)
        for stage, r in flow.outputs
        if "markdown" in r or "sentiment" in r or r.get("kind") == "terminal"
    ]
    if scenario == "unusable":
        assert newest in [r["version"] for _, r in outcomes if r.get("reason") == "empty_html"]
        assert not [r for _, r in outcomes if r["version"] == newest and "markdown" in r]
    else:
        last_assembled = [r for s, r in outcomes if s == "assembly"][-1]
        last_enriched = [r for s, r in outcomes if s == "enrichment"][-1]
        assert last_assembled["version"] == last_enriched["version"] == newest
        assert last_assembled["markdown"] == markdown_of(page)
        assert last_enriched["article_hash"] == last_assembled["hashes"]["markdown"]

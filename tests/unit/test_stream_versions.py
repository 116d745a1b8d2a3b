"""Versions of one article (a page published again under its ID): the newest one wins.

Ingestion may publish v1 and v2 of a page back to back; the hygiene stage runs both at once
(many model calls in flight), and v1's answer may be the slower one. The stages that keep
per-article state, the hygiene ladder and the enrichment join, must never let an older version
overwrite, re-enrich or settle after a newer one, whatever order answers and messages come in.
The last test drives both stages through arbitrary interleavings and redeliveries.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from article_runtime.agents.candidates import candidates_of
from article_runtime.agents.ecp_standin import standin_verdict
from article_runtime.agents.enrichment import EnrichmentJoin, concerns_join, stored_result
from article_runtime.agents.hygiene import Answer, is_next_model_rung
from article_runtime.agents.ladder import Rung
from article_runtime.agents.versions import Version, compared, rank
from article_runtime.enrichment.model import Entity
from article_runtime.model import AssembledArticle, AttemptRecord, CandidateSet
from article_runtime.streams.kafka.reader import RecordUnavailable
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_ENRICHED,
    ARTICLE_INGESTED,
    ARTICLE_PROPOSAL,
    ECP_VERDICT,
)
from article_runtime.streams.service.compensation import compensation_event
from article_runtime.streams.service.records import assembled_article, assembled_record
from article_runtime.streams.service.settings import StandInEntity
from article_runtime.streams.service.wiring import Emit
from tests.support.stream_cases import NOT_JSON, CaseArticle, HygienePath, make_articles
from tests.support.stream_cases import assembled as assembled_on
from tests.unit.ladder_stages import LadderStages
from tests.unit.stream_helpers import AT, enriched_for, on_wire, only, wire

ARTICLE_ID = "versioned-0001"
ENTITY = StandInEntity("Q42", "Prefeitura")
PAGES = make_articles(3, seed=31)  # three different pages, published as versions of one ID
HYGIENE = "article_content_hygiene"
SCENARIOS = ("primary", "fallback", "deterministic", "unusable")


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


def answer_of(page: CaseArticle, scenario: str, rung: Rung) -> str:
    """What the model of ``rung`` answers for ``page`` in ``scenario``: each model its own valid
    answer (the primary's leaves the last paragraph out), so the paths assemble differently."""
    answers = page.answers
    if rung == "runtime_primary":
        good = scenario == "primary"
        return json.dumps(answers.hygiene_primary if good else answers.hygiene_invented_block)
    return json.dumps(answers.hygiene_fallback) if scenario == "fallback" else NOT_JSON


def markdown_of(page: CaseArticle, scenario: str = "primary") -> str:
    """The Markdown ``outcome_of(page, scenario)`` assembles."""
    return assembled_on(page, cast(HygienePath, scenario)).markdown


class Hygiene(LadderStages):
    """The hygiene and assembly stages for one article's versions, over a dict, whose models
    wait for the test to release each answer (``answer``); ``asks`` counts what was paid for,
    by version and rung."""

    def __init__(self, scenarios: dict[bytes, str] | None = None) -> None:
        self.waiting: list[tuple[asyncio.Future[None], bytes]] = []
        self.asks: list[tuple[str, Rung]] = []
        self.scenarios = scenarios or {}
        super().__init__(self._ask, has_models=True, build=self._build_cached)

    def _build_cached(
        self, record: dict[str, Any], at: tuple[str, int, int]
    ) -> CandidateSet | Emit:
        built = candidates_of(record, at=at)
        if isinstance(built, CandidateSet):  # the cached one: the same IDs, no second parse
            return next(p for p in PAGES if p.html == record["html"]).answers.candidates
        return built

    async def _ask(self, candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        page = next(p for p in PAGES if p.answers.candidates == candidates)
        released: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.append((released, page.html))
        self.asks.append((page.article_id, rung))
        await released
        role: Any = rung
        call = AttemptRecord(call=HYGIENE, role=role, outcome="ok", model=rung)
        return Answer(answer_of(page, self.scenarios.get(page.html, "primary"), rung), [call], None)

    def answer(self, index: int = 0) -> None:
        released, _ = self.waiting.pop(index)
        released.set_result(None)

    def settled_out(self) -> list[dict[str, Any]]:
        """What the ladder settled (assembled articles and terminal events), in order."""
        return [r for t, r in self.out if t is not ARTICLE_PROPOSAL and r.get("kind") != "fallback"]


async def settle() -> None:
    """Let every task run until it waits for an answer or is done."""
    for _ in range(20):
        await asyncio.sleep(0)


# -- the version each record carries -------------------------------------------------------------


def test_the_version_is_the_ingested_offset_or_the_declared_number() -> None:
    page = PAGES[0]

    async def scenario() -> Hygiene:
        stage = Hygiene()
        for declared, offset in ((None, 40), (7, 42)):
            work = stage.hygiene.on_ingested(ingested(page, declared=declared), ("t", 0, offset))
            task = asyncio.create_task(stage.settle(work))
            await settle()
            stage.answer()
            await task
        await stage.settle(
            stage.hygiene.on_ingested(ingested(page, html=b"", declared=8), ("t", 0, 43))
        )
        return stage

    stage = asyncio.run(scenario())
    assert [r["version"] for _, r in stage.out] == [v(40), v(40), v(42, 7), v(42, 7), v(43, 8)]
    assert stage.out[-1][1]["reason"] == "empty_html"


def test_versions_rank_by_declared_number_then_offset_and_unversioned_lowest() -> None:
    ordered = [None, v(0), v(5), v(900), v(3, 1), v(4, 1), v(2, 2)]
    assert sorted(ordered, key=rank) == ordered
    assert compared(v(5), v(5)) == "same"
    assert compared(v(5), v(900)) == "older"
    assert compared(v(1, 3), v(900)) == "newer"


# -- hygiene: the ladder holds one version -------------------------------------------------------


@pytest.mark.parametrize("slow", ["v1", "v2"])
def test_the_newest_version_is_the_one_assembled_last_whichever_answer_is_slower(
    slow: str,
) -> None:
    old, new = PAGES[0], PAGES[1]

    async def scenario() -> Hygiene:
        stage = Hygiene()
        tasks = [
            asyncio.create_task(stage.settle(stage.hygiene.on_ingested(ingested(page),
                                                                       ("t", 0, offset))))
            for page, offset in ((old, 10), (new, 11))
        ]  # fmt: skip
        await settle()
        first = next(i for i, (_, html) in enumerate(stage.waiting) if html != (
            old.html if slow == "v1" else new.html))  # fmt: skip
        stage.answer(first)
        await settle()
        stage.answer()
        await asyncio.gather(*tasks)
        return stage

    stage = asyncio.run(scenario())
    settled = stage.settled_out()
    assert settled[-1]["markdown"] == markdown_of(new)
    assert [a["version"] for a in settled] == ([v(11)] if slow == "v1" else [v(10), v(11)])
    assert stage.table[ARTICLE_ID]["version"] == v(11)


def test_a_newer_version_whose_page_is_unusable_closes_the_older_ladder() -> None:
    old = PAGES[0]

    async def scenario() -> Hygiene:
        stage = Hygiene()
        task = asyncio.create_task(
            stage.settle(stage.hygiene.on_ingested(ingested(old), ("t", 0, 10)))
        )
        await settle()  # v1 waits for its answer
        await stage.settle(stage.hygiene.on_ingested(ingested(old, html=b""), ("t", 0, 11)))
        stage.answer()
        await task
        await stage.settle(stage.hygiene.on_ingested(ingested(old), ("t", 0, 10)))  # again
        return stage

    stage = asyncio.run(scenario())
    assert [(r["reason"], r["version"]) for r in stage.settled_out()] == [("empty_html", v(11))]
    state = stage.table[ARTICLE_ID]
    assert (state["version"], state["closed"]["reason"]) == (v(11), "empty_html")
    assert len(stage.asks) == 1  # v1's answer was paid for, and came too late to be proposed


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
        page = next(
            p for p in PAGES for s in SCENARIOS[:3] if markdown_of(p, s) == article.markdown
        )
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
        return asyncio.run(self.delivered(topic, record, at))

    async def delivered(
        self, topic: str, record: dict[str, Any], at: tuple[int, int] = (0, 0)
    ) -> list[Emit]:
        if topic == ARTICLE_ASSEMBLED.name:
            self.topic[at] = record
        return await self.join.on_message(topic, record, at)


def assembled(page: CaseArticle, offset: int) -> dict[str, Any]:
    """The assembled record of ``page``'s valid primary answer, as version ``offset``."""
    article = page.answers.article.model_copy(update={"source": ARTICLE_ID})
    return on_wire(ARTICLE_ASSEMBLED.schema, assembled_record(article, version=v(offset)))


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
    assert concerns_join(ended)
    for other in (
        {**ended, "kind": "fallback", "next_attempt": "deterministic", "version": v(12)},
        {**ended, "stage": "enrichment", "version": v(12)},
        {**ended, "version": None},
    ):
        assert not concerns_join(other)  # the agent acks it without asking the join
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


@dataclass
class Flow:
    """Hygiene, assembly, the ECP stand-in and enrichment for one article's versions, topics as
    lists.

    Hygiene takes ``article.ingested`` in order but runs many versions at once: each waits for
    its model answer, which the test releases in any order; it takes the fallback events of
    ``article.compensation`` in order too. Assembly reads ``article.proposal`` in order, and
    enrichment its topics. Any input whose delivery has ended may be delivered again (a crash
    or a rebalance redelivers what was not committed; the work in flight is cancelled then, so
    one input is never in flight twice). Every output is checked against what its stage has
    already produced or seen, and every model answer is paid for once.
    """

    versions: list[tuple[CaseArticle, str, int, int | None]]  # page, scenario, offset, declared
    topics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    read: dict[str, int] = field(default_factory=dict)  # "<stage>/<topic>" -> next position
    outputs: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    seen: dict[str, Version | None] = field(default_factory=dict)  # newest per stage
    tasks: dict[str, list[asyncio.Task[None]]] = field(default_factory=dict)  # by input
    started: int = 0

    def __post_init__(self) -> None:
        scenarios = {page.html: scenario for page, scenario, _, _ in self.versions}
        self.hygiene = Hygiene(scenarios)
        self.hygiene.hygiene.publish = self._published
        self.hygiene.assembly.publish = self._published
        self.join = Join()
        for topic in (
            ARTICLE_PROPOSAL,
            ARTICLE_ASSEMBLED,
            ECP_VERDICT,
            ARTICLE_ENRICHED,
            ARTICLE_COMPENSATION,
        ):
            self.topics[topic.name] = []

    def record(self, index: int) -> tuple[dict[str, Any], tuple[str, int, int]]:
        page, scenario, offset, declared = self.versions[index]
        html = b"" if scenario == "unusable" else None
        return ingested(page, html=html, declared=declared), ("article.ingested", 0, offset)

    async def _published(self, emits: list[Emit]) -> None:
        self.publish("ladder", emits)

    def publish(self, stage: str, emits: list[Emit]) -> None:
        for emit in emits:
            record = wire(emit)
            settles = emit.topic in (ARTICLE_ASSEMBLED, ARTICLE_ENRICHED) or (
                emit.topic is ARTICLE_COMPENSATION and record["kind"] == "terminal"
            )
            if settles:
                self.outputs.append((stage, record))
                self.check_not_older(stage, record)
                if stage == "ladder":
                    self.saw("ladder", record["version"])
            self.topics[emit.topic.name].append(record)

    def saw(self, stage: str, version: Version | None) -> None:
        if version is not None and compared(version, self.seen.get(stage)) == "newer":
            self.seen[stage] = version

    def check_not_older(self, stage: str, record: dict[str, Any]) -> None:
        """No output for an older version once the stage has produced or seen a newer one."""
        newest = self.seen.get(stage)
        assert compared(record["version"], newest) != "older", (stage, record, newest)

    def next(self, stage: str, topic: str) -> dict[str, Any] | None:
        pending = self.topics[topic][self.read.get(f"{stage}/{topic}", 0) :]
        return pending[0] if pending else None

    def take(self, stage: str, topic: str) -> dict[str, Any]:
        record = self.next(stage, topic)
        assert record is not None
        self.read[f"{stage}/{topic}"] = self.read.get(f"{stage}/{topic}", 0) + 1
        return record

    def start(self, key: str, work: Any) -> None:
        self.tasks.setdefault(key, []).append(asyncio.create_task(work))

    def ended(self, key: str) -> bool:
        return all(task.done() for task in self.tasks.get(key, []))

    # -- the stages

    def actions(self) -> dict[str, Callable[[st.DataObject], Any]]:
        found: dict[str, Callable[[st.DataObject], Any]] = {}
        if self.started < len(self.versions):
            found["ingest"] = lambda _: self.ingest(self.started)
        if self.hygiene.waiting:
            found["answer"] = lambda data: self.hygiene.answer(
                data.draw(st.integers(0, len(self.hygiene.waiting) - 1))
            )
        if self.next("assembly", ARTICLE_PROPOSAL.name):
            found["assembly"] = self.assembly_next
        if self.next("hygiene", ARTICLE_COMPENSATION.name):
            found["hygiene:compensation"] = self.fallback_next
        if self.next("ecp", ARTICLE_ASSEMBLED.name):
            found["ecp"] = lambda _: self.publish(
                "ecp", [standin_verdict(self.take("ecp", ARTICLE_ASSEMBLED.name), ENTITY)]
            )
        for topic in (ARTICLE_ASSEMBLED, ECP_VERDICT, ARTICLE_COMPENSATION):
            if self.next("enrichment", topic.name):
                found[f"enrichment:{topic.name}"] = self.enrichment_of(topic.name)
        return found

    def redeliveries(self) -> dict[str, Callable[[st.DataObject], Any]]:
        found: dict[str, Callable[[st.DataObject], Any]] = {}
        done = [i for i in range(self.started) if self.ended(f"ingested/{i}")]
        if done:
            found["ingest_again"] = lambda data: self.ingest(
                data.draw(st.sampled_from(done)), again=True
            )
        if self.read.get(f"assembly/{ARTICLE_PROPOSAL.name}"):
            found["assembly_again"] = self.assembly_again
        fallbacks = self.fallbacks_taken()
        if fallbacks:
            found["fallback_again"] = lambda data: self.fallback(
                data.draw(st.sampled_from(fallbacks))
            )
        if self.read.get(f"enrichment/{ARTICLE_ASSEMBLED.name}") or self.read.get(
            f"enrichment/{ECP_VERDICT.name}"
        ):
            found["enrichment_again"] = self.enrichment_again
        return found

    def ingest(self, index: int, *, again: bool = False) -> None:
        if not again:
            self.started += 1
        record, at = self.record(index)
        self.start(f"ingested/{index}", self.hygiene.hygiene.on_ingested(record, at))

    async def assembly_next(self, _: st.DataObject) -> None:
        await self.hygiene.assembly.on_proposal(self.take("assembly", ARTICLE_PROPOSAL.name))

    async def assembly_again(self, data: st.DataObject) -> None:
        done = self.read[f"assembly/{ARTICLE_PROPOSAL.name}"]
        position = data.draw(st.integers(0, done - 1))
        await self.hygiene.assembly.on_proposal(self.topics[ARTICLE_PROPOSAL.name][position])

    def fallbacks_taken(self) -> list[int]:
        taken = self.read.get(f"hygiene/{ARTICLE_COMPENSATION.name}", 0)
        events = self.topics[ARTICLE_COMPENSATION.name][:taken]
        return [
            i
            for i, event in enumerate(events)
            if is_next_model_rung(event) and self.ended(f"fallback/{i}")
        ]

    def fallback_next(self, _: st.DataObject) -> None:
        position = self.read.get(f"hygiene/{ARTICLE_COMPENSATION.name}", 0)
        self.take("hygiene", ARTICLE_COMPENSATION.name)
        self.fallback(position)

    def fallback(self, position: int) -> None:
        event = self.topics[ARTICLE_COMPENSATION.name][position]
        if is_next_model_rung(event):
            at = (ARTICLE_COMPENSATION.name, 0, position)
            self.start(f"fallback/{position}", self.hygiene.hygiene.on_fallback(event, at))

    def enrichment_of(self, topic: str) -> Callable[[st.DataObject], Any]:
        async def deliver(_: st.DataObject) -> None:
            position = self.read.get(f"enrichment/{topic}", 0)
            await self.enrichment(topic, self.take("enrichment", topic), position)

        return deliver

    async def enrichment(self, topic: str, record: dict[str, Any], position: int) -> None:
        ends_hygiene = topic == ARTICLE_COMPENSATION.name and record["kind"] == "terminal"
        if topic == ARTICLE_ASSEMBLED.name or (
            ends_hygiene and record["stage"] not in ("enrichment", "decode")
        ):
            self.saw("enrichment", record["version"])
        self.publish("enrichment", await self.join.delivered(topic, record, (0, position)))

    async def enrichment_again(self, data: st.DataObject) -> None:
        topic = data.draw(st.sampled_from([ARTICLE_ASSEMBLED.name, ECP_VERDICT.name]))
        done = self.read.get(f"enrichment/{topic}", 0)
        if done:
            position = data.draw(st.integers(0, done - 1))
            await self.enrichment(topic, self.topics[topic][position], position)

    async def run(self, data: st.DataObject, redeliveries: int) -> None:
        for _ in range(300):
            actions = self.actions()
            if redeliveries:
                actions |= self.redeliveries()
            if not actions:
                break
            name = data.draw(st.sampled_from(sorted(actions)))
            redeliveries -= name.endswith("_again")
            done = actions[name](data)
            if asyncio.iscoroutine(done):
                await done
            await settle()
        await asyncio.gather(*(t for tasks in self.tasks.values() for t in tasks))
        assert not self.actions(), "the flow did not settle"


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
    asyncio.run(flow.run(data, data.draw(st.integers(0, 4))))

    newest = max((v(offset, declared) for _, _, offset, declared in chosen), key=rank)
    page, scenario = next((p, s) for p, s, o, d in chosen if v(o, d) == newest)
    assert flow.hygiene.table[ARTICLE_ID]["version"] == newest
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
        last_assembled = [r for s, r in outcomes if s == "ladder"][-1]
        last_enriched = [r for s, r in outcomes if s == "enrichment"][-1]
        assert last_assembled["version"] == last_enriched["version"] == newest
        assert last_assembled["markdown"] == markdown_of(page, scenario)
        assert last_enriched["article_hash"] == last_assembled["hashes"]["markdown"]
    # A version's article is the same however often its input was delivered.
    for version in {json.dumps(r["version"]) for _, r in outcomes if "markdown" in r}:
        same = {r["markdown"] for _, r in outcomes if json.dumps(r["version"]) == version
                and "markdown" in r}  # fmt: skip
        assert len(same) == 1, version
    # However often its inputs came again, each page's rung was asked at most once.
    assert len(flow.hygiene.asks) == len(set(flow.hygiene.asks)), flow.hygiene.asks

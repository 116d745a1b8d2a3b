"""The stream processor's pure stages, driven with records shaped like the Avro topics.

No broker and no Faust app: each stage function gets what its agent would decode from a topic
and returns what the agent would publish. Every emitted record is encoded and decoded with the
topic's Avro schema (``wire``) before the next stage reads it, as in the worker.
"""

from __future__ import annotations

import asyncio
import copy
import json
import zlib
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, cast

import pytest

from article_runtime.agents.candidates import candidates_of, retry_context
from article_runtime.agents.ecp_standin import CLASSIFIER_VERSION, standin_verdict
from article_runtime.agents.enrichment import (
    EnrichmentJoin,
    make_enrich,
    result_emit,
    stored_result,
)
from article_runtime.agents.hygiene import Answer, Ask, asker
from article_runtime.agents.ladder import Rung
from article_runtime.agents.ledger import MAX_EVENTS, observe, updated
from article_runtime.candidates import build_candidates
from article_runtime.enrichment.model import EnrichedArticle, Entity
from article_runtime.hashing import model_hash
from article_runtime.llm.policy import LLMRuntime
from article_runtime.llm.prompts import load_prompt
from article_runtime.model import AssembledArticle, AttemptRecord, CandidateSet, FeedMetadata, Usage
from article_runtime.resources import AVRO_DIR
from article_runtime.streams.commands.follow import ArticleOutcome
from article_runtime.streams.kafka.reader import RecordUnavailable
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_ENRICHED,
    ARTICLE_INGESTED,
    ARTICLE_PROPOSAL,
    ECP_VERDICT,
    Topic,
)
from article_runtime.streams.service.compensation import RUNGS, compensation_event
from article_runtime.streams.service.proposals import KnownSets
from article_runtime.streams.service.records import (
    assembled_article,
    assembled_record,
    enrichment_content_hash,
)
from article_runtime.streams.service.settings import SettingsError, StandInEntity, WorkerSettings
from article_runtime.streams.service.wiring import Emit
from article_runtime.streams.worker.views import summed
from tests import factories
from tests.llm_support import FALLBACK, PRIMARY, Recorder, config, run
from tests.support.openai_server import Reply, ScriptedOpenAIServer, Status
from tests.support.stream_cases import CaseArticle, assembled, expected, make_articles
from tests.unit.ladder_stages import LadderStages, WriteCounting
from tests.unit.stream_helpers import AT, CODEC, enriched_for, on_wire, only, sha256, wire, wired

HYGIENE_CALL = "article_content_hygiene"
ENTITY_A = StandInEntity("Q42", "Prefeitura")
ENTITY_B = StandInEntity("Q7", "Câmara Municipal")


# -- helpers -----------------------------------------------------------------------------------


def ingested(case: CaseArticle, *, html: bytes | None = None) -> dict[str, Any]:
    """An ``ArticleIngested`` record for ``case`` as the candidates agent decodes it."""
    record = {
        "article_id": case.article_id,
        "url": case.url,
        "html": case.html if html is None else html,
        "received_at": AT,
        "content_type": "text/html; charset=utf-8",
        "feed": None,
    }
    return on_wire(ARTICLE_INGESTED.schema, record)


def attempt(
    role: str, outcome: str, reason: str | None = None, *, model: str | None = None, n: int = 1
) -> AttemptRecord:
    return AttemptRecord.model_validate(
        {
            "call": HYGIENE_CALL,
            "role": role,
            "model": model,
            "attempt": n,
            "outcome": outcome,
            "reason": reason,
            "prompt_tokens": 100 if outcome in ("ok", "invalid") else 0,
            "completion_tokens": 20 if outcome in ("ok", "invalid") else 0,
        }
    )


def roles_and_reasons(attempts: Sequence[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return [(a["role"], a["outcome"], a["reason"]) for a in attempts]


@pytest.fixture(scope="module")
def case() -> CaseArticle:
    (first,) = make_articles(1)  # scenario "primary": every answer in its answers is usable
    return first


INGESTED_AT = ("article.ingested", 1, 17)
VERSION = {"ingested_offset": 17, "declared": None}


def newsletter_only(record: dict[str, Any], at: tuple[str, int, int]) -> CandidateSet:
    """A candidate set holding nothing but a newsletter box: even the deterministic path,
    widened to every block, finds too little text."""
    newsletter = [b for b in factories.candidate_set().blocks if b.id == "b6"]
    return factories.candidate_set(blocks=newsletter, links=[], images=[])


class Hygiene(LadderStages):
    """The hygiene and assembly stages over a counting dict, a model (the scripted server
    through the runtime, or any ``ask``) and every output through its topic's Avro schema."""

    def __init__(
        self,
        runtime: LLMRuntime | None = None,
        *,
        has_models: bool | None = None,
        ask: Ask | None = None,
        build: Callable[[dict[str, Any], tuple[str, int, int]], CandidateSet | Emit] | None = None,
    ) -> None:
        self.runtime = runtime
        self.asked = 0
        self.rungs_asked: list[Rung] = []
        self._ask = ask or asker(runtime)
        models = runtime is not None if has_models is None else has_models
        # The worker shares the sets its hygiene agent built with its assembly agent.
        super().__init__(self._counted, has_models=models, build=build, known=KnownSets())

    async def _counted(self, candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        if rung != "deterministic":
            self.asked += 1
            self.rungs_asked.append(rung)
        return await self._ask(candidates, rung, source)

    def run_through(self, work: Coroutine[Any, Any, None]) -> list[tuple[Topic, dict[str, Any]]]:
        """One message's work and everything it leads to; the outputs, in order."""
        if self.runtime is None:
            return asyncio.run(self.settle(work))
        return run(self.settle(work), self.runtime)

    def ingest(
        self, record: dict[str, Any], at: tuple[str, int, int] = INGESTED_AT
    ) -> list[tuple[Topic, dict[str, Any]]]:
        return self.run_through(self.hygiene.on_ingested(record, at))

    def redrive(self, event: dict[str, Any], offset: int) -> list[tuple[Topic, dict[str, Any]]]:
        at = (ARTICLE_COMPENSATION.name, INGESTED_AT[1], offset)
        return self.run_through(self.hygiene.on_redrive(event, at))

    def again(self, topic: Topic, record: dict[str, Any]) -> list[tuple[Topic, dict[str, Any]]]:
        """A record the stages already took, delivered again (after a crash or a rebalance)."""
        return self.run_through(self.deliver(topic, record))


def topics_of(out: Sequence[tuple[Topic, dict[str, Any]]]) -> list[str]:
    return [topic.name for topic, _ in out]


def settled_records(out: Sequence[tuple[Topic, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The records without the times a redelivery gets anew."""
    times = ("assembled_at", "occurred_at", "proposed_at")
    return [{k: v for k, v in record.items() if k not in times} for _, record in out]


# -- candidates --------------------------------------------------------------------------------


def test_a_good_page_gives_the_candidate_set_of_its_html(case: CaseArticle) -> None:
    built = candidates_of(ingested(case), at=INGESTED_AT)
    assert built == build_candidates(case.html, url=case.url)


def test_feed_metadata_reaches_the_candidate_set(case: CaseArticle) -> None:
    feed = {"title": "Título do feed", "subtitle": None, "author": "Redação", "url": None}
    record = on_wire(ARTICLE_INGESTED.schema, {**ingested(case), "feed": feed})
    with_feed = build_candidates(
        case.html, url=case.url, feed=FeedMetadata(title="Título do feed", author="Redação")
    )
    assert candidates_of(record, at=INGESTED_AT) == with_feed
    assert with_feed != build_candidates(case.html, url=case.url)


def test_empty_html_ends_in_a_terminal_compensation(case: CaseArticle) -> None:
    at = ("article.ingested", 1, 99)
    emit = candidates_of(ingested(case, html=b""), at=at)
    assert isinstance(emit, Emit)
    event = only([emit], ARTICLE_COMPENSATION)
    assert event["article_id"] == case.article_id
    assert (event["stage"], event["kind"], event["reason"]) == (
        "candidates",
        "terminal",
        "empty_html",
    )
    assert event["next_attempt"] is None and event["retry"] is None
    assert event["origin"] == {"topic": "article.ingested", "partition": 1, "offset": 99}
    assert event["version"] == {"ingested_offset": 99, "declared": None}


# -- hygiene proposes, assembly judges ---------------------------------------------------------


def test_without_models_the_ladder_is_a_deterministic_proposal_judged_by_assembly(
    case: CaseArticle,
) -> None:
    stage = Hygiene()
    out = stage.ingest(ingested(case))
    assert topics_of(out) == [ARTICLE_PROPOSAL.name, ARTICLE_ASSEMBLED.name]
    proposal, article = (record for _, record in out)
    assert (proposal["rung"], proposal["answer"], proposal["attempts"]) == (
        "deterministic",
        None,
        [],
    )
    assert article["path"] == "deterministic"
    assert article["markdown"] == assembled(case, "deterministic").markdown
    assert roles_and_reasons(article["attempts"]) == [("deterministic", "ok", None)]
    assert article["prompt"] is None  # no model's answer
    assert article["hashes"]["source_html"] == sha256(case.html)
    # The rung is durable before its proposal is on the topic; assembly writes nothing.
    assert stage.log == [
        f"confirm:{case.article_id}",
        "hygiene:article.proposal",
        "assembly:article.assembled",
    ]
    assert stage.table.writes == 1


def test_a_valid_primary_answer_is_proposed_verbatim_then_assembled_and_never_paid_twice(
    case: CaseArticle, server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = Reply(case.answers.hygiene_primary, prompt_tokens=1000, completion_tokens=250)
    server.script(PRIMARY, reply)
    stage = Hygiene(Recorder().runtime(config(monkeypatch, server.base_url)))

    out = stage.ingest(ingested(case))

    assert [call.model for call in server.calls] == [PRIMARY]
    assert topics_of(out) == [ARTICLE_PROPOSAL.name, ARTICLE_ASSEMBLED.name]
    proposal, article = (record for _, record in out)
    candidates = build_candidates(case.html, url=case.url)
    assert proposal["answer"] == reply.text  # verbatim, as the model wrote it
    assert proposal["candidate_set_hash"] == model_hash(candidates)
    assert CandidateSet.model_validate_json(zlib.decompress(proposal["candidate_set_zlib"])) == (
        candidates
    )
    assert (proposal["rung"], proposal["attempt"], proposal["version"]) == (
        "runtime_primary", 1, VERSION)  # fmt: skip
    assert article["path"] == "primary"
    assert article["markdown"] == expected(case).markdown
    assert article["title"] == case.title
    assert article["hashes"] == {
        "markdown": sha256(expected(case).markdown),
        "source_html": sha256(case.html),
        "candidate_set": model_hash(candidates),
    }
    assert roles_and_reasons(article["attempts"]) == [("runtime_primary", "ok", None)]
    assert article["attempts"][0]["model"] == PRIMARY
    # llm_support prices 0.4 and 1.6 USD per million input and output tokens.
    assert article["usage"]["prompt_tokens"] == 1000
    assert article["usage"]["completion_tokens"] == 250
    assert article["usage"]["cost_usd"] == pytest.approx(0.0008)
    spec = load_prompt(HYGIENE_CALL)
    assert (
        article["prompt"]
        == proposal["prompt"]
        == {
            "name": HYGIENE_CALL,
            "version": spec.version,
            "sha256": spec.sha256,
        }
    )
    assert article["version"] == VERSION
    held = stage.table[case.article_id]["proposed"]["runtime_primary"]
    assert held["answer"] == reply.text  # what a redelivery proposes again
    assert expected(case).markdown not in json.dumps(held)  # no article text in the table
    assert stage.log[:2] == [f"confirm:{case.article_id}", "hygiene:article.proposal"]

    again = stage.ingest(ingested(case))  # redelivered after a crash before its commit
    assert [call.model for call in server.calls] == [PRIMARY]  # no second call
    assert settled_records(again) == settled_records(out)
    judged_again = stage.again(ARTICLE_PROPOSAL, proposal)  # the proposal, redelivered
    assert settled_records(judged_again) == settled_records(out[1:])
    assert len(server.calls) == 1


def test_the_ladder_steps_down_to_the_deterministic_path_with_each_attempt_once(
    case: CaseArticle, server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.script(PRIMARY, Reply(case.answers.hygiene_invented_block))
    server.script(FALLBACK, Status(500), Status(500), Status(500))  # 1 call + 2 retries
    stage = Hygiene(Recorder().runtime(config(monkeypatch, server.base_url, max_retries=2)))

    out = stage.ingest(ingested(case))

    assert [call.model for call in server.calls] == [PRIMARY, FALLBACK, FALLBACK, FALLBACK]
    assert topics_of(out) == [
        ARTICLE_PROPOSAL.name,
        ARTICLE_COMPENSATION.name,
        ARTICLE_PROPOSAL.name,
        ARTICLE_COMPENSATION.name,
        ARTICLE_ASSEMBLED.name,
    ]
    (_, first), (_, invalid), (_, second), (_, failed), (_, article) = out
    assert json.loads(first["answer"]) == case.answers.hygiene_invented_block
    # The primary's answer named a block the page lacks: the harness refused it, and the
    # event carries the candidate set the fallback model is asked with.
    assert (invalid["stage"], invalid["kind"], invalid["reason"], invalid["next_attempt"]) == (
        "assembly",
        "fallback",
        "unknown_block_id",
        "runtime_fallback",
    )
    assert invalid["retry"]["candidate_set_zlib"] == first["candidate_set_zlib"]
    # The fallback model never answered: a proposal without an answer, a technical failure.
    assert (second["rung"], second["attempt"], second["answer"]) == ("runtime_fallback", 2, None)
    assert (failed["stage"], failed["kind"], failed["reason"], failed["next_attempt"]) == (
        "hygiene",
        "fallback",
        "server_error",
        "deterministic",
    )
    assert failed["retry"] is None  # the deterministic path ran in the same step
    assert [e["attempts_so_far"] for e in (invalid, failed)] == [1, 2]
    assert [len(e["attempts"]) for e in (invalid, failed)] == [1, 4]  # everything so far
    assert invalid["origin"] == {"topic": "article.ingested", "partition": 1, "offset": 17}
    assert failed["origin"] == invalid["origin"]
    assert article["path"] == "deterministic"
    assert article["markdown"] == assembled(case, "deterministic").markdown
    assert article["hashes"]["source_html"] == sha256(case.html)
    assert roles_and_reasons(article["attempts"]) == [
        ("runtime_primary", "invalid", "unknown_block_id"),
        ("runtime_fallback", "server_error", "server_error"),
        ("runtime_fallback", "server_error", "server_error"),
        ("runtime_fallback", "server_error", "server_error"),
        ("deterministic", "ok", None),
    ]
    assert [a["attempt"] for a in article["attempts"]] == [1, 1, 2, 3, 1]
    assert invalid["version"] == failed["version"] == article["version"] == VERSION

    # Every input, delivered again: nobody is asked, the outputs are the same.
    assert settled_records(stage.ingest(ingested(case))) == settled_records(out)
    assert settled_records(stage.again(ARTICLE_COMPENSATION, invalid)) == settled_records(out[2:])
    assert len(server.calls) == 4


def test_a_failing_deterministic_path_ends_the_ladder(case: CaseArticle) -> None:
    stage = Hygiene(has_models=False, build=newsletter_only)
    out = stage.ingest(ingested(case))
    assert topics_of(out) == [ARTICLE_PROPOSAL.name, ARTICLE_COMPENSATION.name]
    event = out[-1][1]
    assert (event["stage"], event["kind"], event["reason"], event["attempts_so_far"]) == (
        "assembly",
        "terminal",
        "content_too_short",
        1,
    )
    assert roles_and_reasons(event["attempts"]) == [
        ("deterministic", "invalid", "content_too_short")
    ]
    assert settled_records(stage.ingest(ingested(case))) == settled_records(out)


def test_an_unusable_page_ends_its_version_and_every_older_one(case: CaseArticle) -> None:
    stage = Hygiene()
    newer = ("article.ingested", 1, 18)
    out = stage.ingest(ingested(case, html=b""), newer)
    assert [(r["stage"], r["reason"]) for _, r in out] == [("candidates", "empty_html")]
    state = stage.table[case.article_id]
    assert (state["version"], state["closed"]["reason"]) == (
        {"ingested_offset": 18, "declared": None}, "empty_html")  # fmt: skip
    assert settled_records(stage.ingest(ingested(case, html=b""), newer)) == settled_records(out)
    assert stage.ingest(ingested(case)) == []  # v@17 is older: nothing for it any more
    assert stage.table.writes == 1


def test_a_slow_older_version_changes_nothing_once_a_newer_one_settled(case: CaseArticle) -> None:
    released = asyncio.Event()
    other = make_articles(2)[1]

    async def slow_for_v1(candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        page = case if candidates == case.answers.candidates else other
        if page is case:
            await released.wait()
        return Answer(json.dumps(page.answers.hygiene_primary), [answered()], None)

    stage = Hygiene(has_models=True, ask=slow_for_v1)
    v2 = {**ingested(other), "article_id": case.article_id}

    async def race() -> None:
        first = asyncio.create_task(stage.hygiene.on_ingested(ingested(case), INGESTED_AT))
        await asyncio.sleep(0.05)  # v1 is waiting for its answer
        await stage.settle(stage.hygiene.on_ingested(v2, ("article.ingested", 1, 18)))
        released.set()
        await stage.settle(first)

    asyncio.run(race())
    settled = [r for t, r in stage.out if t is not ARTICLE_PROPOSAL]
    assert [(r["version"]["ingested_offset"], r["markdown"]) for r in settled] == [
        (18, assembled(other, "primary").markdown)
    ]
    assert stage.table[case.article_id]["version"]["ingested_offset"] == 18
    assert stage.asked == 2  # v1's answer was paid for; it came too late to be proposed


def test_a_proposal_of_an_older_version_is_dropped_by_assembly(case: CaseArticle) -> None:
    stage = Hygiene()
    older = stage.ingest(ingested(case))[0][1]
    other = make_articles(2)[1]
    stage.ingest({**ingested(other), "article_id": case.article_id}, ("article.ingested", 1, 18))
    assert stage.again(ARTICLE_PROPOSAL, older) == []  # redelivered after v@18 was proposed


def test_a_redrive_runs_the_ladder_again_for_its_version_once(case: CaseArticle) -> None:
    async def down(candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        return Answer(None, [timed_out(rung)], None)

    ended = Hygiene(has_models=True, ask=down, build=newsletter_only)
    terminal = ended.ingest(ingested(case))
    assert topics_of(terminal)[-1] == ARTICLE_COMPENSATION.name
    last = terminal[-1][1]
    assert (last["kind"], last["reason"], last["attempts_so_far"]) == (
        "terminal",
        "content_too_short",
        3,
    )
    assert ended.asked == 2

    # The provider is back: the redrive runs the ladder from the primary, numbered after it.
    async def back(candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        return Answer(json.dumps(case.answers.hygiene_primary), [answered()], None)

    ended._ask = back
    candidates = build_candidates(case.html, url=case.url)
    retry = retry_context(ingested(case), candidates)
    event = on_wire(ARTICLE_COMPENSATION.schema, redrive_event_for(case, last, retry))
    out = ended.redrive(event, 50)
    assert topics_of(out) == [ARTICLE_PROPOSAL.name, ARTICLE_ASSEMBLED.name]
    proposal, article = (record for _, record in out)
    assert (proposal["redrive"], proposal["attempt"]) == (50, 4)
    assert article["markdown"] == assembled(case, "primary").markdown
    assert article["hashes"]["source_html"] == sha256(case.html)  # from the retry context
    state = ended.table[case.article_id]
    assert (state["redrive"], state["attempt"]) == (50, 4)
    assert ended.asked == 3

    assert settled_records(ended.redrive(event, 50)) == settled_records(out)  # redelivered
    assert ended.redrive(event, 51) == []  # numbered inside the ladder that ran: nothing to do
    older = {**event, "version": {"ingested_offset": 3, "declared": None}}
    assert ended.redrive(older, 52) == []
    assert ended.ingest(ingested(case)) == []  # the first pass is over
    assert ended.asked == 3


def test_a_state_an_earlier_release_wrote_is_left_as_it_is(case: CaseArticle) -> None:
    stage = Hygiene()
    old: dict[str, Any] = {"version": VERSION, "html_hash": sha256(case.html), "awaiting": None,
           "settled": "assembled:primary:abc", "attempts": [], "attempt": 1}  # fmt: skip
    stage.table[case.article_id] = old
    assert stage.ingest(ingested(case)) == []  # its outputs went out through the old stages
    assert stage.table[case.article_id] == old


def test_a_held_answer_is_proposed_again_only_with_the_set_it_chose_from(case: CaseArticle) -> None:
    async def valid(candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        return Answer(json.dumps(case.answers.hygiene_primary), [answered()], None)

    builds = [candidates_of(ingested(case), at=INGESTED_AT), newsletter_only({}, INGESTED_AT)]
    stage = Hygiene(has_models=True, ask=valid, build=lambda record, at: builds.pop(0))
    stage.ingest(ingested(case))
    # The page now builds another set (a new release of the builder): its IDs may mean other
    # blocks, so the answer is not proposed with it; the model is asked again.
    again = stage.ingest(ingested(case))
    # (That answer's IDs are not in the new set: the fallback model is asked too.)
    assert stage.rungs_asked == ["runtime_primary", "runtime_primary", "runtime_fallback"]
    assert again[0][1]["candidate_set_hash"] == model_hash(newsletter_only({}, INGESTED_AT))


def answered() -> AttemptRecord:
    return AttemptRecord(call=HYGIENE_CALL, role="runtime_primary", outcome="ok", model=PRIMARY)


def timed_out(rung: Rung) -> AttemptRecord:
    role: Any = rung
    return AttemptRecord(call=HYGIENE_CALL, role=role, outcome="timeout", reason="timeout")


def redrive_event_for(
    case: CaseArticle, terminal: dict[str, Any], retry: dict[str, Any]
) -> dict[str, Any]:
    return compensation_event(
        case.article_id,
        stage=terminal["stage"],
        kind="fallback",
        reason="redrive",
        next_attempt="runtime_primary",
        attempts_so_far=3,
        retry=retry,
        version=terminal["version"],
    )


# -- enrichment join ---------------------------------------------------------------------------


ASSEMBLED_AT = (1, 230)  # where the case's assembled record sits on article.assembled


class Join:
    """An ``EnrichmentJoin`` over a dict, with a counting enrich, an order-recording flush, and
    ``topic`` standing for ``article.assembled`` (the join reads articles back from it)."""

    def __init__(self, case: CaseArticle, *, failing: bool = False, slow: bool = False) -> None:
        self.case = case
        self.slow = slow
        self.table: dict[str, Any] = WriteCounting()
        self.topic: dict[tuple[int, int], dict[str, Any]] = {}
        self.log: list[str] = []
        self.enriched: list[tuple[str, str]] = []  # (article_id, qid) per enrich call
        self.flushed: list[dict[str, Any]] = []  # the table as each flush found it
        self.results: dict[str, dict[str, Any]] = {}
        self._no_provider = make_enrich(None)
        self._failing = failing
        self.expect = case.answers.article  # the article the join should hand to enrich
        self.join = EnrichmentJoin(self.table, self._enrich, self._flush, self._read)

    async def _enrich(self, article: AssembledArticle, entity: Entity) -> dict[str, Any]:
        self.log.append(f"enrich:{entity.qid}")
        self.enriched.append((article.source, entity.qid))
        assert article == self.expect  # the article the join was given
        if self.slow:
            await asyncio.sleep(0.01)  # a model call: other messages run meanwhile
        if self._failing:
            stored = await self._no_provider(article, entity)
        else:
            result = enriched_for(article, entity, self.case.answers.enrichment_valid)
            stored = {**stored_result(result), "at": AT.timestamp()}
        self.results[entity.qid] = stored
        return stored

    async def _flush(self, key: str) -> None:
        await asyncio.sleep(0)
        assert key == self.case.article_id  # the change confirmed is this article's
        self.log.append("flush")
        self.flushed.append(copy.deepcopy(self.table))

    async def _read(self, ref: dict[str, Any]) -> AssembledArticle:
        self.log.append("read")
        record = self.topic.get((ref["partition"], ref["offset"]))
        if record is None:
            raise RecordUnavailable("record_expired", "not on the topic")
        return assembled_article(record)

    def article_record(
        self, article: AssembledArticle | None = None, version: dict[str, Any] | None = VERSION
    ) -> dict[str, Any]:
        record = assembled_record(article or self.case.answers.article, version=version)
        return on_wire(ARTICLE_ASSEMBLED.schema, record)

    def verdict_record(self, who: StandInEntity = ENTITY_A, **changes: Any) -> dict[str, Any]:
        assembled = assembled_record(self.case.answers.article)
        record = {**wire(standin_verdict(assembled, who)), **changes}
        return on_wire(ECP_VERDICT.schema, record)

    def deliver(self, topic: str, record: dict[str, Any], at: tuple[int, int]) -> list[Emit]:
        if topic == ARTICLE_ASSEMBLED.name:
            self.topic[at] = record  # on the topic before anyone reads it
        emits = asyncio.run(self.join.on_message(topic, record, at))
        self.log.append("returned")
        return emits

    def article(self, at: tuple[int, int] = ASSEMBLED_AT, **record: Any) -> list[Emit]:
        return self.deliver(ARTICLE_ASSEMBLED.name, self.article_record(**record), at)

    def verdict(self, who: StandInEntity = ENTITY_A, **changes: Any) -> list[Emit]:
        return self.deliver(ECP_VERDICT.name, self.verdict_record(who, **changes), (1, 0))


def enriched_out(emits: Sequence[Emit], qid: str, case: CaseArticle) -> dict[str, Any]:
    record = only(emits, ARTICLE_ENRICHED)
    article = case.answers.article
    assert emits[0].article_id == case.article_id
    assert record["entity"]["qid"] == qid
    assert record["article_hash"] == article.hashes.markdown == sha256(article.markdown)
    assert record["sentiment"] == case.sentiment
    assert [t["tag"] for t in record["tags"]] == list(expected(case).tags or ())
    assert record["enriched_at"] == AT
    # The article it enriches rides along: a consumer reads one topic.
    carried = record["article"]
    assert carried["markdown"] == article.markdown and carried["title"] == article.title
    assert (carried["subtitle"], carried["author"]) == (article.subtitle, article.author)
    assert (carried["published_at"], carried["source_url"], carried["language"]) == (
        article.published_at,
        article.source_url,
        article.language,
    )
    return record


def test_the_ecp_standin_approves_the_assembled_version(case: CaseArticle) -> None:
    assembled = assembled_record(case.answers.article)
    verdict = wire(standin_verdict(assembled, ENTITY_A))
    assert verdict["approved"] is True
    assert verdict["entity"] == {"qid": "Q42", "name": "Prefeitura", "identity": None}
    assert verdict["article_hash"] == sha256(case.answers.article.markdown)
    assert "not ECP" in verdict["classifier_version"] == CLASSIFIER_VERSION


@pytest.mark.parametrize("article_first", [True, False])
def test_article_and_verdict_join_in_either_order(case: CaseArticle, article_first: bool) -> None:
    join = Join(case)
    first, second = (join.article, join.verdict) if article_first else (join.verdict, join.article)

    assert first() == []
    emits = second()

    enriched_out(emits, "Q42", case)
    assert join.enriched == [(case.article_id, "Q42")]
    # Stored, then flushed, then produced: the result is durable before anyone sees it.
    second_message = join.log[join.log.index("returned") + 1 :]
    assert second_message[second_message.index("enrich:Q42") + 1] == "flush"
    assert second_message[-1] == "returned"
    # A verdict after the article reads it back by reference; the other way round it is here.
    assert ("read" in second_message) is article_first
    at_flush = next(t for t in join.flushed if t[case.article_id]["results"])
    key = f"Q42@{case.answers.article.hashes.markdown}"
    assert at_flush[case.article_id]["results"][key] == {**join.results["Q42"], "version": VERSION}
    assert only(emits, ARTICLE_ENRICHED)["version"] == VERSION


def test_a_verdict_and_its_result_are_one_table_write(case: CaseArticle) -> None:
    """Each table write is a changelog record the broker confirms: a verdict on an article
    the join holds (the flow's order: the classifier judges the assembled article) travels
    with the result stored for it, not in a write of its own (two writes before)."""
    join = Join(case)
    table = cast(WriteCounting, join.table)
    join.article()
    assert table.writes == 1  # the article's reference
    enriched_out(join.verdict(), "Q42", case)
    assert table.writes == 2  # the result, with the verdict it settles
    state = join.table[case.article_id]
    assert list(state["verdicts"]) == [f"Q42@{case.answers.article.hashes.markdown}"]
    assert len(state["results"]) == 1
    enriched_out(join.verdict(), "Q42", case)  # a redelivered verdict: replayed, no write
    assert table.writes == 2


async def broken_enrich(article: AssembledArticle, entity: Entity) -> dict[str, Any]:
    """An enrichment with a bug in it."""
    raise RuntimeError("a bug in the enrichment")


def test_an_article_its_verdict_waited_for_and_the_result_are_one_table_write(
    case: CaseArticle,
) -> None:
    """The verdict came first (the join reads both topics, in no order between them): the
    article's reference travels with the result stored for that verdict."""
    join = Join(case)
    table = cast(WriteCounting, join.table)
    assert join.verdict() == []  # no article yet
    assert table.writes == 1  # the verdict, waiting
    enriched_out(join.article(), "Q42", case)
    assert table.writes == 2  # the reference, with the result
    state = join.table[case.article_id]
    article = case.answers.article
    assert state["article"] == {
        "partition": ASSEMBLED_AT[0],
        "offset": ASSEMBLED_AT[1],
        "hash": article.hashes.markdown,
    }
    assert list(state["results"]) == [f"Q42@{article.hashes.markdown}"]
    enriched_out(join.article(), "Q42", case)  # a redelivered article: replayed, no write
    assert table.writes == 2


def test_an_article_whose_waiting_verdict_breaks_is_still_held(case: CaseArticle) -> None:
    """No result stored for the verdict that waited: the reference is written on its own, so a
    later verdict still finds the article."""
    join = Join(case)
    join.verdict()
    join.join.enrich = broken_enrich
    event = only(join.article(), ARTICLE_COMPENSATION)
    assert (event["reason"], event["detail"]) == ("internal_error", "RuntimeError")
    state = join.table[case.article_id]
    assert state["article"]["hash"] == case.answers.article.hashes.markdown
    assert state["results"] == {}


def test_a_verdict_whose_enrichment_breaks_is_still_stored(case: CaseArticle) -> None:
    join = Join(case)
    join.article()
    join.join.enrich = broken_enrich
    event = only(join.verdict(), ARTICLE_COMPENSATION)
    assert (event["reason"], event["detail"]) == ("internal_error", "RuntimeError")
    state = join.table[case.article_id]
    assert list(state["verdicts"]) == [f"Q42@{case.answers.article.hashes.markdown}"]
    assert state["results"] == {}  # not stored: a redelivery enriches again


def test_the_join_keeps_a_reference_to_the_article_not_its_text(case: CaseArticle) -> None:
    join = Join(case)
    join.article(at=(2, 981))
    (state,) = join.table.values()
    article = case.answers.article
    assert state["article"] == {"partition": 2, "offset": 981, "hash": article.hashes.markdown}
    assert state["version"] == VERSION
    stored = json.dumps(join.table, ensure_ascii=False)
    assert article.markdown not in stored and article.title not in stored
    enriched_out(join.verdict(), "Q42", case)  # read back from (2, 981)
    assert join.log.count("read") == 1


def test_an_article_gone_from_its_topic_ends_its_entity_terminally(case: CaseArticle) -> None:
    join = Join(case)
    join.article()
    join.topic.clear()  # retention removed the record before the verdict came
    event = only(join.verdict(), ARTICLE_COMPENSATION)
    assert (event["stage"], event["kind"], event["reason"]) == (
        "enrichment",
        "terminal",
        "article_record_expired",
    )
    assert event["entity"] == {"qid": "Q42", "name": "Prefeitura", "identity": None}
    assert event["version"] == VERSION
    assert join.enriched == []
    assert only(join.verdict(), ARTICLE_COMPENSATION) == event  # stored: replayed alike


def test_a_failure_while_enriching_names_the_entity_and_is_not_stored(case: CaseArticle) -> None:
    join = Join(case)
    join.article()

    async def refused(key: str) -> None:
        raise RuntimeError("MessageSizeTooLargeError")  # what a too-large changelog write did

    join.join.confirm = refused
    event = only(asyncio.run(join.join.on_verdict(join.verdict_record())), ARTICLE_COMPENSATION)
    assert (event["stage"], event["kind"], event["reason"], event["detail"]) == (
        "enrichment",
        "terminal",
        "internal_error",
        "RuntimeError",
    )
    assert event["entity"]["qid"] == "Q42"
    assert event["version"] == VERSION


def test_a_redelivered_input_replays_the_stored_result_without_asking_again(
    case: CaseArticle,
) -> None:
    join = Join(case)
    join.article()
    first = join.verdict()
    again_verdict = join.verdict()
    again_article = join.article()

    assert len(join.enriched) == 1
    records = [enriched_out(emits, "Q42", case) for emits in (first, again_verdict, again_article)]
    hashes = {record["content_hash"] for record in records}
    stored = EnrichedArticle.model_validate_json(join.results["Q42"]["result"])
    assert hashes == {enrichment_content_hash(stored)}
    encoded = {CODEC.encode(ARTICLE_ENRICHED.schema, r) for r in records}
    assert len(encoded) == 1  # the same bytes every time


def test_one_articles_messages_in_flight_together_still_enrich_once(case: CaseArticle) -> None:
    join = Join(case, slow=True)
    article, verdict = join.article_record(), join.verdict_record()
    join.topic[ASSEMBLED_AT] = article

    async def together() -> tuple[list[Emit], list[Emit], list[Emit]]:
        return await asyncio.gather(
            join.join.on_message(ARTICLE_ASSEMBLED.name, article, ASSEMBLED_AT),
            join.join.on_message(ECP_VERDICT.name, verdict, (1, 0)),
            join.join.on_message(ECP_VERDICT.name, verdict, (1, 0)),  # redelivered meanwhile
        )

    on_article, first, again = asyncio.run(together())

    assert on_article == []
    assert join.enriched == [(case.article_id, "Q42")]
    records = [enriched_out(emits, "Q42", case) for emits in (first, again)]
    assert records[0] == records[1]


def test_rejected_or_entityless_verdicts_join_nothing(case: CaseArticle) -> None:
    join = Join(case)
    join.article()
    assert join.verdict(approved=False) == []
    assert join.verdict(entity=None) == []
    assert join.enriched == []
    assert join.table[case.article_id]["verdicts"] == {}  # nothing waits for them


def test_a_verdict_on_another_version_of_the_article_joins_nothing(case: CaseArticle) -> None:
    join = Join(case)
    join.article()
    assert join.verdict(article_hash=sha256("an older version of the article")) == []
    assert join.enriched == []
    # A verdict that names no version joins whatever version is here.
    enriched_out(join.verdict(article_hash=None), "Q42", case)
    assert len(join.enriched) == 1


def test_each_entity_is_enriched_once_and_emitted_on_its_own(case: CaseArticle) -> None:
    join = Join(case)
    join.article()
    enriched_out(join.verdict(ENTITY_A), "Q42", case)
    for_b = join.verdict(ENTITY_B)
    enriched_out(for_b, "Q7", case)  # only B: A is not produced again
    assert join.enriched == [(case.article_id, "Q42"), (case.article_id, "Q7")]

    replayed = wired(join.article())  # a redelivered article replays both, asks for neither
    assert sorted(r["entity"]["qid"] for r in replayed) == ["Q42", "Q7"]
    assert all(r["article"]["markdown"] == case.answers.article.markdown for r in replayed)
    assert len(join.enriched) == 2


def test_a_verdict_before_the_article_waits_for_it_for_every_entity(case: CaseArticle) -> None:
    join = Join(case)
    assert join.verdict(ENTITY_A) == [] and join.verdict(ENTITY_B) == []
    emits = wired(join.article())
    assert sorted(r["entity"]["qid"] for r in emits) == ["Q42", "Q7"]
    assert sorted(qid for _, qid in join.enriched) == ["Q42", "Q7"]


def test_an_enrichment_failure_is_a_terminal_event_replayed_as_stored(case: CaseArticle) -> None:
    join = Join(case, failing=True)  # make_enrich(None): no provider for the call
    join.article()
    first = only(join.verdict(), ARTICLE_COMPENSATION)
    assert (first["stage"], first["kind"], first["reason"]) == (
        "enrichment",
        "terminal",
        "no_provider",
    )
    assert first["next_attempt"] is None and first["attempts_so_far"] == 0
    again = only(join.verdict(), ARTICLE_COMPENSATION)
    assert again == first
    assert len(join.enriched) == 1


def test_result_emit_builds_the_enriched_record_from_a_stored_result(case: CaseArticle) -> None:
    article = case.answers.article
    result = enriched_for(
        article, Entity(qid="Q42", name="Prefeitura"), case.answers.enrichment_valid
    )
    stored = {**stored_result(result), "at": AT.timestamp(), "version": VERSION}
    record = only([result_emit(stored)], ARTICLE_ENRICHED)
    assert record["article_id"] == article.source
    assert record["content_hash"] == enrichment_content_hash(result)
    assert record["path"] == "primary"
    assert record["enriched_at"] == AT
    assert record["version"] == VERSION
    # Results stored before they were kept as JSON text (a dict, no version) replay alike.
    legacy = {"kind": "enriched", "result": result.model_dump(mode="json"), "at": AT.timestamp()}
    assert only([result_emit(legacy)], ARTICLE_ENRICHED) == {**record, "version": None}


# -- records -----------------------------------------------------------------------------------


def test_an_assembled_article_survives_its_avro_round_trip(case: CaseArticle) -> None:
    attempts = [
        attempt("runtime_primary", "invalid", "unknown_block_id", model=PRIMARY),
        attempt("runtime_fallback", "ok", model=FALLBACK),
    ]
    article = case.answers.article.model_copy(
        update={"path": "fallback", "attempts": attempts, "usage": Usage.of(attempts)}
    )
    data = CODEC.encode("ArticleAssembled", assembled_record(article, at=AT))
    decoded = CODEC.decode(data, "ArticleAssembled")
    assert decoded["article_id"] == case.article_id
    assert decoded["assembled_at"] == AT
    assert assembled_article(decoded) == article


def test_the_enrichment_content_hash_follows_content_not_bookkeeping(case: CaseArticle) -> None:
    article = case.answers.article
    entity = Entity(qid="Q42", name="Prefeitura")
    base = enriched_for(article, entity, case.answers.enrichment_valid)
    retried = base.model_copy(
        update={
            "attempts": [
                AttemptRecord(
                    call="article_sentiment_tags", role="runtime_primary", outcome="timeout"
                ),
                *base.attempts,
            ],
            "usage": Usage(prompt_tokens=900, completion_tokens=80, cost_usd=0.0005),
        }
    )
    assert enrichment_content_hash(retried) == enrichment_content_hash(base)
    renamed = [base.tags[0].model_copy(update={"tag": "outra coisa"}), *base.tags[1:]]
    other_sentiment = next(s for s in ("positive", "negative", "neutral") if s != base.sentiment)
    for changed in (
        base.model_copy(update={"tags": renamed}),
        base.model_copy(update={"sentiment": other_sentiment}),
        base.model_copy(update={"entity": Entity(qid="Q7", name="Câmara Municipal")}),
        base.model_copy(update={"article_hash": sha256("another version")}),
    ):
        assert enrichment_content_hash(changed) != enrichment_content_hash(base)


# -- ledger ------------------------------------------------------------------------------------


def test_the_ledger_reads_an_assembled_article(case: CaseArticle) -> None:
    article = case.answers.article
    record = on_wire(ARTICLE_ASSEMBLED.schema, assembled_record(article))
    entry, names = observe(ARTICLE_ASSEMBLED.name, record)
    assert names == ["assembled/primary"]
    assert entry["stage"] == "assembled"
    assert entry["markdown_hash"] == sha256(article.markdown)
    status = updated(None, ARTICLE_ASSEMBLED.name, entry, "2026-03-14T09:26:53+00:00")
    assert (status["stage"], status["path"]) == ("assembled", "primary")
    assert status["updated_at"] == "2026-03-14T09:26:53+00:00"
    assert [e["topic"] for e in status["events"]] == ["article.assembled"]


def test_the_ledger_counts_compensations_by_stage_kind_and_reason(case: CaseArticle) -> None:
    event = on_wire(
        ARTICLE_COMPENSATION.schema,
        compensation_event(
            case.article_id,
            stage="hygiene",
            kind="fallback",
            reason="timeout",
            next_attempt="deterministic",
            attempts=[attempt("runtime_fallback", "timeout", "timeout").model_dump()],
        ),
    )
    entry, names = observe(ARTICLE_COMPENSATION.name, event)
    assert names == ["compensation/hygiene/fallback/timeout"]
    assert entry["stage"] == "compensation_fallback"
    assert entry["next_attempt"] == "deterministic"
    status = updated(None, ARTICLE_COMPENSATION.name, entry, None)
    assert status["last_reason"] == "timeout"
    assert "path" not in status


def test_the_ledger_names_a_counter_for_every_topic(case: CaseArticle) -> None:
    verdict = wire(standin_verdict(assembled_record(case.answers.article), ENTITY_A))
    assembled = on_wire(ARTICLE_ASSEMBLED.schema, assembled_record(case.answers.article))
    seen = {
        ARTICLE_INGESTED.name: observe(ARTICLE_INGESTED.name, ingested(case))[1],
        ARTICLE_ASSEMBLED.name: observe(ARTICLE_ASSEMBLED.name, assembled)[1],
        ECP_VERDICT.name: observe(ECP_VERDICT.name, verdict)[1],
        "rejected": observe(ECP_VERDICT.name, {**verdict, "approved": False, "entity": None})[1],
    }
    assert seen == {
        "article.ingested": ["ingested"],
        "article.assembled": ["assembled/primary"],
        "ecp.verdict": ["verdict/approved"],
        "rejected": ["verdict/rejected"],
    }


def test_the_enrichment_path_does_not_overwrite_the_hygiene_path(case: CaseArticle) -> None:
    article = case.answers.article
    assembled = on_wire(ARTICLE_ASSEMBLED.schema, assembled_record(article))
    entity = Entity(qid="Q42", name="Prefeitura")
    result = enriched_for(article, entity, case.answers.enrichment_valid)
    stored = {"kind": "enriched", "result": result.model_dump(mode="json"), "at": AT.timestamp()}
    enriched = wire(result_emit(stored))
    enriched = {**enriched, "path": "fallback"}
    status = updated(
        None, ARTICLE_ASSEMBLED.name, observe(ARTICLE_ASSEMBLED.name, assembled)[0], "t1"
    )
    entry, names = observe(ARTICLE_ENRICHED.name, enriched)
    assert names == ["enriched/fallback"]
    status = updated(status, ARTICLE_ENRICHED.name, entry, "t2")
    assert (status["stage"], status["path"]) == ("enriched", "primary")
    assert status["events"][-1]["content_hash"] == enrichment_content_hash(result)


def test_the_status_keeps_only_the_latest_events_and_never_mutates_its_input() -> None:
    status: dict[str, Any] | None = None
    for n in range(MAX_EVENTS + 5):
        status = updated(status, ARTICLE_INGESTED.name, {"stage": "ingested"}, f"t{n}")
    assert status is not None
    assert len(status["events"]) == MAX_EVENTS
    assert status["events"][0]["at"] == "t5"
    assert status["events"][-1]["at"] == f"t{MAX_EVENTS + 4}"

    before = copy.deepcopy(status)
    after = updated(status, ARTICLE_COMPENSATION.name, {"stage": "x", "reason": "r"}, "later")
    assert status == before  # the table's value is untouched: the caller reassigns
    assert after is not status and after["events"] is not status["events"]
    assert after["events"][-1] == {
        "topic": "article.compensation",
        "at": "later",
        "stage": "x",
        "reason": "r",
    }
    assert after["last_reason"] == "r"


def test_the_lineage_lists_each_attempt_once_and_names_each_version(
    case: CaseArticle,
) -> None:
    async def fallback_holds(candidates: CandidateSet, rung: Rung, source: str) -> Answer:
        good = rung == "runtime_fallback"
        answer = case.answers.hygiene_primary if good else case.answers.hygiene_invented_block
        role: Any = rung
        call = AttemptRecord(call=HYGIENE_CALL, role=role, outcome="ok",
                             model=FALLBACK if good else PRIMARY)  # fmt: skip
        return Answer(json.dumps(answer), [call], None)

    stage = Hygiene(has_models=True, ask=fallback_holds)
    produced = stage.ingest(ingested(case))
    status = None
    for topic, record, offset in [(ARTICLE_INGESTED, ingested(case), 17), *[
        (t, r, n) for n, (t, r) in enumerate(produced)
    ]]:  # fmt: skip
        entry, _ = observe(topic.name, record, offset)
        status = updated(status, topic.name, entry, "t")
    assert status is not None
    stages = [e["stage"] for e in status["events"]]
    assert stages == ["ingested", "proposed", "compensation_fallback", "proposed", "assembled"]
    _, primary, fell, fallback, done = status["events"]
    assert {e["version"] for e in status["events"]} == {"@17"}
    assert (primary["rung"], primary["model"], fallback["model"]) == (
        "runtime_primary", PRIMARY, FALLBACK)  # fmt: skip
    # Attempts are listed once judged: the primary's with the fallback decision, the
    # fallback's with the article (which repeats the primary's).
    assert "attempts" not in primary and "attempts" not in fallback
    assert [(a["model"], a["outcome"]) for a in fell["attempts"]] == [(PRIMARY, "invalid")]
    assert [(a["model"], a["outcome"]) for a in done["attempts"]] == [(FALLBACK, "ok")]
    assert "detail" not in fell  # no value: left out
    assert fell["next_attempt"] == "runtime_fallback"
    assert status["path"] == "fallback"
    declared = {**ingested(case), "version": 4}
    assert observe(ARTICLE_INGESTED.name, declared, 17)[0]["version"] == "v4@17"


# -- views -------------------------------------------------------------------------------------


def test_only_owned_partitions_are_summed() -> None:
    counters = {
        "0/ingested": 2,
        "1/ingested": 3,
        "2/ingested": 5,
        "10/ingested": 7,  # partition 10, not 1
        "1/assembled/primary": 4,
        "0/compensation/hygiene/fallback/timeout": 1,
        "2/compensation/hygiene/fallback/timeout": 9,
    }
    totals = summed(counters, [0, 1])
    assert totals == {
        "assembled/primary": 4,
        "compensation/hygiene/fallback/timeout": 1,
        "ingested": 5,
    }
    assert list(totals) == sorted(totals)
    assert summed(counters, []) == {}


def test_a_partitions_counts_add_to_those_an_earlier_release_kept_a_key_each() -> None:
    counters: dict[str, Any] = {
        "1": {"ingested": 4, "assembled/primary": 1},
        "10": {"ingested": 100},  # partition 10, not 1
        "1/ingested": 3,  # written before the counts of a partition shared a key
        "2": {"ingested": 50},
    }
    assert summed(counters, [1]) == {"assembled/primary": 1, "ingested": 7}
    assert summed(counters, [1, 2]) == {"assembled/primary": 1, "ingested": 57}


# -- settings ----------------------------------------------------------------------------------

BOOTSTRAP = {"KAFKA_BOOTSTRAP_SERVERS": "kafka-0:9092,kafka-1:9092"}


def test_settings_need_a_kafka_cluster() -> None:
    for env in ({}, {"KAFKA_BOOTSTRAP_SERVERS": "  "}):
        with pytest.raises(SettingsError, match="KAFKA_BOOTSTRAP_SERVERS"):
            WorkerSettings.from_env(env)
    settings = WorkerSettings.from_env(BOOTSTRAP)
    assert settings.connection.hosts == ["kafka-0:9092", "kafka-1:9092"]
    assert settings.ecp_standin is None
    assert settings.calls_in_flight >= 1


@pytest.mark.parametrize("raw", ["eight", "2.5", "0", "-3"])
def test_settings_refuse_a_concurrency_that_is_not_a_positive_number(raw: str) -> None:
    env = {**BOOTSTRAP, "ARTICLE_RUNTIME_CALLS_IN_FLIGHT": raw}
    with pytest.raises(SettingsError, match="ARTICLE_RUNTIME_CALLS_IN_FLIGHT"):
        WorkerSettings.from_env(env)


def test_settings_read_numbers_and_names() -> None:
    env = {
        **BOOTSTRAP,
        "ARTICLE_RUNTIME_CALLS_IN_FLIGHT": "16",
        "ARTICLE_RUNTIME_WEB_PORT": "7001",
        "ARTICLE_RUNTIME_APP_ID": "article-runtime-staging",
    }
    settings = WorkerSettings.from_env(env)
    assert (settings.calls_in_flight, settings.web_port) == (16, 7001)
    assert settings.app_id == "article-runtime-staging"
    with pytest.raises(SettingsError, match="ARTICLE_RUNTIME_WEB_PORT"):
        WorkerSettings.from_env({**BOOTSTRAP, "ARTICLE_RUNTIME_WEB_PORT": "0"})


def test_the_event_loop_is_uvloop_unless_asyncio_is_asked_for() -> None:
    assert WorkerSettings.from_env(BOOTSTRAP).event_loop == "uvloop"
    for raw, chosen in (("asyncio", "asyncio"), (" uvloop ", "uvloop"), ("", "uvloop")):
        env = {**BOOTSTRAP, "ARTICLE_RUNTIME_EVENT_LOOP": raw}
        assert WorkerSettings.from_env(env).event_loop == chosen
    for wrong in ("tokio", "UVLOOP", "asyncio,uvloop"):
        with pytest.raises(SettingsError, match="ARTICLE_RUNTIME_EVENT_LOOP"):
            WorkerSettings.from_env({**BOOTSTRAP, "ARTICLE_RUNTIME_EVENT_LOOP": wrong})


@pytest.mark.parametrize("env", [{"ECP_STANDIN_QID": "Q42"}, {"ECP_STANDIN_NAME": "Prefeitura"}])
def test_the_ecp_standin_needs_both_its_variables(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError, match="ECP_STANDIN_QID"):
        WorkerSettings.from_env({**BOOTSTRAP, **env})


def test_the_ecp_standin_is_read_from_both_variables() -> None:
    env = {**BOOTSTRAP, "ECP_STANDIN_QID": "Q42", "ECP_STANDIN_NAME": "Prefeitura"}
    assert WorkerSettings.from_env(env).ecp_standin == StandInEntity("Q42", "Prefeitura")


# -- following outcomes ------------------------------------------------------------------------


def add(outcome: ArticleOutcome, message: tuple[Topic, dict[str, Any]]) -> None:
    topic, record = message
    outcome.add(topic.name, record)


def outcome_with(case: CaseArticle, *messages: tuple[Topic, dict[str, Any]]) -> ArticleOutcome:
    outcome = ArticleOutcome(case.article_id)
    for message in messages:
        add(outcome, message)
    return outcome


def terminal(
    case: CaseArticle, stage: Any, reason: str, entity: StandInEntity | None = None
) -> tuple[Topic, dict[str, Any]]:
    named = None if entity is None else {"qid": entity.qid, "name": entity.name, "identity": None}
    event = compensation_event(
        case.article_id, stage=stage, kind="terminal", reason=reason, entity=named
    )
    return ARTICLE_COMPENSATION, on_wire(ARTICLE_COMPENSATION.schema, event)


def assembled_of(case: CaseArticle) -> tuple[Topic, dict[str, Any]]:
    return ARTICLE_ASSEMBLED, on_wire(
        ARTICLE_ASSEMBLED.schema, assembled_record(case.answers.article)
    )


def verdict_of(
    case: CaseArticle, entity: StandInEntity = ENTITY_A, *, approved: bool = True
) -> tuple[Topic, dict[str, Any]]:
    record = wire(standin_verdict(assembled_record(case.answers.article), entity))
    return ECP_VERDICT, {**record, "approved": approved}


def enriched_of(
    case: CaseArticle, entity: StandInEntity = ENTITY_A
) -> tuple[Topic, dict[str, Any]]:
    article = case.answers.article
    result = enriched_for(
        article, Entity(qid=entity.qid, name=entity.name), case.answers.enrichment_valid
    )
    stored = {"kind": "enriched", "result": result.model_dump(mode="json"), "at": AT.timestamp()}
    return ARTICLE_ENRICHED, wire(result_emit(stored))


def test_a_hygiene_terminal_event_settles_the_article(case: CaseArticle) -> None:
    assert outcome_with(case, terminal(case, "candidates", "empty_html")).settled
    assert outcome_with(case, terminal(case, "assembly", "no_body_blocks")).settled
    fallback = compensation_event(
        case.article_id,
        stage="hygiene",
        kind="fallback",
        reason="timeout",
        next_attempt="deterministic",
    )
    assert not outcome_with(case, (ARTICLE_COMPENSATION, fallback)).settled
    assert not outcome_with(case, terminal(case, "enrichment", "no_provider")).settled


def test_an_assembled_article_waits_for_its_verdict(case: CaseArticle) -> None:
    assert not outcome_with(case).settled
    assert not outcome_with(case, assembled_of(case)).settled
    assert outcome_with(case, assembled_of(case), verdict_of(case, approved=False)).settled


def test_an_approved_article_waits_for_its_enrichment_outcome(case: CaseArticle) -> None:
    waiting = outcome_with(case, assembled_of(case), verdict_of(case))
    assert not waiting.settled
    add(waiting, enriched_of(case, ENTITY_B))
    assert not waiting.settled  # another entity's enrichment is not this one's
    enriched = outcome_with(case, assembled_of(case), verdict_of(case), enriched_of(case))
    assert enriched.settled
    failed = outcome_with(
        case,
        assembled_of(case),
        verdict_of(case),
        terminal(case, "enrichment", "no_provider", ENTITY_A),
    )
    assert failed.settled


def test_every_approved_entity_needs_its_own_enrichment_outcome(case: CaseArticle) -> None:
    both = outcome_with(
        case, assembled_of(case), verdict_of(case, ENTITY_A), verdict_of(case, ENTITY_B)
    )
    add(both, enriched_of(case, ENTITY_A))
    assert not both.settled
    add(both, enriched_of(case, ENTITY_B))
    assert both.settled


def test_one_enrichment_failure_does_not_settle_two_approved_entities(case: CaseArticle) -> None:
    two = outcome_with(
        case,
        assembled_of(case),
        verdict_of(case, ENTITY_A),
        verdict_of(case, ENTITY_B),
        terminal(case, "enrichment", "primary_and_fallback_failed", ENTITY_A),
    )
    assert not two.settled  # one entity failed, the other has no outcome yet
    add(two, enriched_of(case, ENTITY_B))
    assert two.settled
    failed_a = two.enrichment_outcome(ENTITY_A.qid)
    assert failed_a is not None and failed_a["reason"] == "primary_and_fallback_failed"
    enriched_b = two.enrichment_outcome(ENTITY_B.qid)
    assert enriched_b is not None and enriched_b["entity"]["qid"] == ENTITY_B.qid


def test_the_ladders_rungs_are_the_roles_the_topics_know() -> None:
    schema = json.loads((AVRO_DIR / "CompensationEvent.avsc").read_text("utf-8"))
    (field,) = [f for f in schema["fields"] if f["name"] == "next_attempt"]
    (role,) = [t for t in field["type"] if isinstance(t, dict)]
    assert list(RUNGS) == role["symbols"]

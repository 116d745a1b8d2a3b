"""The stream-test cases: realistic unique pages, answers the runtime's own harnesses accept or
reject as each scenario intends, and a responder that routes concurrent requests by content."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from selectolax.lexbor import LexborHTMLParser

from article_runtime import contracts
from article_runtime.candidates import build_candidates
from article_runtime.enrichment.blocks import build_enrichment_input
from article_runtime.enrichment.call import enrich_article
from article_runtime.enrichment.harness import validate_enrichment
from article_runtime.enrichment.model import EnrichedArticle, EnrichmentFailure, Entity
from article_runtime.harness.pipeline import run_hygiene_harness
from article_runtime.hygiene import hygiene_article
from article_runtime.model import AssembledArticle, FeedMetadata
from tests.commonmark import paragraph_texts as read_back
from tests.llm_support import FALLBACK, PRIMARY, Recorder, config, run
from tests.support.openai_server import Reply, ScriptedOpenAIServer
from tests.support.stream_cases import (
    DEBRIS,
    NOT_JSON,
    SCENARIOS,
    CaseArticle,
    CaseResponder,
    assembled,
    call_kind,
    expected,
    find_markers,
    make_articles,
    responder,
)

ENTITY = Entity(qid="Q42", name="Prefeitura", identity="city government")
N = 24  # every scenario x language x topic pairing the cycle produces within three rounds


@pytest.fixture(scope="module")
def cases() -> list[CaseArticle]:
    return make_articles(N)


def article_nodes(case: CaseArticle) -> tuple[LexborHTMLParser, list[str]]:
    """The page and its story paragraphs (byline left out), read with selectolax."""
    tree = LexborHTMLParser(case.html.decode("utf-8"))
    paragraphs = [
        " ".join(node.text().split())
        for node in tree.css("article.story > p")
        if "byline" not in (node.attributes.get("class") or "")
    ]
    return tree, paragraphs


def harness(case: CaseArticle, answer: Any) -> Any:
    candidates = build_candidates(case.html, url=case.url)
    return run_hygiene_harness(
        candidates, answer, source_html=case.html, path="primary", source=case.article_id
    )


# -- the pages ---------------------------------------------------------------------------------


def test_articles_are_deterministic_and_unique(cases: list[CaseArticle]) -> None:
    again = make_articles(N)
    assert [c.html for c in again] == [c.html for c in cases]
    for field in ("article_id", "url", "html", "marker", "title"):
        values = [getattr(c, field) for c in cases]
        assert len(set(values)) == N, field
    assert cases[7].article_id == "case-0007"
    assert cases[7].marker == "ZK0-0007"
    other_seed = make_articles(N, seed=3)
    assert not {c.marker for c in other_seed} & {c.marker for c in cases}
    assert not {c.article_id for c in other_seed} & {c.article_id for c in cases}
    # Beyond the marker, the prose itself differs from page to page.
    first_paragraphs = [article_nodes(c)[1][0].split("–", 1)[1] for c in cases]
    assert len(set(first_paragraphs)) == N


def test_scenarios_cycle_and_meet_both_languages(cases: list[CaseArticle]) -> None:
    assert [c.scenario for c in cases[:8]] == [*SCENARIOS, *SCENARIOS]
    pairs = Counter((c.scenario, c.language) for c in cases)
    assert set(pairs) == {(s, lang) for s in SCENARIOS for lang in ("pt", "en")}


def test_pages_look_like_news_articles(cases: list[CaseArticle]) -> None:
    for case in cases:
        tree, paragraphs = article_nodes(case)
        head_title = tree.css_first("head > title")
        og_title = tree.css_first('meta[property="og:title"]')
        h1 = tree.css_first("article h1")
        time = tree.css_first("article time")
        assert head_title is not None and og_title is not None and h1 is not None
        assert time is not None and (time.attributes.get("datetime") or "").startswith("2024-")
        assert tree.css_first("article .byline a[rel=author]") is not None
        assert tree.css("nav a") and tree.css("footer a") and tree.css("aside a")
        assert 4 <= len(paragraphs) <= 7
        assert all(len(p) > 60 for p in paragraphs)
        root = tree.css_first("html")
        assert root is not None
        assert (root.attributes.get("lang") or "").startswith(case.language)
        # The marker: in every title form and in the first paragraph's dateline, nowhere else.
        assert h1.text(strip=True) == case.title
        assert case.marker in head_title.text() and case.marker in case.title
        assert case.marker in (og_title.attributes.get("content") or "")
        assert case.marker in paragraphs[0]
        assert not any(case.marker in p for p in paragraphs[1:])


def test_the_detected_language_is_the_written_one(cases: list[CaseArticle]) -> None:
    for case in cases:
        candidates = case.answers.candidates
        assert candidates.language == case.language, case.article_id
        assert candidates.language_detected == case.language, case.article_id


def test_find_markers_reads_whole_tokens() -> None:
    text = "t1 h1: Cheias em Recife (ZK0-0007)\nb4 DT: RECIFE (ZK12-0103) – ZK, ZK- e ZK0-0007-"
    assert find_markers(text) == {"ZK0-0007", "ZK12-0103"}
    assert find_markers("no marker here") == set()


# -- hygiene answers ---------------------------------------------------------------------------


def test_each_path_assembles_its_own_article_and_the_page_says_which(
    cases: list[CaseArticle],
) -> None:
    """The primary's answer (debris repaired, last paragraph out), the fallback's (debris
    repaired, every paragraph) and the deterministic path (the page as written) give three
    different articles, each the story as the test reads it from the page."""
    linked = figures = 0
    for case in cases:
        tree, paragraphs = article_nodes(case)
        assert sum(DEBRIS in p for p in paragraphs) == 1  # the defect the models repair
        clean = [p.replace(DEBRIS, "") for p in paragraphs]
        answers = case.answers
        for path, answer, story in (
            ("primary", answers.hygiene_primary, clean[:-1]),
            ("fallback", answers.hygiene_fallback, clean),
        ):
            assert contracts.first_violation(contracts.HYGIENE_OUTPUT, answer) is None
            result = harness(case, answer)
            assert result.report.valid, (case.article_id, path, result.report.reason)
            article: AssembledArticle = result.article
            assert [r.category for r in article.repairs.applied] == ["unicode"], path
            assert read_back(article.markdown) == story, (case.article_id, path)
            assert article.markdown == assembled(case, path).markdown
        deterministic = assembled(case, "deterministic")
        assert read_back(deterministic.markdown) == paragraphs  # debris and all
        assert (
            len(
                {assembled(case, p).markdown for p in ("primary", "fallback")}
                | {deterministic.markdown}
            )
            == 3
        )
        assert read_back(expected(case).markdown) == list(expected(case).paragraphs)
        evidence = [b.text for b in build_enrichment_input(deterministic, ENTITY).blocks]
        assert evidence == paragraphs, case.article_id  # the story, whole, in order
        for boilerplate in ("Mais lidas", "Most read", "newsletter", "©"):
            assert boilerplate not in deterministic.markdown
        links = tree.css("article.story > p:not(.byline) a")
        for link in links:  # inline links survive as links
            assert f"[{link.text()}](https://www." in deterministic.markdown
        images = tree.css("article figure img")
        for image in images:
            assert f"]({image.attributes.get('src')})" in deterministic.markdown
        linked += bool(links)
        figures += bool(images)
    assert linked and figures  # some pages have inline links, some a captioned image


def test_invalid_hygiene_answers_fail_the_harness_for_the_intended_reason(
    cases: list[CaseArticle],
) -> None:
    for case in cases:
        invented = harness(case, case.answers.hygiene_invented_block)
        assert (invented.article, invented.report.reason) == (None, "unknown_block_id")
        prose = harness(case, NOT_JSON)
        assert (prose.article, prose.report.reason) == (None, "invalid_json")


# -- enrichment answers ------------------------------------------------------------------------


def test_enrichment_answers_validate_against_every_article(cases: list[CaseArticle]) -> None:
    for case in cases:
        inp = build_enrichment_input(case.answers.article, ENTITY)
        answers = case.answers
        verdict = validate_enrichment(answers.enrichment_valid, inp)
        assert verdict.report.valid, (case.article_id, verdict.report)
        assert verdict.proposal is not None
        assert 3 <= len(verdict.proposal.tags) <= 5
        assert verdict.proposal.sentiment == case.sentiment
        for tag in verdict.proposal.tags:
            assert case.marker not in tag.tag
        bad = validate_enrichment(answers.enrichment_unknown_evidence, inp)
        assert (bad.proposal, bad.report.reason) == (None, "unknown_evidence_id")
        few = validate_enrichment(answers.enrichment_too_few_tags, inp)
        assert (few.proposal, few.report.reason) == (None, "too_few_tags")


def test_sentiments_vary(cases: list[CaseArticle]) -> None:
    assert {c.sentiment for c in cases} == {"positive", "negative", "neutral"}


# -- the responder, through a real server and the real runtime -------------------------------


async def both_calls(
    case: CaseArticle, runtime: Any
) -> tuple[AssembledArticle, EnrichedArticle | EnrichmentFailure]:
    candidates = build_candidates(case.html, url=case.url)
    article = await hygiene_article(candidates, case.html, source=case.article_id, llm=runtime)
    return article, await enrich_article(article, ENTITY, llm=runtime)


def roles_and_reasons(attempts: list[Any]) -> tuple[tuple[str, str | None], ...]:
    return tuple((a.role, a.reason) for a in attempts)


def test_the_responder_routes_concurrent_articles_to_their_scenarios(
    server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = make_articles(8, seed=1)  # every scenario in both languages
    answer = responder(cases, PRIMARY, FALLBACK)
    server.respond_with(answer)
    runtime = Recorder().runtime(config(monkeypatch, server.base_url))

    async def everything() -> list[tuple[AssembledArticle, EnrichedArticle | EnrichmentFailure]]:
        return await asyncio.gather(*(both_calls(case, runtime) for case in cases))

    results = run(everything(), runtime)

    for case, (article, enriched) in zip(cases, results, strict=True):
        want = expected(case)
        assert article.path == want.hygiene_path, case.article_id
        assert roles_and_reasons(article.attempts) == want.hygiene_attempts
        assert article.markdown == want.markdown
        assert roles_and_reasons(enriched.attempts) == want.enrichment_attempts
        if want.enrichment_ok:
            assert isinstance(enriched, EnrichedArticle), case.article_id
            assert enriched.sentiment == want.sentiment
            assert tuple(t.tag for t in enriched.tags) == want.tags
        else:
            assert isinstance(enriched, EnrichmentFailure), case.article_id
            assert enriched.reason == "primary_and_fallback_failed"
    # Each scenario asks exactly the models it should: one call per answer, no retries.
    per_scenario = {"primary": 2, "fallback": 3, "deterministic": 3, "enrich_terminal": 3}
    assert len(server.calls) == sum(per_scenario[c.scenario] for c in cases)
    assert {str(call.model) for call in server.calls} == {PRIMARY, FALLBACK}
    assert server.unscripted == [] and server.responder_errors == []
    assert answer.unmatched == [] and answer.mismatched == []


def test_requests_for_unknown_articles_fall_through_and_are_listed(
    server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    known, stranger = make_articles(1), make_articles(2, seed=5)[1]
    answer = responder(known, PRIMARY, FALLBACK)
    server.respond_with(answer)
    server.script(PRIMARY, Reply(NOT_JSON))  # the queue still serves what the responder won't
    server.script(FALLBACK, Reply(NOT_JSON))
    runtime = Recorder().runtime(config(monkeypatch, server.base_url))
    candidates = build_candidates(stranger.html, url=stranger.url)

    article = run(hygiene_article(candidates, stranger.html, source="x", llm=runtime), runtime)

    assert article.path == "deterministic"
    assert [call.action for call in server.calls] == [Reply(NOT_JSON), Reply(NOT_JSON)]
    assert len(answer.unmatched) == 2
    assert all("markers=[]" in line for line in answer.unmatched)


def test_a_request_built_from_other_candidates_is_answered_and_reported(
    server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    (case,) = make_articles(1)  # scenario primary
    answer = responder([case], PRIMARY, FALLBACK)
    server.respond_with(answer)
    runtime = Recorder().runtime(config(monkeypatch, server.base_url))
    feed = FeedMetadata(title="Um título do feed", author="Redação")
    candidates = build_candidates(case.html, url=case.url, feed=feed)

    run(hygiene_article(candidates, case.html, source=case.article_id, llm=runtime), runtime)

    assert (case.article_id, "article_content_hygiene") in answer.mismatched
    assert answer.unmatched == []


def test_models_the_responder_does_not_know_fall_through(cases: list[CaseArticle]) -> None:
    answer: CaseResponder = responder(cases[:4], PRIMARY, FALLBACK)
    case = cases[0]
    data = f"\n<article_data>\ntitle: {case.title}\n</article_data>\n"
    body = {"messages": [{"role": "user", "content": "prompt article_sentiment_tags 1.0.0" + data}]}
    assert call_kind(body) == "article_sentiment_tags"
    assert answer("gpt-unknown", body) is None
    assert answer(PRIMARY, {"messages": []}) is None
    assert isinstance(answer(PRIMARY, body), Reply)
    assert len(answer.unmatched) == 2
    with pytest.raises(ValueError):
        responder(cases[:1], PRIMARY, PRIMARY)

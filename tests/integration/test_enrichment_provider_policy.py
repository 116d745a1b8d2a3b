"""Enrichment over a real HTTP server: primary, fallback, terminal failure, never a retry of
an invalid answer on the same model."""

from __future__ import annotations

import pytest
from pytest import MonkeyPatch

from article_runtime.enrichment.blocks import evidence_blocks
from article_runtime.enrichment.call import enrich_article
from article_runtime.enrichment.model import EnrichedArticle, EnrichmentFailure, Entity
from article_runtime.harness.pipeline import run_hygiene_harness
from article_runtime.llm.policy import LLMRuntime
from article_runtime.model import AssembledArticle
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.service.records import enriched_record
from tests.factories import candidate_set, proposal
from tests.llm_support import FALLBACK, PRIMARY, Recorder, config, run
from tests.support.openai_server import Drop, Reply, ScriptedOpenAIServer, Status

ENTITY = Entity(qid="Q8678", name="Rio de Janeiro", identity="city in Brazil")
GOOD = {
    "sentiment": "positive",
    "tags": [
        {"tag": "enchentes", "evidence_block_ids": ["p1", "p2"]},
        {"tag": "zona norte", "evidence_block_ids": ["p2"]},
        {"tag": "Diário Oficial", "evidence_block_ids": ["p3"]},
    ],
}
ENGLISH_TAGS = {
    "sentiment": "positive",
    "tags": [
        {"tag": "floods", "evidence_block_ids": ["p2"]},
        {"tag": "city hall", "evidence_block_ids": ["p2"]},
        {"tag": "public works", "evidence_block_ids": ["p3"]},
    ],
}


@pytest.fixture
def article() -> AssembledArticle:
    result = run_hygiene_harness(
        candidate_set(), proposal(), source_html=b"<html/>", path="primary", source="rio.html"
    )
    assert result.article is not None
    return result.article


def enrich(
    server: ScriptedOpenAIServer, monkeypatch: MonkeyPatch, article: AssembledArticle
) -> EnrichedArticle | EnrichmentFailure:
    runtime = Recorder().runtime(config(monkeypatch, server.base_url))
    result = run(enrich_article(article, ENTITY, llm=runtime), runtime)
    assert server.unscripted == [] and server.pending() == {}
    return result


def roles(result: EnrichedArticle | EnrichmentFailure) -> list[tuple[str, str, str | None]]:
    return [(a.role, a.outcome, a.reason) for a in result.attempts]


def test_valid_primary_answer(
    server: ScriptedOpenAIServer, monkeypatch: MonkeyPatch, article: AssembledArticle
) -> None:
    server.script(PRIMARY, Reply(GOOD))
    result = enrich(server, monkeypatch, article)
    assert isinstance(result, EnrichedArticle)
    assert (result.path, result.sentiment) == ("primary", "positive")
    assert [t.tag for t in result.tags] == ["enchentes", "zona norte", "Diário Oficial"]
    assert result.article_hash == article.hashes.markdown
    assert result.prompt.name == "article_sentiment_tags"


def test_entity_identity_reaches_the_model_but_not_the_whole_ecp_record(
    server: ScriptedOpenAIServer, monkeypatch: MonkeyPatch, article: AssembledArticle
) -> None:
    server.script(PRIMARY, Reply(GOOD))
    enrich(server, monkeypatch, article)
    user = server.calls[0].messages[-1]["content"]
    assert "Q8678 | Rio de Janeiro | city in Brazil" in user
    assert "https://example.org/do" not in user  # link targets never reach the model


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (ENGLISH_TAGS, "tag_language_mismatch"),
        ({**GOOD, "sentiment": "mixed"}, "invalid_sentiment"),
        ({**GOOD, "summary": "A plan against floods."}, "schema_violation"),
        ({**GOOD, "tags": GOOD["tags"][:2]}, "too_few_tags"),
        (
            {**GOOD, "tags": [*GOOD["tags"], {"tag": "ENCHENTES", "evidence_block_ids": ["p2"]}]},
            "duplicate_tag",
        ),
        (
            {**GOOD, "tags": [*GOOD["tags"], {"tag": "obras", "evidence_block_ids": ["p99"]}]},
            "unknown_evidence_id",
        ),
    ],
)
def test_invalid_answer_goes_to_the_fallback_once(
    server: ScriptedOpenAIServer,
    monkeypatch: MonkeyPatch,
    article: AssembledArticle,
    answer: dict[str, object],
    reason: str,
) -> None:
    server.script(PRIMARY, Reply(answer))
    server.script(FALLBACK, Reply(GOOD))
    result = enrich(server, monkeypatch, article)
    assert [c.model for c in server.calls] == [PRIMARY, FALLBACK]
    assert isinstance(result, EnrichedArticle) and result.path == "fallback"
    assert roles(result) == [
        ("runtime_primary", "invalid", reason),
        ("runtime_fallback", "ok", None),
    ]


def test_both_invalid_is_a_terminal_failure(
    server: ScriptedOpenAIServer, monkeypatch: MonkeyPatch, article: AssembledArticle
) -> None:
    server.script(PRIMARY, Reply(ENGLISH_TAGS))
    server.script(FALLBACK, Reply("I think it is positive."))
    result = enrich(server, monkeypatch, article)
    assert isinstance(result, EnrichmentFailure)
    assert (result.reason, result.last_reason) == ("primary_and_fallback_failed", "invalid_json")
    assert [c.model for c in server.calls] == [PRIMARY, FALLBACK]


def test_technical_failures_retry_then_fall_back_then_fail_terminally(
    server: ScriptedOpenAIServer, monkeypatch: MonkeyPatch, article: AssembledArticle
) -> None:
    server.script(PRIMARY, Status(429, headers={"Retry-After": "0"}), Status(500), Drop())
    server.script(FALLBACK, Status(503), Status(503), Status(503))
    result = enrich(server, monkeypatch, article)
    assert isinstance(result, EnrichmentFailure) and result.terminal
    assert [a.outcome for a in result.attempts] == [
        "rate_limited",
        "server_error",
        "connection_error",
        "server_error",
        "server_error",
        "server_error",
    ]


def test_no_provider_is_a_terminal_failure(article: AssembledArticle) -> None:
    import asyncio

    result = asyncio.run(enrich_article(article, ENTITY, llm=None))
    assert isinstance(result, EnrichmentFailure) and result.reason == "no_provider"


def test_hygiene_only_configuration_has_no_enrichment_provider(
    server: ScriptedOpenAIServer, monkeypatch: MonkeyPatch, article: AssembledArticle
) -> None:
    providers = config(monkeypatch, server.base_url)
    hygiene_only = type(providers)(
        {"article_content_hygiene": providers.calls["article_content_hygiene"]}
    )
    runtime = LLMRuntime(hygiene_only)
    result = run(enrich_article(article, ENTITY, llm=runtime), runtime)
    assert isinstance(result, EnrichmentFailure) and result.reason == "no_provider"
    assert server.calls == []


def test_the_result_carries_the_text_of_every_cited_block(
    server: ScriptedOpenAIServer, monkeypatch: MonkeyPatch, article: AssembledArticle
) -> None:
    """evidence_block_ids read without the article: each cited block once, in article order,
    with the text the call judged (rebuilt here from the Markdown), through the Avro contract."""
    answer = {
        "sentiment": "positive",
        "tags": [
            {"tag": "enchentes", "evidence_block_ids": ["p2", "p1"]},
            {"tag": "Diário Oficial", "evidence_block_ids": ["p3"]},
            {"tag": "Rio", "evidence_block_ids": ["p1", "p2"]},
        ],
    }
    server.script(PRIMARY, Reply(answer))
    result = enrich(server, monkeypatch, article)
    assert isinstance(result, EnrichedArticle) and result.evidence is not None
    blocks = {b.id: b.text for b in evidence_blocks(article.markdown)}
    assert len(blocks) > 3  # some blocks are not cited, and must not be carried
    assert [(b.id, b.text) for b in result.evidence] == [(i, blocks[i]) for i in ("p1", "p2", "p3")]
    for tag in result.tags:
        texts = {b.id: b.text for b in result.evidence}
        assert all(block_id in texts for block_id in tag.evidence_block_ids)
    codec = AvroCodec()
    record = codec.decode(
        codec.encode("ArticleEnriched", enriched_record(result)), "ArticleEnriched"
    )
    assert record["evidence"] == [{"id": b.id, "text": b.text} for b in result.evidence]

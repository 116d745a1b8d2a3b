"""Every request caps its output; an answer cut there ends ``output_truncated``; every refused
answer's attempt says where and why (issue 40). Against the scripted OpenAI-protocol server."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pytest import MonkeyPatch

from article_runtime.enrichment.call import enrich_article
from article_runtime.enrichment.model import EnrichedArticle, EnrichmentFailure, Entity
from article_runtime.harness.pipeline import run_hygiene_harness
from article_runtime.hygiene import hygiene_article
from article_runtime.llm.providers import parse_providers
from article_runtime.model import AssembledArticle
from article_runtime.tokens import count_tokens
from tests.factories import candidate_set, proposal
from tests.llm_support import (
    FALLBACK,
    PRIMARY,
    Recorder,
    config,
    providers_yaml,
    run,
)
from tests.support.openai_server import Reply, ScriptedOpenAIServer, Status

Server = ScriptedOpenAIServer
VALID = Reply(proposal(), prompt_tokens=900, completion_tokens=60)
# What gpt-4o-mini (the fallback) may be asked for at most: a larger cap is an HTTP 400.
FALLBACK_LIMIT = 16_384
ENTITY = Entity(qid="Q8678", name="Rio de Janeiro", identity="city in Brazil")
GOOD_TAGS = {
    "sentiment": "positive",
    "tags": [
        {"tag": "enchentes", "evidence_block_ids": ["p1", "p2"]},
        {"tag": "zona norte", "evidence_block_ids": ["p2"]},
        {"tag": "Diário Oficial", "evidence_block_ids": ["p3"]},
    ],
}


def hygiene(
    server: Server, monkeypatch: MonkeyPatch, **extra: Any
) -> tuple[AssembledArticle, Recorder]:
    recorder = Recorder()
    runtime = recorder.runtime(config(monkeypatch, server.base_url, extra=extra or None))
    article = run(hygiene_article(candidate_set(), b"<html/>", source="t", llm=runtime), runtime)
    assert server.unscripted == [] and server.pending() == {}
    return article, recorder


@pytest.fixture
def article() -> AssembledArticle:
    result = run_hygiene_harness(
        candidate_set(), proposal(), source_html=b"<html/>", path="primary", source="rio.html"
    )
    assert result.article is not None
    return result.article


def enrich(
    server: Server, monkeypatch: MonkeyPatch, article: AssembledArticle
) -> tuple[EnrichedArticle | EnrichmentFailure, Recorder]:
    recorder = Recorder()
    runtime = recorder.runtime(config(monkeypatch, server.base_url))
    result = run(enrich_article(article, ENTITY, llm=runtime), runtime)
    assert server.unscripted == [] and server.pending() == {}
    return result, recorder


def body(server: Server, n: int) -> dict[str, Any]:
    sent = server.calls[n].body
    assert sent is not None
    return sent


def test_hygiene_requests_primary_and_fallback_cap_their_output(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    """OpenAI's models take max_completion_tokens; the cap holds the article's right answer,
    pretty-printed, and stays within what the model may be asked for."""
    server.script(PRIMARY, Reply(proposal(kept_block_ids=["b404"])))
    server.script(FALLBACK, VALID)
    hygiene(server, monkeypatch)
    needed = count_tokens(json.dumps(proposal(), indent=2))
    for n in (0, 1):
        sent = body(server, n)
        assert "max_tokens" not in sent
        assert needed < sent["max_completion_tokens"] <= FALLBACK_LIMIT


def test_enrichment_requests_primary_and_fallback_cap_their_output(
    server: Server, monkeypatch: MonkeyPatch, article: AssembledArticle
) -> None:
    server.script(PRIMARY, Reply({"sentiment": "positive", "tags": []}))
    server.script(FALLBACK, Reply(GOOD_TAGS))
    result, _ = enrich(server, monkeypatch, article)
    assert isinstance(result, EnrichedArticle)
    needed = count_tokens(json.dumps(GOOD_TAGS, ensure_ascii=False, indent=2))
    caps = [body(server, n)["max_completion_tokens"] for n in (0, 1)]
    # 8 tags of 60 characters and 5 IDs each bound the answer: far below the hygiene cap.
    assert all(needed < cap < 2_000 for cap in caps)


@pytest.mark.parametrize(
    ("extra", "field", "value"),
    [
        ({"output_cap_param": "max_tokens"}, "max_tokens", None),
        ({"max_output_tokens": 700}, "max_completion_tokens", 700),
        ({"output_cap_param": "max_tokens", "max_output_tokens": 700}, "max_tokens", 700),
    ],
)
def test_the_cap_goes_in_the_field_and_within_the_ceiling_configured(
    server: Server, monkeypatch: MonkeyPatch, extra: dict[str, Any], field: str, value: Any
) -> None:
    server.script(PRIMARY, VALID)
    hygiene(server, monkeypatch, **extra)
    sent = body(server, 0)
    other = {"max_tokens", "max_completion_tokens"} - {field}
    assert not other & sent.keys()
    assert sent[field] == value if value is not None else sent[field] > 0


def test_no_cap_is_sent_when_the_provider_says_none(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    server.script(PRIMARY, VALID)
    hygiene(server, monkeypatch, output_cap_param="none")
    assert not {"max_tokens", "max_completion_tokens"} & body(server, 0).keys()


def test_params_may_not_set_the_cap_themselves(monkeypatch: MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_PRIMARY_KEY", "k")
    monkeypatch.setenv("TEST_FALLBACK_KEY", "k")
    data = providers_yaml("http://127.0.0.1:9/v1", extra={"params": {"max_tokens": 10}})
    with pytest.raises(Exception, match="max_tokens"):
        parse_providers(data)


CUT = Reply('{"title_candidate_id": "t1", "kept_block_ids": ["b1", "b1", "b1", "b1"',
            prompt_tokens=900, completion_tokens=700, finish_reason="length")  # fmt: skip


def test_an_answer_cut_at_the_cap_ends_output_truncated_and_the_fallback_is_asked(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    server.script(PRIMARY, CUT)
    server.script(FALLBACK, VALID)
    article, recorder = hygiene(server, monkeypatch, max_output_tokens=700)
    assert [str(c.model) for c in server.calls] == [PRIMARY, FALLBACK]  # never again on it
    cut = article.attempts[0]
    assert (cut.role, cut.outcome, cut.reason) == ("runtime_primary", "output_truncated",
                                                   "output_truncated")  # fmt: skip
    assert cut.detail == "answer cut at 700 output tokens (cap 700)"
    assert (cut.prompt_tokens, cut.completion_tokens) == (900, 700)  # paid for
    assert cut.cost_usd == pytest.approx((900 * 0.4 + 700 * 1.6) / 1e6)
    assert article.path == "fallback"
    traced = recorder.generations[0]
    assert (traced.attempt.outcome, traced.finish_reason, traced.output_cap) == (
        "output_truncated",
        "length",
        700,
    )
    assert traced.validation.reason == "output_truncated"
    assert traced.validation.schema_valid is None  # never judged


def test_an_enrichment_answer_cut_at_the_cap_ends_output_truncated(
    server: Server, monkeypatch: MonkeyPatch, article: AssembledArticle
) -> None:
    server.script(PRIMARY, Reply('{"sentiment": "posi', finish_reason="length"))
    server.script(FALLBACK, Reply('{"sentiment"', finish_reason="length"))
    result, _ = enrich(server, monkeypatch, article)
    assert isinstance(result, EnrichmentFailure)
    assert [(a.role, a.outcome) for a in result.attempts] == [
        ("runtime_primary", "output_truncated"),
        ("runtime_fallback", "output_truncated"),
    ]
    assert result.last_reason == "output_truncated"


def test_a_refused_answer_names_its_step_and_first_violation(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    no_blocks = {k: v for k, v in proposal().items() if k != "kept_block_ids"}
    server.script(PRIMARY, Reply(no_blocks))
    server.script(FALLBACK, Reply(proposal(kept_block_ids=["b1", "b2", "b404"])))
    article, recorder = hygiene(server, monkeypatch)
    first, second = article.attempts[:2]
    assert (first.step, first.detail) == ("schema_valid", "kept_block_ids: required")
    assert (second.step, second.reason, second.detail) == ("block_ids", "unknown_block_id", "b404")
    assert recorder.generations[0].validation.detail == "kept_block_ids: required"


def test_a_technical_failure_says_what_the_transport_saw(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    server.script(PRIMARY, Status(503), Status(503), Status(503))
    server.script(FALLBACK, VALID)
    article, _ = hygiene(server, monkeypatch)
    assert [a.detail for a in article.attempts[:3]] == ["HTTP 503"] * 3


def test_a_detail_that_could_quote_the_article_is_left_out(
    server: Server, monkeypatch: MonkeyPatch, article: AssembledArticle
) -> None:
    """A tag the evidence does not support: the step is named, its text is not recorded."""
    invented = {
        "sentiment": "negative",
        "tags": [
            {"tag": "prefeito absolvido", "evidence_block_ids": ["p2"]},
            {"tag": "zona norte", "evidence_block_ids": ["p2"]},
            {"tag": "enchentes", "evidence_block_ids": ["p2"]},
        ],
    }
    server.script(PRIMARY, Reply(invented))
    server.script(FALLBACK, Reply(GOOD_TAGS))
    result, recorder = enrich(server, monkeypatch, article)
    refused = result.attempts[0]
    assert refused.outcome == "invalid" and refused.step is not None
    assert refused.detail is None
    metadata = json.dumps(recorder.generations[0].model_dump(exclude={"context", "answer"}))
    assert "absolvido" not in metadata

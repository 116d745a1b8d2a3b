"""Spec 10 against a real HTTP server: the exact calls per provider and the resulting path."""

from __future__ import annotations

import json

import pytest
from pytest import MonkeyPatch

from article_runtime.hygiene import hygiene_article
from article_runtime.llm.prompts import load_prompt
from article_runtime.model import AssembledArticle
from tests.factories import candidate_set, proposal
from tests.llm_support import FALLBACK, PRIMARY, Recorder, config, run
from tests.support.openai_server import (
    Action,
    Delay,
    Drop,
    Reply,
    ScriptedOpenAIServer,
    Status,
)

Server = ScriptedOpenAIServer

VALID = Reply(proposal(), prompt_tokens=900, completion_tokens=60)
INVENTED_ID = Reply(proposal(kept_block_ids=["b1", "b2", "b404"]))


def hygiene(
    server: ScriptedOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    recorder: Recorder | None = None,
    **providers: str,
) -> tuple[AssembledArticle, Recorder]:
    recorder = recorder or Recorder()
    runtime = recorder.runtime(config(monkeypatch, server.base_url, **providers))
    article = run(hygiene_article(candidate_set(), b"<html/>", source="t", llm=runtime), runtime)
    assert server.unscripted == [] and server.pending() == {}
    return article, recorder


def models(server: ScriptedOpenAIServer) -> list[str]:
    return [str(call.model) for call in server.calls]


def outcomes(article: AssembledArticle) -> list[tuple[str, str, str | None]]:
    return [(a.role, a.outcome, a.reason) for a in article.attempts]


def test_valid_primary_answer_is_assembled(server: Server, monkeypatch: MonkeyPatch) -> None:
    server.script(PRIMARY, VALID)
    article, _ = hygiene(server, monkeypatch)
    assert models(server) == [PRIMARY]
    assert article.path == "primary"
    assert outcomes(article) == [("runtime_primary", "ok", None)]
    assert article.usage.prompt_tokens == 900 and article.usage.completion_tokens == 60
    assert article.usage.cost_usd == pytest.approx((900 * 0.4 + 60 * 1.6) / 1e6)


def test_openai_models_answer_in_the_strict_schema_by_default(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    """The certified OpenAI models get structured outputs: the schema enforced in decoding,
    every property required, no keyword strict mode refuses; the prompt keeps its schema."""
    server.script(PRIMARY, VALID)
    hygiene(server, monkeypatch)
    sent = server.calls[0].response_format
    assert sent is not None and sent["type"] == "json_schema"
    assert sent["json_schema"]["strict"] is True
    schema = sent["json_schema"]["schema"]
    assert schema["required"] == list(schema["properties"])
    assert "removed_block_reasons" in schema["required"]
    assert "maxLength" not in json.dumps(schema) and "uniqueItems" not in json.dumps(schema)
    assert "kept_block_ids" in server.calls[0].messages[0]["content"]


def test_json_object_is_the_setting_for_servers_without_structured_outputs(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    server.script(PRIMARY, VALID)
    hygiene(server, monkeypatch, response_format="json_object")
    assert server.calls[0].response_format == {"type": "json_object"}


def test_structured_output_is_requested_when_configured(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    server.script(PRIMARY, VALID)
    hygiene(server, monkeypatch, response_format="json_schema")
    sent = server.calls[0].response_format
    assert sent is not None and sent["type"] == "json_schema"
    assert sent["json_schema"]["strict"] is False
    assert "kept_block_ids" in sent["json_schema"]["schema"]["properties"]
    assert "kept_block_ids" in server.calls[0].messages[0]["content"]


@pytest.mark.parametrize(
    ("failure", "outcome"),
    [
        (Status(429, headers={"Retry-After": "0"}), "rate_limited"),
        (Status(500), "server_error"),
        (Status(503), "server_error"),
        (Delay(6.0, then=VALID), "timeout"),
        (Drop(), "connection_error"),
    ],
)
def test_technical_failure_is_retried_on_the_same_provider(
    server: Server, monkeypatch: MonkeyPatch, failure: Action, outcome: str
) -> None:
    server.script(PRIMARY, failure, VALID)
    article, recorder = hygiene(server, monkeypatch)
    assert models(server) == [PRIMARY, PRIMARY]
    assert article.path == "primary"
    assert outcomes(article) == [
        ("runtime_primary", outcome, outcome),
        ("runtime_primary", "ok", None),
    ]
    assert len(recorder.sleeps) == 1


def test_retry_after_is_honoured(server: Server, monkeypatch: MonkeyPatch) -> None:
    server.script(PRIMARY, Status(429, headers={"Retry-After": "2"}), VALID)
    article, recorder = hygiene(server, monkeypatch)
    assert recorder.sleeps == [2.0]
    assert article.attempts[0].retry_after_s == 2.0


def test_retry_after_longer_than_allowed_goes_to_fallback(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    server.script(PRIMARY, Status(429, headers={"Retry-After": "3600"}))
    server.script(FALLBACK, VALID)
    article, recorder = hygiene(server, monkeypatch)
    assert models(server) == [PRIMARY, FALLBACK]
    assert recorder.sleeps == []
    assert article.path == "fallback"


def test_retries_are_bounded_with_backoff_then_fallback(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    server.script(PRIMARY, Status(500), Status(502), Status(503))
    server.script(FALLBACK, VALID)
    article, recorder = hygiene(server, monkeypatch)
    assert models(server) == [PRIMARY, PRIMARY, PRIMARY, FALLBACK]
    assert recorder.sleeps == [0.01, 0.02]
    assert article.path == "fallback"
    assert [a.attempt for a in article.attempts] == [1, 2, 3, 1]


def test_client_error_is_not_retried(server: Server, monkeypatch: MonkeyPatch) -> None:
    server.script(PRIMARY, Status(400))
    server.script(FALLBACK, VALID)
    article, _ = hygiene(server, monkeypatch)
    assert models(server) == [PRIMARY, FALLBACK]
    assert outcomes(article)[0] == ("runtime_primary", "client_error", "client_error")


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (Reply("Sure! Here is the article: ..."), "invalid_json"),
        (Reply({"title_candidate_id": "t1"}), "schema_violation"),
        (Reply(proposal(markdown="# Rewritten")), "schema_violation"),
        (INVENTED_ID, "unknown_block_id"),
        (Reply(proposal(title_candidate_id="b2")), "wrong_kind_metadata_id"),
        (Reply(proposal(kept_block_ids=["b3", "b2"])), "order_violation"),
    ],
)
def test_invalid_answer_goes_straight_to_fallback_never_the_same_model(
    server: Server, monkeypatch: MonkeyPatch, answer: Action, reason: str
) -> None:
    server.script(PRIMARY, answer)
    server.script(FALLBACK, VALID)
    article, recorder = hygiene(server, monkeypatch)
    assert models(server) == [PRIMARY, FALLBACK]
    assert recorder.sleeps == []
    assert article.path == "fallback"
    assert outcomes(article) == [
        ("runtime_primary", "invalid", reason),
        ("runtime_fallback", "ok", None),
    ]


def test_invented_url_in_a_repair_invalidates_the_answer(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    repair = {
        "target_id": "b2",
        "original": "zona norte.",
        "replacement": "zona norte. https://evil.example/x",
        "category": "punctuation_corruption",
        "justification": "x",
    }
    server.script(PRIMARY, Reply(proposal(repairs=[repair])))
    server.script(FALLBACK, VALID)
    article, _ = hygiene(server, monkeypatch)
    assert outcomes(article)[0] == ("runtime_primary", "invalid", "ungrounded_url")
    assert "evil.example" not in article.markdown


def test_both_invalid_takes_the_deterministic_path(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    server.script(PRIMARY, INVENTED_ID)
    server.script(FALLBACK, Reply("not json"))
    article, _ = hygiene(server, monkeypatch)
    assert models(server) == [PRIMARY, FALLBACK]
    assert article.path == "deterministic"
    assert outcomes(article) == [
        ("runtime_primary", "invalid", "unknown_block_id"),
        ("runtime_fallback", "invalid", "invalid_json"),
        ("deterministic", "ok", None),
    ]


def test_both_technically_exhausted_takes_the_deterministic_path(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    server.script(PRIMARY, Drop(), Drop(), Drop())
    server.script(FALLBACK, Status(500), Status(500), Status(500))
    article, recorder = hygiene(server, monkeypatch)
    assert models(server) == [PRIMARY] * 3 + [FALLBACK] * 3
    assert article.path == "deterministic"
    assert len(recorder.sleeps) == 4


def test_every_attempt_is_traced_with_prompt_identity(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    server.script(PRIMARY, Status(500), INVENTED_ID)
    server.script(FALLBACK, VALID)
    _, recorder = hygiene(server, monkeypatch)
    traced = [
        (g.attempt.role, g.attempt.outcome, g.is_retry, g.is_fallback) for g in recorder.generations
    ]
    assert traced == [
        ("runtime_primary", "server_error", False, False),
        ("runtime_primary", "invalid", True, False),
        ("runtime_fallback", "ok", False, True),
    ]
    first = recorder.generations[-1]
    assert first.prompt_name == "article_content_hygiene"
    prompt = load_prompt("article_content_hygiene")
    assert first.prompt_version == prompt.version and first.prompt_hash == prompt.sha256
    assert first.validation.schema_valid is True and first.validation.grounding_valid is True
    assert recorder.generations[1].validation.grounding_valid is False


def test_the_trace_names_host_and_tokenizer_and_says_grounding_failed(
    server: Server, monkeypatch: MonkeyPatch
) -> None:
    url_repair = {"target_id": "b2", "original": "plano", "replacement": "http://evil.example/x",
                  "category": "obvious_typo", "justification": "x"}  # fmt: skip
    server.script(PRIMARY, Reply(proposal(repairs=[url_repair])))
    server.script(FALLBACK, INVENTED_ID)
    _, recorder = hygiene(server, monkeypatch)
    first, second = recorder.generations
    assert (first.provider_host, first.tokenizer) == ("127.0.0.1", "o200k_base")
    assert (first.validation.schema_valid, first.validation.grounding_valid) == (True, False)
    assert first.validation.reason == "ungrounded_url"
    assert second.validation.grounding_valid is False  # unknown_block_id

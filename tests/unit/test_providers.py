"""Provider configuration: shape, certified cheap models, keys from the environment only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from article_runtime.errors import ContractError
from article_runtime.llm.client import retry_after
from article_runtime.llm.providers import PROVIDERS_ENV, load_providers, parse_providers
from tests.llm_support import PRIMARY_KEY, providers_yaml

ENV = {"TEST_PRIMARY_KEY": PRIMARY_KEY, "TEST_FALLBACK_KEY": "sk-other-1234567890"}


def test_valid_configuration_loads() -> None:
    config = parse_providers(providers_yaml("http://127.0.0.1:1/v1"), environ=ENV)
    hygiene = config.for_call("article_content_hygiene")
    assert hygiene is not None and hygiene.runtime_primary.model == "gpt-4.1-mini"
    assert hygiene.runtime_primary.cost(1_000_000, 0) == pytest.approx(0.4)


def _broken(**changes: Any) -> dict[str, Any]:
    data = providers_yaml("http://127.0.0.1:1/v1")
    data["article_content_hygiene"]["runtime_fallback"].update(changes)
    return data


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (_broken(model="gpt-4.1"), "uncertified_model"),
        (_broken(api_key_env="NOT_SET_ANYWHERE"), "missing_api_key"),
        (_broken(api_key="sk-inline-secret"), "malformed_providers"),
        (_broken(model="gpt-4.1-mini"), "fallback_same_as_primary"),
        ({"article_content_hygiene": {"runtime_primary": {}}}, "malformed_providers"),
        ({"summarize_everything": {}}, "unknown_prompt"),
        (["not", "a", "mapping"], "malformed_providers"),
    ],
)
def test_bad_configuration_is_refused_at_start(data: Any, reason: str) -> None:
    with pytest.raises(ContractError) as err:
        parse_providers(data, environ=ENV)
    assert err.value.reason == reason
    assert PRIMARY_KEY not in str(err.value)


def test_configuration_comes_from_flag_or_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "providers.yaml"
    path.write_text(yaml.safe_dump(providers_yaml("http://127.0.0.1:1/v1")))
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv(PROVIDERS_ENV, raising=False)
    assert load_providers(None) is None
    assert load_providers(str(path)) is not None
    monkeypatch.setenv(PROVIDERS_ENV, str(path))
    assert load_providers(None) is not None


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_header_forms(headers: dict[str, str], seconds: float | None) -> None:
    assert retry_after(headers) == seconds


def test_the_documented_example_configuration_is_valid() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "providers.example.yaml"
    config = parse_providers(
        yaml.safe_load(example.read_text()), environ={"OPENAI_API_KEY": "sk-example-0000"}
    )
    assert set(config.calls) == {"article_content_hygiene", "article_sentiment_tags"}


@pytest.mark.parametrize(
    ("primary", "fallback"),
    [
        ("http://127.0.0.1:1/v1", "http://127.0.0.1:1/v1/"),
        ("HTTP://LOCALHOST:80/v1", "http://localhost/v1"),
        ("https://api.example.org/v1", "https://API.example.org:443/v1//"),
        ("https://api.example.org/v1", "https://other.example.net/v1"),  # same model elsewhere
    ],
)
def test_the_same_model_twice_is_refused_however_the_endpoint_is_spelled(
    primary: str, fallback: str
) -> None:
    data = providers_yaml(primary)
    data["article_content_hygiene"]["runtime_fallback"].update(
        base_url=fallback, model=" GPT-4.1-mini "
    )
    with pytest.raises(ContractError) as err:
        parse_providers(data, environ=ENV)
    assert err.value.reason in ("fallback_same_as_primary", "uncertified_model")
    data["article_content_hygiene"]["runtime_fallback"]["model"] = "gpt-4.1-mini"
    with pytest.raises(ContractError) as err:
        parse_providers(data, environ=ENV)
    assert err.value.reason == "fallback_same_as_primary"


@pytest.mark.parametrize("base_url", ["http://[::1/v1", "ftp://example.org/v1", "not a url"])
def test_a_base_url_that_is_no_http_url_is_refused(base_url: str) -> None:
    with pytest.raises(ContractError) as err:
        parse_providers(_broken(base_url=base_url), environ=ENV)
    assert err.value.reason == "malformed_providers"


def test_request_parameters_per_model() -> None:
    data = _broken(model="gpt-5-mini")
    config = parse_providers(data, environ=ENV)
    hygiene = config.for_call("article_content_hygiene")
    assert hygiene is not None
    assert hygiene.runtime_primary.request_params() == {"temperature": 0}
    assert hygiene.runtime_fallback.request_params() == {}  # gpt-5: default sampling only
    tuned = _broken(model="gpt-5-nano", params={"reasoning_effort": "minimal"})
    spec = parse_providers(tuned, environ=ENV).calls["article_content_hygiene"].runtime_fallback
    assert spec.request_params() == {"reasoning_effort": "minimal"}


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"model": "gpt-5-mini", "params": {"temperature": 0}}, "unsupported_parameter"),
        ({"model": "gpt-5-nano", "params": {"top_p": 0.5}}, "unsupported_parameter"),
        ({"params": {"model": "gpt-4.1"}}, "malformed_providers"),
        ({"params": {"messages": "x"}}, "malformed_providers"),
    ],
)
def test_parameters_a_model_refuses_stop_the_start(changes: dict[str, Any], reason: str) -> None:
    with pytest.raises(ContractError) as err:
        parse_providers(_broken(**changes), environ=ENV)
    assert err.value.reason == reason


def _spec(**fields: Any) -> Any:
    from article_runtime.llm.providers import ProviderSpec

    return ProviderSpec(base_url="http://127.0.0.1:1/v1", api_key_env="K", **fields)


@pytest.mark.parametrize(
    ("model", "parameter", "ceiling", "reasoning"),
    [
        # OpenAI's models: max_completion_tokens (its reasoning models refuse max_tokens);
        # each certified model's published output limit; reasoning room for gpt-5 only.
        ("gpt-4.1-mini", "max_completion_tokens", 32_768, 0),
        ("gpt-4o-mini", "max_completion_tokens", 16_384, 0),
        ("gpt-5-nano", "max_completion_tokens", 128_000, 8192),
        ("gemini-2.5-flash-lite", "max_tokens", 65_536, 0),
        ("qwen2.5-7b-instruct", "max_tokens", None, 0),  # a self-hosted server
    ],
)
def test_the_output_cap_defaults_by_model(
    model: str, parameter: str, ceiling: int | None, reasoning: int
) -> None:
    spec = _spec(model=model)
    assert spec.cap_parameter() == parameter
    assert spec.output_ceiling() == ceiling
    assert spec.output_cap(1000) == 1000 + reasoning
    assert spec.output_cap(10_000_000) == (ceiling or 10_000_000 + reasoning)


def test_the_output_cap_settings_override_the_defaults() -> None:
    spec = _spec(model="gpt-5-mini", max_output_tokens=900, reasoning_tokens=100)
    assert (spec.output_cap(500), spec.output_cap(850)) == (600, 900)
    assert _spec(model="gpt-4.1-mini", output_cap_param="none").output_cap(500) is None
    assert _spec(model="llama-3", output_cap_param="max_completion_tokens").cap_parameter() == (
        "max_completion_tokens"
    )


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4.1-mini", "json_schema_strict"),
        ("gpt-4.1-nano", "json_schema_strict"),
        ("gpt-4o-mini", "json_schema_strict"),
        ("gpt-5-mini", "json_schema_strict"),
        ("gemini-2.5-flash-lite", "json_object"),
        ("qwen2.5-7b-instruct", "json_object"),
    ],
)
def test_the_answer_format_defaults_by_model(model: str, expected: str) -> None:
    assert _spec(model=model).answer_format() == expected
    assert _spec(model=model, response_format="json_schema").answer_format() == "json_schema"


def test_the_self_hosted_example_is_valid_but_for_certification(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its models are not certified for the prompts (docs/providers.md says how to): every
    other check holds, and it sets what a server of one's own needs."""
    from article_runtime.llm.prompts import PromptSpec

    monkeypatch.setattr(PromptSpec, "require_certified", lambda self, model: None)
    example = (
        Path(__file__).resolve().parents[2] / "examples" / "providers.self-hosted.example.yaml"
    )
    config = parse_providers(
        yaml.safe_load(example.read_text()), environ={"LLAMA_API_KEY": "x", "VLLM_API_KEY": "y"}
    )
    for call in config.calls.values():
        for spec in (call.runtime_primary, call.runtime_fallback):
            assert spec.cap_parameter() == "max_tokens"
            assert spec.answer_format() == "json_schema"
        assert call.runtime_primary.max_retries == 0

"""Certified models are callable as configured (spec 4, 10.5), against the scripted server
refusing what the real API refuses: ``temperature`` on gpt-5 models."""

from __future__ import annotations

import openai
import pytest

from article_runtime.hygiene import hygiene_article
from article_runtime.llm.providers import ProviderConfig, parse_providers
from article_runtime.model import AssembledArticle
from tests.factories import candidate_set, proposal
from tests.llm_support import FALLBACK_KEY, PRIMARY_KEY, Recorder, providers_yaml, run
from tests.support.openai_server import Reply, ScriptedOpenAIServer

VALID = Reply(proposal())


@pytest.fixture
def server(server: ScriptedOpenAIServer) -> ScriptedOpenAIServer:
    """The shared scripted server (``tests/conftest.py``), refusing sampling parameters for
    the models that do."""
    for model in ("gpt-5-mini", "gpt-5-nano"):
        server.refuse(model, "temperature", "top_p")
    return server


def _config(monkeypatch: pytest.MonkeyPatch, base_url: str, primary: str) -> ProviderConfig:
    monkeypatch.setenv("TEST_PRIMARY_KEY", PRIMARY_KEY)
    monkeypatch.setenv("TEST_FALLBACK_KEY", FALLBACK_KEY)
    data = providers_yaml(base_url, max_retries=0)
    hygiene = data["article_content_hygiene"]
    data["article_content_hygiene"] = {
        "runtime_primary": {**hygiene["runtime_primary"], "model": primary},
        "runtime_fallback": {**hygiene["runtime_fallback"], "model": "gpt-4.1-nano"},
    }
    return parse_providers(data)


def _hygiene(config: ProviderConfig) -> AssembledArticle:
    runtime = Recorder().runtime(config)
    return run(hygiene_article(candidate_set(), b"<html/>", source="t", llm=runtime), runtime)


@pytest.mark.parametrize("model", ["gpt-5-mini", "gpt-5-nano"])
def test_gpt5_models_answer_without_the_sampling_they_refuse(
    server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    server.script(model, VALID)
    article = _hygiene(_config(monkeypatch, server.base_url, model))
    assert [(a.role, a.outcome) for a in article.attempts] == [("runtime_primary", "ok")]
    assert "temperature" not in (server.calls_for(model)[0].body or {})


def test_other_models_still_get_temperature_zero(
    server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.script("gpt-4o-mini", VALID)
    _hygiene(_config(monkeypatch, server.base_url, "gpt-4o-mini"))
    assert server.calls_for("gpt-4o-mini")[0].temperature == 0


def test_the_server_refuses_as_the_api_does(server: ScriptedOpenAIServer) -> None:
    """What the runtime sent before (temperature=0 always) gets the API's 400 here."""
    client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
    try:
        with pytest.raises(openai.BadRequestError) as err:
            client.chat.completions.create(
                model="gpt-5-mini", messages=[{"role": "user", "content": "x"}], temperature=0
            )
    finally:
        client.close()
    assert err.value.status_code == 400
    assert server.unscripted == []

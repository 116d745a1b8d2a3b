"""Provider configuration and a runtime wired to the scripted OpenAI server, for tests."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

from article_runtime.llm.policy import LLMRuntime
from article_runtime.llm.providers import ProviderConfig, parse_providers
from article_runtime.llm.records import GenerationRecord

PRIMARY = "gpt-4.1-mini"
FALLBACK = "gpt-4o-mini"
PRIMARY_KEY = "sk-planted-primary-5f1c2d9e8a7b"
FALLBACK_KEY = "sk-planted-fallback-0a9b8c7d6e5f"
T = TypeVar("T")


def providers_yaml(
    base_url: str,
    *,
    timeout_s: float = 3.0,
    max_retries: int = 2,
    response_format: str | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Both calls' providers; ``extra`` adds fields to every provider (``max_output_tokens``...)."""

    def provider(model: str, key_env: str) -> dict[str, Any]:
        chosen = {} if response_format is None else {"response_format": response_format}
        return (
            chosen
            | (extra or {})
            | {
                "base_url": base_url,
                "model": model,
                "api_key_env": key_env,
                "timeout_s": timeout_s,
                "max_retries": max_retries,
                "backoff_s": 0.01,
                "max_backoff_s": 0.05,
                "max_retry_after_s": 5,
                "price_input_per_mtok": 0.4,
                "price_output_per_mtok": 1.6,
            }
        )

    one_call = {
        "runtime_primary": provider(PRIMARY, "TEST_PRIMARY_KEY"),
        "runtime_fallback": provider(FALLBACK, "TEST_FALLBACK_KEY"),
    }
    return {"article_content_hygiene": one_call, "article_sentiment_tags": one_call}


def config(monkeypatch: pytest.MonkeyPatch, base_url: str, **kwargs: Any) -> ProviderConfig:
    monkeypatch.setenv("TEST_PRIMARY_KEY", PRIMARY_KEY)
    monkeypatch.setenv("TEST_FALLBACK_KEY", FALLBACK_KEY)
    return parse_providers(providers_yaml(base_url, **kwargs))


class Recorder:
    """Collects the runtime's sleeps and trace records instead of waiting or exporting."""

    def __init__(self) -> None:
        self.sleeps: list[float] = []
        self.generations: list[GenerationRecord] = []

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)

    def runtime(self, providers: ProviderConfig) -> LLMRuntime:
        return LLMRuntime(providers, record=self.generations.append, sleep=self.sleep)


def run(coro: Coroutine[Any, Any, T], runtime: LLMRuntime) -> T:
    """Run one call and close the runtime's HTTP clients in the same loop."""

    async def main() -> T:
        try:
            return await coro
        finally:
            await runtime.aclose()

    return asyncio.run(main())

"""Providers and tracing for one command-line run, opened and closed in one place."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from article_runtime.llm.policy import LLMRuntime
from article_runtime.llm.providers import PROVIDERS_ENV, load_providers
from article_runtime.tracing import tracer_from_env

NO_PROVIDERS = f"no providers configured (--providers FILE or ${PROVIDERS_ENV})"


@asynccontextmanager
async def llm_runtime(providers_path: str | None) -> AsyncIterator[LLMRuntime | None]:
    """The runtime, or None without configuration. Raises ContractError on a bad one."""
    providers = load_providers(providers_path)
    if providers is None:
        yield None
        return
    tracer = tracer_from_env(providers.secrets())
    runtime = LLMRuntime(providers, record=tracer.record)
    try:
        yield runtime
    finally:
        await runtime.aclose()
        tracer.flush()
        tracer.shutdown()

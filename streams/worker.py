"""The worker process: ``article-runtime-worker`` (or ``python -m streams.worker``).

Reads settings and providers from the environment, makes sure the topics exist, and runs every
agent plus the web views until SIGTERM. Without providers the hygiene ladder starts at the
deterministic rung and enrichment ends ``no_provider``; the log says so at start.
"""

from __future__ import annotations

import logging
from typing import Any

import faust

from article_runtime.llm.policy import LLMRuntime
from article_runtime.llm.providers import PROVIDERS_ENV, load_providers
from article_runtime.tracing import tracer_from_env
from streams.admin import ensure_topics
from streams.app import create_app
from streams.settings import WorkerSettings

_log = logging.getLogger("article_runtime.worker")


def main() -> None:
    settings = WorkerSettings.from_env()
    providers = load_providers(None)
    llm = None
    if providers is None:
        _log.warning("no providers (%s unset): deterministic hygiene, no enrichment", PROVIDERS_ENV)
    else:
        tracer = tracer_from_env(providers.secrets())
        llm = LLMRuntime(providers, record=tracer.record)
    ensure_topics(settings.bootstrap, replication_factor=settings.replication_factor)
    w = create_app(settings, llm)

    @w.app.on_before_shutdown.connect
    async def close_providers(_app: Any, /, *_: Any, signal: Any, **__: Any) -> None:
        if llm is not None:
            await llm.aclose()
            tracer.flush()
            tracer.shutdown()

    if settings.ecp_standin is not None:
        _log.warning("ECP STAND-IN active: every article approved for %s", settings.ecp_standin)
    faust.Worker(w.app, loglevel="info").execute_from_commandline()


if __name__ == "__main__":
    main()

"""The worker process: ``article-runtime-worker`` (or ``python -m streams.worker``).

Reads settings and providers from the environment, makes sure the topics exist, and runs every
agent plus the web views until SIGTERM. Without providers the hygiene ladder starts at the
deterministic rung and enrichment ends ``no_provider``; the log says so at start. The first
line lists the effective settings, secrets masked; logs are JSON with
``ARTICLE_RUNTIME_LOG_FORMAT=json`` (``streams.logs``).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import faust

from article_runtime.llm.policy import LLMRuntime
from article_runtime.llm.providers import PROVIDERS_ENV, load_providers
from article_runtime.llm.records import GenerationRecord
from article_runtime.tracing import NullTracer, tracer_from_env
from streams import logs
from streams.admin import ensure_topics
from streams.app import create_app
from streams.connection import KafkaConnection
from streams.metrics import FlowMetrics
from streams.settings import WorkerSettings

_log = logging.getLogger("article_runtime.worker")


def main() -> None:
    log_settings = logs.LogSettings.from_env()
    settings = WorkerSettings.from_env()
    connection = KafkaConnection.from_env()
    providers = load_providers(None)
    secrets = logs.known_secrets(providers.secrets() if providers is not None else ())
    logs.configure(log_settings, secrets)
    metrics = FlowMetrics()
    llm = None
    tracer = tracer_from_env(providers.secrets()) if providers is not None else NullTracer()
    if providers is None:
        _log.warning("no providers (%s unset): deterministic hygiene, no enrichment", PROVIDERS_ENV)
    else:

        def observed(generation: GenerationRecord) -> None:
            """The trace hook: Langfuse, then the metrics and the log lines of the attempt."""
            tracer.record(generation)
            metrics.on_generation(generation)
            logs.log_generation(generation)

        llm = LLMRuntime(providers, record=observed)
    effective = logs.effective_settings(
        dataclasses.asdict(settings),
        connection.masked(),
        providers,
        tracing=type(tracer).__name__,
        logs=log_settings,
    )
    _log.info("starting worker", extra={"event": "startup", "settings": effective})
    ensure_topics(settings.bootstrap, replication_factor=settings.replication_factor)
    w = create_app(settings, llm, metrics)

    @w.app.on_before_shutdown.connect
    async def close_providers(_app: Any, /, *_: Any, signal: Any, **__: Any) -> None:
        if llm is not None:
            await llm.aclose()
            tracer.flush()
            tracer.shutdown()

    if settings.ecp_standin is not None:
        _log.warning("ECP STAND-IN active: every article approved for %s", settings.ecp_standin)
    faust.Worker(
        w.app,
        loglevel=log_settings.level,
        logging_config=logs.logging_config(log_settings, secrets),
        quiet=log_settings.format == "json",  # Faust's banner is not a log line
    ).execute_from_commandline()


if __name__ == "__main__":
    main()

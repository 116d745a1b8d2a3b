"""The worker process: ``article-runtime-worker`` (or ``python -m article_runtime.streams.worker``).

Reads settings and providers from the environment, reaches the cluster once (a refused login,
a failed TLS handshake or no broker ends the start with one line naming the setting), makes
sure the topics exist, checks that topics read together have one partition count, and runs
every agent plus the web views until SIGTERM. Without providers the hygiene ladder starts at
the deterministic rung and enrichment ends ``no_provider``; the log says so at start. The
first line lists the effective settings, secrets masked; logs are JSON with
``ARTICLE_RUNTIME_LOG_FORMAT=json`` (``article_runtime.streams.service.logs``).
"""

from __future__ import annotations

import argparse
import dataclasses
import faulthandler
import gc
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import faust
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient

from article_runtime.llm.policy import LLMRuntime
from article_runtime.llm.providers import PROVIDERS_ENV, load_providers
from article_runtime.llm.records import GenerationRecord
from article_runtime.streams.kafka.admin import ensure_topics, partition_counts
from article_runtime.streams.kafka.partitions import (
    PARTITIONS_ENV,
    PartitionMismatch,
    check_copartitioned,
    found_count,
)
from article_runtime.streams.kafka.preflight import EXIT_REFUSED, ClusterRefused, preflight
from article_runtime.streams.kafka.registry import RegistryError
from article_runtime.streams.kafka.registry_codec import SchemaRefused
from article_runtime.streams.kafka.topic_check import topic_problems
from article_runtime.streams.kafka.topics import TOPICS, use_names
from article_runtime.streams.service import event_loop, logs
from article_runtime.streams.service.metrics import FlowMetrics
from article_runtime.streams.service.settings import TOPICS_ENV, SettingsError, WorkerSettings
from article_runtime.streams.service.wiring import Wiring
from article_runtime.streams.worker.app import create_app, joined, wanted
from article_runtime.tracing import NullTracer, tracer_from_env

_log = logging.getLogger("article_runtime.worker")


def prepared(settings: WorkerSettings) -> WorkerSettings:
    """The settings once the cluster answered and the topics exist: ``partitions`` is then
    the count the topics have, whatever the setting asked for. In check mode nothing is
    created: ``check_topics`` then says what is missing."""
    use_names(settings.topic_names)
    preflight(settings.connection)
    if settings.topics == "check":
        admin = AdminClient(settings.connection.confluent())
        counts = partition_counts(admin, [t.name for t in TOPICS])
    else:
        counts = ensure_topics(
            settings.connection,
            partitions=settings.partitions,
            replication_factor=settings.replication_factor,
        )
    found = found_count(counts, settings.partitions)
    if found != settings.partitions:
        _log.warning(
            "topics exist with %d partitions: running with those (%s=%d sizes new topics only)",
            found,
            PARTITIONS_ENV,
            settings.partitions,
        )
    return dataclasses.replace(settings, partitions=found)


def check_topics(w: Wiring) -> None:
    """Check mode: every problem with the topics, one line each on stderr, then exit 2.

    Exiting (not waiting, not-ready) because nothing in the worker can fix a topic: the pod
    restarts with back-off (CrashLoopBackOff shows it), each start names what is still
    wrong, and the first start after the platform's tooling fixed the topics runs."""
    admin = AdminClient(w.settings.connection.confluent())
    problems = topic_problems(admin, wanted(w), default=w.settings.partitions)
    for problem in problems:
        print(f"article-runtime-worker: {problem}", file=sys.stderr, flush=True)
    if problems:
        refuse(f"{len(problems)} problems with the topics ({TOPICS_ENV}=check creates nothing)")


def check_partitions(w: Wiring) -> None:
    """Refuse to run when topics read together (changelogs included) differ in count."""
    groups = joined(w)
    names = {name for topics in groups.values() for name in topics}
    counts = partition_counts(AdminClient(w.settings.connection.confluent()), names)
    # A changelog Faust has not created yet will have the tables' count, the topics' one.
    check_copartitioned(groups, {n: counts.get(n, w.settings.partitions) for n in names})


USAGE = """Run the stream worker: every agent of the flow and its web views, until SIGTERM.

Takes no arguments: every setting comes from the environment (KAFKA_BOOTSTRAP_SERVERS, the
KAFKA_SECURITY_PROTOCOL/KAFKA_SASL_*/KAFKA_SSL_* variables, ARTICLE_RUNTIME_PROVIDERS and the
other ARTICLE_RUNTIME_* settings). docs/operating.md lists each one with its default, the web
views, the metrics and the logs.
"""


def parser() -> argparse.ArgumentParser:
    """Only ``--help``: a worker is configured by its environment, as the chart runs it."""
    return argparse.ArgumentParser(
        prog="article-runtime-worker",
        description=USAGE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def main(argv: Sequence[str] | None = None) -> None:
    # Before anything reads the environment: --help prints the usage and exits 0, and an
    # unknown argument exits 2, without reaching for a cluster.
    parser().parse_args(argv)
    # A crash in C code (a parser, the allocator's abort on a corrupted heap) ends the process
    # with no Python traceback: with this, the log shows where every thread was (stop 27: a
    # worker died on real pages with only glibc's "free(): invalid pointer" to go on).
    faulthandler.enable()
    log_settings = logs.LogSettings.from_env()
    try:
        settings = prepared(WorkerSettings.from_env())
    except (SettingsError, ClusterRefused) as error:
        refuse(error)
    except KafkaException as error:  # e.g. not allowed to create or describe the topics
        refuse(f"the cluster refused to prepare the topics: {error.args[0].str()}")
    event_loop.use(settings.event_loop)  # before Faust or anything else makes a loop
    providers = load_providers(None)
    secrets = logs.known_secrets(providers.secrets() if providers is not None else ())
    logs.configure(log_settings, secrets)
    metrics = FlowMetrics()
    llm = None
    tracer = tracer_from_env(providers.secrets()) if providers is not None else NullTracer()
    unserved = logs.without_providers(providers)
    if unserved is not None:  # once here; per article only counted (no ERROR per article)
        where = os.environ.get(PROVIDERS_ENV) or f"{PROVIDERS_ENV} unset"
        _log.warning("%s (%s)", unserved, where, extra={"event": "no_provider"})
    if providers is not None:

        def observed(generation: GenerationRecord) -> None:
            """The trace hook: Langfuse, then the metrics and the log lines of the attempt."""
            tracer.record(generation)
            metrics.on_generation(generation)
            logs.log_generation(generation)

        llm = LLMRuntime(providers, record=observed)
    worker_settings = {
        k: v for k, v in dataclasses.asdict(settings).items() if k not in ("connection", "registry")
    }
    if settings.registry is not None:  # its password masked, as the connection's
        worker_settings["registry"] = settings.registry.masked()
    effective = logs.effective_settings(
        worker_settings,
        settings.connection.masked(),
        providers,
        tracing=type(tracer).__name__,
        logs=log_settings,
    )
    _log.info("starting worker", extra={"event": "startup", "settings": effective})
    try:
        w = create_app(settings, llm, metrics)
    except (SchemaRefused, RegistryError) as error:
        refuse(f"schema registry: {error}")
    if settings.topics == "check":
        try:
            check_topics(w)
        except KafkaException as error:  # e.g. not allowed to describe the topics
            refuse(f"the cluster refused to describe the topics: {error.args[0].str()}")
    try:
        check_partitions(w)
    except PartitionMismatch as error:
        refuse(error)

    @w.app.on_before_shutdown.connect
    async def close_providers(_app: Any, /, *_: Any, signal: Any, **__: Any) -> None:
        if llm is not None:
            await llm.aclose()
            tracer.flush()
            tracer.shutdown()

    if settings.ecp_standin is not None:
        _log.warning("ECP STAND-IN active: every article approved for %s", settings.ecp_standin)
    # What exists now (modules, the app, its agents and tables) lives as long as the process:
    # out of the collector's reach, a full collection scans only what the flow makes. In
    # make bench-stream it cut full collections from about 100 ms to 14 ms each and the
    # collector's time by about 0.3 ms per article.
    gc.freeze()
    faust.Worker(
        w.app,
        loglevel=log_settings.level,
        logging_config=logs.logging_config(log_settings, secrets),
        quiet=log_settings.format == "json",  # Faust's banner is not a log line
    ).execute_from_commandline()


def refuse(error: Exception | str) -> NoReturn:
    """One line on stderr and a distinct exit code: no traceback, no retry loop."""
    print(f"article-runtime-worker: {error}", file=sys.stderr, flush=True)
    raise SystemExit(EXIT_REFUSED)


if __name__ == "__main__":
    main()

"""The Faust app: topics, tables, agents and web views assembled from settings.

Built by a function, not at import time, so nothing connects or reads the environment until a
worker (``article_runtime.streams.worker.main``) or a test asks for it.
"""

from __future__ import annotations

import dataclasses

import faust

from article_runtime.agents import (
    assembly,
    ecp_standin,
    enrichment,
    hygiene,
    ledger,
    terminals,
)
from article_runtime.llm.policy import LLMRuntime
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.kafka.consumer import FlowControl, Transport
from article_runtime.streams.kafka.registry_codec import registry_codec
from article_runtime.streams.kafka.tables import table
from article_runtime.streams.kafka.topic_check import Wanted
from article_runtime.streams.kafka.topics import MAX_MESSAGE_BYTES, TOPICS, use_names
from article_runtime.streams.kafka.unknown_writers import UnknownWriters
from article_runtime.streams.service import health, metrics_page
from article_runtime.streams.service.metrics import FlowMetrics
from article_runtime.streams.service.proposals import KnownSets
from article_runtime.streams.service.settings import WorkerSettings
from article_runtime.streams.service.wiring import Unrecorded, Wiring
from article_runtime.streams.worker import views

# The agents that write or read each table: a table's changelog follows their input partitions,
# so it is read together with them and must have their partition count (``joined``). The
# assembly agent reads the hygiene ladder (never writes it) to drop superseded proposals. The
# ledger's tables are written by the stages that take and make the messages they record.
STAGES = ("hygiene", "assembly", "enrichment")
TABLE_AGENTS = {
    hygiene.LADDER_TABLE: ("hygiene", "assembly"),
    enrichment.JOIN_TABLE: ("enrichment",),
    ledger.STATUS_TABLE: STAGES,
    ledger.COUNTERS_TABLE: STAGES,
    terminals.RECENT_TABLE: STAGES,
}
TABLES = tuple(TABLE_AGENTS)

# How long a record may wait for the broker's acknowledgement (aiokafka: a produce request's
# answer, and a batch waiting for a partition's leader) before it fails and the worker exits
# without a commit. Faust's default is 20 minutes, during which a worker waiting on one record
# settles nothing and looks healthy; Kafka's Java producer gives up after 2 minutes.
PRODUCER_REQUEST_TIMEOUT_S = 120.0


def worker_codec(settings: WorkerSettings) -> AvroCodec:
    """The codec of the deployment's value format. Writing the registry's, every topic's
    subject is registered now, so a schema the registry refuses stops the start
    (``SchemaRefused``) instead of the first record. A worker never waits for the registry
    on its event loop: IDs it has not cached are fetched in a thread."""
    if settings.registry is None:
        return AvroCodec()
    codec, subjects = registry_codec(settings.registry, blocking=False)
    if settings.registry.writes_registry_format:
        subjects.register_all()
    return codec


def create_app(
    settings: WorkerSettings, llm: LLMRuntime | None, metrics: FlowMetrics | None = None
) -> Wiring:
    if settings.topic_names is not None:
        use_names(settings.topic_names)  # before any topic's name is asked for
    creates = settings.topics == "create"
    app = faust.App(
        settings.app_id,
        broker=[f"kafka://{host}" for host in settings.connection.hosts],
        broker_credentials=settings.connection.faust_credentials(),
        store=settings.store,
        datadir=settings.data_dir or "{conf.name}-data",  # Faust's own default
        web_port=settings.web_port,
        web_host=settings.web_host,
        topic_partitions=settings.partitions,
        topic_replication_factor=settings.replication_factor,
        consumer_auto_offset_reset="earliest",
        producer_max_request_size=MAX_MESSAGE_BYTES,
        consumer_max_fetch_size=MAX_MESSAGE_BYTES,
        producer_acks=-1,
        producer_request_timeout=PRODUCER_REQUEST_TIMEOUT_S,
        broker_session_timeout=settings.session_timeout_s,
        broker_heartbeat_interval=min(3.0, settings.session_timeout_s / 3),
        web_in_thread=False,
        # Faust's table and router views hash a key as Faust serializes it, not as our
        # producers do, and fail until the worker has produced to a changelog:
        # article_runtime.streams.worker.views serves the per-article tables instead.
        web_tables_enabled=False,
        web_router_enabled=False,
        # In check mode nothing is created: not the changelogs (they must exist, checked at
        # start), nor Faust's leader-election topic, which nothing here uses.
        topic_allow_declare=creates,
        topic_disable_leader=not creates,
    )
    # Before anything touches ``app.topics`` or makes a queue: our consumer decides what is
    # committed, and resuming a running flow does not clear the agents' queues.
    transport = Transport(app.conf.broker_consumer, app)
    transport.fetch_wait_ms = settings.fetch_wait_ms
    codec = worker_codec(settings)
    # A record of a newer release's schema waits for a worker that knows it (rolling upgrade).
    transport.unknown_writers = UnknownWriters(
        codec.unknown_writer, settings.unknown_schema_wait_s, known=codec.writer_known
    )
    app.transport = transport
    app.flow_control = FlowControl()  # its events find the running loop when awaited
    tables = {name: table(app, name) for name in TABLES}
    work = transport.work
    w = Wiring(app, settings, codec, tables, llm, work, metrics or FlowMetrics())
    recorder = ledger.Ledger(w)
    w.ledger = recorder
    transport.before_commit.append(recorder.flush)
    known = KnownSets()  # candidate sets the hygiene agent built, for the assembly agent
    hygiene.register(w, known)
    assembly.register(w, tables[hygiene.LADDER_TABLE], known)
    enrichment.register(w)
    if settings.ecp_standin is not None:
        # Not a stage: its messages are recorded as the classifier's are, where a stage takes
        # them.
        ecp_standin.register(dataclasses.replace(w, ledger=Unrecorded()), settings.ecp_standin)
    views.register(w)
    health.register(w)
    metrics_page.install(w, lambda: health.reasons_now(w))
    return w


def wanted(w: Wiring) -> list[Wanted]:
    """Every topic the worker needs: the flow's and the tables' (compacted) changelogs."""
    changelogs = [t.changelog_topic.get_topic_name() for t in w.tables.values()]
    return [Wanted(t.name) for t in TOPICS] + [Wanted(n, compacted=True) for n in changelogs]


def joined(w: Wiring) -> dict[str, list[str]]:
    """What must be co-partitioned: for each agent that reads several topics or keeps a
    table, its input topics and its tables' changelogs
    (``article_runtime.streams.kafka.partitions``)."""
    groups: dict[str, list[str]] = {}
    for agent in w.app.agents.values():
        names = list(agent.channel.topics)
        names += [
            w.tables[table].changelog_topic.get_topic_name()
            for table, keepers in TABLE_AGENTS.items()
            if agent.name in keepers
        ]
        if len(names) > 1:
            groups[f"agent {agent.name}"] = names
    return groups

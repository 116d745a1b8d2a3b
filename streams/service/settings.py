"""The worker's settings, read once from the environment (12-factor: the chart's ConfigMap).

Provider keys never pass through here: they stay in the variables the providers file names
(``api_key_env``), read only by ``article_runtime.llm.providers`` at call time. The Kafka
connection (``article_runtime.streams.kafka.connection``) holds the SASL password and never shows
it; the schema registry's settings (``article_runtime.streams.kafka.registry``) hold its password
the same way.
"""

from __future__ import annotations

import importlib.util
import os
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from article_runtime.streams.kafka.connection import ConnectionSettingError, KafkaConnection
from article_runtime.streams.kafka.partitions import PARTITIONS_ENV
from article_runtime.streams.kafka.registry import RegistrySettingError, RegistrySettings
from article_runtime.streams.kafka.topics import PARTITIONS, TopicNameError, topic_names
from article_runtime.streams.service.event_loop import EVENT_LOOPS

APP_ID_ENV = "ARTICLE_RUNTIME_APP_ID"
WEB_PORT_ENV = "ARTICLE_RUNTIME_WEB_PORT"
WEB_HOST_ENV = "ARTICLE_RUNTIME_WEB_HOST"
CALLS_IN_FLIGHT_ENV = "ARTICLE_RUNTIME_CALLS_IN_FLIGHT"
PAGES_IN_FLIGHT_ENV = "ARTICLE_RUNTIME_PAGES_IN_FLIGHT_MIB"
STORE_ENV = "ARTICLE_RUNTIME_STORE"
DATA_DIR_ENV = "ARTICLE_RUNTIME_DATA_DIR"
# Faust's table stores: in memory (rebuilt from the changelogs at every start), or RocksDB on
# disk (python-rocksdict; a restart on the same disk reads only the changelogs' new records).
STORES = ("memory://", "rocksdb://")
SESSION_TIMEOUT_ENV = "ARTICLE_RUNTIME_SESSION_TIMEOUT_S"
RETENTION_ENV = "ARTICLE_RUNTIME_STATE_RETENTION_H"
REPLICATION_ENV = "ARTICLE_RUNTIME_REPLICATION_FACTOR"
FETCH_WAIT_ENV = "ARTICLE_RUNTIME_FETCH_WAIT_MS"
EVENT_LOOP_ENV = "ARTICLE_RUNTIME_EVENT_LOOP"
UNKNOWN_SCHEMA_WAIT_ENV = "ARTICLE_RUNTIME_UNKNOWN_SCHEMA_WAIT_S"
# What the worker does about its topics: create the missing ones and raise their message size
# (create), or only check they exist as it needs them and refuse to start otherwise (check:
# topics made by the platform's own tooling; docs/topics.md lists the ACLs of each).
TOPICS_ENV = "ARTICLE_RUNTIME_TOPICS"
TOPIC_MODES = ("create", "check")
# Topic names: ARTICLE_RUNTIME_TOPIC_PREFIX and ARTICLE_RUNTIME_TOPIC_<NAME> (``Topic.env``),
# read by ``article_runtime.streams.kafka.topics.topic_names``.
ECP_STANDIN_QID_ENV = "ECP_STANDIN_QID"
ECP_STANDIN_NAME_ENV = "ECP_STANDIN_NAME"


N = TypeVar("N", int, float)


class SettingsError(ValueError):
    """A setting is missing or malformed; the message names the variable."""


@dataclass(frozen=True)
class StandInEntity:
    """The entity the local ECP stand-in approves every article for (never in production)."""

    qid: str
    name: str


@dataclass(frozen=True)
class WorkerSettings:
    connection: KafkaConnection
    app_id: str = "article-runtime"
    web_port: int = 6066
    # The address other workers use to reach this one's web views (lookups are proxied to
    # the owner of an article's partition); the chart sets the pod IP.
    web_host: str = field(default_factory=socket.gethostname)
    calls_in_flight: int = 8  # model calls in flight in each calling agent (hygiene, enrichment)
    # MiB of ingested pages the hygiene stage holds in flight at most, whatever the calls in
    # flight: each holds its page, its candidate set (about the page's size again) and its
    # context, so many calls in flight stay within a pod's memory when pages are large. A
    # page larger than this still goes through, alone.
    pages_in_flight_mib: int = 64
    # How long the broker may hold a fetch until it has FETCH_MIN_BYTES for the worker: more
    # records per fetch, so less CPU per record in the worker and the broker, for up to this
    # much latency per stage when the flow is quiet (``article_runtime.streams.kafka.consumer``).
    fetch_wait_ms: int = 50
    # How long a silent worker keeps its partitions before the group moves them: the pause a
    # crashed worker's articles see. Kafka's broker refuses less than 6 s by default.
    session_timeout_s: int = 30
    # Per-article state (ladder, join, lineage) untouched this long is dropped. An assembled
    # article waits this long for its ECP verdict; lineage views forget it after this.
    retention_h: float = 72.0
    # Replicas of the topics and table changelogs the worker creates (1 suits one broker).
    replication_factor: int = 1
    # Partitions of the topics the worker creates. Topics that exist keep theirs: the worker
    # runs with the count it finds (``article_runtime.streams.kafka.partitions``), and this is what
    # it then holds.
    partitions: int = PARTITIONS
    store: str = "memory://"  # Faust table store (STORES); the chart runs "rocksdb://"
    # Where Faust keeps the tables' local state (RocksDB files): the chart mounts a volume
    # there. None: Faust's default, "<app id>-data" in the working directory.
    data_dir: str | None = None
    ecp_standin: StandInEntity | None = None
    event_loop: str = "uvloop"  # EVENT_LOOPS (``article_runtime.streams.service.event_loop``)
    # How long a partition waits at a record whose writer schema this release does not know
    # (a newer release's, during a rolling upgrade) for a worker that knows it, from the first
    # time this worker met that schema; then such records end unknown_schema_fingerprint
    # (``article_runtime.streams.kafka.unknown_writers``). Longer than a whole rolling upgrade.
    unknown_schema_wait_s: float = 900.0
    # The schema registry, when the deployment has one (ARTICLE_RUNTIME_SCHEMA_REGISTRY_URL):
    # values in its wire format are read, and written when ARTICLE_RUNTIME_VALUE_FORMAT is
    # schema-registry. None: Avro single-object encoding only (docs/registry.md).
    registry: RegistrySettings | None = None
    topics: str = "create"  # TOPIC_MODES
    # Each topic's name on the cluster, by contract name (``article_runtime.streams.kafka.topics``).
    # None: as the process's environment says (a settings object made in code, not from_env).
    topic_names: dict[str, str] | None = None

    @property
    def retention_s(self) -> float:
        return self.retention_h * 3600.0

    @property
    def pages_in_flight_bytes(self) -> int:
        return self.pages_in_flight_mib * 1024 * 1024

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> WorkerSettings:
        env = os.environ if environ is None else environ
        try:
            connection = KafkaConnection.from_env(env)
        except ConnectionSettingError as error:
            raise SettingsError(str(error)) from None
        try:
            registry = RegistrySettings.from_env(env)
        except RegistrySettingError as error:
            raise SettingsError(str(error)) from None
        qid = env.get(ECP_STANDIN_QID_ENV, "").strip()
        name = env.get(ECP_STANDIN_NAME_ENV, "").strip()
        if bool(qid) != bool(name):
            raise SettingsError(f"set both {ECP_STANDIN_QID_ENV} and {ECP_STANDIN_NAME_ENV}")
        try:
            names = topic_names(env)
        except TopicNameError as error:
            raise SettingsError(str(error)) from None
        return cls(
            connection=connection,
            app_id=env.get(APP_ID_ENV, cls.app_id),
            web_port=_positive(env, WEB_PORT_ENV, cls.web_port),
            web_host=env.get(WEB_HOST_ENV, "").strip() or socket.gethostname(),
            calls_in_flight=_positive(env, CALLS_IN_FLIGHT_ENV, cls.calls_in_flight),
            pages_in_flight_mib=_positive(env, PAGES_IN_FLIGHT_ENV, cls.pages_in_flight_mib),
            fetch_wait_ms=_positive(env, FETCH_WAIT_ENV, cls.fetch_wait_ms),
            session_timeout_s=_positive(env, SESSION_TIMEOUT_ENV, cls.session_timeout_s),
            retention_h=_positive(env, RETENTION_ENV, cls.retention_h, float),
            replication_factor=_positive(env, REPLICATION_ENV, cls.replication_factor),
            partitions=_positive(env, PARTITIONS_ENV, cls.partitions),
            store=_store(env, cls.store),
            data_dir=env.get(DATA_DIR_ENV, "").strip() or None,
            ecp_standin=StandInEntity(qid, name) if qid else None,
            event_loop=event_loop_of(env),
            unknown_schema_wait_s=_positive(
                env, UNKNOWN_SCHEMA_WAIT_ENV, cls.unknown_schema_wait_s, float
            ),
            registry=registry,
            topics=_one_of(env, TOPICS_ENV, TOPIC_MODES, cls.topics),
            topic_names=names,
        )


def event_loop_of(env: Mapping[str, str]) -> str:
    """The event loop a worker started with ``env`` runs on (``ARTICLE_RUNTIME_EVENT_LOOP``)."""
    return _one_of(env, EVENT_LOOP_ENV, EVENT_LOOPS, WorkerSettings.event_loop)


def _one_of(env: Mapping[str, str], name: str, choices: tuple[str, ...], default: str) -> str:
    value = env.get(name, "").strip() or default
    if value not in choices:
        raise SettingsError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return value


def _store(env: Mapping[str, str], default: str) -> str:
    url = _one_of(env, STORE_ENV, STORES, default)
    if url == "rocksdb://" and importlib.util.find_spec("rocksdict") is None:
        raise SettingsError(f"{STORE_ENV}=rocksdb:// needs the rocksdict package")
    return url


def _positive(env: Mapping[str, str], name: str, default: N, kind: Callable[[str], N] = int) -> N:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a positive number, not {raw!r}") from None
    if value <= 0:
        raise SettingsError(f"{name} must be positive, not {value}")
    return value

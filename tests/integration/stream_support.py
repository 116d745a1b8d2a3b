"""A broker, the scripted provider server and worker processes, for the stream tests.

Each test gets its own broker (about 8 s): a new consumer group reads its topics from the
start, so sharing one broker between tests would replay earlier tests' articles.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient

from article_runtime.streams.commands.follow import ArticleOutcome, follow
from article_runtime.streams.commands.publish_inputs import ingested_record, publish
from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.kafka.codec import AvroCodec
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.topics import (
    ARTICLE_INGESTED,
    MAX_MESSAGE_BYTES,
    PARTITIONS,
    PRODUCER_CONFIG,
    message_key,
)
from article_runtime.streams.local.broker import free_ports, local_kafka
from article_runtime.streams.local.worker_process import WorkerProcess
from article_runtime.streams.service.settings import (
    ECP_STANDIN_NAME_ENV,
    ECP_STANDIN_QID_ENV,
    SESSION_TIMEOUT_ENV,
)
from tests.llm_support import FALLBACK_KEY, PRIMARY_KEY, providers_yaml
from tests.support.stream_cases import CaseArticle

ENTITY = ("Q4115189", "Sandbox entity")


@dataclass
class Flow:
    """One test's broker plus how to start workers against it."""

    connection: KafkaConnection
    work: Path
    provider_url: str | None
    # Per model call: a test with several workers on a loaded machine needs more, or the
    # scripted answers it expects gain a "timeout" attempt.
    provider_timeout_s: float = 20.0

    def worker(
        self,
        name: str = "w1",
        *,
        app_id: str = "article-runtime-it",
        settings: Mapping[str, str] | None = None,
        module: str = "article_runtime.streams.worker",
    ) -> WorkerProcess:
        """A worker with the ECP stand-in, the scripted providers and ``settings`` (env)."""
        env = {
            ECP_STANDIN_QID_ENV: ENTITY[0],
            ECP_STANDIN_NAME_ENV: ENTITY[1],
            SESSION_TIMEOUT_ENV: "6",  # a killed worker's partitions move on after 6 s
            **(settings or {}),
        }
        if self.provider_url is not None:
            providers = self.work / "providers.yaml"
            # A generous timeout: the scripted server answers at once, and a loaded test
            # machine must not turn a slow event loop into a model timeout and a fallback.
            config = providers_yaml(self.provider_url, timeout_s=self.provider_timeout_s)
            providers.write_text(yaml.safe_dump(config))
            env |= {
                "ARTICLE_RUNTIME_PROVIDERS": str(providers),
                "TEST_PRIMARY_KEY": PRIMARY_KEY,
                "TEST_FALLBACK_KEY": FALLBACK_KEY,
            }
        return WorkerProcess(
            self.connection,
            web_port=free_ports(1)[0],
            log_path=self.work / f"{name}.log",
            app_id=app_id,
            env=env,
            module=module,
        )

    def publish_cases(self, cases: Sequence[CaseArticle]) -> None:
        publish(self.connection, (ingested_record(c.article_id, c.url, c.html) for c in cases))

    def publish_raw(self, messages: Sequence[tuple[str, bytes]]) -> None:
        """Values exactly as given, keyed by article: for poison messages."""
        config = self.connection.confluent() | {"message.max.bytes": MAX_MESSAGE_BYTES}
        producer = Producer(config | PRODUCER_CONFIG)
        errors: list[object] = []
        for article_id, value in messages:
            producer.produce(
                ARTICLE_INGESTED.name,
                key=message_key(article_id),
                value=value,
                on_delivery=lambda error, _m: errors.append(error) if error else None,
            )
        assert producer.flush(30) == 0
        assert errors == []

    def every_message(self, quiet_s: float = 2.0) -> list[bytes]:
        """Key and value bytes of every message on every topic of the cluster (table
        changelogs included), read until nothing new arrives for ``quiet_s``."""
        admin = AdminClient(self.connection.confluent())
        names = [n for n in admin.list_topics(timeout=10).topics if not n.startswith("__")]
        consumer = Consumer(
            {
                **self.connection.confluent(),
                "group.id": f"everything-{time.monotonic_ns()}",
                "auto.offset.reset": "earliest",
            }
        )
        consumer.subscribe(names)
        seen: list[bytes] = []
        last = time.monotonic()
        try:
            while time.monotonic() - last < quiet_s:
                message = consumer.poll(0.2)
                if message is None or message.error() is not None:
                    continue
                seen.append((message.key() or b"") + b"\x00" + (message.value() or b""))
                last = time.monotonic()
        finally:
            consumer.close()
        return seen

    def follow(self, ids: Sequence[str], **kwargs: Any) -> dict[str, ArticleOutcome]:
        return follow(self.connection, ids, **kwargs)


@contextmanager
def flow(work: Path, provider_url: str | None, *, partitions: int = PARTITIONS) -> Iterator[Flow]:
    with local_kafka(partitions=partitions) as connection:
        ensure_topics(connection, partitions=partitions)
        yield Flow(connection, work, provider_url)


def encoded(schema: str, record: dict[str, Any]) -> bytes:
    return AvroCodec().encode(schema, record)


def distinct(records: Sequence[dict[str, Any]], *path: str) -> set[str]:
    """The distinct values at ``path`` over duplicated outputs of one article."""
    values = set()
    for record in records:
        value: Any = record
        for key in path:
            value = value[key]
        values.add(value)
    return values


def eventually(check: Callable[[], None], *, timeout_s: float = 20.0) -> None:
    """Run ``check`` until it stops failing: the web views trail the outputs by a moment
    (the ledger confirms each change with the broker before it acks)."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            check()
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


@contextmanager
def repeatedly(step: Callable[[], None], *, every_s: float) -> Iterator[None]:
    """Run ``step`` in a thread, again and again ``every_s`` apart, until the block ends (and
    the step under way finishes): for what a test watches while the flow runs."""
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            step()
            stop.wait(every_s)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=30)

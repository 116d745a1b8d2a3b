"""Producing to our topics the one supported way, so nobody re-implements the contract.

Ingestion code publishes articles with ``ArticleProducer``; it holds everything
``schemas/README.md`` asks of a producer:

- key: the article id as UTF-8 bytes (``article_runtime.streams.kafka.topics.message_key``);
- partitioner: murmur2, as the Java client and the worker (aiokafka) hash keys. librdkafka's
  default (``consistent_random``, CRC32) puts keys elsewhere and silently breaks the
  co-partitioned joins, so ``partitioner=murmur2_random`` is set here;
- value: Avro single-object encoding of the topic's current schema
  (``article_runtime.streams.kafka.codec``), or the schema registry's wire format when the
  environment asks for it (docs/registry.md);
- durability: idempotent, ``acks=all``; ``send`` returns only once the broker has the message.

    from article_runtime.streams.kafka.connection import KafkaConnection
    from article_runtime.streams.kafka.producer import ArticleProducer
    from article_runtime.streams.commands.publish_inputs import ingested_record

    with ArticleProducer(KafkaConnection.from_env()) as producer:
        where = producer.send(ingested_record("folha-123", "https://...", html_bytes))

Errors are ``PublishError`` with a categorical ``reason``: one record's (``invalid_record``,
``message_too_large``, ``not_delivered``) or the cluster's (``unreachable``,
``authentication_failed``, ``topic_missing``; with the registry format ``schema_refused`` and
``registry_unavailable``).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from article_runtime.streams.kafka.codec import AvroCodec, EncodeError
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.registry import RegistryError
from article_runtime.streams.kafka.registry_codec import SchemaRefused, codec_from_env
from article_runtime.streams.kafka.topics import (
    ARTICLE_INGESTED,
    MAX_MESSAGE_BYTES,
    PRODUCER_CONFIG,
    Topic,
    message_key,
)

__all__ = ["ArticleProducer", "Delivered", "PublishError", "Result"]

MISSING_TOPIC_GRACE_S = 5.0

# Errors that no wait will cure: the run stops at once with the broker's words.
_FATAL_CODES = {
    KafkaError._AUTHENTICATION: "authentication_failed",
    KafkaError._SSL: "authentication_failed",
    KafkaError.SASL_AUTHENTICATION_FAILED: "authentication_failed",
    KafkaError.TOPIC_AUTHORIZATION_FAILED: "not_authorized",
    KafkaError.CLUSTER_AUTHORIZATION_FAILED: "not_authorized",
}


class PublishError(RuntimeError):
    """A record not published (``article_id`` set), or a cluster that cannot be published to."""

    def __init__(self, reason: str, detail: str, article_id: str | None = None) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail, self.article_id = reason, detail, article_id


@dataclass(frozen=True)
class Delivered:
    """Where the broker stored one record."""

    article_id: str
    partition: int
    offset: int


Result = Delivered | PublishError


class ArticleProducer:
    """Publishes records of one of our topics (``article.ingested`` unless told otherwise).

    The topic must exist: a producer never creates it, since a topic the broker creates has
    the broker's default partition count, not the co-partitioned one of the others.
    """

    def __init__(
        self,
        connection: KafkaConnection,
        *,
        topic: Topic = ARTICLE_INGESTED,
        timeout_s: float = 30.0,
        codec: AvroCodec | None = None,
    ) -> None:
        self.topic, self.timeout_s = topic, timeout_s
        self.codec = codec or codec_from_env()
        self._fatal: PublishError | None = None
        self._last_error = ""
        self._closed = False
        self._producer = Producer(
            {
                **connection.confluent(),
                **PRODUCER_CONFIG,
                "acks": "all",
                "message.max.bytes": MAX_MESSAGE_BYTES,
                "message.timeout.ms": int(timeout_s * 1000),
                "allow.auto.create.topics": False,
                "error_cb": self._on_error,
                "log_level": 3,  # librdkafka's own retries are not news; its errors reach us
            }
        )
        try:
            self.partitions = self._wait_for_topic()
            if self.codec.write_id is not None:  # the registry format: its subject now
                self.codec.write_id(self.topic.schema)
        except PublishError:
            self.close()
            raise
        except (SchemaRefused, RegistryError) as error:
            self.close()
            reason = (
                "schema_refused" if isinstance(error, SchemaRefused) else "registry_unavailable"
            )
            raise PublishError(reason, str(error)) from None

    def __enter__(self) -> ArticleProducer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Wait for anything still queued (``send_all`` leaves nothing), then let go of the
        connection (no reconnect attempts to a cluster that is gone); idempotent."""
        if not self._closed:
            self._closed = True
            self._producer.flush(self.timeout_s)
            self._producer.close()

    def send(self, record: Mapping[str, Any]) -> Delivered:
        """Publish one record and wait for the broker's acknowledgement.

        Raises:
            PublishError: the record was not published (its reason says why).
        """
        (result,) = self.send_all([record])
        if isinstance(result, PublishError):
            raise result
        return result

    def send_all(
        self,
        records: Iterable[Mapping[str, Any]],
        on_result: Callable[[int, Result], None] | None = None,
    ) -> list[Result]:
        """Publish every record, many in flight at once; one result per record, in order.

        ``on_result(index, result)`` is called as each one is settled (for a progress bar).
        A bad record does not stop the others; a cluster that refuses us does.

        Raises:
            PublishError: authentication, authorization or the cluster failed the whole run.
        """
        results: dict[int, Result] = {}

        def settle(index: int, result: Result) -> None:
            results[index] = result
            if on_result is not None:
                on_result(index, result)

        count = 0
        for index, record in enumerate(records):
            count += 1
            article_id = str(record.get("article_id", ""))
            try:
                value = self.codec.encode(self.topic.schema, dict(record))
            except EncodeError as error:
                settle(index, PublishError("invalid_record", error.detail, article_id))
                continue
            if len(value) > MAX_MESSAGE_BYTES:
                detail = f"{len(value)} bytes > {MAX_MESSAGE_BYTES}"
                settle(index, PublishError("message_too_large", detail, article_id))
                continue
            self._produce(article_id, value, functools.partial(settle, index))
        deadline = time.monotonic() + self.timeout_s + 5
        while len(results) < count and time.monotonic() < deadline:
            self._producer.poll(0.1)
            self._raise_fatal()
        for index in range(count):
            if index not in results:  # librdkafka times messages out itself; a safety net
                results[index] = PublishError("not_delivered", "no acknowledgement in time")
        return [results[index] for index in range(count)]

    def _produce(self, article_id: str, value: bytes, settle: Callable[[Result], None]) -> None:
        def delivered(error: KafkaError | None, message: Message) -> None:
            if error is None:
                settle(Delivered(article_id, message.partition() or 0, message.offset() or 0))
            else:
                settle(PublishError(_reason(error), error.str(), article_id))

        while True:
            self._raise_fatal()
            try:
                self._producer.produce(
                    self.topic.name, key=message_key(article_id), value=value, on_delivery=delivered
                )
                break
            except BufferError:  # the local queue is full: let deliveries drain it
                self._producer.poll(0.1)
        self._producer.poll(0)

    def _on_error(self, error: KafkaError) -> None:
        reason = _FATAL_CODES.get(error.code())
        if reason is None and error.fatal():
            reason = "producer_fatal"
        if reason is not None and self._fatal is None:
            self._fatal = PublishError(reason, error.str())
        self._last_error = error.str()

    def _raise_fatal(self) -> None:
        if self._fatal is not None:
            raise self._fatal

    def _wait_for_topic(self) -> int:
        """The topic's partition count, once the cluster answers; fails fast on bad credentials.

        Raises:
            PublishError: ``authentication_failed``, ``not_authorized``, ``unreachable`` or
                ``topic_missing``.
        """
        started = time.monotonic()
        deadline = started + self.timeout_s
        while True:
            try:
                metadata = self._producer.list_topics(self.topic.name, timeout=1.0)
            except KafkaException as error:
                self._raise_fatal()
                if time.monotonic() > deadline:
                    last = self._last_error or str(error)
                    detail = f"no answer in {self.timeout_s:.0f} s: {last}"
                    raise PublishError("unreachable", detail) from error
                continue
            self._raise_fatal()
            found = metadata.topics.get(self.topic.name)
            if found is not None and found.error is None and found.partitions:
                return len(found.partitions)
            if found is not None and found.error is not None:
                code = found.error.code()
                if code in _FATAL_CODES:
                    raise PublishError(_FATAL_CODES[code], found.error.str())
            # A topic just created may take a moment to show; a missing one is not worth 30 s.
            if time.monotonic() > min(deadline, started + MISSING_TOPIC_GRACE_S):
                raise PublishError(
                    "topic_missing",
                    f"{self.topic.name} does not exist: a worker creates the topics when it "
                    "starts (or create them with the partition count of the others)",
                )
            time.sleep(0.2)


def _reason(error: KafkaError) -> str:
    if error.code() == KafkaError.MSG_SIZE_TOO_LARGE:
        return "message_too_large"
    return _FATAL_CODES.get(error.code(), "not_delivered")

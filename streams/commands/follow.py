"""Follow articles to their final outcomes by reading the output topics (demo, tests, bench).

An article is settled when hygiene ended terminally, or when it was assembled and then either
judged not approved, or enriched / ended terminally for every approved entity. Consumers see
at-least-once delivery, so outcomes keep every message and tests can check duplicates agree.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import Consumer, KafkaError

from article_runtime.streams.kafka.codec import CodecError
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.registry_codec import codec_from_env
from article_runtime.streams.kafka.topics import (
    ARTICLE_ASSEMBLED,
    ARTICLE_COMPENSATION,
    ARTICLE_ENRICHED,
    BY_NAME,
    ECP_VERDICT,
)

FOLLOWED = (ARTICLE_ASSEMBLED, ECP_VERDICT, ARTICLE_ENRICHED, ARTICLE_COMPENSATION)
ALIVE_EVERY_S = 1.0


@dataclass
class ArticleOutcome:
    article_id: str
    assembled: list[dict[str, Any]] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    enriched: list[dict[str, Any]] = field(default_factory=list)
    compensations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def terminal(self) -> list[dict[str, Any]]:
        return [c for c in self.compensations if c["kind"] == "terminal"]

    @property
    def hygiene_terminal(self) -> dict[str, Any] | None:
        return next((c for c in self.terminal if c["stage"] != "enrichment"), None)

    def enrichment_outcome(self, qid: str) -> dict[str, Any] | None:
        """The enriched record or terminal event for one entity (the first, if duplicated)."""
        for record in self.enriched:
            if record["entity"]["qid"] == qid:
                return record
        for event in self.terminal:
            if event["stage"] == "enrichment" and (event.get("entity") or {}).get("qid") == qid:
                return event
        return None

    @property
    def approved(self) -> list[str]:
        return sorted({v["entity"]["qid"] for v in self.verdicts if v["approved"] and v["entity"]})

    @property
    def settled(self) -> bool:
        if self.hygiene_terminal is not None:
            return True
        if not self.assembled or not self.verdicts:
            return False
        return all(self.enrichment_outcome(qid) is not None for qid in self.approved)

    def add(self, topic: str, record: dict[str, Any]) -> None:
        {
            ARTICLE_ASSEMBLED.name: self.assembled,
            ECP_VERDICT.name: self.verdicts,
            ARTICLE_ENRICHED.name: self.enriched,
            ARTICLE_COMPENSATION.name: self.compensations,
        }[topic].append(record)


def follow(
    connection: KafkaConnection,
    article_ids: Iterable[str],
    *,
    timeout_s: float,
    on_settled: Callable[[ArticleOutcome], None] = lambda _outcome: None,
    settle_grace_s: float = 0.0,
    alive: Callable[[], bool] = lambda: True,
) -> dict[str, ArticleOutcome]:
    """Read the followed topics from the start until every article settles or time runs out.

    ``settle_grace_s`` keeps reading that long after the last article settles, so late
    duplicates (redeliveries) are seen too. ``alive`` is asked about once a second: when it
    says no (the workers producing the outcomes are gone), reading stops with what was seen,
    instead of waiting out ``timeout_s`` for outcomes that cannot come.
    """
    wanted = {a: ArticleOutcome(a) for a in article_ids}
    codec = codec_from_env()
    consumer = Consumer(
        {
            **connection.confluent(),
            "group.id": f"follow-{uuid.uuid4().hex}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([t.name for t in FOLLOWED])
    deadline = time.monotonic() + timeout_s
    announced: set[str] = set()
    all_settled_at: float | None = None
    asked_at = time.monotonic()
    try:
        while time.monotonic() < deadline:
            if all_settled_at is not None and time.monotonic() >= all_settled_at + settle_grace_s:
                break
            if time.monotonic() >= asked_at + ALIVE_EVERY_S:
                if not alive():
                    break
                asked_at = time.monotonic()
            message = consumer.poll(0.2)
            if message is None or message.error() is not None:
                error = None if message is None else message.error()
                if error is not None and error.code() != KafkaError._PARTITION_EOF:
                    raise RuntimeError(f"consumer error: {error}")
                continue
            key = (message.key() or b"").decode("utf-8", errors="replace")
            topic = str(message.topic())
            if key not in wanted:
                continue
            try:
                record = codec.decode(message.value() or b"", BY_NAME[topic].schema)
            except CodecError:
                continue
            outcome = wanted[key]
            outcome.add(topic, record)
            if outcome.settled and key not in announced:
                announced.add(key)
                on_settled(outcome)
                if len(announced) == len(wanted):
                    all_settled_at = time.monotonic()
    finally:
        consumer.close()
    return wanted

"""``article-runtime redrive``: new attempts for articles that ended terminal (after an outage).

    article-runtime redrive --stage hygiene|enrichment [--reason R] [--since T] [--until T]
                            [--article ID] [--dry-run]

Reads ``article.compensation`` from its start to its current end, keeps the terminal events
that match and that no later attempt has followed, and publishes one redrive event for each
(``article_runtime.streams.service.redrive`` says what a redrive is for each stage). Without
``--reason`` only the terminals an outage caused (every model attempt a timeout, connection error,
429 or 5xx; or ``no_provider``); a terminal where a model answered is never redriven (spec 10.6). A
hygiene redrive needs the article's candidate set: it is rebuilt from the article's
``article.ingested`` record at its version's offset, with the hygiene stage's own function.
``--dry-run`` reads the same records and publishes nothing.

Prints one JSON line per matching terminal event (``action``: ``redriven``, ``would_redrive``
or ``skipped`` with ``why``) and a summary on stderr. The cluster comes from the environment,
checked first (``article_runtime.streams.kafka.preflight``: a refused login is one line naming the
setting).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from article_runtime.agents.candidates import candidates_of, retry_context
from article_runtime.agents.versions import label
from article_runtime.model import CandidateSet
from article_runtime.streams.kafka.codec import CodecError
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.preflight import connect_from_env
from article_runtime.streams.kafka.registry_codec import codec_from_env
from article_runtime.streams.kafka.snapshot import READ_TIMEOUT_S, Unavailable, read_to_end
from article_runtime.streams.kafka.topics import (
    ARTICLE_COMPENSATION,
    ARTICLE_INGESTED,
    BY_NAME,
    INGESTED_REPARTITION,
    MAX_CANDIDATE_SET_BYTES,
    MAX_MESSAGE_BYTES,
    PRODUCER_CONFIG,
    message_key,
)
from article_runtime.streams.service.redrive import (
    STAGES,
    Found,
    Selection,
    matching,
    moment,
    redrive_event,
)


class Cluster:
    """The reads and writes the command makes, on one consumer outside any group."""

    def __init__(self, connection: KafkaConnection) -> None:
        self.connection = connection
        self.codec = codec_from_env()
        self.consumer = Consumer(
            connection.confluent()
            | {
                "group.id": f"article-runtime-redrive-{uuid.uuid4().hex}",  # never commits
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "enable.partition.eof": True,
                "log_level": 3,
            }
        )

    def compensations(self) -> Iterator[Found]:
        """Every decodable event on the compensation topic, up to where it ends now."""
        for read in read_to_end(self.consumer, ARTICLE_COMPENSATION.name, self.codec):
            yield Found(read.record, read.partition, read.offset)

    def record(self, topic: str, partition: int, offset: int) -> dict[str, Any]:
        """The record at ``offset`` of ``topic``'s ``partition``, decoded."""
        self.consumer.assign([TopicPartition(topic, partition, offset)])
        try:
            deadline = time.monotonic() + READ_TIMEOUT_S
            while time.monotonic() < deadline:
                message = self.consumer.poll(1.0)
                if message is None:
                    continue
                error = message.error()
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:
                        raise Unavailable("record_expired")
                    raise Unavailable(f"read_failed: {error}")
                if message.offset() != offset:
                    raise Unavailable("record_expired")  # retention removed it
                try:
                    return self.codec.decode(message.value() or b"", BY_NAME[topic].schema)
                except CodecError as exc:
                    raise Unavailable(f"record_{exc.reason}") from None
            raise Unavailable("read_timeout")
        finally:
            self.consumer.unassign()

    def publish(self, events: list[dict[str, Any]]) -> None:
        producer = Producer(
            self.connection.confluent()
            | {"message.max.bytes": MAX_MESSAGE_BYTES, "log_level": 3, **PRODUCER_CONFIG}
        )
        errors: list[str] = []

        def delivered(error: object, _message: object) -> None:
            if error is not None:
                errors.append(str(error))

        for event in events:
            value = self.codec.encode(ARTICLE_COMPENSATION.schema, event)
            key = message_key(event["article_id"])
            producer.produce(ARTICLE_COMPENSATION.name, key=key, value=value, on_delivery=delivered)
            producer.poll(0)
        undelivered = producer.flush(READ_TIMEOUT_S)
        if errors or undelivered:
            first = errors[0] if errors else f"no acknowledgement within {READ_TIMEOUT_S} s"
            raise RuntimeError(f"{len(errors) + undelivered} redrives not published: {first}")

    def close(self) -> None:
        self.consumer.close()


def hygiene_input(cluster: Cluster, terminal: Found) -> tuple[dict[str, Any], Any]:
    """The candidate set (``RetryContext``) and version a hygiene redrive carries, rebuilt from
    the article's ingested record at its version's offset, exactly as the hygiene stage built
    it."""
    version = terminal.event.get("version")
    if version is None:
        raise Unavailable("input_unknown")  # written before versions named the ingested record
    at = (ARTICLE_INGESTED.name, terminal.partition, int(version["ingested_offset"]))
    found = terminal.event.get("origin")
    if found is not None and found["topic"] == INGESTED_REPARTITION.name:
        # A page its producer put off its article's partition: the worker's forwarded copy.
        at = (found["topic"], found["partition"], found["offset"])
    ingested = cluster.record(*at)
    built = candidates_of(ingested, at=at)
    if not isinstance(built, CandidateSet):
        raise Unavailable(f"page_unusable: {built.record['reason']}")
    retry = retry_context(ingested, built)
    if len(retry["candidate_set_json"].encode("utf-8")) > MAX_CANDIDATE_SET_BYTES:
        raise Unavailable("candidate_set_too_large")
    return retry, version


def described(found: Found) -> dict[str, Any]:
    event = found.event
    entity = event.get("entity") or {}
    return {
        "article_id": event["article_id"],
        "stage": event["stage"],
        "reason": event["reason"],
        "entity": entity.get("qid"),
        "version": label(event.get("version")),
        "occurred_at": event["occurred_at"].isoformat(),
        "terminal": f"{ARTICLE_COMPENSATION.name}[{found.partition}]@{found.offset}",
    }


def run(args: argparse.Namespace) -> int:
    selection = Selection(
        stage=args.stage,
        reason=args.reason,
        since=None if args.since is None else moment(args.since),
        until=None if args.until is None else moment(args.until),
        article_id=args.article,
    )
    cluster = Cluster(connect_from_env("article-runtime redrive"))
    events: list[dict[str, Any]] = []
    skipped = 0
    try:
        for terminal, refused in matching(cluster.compensations(), selection):
            line = described(terminal)
            try:
                if refused is not None:
                    raise Unavailable(refused)
                if terminal.group == "hygiene":
                    retry, version = hygiene_input(cluster, terminal)
                    event = redrive_event(terminal, retry=retry, version=version)
                elif terminal.event.get("entity") is None:
                    raise Unavailable("no_entity")  # an internal error before the join
                else:
                    event = redrive_event(terminal)
            except Unavailable as why:
                skipped += 1
                print(json.dumps({**line, "action": "skipped", "why": str(why)}), flush=True)
                continue
            events.append(event)
            action = "would_redrive" if args.dry_run else "redriven"
            print(json.dumps({**line, "action": action}), flush=True)
        if events and not args.dry_run:
            cluster.publish(events)
    finally:
        cluster.close()
    verb = "would redrive" if args.dry_run else "redriven"
    print(f"{len(events)} {verb}, {skipped} skipped", file=sys.stderr)
    return 0


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "redrive",
        help="publish new attempts for articles that ended terminal (after an outage)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--stage",
        required=True,
        choices=sorted(STAGES),
        help="hygiene: terminal events of the model ladder (stages hygiene, assembly); "
        "enrichment: an entity's enrichment",
    )
    parser.add_argument(
        "--reason",
        help="only terminal events with this reason, whatever caused them (default: those an "
        "outage caused: timeouts, connection errors, 429, 5xx, no_provider)",
    )
    parser.add_argument("--since", help="only events at or after: ISO 8601, or 2h, 90m, 1d ago")
    parser.add_argument("--until", help="only events at or before (same forms)")
    parser.add_argument("--article", help="only this article ID")
    parser.add_argument("--dry-run", action="store_true", help="list, publish nothing")
    parser.set_defaults(func=run)

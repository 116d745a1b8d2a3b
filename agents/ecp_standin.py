"""LOCAL STAND-IN for the ECP classifier: approves every assembled article for one entity.

The real ECP classifier is an external service that publishes ``ecp.verdict``; we never
reimplement it. This stand-in exists only so local runs (``make demo``, integration tests)
exercise enrichment, and every verdict it writes says so in ``classifier_version``. It runs
inside the worker as an agent when ``ECP_STANDIN_QID`` and ``ECP_STANDIN_NAME`` are set, or
apart, as the real classifier does, with ``python -m article_runtime.agents.ecp_standin`` (the same
variables and the worker's Kafka settings): ``make bench-stream`` runs it apart, so the worker it
measures does only the worker's work.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any

import faust
from confluent_kafka import Consumer

from article_runtime.streams.kafka.codec import CodecError
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.producer import ArticleProducer, PublishError
from article_runtime.streams.kafka.registry_codec import codec_from_env
from article_runtime.streams.kafka.topics import ARTICLE_ASSEMBLED, ECP_VERDICT
from article_runtime.streams.kafka.window import InFlight
from article_runtime.streams.service.records import now
from article_runtime.streams.service.settings import (
    ECP_STANDIN_NAME_ENV,
    ECP_STANDIN_QID_ENV,
    StandInEntity,
)
from article_runtime.streams.service.wiring import Emit, Event, Wiring, manual_acks

CLASSIFIER_VERSION = "local-stand-in (not ECP): approves everything"
VERDICTS_IN_FLIGHT = 64
GROUP = "ecp-standin"  # the consumer group of the stand-in run apart
BATCH = 256  # assembled articles judged, published and committed together


def standin_verdict(assembled: dict[str, Any], entity: StandInEntity) -> Emit:
    verdict = {
        "article_id": assembled["article_id"],
        "approved": True,
        "entity": {"qid": entity.qid, "name": entity.name, "identity": None},
        "article_hash": assembled["hashes"]["markdown"],
        "classifier_version": CLASSIFIER_VERSION,
        "decided_at": now(),
    }
    return Emit(ECP_VERDICT, assembled["article_id"], verdict)


def register(w: Wiring, entity: StandInEntity) -> None:
    async def handle(_event: Event, record: dict[str, Any]) -> list[Emit]:
        return [standin_verdict(record, entity)]

    @w.app.agent(w.topic(ARTICLE_ASSEMBLED), name="ecp_standin")
    async def ecp_standin(stream: faust.StreamT[bytes]) -> None:
        # Many verdicts on their way to the broker at once, as a classifier service would
        # answer: one at a time, each waiting for its acknowledgement, it held the whole flow
        # to one round trip per article.
        manual = manual_acks(stream)
        window = InFlight(VERDICTS_IN_FLIGHT, manual.ack)
        async for event in manual.events():
            await window.submit(event, w.process(event, "enrichment", handle))


def serve(connection: KafkaConnection, entity: StandInEntity, stop: threading.Event) -> None:
    """The stand-in apart from the worker: verdicts for what ``article.assembled`` holds,
    each batch published before its offsets are committed (at-least-once, as ECP's), until
    ``stop`` is set."""
    codec = codec_from_env()
    settings = {"group.id": GROUP, "auto.offset.reset": "earliest"}
    consumer = Consumer({**connection.confluent(), **settings, "enable.auto.commit": False})
    consumer.subscribe([ARTICLE_ASSEMBLED.name])
    try:
        with ArticleProducer(connection, topic=ECP_VERDICT) as producer:
            while not stop.is_set():
                messages = consumer.consume(BATCH, timeout=0.5)
                verdicts = []
                for message in messages:
                    if message.error() is not None:
                        continue
                    try:
                        assembled = codec.decode(message.value() or b"", ARTICLE_ASSEMBLED.schema)
                    except CodecError:
                        continue  # the worker's enrichment stage reports it
                    verdicts.append(standin_verdict(assembled, entity).record)
                failed = [r for r in producer.send_all(verdicts) if isinstance(r, PublishError)]
                if failed:
                    raise failed[0]  # uncommitted: the next start judges them again
                if messages:
                    consumer.commit(asynchronous=False)
    finally:
        consumer.close()


def main() -> None:
    qid, name = os.environ.get(ECP_STANDIN_QID_ENV, ""), os.environ.get(ECP_STANDIN_NAME_ENV, "")
    if not qid or not name:
        sys.exit(f"set {ECP_STANDIN_QID_ENV} and {ECP_STANDIN_NAME_ENV}")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    serve(KafkaConnection.from_env(), StandInEntity(qid, name), stop)


if __name__ == "__main__":
    main()

"""What one record costs each Kafka client in the stack, on the real broker: the floor a
worker's Kafka client puts under the stream's overhead (issue 13, section 1).

Run: ``.venv/bin/python -m bench.kafka_clients [--records N] [--rounds R] [--value-bytes B]
[--in-flight K]``.

The worker reaches Kafka through aiokafka (Faust's transport, pure Python); confluent-kafka
(librdkafka, C) is in the stack too, for the admin, the CLIs and ingestion's producer. Here
both do the worker's two jobs with nothing of Faust or ours on top, in one asyncio process,
taking turns R times against one local broker:
- produce: N records of B bytes to the topics' partition count, acks=all and idempotent as
  the worker's producer, at most K unacknowledged at once (a worker's stages await their
  outputs, a few messages at a time), each acknowledgement awaited on the event loop
  (librdkafka's delivery reports reach the loop from a polling thread, once per poll);
- consume: the same N records read back from the start, in batches.

It prints the median CPU time of the process (every thread: librdkafka works in its own) per
record for each client and job, beside the ratio of the two, and the event loop's thread's
alone: a worker's loop bounds its throughput, so that is what a switch of client could buy
it. Multiplied by the records an article sends and takes (``make bench-stream`` prints them),
it says what the client alone costs per article, whatever Faust and our stages add.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import threading
import time
import uuid
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from confluent_kafka import Consumer, KafkaError, Message, Producer

from article_runtime.streams.kafka.admin import ensure_topics
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.topics import PARTITIONS, PRODUCER_CONFIG, Topic
from article_runtime.streams.local.broker import local_broker

BATCH = 500  # records a consumer returns at most per call
READ_BACK_S = 120.0  # a consumer that has not read every record back by then has lost some

Job = Callable[[KafkaConnection, str, list[bytes], bytes, int], Coroutine[Any, Any, None]]


async def _room(window: set[asyncio.Future[Any]], in_flight: int) -> set[asyncio.Future[Any]]:
    """The records still unacknowledged once fewer than ``in_flight`` are (failures raise)."""
    while len(window) >= in_flight:
        done, window = await asyncio.wait(window, return_when=asyncio.FIRST_COMPLETED)
        for fut in done:
            fut.result()
    return window


async def aiokafka_produce(
    connection: KafkaConnection, topic: str, keys: list[bytes], value: bytes, in_flight: int
) -> None:
    producer = AIOKafkaProducer(
        **connection.aiokafka(), acks="all", enable_idempotence=True, linger_ms=0
    )
    await producer.start()
    try:
        window: set[asyncio.Future[Any]] = set()
        for key in keys:
            window = await _room(window, in_flight)
            window.add(await producer.send(topic, value, key=key))
        await asyncio.gather(*window)
    finally:
        await producer.stop()


async def confluent_produce(
    connection: KafkaConnection, topic: str, keys: list[bytes], value: bytes, in_flight: int
) -> None:
    loop = asyncio.get_running_loop()
    producer = Producer({**connection.confluent(), **PRODUCER_CONFIG, "acks": "all"})
    polling = True

    def poll() -> None:
        # Delivery reports run here, in poll(); the loop is woken once per poll, not per record.
        while polling:
            delivered.clear()
            producer.poll(0.05)
            if delivered:
                loop.call_soon_threadsafe(_settle, list(delivered))

    delivered: list[tuple[asyncio.Future[None], KafkaError | None]] = []
    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        window: set[asyncio.Future[Any]] = set()
        for key in keys:
            window = await _room(window, in_flight)
            fut: asyncio.Future[None] = loop.create_future()
            producer.produce(topic, value, key, on_delivery=_report(delivered, fut))
            window.add(fut)
        await asyncio.gather(*window)
    finally:
        polling = False
        poller.join()
        producer.flush()


def _report(
    delivered: list[tuple[asyncio.Future[None], KafkaError | None]], fut: asyncio.Future[None]
) -> Callable[[KafkaError | None, Message], None]:
    def report(error: KafkaError | None, message: Message) -> None:
        delivered.append((fut, error))

    return report


def _settle(delivered: list[tuple[asyncio.Future[None], KafkaError | None]]) -> None:
    for fut, error in delivered:
        if error is None:
            fut.set_result(None)
        else:
            fut.set_exception(RuntimeError(str(error)))


async def aiokafka_consume(
    connection: KafkaConnection, topic: str, keys: list[bytes], value: bytes, in_flight: int
) -> None:
    consumer = AIOKafkaConsumer(
        topic,
        **connection.aiokafka(),
        group_id=f"bench-{uuid.uuid4().hex}",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
        max_poll_records=BATCH,
    )
    await consumer.start()
    try:
        seen, deadline = 0, time.monotonic() + READ_BACK_S
        while seen < len(keys):
            _in_time(deadline, seen, len(keys))
            batches = await consumer.getmany(timeout_ms=1000, max_records=BATCH)
            seen += sum(len(records) for records in batches.values())
    finally:
        await consumer.stop()


async def confluent_consume(
    connection: KafkaConnection, topic: str, keys: list[bytes], value: bytes, in_flight: int
) -> None:
    consumer = Consumer(
        {
            **connection.confluent(),
            "group.id": f"bench-{uuid.uuid4().hex}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    consumer.subscribe([topic])
    try:
        seen, deadline = 0, time.monotonic() + READ_BACK_S
        while seen < len(keys):
            _in_time(deadline, seen, len(keys))
            records = consumer.consume(num_messages=BATCH, timeout=1.0)
            seen += sum(1 for record in records if record.error() is None)
            await asyncio.sleep(0)  # as a loop-friendly consumer would yield between batches
    finally:
        consumer.close()


def _in_time(deadline: float, seen: int, wanted: int) -> None:
    if time.monotonic() > deadline:
        raise RuntimeError(f"read back {seen} of {wanted} records in {READ_BACK_S:.0f} s")


CLIENTS = ("aiokafka", "confluent-kafka")
JOBS: dict[str, dict[str, Job]] = {
    "produce": {"aiokafka": aiokafka_produce, "confluent-kafka": confluent_produce},
    "consume": {"aiokafka": aiokafka_consume, "confluent-kafka": confluent_consume},
}


@dataclass(frozen=True)
class Cost:
    """CPU microseconds per record: the whole process's, and the event loop thread's."""

    process_us: float
    loop_us: float


def cpu_us_per_record(
    job: Job, connection: KafkaConnection, topic: str, value: bytes, n: int, in_flight: int
) -> Cost:
    keys = [f"article-{i:08d}".encode() for i in range(n)]
    process, loop = time.process_time(), time.thread_time()  # the loop runs in this thread
    asyncio.run(job(connection, topic, keys, value, in_flight))
    return Cost(1e6 * (time.process_time() - process) / n, 1e6 * (time.thread_time() - loop) / n)


def measure(
    connection: KafkaConnection,
    *,
    records: int,
    rounds: int,
    in_flight: int,
    value_bytes: int,
    report: Callable[[str], None] = print,
) -> dict[tuple[str, str], list[Cost]]:
    """CPU per record, by (job, client), one figure per round."""
    value = bytes(range(256)) * (value_bytes // 256) + b"x" * (value_bytes % 256)
    figures: dict[tuple[str, str], list[Cost]] = {}
    for round_ in range(rounds):
        for client in CLIENTS:
            topic = f"bench.clients.{uuid.uuid4().hex[:8]}.{client}"
            ensure_topics(connection, [Topic(topic, "-")], partitions=PARTITIONS)
            for name, jobs in JOBS.items():
                cost = cpu_us_per_record(jobs[client], connection, topic, value, records, in_flight)
                figures.setdefault((name, client), []).append(cost)
                report(
                    f"round {round_ + 1}: {client} {name} {cost.process_us:.1f} us/record "
                    f"(event loop {cost.loop_us:.1f})"
                )
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.kafka_clients")
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--value-bytes", type=int, default=2048)
    parser.add_argument("--in-flight", type=int, default=8, help="unacknowledged records at most")
    args = parser.parse_args(argv)
    with local_broker(partitions=PARTITIONS) as broker:
        figures = measure(
            broker.connection,
            records=args.records,
            rounds=args.rounds,
            in_flight=args.in_flight,
            value_bytes=args.value_bytes,
            report=lambda line: print(line, flush=True),
        )
    print(
        f"\n{args.records} records of {args.value_bytes} B, {PARTITIONS} partitions, "
        f"at most {args.in_flight} unacknowledged, {args.rounds} rounds\n"
        "CPU per record, median: of this process (all threads), and of its event loop's thread"
    )
    print(f"{'':20}{'aiokafka':>12}{'confluent-kafka':>18}{'ratio':>8}")
    for name in JOBS:
        for part, field in (("process", "process_us"), ("event loop", "loop_us")):
            ours = statistics.median(getattr(c, field) for c in figures[(name, "aiokafka")])
            theirs = statistics.median(
                getattr(c, field) for c in figures[(name, "confluent-kafka")]
            )
            label = f"{name}, {part}"
            print(f"{label:20}{ours:9.1f} us{theirs:15.1f} us{ours / theirs:8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

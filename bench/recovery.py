"""Recovery time after a restart, with many retained articles, on both table stores.

Run: ``.venv/bin/python -m bench.recovery [--articles 100000] [--restarts 3]``.

How the tables are filled: a real run first (one worker, the memory store, the scripted
provider, ``--seed`` articles through the whole flow), whose table changelogs are then read
back; their per-article records (hygiene ladder, enrichment join, lineage) are the templates.
Then ``--articles`` synthetic articles are written straight to the changelog topics: each gets
one record per per-article table, a template's value under its own key, on the partition the
flow would use for it. Writing the changelog directly takes seconds where the flow would take
hours on this machine; recovery reads the changelog and cannot tell the difference.

Then, per store, a worker is started and restarted (SIGTERM, graceful) ``--restarts`` times;
each time is from starting the process until its views stop answering 503 ``recovering`` (the
readiness of ``article_runtime.streams.worker.views.serving``; Python's own start, about 2-3 s,
included). The first start of the RocksDB store reads the whole changelog into an empty data
directory (a new pod's first start, or a lost volume); the restarts after it keep the directory, as
a StatefulSet's volume does. A synthetic article's lineage is fetched after each start, to show the
tables are whole.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from confluent_kafka import Producer

from article_runtime.agents.enrichment import JOIN_TABLE
from article_runtime.agents.hygiene import LADDER_TABLE
from article_runtime.agents.ledger import STATUS_TABLE
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.kafka.topics import (
    MAX_MESSAGE_BYTES,
    PARTITIONS,
    PRODUCER_CONFIG,
    partition_of,
)
from article_runtime.streams.local.worker_process import WorkerProcess
from article_runtime.streams.service.settings import DATA_DIR_ENV, STORE_ENV
from bench.retained import changelog_topic, live_records, rss_bytes
from tests.integration.stream_support import Flow, flow
from tests.llm_support import FALLBACK, PRIMARY
from tests.support.openai_server import running_server
from tests.support.stream_cases import make_articles, responder

APP_ID = "article-runtime-bench"
PER_ARTICLE = (LADDER_TABLE, JOIN_TABLE, STATUS_TABLE)
MIB = 1024 * 1024


def templates(connection: KafkaConnection, table: str) -> list[tuple[bytes, bytes]]:
    """The live (key, value) records of a table's changelog."""
    return sorted(live_records(connection, changelog_topic(APP_ID, table)).items())


def synthetic_id(i: int) -> str:
    return f"bench-recovery-{i:07d}"


def fill(connection: KafkaConnection, n: int, partitions: int = PARTITIONS) -> tuple[int, int]:
    """Write ``n`` synthetic articles' records to every per-article changelog; (records,
    bytes)."""
    producer = Producer(
        connection.confluent()
        | {"message.max.bytes": MAX_MESSAGE_BYTES}
        | PRODUCER_CONFIG
        | {"linger.ms": 50}
    )
    records = written = 0
    for table in PER_ARTICLE:
        found = templates(connection, table)
        if not found:
            raise RuntimeError(f"the seed run left {table} empty")
        quoted = found[0][0].startswith(b'"')  # keys as Faust wrote them (JSON or raw)
        topic = changelog_topic(APP_ID, table)
        for i in range(n):
            article_id = synthetic_id(i)
            key = f'"{article_id}"'.encode() if quoted else article_id.encode()
            value = found[i % len(found)][1]
            while True:
                try:
                    producer.produce(
                        topic, key=key, value=value, partition=partition_of(article_id, partitions)
                    )
                    break
                except BufferError:
                    producer.poll(0.1)
            records, written = records + 1, written + len(key) + len(value)
        producer.flush(120)
    return records, written


def ready_after(worker: WorkerProcess) -> float:
    """Seconds from starting ``worker`` until its views answer (tables recovered)."""
    started = time.monotonic()
    worker.start(timeout_s=900)
    while worker.get("/counters/") is None:  # start() already waits for a settled assignment
        time.sleep(0.1)
    return time.monotonic() - started


def measure(f: Flow, store: str, restarts: int, work: Path, n: int) -> list[tuple[float, int]]:
    """(seconds to recover, RSS after) for the first start and each restart."""
    settings = {STORE_ENV: store, DATA_DIR_ENV: str(work / f"data-{store.split(':')[0]}")}
    probe = f"/articles/{synthetic_id(n // 2)}/"
    figures = []
    for _ in range(restarts + 1):
        with f.worker(app_id=APP_ID, settings=settings) as worker:
            seconds = ready_after(worker)
            assert worker.process is not None
            if worker.get(probe) is None:
                raise RuntimeError(f"{store}: {probe} unknown after recovery: tables not whole")
            figures.append((seconds, rss_bytes(worker.process.pid)))
            worker.stop()
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recovery")
    parser.add_argument("--articles", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=24, help="articles run through the flow")
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument("--work", type=Path, help="keep the worker logs here (default: temporary)")
    args = parser.parse_args(argv)
    cases = make_articles(args.seed, seed=9)
    with tempfile.TemporaryDirectory() as tmp, running_server() as server:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        server.respond_with(responder(cases, PRIMARY, FALLBACK))
        with flow(work, server.base_url) as f:
            with f.worker(app_id=APP_ID) as worker:
                worker.start()
                f.publish_cases(cases)
                f.follow([c.article_id for c in cases], timeout_s=300)
                time.sleep(3)  # the ledger trails the outputs by a moment
                worker.stop()
            began = time.monotonic()
            records, written = fill(f.connection, args.articles)
            print(
                f"changelogs               {records} records, {written / MIB:.0f} MiB written "
                f"for {args.articles} articles in {time.monotonic() - began:.1f} s "
                f"(templates from {args.seed} articles through the flow)"
            )
            for store in ("memory://", "rocksdb://"):
                figures = measure(f, store, args.restarts, work, args.articles)
                first, later = figures[0], figures[1:]
                median = statistics.median(s for s, _ in later)
                each = ", ".join(f"{s:.1f}" for s, _ in later)
                print(
                    f"{store:<12} first start {first[0]:6.1f} s   restart median "
                    f"{median:6.1f} s ({each})   RSS after restart "
                    f"{statistics.median(r for _, r in later) / MIB:.0f} MiB"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

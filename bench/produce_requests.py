"""A worker whose produce requests are counted: how many records each request carries.

aiokafka keeps at most one produce request in flight per broker; records made meanwhile wait
and go out together in the next one. How many share a request decides much of what a record
costs to produce (``bench.kafka_clients``: 492 µs per record one at a time, 102 µs with 64
unacknowledged at once), and the worker's stages await each step's records before the next,
so the count is worth seeing. aiokafka reports none, so this wraps its sender's request
(``Sender._send_produce_req``, a private method: for the benchmark only, never the worker)
and writes the running counts to a JSON file about five times a second.

``bench.stream_throughput`` runs its workers as ``python -m bench.produce_requests`` with
``ARTICLE_RUNTIME_BENCH_PRODUCE_COUNTS=FILE`` and reads the file before and after the
measured articles; everything else is ``python -m article_runtime.streams.worker`` unchanged.
"""

from __future__ import annotations

import json
import os
import runpy
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from aiokafka.producer.sender import Sender

COUNTS_ENV = "ARTICLE_RUNTIME_BENCH_PRODUCE_COUNTS"
WRITE_EVERY_S = 0.2


@dataclass
class Counts:
    """Produce requests sent so far, and the record batches (one per partition) and records
    they carried."""

    requests: int = 0
    batches: int = 0
    records: int = 0


@contextmanager
def counting(counts: Counts) -> Iterator[Counts]:
    """Count every produce request any aiokafka producer of this process sends meanwhile."""
    send = Sender._send_produce_req

    async def counted(self: Sender, node_id: int, batches: dict[Any, Any]) -> Any:
        counts.requests += 1
        counts.batches += len(batches)
        counts.records += sum(batch.record_count for batch in batches.values())
        return await send(self, node_id, batches)

    Sender._send_produce_req = counted
    try:
        yield counts
    finally:
        Sender._send_produce_req = send


def read_counts(path: Path) -> Counts:
    """What a worker has written so far (nothing yet: zeros)."""
    try:
        return Counts(**json.loads(path.read_text()))
    except FileNotFoundError:
        return Counts()


def _write_forever(counts: Counts, path: Path) -> None:
    partial = path.with_suffix(".partial")
    while True:
        partial.write_text(json.dumps(asdict(counts)))
        partial.replace(path)  # a reader never sees half a file
        time.sleep(WRITE_EVERY_S)


def main() -> None:
    path = Path(os.environ[COUNTS_ENV])
    with counting(Counts()) as counts:
        threading.Thread(target=_write_forever, args=(counts, path), daemon=True).start()
        runpy.run_module("article_runtime.streams.worker", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()

"""Where a worker's CPU went, from py-spy's collapsed stacks: one line per part of the work.

Each sample goes to the first part, in ``PARTS`` order, that one of its frames names, so a
table write made by the ledger counts as the ledger's; else to the library nearest its leaf.
Sampled with ``--gil`` (only the thread holding Python's lock), a part's samples times the
sampling period is the time it held the interpreter: its share of the one core a worker's
Python code can use. Divided by the articles measured it reads beside
``bench.stream_throughput``'s CPU per article (which adds the kernel's time in system calls
and the work of C code done without the lock).

``python -m bench.profile_summary STACKS.txt ARTICLES [--rate HZ]``
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

# (part, any of these in a frame): the first that matches anywhere in a sample's stack takes it.
PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("logging", ("logging/__init__.py", "streams/service/logs.py")),
    (
        "metrics (ours and Faust's sensors)",
        ("prometheus_client", "streams/service/metrics.py", "Sensor"),
    ),
    ("ledger: lineage, counters, recent terminals", ("Ledger.", "updated (agents/ledger.py")),
    ("candidates: build the candidate set", ("build_candidates (",)),
    ("hygiene: harness (judge, assemble)", ("run_hygiene_harness (",)),
    ("hygiene: render, call, parse", ("run_hygiene (", "ask (agents/hygiene.py")),
    ("enrichment: model call and validation", ("enrich_article (",)),
    ("candidate set JSON", ("model_validate_json", "model_dump_json")),
    ("Avro decode", ("AvroCodec.decode (",)),
    ("Avro encode", ("AvroCodec.encode (",)),
    ("tables: pack, unpack, changelog", ("StateTable.", "packed (", "unpacked (")),
    ("enrichment: read the article back", ("TopicReader.",)),
    ("Kafka produce (aiokafka, Faust producer)", ("aiokafka/producer", "faust/transport/produc")),
    ("Kafka fetch (aiokafka, Faust consumer)", ("aiokafka/consumer", "faust/transport/consumer")),
)
# Else the library of the frame nearest the leaf that is not the standard library's.
LIBRARIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Kafka client (connections, protocol)", ("aiokafka/", "kafka/")),
    ("Faust streams, agents, tables", ("faust/", "mode/")),
    ("stage code (agents, wiring)", ("agents/", "streams/")),
)
OTHER = "other (event loop, threads)"
# Frames every sample of a process passes through on its way to the event loop: a worker's
# entry is Faust's, but the loop under it is no more Faust's than the in-process run's is.
ENTRY = ("Worker.execute_from_commandline (mode/worker.py",)


def part_of(frames: Sequence[str]) -> str:
    for part, markers in PARTS:
        if any(marker in frame for frame in frames for marker in markers):
            return part
    for frame in reversed(frames):
        if frame.startswith(ENTRY):
            return OTHER
        for part, markers in LIBRARIES:
            if any(marker in frame for marker in markers):
                return part
    return OTHER


def summary(stacks: Path) -> Counter[str]:
    """Samples per part (frames of imports at start-up are left out)."""
    parts: Counter[str] = Counter()
    for line in stacks.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not count.isdigit() or any("_find_and_load" in frame for frame in frames):
            continue
        parts[part_of(frames)] += int(count)
    return parts


def print_profile(stacks: Path, articles: int, rate_hz: float = 100.0) -> None:
    parts = summary(stacks)
    total = sum(parts.values()) or 1
    for part, samples in parts.most_common():
        ms = 1000 * samples / rate_hz / articles
        print(f"  {part:<44}{100 * samples / total:5.1f}%  {ms:6.1f} ms/article")
    print(f"  {'sampled in all':<44}{100.0:5.1f}%  {1000 * total / rate_hz / articles:6.1f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile_summary")
    parser.add_argument("stacks", type=Path, help="py-spy record --format raw output")
    parser.add_argument("articles", type=int)
    parser.add_argument("--rate", type=float, default=100.0, help="py-spy's samples per second")
    args = parser.parse_args(argv)
    print_profile(args.stacks, args.articles, args.rate)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

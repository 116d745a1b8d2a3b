"""CPU per table change spent packing its value, as this release packs it and as before.

The stages change a table about eight times per article (lineage, counters, the ladder, the
join), and each change packs the whole value (``article_runtime.streams.kafka.tables.packed``). This
times that on values shaped like the worker's: an article's lineage as the ledger builds it
(``article_runtime.agents.ledger.updated``) after each of its messages, a partition's counters, and
an enrichment join state holding a stored result. "before" is how earlier releases packed
(``json.dumps`` and ``zlib.compress`` at level 1, zlib's default memory); every value is
checked to read back the same either way.

``python -m bench.table_packing [--rounds R]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import zlib
from collections.abc import Callable
from typing import Any

from article_runtime.agents.ledger import observe, updated
from article_runtime.streams.kafka.tables import packed, unpacked

ATTEMPT: dict[str, Any] = {"call": "hygiene", "model": "m-1", "attempt": 1, "latency_ms": 812.5}


def before(value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return zlib.compress(text, 1) if len(text) >= 256 else text


def lineages() -> list[dict[str, Any]]:
    """One article's lineage after each message of a fallback path, then an enrichment."""
    version = {"ingested_offset": 4211, "declared": None}
    messages: list[tuple[str, dict[str, Any]]] = [
        ("article.ingested", {"url": "https://news.example.org/2026/12/03/a-long-path-ção"}),
        (
            "article.compensation",
            {
                "kind": "fallback",
                "stage": "hygiene",
                "reason": "invalid_output",
                "detail": "repairs[2].after is not in the block's text",
                "next_attempt": "runtime_fallback",
                "attempts": [{**ATTEMPT, "role": "runtime_primary", "outcome": "invalid"}],
            },
        ),
        (
            "article.assembled",
            {
                "path": "fallback",
                "title": "Ministério anuncia um plano de investimento em ferrovias até 2030",
                "hashes": {"markdown": "9f" * 32},
                "prompt": {"name": "hygiene", "version": "2.3.0"},
                "attempts": [{**ATTEMPT, "role": "runtime_fallback", "outcome": "ok"}],
            },
        ),
        (
            "ecp.verdict",
            {"approved": True, "entity": {"qid": "Q155"}, "classifier_version": "ecp-7"},
        ),
        (
            "article.enriched",
            {
                "path": "primary",
                "entity": {"qid": "Q155"},
                "sentiment": "neutral",
                "tags": [{"tag": t} for t in ("ferrovias", "investimento", "transporte")],
                "prompt": {"name": "enrichment", "version": "1.4.0"},
                "content_hash": "3c" * 32,
                "attempts": [{**ATTEMPT, "call": "enrichment", "role": "runtime_primary"}],
            },
        ),
    ]
    status, states = None, []
    for offset, (topic, record) in enumerate(messages):
        entry, _ = observe(topic, {**record, "version": version}, offset)
        status = updated(status, topic, entry, "2026-12-03T13:00:00.123456+00:00")
        states.append(status)
    return states


def values() -> list[Any]:
    counters = {"ingested": 4120, "assembled/fallback": 1630, "verdict/approved": 2210}
    result = json.dumps({"sentiment": "neutral", "tags": ["ferrovias"] * 5, "attempts": [ATTEMPT]})
    join = {
        "version": {"ingested_offset": 4211, "declared": None},
        "article": {"partition": 2, "offset": 9120, "hash": "9f" * 32},
        "verdicts": {"Q155@": {"qid": "Q155", "name": "Brasil"}},
        "results": {f"Q155@{'9f' * 32}": {"kind": "enriched", "result": result, "at": 1.7e9}},
    }
    return [*lineages(), counters, join]


def per_value_us(pack: Callable[[Any], bytes], every: list[Any], repeat: int) -> float:
    started = time.process_time()
    for _ in range(repeat):
        for value in every:
            pack(value)
    return (time.process_time() - started) / (repeat * len(every)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=2000)
    args = parser.parse_args()
    every = values()
    for value in every:  # both read back as the value itself
        assert unpacked(packed(value)) == value == unpacked(before(value))
    runs: dict[str, list[float]] = {"before": [], "now": []}
    for _ in range(args.rounds):  # in turn, so a slow minute weighs on both
        runs["before"].append(per_value_us(before, every, args.repeat))
        runs["now"].append(per_value_us(packed, every, args.repeat))
    sizes = {name: sum(map(len, map(f, every))) / len(every) for name, f in
             (("before", before), ("now", packed))}  # fmt: skip
    rounds = f"{args.rounds} rounds of {args.repeat} packings each"
    print(f"{len(every)} values, {rounds}, CPU per value")
    for name, times in runs.items():
        shown = ", ".join(f"{t:.1f}" for t in times)
        print(f"{name:7} median {statistics.median(times):6.1f} µs ({shown}); "
              f"{sizes[name]:.0f} bytes held per value")  # fmt: skip
    ratio = statistics.median(runs["now"]) / statistics.median(runs["before"])
    print(f"now / before: {ratio:.2f}")


if __name__ == "__main__":
    main()

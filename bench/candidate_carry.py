"""How the proposal topic should carry what the assembly agent judges against: the candidate
set itself, compressed, or a reference from which the set is rebuilt.

Prints, per page of a set (median and p90 over the pages), what each way costs:

- carried: the candidate set's JSON (``model_dump_json``, the bytes its hash is taken of),
  compressed with zlib at levels 1 and 6: bytes on the topic, CPU to compress (hygiene) and to
  inflate, check the hash and parse it back (assembly);
- rebuilt: the page's bytes (what a reference makes the assembly agent read back from
  ``article.ingested``) and the CPU to build the candidate set again, plus the hash check.

``python -m bench.candidate_carry [--sets aeb,samples] [--limit N]``. Single-threaded CPU time
(``time.thread_time``), each step repeated until it took 20 ms, so a noisy machine moves the
figures less than wall time would.
"""

from __future__ import annotations

import argparse
import statistics
import time
import zlib
from collections.abc import Callable, Iterator

from article_runtime.candidates import build_candidates
from article_runtime.errors import InputError
from article_runtime.hashing import sha256_hex
from article_runtime.model import CandidateSet
from bench.run import Page, aeb_pages, sample_pages

SETS: dict[str, Callable[[int | None], Iterator[Page]]] = {
    "aeb": aeb_pages,
    "samples": sample_pages,
}
LEVELS = (1, 6)


def cpu_ms(work: Callable[[], object], at_least_s: float = 0.02) -> float:
    """CPU milliseconds one call of ``work`` takes (repeated until ``at_least_s`` passed)."""
    runs, started = 0, time.thread_time()
    while True:
        work()
        runs += 1
        spent = time.thread_time() - started
        if spent >= at_least_s:
            return spent * 1000 / runs


def measure(page: Page) -> dict[str, float] | None:
    try:
        candidates = build_candidates(page.raw, url=page.url)
    except InputError:
        return None
    text = candidates.model_dump_json().encode("utf-8")
    digest = sha256_hex(text)
    row: dict[str, float] = {
        "html_kb": len(page.raw) / 1024,
        "json_kb": len(text) / 1024,
        "rebuild_ms": cpu_ms(lambda: build_candidates(page.raw, url=page.url)),
        "hash_ms": cpu_ms(lambda: sha256_hex(candidates.model_dump_json())),
    }
    for level in LEVELS:
        packed = zlib.compress(text, level)

        def unpack(packed: bytes = packed) -> CandidateSet:
            raw = zlib.decompress(packed)
            assert sha256_hex(raw) == digest
            return CandidateSet.model_validate_json(raw)

        row[f"zlib{level}_kb"] = len(packed) / 1024

        def pack(level: int = level) -> bytes:
            return zlib.compress(candidates.model_dump_json().encode("utf-8"), level)

        row[f"zlib{level}_pack_ms"] = cpu_ms(pack)
        row[f"zlib{level}_unpack_ms"] = cpu_ms(unpack)
    return row


def summary(rows: list[dict[str, float]], name: str) -> str:
    values = sorted(r[name] for r in rows)
    p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
    return f"{statistics.median(values):8.2f} {p90:8.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="aeb,samples")
    parser.add_argument("--limit", type=int, default=60, help="pages per set")
    args = parser.parse_args()
    for name in args.sets.split(","):
        rows = [r for r in (measure(p) for p in SETS[name](args.limit)) if r is not None]
        print(f"\n{name}: {len(rows)} pages          median      p90")
        for key in rows[0]:
            print(f"  {key:<20} {summary(rows, key)}")
        carried = [r["zlib1_pack_ms"] + r["zlib1_unpack_ms"] for r in rows]
        rebuilt = [r["rebuild_ms"] + r["hash_ms"] for r in rows]
        print(
            f"  CPU per article, carried (zlib 1: pack + unpack): "
            f"{statistics.median(carried):.2f} ms; rebuilt from the page: "
            f"{statistics.median(rebuilt):.2f} ms (plus reading the page back)"
        )


if __name__ == "__main__":
    main()

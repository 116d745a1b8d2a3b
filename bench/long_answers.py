"""Seconds the hygiene harness takes to judge huge answers: 12 MB of repeated or invented IDs.

Run: ``.venv/bin/python -m bench.long_answers [--runtime OTHER_CHECKOUT] [--runs N] [--mb M]``.
Each answer is the test article's valid proposal with one ID list grown to ``--mb`` megabytes
(compact JSON); the figure is the median process CPU seconds of ``validate`` over ``--runs``,
with the reason it ends on. ``--runtime`` imports ``article_runtime`` from another checkout, so
two versions print side by side on one machine (issue 35 section 5: refused fast, not judged
for seconds).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

CASES: dict[str, tuple[str, list[str]]] = {
    "kept_block_ids, one ID repeated": ("kept_block_ids", ["b2"]),
    "kept_block_ids, three IDs cycled": ("kept_block_ids", ["b1", "b2", "b3"]),
    "kept_link_ids, one ID repeated": ("kept_link_ids", ["l1"]),
    "kept_image_ids, one ID repeated": ("kept_image_ids", ["i1"]),
    "kept_block_ids, distinct invented IDs": ("kept_block_ids", []),
}


def answer(field: str, ids: list[str], size: int, proposal: dict[str, Any]) -> str:
    """The proposal with ``field`` holding ``size`` bytes of IDs: ``ids`` cycled, or distinct
    invented ones (``x0``, ``x1``...) when ``ids`` is empty."""
    base = len(json.dumps(proposal, separators=(",", ":")))
    values: list[str] = []
    used = base
    while used < size:
        value = ids[len(values) % len(ids)] if ids else f"x{len(values)}"
        values.append(value)
        used += len(value) + 3
    return json.dumps({**proposal, field: values}, separators=(",", ":"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runtime", help="import article_runtime from this checkout instead")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mb", type=float, default=12.0)
    args = parser.parse_args(argv)
    if args.runtime:
        sys.path.insert(0, str(Path(args.runtime).resolve()))
    from article_runtime.harness.pipeline import validate
    from tests.factories import candidate_set, proposal

    candidates = candidate_set()
    size = int(args.mb * 1_000_000)
    print(f"runtime: {Path(sys.modules['article_runtime'].__file__ or '').parent.parent}")
    print(f"{'answer (' + str(args.mb) + ' MB)':<40} | {'CPU s':>7} | ends on")
    for name, (field, ids) in CASES.items():
        raw = answer(field, ids, size, proposal())
        seconds, reason = [], None
        for _ in range(args.runs):
            started = time.process_time()
            _, report = validate(candidates, raw)
            seconds.append(time.process_time() - started)
            reason = report.reason or "accepted"
        print(f"{name:<40} | {statistics.median(seconds):>7.3f} | {reason}")
    print(f"median of {args.runs} runs, process CPU seconds of validate (steps 1-10)")


if __name__ == "__main__":
    main()

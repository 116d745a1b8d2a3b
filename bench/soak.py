"""``make soak``: every fault scenario of ``tests/integration/fault_scenarios.py``, many times.

Run: ``.venv/bin/python -m bench.soak [--runs N] [--articles N] [--scenario NAME ...]
[--logs DIR]``. Each run starts its own broker, scripted provider and workers, lands the
fault mid-stream and follows every article to its outcome. Prints, per scenario: runs passed,
articles lost (must be 0), runs stuck (must be 0) and the time to recover (from the end of the
fault to the next article settling, and to the last). Exit code 0 only when every run passed.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from tests.integration.fault_scenarios import SCENARIOS, RunResult, run_scenario


def _seconds(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.1f} s median, {max(values):.1f} s max"


def report(results: list[RunResult]) -> list[str]:
    lines = []
    for scenario in dict.fromkeys(r.scenario for r in results):
        runs = [r for r in results if r.scenario == scenario]
        recover = [r.recover_s for r in runs if r.recover_s is not None]
        finish = [r.finish_s for r in runs if r.finish_s is not None]
        lines += [
            f"{scenario}",
            f"  runs passed        {sum(r.passed for r in runs)}/{len(runs)}",
            f"  articles lost      {sum(r.lost for r in runs)}",
            f"  runs stuck         {sum(r.stuck for r in runs)}",
            f"  first settled      {_seconds(recover)} after the fault",
            f"  all settled        {_seconds(finish)} after the fault",
        ]
        lines += [f"  ! {r.summary()}" for r in runs if not r.passed]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    parser.add_argument("--runs", type=int, default=20, help="runs per scenario")
    parser.add_argument("--articles", type=int, default=200, help="articles per run")
    parser.add_argument(
        "--publish-over",
        type=float,
        default=0.0,
        metavar="S",
        help="spread the articles over S seconds (default: all at once, a backlog)",
    )
    parser.add_argument("--scenario", action="append", choices=SCENARIOS, help="repeatable")
    parser.add_argument("--logs", type=Path, help="keep every run's worker logs here")
    args = parser.parse_args(argv)
    scenarios = args.scenario or list(SCENARIOS)
    results: list[RunResult] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="article-runtime-soak-") as scratch:
        logs = args.logs or Path(scratch)
        for scenario in scenarios:
            for run in range(args.runs):
                began = time.monotonic()
                result = run_scenario(
                    scenario,
                    logs / f"{scenario}-{run}",
                    run=run,
                    articles=args.articles,
                    publish_over_s=args.publish_over,
                )
                results.append(result)
                print(f"[{time.monotonic() - began:4.0f} s] {result.summary()}", flush=True)
    print()
    print(
        f"{args.runs} runs per scenario, {args.articles} articles per run, "
        f"{(time.monotonic() - started) / 60:.0f} min"
    )
    print("\n".join(report(results)))
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())

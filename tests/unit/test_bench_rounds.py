"""``make bench-stream --rounds N``: each figure is its median over the rounds, and a ratio is
taken inside its round first (a slow round slows both columns of that round alike)."""

from __future__ import annotations

import pytest

from bench.stream_throughput import Run, print_side_by_side


def _run(label: str, workers: int, per_s: float, cpu_ms: float) -> Run:
    articles = 100
    cpu = {"workers": cpu_ms * articles / 1000, "machine busy": 1.0, "machine": 2.0}
    times = [articles / per_s * (n + 1) / articles for n in range(articles)]
    return Run(label, workers, articles, articles, articles / per_s, times, cpu, None)


def _row(printed: str, label: str) -> list[str]:
    line = next(ln for ln in printed.splitlines() if ln.startswith(label))
    return line[len(label) :].split()


def test_the_ratio_is_the_median_of_each_rounds_own_ratio(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # In-process 100, 50, 100 art/s; the worker 60, 40, 70: ratios 0.6, 0.8, 0.7. The median
    # ratio is 0.70; the ratio of the medians (60 / 100) would be 0.60.
    rounds = [
        [_run("in-process", 0, base, 10.0), _run("1 worker", 1, stream, 15.0)]
        for base, stream in ((100, 60), (50, 40), (100, 70))
    ]
    print_side_by_side(rounds)
    printed = capsys.readouterr().out
    assert _row(printed, "throughput / in-process") == ["1.00", "0.70"]
    assert _row(printed, "throughput (art/s)") == ["100.0", "60.0"]
    assert _row(printed, "settled") == ["300/300", "300/300"]


def test_one_round_prints_that_rounds_figures(capsys: pytest.CaptureFixture[str]) -> None:
    print_side_by_side([[_run("in-process", 0, 80, 10.0), _run("1 worker", 1, 60, 14.0)]])
    printed = capsys.readouterr().out
    assert _row(printed, "throughput / in-process") == ["1.00", "0.75"]
    assert _row(printed, "worker CPU/article (ms)") == ["10.0", "14.0"]
    assert _row(printed, "broker CPU/article (ms)") == ["-", "-"]


def test_busy_is_each_workers_cpu_over_the_wall_time(capsys: pytest.CaptureFixture[str]) -> None:
    # In-process: 80 art/s at 10 ms each, 0.80 of a core. One worker: 60 art/s at 14 ms, 0.84.
    # Two workers: 100 art/s at 16 ms each article, 1.6 cores between them, 0.80 each.
    print_side_by_side(
        [
            [
                _run("in-process", 0, 80, 10.0),
                _run("1 worker", 1, 60, 14.0),
                _run("2 workers", 2, 100, 16.0),
            ]
        ]
    )
    assert _row(capsys.readouterr().out, "worker busy (cores each)") == ["0.80", "0.84", "0.80"]

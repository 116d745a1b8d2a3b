"""What every test shares: paths, hypothesis profiles, the scripted OpenAI-protocol server,
and two rules the suite enforces on itself.

- **No silent skip in CI.** With ``CI`` set (``.ci/run`` runs with ``CI=true``), a skipped
  test fails, unless its reason starts with ``IMPOSSIBLE`` (``tests.support.skips``): what
  cannot run on this kind of machine at all, said by the test. A missing tool, file or
  service that the set-up should have provided is a failure there, not a skip.
- **A test that starts a broker carries the ``kafka`` marker** (so ``-m "not kafka"`` really
  runs none): starting one from an unmarked test fails it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from article_runtime.streams.local.broker import LocalBroker
from tests.support.openai_server import ScriptedOpenAIServer, running_server
from tests.support.skips import IMPOSSIBLE, ci_from, fails_in_ci

# No per-example deadline: it is a timed assertion, and on a loaded machine (CI runners, a
# shared box) it fails property tests for being slow, not wrong. Speed is measured by the
# benchmark scripts instead.
settings.register_profile(
    "article-runtime", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# A longer search for a quiet hour: HYPOTHESIS_PROFILE=deep .venv/bin/pytest tests/unit
settings.register_profile("deep", settings.get_profile("article-runtime"), max_examples=2000)
# Every property test, each with a short search: `make test-pythons PYTHONS_PROFILE=smoke` on the
# other supported Pythons, where the question is whether the code runs the same, not a new search.
settings.register_profile("smoke", settings.get_profile("article-runtime"), max_examples=10)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "article-runtime"))

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "samples"
SHARED = REPO.parent / "shared"
IN_CI = ci_from(dict(os.environ))


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not laid out beside the repository")
    return SHARED


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    """A scripted OpenAI-protocol server (real HTTP on 127.0.0.1), stopped after the test."""
    with running_server() as scripted:
        yield scripted


_RUNNING: list[pytest.Item] = []  # the test whose setup, call or teardown is under way


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    _RUNNING.append(item)
    try:
        return (yield)
    finally:
        _RUNNING.pop()


def _only_under_the_kafka_marker(start: Callable[[LocalBroker], None]) -> Any:
    """``LocalBroker.start`` that fails the running test unless it carries the ``kafka`` marker
    (module- and session-scoped fixtures start theirs inside the first test that needs them)."""

    @functools.wraps(start)
    def guarded(self: LocalBroker) -> None:
        if _RUNNING and _RUNNING[-1].get_closest_marker("kafka") is None:
            pytest.fail(f"{_RUNNING[-1].nodeid} starts a Kafka broker: mark it pytest.mark.kafka")
        start(self)

    return guarded


def pytest_configure(config: pytest.Config) -> None:
    LocalBroker.start = _only_under_the_kafka_marker(LocalBroker.start)  # type: ignore[method-assign]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[Any]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if not report.skipped or hasattr(report, "wasxfail"):
        return report
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if fails_in_ci(reason, ci=IN_CI):
        report.outcome = "failed"
        report.longrepr = (
            f"skipped in CI ({reason}): CI=true makes a skip a failure unless the test says "
            f"why it is impossible on this machine ('{IMPOSSIBLE}...', tests/support/skips.py)"
        )
    return report

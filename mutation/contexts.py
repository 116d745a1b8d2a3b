"""A pytest plugin for ``mutation.run``'s coverage pass: each test's lines are recorded under
its node ID (coverage's own per-test contexts name functions, not parametrized cases)."""

from __future__ import annotations

from collections.abc import Generator

import coverage
import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    current = coverage.Coverage.current()
    if current is not None:
        current.switch_context(item.nodeid)
    try:
        return (yield)
    finally:
        if current is not None:
            current.switch_context("")

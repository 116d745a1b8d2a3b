"""The suite's skip policy (tests/conftest.py): in CI a skip fails unless it names an
impossibility on the machine."""

from __future__ import annotations

import pytest

from tests.support.skips import IMPOSSIBLE, ci_from, fails_in_ci


@pytest.mark.parametrize(
    "reason",
    ["helm is not on PATH", "Skipped: ../shared is not laid out", "", "promptfoo missing"],
)
def test_in_ci_a_skip_for_anything_the_setup_provides_fails(reason: str) -> None:
    assert fails_in_ci(reason, ci=True)
    assert not fails_in_ci(reason, ci=False)  # on a laptop it stays a skip


def test_a_named_impossibility_stays_a_skip_in_ci() -> None:
    assert not fails_in_ci(f"Skipped: {IMPOSSIBLE}no container engine", ci=True)
    assert not fails_in_ci(f"{IMPOSSIBLE}no GPU", ci=True)
    assert fails_in_ci(f"Skipped: maybe {IMPOSSIBLE}", ci=True)  # it must say so first


@pytest.mark.parametrize(
    ("value", "ci"),
    [
        *[("true", True), ("1", True), ("TRUE", True), ("yes", True)],
        *[("", False), ("0", False), ("false", False), ("no", False), (" False ", False)],
    ],
)
def test_ci_is_what_ci_services_set(value: str, ci: bool) -> None:
    assert ci_from({"CI": value}) is ci
    assert ci_from({}) is False

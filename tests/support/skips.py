"""How a test says it cannot run here at all, the one skip that CI accepts (tests/conftest.py).

Anything the set-up installs or lays out (helm, promptfoo, ``../shared``, the Kafka jars) is
not impossible: its absence fails the test in CI. Impossible is what no set-up step on this
kind of machine can provide (a kernel feature, an architecture, a container engine).
"""

from __future__ import annotations

from typing import NoReturn

import pytest

IMPOSSIBLE = "impossible on this machine: "


def impossible(why: str) -> NoReturn:
    """Skip the running test because ``why`` cannot be had on this machine, in CI too."""
    pytest.skip(IMPOSSIBLE + why)


def fails_in_ci(reason: str, *, ci: bool) -> bool:
    """Whether a skip with this reason (as pytest reports it) is a failure: in CI, every skip
    but those that name an impossibility."""
    return ci and not reason.removeprefix("Skipped: ").startswith(IMPOSSIBLE)


def ci_from(environ: dict[str, str]) -> bool:
    """``CI`` set to anything but empty, 0, false or no (CI services set ``CI=true``)."""
    return environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")

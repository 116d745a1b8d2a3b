"""The lock files pin every dependency pyproject.toml declares, so installs never resolve anew.

``make test`` and the image install from the locks; a dependency added to ``pyproject.toml``
without ``make lock`` would otherwise be missing, or float, without anyone noticing.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def _pins(lock: str) -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (ROOT / lock).read_text("utf-8").splitlines():
        if line[:1].isalnum() and "==" in line:
            name, _, rest = line.partition("==")
            pins[canonicalize_name(name)] = Version(rest.split()[0])
    return pins


def _declared() -> tuple[list[Requirement], list[Requirement]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    runtime = [Requirement(r) for r in project["dependencies"]]
    dev = [Requirement(r) for r in project["optional-dependencies"]["dev"]]
    return runtime, dev


@pytest.mark.parametrize(
    ("lock", "which"), [("requirements.lock", "runtime"), ("requirements-dev.lock", "all")]
)
def test_every_declared_dependency_is_pinned_within_its_range(lock: str, which: str) -> None:
    runtime, dev = _declared()
    wanted = runtime if which == "runtime" else runtime + dev
    pins = _pins(lock)
    stale = [
        str(req)
        for req in wanted
        if canonicalize_name(req.name) not in pins
        or pins[canonicalize_name(req.name)] not in req.specifier
    ]
    assert not stale, f"{lock} does not satisfy {stale}: run `make lock`"


def test_dev_lock_keeps_the_runtime_versions() -> None:
    runtime, dev = _pins("requirements.lock"), _pins("requirements-dev.lock")
    moved = {name: (v, dev.get(name)) for name, v in runtime.items() if dev.get(name) != v}
    assert not moved, f"the dev lock moved runtime pins: {moved}"


def test_every_pin_carries_a_hash() -> None:
    for lock in ("requirements.lock", "requirements-dev.lock"):
        lines = (ROOT / lock).read_text("utf-8").splitlines()
        for i, line in enumerate(lines):
            if line[:1].isalnum() and "==" in line:
                assert i + 1 < len(lines) and "--hash=sha256:" in lines[i + 1], (lock, line)

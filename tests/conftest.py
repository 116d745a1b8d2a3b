"""Shared paths for tests. ``shared/`` sits beside the repository (as CI lays it out)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# No per-example deadline: it is a timed assertion, and on a loaded machine (CI runners, a
# shared box) it fails property tests for being slow, not wrong. Speed is measured by the
# benchmark scripts instead.
settings.register_profile(
    "article-runtime", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# A longer search for a quiet hour: HYPOTHESIS_PROFILE=deep .venv/bin/pytest tests/unit
settings.register_profile("deep", settings.get_profile("article-runtime"), max_examples=2000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "article-runtime"))

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "samples"
SHARED = REPO.parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not laid out beside the repository")
    return SHARED

"""The assertion Promptfoo calls by path, one per test: all checks, held to the answer's label.

Kept free of heavy imports: the checks run in the warm process when the runner serves one
(``evals.warm``), else here through ``evals.assertions.judge``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # Promptfoo loads assertion files by path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evals import warm
from evals.paths import ENRICHMENT, HYGIENE

Result = dict[str, Any]


def _context(context: dict[str, Any]) -> dict[str, Any]:
    """What the checks read: the test's variables and the assertion's label."""
    return {"vars": context.get("vars") or {}, "config": context.get("config") or {}}


def hygiene(output: str, context: dict[str, Any]) -> Result:
    result: Result = warm.call("judge", HYGIENE, output, _context(context))
    return result


def enrichment(output: str, context: dict[str, Any]) -> Result:
    result: Result = warm.call("judge", ENRICHMENT, output, _context(context))
    return result

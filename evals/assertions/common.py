"""What every assertion shares: the result shape, the parsed answer and the case.

A failure's reason starts with a categorical code (``low_recall: ...``) that the runner compares
with the code an answer file expects. An assertion with nothing to judge (the answer is not a
JSON object) passes as ``n/a``: the schema and harness assertions are the ones meant to fail.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # Promptfoo loads assertion files by path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from evals.cases import Case, load_case

Result = dict[str, Any]


def passed(detail: str = "") -> Result:
    return {"pass": True, "score": 1.0, "reason": f"ok: {detail}" if detail else "ok"}


def failed(code: str, detail: str = "") -> Result:
    return {"pass": False, "score": 0.0, "reason": f"{code}: {detail}" if detail else code}


def not_applicable(why: str) -> Result:
    return {"pass": True, "score": 1.0, "reason": f"n/a: {why}"}


def reason_code(reason: str) -> str:
    """The categorical code a result's reason starts with."""
    return reason.split(":", 1)[0].strip()


def answer_object(output: object) -> dict[str, Any] | None:
    """The answer as a JSON object, or None when it is not one."""
    if isinstance(output, dict):
        return output
    try:
        data = json.loads(str(output))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def case_of(prompt: str, context: dict[str, Any]) -> Case:
    return load_case(prompt, str(context["vars"]["input"]))

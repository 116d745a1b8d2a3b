"""Stored answers: ``answers/<prompt>/<case>--<variant>.json`` with origin, answer and label.

``origin`` is ``handwritten`` (built from a case's entry to exercise the suite, never a
model's result) or ``recorded:<model>`` (a live run with ``--record``); ``expect`` is ``pass``
or ``fail``, and ``caught_by`` maps each check meant to fail to the reason code it must give
(null: any reason). ``expect`` and ``caught_by`` together are the answer's label.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from evals.paths import ANSWERS


@cache
def load_answer(prompt: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ANSWERS / prompt / f"{name}.json").read_text("utf-8"))
    return data


def answer_names(prompt: str) -> list[str]:
    return sorted(p.stem for p in (ANSWERS / prompt).glob("*.json"))


def answer_text(stored: dict[str, Any]) -> str:
    """The answer as the model's raw text: a stored string as is, an object as JSON."""
    answer = stored["answer"]
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)


def caught_by(stored: dict[str, Any]) -> dict[str, str | None]:
    value = stored.get("caught_by") or {}
    return {str(k): (None if v is None else str(v)) for k, v in dict(value).items()}


def label_problem(prompt: str, stored: dict[str, Any]) -> str | None:
    """Why the answer's label cannot be judged, or None when it can."""
    from evals.assertions.judge import CHECKS

    expect = stored.get("expect")
    if expect not in ("pass", "fail"):
        return "unreviewed: expect is not filled in (review the answer, write pass or fail)"
    if (expect == "pass") != (not caught_by(stored)):
        return "expect and caught_by disagree in the answer file"
    unknown = set(caught_by(stored)) - {"schema", *CHECKS[prompt]}
    if unknown:
        return f"caught_by names no check of this suite: {sorted(unknown)}"
    return None

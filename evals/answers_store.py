"""Stored answers: ``answers/<prompt>/<case>.json`` with origin, answer and expected verdict.

``origin`` is ``handwritten`` (written to exercise the suite, never a model's result) or
``recorded:<model>``; ``expect`` is ``pass`` or ``fail``, and ``caught_by`` maps each assertion
meant to fail to the reason code it must give (null: any reason).
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

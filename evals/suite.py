"""Promptfoo test generator: one test per stored answer (offline) or per case (live).

Every test carries the same assertions for its prompt, each with a ``metric`` name the runner
uses to tell which assertion caught what. Only assertions spec 11.3 allows: the output JSON
Schema, Python validators calling the runtime's harness, cost and latency.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # Promptfoo loads this file by path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evals.answers_store import answer_names, load_answer
from evals.cases import case_names, load_case
from evals.paths import EVALS, HYGIENE
from evals.thresholds import COST_USD, LATENCY_MS

PYTHON_ASSERTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    # prompt: (metric, file:function) in the order they are reported
    "article_content_hygiene": (
        ("harness", "assertions/hygiene.py:harness"),
        ("kept_blocks", "assertions/hygiene.py:kept_blocks"),
        ("metadata", "assertions/hygiene.py:metadata"),
        ("repairs", "assertions/repairs.py:repairs"),
        ("labelled_repairs", "assertions/repairs.py:labelled_repairs"),
    ),
    "article_sentiment_tags": (
        ("harness", "assertions/enrichment.py:harness"),
        ("sentiment", "assertions/enrichment.py:sentiment"),
    ),
}


# Promptfoo's Ajv registers a schema's ``$id`` once per process (a second test compiling the
# same schema fails) and its strict mode rejects the file's own ``version`` keyword.
_AJV_UNSAFE = ("$id", "version")


def output_schema(prompt: str) -> dict[str, Any]:
    """The output schema file's content (runtime loader), minus the two keys Ajv cannot take."""
    from article_runtime import contracts
    from article_runtime.llm.prompts import load_prompt

    schema = contracts.load_schema(load_prompt(prompt).output_schema)
    return {k: v for k, v in schema.items() if k not in _AJV_UNSAFE}


def assertions(prompt: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = [
        {"type": "is-json", "value": output_schema(prompt), "metric": "schema"}
    ]
    for metric, target in PYTHON_ASSERTIONS[prompt]:
        found.append({"type": "python", "value": f"file://{EVALS / target}", "metric": metric})
    found.append({"type": "cost", "threshold": COST_USD[prompt], "metric": "cost"})
    found.append({"type": "latency", "threshold": LATENCY_MS[prompt], "metric": "latency"})
    return found


def _test(prompt: str, case: str, answer: str | None) -> dict[str, Any]:
    category = load_case(prompt, case).category
    return {
        "description": answer or case,
        "vars": {"input": case, "answer": answer or ""},
        "metadata": {"prompt": prompt, "category": category, "input": case},
        "assert": assertions(prompt),
    }


def generate_tests(config: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """``config``: ``prompt`` (the suite), ``mode`` (offline: stored answers; live: one test
    per case) and optionally ``cases`` (only these inputs)."""
    config = config or {}
    prompt = str(config.get("prompt", HYGIENE))
    only = set(config.get("cases") or [])
    if config.get("mode") == "live":
        cases = [c for c in case_names(prompt) if not only or c in only]
        return [_test(prompt, case, None) for case in cases]
    names = [a for a in answer_names(prompt) if not only or load_answer(prompt, a)["input"] in only]
    return [_test(prompt, load_answer(prompt, a)["input"], a) for a in names]


if __name__ == "__main__":
    print(json.dumps(generate_tests({"prompt": sys.argv[1]}), indent=1)[:2000])

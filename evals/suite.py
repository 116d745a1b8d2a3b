"""Promptfoo test generator: one test per stored answer (offline) or per case (live).

Every test has the same assertions, only those spec 11.3 allows: the output JSON Schema,
one Python assertion running every check of the runtime's harness (``assertions/entry.py``),
cost and latency. Offline, a test carries its answer's label: the schema assertion becomes
``not-is-json`` when the answer is labelled to break the schema, and the Python assertion gets
the checks meant to catch it in ``config.expect``. So Promptfoo passes a test exactly when its
answer got its labelled verdict; a live test has no label and every check must pass.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # Promptfoo loads this file by path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evals.answers_store import answer_names, caught_by, label_problem, load_answer
from evals.cases import case_names, load_case
from evals.paths import ENTRY, EVALS, HYGIENE
from evals.thresholds import COST_USD, LATENCY_MS

# Promptfoo's Ajv registers a schema's ``$id`` once per process (a second test compiling the
# same schema fails) and its strict mode rejects the file's own ``version`` keyword.
_AJV_UNSAFE = ("$id", "version")


def output_schema(prompt: str) -> dict[str, Any]:
    """The output schema file's content (runtime loader), minus the two keys Ajv cannot take."""
    from article_runtime import contracts
    from article_runtime.llm.prompts import load_prompt

    schema = contracts.load_schema(load_prompt(prompt).output_schema)
    return {k: v for k, v in schema.items() if k not in _AJV_UNSAFE}


def assertions(
    prompt: str, label: dict[str, str | None] | None = None, problem: str | None = None
) -> list[dict[str, Any]]:
    """The test's assertions; ``label`` maps each check meant to fail to its reason code."""
    label = label or {}
    config: dict[str, Any] = {"expect": {k: v for k, v in label.items() if k != "schema"}}
    if problem:
        config["label_problem"] = problem
    schema = "not-is-json" if "schema" in label else "is-json"
    judge = f"file://{EVALS / 'assertions' / 'entry.py'}:{ENTRY[prompt]}"
    return [
        {"type": schema, "value": output_schema(prompt), "metric": "schema"},
        {"type": "python", "value": judge, "config": config},
        {"type": "cost", "threshold": COST_USD[prompt], "metric": "cost"},
        {"type": "latency", "threshold": LATENCY_MS[prompt], "metric": "latency"},
    ]


def describe(name: str, label: dict[str, str | None]) -> str:
    """``case--variant``, and which checks must catch it: what Promptfoo's table shows."""
    if not label:
        return name
    checks = ", ".join(check + (f" ({code})" if code else "") for check, code in label.items())
    return f"{name} [caught by: {checks}]"


def offline_test(prompt: str, name: str) -> dict[str, Any]:
    stored = load_answer(prompt, name)
    case = load_case(prompt, str(stored["input"]))
    label = caught_by(stored)
    return {
        "description": describe(name, label),
        "vars": {"input": case.name, "answer": name},
        "metadata": {"prompt": prompt, "category": case.category, "input": case.name},
        "assert": assertions(prompt, label, label_problem(prompt, stored)),
    }


def live_test(prompt: str, name: str) -> dict[str, Any]:
    case = load_case(prompt, name)
    return {
        "description": name,
        "vars": {"input": name, "answer": ""},
        "metadata": {"prompt": prompt, "category": case.category, "input": name},
        "assert": assertions(prompt),
    }


def generate_tests(config: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """``config``: ``prompt`` (the suite), ``mode`` (offline: stored answers; live: one test
    per case) and optionally ``cases`` (only these inputs)."""
    config = config or {}
    prompt = str(config.get("prompt", HYGIENE))
    only = set(config.get("cases") or [])
    if config.get("mode") == "live":
        return [live_test(prompt, c) for c in case_names(prompt) if not only or c in only]
    names = [a for a in answer_names(prompt) if not only or load_answer(prompt, a)["input"] in only]
    return [offline_test(prompt, name) for name in names]


if __name__ == "__main__":
    print(json.dumps(generate_tests({"prompt": sys.argv[1]}), indent=1)[:2000])

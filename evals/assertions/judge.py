"""One Promptfoo assertion per answer: every check of the suite, each held to its label.

A stored answer says which checks must catch it (``caught_by``: check -> reason code, null
for any) and the test carries that label in the assertion's ``config.expect``. A check's
component passes when the check gives the labelled verdict: a labelled-bad answer's check
passes by failing with the labelled code, every check not named must pass. So a test passes
in Promptfoo exactly when its answer got its labelled verdict, which is what the runner counts.
A bad answer the harness accepts fails its test, with ``not caught`` in the reason; a live
answer carries no label, so every check must pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evals.assertions import enrichment, hygiene, repairs
from evals.assertions.common import Result, reason_code
from evals.paths import ENRICHMENT, HYGIENE

Check = Callable[[str, dict[str, Any]], Result]

CHECKS: dict[str, dict[str, Check]] = {
    # check name (its metric in Promptfoo) -> function, in the order they are reported
    HYGIENE: {
        "harness": hygiene.harness,
        "kept_blocks": hygiene.kept_blocks,
        "metadata": hygiene.metadata,
        "repairs": repairs.repairs,
        "labelled_repairs": repairs.labelled_repairs,
    },
    ENRICHMENT: {"harness": enrichment.harness, "sentiment": enrichment.sentiment},
}


def held_to_label(check: str, result: Result, label: tuple[bool, str | None]) -> Result:
    """The check's component: does its verdict equal the labelled one?

    ``label`` is (labelled to fail, reason code or None for any reason).
    """
    must_fail, code = label
    raw = str(result["reason"])
    if not must_fail:
        ok, reason = bool(result["pass"]), raw
    elif result["pass"]:
        ok, reason = False, f"not caught: labelled to fail with {code or 'any reason'}, got {raw}"
    elif code is not None and reason_code(raw) != code:
        ok, reason = False, f"caught for another reason: labelled {code}, got {raw}"
    else:
        ok, reason = True, f"caught as labelled: {raw}"
    return {
        "pass": ok,
        "score": 1.0 if ok else 0.0,
        "reason": f"{check}: {reason}",
        "assertion": {"type": "python", "metric": check, "value": f"{check} check"},
        "metadata": {
            "check": check,
            "verdict": "pass" if result["pass"] else "fail",
            "reason": raw,
            "labelled": ("fail: " + (code or "any reason")) if must_fail else "pass",
        },
    }


def judge(prompt: str, output: str, context: dict[str, Any]) -> Result:
    """Every check of ``prompt`` on ``output``; the test's label is ``context["config"]``."""
    config = context.get("config") or {}
    expect: dict[str, str | None] = dict(config.get("expect") or {})
    components = [
        held_to_label(name, check(output, context), (name in expect, expect.get(name)))
        for name, check in CHECKS[prompt].items()
    ]
    problems = [
        f"unknown check {name!r} in the label" for name in expect if name not in CHECKS[prompt]
    ]
    if config.get("label_problem"):
        problems.append(str(config["label_problem"]))
    for problem in problems:
        components.append(
            {"pass": False, "score": 0.0, "reason": f"label: {problem}",
             "assertion": {"type": "python", "metric": "label", "value": "the answer's label"},
             "metadata": {"label_problem": problem}}
        )  # fmt: skip
    return {
        "pass": all(c["pass"] for c in components),
        "score": sum(c["score"] for c in components) / len(components),
        "reason": _summary(components),
        "componentResults": components,
        "namedScores": {c["assertion"]["metric"]: c["score"] for c in components},
    }


def _summary(components: list[Result]) -> str:
    wrong = [str(c["reason"]) for c in components if not c["pass"]]
    if wrong:
        return "; ".join(wrong)
    caught = [str(c["reason"]) for c in components if c["metadata"]["verdict"] == "fail"]
    passed = f"{len(components) - len(caught)} check(s) passed"
    return "; ".join([*caught, passed]) if caught else f"all {passed}"

"""Run the Promptfoo suites and check every verdict (spec 11).

    python -m evals.run                       # offline: stored answers, labelled verdicts
    python -m evals.run --live [--providers FILE] [--record]

Offline, a run passes only when every stored answer gets the verdict its label gives: good
answers pass every check, each bad answer fails exactly the checks (and reason codes) meant to
catch it, which shows the checks discriminate. Promptfoo counts the same thing (the tests carry
the labels, see ``suite.py``), and the runner re-derives every verdict from the checks' raw
results and reports any test where the two differ. Live, the same cases go to the
``runtime_primary`` and ``runtime_fallback`` of each call and every check must pass.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from evals.answers_store import answer_names, caught_by, label_problem, load_answer
from evals.assertions.common import reason_code
from evals.cases import case_names, entries, load_case, stale_reason
from evals.paths import ENTRY, EVALS, PROMPTS, REPO, STATE, config_path
from evals.warm import SOCKET_ENV, WarmServer

PROMPTFOO_VERSION = "0.121.20"
ROLES = ("runtime_primary", "runtime_fallback")
PROMPTFOO_ERROR = 2  # a result's failureReason when the provider or a prompt failed


@dataclass
class Outcome:
    """One Promptfoo result, with the runner's verdict on it."""

    prompt: str
    answer: str  # the stored answer (offline) or the case (live)
    category: str
    provider: str
    success: bool  # Promptfoo's verdict on the test
    failures: dict[str, str]  # check -> reason, for every check whose own verdict was fail
    cost: float
    latency_ms: int
    agrees: bool = True
    why: str = ""


@dataclass
class Row:
    answers: int = 0
    bad: int = 0
    passed: int = 0
    cost: float = 0.0
    latencies: list[int] = field(default_factory=list)


def environment() -> dict[str, str]:
    """Offline-safe Promptfoo settings; nothing is written outside the repository."""
    env = dict(os.environ)
    env.update(
        PROMPTFOO_DISABLE_TELEMETRY="1",
        PROMPTFOO_DISABLE_UPDATE="1",
        PROMPTFOO_DISABLE_SHARING="1",
        PROMPTFOO_CONFIG_DIR=str(STATE),  # evals/.env names the same place for `promptfoo view`
        PROMPTFOO_PYTHON=str(REPO / ".venv" / "bin" / "python"),
        PYTHONPATH=os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p),
    )
    if not Path(env["PROMPTFOO_PYTHON"]).exists():
        env["PROMPTFOO_PYTHON"] = sys.executable
    return env


def promptfoo_command() -> list[str]:
    local = EVALS / "node_modules" / ".bin" / "promptfoo"
    if local.exists():
        return [str(local)]
    return ["npx", "--yes", f"promptfoo@{PROMPTFOO_VERSION}"]


def _with_tests(prompt: str, tests: dict[str, Any]) -> dict[str, Any]:
    base: dict[str, Any] = yaml.safe_load(config_path(prompt).read_text(encoding="utf-8"))
    base["prompts"] = [{"id": f"file://{EVALS / 'prompts.py'}:{ENTRY[prompt]}", "label": prompt}]
    base["tests"] = [{"path": f"file://{EVALS / 'suite.py'}:generate_tests", "config": tests}]
    return base


def _write_config(name: str, config: dict[str, Any]) -> Path:
    path = STATE / name
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def live_config(prompt: str, providers: str, record: bool, cases: Sequence[str]) -> Path:
    """The suite's config with the live providers in place of the replay."""
    from article_runtime.llm.providers import load_providers

    config = load_providers(providers)
    call = config.for_call(prompt) if config is not None else None  # type: ignore[arg-type]
    if call is None:
        raise SystemExit(f"{providers}: no providers for {prompt}")
    base = _with_tests(prompt, {"prompt": prompt, "mode": "live", "cases": list(cases)})
    base["providers"] = [
        {
            "id": f"file://{EVALS / 'providers' / 'live.py'}",
            "label": f"{role}:{getattr(call, role).model}",
            "config": {"prompt": prompt, "role": role, "providers": providers, "record": record},
        }
        for role in ROLES
    ]
    return _write_config(f"live.{prompt}.yaml", base)


def offline_config(prompt: str, cases: Sequence[str]) -> Path:
    if not cases:
        return config_path(prompt)
    base = _with_tests(prompt, {"prompt": prompt, "mode": "offline", "cases": list(cases)})
    for provider in base["providers"]:
        provider["id"] = f"file://{EVALS / 'providers' / 'replay.py'}"
    return _write_config(f"offline.{prompt}.yaml", base)


def run_promptfoo(config: Path, output: Path, env: dict[str, str]) -> dict[str, Any]:
    """One ``promptfoo eval``, its Python calls answered by this process (``evals.warm``)."""
    command = [*promptfoo_command(), "eval", "-c", str(config), "-o", str(output)]
    command += ["--no-cache", "--no-table", "--no-progress-bar", "-j", "4"]
    output.unlink(missing_ok=True)
    with WarmServer() as warm:
        process = subprocess.Popen(command, cwd=EVALS, env={**env, SOCKET_ENV: warm.address})
        try:
            code = warm.serve_while(process)
        finally:
            if process.poll() is None:
                process.terminate()
                process.wait()
    if code not in (0, 100) or not output.is_file():  # 100: some tests failed
        raise SystemExit(f"promptfoo failed (exit {code}): {' '.join(command)}")
    data: dict[str, Any] = json.loads(output.read_text(encoding="utf-8"))
    return data


def raw_failures(grading: dict[str, Any]) -> dict[str, str]:
    """Each check whose own verdict was fail, whatever its label: check -> reason."""
    failures = {}
    for component in grading.get("componentResults") or []:
        assertion = component.get("assertion") or {}
        meta = component.get("metadata") or {}
        if component.get("componentResults") or "label_problem" in meta:
            continue  # the Python assertion itself (its checks follow), or a label problem
        if "check" in meta:
            if meta["verdict"] == "fail":
                failures[str(meta["check"])] = str(meta["reason"])
        elif assertion.get("type") == "not-is-json":
            if component.get("pass"):  # the inverted schema assertion passes when it fails
                failures["schema"] = "the output does not conform to the schema"
        elif not component.get("pass"):
            failures[str(assertion.get("metric") or assertion.get("type"))] = str(
                component.get("reason", "")
            )
    return failures


def outcomes(prompt: str, data: dict[str, Any]) -> list[Outcome]:
    found = []
    for result in data["results"]["results"]:
        test = result.get("testCase", {})
        variables = test.get("vars") or result.get("vars") or {}
        failures = raw_failures(result.get("gradingResult") or {})
        if result.get("failureReason") == PROMPTFOO_ERROR:  # no answer to judge
            failures["error"] = str(result.get("error"))[:200]
        found.append(
            Outcome(
                prompt=prompt,
                answer=str(variables.get("answer") or variables.get("input", "?")),
                category=str(test.get("metadata", {}).get("category", "?")),
                provider=str(result.get("provider", {}).get("label", "?")),
                success=bool(result.get("success")),
                failures=failures,
                cost=float(result.get("cost") or 0.0),
                latency_ms=int(result.get("latencyMs") or 0),
            )
        )
    return found


def judge_offline(outcome: Outcome) -> None:
    """Agreement: the failing checks (and their reason codes) are exactly the labelled ones."""
    stored = load_answer(outcome.prompt, outcome.answer)
    problem = label_problem(outcome.prompt, stored)
    actual = {check: reason_code(reason) for check, reason in outcome.failures.items()}
    wanted = caught_by(stored)
    if problem is not None:
        outcome.agrees, outcome.why = False, problem
    elif set(actual) != set(wanted) or any(
        code is not None and actual[check] != code for check, code in wanted.items()
    ):
        outcome.agrees, outcome.why = False, f"labelled to be caught by {wanted}, got {actual}"
    _same_as_promptfoo(outcome)


def judge_live(outcome: Outcome) -> None:
    if outcome.failures:
        outcome.agrees = False
        outcome.why = "; ".join(f"{m}: {r[:120]}" for m, r in outcome.failures.items())
    _same_as_promptfoo(outcome)


def _same_as_promptfoo(outcome: Outcome) -> None:
    """A test Promptfoo counts differently from the runner is a fault of the labelling."""
    if outcome.success == outcome.agrees:
        return
    said = "passed" if outcome.success else "failed"
    outcome.why = "; ".join(filter(None, [outcome.why, f"Promptfoo {said} this test"]))
    outcome.agrees = False


def table(results: Sequence[Outcome], live: bool) -> str:
    rows: dict[tuple[str, str, str], Row] = defaultdict(Row)
    for o in results:
        row = rows[(o.prompt, o.category, o.provider)]
        row.answers += 1
        row.bad += 0 if live else bool(caught_by(load_answer(o.prompt, o.answer)))
        row.passed += o.agrees
        row.cost += o.cost
        row.latencies.append(o.latency_ms)
    head = f"{'prompt':<24} {'category':<17} {'provider':<28} {'answers':>7} {'bad':>4} "
    head += f"{'passed':>6} {'rate':>5} {'cost $':>9} {'lat ms':>6} {'max':>6}"
    lines = [head, "-" * len(head)]
    for (prompt, category, provider), r in sorted(rows.items()):
        mean = sum(r.latencies) // max(len(r.latencies), 1)
        lines.append(
            f"{prompt:<24} {category:<17} {provider[:28]:<28} {r.answers:>7} {r.bad:>4} "
            f"{r.passed:>6} {r.passed / r.answers:>5.0%} {r.cost:>9.5f} {mean:>6} "
            f"{max(r.latencies):>6}"
        )
    return "\n".join(lines)


def stale_inputs(prompts: Sequence[str]) -> list[str]:
    """Cases not built for their entry or the runtime of today, and answers without a case."""
    found = []
    for prompt in prompts:
        for name in case_names(prompt):
            reason = stale_reason(load_case(prompt, name))
            if reason is not None:
                found.append(f"{prompt}/{name}: {reason}")
        for answer in answer_names(prompt):
            stored = load_answer(prompt, answer)
            if stored.get("input") not in entries(prompt):
                found.append(f"{prompt}/{answer}: its case {stored.get('input')!r} has no entry")
            elif reason := stale_recording(prompt, stored):
                found.append(f"{prompt}/{answer}: {reason}")
    return found


def stale_recording(prompt: str, stored: dict[str, Any]) -> str | None:
    """A recorded answer answers the messages it was recorded for, and no others."""
    import hashlib

    from evals.prompts import runtime_messages

    recorded = stored.get("messages_sha256")
    if not str(stored.get("origin", "")).startswith("recorded:") or recorded is None:
        return None
    messages = runtime_messages(prompt, str(stored["input"]))
    if hashlib.sha256(json.dumps(messages).encode()).hexdigest() == recorded:
        return None
    return "stale_answer: recorded for other messages (prompt or input changed); re-record it"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--live", action="store_true", help="call the configured models")
    parser.add_argument("--providers", help="providers YAML (default $ARTICLE_RUNTIME_PROVIDERS)")
    parser.add_argument("--record", action="store_true", help="live: store the answers")
    parser.add_argument("--prompt", action="append", choices=PROMPTS, help="only this suite")
    parser.add_argument("--case", action="append", default=[], help="only this input case")
    return parser.parse_args(argv)


def _promptfoo_counts(data: dict[str, Any]) -> tuple[int, int, int]:
    stats = data["results"].get("stats") or {}
    return (
        int(stats.get("successes", 0)),
        int(stats.get("failures", 0)),
        int(stats.get("errors", 0)),
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    prompts = tuple(args.prompt or PROMPTS)
    env = environment()
    STATE.mkdir(parents=True, exist_ok=True)
    stale = stale_inputs(prompts)
    if stale:
        print("Cases or answers out of date:", *stale, sep="\n  ")
        print("Build the cases: .venv/bin/python -m evals.tools.make_cases (see evals/README.md)")
        return 1
    providers = args.providers or os.environ.get("ARTICLE_RUNTIME_PROVIDERS")
    if args.live and not providers:
        print("--live needs --providers FILE or $ARTICLE_RUNTIME_PROVIDERS", file=sys.stderr)
        return 2
    results: list[Outcome] = []
    counted = [0, 0, 0]
    for prompt in prompts:
        if args.live:
            config = live_config(prompt, str(providers), args.record, args.case)
        else:
            config = offline_config(prompt, args.case)
        data = run_promptfoo(config, STATE / f"results.{prompt}.json", env)
        counted = [a + b for a, b in zip(counted, _promptfoo_counts(data), strict=True)]
        for outcome in outcomes(prompt, data):
            (judge_live if args.live else judge_offline)(outcome)
            results.append(outcome)
    print(table(results, args.live))
    bad = [o for o in results if not o.agrees]
    for o in bad:
        print(f"FAILED {o.prompt}/{o.answer} [{o.provider}]: {o.why}")
    print(f"Promptfoo counted {counted[0]} passed, {counted[1]} failed, {counted[2]} errors")
    print("Browse the last run: cd evals && npx promptfoo view")
    print(f"evals: {len(results) - len(bad)} passed, {len(bad)} failed")  # CI's closing line
    return 1 if bad or not results else 0


if __name__ == "__main__":
    sys.exit(main())

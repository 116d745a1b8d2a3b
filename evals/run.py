"""Run the Promptfoo suites and check every verdict (spec 11).

    python -m evals.run                       # offline: stored answers, expected verdicts
    python -m evals.run --live [--providers FILE] [--record]

Offline, a run passes only when every assertion gives the verdict its answer file expects:
good answers pass, each bad answer fails on exactly the assertions (and reason codes) meant
to catch it, which shows the assertions discriminate. Live, the same cases go to the
``runtime_primary`` and ``runtime_fallback`` of each call and every case must pass.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from evals.answers_store import load_answer
from evals.assertions.common import reason_code
from evals.cases import CACHE_ENV, case_names, load_case, stale_reason
from evals.paths import EVALS, PROMPTS, REPO, STATE, config_path

PROMPTFOO_VERSION = "0.121.20"
ROLES = ("runtime_primary", "runtime_fallback")
ENTRY = {"article_content_hygiene": "hygiene", "article_sentiment_tags": "enrichment"}


@dataclass
class Outcome:
    """One Promptfoo result, with the runner's verdict on it."""

    prompt: str
    name: str
    category: str
    provider: str
    success: bool
    failures: dict[str, str]  # metric -> reason
    cost: float
    latency_ms: int
    agrees: bool = True
    why: str = ""


@dataclass
class Row:
    cases: int = 0
    passed: int = 0
    agreed: int = 0
    cost: float = 0.0
    latencies: list[int] = field(default_factory=list)


def environment() -> dict[str, str]:
    """Offline-safe Promptfoo settings; nothing is written outside the repository."""
    env = dict(os.environ)
    cache = STATE / "cache" / str(os.getpid())
    env.update(
        PROMPTFOO_DISABLE_TELEMETRY="1",
        PROMPTFOO_DISABLE_UPDATE="1",
        PROMPTFOO_DISABLE_SHARING="1",
        PROMPTFOO_CONFIG_DIR=str(STATE),
        PROMPTFOO_PYTHON=str(REPO / ".venv" / "bin" / "python"),
        PYTHONPATH=os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p),
    )
    env[CACHE_ENV] = str(cache)
    if not Path(env["PROMPTFOO_PYTHON"]).exists():
        env["PROMPTFOO_PYTHON"] = sys.executable
    return env


def promptfoo_command() -> list[str]:
    local = EVALS / "node_modules" / ".bin" / "promptfoo"
    if local.exists():
        return [str(local)]
    return ["npx", "--yes", f"promptfoo@{PROMPTFOO_VERSION}"]


def live_config(prompt: str, providers: str, record: bool, cases: Sequence[str]) -> Path:
    """The suite's config with the live providers in place of the replay."""
    from article_runtime.llm.providers import load_providers

    config = load_providers(providers)
    call = config.for_call(prompt) if config is not None else None  # type: ignore[arg-type]
    if call is None:
        raise SystemExit(f"{providers}: no providers for {prompt}")
    base: dict[str, Any] = yaml.safe_load(config_path(prompt).read_text(encoding="utf-8"))
    base["prompts"] = [{"id": f"file://{EVALS / 'prompts.py'}:{ENTRY[prompt]}", "label": prompt}]
    base["providers"] = [
        {
            "id": f"file://{EVALS / 'providers' / 'live.py'}",
            "label": f"{role}:{getattr(call, role).model}",
            "config": {"prompt": prompt, "role": role, "providers": providers, "record": record},
        }
        for role in ROLES
    ]
    tests = {"prompt": prompt, "mode": "live", "cases": list(cases)}
    base["tests"] = [{"path": f"file://{EVALS / 'suite.py'}:generate_tests", "config": tests}]
    path = STATE / f"live.{prompt}.yaml"
    path.write_text(yaml.safe_dump(base, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def offline_config(prompt: str, cases: Sequence[str]) -> Path:
    if not cases:
        return config_path(prompt)
    base: dict[str, Any] = yaml.safe_load(config_path(prompt).read_text(encoding="utf-8"))
    base["prompts"] = [{"id": f"file://{EVALS / 'prompts.py'}:{ENTRY[prompt]}", "label": prompt}]
    for provider in base["providers"]:
        provider["id"] = f"file://{EVALS / 'providers' / 'replay.py'}"
    tests = {"prompt": prompt, "mode": "offline", "cases": list(cases)}
    base["tests"] = [{"path": f"file://{EVALS / 'suite.py'}:generate_tests", "config": tests}]
    path = STATE / f"offline.{prompt}.yaml"
    path.write_text(yaml.safe_dump(base, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def run_promptfoo(config: Path, output: Path, env: dict[str, str]) -> dict[str, Any]:
    command = [*promptfoo_command(), "eval", "-c", str(config), "-o", str(output)]
    command += ["--no-cache", "--no-table", "--no-progress-bar", "-j", "4"]
    done = subprocess.run(command, cwd=EVALS, env=env, check=False)
    if done.returncode not in (0, 100) or not output.is_file():  # 100: some tests failed
        raise SystemExit(f"promptfoo failed (exit {done.returncode}): {' '.join(command)}")
    data: dict[str, Any] = json.loads(output.read_text(encoding="utf-8"))
    return data


def outcomes(prompt: str, data: dict[str, Any]) -> list[Outcome]:
    found = []
    for result in data["results"]["results"]:
        test = result.get("testCase", {})
        grading = result.get("gradingResult") or {}
        failures = {
            str(c["assertion"].get("metric") or c["assertion"]["type"]): str(c.get("reason", ""))
            for c in grading.get("componentResults", [])
            if not c.get("pass")
        }
        if result.get("error") and not failures:
            failures["error"] = str(result["error"])[:200]
        found.append(
            Outcome(
                prompt=prompt,
                name=str(test.get("description", "?")),
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
    """Agreement: the failing assertions (and their reason codes) are exactly the expected ones."""
    stored = load_answer(outcome.prompt, outcome.name)
    expect, caught_by = stored.get("expect"), stored.get("caught_by") or {}
    if expect not in ("pass", "fail"):
        outcome.agrees, outcome.why = False, "expect not filled in (unreviewed recorded answer)"
        return
    if (expect == "pass") != (not caught_by):
        outcome.agrees, outcome.why = False, "expect and caught_by disagree in the answer file"
        return
    actual = {metric: reason_code(reason) for metric, reason in outcome.failures.items()}
    wanted: dict[str, str | None] = dict(caught_by)
    same = set(actual) == set(wanted) and all(
        code is None or actual[m] == code for m, code in wanted.items()
    )
    if not same:
        outcome.agrees = False
        outcome.why = f"expected failures {wanted}, got {actual}"


def judge_live(outcome: Outcome) -> None:
    if not outcome.success:
        outcome.agrees = False
        outcome.why = "; ".join(f"{m}: {r[:120]}" for m, r in outcome.failures.items())


def table(results: Sequence[Outcome]) -> str:
    rows: dict[tuple[str, str, str], Row] = defaultdict(Row)
    for o in results:
        row = rows[(o.prompt, o.category, o.provider)]
        row.cases += 1
        row.passed += o.success
        row.agreed += o.agrees
        row.cost += o.cost
        row.latencies.append(o.latency_ms)
    head = f"{'prompt':<24} {'category':<17} {'provider':<28} {'cases':>5} {'pass':>5} "
    head += f"{'rate':>5} {'agree':>7} {'cost $':>9} {'lat ms':>6} {'max':>6}"
    lines = [head, "-" * len(head)]
    for (prompt, category, provider), r in sorted(rows.items()):
        mean = sum(r.latencies) // max(len(r.latencies), 1)
        lines.append(
            f"{prompt:<24} {category:<17} {provider[:28]:<28} {r.cases:>5} {r.passed:>5} "
            f"{r.passed / r.cases:>5.0%} {f'{r.agreed}/{r.cases}':>7} {r.cost:>9.5f} "
            f"{mean:>6} {max(r.latencies):>6}"
        )
    return "\n".join(lines)


def stale_cases(prompts: Sequence[str]) -> list[str]:
    found = []
    for prompt in prompts:
        for name in case_names(prompt):
            reason = stale_reason(load_case(prompt, name))
            if reason is not None:
                found.append(f"{prompt}/{name}: {reason}")
    return found


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--live", action="store_true", help="call the configured models")
    parser.add_argument("--providers", help="providers YAML (default $ARTICLE_RUNTIME_PROVIDERS)")
    parser.add_argument("--record", action="store_true", help="live: store the answers")
    parser.add_argument("--prompt", action="append", choices=PROMPTS, help="only this suite")
    parser.add_argument("--case", action="append", default=[], help="only this input case")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    prompts = tuple(args.prompt or PROMPTS)
    env = environment()
    STATE.mkdir(parents=True, exist_ok=True)
    os.environ[CACHE_ENV] = env[CACHE_ENV]  # the stale check below fills the same cache
    stale = stale_cases(prompts)
    if stale:
        print("Stale cases (segmentation or input changed):", *stale, sep="\n  ")
        print("Rebuild them: .venv/bin/python -m evals.tools.make_cases (and make_enrichment)")
        return 1
    providers = args.providers or os.environ.get("ARTICLE_RUNTIME_PROVIDERS")
    if args.live and not providers:
        print("--live needs --providers FILE or $ARTICLE_RUNTIME_PROVIDERS", file=sys.stderr)
        return 2
    results: list[Outcome] = []
    try:
        for prompt in prompts:
            if args.live:
                config = live_config(prompt, str(providers), args.record, args.case)
            else:
                config = offline_config(prompt, args.case)
            data = run_promptfoo(config, STATE / f"results.{prompt}.json", env)
            for outcome in outcomes(prompt, data):
                (judge_live if args.live else judge_offline)(outcome)
                results.append(outcome)
    finally:
        shutil.rmtree(env[CACHE_ENV], ignore_errors=True)
    print(table(results))
    bad = [o for o in results if not o.agrees]
    for o in bad:
        print(f"DISAGREE {o.prompt}/{o.name} [{o.provider}]: {o.why}")
    verdict = "live: every case passed" if args.live else "every verdict as expected"
    print(f"{len(results) - len(bad)}/{len(results)} agree" + ("" if bad else f"; {verdict}"))
    print(f"evals: {len(results) - len(bad)} passed, {len(bad)} failed")  # CI's closing line
    return 1 if bad or not results else 0


if __name__ == "__main__":
    sys.exit(main())

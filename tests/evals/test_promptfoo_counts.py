"""Promptfoo's own count means what the runner's means, and `promptfoo view` finds the run.

A real ``promptfoo eval`` on the stored answers of one page plus one test whose label lies
(the good answer labelled as caught by the harness): Promptfoo must pass every correctly
labelled test and fail the lying one, with the reason, and the runner must agree test by test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from evals import run
from evals.answers_store import answer_names, load_answer
from evals.paths import EVALS, HYGIENE
from evals.suite import assertions, offline_test

PROMPTFOO = EVALS / "node_modules" / ".bin" / "promptfoo"
pytestmark = pytest.mark.skipif(
    not PROMPTFOO.exists(),
    reason="promptfoo is not installed: run `make evals-install` (make test does it)",
)
CASE = "wcxb-0001"  # its bad answers include two labelled to break the schema


def _config(path: Path) -> int:
    names = [a for a in answer_names(HYGIENE) if load_answer(HYGIENE, a)["input"] == CASE]
    tests = [offline_test(HYGIENE, name) for name in names]
    lying = offline_test(HYGIENE, f"{CASE}--good")
    lying["description"] = f"{CASE}--good, labelled as caught by the harness"
    lying["assert"] = assertions(HYGIENE, {"harness": "order_violation"})
    config = {
        "description": "labelled counts",
        "prompts": [{"id": f"file://{EVALS / 'prompts.py'}:hygiene", "label": HYGIENE}],
        "providers": [
            {
                "id": f"file://{EVALS / 'providers' / 'replay.py'}",
                "label": "replay",
                "config": {"prompt": HYGIENE},
            }
        ],
        # from a file: Promptfoo would resolve the schema's "#/definitions" refs inline
        "tests": f"file://{path.with_name('tests.json')}",
    }
    path.with_name("tests.json").write_text(json.dumps([*tests, lying]), encoding="utf-8")
    path.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    return len(tests)


def test_promptfoo_counts_what_the_runner_counts(tmp_path: Path) -> None:
    labelled = _config(tmp_path / "config.yaml")
    env = {**run.environment(), "PROMPTFOO_CONFIG_DIR": str(tmp_path / ".promptfoo")}
    data = run.run_promptfoo(tmp_path / "config.yaml", tmp_path / "out.json", env)

    stats = data["results"]["stats"]
    assert (stats["successes"], stats["failures"], stats["errors"]) == (labelled, 1, 0)
    [lie] = [r for r in data["results"]["results"] if not r["success"]]
    assert "harness: not caught: labelled to fail with order_violation" in lie["error"]

    outcomes = run.outcomes(HYGIENE, data)
    for outcome in outcomes:
        run.judge_offline(outcome)
    assert sum(o.agrees for o in outcomes) == labelled
    assert [o.why for o in outcomes if not o.agrees] == ["Promptfoo failed this test"]

    # `npx promptfoo view` (here `list`, same lookup) run where evals/.env lies, with no
    # Promptfoo variable set and an empty home, finds the run.
    shutil.copy(EVALS / ".env", tmp_path / ".env")
    bare = {k: v for k, v in os.environ.items() if not k.startswith("PROMPTFOO_")}
    bare["HOME"] = str(tmp_path / "home")
    listed = subprocess.run(
        [str(PROMPTFOO), "list", "evals", "--ids-only"],
        cwd=tmp_path, env=bare, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert data["evalId"] in listed.stdout.split()

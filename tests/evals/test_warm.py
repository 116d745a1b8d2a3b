"""The warm process answers a Promptfoo-style child process exactly as the child would answer
itself, and its failures reach the child as errors, never as a silent local fallback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from evals.paths import HYGIENE, REPO
from evals.prompts import runtime_messages
from evals.warm import SOCKET_ENV, WarmServer

CHILD = """
import json, pathlib, sys
from evals import warm
try:
    answer = warm.call(sys.argv[2], *json.loads(sys.argv[3]))
except RuntimeError as error:
    answer = {"error": str(error)}
pathlib.Path(sys.argv[1]).write_text(json.dumps(answer))
"""


def _command(out: Path, function: str, *args: object) -> list[str]:
    return [sys.executable, "-c", CHILD, str(out), function, json.dumps(args)]


def _in_child(tmp_path: Path, function: str, *args: object) -> object:
    out = tmp_path / "answer.json"
    with WarmServer() as server:
        env = {**os.environ, SOCKET_ENV: server.address, "PYTHONPATH": str(REPO)}
        with subprocess.Popen(_command(out, function, *args), env=env) as child:
            assert server.serve_while(child) == 0
    return json.loads(out.read_text())


def test_a_child_gets_what_the_function_gives(tmp_path: Path) -> None:
    served = _in_child(tmp_path, "render", HYGIENE, "repairs-ja")
    assert served == runtime_messages(HYGIENE, "repairs-ja")


def test_a_failure_in_the_warm_process_reaches_the_child(tmp_path: Path) -> None:
    served = _in_child(tmp_path, "render", HYGIENE, "no-such-case")
    assert isinstance(served, dict)
    assert "evals warm process, render" in served["error"]
    assert "KeyError" in served["error"]


def test_a_child_whose_warm_process_is_gone_fails(tmp_path: Path) -> None:
    env = {**os.environ, SOCKET_ENV: str(tmp_path / "gone"), "PYTHONPATH": str(REPO)}
    command = _command(tmp_path / "answer.json", "render", HYGIENE, "repairs-ja")
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    assert done.returncode != 0
    assert b"FileNotFoundError" in done.stderr
    assert not (tmp_path / "answer.json").exists()

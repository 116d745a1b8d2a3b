"""The installed commands say what they do: ``article-runtime --help`` names every command the
code defines, and ``article-runtime-worker --help`` prints its usage without starting a worker.

Both run as the console scripts pyproject.toml installs, in a subprocess, as a user types them.
The commands expected are found in the code, not listed here: every module of
``article_runtime/cli`` with a ``run`` function and every module of ``streams/commands`` with an
``add`` function is one command, named as its module.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# Port 9 (discard): nothing answers there, so a worker that did start would fail its preflight
# after its deadline instead of exiting at once with the usage.
UNREACHABLE = "127.0.0.1:9"


def defining(folder: Path, function: str) -> set[str]:
    """Modules of ``folder`` that define ``function`` at their top level."""
    found = set()
    for path in folder.glob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        if any(isinstance(n, ast.FunctionDef) and n.name == function for n in tree.body):
            found.add(path.stem)
    return found


def listed_commands(help_text: str) -> set[str]:
    """The commands argparse lists under the positional arguments (``    name   its help``)."""
    commands = set()
    for line in help_text.splitlines():
        words = line.split()
        indent = len(line) - len(line.lstrip(" "))
        if indent == 4 and words and words[0].isidentifier():
            commands.add(words[0])
    return commands


def run(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KAFKA_BOOTSTRAP_SERVERS": UNREACHABLE}
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT, check=False
    )


def test_article_runtime_help_lists_every_command_the_code_defines() -> None:
    expected = defining(ROOT / "article_runtime" / "cli", "run") | defining(
        ROOT / "streams" / "commands", "add"
    )
    assert {"extract", "publish", "redrive", "replay"} <= expected  # the discovery works
    done = run(str(BIN / "article-runtime"), "--help")
    assert done.returncode == 0, done.stderr
    listed = listed_commands(done.stdout)
    assert listed == expected, (
        f"article-runtime --help lists {sorted(listed)}; the code defines {sorted(expected)}"
        f" (missing from the help: {sorted(expected - listed)})"
    )


def test_worker_help_prints_usage_and_exits_without_starting_a_worker() -> None:
    for argv in (
        [str(BIN / "article-runtime-worker")],
        [sys.executable, "-m", "article_runtime.streams.worker"],
    ):
        done = run(*argv, "--help", timeout=30)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("usage: article-runtime-worker"), done.stdout
        assert "docs/operating.md" in done.stdout
        # Nothing of a start: no settings line, no refused preflight naming the broker.
        assert "starting worker" not in done.stdout + done.stderr
        assert UNREACHABLE not in done.stdout + done.stderr


def test_worker_refuses_an_unknown_argument_without_starting() -> None:
    done = run(str(BIN / "article-runtime-worker"), "--partitions", "6", timeout=30)
    assert done.returncode == 2
    assert "unrecognized arguments" in done.stderr
    assert UNREACHABLE not in done.stdout + done.stderr

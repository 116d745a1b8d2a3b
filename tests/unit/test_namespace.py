"""The runtime's packages live under ``article_runtime``: nothing imports a top-level
``streams`` or ``agents``.

Other distributions install top-level packages of those names (openai-agents installs
``agents``), so an import of the bare name may load someone else's module, or ours twice under two
names. The folders ``streams/`` and ``agents/`` stay at the top of the repository (the design
card's layout) and are packaged through the symlinks ``article_runtime/streams`` and
``article_runtime/agents``. Read from the source with ``ast``; nothing is imported.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("streams", "agents")
# Every folder of Python the repository has, the runtime's and its tools'.
SOURCES = ("article_runtime", "streams", "agents", "bench", "tests", "evals", "mutation")


def bare_imports(source: str) -> list[str]:
    """The imports in ``source`` whose top-level package is a bare ``streams`` or ``agents``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [name for name in names if name.split(".")[0] in FOLDERS]
    return found


def python_files() -> list[Path]:
    files: list[Path] = []
    for folder in SOURCES:
        if (ROOT / folder).is_dir() and not (ROOT / folder).is_symlink():
            files += sorted((ROOT / folder).rglob("*.py"))
    return files


def test_no_module_imports_a_top_level_streams_or_agents() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in python_files()
        for name in bare_imports(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import streams.kafka.codec as codec", ["streams.kafka.codec"]),
        ("from agents import ladder", ["agents"]),
        ("from agents.ledger import Ledger", ["agents.ledger"]),
        ("import os, streams", ["streams"]),
        ("def f():\n    from streams.worker import app", ["streams.worker"]),
        ("from article_runtime.streams.kafka import topics", []),
        ("import article_runtime.agents.ladder", []),
        ("from . import agents", []),
        ("from .streams import x", []),
        ("import streamsx, agents_extra", []),
    ],
)
def test_bare_imports_finds_exactly_the_top_level_ones(source: str, expected: list[str]) -> None:
    assert bare_imports(source) == expected


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_folder_is_packaged_under_the_namespace(folder: str) -> None:
    link = ROOT / "article_runtime" / folder
    assert link.is_symlink()
    assert link.resolve() == (ROOT / folder).resolve()
    assert (link / "__init__.py").is_file()


def test_the_distribution_installs_no_top_level_streams_or_agents() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    assert [p for p in include if p.split(".")[0].rstrip("*") in FOLDERS] == []

"""The test command cosmic-ray runs for each mutant: only the tests that run the mutated lines.

``mutation.run`` records, before mutating, which tests execute each line of the module
(coverage's per-test contexts) in ``<work>/<name>.lines.json``, and keeps the unmutated source
as ``<work>/<name>.orig``. Here the mutated file is compared with it; the tests that ran the
changed lines are run (``-x``); a line no test runs makes the mutant survive without a run.
Lines run only at import (constants, signatures) have no test of their own: for them every
test of the module runs.

    python -m mutation.select WORK NAME MODULE_PATH TEST...
"""

from __future__ import annotations

import ast
import difflib
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

IMPORT_TIME = "*"  # the key of lines run while importing, with no test of their own


def changed_lines(original: str, mutated: str) -> set[int]:
    """1-based numbers of the original's lines that the mutation replaced or removed."""
    matcher = difflib.SequenceMatcher(a=original.splitlines(), b=mutated.splitlines())
    lines: set[int] = set()
    for tag, a_start, a_end, _, _ in matcher.get_opcodes():
        if tag != "equal":
            lines.update(range(a_start + 1, max(a_end, a_start + 1) + 1))
    return lines


def statement_lines(source: str, line: int) -> set[int]:
    """The lines of the innermost statement holding ``line``; of a compound one, its header.

    Python 3.12+ reports a multi-line condition by the lines of its expression, not by the
    ``if (`` line a mutation may change (``if not (``): with no test recorded there, the
    mutant survived without a run. Every test that runs any line of the header runs it.
    """
    holding = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    best = max(holding, key=lambda node: (node.lineno, -(node.end_lineno or 0)), default=None)
    if best is None:
        return {line}
    end = best.end_lineno or best.lineno
    body = getattr(best, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        end = max(body[0].lineno - 1, best.lineno)
    return set(range(best.lineno, end + 1))


def tests_for(lines: set[int], by_line: dict[str, list[str]], every: Sequence[str]) -> list[str]:
    """The tests that run any of ``lines``; all of ``every`` for a line run at import."""
    chosen: list[str] = []
    for line in sorted(lines):
        tests = by_line.get(str(line), [])
        if IMPORT_TIME in tests:
            return list(every)
        chosen += [t for t in tests if t not in chosen]
    return chosen


def main(argv: Sequence[str]) -> int:
    work, name, module_path, *every = argv
    original = (Path(work) / f"{name}.orig").read_text(encoding="utf-8")
    mutated = Path(module_path).read_text(encoding="utf-8")
    by_line = json.loads((Path(work) / f"{name}.lines.json").read_text(encoding="utf-8"))
    lines = changed_lines(original, mutated)
    for line in [n for n in lines if str(n) not in by_line]:
        lines |= statement_lines(original, line)
    tests = tests_for(lines, by_line, every)
    if not tests:
        print("no test runs the mutated lines")
        return 0
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

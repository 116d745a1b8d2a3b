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
    tests = tests_for(changed_lines(original, mutated), by_line, every)
    if not tests:
        print("no test runs the mutated lines")
        return 0
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

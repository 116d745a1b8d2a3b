"""``make mutants``: which guarded lines no fast test notices when broken (cosmic-ray).

For each module of ``mutation/modules.toml``, one at a time: the repository's files are copied
to ``.mutants/tree`` (the working tree is never mutated, so an edit or a commit made meanwhile
cannot pick up a mutant), the module's tests are run once unmutated, cosmic-ray mutates the
module and runs those tests against every mutant (stopping at the first failure), and the
score is printed: killed / (mutants - equivalent). Survivors are written to
``.mutants/<name>.survivors.txt`` with their diffs.

Two kinds of mutant are not run, and counted apart:
- inside a function's annotations: the modules use ``from __future__ import annotations``, so
  those are strings nobody evaluates (``int | None`` as ``int - None`` changes nothing);
- operator swaps beyond one natural counterpart (``+`` is tried as ``-``, not also as ``**``,
  ``<<``, ``%``...; ``<`` as ``<=`` and ``>=``...): the rest rarely say anything the first does
  not, and each costs a test run (``NARROW``).
Survivors argued equivalent are listed in ``mutation/equivalent.toml`` with why.
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import coverage
from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

from mutation.select import IMPORT_TIME

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
WORK = ROOT / ".mutants"

# Operator replacements kept per original operator (cosmic-ray's names, after "core/").
_KEPT_BINARY = {"Add": "Sub", "Sub": "Add", "Mul": "Div", "Div": "Mul", "FloorDiv": "Mul"}
_KEPT_BINARY |= {"Mod": "FloorDiv", "BitOr": "BitAnd", "BitAnd": "BitOr", "Pow": "Mul"}
_KEPT_COMPARE = {
    "Lt": ("LtE", "GtE"),
    "LtE": ("Lt", "Gt"),
    "Gt": ("GtE", "LtE"),
    "GtE": ("Gt", "Lt"),
    "Eq": ("NotEq",),
    "NotEq": ("Eq",),
    "Is": ("IsNot",),
    "IsNot": ("Is",),
    "In": ("NotIn",),
    "NotIn": ("In",),
}


@dataclass(frozen=True)
class Module:
    name: str
    guarantee: str
    path: str
    tests: tuple[str, ...]


@dataclass(frozen=True)
class Equivalent:
    path: str
    operator: str
    line: str  # the mutated line as the mutant reads, stripped
    why: str


@dataclass
class Score:
    module: Module
    mutants: int = 0
    killed: int = 0
    survived: int = 0
    equivalent: int = 0
    not_run: int = 0
    seconds: float = 0.0

    @property
    def percent(self) -> float:
        judged = self.killed + self.survived
        return 100.0 * self.killed / judged if judged else 100.0


def narrow(operator: str) -> bool:
    """Whether a mutation operator is one of the swaps ``make mutants`` runs."""
    name = operator.removeprefix("core/")
    if name.startswith("ReplaceBinaryOperator_"):
        original, _, replacement = name.removeprefix("ReplaceBinaryOperator_").partition("_")
        return _KEPT_BINARY.get(original) == replacement
    if name.startswith("ReplaceComparisonOperator_"):
        original, _, replacement = name.removeprefix("ReplaceComparisonOperator_").partition("_")
        return replacement in _KEPT_COMPARE.get(original, ())
    return True


def _in_class_body(node: ast.AnnAssign) -> bool:
    # Class bodies' annotations make dataclass and pydantic fields: those are evaluated.
    return getattr(node, "_in_class", False)


def _mark_class_fields(tree: ast.Module) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign):
                    item._in_class = True  # type: ignore[attr-defined]


def annotation_spans(source: str) -> set[tuple[int, int, int, int]]:
    tree = ast.parse(source)
    _mark_class_fields(tree)
    spans = set()
    for node in ast.walk(tree):
        notes: list[ast.expr] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            args = node.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            notes = [a.annotation for a in every if a is not None and a.annotation is not None]
            if node.returns is not None:
                notes.append(node.returns)
        elif isinstance(node, ast.AnnAssign) and not _in_class_body(node):
            notes = [node.annotation]
        for note in notes:
            end = (note.end_lineno or note.lineno, note.end_col_offset or note.col_offset)
            spans.add((note.lineno, note.col_offset, *end))
    return spans


def inside(spans: Iterable[tuple[int, int, int, int]], start: Sequence[int]) -> bool:
    position = (start[0], start[1])
    return any((a, b) <= position < (c, d) for a, b, c, d in spans)


def load_modules(path: Path = HERE / "modules.toml") -> list[Module]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Module(m["name"], m["guarantee"], m["path"], tuple(m["tests"])) for m in data["module"]]


def load_equivalents(path: Path = HERE / "equivalent.toml") -> list[Equivalent]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [
        Equivalent(e["path"], e["operator"], e["line"].strip(), e["why"])
        for e in data.get("equivalent", [])
    ]


def copy_tree(target: Path) -> None:
    """The repository's files as they are now (tracked and new, not ignored) into ``target``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    if target.exists():
        shutil.rmtree(target)
    for name in filter(None, listed):
        source, copy = ROOT / name.decode(), target / name.decode()
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():  # the package's resources link to prompts/ and schemas/
            copy.symlink_to(source.readlink())
        elif source.is_file():
            shutil.copy2(source, copy)


def record_lines(module: Module, tree: Path) -> float:
    """Run the module's tests once under coverage, each test in its own context; write which
    tests run each line (``mutation.select`` reads it) and keep the unmutated source. Returns
    how long the tests took. Raises SystemExit when they fail unmutated."""
    data_file = WORK / f"{module.name}.coverage"
    data_file.unlink(missing_ok=True)
    started = time.monotonic()
    measure = [sys.executable, "-m", "coverage", "run", f"--data-file={data_file}"]
    pytest = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "mutation.contexts"]
    done = subprocess.run(
        [*measure, f"--include={module.path}", *pytest, *module.tests],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    took = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"{module.name}: its tests fail unmutated:\n{done.stdout[-3000:]}")
    data = coverage.CoverageData(basename=str(data_file))
    data.read()
    by_line: dict[int, list[str]] = {}
    for measured in data.measured_files():
        if Path(measured).resolve() == (tree / module.path).resolve():
            for line, contexts in data.contexts_by_lineno(measured).items():
                by_line[line] = sorted(c or IMPORT_TIME for c in contexts)
    (WORK / f"{module.name}.lines.json").write_text(json.dumps(by_line), encoding="utf-8")
    shutil.copy2(tree / module.path, WORK / f"{module.name}.orig")
    return took


def select_command(module: Module) -> list[str]:
    """What cosmic-ray runs per mutant: the tests that run the mutated lines."""
    return [
        sys.executable,
        "-m",
        "mutation.select",
        str(WORK),
        module.name,
        module.path,
        *module.tests,
    ]


def mutated_line(diff: str | None) -> str:
    """The first added line of a mutant's diff, stripped: what names it in equivalent.toml."""
    for line in (diff or "").splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            return line[1:].strip()
    return ""


def run_module(module: Module, tree: Path, equivalents: list[Equivalent]) -> Score:
    score = Score(module)
    started = time.monotonic()
    baseline_s = record_lines(module, tree)
    command = select_command(module)
    session = WORK / f"{module.name}.sqlite"
    session.unlink(missing_ok=True)
    config = WORK / f"{module.name}.toml"
    config.write_text(
        "[cosmic-ray]\n"
        f'module-path = "{module.path}"\n'
        f"timeout = {max(60.0, 4 * baseline_s):.0f}\n"
        "excluded-modules = []\n"
        f"test-command = {_toml_string(' '.join(command))}\n"
        '[cosmic-ray.distributor]\nname = "local"\n',
        encoding="utf-8",
    )
    cosmic = [sys.executable, "-m", "cosmic_ray.cli"]
    subprocess.run([*cosmic, "init", str(config), str(session)], cwd=tree, check=True)
    spans = annotation_spans((tree / module.path).read_text(encoding="utf-8"))
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item in list(db.pending_work_items):
            (mutation,) = item.mutations
            if not narrow(mutation.operator_name) or inside(spans, mutation.start_pos):
                db.set_result(item.job_id, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
    subprocess.run([*cosmic, "exec", str(config), str(session)], cwd=tree, check=True)
    survivors = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            (mutation,) = item.mutations
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                score.not_run += 1
                continue
            score.mutants += 1
            if result.test_outcome != TestOutcome.SURVIVED:
                score.killed += 1
                continue
            line = mutated_line(result.diff)
            if any(
                e.path == module.path and e.operator == mutation.operator_name and e.line == line
                for e in equivalents
            ):
                score.equivalent += 1
            else:
                score.survived += 1
                survivors.append(f"{mutation.operator_name} at {mutation.start_pos}\n{result.diff}")
    (WORK / f"{module.name}.survivors.txt").write_text("\n".join(survivors), encoding="utf-8")
    score.seconds = time.monotonic() - started
    return score


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def report(scores: list[Score]) -> str:
    lines = [
        f"{'module':<16} {'path':<38} {'score':>6} {'killed':>6} {'surv.':>5} {'equiv.':>6} "
        f"{'not run':>7} {'time':>6}"
    ]
    for s in scores:
        lines.append(
            f"{s.module.name:<16} {s.module.path:<38} {s.percent:5.1f}% {s.killed:>6} "
            f"{s.survived:>5} {s.equivalent:>6} {s.not_run:>7} {s.seconds / 60:5.1f}m"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--module", action="append", help="only these (names in modules.toml)")
    parser.add_argument("--list", action="store_true", help="list the modules and their tests")
    parser.add_argument("--config", type=Path, default=HERE / "modules.toml", help="modules file")
    args = parser.parse_args(argv)
    modules = load_modules(args.config)
    if args.list:
        for m in modules:
            present = "" if (ROOT / m.path).is_file() else "   (MISSING: re-point modules.toml)"
            print(f"{m.name:<16} {m.path}{present}\n{'':<16} {m.guarantee}; {' '.join(m.tests)}")
        return 0
    wanted = set(args.module or [m.name for m in modules])
    chosen = [m for m in modules if m.name in wanted]
    missing = [m.path for m in chosen if not (ROOT / m.path).is_file()]
    missing += [t for m in chosen for t in m.tests if not (ROOT / t).is_file()]
    if missing or len(chosen) != len(wanted):
        raise SystemExit(f"mutation/modules.toml names what is not here: {missing or wanted}")
    WORK.mkdir(exist_ok=True)
    equivalents = load_equivalents()
    scores: list[Score] = []
    for module in chosen:
        copy_tree(WORK / "tree")  # afresh: the last module's run must leave nothing behind
        scores.append(run_module(module, WORK / "tree", equivalents))
        print(report(scores[-1:]), flush=True)
    print("\n" + report(scores))
    return 0 if all(s.survived == 0 for s in scores) else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""The docs say what the code does, in both directions.

Every environment variable the code reads, every command and flag of ``article-runtime`` and
``article-runtime-worker``, every web view and every metric family is named in README.md or some
``docs/*.md`` (any file there: other documents join by being added); and every
``ARTICLE_RUNTIME_*`` variable, command, flag, view and metric the docs name exists. What exists
is found in the code, never listed here: the variables by reading the runtime's source (its
``*_ENV`` constants and what it looks up in an environment mapping) and by watching the
settings read a recording environment; commands and flags from the argparse parsers; views from
the worker app's web routes; metric families from its metrics registry. Relative links between
the documents must lead to a file and heading that exist.

A failure names what is missing and where, so whoever adds a setting, flag, view or metric
knows which document to extend.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from article_runtime.cli import build_parser
from article_runtime.streams.commands import KAFKA_COMMANDS
from article_runtime.streams.kafka.connection import BOOTSTRAP_ENV
from article_runtime.streams.service.logs import LogSettings
from article_runtime.streams.service.settings import WorkerSettings
from article_runtime.streams.worker.main import parser as worker_parser
from article_runtime.tracing import tracer_from_env

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = ("article_runtime", "streams", "agents")
ELSEWHERE = ("tests", "bench", "evals", "mutation")  # code that may read a variable too
# Documents every item must be named in (docs/ is globbed, so new documents count).
DOCUMENTED_IN = "README.md or docs/*.md"
# Linked documents whose mentions must exist too (they are not required to name everything).
ALSO_CHECKED = ("helm/article-runtime/README.md", "schemas/README.md")
PREFIX = "ARTICLE_RUNTIME_"
# The namespaces of /metrics; a family outside them fails test_metric_namespaces_are_known.
METRIC_NAMESPACES = ("article_runtime_", "faust_", "process_")
# A path in a code span whose first segment is a standard top-level directory is a file path,
# not a web view (``/etc/kafka/ca.pem``, ``/var/lib/article-runtime``).
FILESYSTEM_ROOTS = frozenset(
    [
        "bin",
        "boot",
        "dev",
        "etc",
        "home",
        "lib",
        "lib64",
        "media",
        "mnt",
        "opt",
        "proc",
        "root",
        "run",
        "sbin",
        "srv",
        "sys",
        "tmp",
        "usr",
        "var",
    ]
)
SHELL_ENDS = ("`", "|", ";", "#", "&&", ")", "<", ">")


# --- the documents ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    path: str  # relative to the repository
    number: int
    text: str
    fenced: bool  # inside a ``` block

    def where(self) -> str:
        return f"{self.path}:{self.number}"


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def lines_of(paths: list[Path]) -> list[Line]:
    found = []
    for path in paths:
        fenced = False
        for number, text in enumerate(path.read_text("utf-8").splitlines(), 1):
            if text.lstrip().startswith("```"):
                fenced = not fenced
                continue
            found.append(Line(str(path.relative_to(ROOT)), number, text, fenced))
    return found


DOC_LINES = lines_of(documents())
ALL_LINES = DOC_LINES + lines_of([ROOT / p for p in ALSO_CHECKED])


def words(text: str) -> list[str]:
    """``text`` cut at every character that cannot be in an identifier."""
    cut = "".join(c if c.isalnum() or c == "_" else " " for c in text)
    return cut.split()


def names_in(span: str) -> list[str]:
    """The identifiers of a code span, leaving out those that are part of a path or a module
    (``streams/kafka/faust_producer.py`` names no metric)."""
    cut = "".join(c if c.isalnum() or c in "_./" else " " for c in span)
    return [w for word in cut.split() if "/" not in word for w in [word.strip(".")] if "." not in w]


def code_spans(line: Line) -> list[str]:
    """The inline code spans of a prose line (a fenced line is code as a whole)."""
    if line.fenced:
        return [line.text]
    return line.text.split("`")[1::2]


def doc_words(lines: list[Line]) -> dict[str, Line]:
    """Every identifier-like word of ``lines``, with the first line naming it."""
    seen: dict[str, Line] = {}
    for line in lines:
        for word in words(line.text):
            seen.setdefault(word, line)
    return seen


def missing_report(missing: dict[str, str], what: str) -> str:
    rows = "\n".join(f"  {name}  ({source})" for name, source in sorted(missing.items()))
    return f"{len(missing)} {what} named in none of {DOCUMENTED_IN}; add each to one:\n{rows}"


def unknown_report(
    unknown: list[tuple[Line, str]], what: str, fault: str = "do not exist in the code"
) -> str:
    rows = "\n".join(f"  {line.where()}: {name}" for line, name in unknown)
    return f"{len(unknown)} {what} in the docs {fault}; fix or remove:\n{rows}"


# --- environment variables --------------------------------------------------------------------


def python_files(folders: tuple[str, ...]) -> Iterator[Path]:
    for folder in folders:
        yield from (ROOT / folder).rglob("*.py")


def is_env_name(value: object) -> bool:
    return (
        isinstance(value, str)
        and "_" in value
        and value.replace("_", "").isalnum()
        and value.upper() == value
        and not value[0].isdigit()
    )


def is_environment(node: ast.expr) -> bool:
    """``env``, ``environ`` or ``os.environ``: the mappings the code reads settings from."""
    if isinstance(node, ast.Name):
        return node.id in ("env", "environ")
    return isinstance(node, ast.Attribute) and node.attr == "environ"


def env_reads(folders: tuple[str, ...]) -> dict[str, str]:
    """Variable name -> the file that reads it: the values of ``*_ENV`` constants, and every
    name (literal, or a constant holding it) looked up in an environment mapping
    (``env.get(X)``, ``os.environ[X]``, ``os.getenv(X)``, ``helper(env, X)``)."""
    trees = {path: ast.parse(path.read_text("utf-8")) for path in python_files(folders)}
    constants: dict[str, str] = {}  # module-level NAME = "VALUE", across the packages
    for tree in trees.values():
        for statement in tree.body:
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant):
                for target in statement.targets:
                    if isinstance(target, ast.Name) and is_env_name(statement.value.value):
                        constants[target.id] = str(statement.value.value)
    found: dict[str, str] = {}

    def note(node: ast.expr, path: Path) -> None:
        value = node.value if isinstance(node, ast.Constant) else None
        if isinstance(node, ast.Name):
            value = constants.get(node.id)
        if is_env_name(value):
            found.setdefault(str(value), str(path.relative_to(ROOT)))

    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id.endswith("_ENV"):
                        note(node.value, path)
            elif isinstance(node, ast.Subscript) and is_environment(node.value):
                note(node.slice, path)
            elif isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr == "get":
                    if is_environment(func.value) and node.args:
                        note(node.args[0], path)
                elif isinstance(func, ast.Attribute) and func.attr == "getenv" and node.args:
                    note(node.args[0], path)
                if any(is_environment(arg) for arg in node.args):
                    for arg in node.args:
                        note(arg, path)
    return found


class Recording(Mapping[str, str]):
    """An environment that remembers every name asked of it."""

    def __init__(self, values: dict[str, str]) -> None:
        self.given, self.asked = values, set[str]()

    def __getitem__(self, name: str) -> str:
        self.asked.add(name)
        return self.given[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.given)

    def __len__(self) -> int:
        return len(self.given)


def settings_reads() -> dict[str, str]:
    """What the worker's settings ask of the environment when read, names built at run time
    included."""
    env = Recording({BOOTSTRAP_ENV: "127.0.0.1:9"})
    WorkerSettings.from_env(env)
    LogSettings.from_env(env)
    tracer_from_env((), env)
    return dict.fromkeys(env.asked, "read by the worker's settings")


def runtime_variables() -> dict[str, str]:
    return {**settings_reads(), **env_reads(RUNTIME)}


def existing_variables() -> set[str]:
    """Variables the code reads anywhere (tests and benchmarks too) or the Makefile sets."""
    makefile = set(words((ROOT / "Makefile").read_text("utf-8")))
    return set(runtime_variables()) | set(env_reads(ELSEWHERE)) | makefile


def test_the_variable_discovery_finds_what_the_settings_read() -> None:
    found = runtime_variables()
    # One of each way the code reads a variable: a *_ENV constant, a literal looked up, a
    # constant passed with the environment to a helper, a connection setting.
    for name in ("ARTICLE_RUNTIME_STORE", "LANGFUSE_HOST", "ARTICLE_RUNTIME_PARTITIONS"):
        assert name in found, name
    assert BOOTSTRAP_ENV in found
    assert not [name for name in found if not is_env_name(name)]


def test_every_variable_the_code_reads_is_documented() -> None:
    documented = doc_words(DOC_LINES)
    missing = {name: where for name, where in runtime_variables().items() if name not in documented}
    assert not missing, missing_report(missing, "environment variables the code reads are")


def test_every_documented_variable_exists() -> None:
    exists = existing_variables()
    unknown = [
        (line, word)
        for line in ALL_LINES
        for word in words(line.text)
        if word.startswith(PREFIX) and not word.endswith("_") and word not in exists
    ]
    assert not unknown, unknown_report(unknown, f"{PREFIX}* variables")


# --- commands and flags -----------------------------------------------------------------------


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def flags(parser: argparse.ArgumentParser) -> set[str]:
    """The long options of ``parser``, help aside."""
    return {
        option
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction)
        for option in action.option_strings
        if option.startswith("--")
    }


@functools.cache
def programs() -> dict[str, dict[str, set[str]]]:
    """Program -> command -> its flags (the program's own flags under "")."""
    main = build_parser(*KAFKA_COMMANDS)
    commands = {name: flags(sub) for name, sub in subcommands(main).items()}
    return {
        "article-runtime": {"": flags(main), **commands},
        "article-runtime-worker": {"": flags(worker_parser())},
    }


def is_command_word(word: str) -> bool:
    """A command as the docs write one: lowercase letters and hyphens, not an option
    (``publish``; not ``--help``, ``COMMAND`` or a path like ``helm/article-runtime``)."""
    return word.islower() and word.replace("-", "").isalpha() and not word.startswith("-")


@dataclass(frozen=True)
class Invocation:
    line: Line
    program: str
    command: str  # "" for the program alone
    flags: tuple[str, ...]


def invocations(lines: list[Line]) -> Iterator[Invocation]:
    """Each ``article-runtime ...`` or ``article-runtime-worker ...`` written in a code span or
    a code block: its command (a lowercase word right after the program) and the ``--flags``
    after it, up to the end of the span or a shell separator."""
    for line in lines:
        for span in code_spans(line):
            tokens = span.split()
            for i, token in enumerate(tokens):
                if token not in programs():
                    continue
                rest: list[str] = []
                for word in tokens[i + 1 :]:
                    if any(word.startswith(end) for end in SHELL_ENDS):
                        break
                    rest.append(word)
                command = ""
                if token == "article-runtime" and rest and is_command_word(rest[0]):
                    command = rest[0]
                options = tuple(
                    w.strip("[]().,:").split("=")[0]
                    for w in rest
                    if w.strip("[]().,:").startswith("--")
                )
                yield Invocation(line, token, command, options)


def test_every_command_and_flag_is_documented() -> None:
    written = list(invocations(DOC_LINES))
    missing: dict[str, str] = {}
    for program, commands in programs().items():
        for command, options in commands.items():
            uses = [u for u in written if u.program == program and u.command == command]
            shown = f"{program} {command}".strip()
            if not uses and (command or not any(u.program == program for u in written)):
                missing[shown] = (
                    f"a command of {program} --help" if command else "an installed command"
                )
            seen = {option for use in uses for option in use.flags}
            for option in sorted(options - seen):
                missing[f"{shown} {option}"] = (
                    f"in {shown} --help; write it on a line running {shown}"
                )
    assert not missing, missing_report(missing, "commands and flags are")


def test_every_documented_command_and_flag_exists() -> None:
    known = programs()
    unknown = []
    for use in invocations(ALL_LINES):
        commands = known[use.program]
        if use.command not in commands:
            unknown.append((use.line, f"{use.program} {use.command}"))
            continue
        for option in use.flags:
            if option not in commands[use.command] | {"--help"}:
                unknown.append(
                    (use.line, f"{use.program} {use.command} {option}".replace("  ", " "))
                )
    assert not unknown, unknown_report(unknown, "commands and flags")


def test_the_command_discovery_reads_the_docs() -> None:
    """The reader finds commands and flags where the docs write them (so the tests above can
    fail): a synopsis line, and a pipeline whose other program's flags are not ours."""
    line = Line("x.md", 1, "crawler --jsonl | article-runtime publish - --id A # --url", True)
    (use,) = invocations([line])
    assert (use.command, use.flags) == ("publish", ("--id",))
    prose = Line("x.md", 2, "run `article-runtime consume [--group G]` or `article-runtime`", False)
    assert [(u.command, u.flags) for u in invocations([prose])] == [
        ("consume", ("--group",)),
        ("", ()),
    ]


# --- web views --------------------------------------------------------------------------------


# The worker app is made in a child process: a Faust app made here starts a producer and a
# consumer thread with loops of their own, which outlive the test and surface as unraisable
# warnings in whichever test the garbage collector runs in (Python 3.12+).
_SURFACE = """
import asyncio, json
from article_runtime.streams.kafka.connection import KafkaConnection
from article_runtime.streams.service.settings import WorkerSettings
from article_runtime.streams.worker.app import create_app
asyncio.set_event_loop(asyncio.new_event_loop())
w = create_app(WorkerSettings(KafkaConnection("127.0.0.1:9"), app_id="docs"), None)
web = w.app.web
web.init_server()
routes = sorted(
    route.resource.canonical
    for route in web.web_app.router.routes()
    if route.method == "GET" and route.resource is not None
)
families = [[m.name, m.type] for m in w.metrics.registry.collect()]
print(json.dumps({"routes": routes, "families": families}))
"""


@functools.cache
def worker_surface() -> dict[str, list[Any]]:
    """The worker's GET paths (Faust's own included: its blueprints are applied when the web
    server initializes) and its metric families (name, type)."""
    done = subprocess.run(
        [sys.executable, "-c", _SURFACE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found: dict[str, list[Any]] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def routes() -> set[str]:
    return set(worker_surface()["routes"])


def segments(path: str) -> list[str]:
    return ["{}" if s.startswith("{") and s.endswith("}") else s for s in path.split("/")]


def names_route(mention: str, route: str) -> bool:
    """``mention`` is ``route`` (any parameter name, or a value in its place), or the start of
    it that ends with a ``/`` (``/articles/`` for the articles view)."""
    said, served = segments(mention), segments(route)
    if mention.endswith("/") and len(said) < len(served):
        served = [*served[: len(said) - 1], ""]
    return len(said) == len(served) and all(
        s == r or (r == "{}" and s != "") for s, r in zip(said, served, strict=True)
    )


def route_mentions(lines: list[Line], served: set[str]) -> Iterator[tuple[Line, str]]:
    """Code spans that write a path of the worker's web server: a ``/`` path whose first
    segment is one the worker serves (``/etc/kafka/ca.pem`` or a provider's ``/v1/...`` are
    other servers' paths)."""
    firsts = {route.split("/")[1] for route in served if route != "/"}
    for line in lines:
        if line.fenced:
            continue
        for span in code_spans(line):
            if span == "/" or (
                span.startswith("/") and " " not in span and span.split("/")[1] in firsts
            ):
                yield line, span


def test_every_web_view_is_documented() -> None:
    served = routes()
    assert {"/health/ready/", "/metrics"} <= served  # the discovery works
    mentioned = {span for _, span in route_mentions(DOC_LINES, served)}
    missing = {
        route: "a route of the worker's web server"
        for route in served
        if not any(segments(m) == segments(route) for m in mentioned)
    }
    assert not missing, missing_report(missing, "web views are")


def test_every_documented_web_view_exists() -> None:
    served = routes()
    unknown = [
        (line, span)
        for line, span in route_mentions(ALL_LINES, served)
        if not any(names_route(span, route) for route in served)
    ]
    assert not unknown, unknown_report(unknown, "web views")


def test_route_mentions_match_as_documented() -> None:
    route = "/articles/{article_id}/"
    assert names_route("/articles/{id}/", route)
    assert names_route("/articles/", route)
    assert names_route("/articles/abc/", route)
    assert not names_route("/article/{id}/", route)
    assert not names_route("/articles/{id}/lineage/", route)
    assert not names_route("/articles//", route)


# --- metrics ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    name: str
    kind: str

    def spellings(self) -> set[str]:
        """The names the family's series are written with on /metrics."""
        suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count")}
        return {self.name, *(self.name + s for s in suffixes.get(self.kind, ()))}


def families() -> list[Family]:
    return [Family(name, kind) for name, kind in worker_surface()["families"]]


def test_metric_namespaces_are_known() -> None:
    outside = [f.name for f in families() if not f.name.startswith(METRIC_NAMESPACES)]
    assert not outside, f"families outside {METRIC_NAMESPACES}: {outside}; add the namespace"


def test_every_metric_family_is_documented() -> None:
    documented = doc_words(DOC_LINES)
    found = families()
    assert len(found) > 30  # the discovery works: ours, Faust's and the process's
    missing = {
        f.name: f"a {f.kind} of /metrics; write it as {sorted(f.spellings())[-1]}"
        for f in found
        if not f.spellings() & set(documented)
    }
    assert not missing, missing_report(missing, "metric families are")


def test_every_documented_metric_exists() -> None:
    spelled = {spelling for family in families() for spelling in family.spellings()}
    unknown = [
        (line, word)
        for line in ALL_LINES
        for span in code_spans(line)
        for word in names_in(span)
        if word.startswith(METRIC_NAMESPACES) and not word.endswith("_") and word not in spelled
    ]
    assert not unknown, unknown_report(unknown, "metric names")


# --- links ------------------------------------------------------------------------------------


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    kept = "".join(c for c in heading.strip().lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {
        anchor(line.text.lstrip("#"))
        for line in lines_of([path])
        if not line.fenced and line.text.startswith("#")
    }


def test_every_relative_link_leads_somewhere() -> None:
    dead = []
    for line in ALL_LINES:
        if line.fenced:
            continue
        for part in line.text.split("](")[1:]:
            target = part.split(")")[0]
            if "://" in target or target.startswith("mailto:"):
                continue
            file, _, heading = target.partition("#")
            path = (ROOT / line.path).parent / file if file else ROOT / line.path
            if not path.exists() or (
                heading and path.suffix == ".md" and heading not in anchors(path)
            ):
                dead.append((line, target))
    assert not dead, unknown_report(dead, "links", "lead to no file or heading")

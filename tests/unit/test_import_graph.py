"""The runtime's import graph: no circles, and every layer imports only the layers below it.

Read from the source with ``ast`` (no module is imported), counting every import: at module
level, inside functions and under ``TYPE_CHECKING``, since a circle a type checker follows is
still a circle a reader has to untangle. The layers, from the bottom:

- ``article_runtime``: the core, no Kafka;
- ``article_runtime.streams.kafka``: Kafka plumbing;
- ``article_runtime.streams.service``: what the worker's stages run on (settings, wiring, metrics,
  health, logs, the flow's records);
- ``article_runtime.agents``: the stages;
- ``article_runtime.streams.worker`` (the composition root: the app, its views, the process) and
  ``article_runtime.streams.commands`` (what other teams run), side by side, neither importing the
  other;
- ``article_runtime.streams.local``: a local broker, a worker process and the demo.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Each folder of the runtime and the package its modules are imported as: streams/ and
# agents/ are packaged as article_runtime.streams and article_runtime.agents (through
# symlinks, which rglob does not follow: no module is counted twice).
PACKAGES = {
    "article_runtime": "article_runtime",
    "streams": "article_runtime.streams",
    "agents": "article_runtime.agents",
}
# (layer, rank): a module may import its own layer and any layer of a lower rank.
LAYERS: tuple[tuple[str, int], ...] = (
    ("article_runtime", 0),
    ("article_runtime.streams.kafka", 1),
    ("article_runtime.streams.service", 2),
    ("article_runtime.agents", 3),
    ("article_runtime.streams.worker", 4),
    ("article_runtime.streams.commands", 4),
    ("article_runtime.streams.local", 5),
)


def module_files() -> dict[str, Path]:
    """Every module of the runtime's packages, by dotted name (a package by its own name)."""
    found: dict[str, Path] = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT / folder).with_suffix("").parts
            parts = [*package.split("."), *relative]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported(path: Path, name: str, modules: dict[str, Path]) -> Iterator[str]:
    """The runtime modules ``path`` (module ``name``) imports, wherever the import stands."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _known(alias.name, modules)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, name, is_package)
            for alias in node.names:
                # ``from article_runtime.streams.kafka import topics`` imports the module
                # article_runtime.streams.kafka.topics
                yield from _known(f"{base}.{alias.name}" if base else alias.name, modules)


def _absolute(node: ast.ImportFrom, name: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    here = name.split(".") if is_package else name.split(".")[:-1]
    here = here[: len(here) - (node.level - 1)]
    return ".".join([*here, *([node.module] if node.module else [])])


def _known(target: str, modules: dict[str, Path]) -> Iterator[str]:
    """The longest runtime module ``target`` names (``a.b.C`` is module ``a.b``'s name C)."""
    parts = target.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            yield candidate
            return
        parts.pop()


def graph() -> dict[str, set[str]]:
    modules = module_files()
    return {
        name: {t for t in imported(path, name, modules) if t != name}
        for name, path in modules.items()
    }


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def layer_of(module: str) -> tuple[str, int] | None:
    """The layer a module belongs to (the longest matching prefix); None for a package root
    that belongs to no layer (``article_runtime.streams`` itself)."""
    best: tuple[str, int] | None = None
    for layer, rank in LAYERS:
        if (module == layer or module.startswith(layer + ".")) and (
            best is None or len(layer) > len(best[0])
        ):
            best = (layer, rank)
    return best


def test_there_is_no_import_circle() -> None:
    assert circles(graph()) == []


def test_every_module_belongs_to_a_layer() -> None:
    homeless = [m for m in graph() if layer_of(m) is None and m != "article_runtime.streams"]
    assert homeless == []


def test_each_layer_imports_only_layers_below_it() -> None:
    wrong = []
    for module, targets in sorted(graph().items()):
        own = layer_of(module)
        if own is None:
            continue
        for target in sorted(targets):
            theirs = layer_of(target)
            if theirs is None or theirs[0] == own[0]:
                continue
            if theirs[1] >= own[1]:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_circles_finds_exactly_the_cycles(
    edges: dict[str, set[str]], expected: list[list[str]]
) -> None:
    assert circles(edges) == expected

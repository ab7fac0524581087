"""The house's shape, read from its source: import cycles, modules too long, imports across a floor.

A cycle between modules (function-level imports included) means neither can be read, tested or
moved alone; a module over :data:`MOST_LINES` lines has parts that want names of their own. Both
are found with :mod:`ast` alone (nothing is imported), so ``tests/bench/test_bench_structure.py`` and
``python -m jaxdeck.bench.structure`` say the same numbers.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the packages read: the tool and the talks' helpers
PACKAGES = ("jaxdeck", "demos")
#: a module longer than this is split where its parts have names of their own
MOST_LINES = 400
#: (importer's package, imported top-level name) pairs that must not occur: the talks' helpers run in
#: a kernel without the tool, and the tool runs without JAX (a deck's kernel imports it)
FORBIDDEN = (("demos", "jaxdeck"), ("jaxdeck", "jax"), ("jaxdeck", "jaxlib"))


@dataclass(frozen=True)
class Shape:
    """What :func:`shape` found: cycles (each a sorted list of modules), long modules (name, lines),
    forbidden imports (importer, imported, line)."""

    cycles: list[list[str]]
    long: list[tuple[str, int]]
    forbidden: list[tuple[str, str, int]]


def modules(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Each module's dotted name and file (a package is its ``__init__.py``)."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _absolute(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The module a ``from ... import`` names, its leading dots resolved against ``name``."""
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported(name: str, path: Path) -> list[tuple[tuple[str, ...], int]]:
    """Every import in ``name``, at any level (a function's body included), with its line: each as
    the modules it may name, likeliest first (``from a import b`` names ``a.b`` where that is a
    module, else a name defined in ``a``; ``import a.b`` names ``a.b``)."""
    found: list[tuple[tuple[str, ...], int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [((alias.name,), node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, path, node)
            found += [((f"{base}.{alias.name}", base), node.lineno) for alias in node.names]
    return found


def graph(known: dict[str, Path]) -> dict[str, set[str]]:
    """Each module's imports among ``known`` (itself left out)."""
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        targets = (next((each for each in names if each in known), None) for names, _ in imported(name, path))
        edges[name] = {target for target in targets if target is not None and target != name}
    return edges


def forbidden(known: dict[str, Path]) -> list[tuple[str, str, int]]:
    """(importer, imported, line) for each import :data:`FORBIDDEN` names."""
    found = []
    for name, path in known.items():
        for names, line in imported(name, path):
            top = names[-1].split(".")[0]
            if (name.split(".")[0], top) in FORBIDDEN:
                found.append((name, names[-1], line))
    return found


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, without recursion), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def long_modules(known: dict[str, Path]) -> list[tuple[str, int]]:
    """(module, lines) for each module over :data:`MOST_LINES` lines, longest first."""
    sizes = [(name, len(path.read_text(encoding="utf-8").splitlines())) for name, path in known.items()]
    return sorted(((name, n) for name, n in sizes if n > MOST_LINES), key=lambda each: (-each[1], each[0]))


def shape(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> Shape:
    """The cycles, long modules and forbidden imports of ``packages`` under ``root``."""
    known = modules(root, packages)
    return Shape(cycles(graph(known)), long_modules(known), forbidden(known))


def build_parameters() -> tuple[str, int] | None:
    """(the build's entry, its parameter count): ``jaxdeck.build.build_deck`` where it exists, else
    the stage runner's entry (``run_stages``, ``run_deck`` or ``run``); None when there is none."""
    import importlib

    module = importlib.import_module("jaxdeck.build")
    for entry in ("build_deck", "run_stages", "run_deck", "run"):
        found = getattr(module, entry, None)
        if callable(found):
            return f"jaxdeck.build.{entry}", len(inspect.signature(found).parameters)
    return None


def said(found: Shape) -> dict[str, list[str]]:
    """Each kind of finding as lines a person reads, under its heading (the test fails with one of them)."""
    return {
        f"import cycles: {len(found.cycles)}": ["  " + " <-> ".join(cycle) for cycle in found.cycles],
        f"modules over {MOST_LINES} lines: {len(found.long)}": [f"  {name}: {n}" for name, n in found.long],
        f"forbidden imports: {len(found.forbidden)}":
            [f"  {importer} imports {target} (line {line})" for importer, target, line in found.forbidden],
    }


def report(found: Shape, parameters: tuple[str, int] | None) -> str:
    """Every number, as ``python -m jaxdeck.bench.structure`` prints it."""
    lines = [line for heading, items in said(found).items() for line in (heading, *items)]
    if parameters is not None:
        lines.append(f"{parameters[0]} parameters: {parameters[1]}")
    return "\n".join(lines)


def main() -> int:
    """Print the numbers; exit 1 when there is a cycle, a long module or a forbidden import."""
    found = shape()
    print(report(found, build_parameters()))
    return 1 if found.cycles or found.long or found.forbidden else 0


if __name__ == "__main__":
    raise SystemExit(main())

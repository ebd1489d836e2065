"""The dependencies of src/sheli are in sight (docs/architecture.md, "The import contract").

import-linter (``make lint``) checks the layers and the cycles between the siblings of a package;
this test checks, from the source with :mod:`ast`, what it does not:

- an import sits at the top of its module; one inside a function is allowed in the CLI (which
  defers a heavy command) or where a comment on its line or the line above says ``deferred``
  and why;
- no module uses another module's ``_private`` name (``from m import _x`` or ``m._x``);
- no import cycle between modules, a package's ``__init__`` counted as a module of its own.

Known offenders, if any, are listed below; the list only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

# Known offenders: none. An entry here is an offence the code still has, to be removed; the
# checks fail on any offence not listed.
# module → how many in-function imports it has without a ``deferred`` comment
KNOWN_NESTED: dict[str, int] = {}
# (importer, module of the name, name)
KNOWN_PRIVATE: set[tuple[str, str, str]] = set()
# the modules of each cycle (strongly connected component) known today
KNOWN_CYCLES: list[set[str]] = []


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((SRC / "sheli").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()
PACKAGES = {m for m, p in MODULES.items() if p.name == "__init__.py"}


def _target(module: str, node: ast.ImportFrom) -> str:
    """The absolute name of the module a ``from … import`` reads from."""
    if not node.level:
        return node.module or ""
    base = module if module in PACKAGES else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


class _Imports(ast.NodeVisitor):
    """The imports of one module: where they sit and what they name."""

    def __init__(self, module: str, lines: list[str]) -> None:
        self.module = module
        self.lines = lines
        self.depth = 0  # inside how many functions
        self.nested: list[int] = []  # lines of undeclared in-function imports
        self.edges: set[str] = set()  # the sheli modules imported
        self.aliases: dict[str, str] = {}  # a local name → the sheli module it is
        self.private: set[tuple[str, str, str]] = set()

    def _function(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _where(self, node: ast.stmt) -> None:
        if self.depth and not self.module.startswith("sheli.cli"):
            said = " ".join(self.lines[max(0, node.lineno - 2) : node.lineno])
            if "deferred" not in said:
                self.nested.append(node.lineno)

    def visit_Import(self, node: ast.Import) -> None:
        self._where(node)
        for alias in node.names:
            if alias.name.split(".")[0] == "sheli":
                self.edges.add(alias.name)
                if alias.asname:
                    self.aliases[alias.asname] = alias.name

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self._where(node)
        base = _target(self.module, node)
        if base.split(".")[0] != "sheli":
            return
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            if sub in MODULES:  # from sheli.engine import verbs
                self.edges.add(sub)
                self.aliases[alias.asname or alias.name] = sub
            else:
                self.edges.add(base)
                if _private(alias.name) and base != self.module:
                    self.private.add((self.module, base, alias.name))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        value = node.value
        if isinstance(value, ast.Name) and value.id in self.aliases and _private(node.attr):
            self.private.add((self.module, self.aliases[value.id], node.attr))
        self.generic_visit(node)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _scan() -> dict[str, _Imports]:
    out = {}
    for module, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        v = _Imports(module, text.splitlines())
        v.visit(ast.parse(text, str(path)))
        v.edges = {e for e in v.edges if e in MODULES and e != module}
        out[module] = v
    return out


@pytest.fixture(scope="module")
def scan() -> dict[str, _Imports]:
    """Every module scanned, once for the tests that read it (not as the module is collected:
    some 0.5 s of CPU in every process, the quick loop's too)."""
    return _scan()


def _cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_imports_at_the_top(scan: dict[str, _Imports]) -> None:
    counts = {m: len(v.nested) for m, v in scan.items() if v.nested}
    over = {
        m: [f"{MODULES[m].relative_to(SRC)}:{n}" for n in scan[m].nested]
        for m, c in counts.items()
        if c > KNOWN_NESTED.get(m, 0)
    }
    assert not over, f"imports inside functions (move them to the top, or say why deferred): {over}"


def _package(module: str) -> str:
    return module.rsplit(".", 1)[0]


def test_no_private_name_of_another_package(scan: dict[str, _Imports]) -> None:
    # a module split into a package by what it does (outputs.diagram, outputs.labels,
    # engine.paths) shares its private names among its own modules; no other package reads
    # them (docs/architecture.md, "Names")
    found = {f for v in scan.values() for f in v.private if _package(f[0]) != _package(f[1])}
    assert not found - KNOWN_PRIVATE, sorted(found - KNOWN_PRIVATE)


def test_no_import_cycle(scan: dict[str, _Imports]) -> None:
    cycles = _cycles({m: v.edges for m, v in scan.items()})
    new = [sorted(c) for c in cycles if not any(c <= known for known in KNOWN_CYCLES)]
    assert not new, f"import cycles: {new}"


def test_the_checks_see_what_they_look_for() -> None:
    # the scanner finds an in-function import, a private name and a cycle where there is one
    v = _Imports("sheli.a", ["def f():", "    from sheli.b import _x", "    import sheli.c as c"])
    v.visit(ast.parse("def f():\n    from sheli.b import _x\n    import sheli.c as c\n    c._y"))
    assert v.nested == [2, 3]
    assert v.private == {("sheli.a", "sheli.b", "_x"), ("sheli.a", "sheli.c", "_y")}
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [{"a", "b"}]

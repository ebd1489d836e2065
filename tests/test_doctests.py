"""Every module of src/sheli shows how it is used in an example that runs.

pytest collects the examples itself (``--doctest-modules`` over ``src/sheli``, pyproject); this
test guards that each module keeps at least one, so that no module's examples are lost unseen.
"""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
# modules without an example yet, each with the branch that gives it one
WITHOUT = {
    "sheli.cli._util",  # cli-hardening
    "sheli.outputs",  # typed-run
}


def _modules() -> list[str]:
    out = []
    for path in sorted((SRC / "sheli").rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__main__":
            continue  # importing it runs the CLI
        if parts[-1] == "__init__":
            parts.pop()
        out.append(".".join(parts))
    return out


@pytest.mark.parametrize("name", sorted(set(_modules()) - WITHOUT))
def test_module_has_an_example(name: str) -> None:
    module = importlib.import_module(name)
    examples = sum(len(t.examples) for t in doctest.DocTestFinder().find(module))
    assert examples > 0, f"{name} has no example in its docstrings"

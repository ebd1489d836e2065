"""The examples in the docstrings of the engine, rite, outputs and run/coverage modules run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "sheli.engine",
    "sheli.engine.state",
    "sheli.engine.verbs",
    "sheli.engine.interpreter",
    "sheli.engine.check",
    "sheli.engine.coverage",
    "sheli.rite",
    "sheli.rite.schema",
    "sheli.rite.loader",
    "sheli.outputs.yizhu",
    "sheli.outputs.eventlog",
    "sheli.cli.run",
    "sheli.cli.coverage",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0

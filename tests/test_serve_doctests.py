"""The examples in the docstrings of the live app's modules run and hold."""

from __future__ import annotations

import doctest
import importlib
import warnings

import pytest

MODULES = [
    "sheli.serve",
    "sheli.serve.app",
    "sheli.serve.checks",
    "sheli.serve.errors",
    "sheli.serve.headers",
    "sheli.serve.limits",
    "sheli.serve.server",
    "sheli.serve.views",
    "sheli.serve.views.create",
    "sheli.serve.views.downloads",
    "sheli.serve.views.inputs",
    "sheli.serve.views.links",
    "sheli.serve.views.live",
    "sheli.serve.views.pages",
    "sheli.serve.auth",
    "sheli.serve.events",
    "sheli.serve.export",
    "sheli.serve.live",
    "sheli.serve.store",
    "sheli.outputs.runofshow",
    "sheli.cli.serve",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    with warnings.catch_warnings():  # starlette's TestClient suggests httpx2
        warnings.simplefilter("ignore")
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0

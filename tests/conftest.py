"""Shared fixtures. Tests that proof-read against ../shared/corpus skip where it is absent.

What is costly to make (a render, a run and its frames) is made once per session and shared
by the modules that only read it; under pytest-xdist (``make test``: ``-n auto --dist
loadgroup``) each worker has its own session, and the tests that share a browser are sent to
one worker (``xdist_group``). Tests of several seconds carry the ``slow`` marker:
``pytest -m "not slow"`` is the quick loop (README).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sheli.cli import cli
from sheli.engine import run
from sheli.outputs.frames import build_frames

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

# pytest collects the examples of every module (--doctest-modules, pyproject): those of src/sheli.
# The helpers here are no test modules and hold none (and two conftests of one name collide).
collect_ignore = [
    "conftest.py",
    "browser/conftest.py",
    "fixtures",
    "golden/logs.py",
    "golden/outputs.py",
]


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    path = SHARED / "corpus"
    if not path.is_dir():
        pytest.skip("../shared/corpus is not beside this checkout")
    return path


@pytest.fixture(scope="session")
def seeds_dir() -> Path:
    path = SHARED / "seeds"
    if not path.is_dir():
        pytest.skip("../shared/seeds is not beside this checkout")
    return path


#: Docstring examples that draw whole runs (a doctest carries no marker of its own).
SLOW_DOCTESTS = {
    "sheli.outputs.render.render",
    "sheli.outputs.render.iter_svgs",
    "sheli.outputs.pdf",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser tests (tests/browser) share one chromium and one render per session: they
    go to one xdist worker together, and are slow (a browser's start, pages loaded). The
    doctests of SLOW_DOCTESTS are slow too."""
    browser_dir = Path(__file__).parent / "browser"
    for item in items:
        if browser_dir in item.path.parents:
            item.add_marker(pytest.mark.xdist_group("browser"))
            item.add_marker(pytest.mark.slow)
        elif isinstance(item, pytest.DoctestItem) and item.name in SLOW_DOCTESTS:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def xiangshe_render(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``sheli render xiangshe --svg -o DIR`` as a user runs it (with the per-step SVG files),
    once per session, for tests/test_render.py and the browser tests, which only read it: the
    directory."""
    d = tmp_path_factory.mktemp("render") / "out"
    res = CliRunner().invoke(cli, ["render", "xiangshe", "--svg", "-o", str(d)])
    assert res.exit_code == 0, res.output
    assert "wrote" in res.output and "index.html" in res.output
    return d


@pytest.fixture(scope="session")
def xiangshe_seed1_frames() -> tuple[Any, list[Any]]:
    """The default 鄉射禮 of seed 1: its scene and its frames, once per session, for the
    diagram and label tests, which only read them."""
    r = run("xiangshe", seed=1)
    return r.scene, build_frames(r)

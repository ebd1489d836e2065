"""Shared fixtures. Tests that proof-read against ../shared/corpus skip where it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

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

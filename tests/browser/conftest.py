"""Browser fixtures: Debian's chromium driven by Playwright, and one render of 鄉射禮.

The browser is the system's (``/usr/bin/chromium``, apt package ``chromium``); Playwright's
own download is never used. Without it the tests skip, unless ``CI`` is set: in CI they must
run, so a missing browser is an error there. Screenshots go to ``test-artifacts/`` at the
root of the checkout (ignored by git), under fixed names.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail("CI is set but /usr/bin/chromium is missing (apt-get install chromium)")
        pytest.skip("no /usr/bin/chromium (apt-get install chromium fonts-noto-cjk; make test)")
    if os.environ.get("CI"):
        import playwright.sync_api as sync_api
    else:
        sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def rendered(xiangshe_render: Path) -> Path:
    """``sheli render xiangshe --svg -o DIR`` as a user runs it (tests/conftest.py: the same
    render as tests/test_render.py's, made once); the directory."""
    return xiangshe_render


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS

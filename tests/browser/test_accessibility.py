"""The axe-core accessibility engine (``axe-playwright-python``, which bundles it) finds no
serious or critical violation on the viewer (``sheli render``'s output) nor on any page of the
live app: the home page, the director's, the two scorers', a performer's, the audience screen,
the printable pack and the results sheet. Debian's chromium, as the other browser tests.

Each page is checked as a user first meets it and once more in the state where it shows the
most (the audience and the performer in English, the viewer at a step with its notes open).
A violation is reported with its rule, its impact and the first elements it names, so that a
failure says what to fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_serve_event import (
    CONFIG,
    Pages,
    _goto,
    _index,
    _submit,
    fill_short_event,
    pages,
    serve,
    server,
)

from sheli.serve.live import LiveOutcomes, engine_run

__all__ = ["pages", "serve", "server"]  # the fixtures of test_serve_event.py, used here

axe_playwright = pytest.importorskip("axe_playwright_python.sync_playwright")

GRAVE = {"serious", "critical"}


def _grave(page: Any, where: str) -> list[str]:
    """The serious and critical violations axe finds on the page, one line each."""
    results = axe_playwright.Axe().run(page)
    out = []
    for v in results.response["violations"]:
        if v.get("impact") in GRAVE:
            nodes = [" ".join(n.get("target", [])) for n in v.get("nodes", [])[:3]]
            summary = v["nodes"][0].get("failureSummary", "").replace("\n", " ")[:200]
            out.append(f"{where}: {v['id']} ({v['impact']}, {len(v['nodes'])}×) {nodes} {summary}")
    return out


def test_no_grave_violation_on_the_live_pages(pages: Pages) -> None:
    home = pages.open("/", 1100, 900)
    found = _grave(home, "home")
    fill_short_event(home)
    links = _submit(home)
    found += _grave(home, "home, the event made (its links and QR codes)")
    screens = {
        "director": (links["director"], 1280, 860),
        "scorer 上射": (links["scorer:上射"], 390, 844),
        "scorer 下射": (links["scorer:下射"], 820, 1180),
        "performer 釋獲者": (links["performer:釋獲者"], 390, 844),
        "audience": (links["audience"], 1920, 1080),
    }
    opened = {}
    for name, (url, w, h) in screens.items():
        opened[name] = pages.open(url, w, h)
        found += _grave(opened[name], name)
    # into the rite: the second round's shooting, the performer's cues before it past (they
    # are drawn fainter), the scorers' arrows to enter
    before, _ = engine_run(CONFIG, LiveOutcomes({}))
    _goto(opened["director"], _index(before.records, round=2, verb="射"))
    seq = opened["director"].get_attribute("body", "data-seq")
    opened["audience"].wait_for_selector(f"body[data-seq='{seq}']")
    for seat in ("上射", "下射"):
        opened[f"scorer {seat}"].wait_for_selector("body[data-round='2']")
    opened["performer 釋獲者"].wait_for_selector("#cues li.past")
    for name, pg in opened.items():
        found += _grave(pg, f"{name}, in the second round")
    for name in ("audience", "performer 釋獲者"):
        pg = opened[name]
        if pg.locator("#lang").count():
            pg.click("#lang")
            pg.wait_for_selector("body[data-lang='en']")
            found += _grave(pg, f"{name} in English")
    for sheet in ("pack", "results"):
        ctx = pages.browser.new_context(viewport={"width": 1100, "height": 900})
        pages.contexts.append(ctx)
        # patience, not timing: the pack's cue book takes seconds on a loaded machine
        ctx.set_default_timeout(120_000)
        ctx.set_default_navigation_timeout(120_000)
        pg = ctx.new_page()
        pg.goto(f"{links['director']}/{sheet}")
        found += _grave(pg, sheet)
    assert not found, "\n".join(found)


def test_no_grave_violation_in_the_viewer(browser: Any, rendered: Path) -> None:
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    ctx.set_default_timeout(60_000)
    ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file://") else r.abort())
    pg = ctx.new_page()
    try:
        pg.goto((rendered / "index.html").as_uri())
        pg.wait_for_selector("body[data-ready='1']")
        found = _grave(pg, "viewer, first step")
        # 上耦揖進 (xiangshe:139), in English, as a reader shares it
        pg.evaluate("() => { location.hash = '#xiangshe:139'; }")
        pg.wait_for_function("document.body.dataset.drawn === document.body.dataset.seq")
        found += _grave(pg, "viewer, xiangshe:139")
        if pg.locator("#lang").count():
            pg.click("#lang")
            found += _grave(pg, "viewer in English")
    finally:
        ctx.close()
    assert not found, "\n".join(found)

"""The viewer of two readings in a real browser: `sheli render xiangshe --reading
R-zhi-zuojie --diff` (敖繼公's place of the 司正's 觶, xiangshe:106, against 鄭注's), opened
offline; the first differing step is reached with the viewer's own control, and both
readings' bodies are drawn there: the 司馬 (as 司正) where this reading puts him, and his
ghost where the default puts him. Screenshot: ``test-artifacts/viewer-diff-zhi.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sheli.engine import run
from sheli.outputs.diff import diff_runs


@pytest.fixture(scope="module")
def rendered_diff(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from click.testing import CliRunner

    from sheli.cli import cli

    d = tmp_path_factory.mktemp("viewer-diff") / "out"
    args = ["render", "xiangshe", "--reading", "R-zhi-zuojie", "--diff", "--no-svg", "-o", str(d)]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    return d


def test_diff_viewer_jumps_to_first_difference_and_draws_both(
    browser: Any, rendered_diff: Path, artifacts: Path
) -> None:
    a, b = run("xiangshe"), run("xiangshe", readings=["R-zhi-zuojie"])
    first = next(d for d in diff_runs(a, b).items if d.b is not None)
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    outside: list[str] = []
    ctx.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith("file://")
            else (outside.append(route.request.url), route.abort())
        ),
    )
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto((rendered_diff / "index.html").as_uri())
    pg.wait_for_selector("body[data-ready='1']")
    assert pg.is_visible("#diffnav") and pg.is_visible("#reading")
    # both readings named, each with its sources
    text = pg.inner_text("#readings")
    assert "R-zhi-zuojie" in text and "R-zhi-zhongting" in text and "敖繼公" in text

    pg.click("#nextdiff")
    pg.wait_for_selector(f"body[data-drawn='{first.b['seq']}']")
    assert pg.get_attribute("body", "data-seq") == str(first.b["seq"])
    assert first.cite in pg.inner_text("#stepdiffs")
    ghosts = pg.evaluate(
        """() => [...document.querySelectorAll('#stage g.ghost')].map((g) => {
             const me = document.querySelector(
               `#stage g.person[data-actor="${g.dataset.actor}"]`);
             return { actor: g.dataset.actor, x: +g.dataset.x, y: +g.dataset.y,
                      cx: +g.dataset.cx, cy: +g.dataset.cy,
                      mx: me && +me.dataset.x, my: me && +me.dataset.y,
                      mcx: me && +me.dataset.cx, mcy: me && +me.dataset.cy };
           })"""
    )
    actor = first.b["actor"]
    mine = [g for g in ghosts if g["actor"] == actor]
    assert len(mine) == 1, ghosts
    g = mine[0]
    # the ghost stands where run A has him, the body where run B has him: two places
    assert (g["x"], g["y"]) == pytest.approx((first.a["x"], first.a["y"]), abs=0.01)
    assert (g["mx"], g["my"]) == pytest.approx((first.b["x"], first.b["y"]), abs=0.01)
    assert abs(g["cx"] - g["mcx"]) + abs(g["cy"] - g["mcy"]) > 5
    pg.screenshot(path=str(artifacts / "viewer-diff-zhi.png"))

    # and back: the previous differing step from the next one is this one again
    pg.click("#nextdiff")
    pg.click("#prevdiff")
    pg.wait_for_selector(f"body[data-drawn='{first.b['seq']}']")
    assert errors == [] and outside == []
    ctx.close()

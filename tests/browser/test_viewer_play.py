"""The viewer plays the rite as it happens (docs/viewer.md, "Playing the rite"): with its clock
set to an instant where two people walk at once, found in the event log of the run, both are
drawn on their paths, and both have moved a little later. For 鄉射禮 (the crossing of the
司射 and the 司馬 at the 階前, xiangshe:146, while playing), 大射儀 and 燕禮.

Screenshots in ``test-artifacts/``: ``viewer-play-xiangshe-146.png`` (the crossing, playing),
``viewer-play-dashe.png``, ``viewer-play-yanli.png``.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from glyphs import undrawn
from loglines import step_lines

from sheli.cli import cli
from sheli.engine import run

pytestmark = pytest.mark.slow

#: how close (尺) a figure drawn must stand to where the log's path has him: the viewer keeps
#: tenths of a second and of a 尺, and a walker goes some 4 尺 a second
NEAR = 0.6


@pytest.fixture(scope="module")
def renders(rendered: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The default 鄉射禮's render (shared with the other browser tests), and 大射儀's and
    燕禮's, each with its default cast (no 衆耦)."""
    out = {"xiangshe": rendered}
    for rite in ("dashe", "yanli"):
        d = tmp_path_factory.mktemp(rite) / "out"
        res = CliRunner().invoke(cli, ["render", rite, "--pairs", "0", "-o", str(d)])
        assert res.exit_code == 0, res.output
        out[rite] = d
    return out


@pytest.fixture(scope="module")
def logs() -> dict[str, list[dict[str, Any]]]:
    return {rite: step_lines(run(rite, pairs=0)) for rite in ("xiangshe", "dashe", "yanli")}


def _open(browser: Any, d: Path) -> Iterator[Any]:
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto((d / "index.html").as_uri())
    pg.wait_for_selector("body[data-ready='1']")
    yield pg
    ctx.close()
    assert not errors, errors


def _where(path: list[list[float]], t: float) -> tuple[float, float]:
    """Where a walker is at ``t`` along a path of the log (an even pace between points)."""
    for (x0, y0, t0), (x1, y1, t1) in pairwise(path):
        if t <= t1:
            u = (t - t0) / (t1 - t0) if t1 > t0 else 1.0
            return x0 + (x1 - x0) * u, y0 + (y1 - y0) * u
    return path[-1][0], path[-1][1]


def _crossing(
    steps: list[dict[str, Any]], cite: str | None = None
) -> tuple[Any, Any, float, float]:
    """Two walks of two people that go on together for 3 s or more (of the passage ``cite``
    for the first, if given), and the times when the overlap is a quarter and three quarters
    gone."""
    walks = [s for s in steps if "path" in s]
    for k, a in enumerate(walks):
        if cite and a["cite"] != cite:
            continue
        for b in walks[max(0, k - 40) : k] + walks[k + 1 : k + 40]:
            if b["actor"] == a["actor"]:
                continue
            lo = max(a["path"][0][2], b["path"][0][2])
            hi = min(a["path"][-1][2], b["path"][-1][2])
            if hi - lo >= 3:
                return a, b, lo + (hi - lo) / 4, lo + 3 * (hi - lo) / 4
    raise AssertionError(f"no two walk at once ({cite})")


def _movers(pg: Any) -> tuple[float, dict[str, tuple[float, float]]]:
    """The clock, and the walkers drawn at it: actor → where (尺), as the viewer places them
    (read at once: playing does not move them between the two)."""
    clock, got = pg.evaluate(
        "[sheli.clock, [...document.querySelectorAll('#stage svg g.movers g.person.walking')]"
        ".map(g => [g.dataset.actor, g.dataset.at])]"
    )
    return clock, {a: tuple(float(v) for v in at.split()) for a, at in got}


def _set_clock(pg: Any, t: float) -> None:
    pg.evaluate("t => sheli.setClock(t)", t)
    pg.wait_for_function("document.body.dataset.drawn === document.body.dataset.seq")


def _check_both_moved(
    before: dict[str, tuple[float, float]],
    after: dict[str, tuple[float, float]],
    a: dict[str, Any],
    b: dict[str, Any],
    t1: float,
    t2: float,
) -> None:
    for st in (a, b):
        who = st["actor"]
        assert who in before and who in after, (who, before, after)
        for at, t in ((before[who], t1), (after[who], t2)):
            x, y = _where(st["path"], t)
            assert abs(at[0] - x) <= NEAR and abs(at[1] - y) <= NEAR, (who, t, at, (x, y))
        moved = abs(after[who][0] - before[who][0]) + abs(after[who][1] - before[who][1])
        assert moved > 0.5, (who, before[who], after[who])


@pytest.mark.parametrize("rite", ["xiangshe", "dashe", "yanli"])
def test_two_walk_at_once(
    browser: Any,
    renders: dict[str, Path],
    logs: dict[str, list[dict[str, Any]]],
    artifacts: Path,
    rite: str,
) -> None:
    a, b, t1, t2 = _crossing(logs[rite])
    for pg in _open(browser, renders[rite]):
        _set_clock(pg, t1)
        _, before = _movers(pg)
        _set_clock(pg, t2)
        _, after = _movers(pg)
        _check_both_moved(before, after, a, b, t1, t2)
        # the acts under way are listed, both walks among them
        shown = pg.inner_text("#running")
        for st in (a, b):
            assert st["actor"] in shown, shown
        pg.screenshot(path=str(artifacts / f"viewer-play-{rite}.png"))


def test_playing_the_crossing_at_xiangshe_146(
    browser: Any,
    renders: dict[str, Path],
    logs: dict[str, list[dict[str, Any]]],
    artifacts: Path,
) -> None:
    # 司射進與司馬交于階前相左: played at 1×, the 司射 and the 司馬 both walk
    a, b, t1, t2 = _crossing(logs["xiangshe"], "xiangshe:146")
    assert {a["actor"], b["actor"]} == {"司射", "司馬"}
    for pg in _open(browser, renders["xiangshe"]):
        _set_clock(pg, t1 - 0.5)
        pg.keyboard.press(" ")
        assert pg.get_attribute("#play", "aria-label") == "pause"
        # the pause sign is one the page's fonts draw (⏸ is a box without an emoji font)
        assert undrawn(pg, "#play, header button") == []
        pg.wait_for_function(f"sheli.clock >= {t1}")
        first, before = _movers(pg)
        # a frame moves the clock at most a quarter second: the second look is still in the
        # overlap, which goes on for twice as long as the wait
        pg.wait_for_function(f"sheli.clock >= {first + 1}")
        second, after = _movers(pg)
        pg.screenshot(path=str(artifacts / "viewer-play-xiangshe-146.png"))
        pg.keyboard.press(" ")
        assert pg.get_attribute("#play", "aria-label") == "play"
        assert t1 <= first < second <= t2 + 0.5, (first, second, t1, t2)
        _check_both_moved(before, after, a, b, first, second)


def test_speeds_and_stepping_move_the_clock(
    browser: Any, renders: dict[str, Path], logs: dict[str, list[dict[str, Any]]]
) -> None:
    steps = logs["xiangshe"]
    for pg in _open(browser, renders["xiangshe"]):
        # a second of the reader's time is 1, 4 or 16 seconds of the rite's
        _set_clock(pg, 100.0)
        for speed in ("4", "16", "1"):
            pg.select_option("#speed", speed)
            before = pg.evaluate("sheli.clock")
            pg.evaluate("sheli.advance(1000)")
            assert pg.evaluate("sheli.clock") == pytest.approx(before + int(speed))
        # the clock reads as the rite's time, in hours, minutes and seconds
        _set_clock(pg, 7512.0)
        assert pg.inner_text("#clock") == "2:05:12"
        _set_clock(pg, 75.0)
        assert pg.inner_text("#clock") == "1:15"
        # a step stepped to puts the clock at its start
        for key in ("ArrowRight", "ArrowRight", "ArrowLeft"):
            pg.keyboard.press(key)
            seq = int(pg.get_attribute("body", "data-seq"))
            st = next(s for s in steps if s["seq"] == seq)
            assert abs(pg.evaluate("sheli.clock") - st["t"]) <= 0.051, (key, seq)
        # played and paused, the step shown is the latest begun by the clock
        pg.select_option("#speed", "16")
        pg.keyboard.press(" ")
        start = pg.evaluate("sheli.clock")
        pg.wait_for_function(f"sheli.clock > {start + 40}")
        pg.keyboard.press(" ")
        clock = pg.evaluate("sheli.clock")
        seq = int(pg.get_attribute("body", "data-seq"))
        shown = next(s for s in steps if s["seq"] == seq)
        assert shown["t"] <= clock + 0.05
        later = [s["seq"] for s in steps if shown["t"] + 0.05 < s["t"] <= clock - 0.05]
        assert not later, (seq, clock, later)
        # and the clock stays where it was paused
        pg.wait_for_timeout(300)
        assert pg.evaluate("sheli.clock") == clock

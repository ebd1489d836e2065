"""The audience screen frames the bodies that act (serve/static/frame.js): the hall when they
are in the hall, the range when an arrow flies, instead of the whole court in a column.

``sheli serve`` and the event are those of test_serve_event.py (the 三耦 only, the archery
alone). Screenshots (``test-artifacts/``): ``serve-audience-hall.png`` (the 三耦's 竝行 to the
西階, xiangshe:139) and ``serve-audience-range.png`` (the 司射's 誘射, an arrow in flight).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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

from sheli.engine.records import Step
from sheli.serve.live import LiveOutcomes, engine_run

__all__ = ["pages", "serve", "server"]  # the fixtures of test_serve_event.py, used here


def _shown_svg(audience: Any, seq: int) -> dict[str, Any]:
    audience.wait_for_selector(f"#diagram img[data-seq='{seq}']")
    audience.wait_for_function("() => document.querySelector('#diagram img').naturalWidth > 0")
    return json.loads(audience.get_attribute("#diagram", "data-frame") or "{}")


def _inside(box: list[float], pts: list[list[float]]) -> bool:
    x, y, w, h = box
    return all(x <= px <= x + w and y <= py <= y + h for px, py in pts)


def test_the_audience_frames_the_bodies_that_act(pages: Pages, artifacts: Path) -> None:
    home = pages.open("/", 1100, 900)
    fill_short_event(home)
    links = _submit(home)
    director = pages.open(links["director"], 1280, 860)
    audience = pages.open(links["audience"], 1600, 900)
    steps, _ = engine_run(CONFIG, LiveOutcomes({}))

    # 上耦揖進上射在左竝行當階北面揖 (xiangshe:139): framed on the hall, the pair in it
    i = _index(steps.records, cite="xiangshe:139", actor="上耦下射", verb="進")
    _goto(director, i)
    got = _shown_svg(audience, [r for r in steps.records if isinstance(r, Step)][i].seq)
    box = got["box"]
    assert got["view"] == "hall" and box is not None
    assert got["points"] and _inside(box, got["points"])
    # a part of the plan, not all of it
    assert box[2] * box[3] < 0.6 * got["plan"][2] * got["plan"][3]
    audience.screenshot(path=str(artifacts / "serve-audience-hall.png"))

    # 誘射 (xiangshe:131): the 司射 looses; the range, his arrow's flight to the 侯
    i = _index(steps.records, actor="司射", verb="射")
    _goto(director, i)
    got = _shown_svg(audience, [r for r in steps.records if isinstance(r, Step)][i].seq)
    box = got["box"]
    assert got["view"] == "range" and box is not None
    assert got["points"] and _inside(box, got["points"])
    assert box[3] > 0.7 * got["plan"][3]  # the 侯道 from the 物 to the 侯
    audience.screenshot(path=str(artifacts / "serve-audience-range.png"))

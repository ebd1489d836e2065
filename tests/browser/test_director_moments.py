"""The director's moments in a real browser (docs/serve.md, "Moments, jumps, the counter").

The event is test_serve_event.py's (the 三耦 only, the archery alone). The director's counter
shows step 1 at the start, as the viewer counts; "next moment" moves the director to the first
step of the next moment, and the audience screen plays the acts between, one after another,
before it shows that step. A passage id jumps to its first step; a bad one is said plainly.
"""

from __future__ import annotations

from typing import Any

import pytest
from glyphs import undrawn
from test_serve_event import CONFIG, Pages, _index, _submit, fill_short_event, pages, serve, server

from sheli.engine.records import Step
from sheli.serve.live import LiveOutcomes, engine_run

__all__ = ["pages", "serve", "server"]  # the fixtures of test_serve_event.py, used here

pytestmark = pytest.mark.slow

# every step the audience screen shows, in order (its body's data-seq, set as it draws one)
WATCH_SEQ = """() => {
  window.seqsShown = [];
  new MutationObserver(() => {
    const s = document.body.dataset.seq;
    if (s && window.seqsShown[window.seqsShown.length - 1] !== s) window.seqsShown.push(s);
  }).observe(document.body, { attributes: true, attributeFilter: ["data-seq"] });
}"""


def _steps() -> list[Any]:
    run, _ = engine_run(CONFIG, LiveOutcomes({}))
    return [r for r in run.records if isinstance(r, Step)]


def test_the_counter_and_the_moment_button(pages: Pages) -> None:
    home = pages.open("/", 1100, 900)
    fill_short_event(home)
    links = _submit(home)
    director = pages.open(links["director"], 1280, 860)
    audience = pages.open(links["audience"], 1600, 900)
    steps = _steps()
    moments = steps[-1].moment

    # the counter counts from 1, as the viewer does; the moment beside it
    director.wait_for_selector("body[data-index='0']")
    assert director.text_content("#pos").startswith(f"步 1 / {len(steps)}")
    assert director.text_content("#moment-pos") == f"1 / {moments}"
    assert director.input_value("#goto") == "1"
    # the moment buttons' signs are drawn by the fonts the machine has (no box for a glyph
    # missing), as every button of the director's
    assert undrawn(director, "#prev-moment, #next-moment, button") == []

    # next moment: the director is on the next moment's first step, and the audience plays
    # the acts between (in order, at the timeline's pace) before showing it
    audience.wait_for_selector(f"body[data-seq='{steps[0].seq}']")
    audience.evaluate(WATCH_SEQ)
    nxt = next(i for i, s in enumerate(steps) if s.moment == 2)
    director.click("#next-moment")
    director.wait_for_selector(f"body[data-index='{nxt}']")
    assert director.text_content("#pos").startswith(f"步 {nxt + 1} / ")
    assert director.text_content("#moment-pos") == f"2 / {moments}"
    audience.wait_for_selector("body[data-playing='1']")
    audience.wait_for_selector(f"body[data-seq='{steps[nxt].seq}'][data-playing='']")
    shown = [int(s) for s in audience.evaluate("window.seqsShown")]
    between = [s.seq for s in steps[1:nxt]]
    assert shown[-1] == steps[nxt].seq
    assert len(shown) > 2 and shown[:-1] == sorted(shown[:-1]) and set(shown[:-1]) <= set(between)

    # a jump to a passage: its first step; then a bad one, said plainly, moving nothing
    director.select_option("#jump-kind", "cite")
    director.fill("#goto", "xiangshe:139")
    director.click("#goto-btn")
    i = _index([*steps], cite="xiangshe:139")
    director.wait_for_selector(f"body[data-index='{i}']")
    director.fill("#goto", "xiangshe:9999")
    director.click("#goto-btn")
    director.wait_for_selector("#msg:has-text('no step of this rite enacts xiangshe:9999')")
    assert director.get_attribute("body", "data-index") == str(i)

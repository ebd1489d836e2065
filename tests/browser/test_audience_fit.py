"""The audience screen on a projector (serve/templates/audience.html, live.css, frame.js): at
1920×1080 and at 1280×720 the page fits the screen without scrolling, the key facts are large
enough to read from the back of a hall, and the diagram fills its frame.

The key facts are the step (who does what), the 經 passage, the 右/左 counts, the
announcement and who drinks: each is drawn at least 40 px high at 1080 lines, and in
proportion at 720 (26.7 px), inside the screen. The diagram's drawn content (what is not the
paper) is read from its pixels: its bounding box spans at least 80 % of the frame across or
down, so neither a band left empty by the framing nor one left by the picture's shape
remains. At a shot there are two pictures, each measured so: the 侯道 with the arrow's
flight, and beside it the archer at his 物, near.

The event is test_serve_event.py's (the 三耦 only, the archery alone); the arrows of the
second round are entered through the scorers' own API (7 hits right, 3 left), and the
director goes to a shot of that round, to the 釋獲者's announcement and to the losers'
drink. Screenshots (``test-artifacts/``): ``audience-1920x1080-shot.png``,
``audience-1920x1080-announce.png``, ``audience-1280x720-shot.png``,
``audience-1280x720-announce.png``, the two ``-announce-en.png`` (in English), the two
``-drink.png`` and the two ``-drink-en.png``.

On each screen every card of the side column is whole (none cut at the screen's foot), the
history's box shows only with an entry in it, and the step's words in the passage are in
sight, however few lines the passage's box holds (in English the announcement is longer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_serve_event import (
    CONFIG,
    HITS,
    PAIRS,
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
from sheli.outputs.english import cjk_outside_brackets, label
from sheli.scoring import announce
from sheli.serve.live import LiveOutcomes, engine_run

__all__ = ["pages", "serve", "server"]  # the fixtures of test_serve_event.py, used here

SCREENS = ((1920, 1080), (1280, 720))
# the key facts: (what, the selector of the element that says it)
KEY = {
    "step": "#step .who",
    "passage": "#jing",
    "right": "#right-count",
    "left": "#left-count",
}

# The page's measure of itself: its scrolling size against the window, and each key element's
# font size and box (the text's own, for an element that wraps: its client rects).
MEASURE = """(sels) => {
  const de = document.documentElement;
  const out = {scrollH: de.scrollHeight, scrollW: de.scrollWidth, h: innerHeight, w: innerWidth,
               els: {}};
  for (const [k, sel] of Object.entries(sels)) {
    const e = document.querySelector(sel);
    if (!e || e.closest('[hidden]') || !e.getClientRects().length) { out.els[k] = null; continue; }
    const r = e.getBoundingClientRect();
    // the smallest text inside it (a name in brackets, a run of the passage)
    let least = parseFloat(getComputedStyle(e).fontSize);
    for (const c of e.querySelectorAll('*')) {
      if (c.textContent.trim() && c.getClientRects().length)
        least = Math.min(least, parseFloat(getComputedStyle(c).fontSize));
    }
    out.els[k] = {font: least, top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                  text: e.textContent.trim()};
  }
  return out;
}"""

# The diagram's drawn content in its frame: the figure drawn on a canvas at its size (the
# picture as the page places it, object-fit and all), the box of the pixels that are not the
# paper, as fractions of the frame.
CONTENT = """async (sel) => {
  const fig = document.querySelector(sel);
  const img = fig.querySelector('img');
  await img.decode();
  const W = fig.clientWidth, H = fig.clientHeight;
  const c = document.createElement('canvas');
  c.width = W; c.height = H;
  const g = c.getContext('2d');
  g.fillStyle = '#fff'; g.fillRect(0, 0, W, H);
  const f = fig.getBoundingClientRect(), r = img.getBoundingClientRect();
  // object-fit: contain, as drawn
  const s = Math.min(r.width / img.naturalWidth, r.height / img.naturalHeight);
  const dw = img.naturalWidth * s, dh = img.naturalHeight * s;
  g.drawImage(img, r.left - f.left - fig.clientLeft + (r.width - dw) / 2,
              r.top - f.top - fig.clientTop + (r.height - dh) / 2, dw, dh);
  const px = g.getImageData(0, 0, W, H).data;
  let x0 = W, y0 = H, x1 = -1, y1 = -1;
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) {
    const i = 4 * (y * W + x);
    // the paper (#fff, #fbfaf6 and the like) is not content; ink, fills and figures are
    if (Math.min(px[i], px[i + 1], px[i + 2]) < 225) {
      if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y;
    }
  }
  return {across: (x1 - x0 + 1) / W, down: (y1 - y0 + 1) / H, W, H};
}"""


# The side column's cards: each one shown whole on the screen (none cut at its foot), the
# history's box only with an entry in it, and the step's words (the passage's mark, its first
# line where it is broken) in sight in the passage's box, which shows as many lines as it
# holds.
SIDE = """() => {
  const cards = [...document.querySelectorAll('#side > *')].filter(
    (e) => !e.hidden && e.getClientRects().length);
  const jing = document.querySelector('#jing');
  const mark = jing.querySelector('mark');
  const box = jing.getBoundingClientRect();
  const m = mark && mark.getClientRects()[0];
  return {
    cut: cards.filter((e) => e.getBoundingClientRect().bottom > innerHeight + 0.5).map((e) => e.id),
    emptyHistory: !document.querySelector('#history-box').hidden &&
      ![...document.querySelectorAll('#history li')].some((li) => !li.hidden),
    markInSight: !m || (m.top >= box.top - 0.5 && m.bottom <= box.bottom + 0.5),
    // scrolled, the box is full to its foot (no empty line under the passage's end)
    filled: jing.scrollTop === 0 || jing.scrollHeight - jing.scrollTop >= jing.clientHeight - 1,
    mark: m ? [m.top, m.bottom] : null, box: [box.top, box.bottom],
  };
}"""


def _record_round_two(scorer: Any, seat: str) -> None:
    """The seat's twelve arrows of round 2 as its scorer's page sends them (its API)."""
    arrows = [
        {"round": 2, "pair": PAIRS[j // 4], "seat": seat, "arrow": j % 4 + 1, "hit": hit}
        for j, hit in enumerate(HITS[seat])
    ]
    scorer.evaluate(
        """async (arrows) => {
          const api = await import('/static/api.js');
          for (const a of arrows) await api.post('/api/arrows', {...a, on_beat: null});
        }""",
        arrows,
    )


def _framed(screen: Any, lang: str) -> None:
    """Wait for the diagram framed anew for ``lang`` (in English the figure is narrower, the
    side wider) and the side's lines fitted to it."""
    screen.wait_for_selector(f"#diagram[data-lang='{lang}'] img")
    screen.wait_for_function("() => document.querySelector('#diagram img').naturalWidth > 0")
    screen.evaluate("() => new Promise((done) => requestAnimationFrame(() => setTimeout(done)))")


def _check(screen: Any, size: tuple[int, int], want: dict[str, str]) -> dict[str, Any]:
    got = screen.evaluate(MEASURE, want)
    w, h = size
    least = 40 * h / 1080  # 40 px at 1080 lines, in proportion below
    assert got["scrollH"] <= h and got["scrollW"] <= w, (size, got)
    for what, m in got["els"].items():
        assert m is not None, (size, what, "not shown")
        assert m["font"] >= least - 0.05, (size, what, m)
        # inside the screen, whole
        assert m["top"] >= 0 and m["bottom"] <= h + 0.5, (size, what, m)
        assert m["left"] >= 0 and m["right"] <= w + 0.5, (size, what, m)
    side = screen.evaluate(SIDE)
    assert side["cut"] == [] and not side["emptyHistory"], (size, side)
    assert side["markInSight"] and side["filled"], (size, side)
    for fig in ("#diagram", "#near"):
        if screen.is_visible(fig):
            fill = screen.evaluate(CONTENT, fig)
            assert max(fill["across"], fill["down"]) >= 0.8, (size, fig, fill)
    return got


def test_the_audience_screen_fits_a_projector(pages: Pages, artifacts: Path) -> None:
    home = pages.open("/", 1100, 900)
    fill_short_event(home)
    links = _submit(home)
    director = pages.open(links["director"], 1280, 860)
    screens = {size: pages.open(links["audience"], *size) for size in SCREENS}

    # the second round, its arrows entered by the two scorers
    before, _ = engine_run(CONFIG, LiveOutcomes({}))
    _goto(director, _index(before.records, round=2))
    for seat in ("上射", "下射"):
        _record_round_two(pages.open(links[f"scorer:{seat}"], 390, 844, is_mobile=True), seat)
    recorded = {
        (2, PAIRS[j // 4], seat, j % 4 + 1): (hit, None)
        for seat, hits in HITS.items()
        for j, hit in enumerate(hits)
    }
    after, _ = engine_run(CONFIG, LiveOutcomes(recorded))
    steps = [r for r in after.records if isinstance(r, Step)]
    tally = next(t for t in after.tallies if t.round == 2)
    assert (tally.right, tally.left) == (7, 3)

    def show(index: int) -> None:
        _goto(director, index)
        for screen in screens.values():
            screen.wait_for_selector(f"body[data-seq='{steps[index].seq}']")
            screen.wait_for_selector(f"#diagram img[data-seq='{steps[index].seq}']")
            screen.wait_for_function(
                "() => document.querySelector('#diagram img').naturalWidth > 0"
            )

    # a shot: 下耦下射 looses his last arrow (xiangshe:147), seven 筭 and four on the tally
    shot = max(
        i for i, s in enumerate(steps) if s.round == 2 and s.verb == "射" and s.actor == "下耦下射"
    )
    show(shot)
    for size, screen in screens.items():
        # the 侯道 and, beside it, the archer at his 物 near, the frame of the range cut to
        # its shape
        screen.wait_for_selector("#near img")
        screen.wait_for_function("() => document.querySelector('#near img').naturalWidth > 0")
        _check(screen, size, KEY)
        screen.screenshot(path=str(artifacts / f"audience-{size[0]}x{size[1]}-shot.png"))

    # the announcement: 釋獲者 … 告 (xiangshe:203)
    told = next(
        i
        for i, s in enumerate(steps)
        if s.seq > tally.seq and s.cite == "xiangshe:203" and s.actor == "釋獲者"
    )
    show(told)
    for size, screen in screens.items():
        assert screen.is_hidden("#near")  # in the hall: one picture
        got = _check(screen, size, {**KEY, "announcement": "#announce-text"})
        assert got["els"]["announcement"]["text"] == announce(7, 3) == "右賢於左二純"
        # the 釋獲者 at the top of the 西階, the hall round him: the framing is moved toward
        # what is drawn, so no band of bare court is left under the hall (frame.js)
        fill = screen.evaluate(CONTENT, "#diagram")
        assert min(fill["across"], fill["down"]) >= 0.8, (size, fill)
        screen.screenshot(path=str(artifacts / f"audience-{size[0]}x{size[1]}-announce.png"))
    # in English (the switch): the step's sentence and the announcement, longer, fit as well
    # (the announcement said once, in its box: the tally's line under it left out)
    english = {"step": "#sentence", "passage": "#jing", "announcement": "#announce-text"}
    for size, screen in screens.items():
        screen.keyboard.press("l")
        screen.wait_for_selector("body[data-lang='en']")
        _framed(screen, "en")
        got = _check(screen, size, english)
        assert got["els"]["announcement"]["text"].startswith("The right wins")
        assert screen.is_hidden("#tally-en")
        screen.screenshot(path=str(artifacts / f"audience-{size[0]}x{size[1]}-announce-en.png"))
        screen.keyboard.press("l")
        screen.wait_for_selector("body[data-lang='zh-Hant']")
        _framed(screen, "zh-Hant")

    # who drinks: the left lost, each pair's 下射 drinks (飲不勝者, xiangshe:205–220)
    losers = {who for r, who, _ in after.drinks if r == 2 and who.endswith("下射")}
    assert losers == {f"{p}下射" for p in PAIRS}
    drunk = max(i for i, s in enumerate(steps) if s.round == 2 and s.actor in losers)
    show(drunk)
    for size, screen in screens.items():
        got = _check(screen, size, {**KEY, "drinks": "#drinks .who"})
        assert all(who in got["els"]["drinks"]["text"] for who in losers), got["els"]["drinks"]
        screen.screenshot(path=str(artifacts / f"audience-{size[0]}x{size[1]}-drink.png"))
        # in English: who drinks by his English, the text's name in brackets; the screen's
        # own words (the connection's state too) in English
        screen.keyboard.press("l")
        screen.wait_for_selector("body[data-lang='en']")
        _framed(screen, "en")
        got = _check(screen, size, {**english, "drinks": "#drinks .who"})
        for who in losers:
            assert f"{label(who, 'roles')}" in got["els"]["drinks"]["text"], got["els"]["drinks"]
        for sel in ("#drinks", "#status", "#round-name", "#announce"):
            assert cjk_outside_brackets(screen.inner_text(sel)) == [], (size, sel)
        screen.screenshot(path=str(artifacts / f"audience-{size[0]}x{size[1]}-drink-en.png"))
        screen.keyboard.press("l")
        screen.wait_for_selector("body[data-lang='zh-Hant']")
        _framed(screen, "zh-Hant")

"""The live event app (``sheli serve``) in a real browser: a short 鄉射禮 from the home page to
the announcement of the second round.

``sheli serve`` runs in a subprocess on a free port with a temporary ``--db``, as a director
starts it. Debian's chromium (Playwright, no download) then:

1. creates an event on the home page: the 三耦 only (衆耦 0, 賓/主人/大夫 do not shoot), with a
   cast whose name contains markup (it must show as text, never as HTML);
2. opens the director, the two scorers (上射 on a phone, 下射 on a tablet) and the audience
   screen, each in its own browser context, with every request off the server refused (the
   pages work offline);
3. the director steps with the keys and the buttons, then goes to the second round;
4. the scorers record all twelve arrows of each 物 by tapping 中 / 不中, in the order of
   shooting, interleaved as the archers shoot (拾發); a third page holding the 上射 link with
   a stale view enters an arrow already recorded and gets the conflict, plainly; the 下射's
   scorer corrects an arrow, with a reason;
5. the director goes to the 釋獲者's announcement; the audience screen shows the 筭 right and
   left and the announcement in the text's words, which are compared with
   ``sheli.scoring.announce`` for the hits tapped and with the engine's own tally; the
   釋獲者's cue sheet (a performer's page) has that act highlighted and scrolled into view;
6. in the third round the director starts the drum; the 上射's scorer taps at a release and
   enters the hit, which takes the server's judgment of the tap (應鼓 or not).

The step indices the director jumps to come from the live app's own derivation
(``sheli.serve.live.engine_run`` with the arrows recorded so far), not from the pages.
Screenshots (``test-artifacts/``): ``serve-home.png``, ``serve-director.png``,
``serve-scorer-shangshe.png`` (phone), ``serve-scorer-xiashe.png`` (tablet),
``serve-scorer-conflict.png``, ``serve-audience.png``, ``serve-audience-english.png`` (the same
in English, after the switch), ``serve-performer.png`` (the 釋獲者's
cues on a phone), ``serve-scorer-round3.png``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sheli.engine.records import Step
from sheli.outputs.english import cjk_outside_brackets
from sheli.scoring import announce
from sheli.serve.live import LiveOutcomes, engine_run
from sheli.serve.process import free_port, wait_until_serving

PAIRS = ("上耦", "次耦", "下耦")
# the arrows tapped in round 2, in the order of shooting (上耦 1–4, 次耦 1–4, 下耦 1–4)
HITS = {
    "上射": [True, False, True, True, False, False, True, False, True, True, True, False],
    "下射": [False, True, False, False, True, False, False, False, False, True, False, False],
}
# what the home form is filled with: the live app derives the rite from the same settings
CONFIG = {
    "rite": "xiangshe",
    "venue": "xie",
    "pairs": 0,
    "guests_shoot": False,
    "dafu": 1,
    # the archery alone: the event is created with 飲酒之禮 unchecked
    "options": {"feast": False},
}
MARKUP_NAME = "<b>李</b>華&amp;"


class Serve:
    """``sheli serve`` in a subprocess on ``port`` and ``db``: started, killed, restarted."""

    def __init__(self, port: int, db: Path) -> None:
        self.port = port
        self.db = db
        self.base = f"http://127.0.0.1:{port}"
        self.log = db.with_name("serve.log")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("a") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "sheli",
                    "serve",
                    "--port",
                    str(self.port),
                    "--db",
                    str(self.db),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        try:
            wait_until_serving(self.proc, self.base + "/", 30)
        except RuntimeError as exc:
            pytest.fail(f"{exc}\n{self.log.read_text()}")

    def kill(self) -> None:
        """kill -9: no clean shutdown."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    """``sheli serve`` on a free port and a fresh database, for the whole module."""
    srv = Serve(free_port(), tmp_path_factory.mktemp("serve") / "event.sqlite3")
    try:
        srv.start()
        yield srv
    finally:
        srv.stop()


@pytest.fixture()
def server(serve: Serve) -> str:
    """The base URL of the module's server (started again if a test killed it)."""
    if serve.proc is None or serve.proc.poll() is not None:
        serve.start()
    return serve.base


class Pages:
    """Browser contexts on the server, each refusing any other address; errors collected."""

    def __init__(self, browser: Any, base: str) -> None:
        self.browser = browser
        self.base = base
        self.contexts: list[Any] = []
        self.errors: list[str] = []
        self.outside: list[str] = []

    def open(self, url: str, width: int, height: int, **ctx_args: Any) -> Any:
        ctx = self.browser.new_context(viewport={"width": width, "height": height}, **ctx_args)

        def guard(route: Any) -> None:
            if route.request.url.startswith(self.base):
                route.continue_()
            else:
                self.outside.append(route.request.url)
                route.abort()

        ctx.route("**/*", guard)
        # patience, not timing: on a loaded 2-core machine an engine re-run can take seconds
        ctx.set_default_timeout(60_000)
        self.contexts.append(ctx)
        pg = ctx.new_page()
        pg.on("pageerror", lambda e: self.errors.append(f"{url}: {e}"))
        pg.goto(url if url.startswith("http") else self.base + url)
        pg.wait_for_selector("body[data-ready='1']")
        return pg

    def close(self) -> None:
        for c in self.contexts:
            c.close()


@pytest.fixture()
def pages(browser: Any, server: str) -> Iterator[Pages]:
    p = Pages(browser, server)
    yield p
    p.close()
    assert not p.outside, f"a page asked another address: {p.outside}"
    assert not p.errors, p.errors


def _links(home: Any) -> dict[str, str]:
    out = {}
    for row in home.locator("#links .link").all():
        role = row.get_attribute("data-role")
        key = role + (":" + row.get_attribute("data-seat") if role == "scorer" else "")
        if role == "performer":
            key = "performer:" + (row.get_attribute("data-performer") or "")
        out[key] = row.locator("input").input_value()
    return out


def fill_short_event(home: Any) -> None:
    """Fill the home page's form with the short event of ``CONFIG`` (no guests shooting, no
    feast), the event every live-app browser test makes."""
    home.select_option("#venue", CONFIG["venue"])
    home.fill("#pairs", str(CONFIG["pairs"]))
    home.uncheck("#guests_shoot")
    home.uncheck("#feast")
    home.fill("#dafu", str(CONFIG["dafu"]))


def _submit(home: Any) -> dict[str, str]:
    """Create the event filled in on the home page; its links (or fail with the server's
    words: the page shows them in #form-error)."""
    home.click("#create-btn")
    home.wait_for_selector("body[data-created='1'], #form-error:not([hidden])")
    if home.get_attribute("body", "data-created") != "1":
        pytest.fail(f"the server refused the event: {home.text_content('#form-error')}")
    return _links(home)


def _index(records: list[Any], **want: Any) -> int:
    """The index, among the run's steps, of the first step with the fields ``want``."""
    steps = [r for r in records if isinstance(r, Step)]
    return next(i for i, s in enumerate(steps) if all(getattr(s, k) == v for k, v in want.items()))


def _goto(director: Any, index: int) -> None:
    """Go to the step of 0-based ``index``: the director's field counts from 1, as the viewer."""
    director.select_option("#jump-kind", "to")
    director.fill("#goto", str(index + 1))
    director.click("#goto-btn")
    director.wait_for_selector(f"body[data-index='{index}']")


def _audience_in_english(audience: Any, step: Any, artifacts: Path) -> None:
    """The audience screen switched to English (its button) and back (key l): the step's
    sentence and the tally's announcement in English, nothing of
    the text's script outside brackets; then the text's own words again."""
    audience.click("#lang")
    audience.wait_for_selector("body[data-lang='en']")
    assert audience.evaluate("location.hash") == "#lang=en"
    sentence = audience.text_content("#sentence")
    # 釋獲者 … 告 (xiangshe:203), the words he says in brackets
    assert sentence.startswith("The scorer (釋獲者) ")
    assert "(「右賢於左一純一奇」)" in sentence
    assert audience.is_hidden("#step .who")
    # 7 against 4: three rods, one pair and a single (注: 以純數告, 若有奇者亦曰奇)
    told = "The right wins: the right exceeds the left by one pair and a single (右賢於左一純一奇)."
    assert audience.text_content("#announce-text") == told
    assert audience.text_content("#tally-en") == told
    assert told in audience.text_content("#history")
    for sel in ("#sentence", "#announce", "#tally-box", "#history", "#round-name"):
        text = audience.inner_text(sel)
        assert text and cjk_outside_brackets(text) == [], (sel, text)
    assert audience.text_content("#right-count") == "7"  # the count itself is unchanged
    audience.screenshot(path=str(artifacts / "serve-audience-english.png"))
    audience.keyboard.press("l")
    audience.wait_for_selector("body[data-lang='zh-Hant']")
    assert audience.is_hidden("#sentence") and audience.is_hidden("#tally-en")
    assert audience.text_content("#announce-text") == "右賢於左一純一奇"
    assert audience.text_content("#tally-box h2").startswith("獲")
    assert audience.text_content("#actor") == step.actor


def test_short_event_round_two(pages: Pages, artifacts: Path) -> None:
    # 1. the home page: create the event
    home = pages.open("/", 1100, 900)
    fill_short_event(home)
    rows = home.locator("#cast-rows .row")
    rows.nth(0).locator(".role").fill("上耦上射")
    rows.nth(0).locator(".person").fill(MARKUP_NAME)
    rows.nth(1).locator(".role").fill("司射")
    rows.nth(1).locator(".person").fill("王小明")
    # a CSV naming a role the rite does not have: refused, and the page says where
    home.fill("#cast_csv", "role,name\n無此人,某\n")
    home.click("#create-btn")
    home.wait_for_selector("#form-error:not([hidden])")
    assert "cast CSV line 2" in home.text_content("#form-error")
    assert home.is_hidden("#result")
    home.fill("#cast_csv", "")
    links = _submit(home)
    assert home.is_hidden("#form-error")
    home.screenshot(path=str(artifacts / "serve-home.png"), full_page=True)
    for need in ("director", "audience", "scorer:上射", "scorer:下射", "performer:司射"):
        assert links.get(need, "").startswith(pages.base + "/v/"), (need, links)

    # 2. the four screens
    director = pages.open(links["director"], 1280, 860)
    up = pages.open(links["scorer:上射"], 390, 844, has_touch=True, is_mobile=True)
    down = pages.open(links["scorer:下射"], 820, 1180, has_touch=True)
    audience = pages.open(links["audience"], 1600, 900)
    scorer_cues = pages.open(links["performer:釋獲者"], 390, 844, is_mobile=True)

    # the cast name is shown as text: the first step is 上耦上射's (三耦俟于堂西, xiangshe:110)
    director.wait_for_selector("body[data-index='0']")
    assert director.text_content("#actor") == "上耦上射"
    assert director.text_content("#actor-name") == f"({MARKUP_NAME})"
    assert director.locator("#actor-name b").count() == 0

    # 3. the director steps: keys and buttons; every screen follows
    director.keyboard.press("ArrowRight")
    director.wait_for_selector("body[data-index='1']")
    director.keyboard.press("Space")
    director.wait_for_selector("body[data-index='2']")
    director.keyboard.press("ArrowLeft")
    director.wait_for_selector("body[data-index='1']")
    director.click("#next")
    director.wait_for_selector("body[data-index='2']")
    seq = director.get_attribute("body", "data-seq")
    audience.wait_for_selector(f"#diagram img[data-seq='{seq}']")
    assert director.locator("#next-steps li").count() == 5

    # to the second round: nothing recorded yet, so every earlier arrow is a miss
    before, _ = engine_run(CONFIG, LiveOutcomes({}))
    start2 = _index(before.records, round=2)
    _goto(director, start2)
    for scorer in (up, down):
        scorer.wait_for_selector("body[data-round='2']")
        assert scorer.locator("#arrows tr").count() == 12
    audience.wait_for_selector(f"body[data-seq='{director.get_attribute('body', 'data-seq')}']")
    stale = _stale_scorer(pages, links["scorer:上射"])

    # 4. the scorers tap every arrow of the round, 上射 then 下射 as they shoot (拾發)
    recorded: dict[tuple[int, str, str, int], tuple[bool, None]] = {}
    done = {"上射": 0, "下射": 0}
    for j in range(12):
        pair, arrow = PAIRS[j // 4], j % 4 + 1
        for seat, pg in (("上射", up), ("下射", down)):
            assert pg.get_attribute("body", "data-next") == f"2|{pair}|{seat}|{arrow}"
            hit = HITS[seat][j]
            pg.click("#hit" if hit else "#miss")
            done[seat] += 1
            pg.wait_for_selector(f"body[data-done='{done[seat]}']")
            recorded[(2, pair, seat, arrow)] = (hit, None)
            if j == 0 and seat == "上射":
                _conflict(stale, up, artifacts)
    for pg in (up, down):
        assert pg.get_attribute("body", "data-next") == ""
        assert pg.locator("#hit").is_disabled()

    # a correction: 上耦下射's first arrow was a hit after all; a new entry with its reason
    row = down.locator("tr[data-id='2|上耦|下射|1']")
    row.locator("button.fix").click()
    down.click("#c-hit")
    down.click("#c-send")
    assert "say why" in down.text_content("#c-msg")  # no correction without a reason
    down.fill("#c-reason", "the 獲者 raised the 旌 late")
    down.click("#c-send")
    down.wait_for_selector("#correct", state="hidden")
    down.wait_for_function(
        "() => document.querySelector(\"tr[data-id='2|上耦|下射|1'] td.shot\")"
        ".textContent.startsWith('中 (改×1)')"
    )
    final = {seat: list(h) for seat, h in HITS.items()}
    final["下射"][0] = True
    recorded[(2, "上耦", "下射", 1)] = (True, None)
    up.screenshot(path=str(artifacts / "serve-scorer-shangshe.png"), full_page=True)
    down.screenshot(path=str(artifacts / "serve-scorer-xiashe.png"), full_page=True)

    # the director's view of the round: every arrow recorded, none pending
    right_hits, left_hits = sum(final["上射"]), sum(final["下射"])
    director.wait_for_function(
        "() => document.querySelectorAll('#shots td.shot.pending').length === 0"
    )
    assert director.locator("#shots td.shot.hit").count() == right_hits + left_hits

    # 5. to the 告獲: the count's step and the 釋獲者's announcement (xiangshe:203)
    # (the engine stops in round 3, whose arrows are not recorded: all misses cannot be told)
    after, _ = engine_run(CONFIG, LiveOutcomes(recorded))
    tally = next(t for t in after.tallies if t.round == 2)
    expected = announce(right_hits, left_hits)
    # 7 against 4: the right wins by three 筭, 一純一奇 (checked by hand against xiangshe:203)
    assert expected == "右賢於左一純一奇"
    assert tally.announcement == expected and (tally.right, tally.left) == (7, 4)
    at_count = _index(after.records, seq=tally.seq)
    after_steps = [r for r in after.records if isinstance(r, Step)]
    told = next(
        i
        for i, s in enumerate(after_steps)
        if i >= at_count and s.cite == "xiangshe:203" and s.actor == "釋獲者"
    )
    _goto(director, at_count)
    audience.wait_for_selector(f"body[data-announcement='{expected}']")
    _goto(director, told)
    audience.wait_for_selector(f"body[data-seq='{after_steps[told].seq}']")
    assert audience.text_content("#announce-text") == expected
    assert audience.is_visible("#announce")
    assert audience.text_content("#right-count") == str(right_hits)
    assert audience.text_content("#left-count") == str(left_hits)
    assert audience.locator("#right-rods .rod").count() == right_hits
    assert audience.locator("#left-rods .rod").count() == left_hits
    assert expected in audience.text_content("#history")
    assert audience.text_content("#cite") == "xiangshe:203"
    audience.wait_for_selector(f"#diagram img[data-seq='{after_steps[told].seq}']")
    audience.wait_for_function("() => document.querySelector('#diagram img').naturalWidth > 0")
    audience.screenshot(path=str(artifacts / "serve-audience.png"))
    _audience_in_english(audience, after_steps[told], artifacts)
    # the 釋獲者's own cue sheet has this act highlighted and in view
    now = scorer_cues.locator(f"#cues li.now[data-seq='{after_steps[told].seq}']")
    now.wait_for()
    scorer_cues.wait_for_function(
        "() => { const r = document.querySelector('#cues li.now').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight; }"
    )
    assert expected in now.text_content()  # 「右賢於左一純一奇」: what he says
    scorer_cues.screenshot(path=str(artifacts / "serve-performer.png"))
    director.screenshot(path=str(artifacts / "serve-director.png"), full_page=True)

    # 6. the third round: the drum, a TAP at the release judged by the server, and the hit
    # entered after it takes the tap's judgment (不鼓不釋, xiangshe:248)
    start3 = _index(after.records, round=3)
    _goto(director, start3)
    director.fill("#interval", "1000")
    director.click("#drum-start")
    up.wait_for_selector("body[data-round='3'] #tap:not([hidden])")
    up.wait_for_selector("#beat[data-running='1']")
    up.click("#tap")
    up.wait_for_function("() => /judged|ms/.test(document.getElementById('msg').textContent)")
    said = up.text_content("#msg")
    assert "發 上耦上射 第1矢 → " in said, said
    judged = "不應鼓" if "不應鼓" in said else "應鼓"
    assert up.get_attribute("#ondrum", "aria-pressed") == "mixed"
    up.click("#hit")
    up.wait_for_selector("body[data-done='1']")
    cell = up.locator("tr[data-id='3|上耦|上射|1'] td.shot")
    assert cell.text_content().startswith(f"中·{judged}"), cell.text_content()
    up.screenshot(path=str(artifacts / "serve-scorer-round3.png"), full_page=True)


def _stale_scorer(pages: Pages, link: str) -> Any:
    """A second device on the 上射 link whose view goes stale: it gets one state, then no
    stream and no state (the network refuses them), as a tablet that lost its connection."""
    calls = {"state": 0}

    def stale(route: Any) -> None:
        url = route.request.url
        if "/api/stream" in url:
            route.abort()
        elif "/api/state" in url:
            calls["state"] += 1
            if calls["state"] == 1:
                route.continue_()
            else:
                route.abort()
        else:
            route.continue_()

    ctx = pages.browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    ctx.set_default_timeout(60_000)
    pages.contexts.append(ctx)
    ctx.route(f"{pages.base}/api/**", stale)
    pg = ctx.new_page()
    pg.on("pageerror", lambda e: pages.errors.append(f"stale scorer: {e}"))
    pg.goto(link)
    pg.wait_for_selector("body[data-ready='1']")
    assert pg.get_attribute("body", "data-next") == "2|上耦|上射|1"
    return pg


def _conflict(stale: Any, live: Any, artifacts: Path) -> None:
    """The stale page enters the arrow the live page has just recorded, with the other result:
    the server refuses it (409), the page says so plainly, and nothing changes."""
    stale.click("#miss" if HITS["上射"][0] else "#hit")
    stale.wait_for_selector("#msg[data-kind='conflict']")
    text = stale.text_content("#msg")
    assert "already recorded" in text and "「中」" in text, text
    stale.screenshot(path=str(artifacts / "serve-scorer-conflict.png"), full_page=True)
    first = live.locator("tr[data-id='2|上耦|上射|1'] td.shot")
    assert first.text_content().startswith("中" if HITS["上射"][0] else "不中")


# the drum: what an OfflineAudioContext renders of three strokes scheduled 500 ms apart, as
# sample offsets of each onset from its scheduled time (the silence before it is checked too)
_RENDER_STROKES = """async ([times, sr]) => {
  const { Drum } = await import('/static/drum.js');
  const ctx = new OfflineAudioContext(1, Math.ceil(sr * (times[times.length - 1] + 1)), sr);
  const d = new Drum({ tones: false });
  d.ctx = ctx;
  d.noise = d._noiseBuffer();
  d.interval = 500;
  times.forEach((t, i) => d._strike(t, i));
  const x = (await ctx.startRendering()).getChannelData(0);
  return times.map((t) => {
    const at = Math.round(t * sr);
    let before = 0;
    for (let i = at - Math.round(0.05 * sr); i < at; i++) before = Math.max(before, Math.abs(x[i]));
    let i = at;
    while (i < x.length && Math.abs(x[i]) < 0.005) i++;
    return [before, i - at];
  });
}"""


def test_drum(pages: Pages) -> None:
    """The drum of the third round: strokes land on their sample; the director's start reaches
    the scorer's page, whose beats are scheduled at exactly t0 + k·interval (間若一)."""
    links = _create(pages)
    director = pages.open(links["director"], 1280, 860)
    up = pages.open(links["scorer:上射"], 390, 844, has_touch=True)

    # the synthesised stroke starts on the sample it is scheduled for, after silence
    sr = 48000
    strokes = up.evaluate(_RENDER_STROKES, [[0.25, 0.75, 1.25], sr])
    assert strokes[0][0] == 0.0  # nothing before the first stroke
    for before, onset in strokes:
        assert before < 0.005  # the tail of the stroke before has died below the threshold
        assert 0 <= onset <= 24, onset  # within half a millisecond: the noise's first samples

    # the director starts the drum at 500 ms; the scorer's page shows and schedules the beats
    assert up.is_hidden("#drum-box")
    director.fill("#interval", "500")
    director.click("#drum-start")
    director.wait_for_selector("#drum-card[data-running='1']")
    up.wait_for_selector("#drum-box:not([hidden]) #beat[data-running='1']")
    up.click("#beat button.sound")
    up.wait_for_selector("#beat[data-sound='running']")
    up.wait_for_function("() => Number(document.getElementById('beat').dataset.beats) >= 3")
    jie = int(up.get_attribute("#beat", "data-jie"))
    beat = int(up.get_attribute("#beat", "data-beat"))
    assert jie == beat % 5  # 鄉射之鼓五節 (鄭注 xiangshe:248): cycles of five from t0
    up.wait_for_function("() => document.getElementById('beat').drum.scheduled.length >= 3")
    sched = up.evaluate(
        "() => document.getElementById('beat').drum.scheduled.map(s => [s.k, s.when, s.base])"
    )
    ks = [k for k, _, _ in sched]
    assert ks == list(range(ks[0], ks[0] + len(ks)))
    for k, when, base in sched:
        assert abs(when - (base + k * 0.5)) < 1e-9
    # stopped: the scorer's page stops too (and, outside the third round, hides the drum)
    director.click("#drum-stop")
    up.wait_for_selector("#beat[data-running='0']", state="attached")
    up.wait_for_selector("#drum-box", state="hidden")


def _create(pages: Pages) -> dict[str, str]:
    """An event of the 三耦 only, created on the home page; its links."""
    home = pages.open("/", 1000, 800)
    home.fill("#pairs", "0")
    home.uncheck("#guests_shoot")
    home.uncheck("#feast")
    return _submit(home)


def test_lost_answer_is_sent_again_with_the_same_key(pages: Pages) -> None:
    """The director's advance reaches the server but its answer is lost on the way back: the
    page sends it again with the same key, and the rite moves one step, not two."""
    links = _create(pages)
    director = pages.open(links["director"], 1280, 860)
    sent: list[Any] = []

    def lose_first_answer(route: Any) -> None:
        sent.append(route.request.post_data_json)
        if len(sent) == 1:
            route.fetch()  # the server gets it and answers …
            route.abort("connectionreset")  # … but the page never sees the answer
        else:
            route.continue_()

    director.route("**/api/advance", lose_first_answer)
    director.keyboard.press("ArrowRight")
    director.wait_for_selector("body[data-index='1']")
    director.wait_for_function("() => document.getElementById('msg').textContent === ''")
    assert len(sent) == 2 and sent[0] == sent[1] and sent[0]["delta"] == 1, sent
    state = director.evaluate("async () => (await import('/static/api.js')).getJSON('/api/state')")
    assert state["step"]["index"] == 1


def test_revoked_link(pages: Pages) -> None:
    """The director revokes the audience link: its open screen says so and gets nothing more;
    the token list shows it revoked."""
    links = _create(pages)
    director = pages.open(links["director"], 1280, 860)
    audience = pages.open(links["audience"], 1280, 800)
    audience.wait_for_selector("#status[data-kind='live']")
    row = director.locator("#tokens tr", has_text="audience")
    director.once("dialog", lambda d: d.accept())  # 「Revoke the audience link …?」
    row.locator("button").click()
    director.wait_for_selector("#tokens tr.revoked")
    assert "audience" in director.text_content("#tokens tr.revoked")
    audience.wait_for_selector("#status[data-kind='revoked']")
    before = audience.get_attribute("body", "data-seq")
    director.keyboard.press("ArrowRight")
    director.wait_for_selector("body[data-index='1']")
    # the revoked screen cannot read the state any more (the server answers 403)
    status = audience.evaluate(
        "async () => (await fetch('/api/state', {headers: {Authorization: "
        "'Bearer ' + document.body.dataset.token}})).status"
    )
    assert status == 403
    assert audience.get_attribute("body", "data-seq") == before


def test_pages_come_back_after_the_server_is_killed(pages: Pages, serve: Serve) -> None:
    """kill -9 the server: the pages say they are reconnecting; restarted on the same
    database, they reconnect by themselves and show the state the director moves on."""
    links = _create(pages)
    director = pages.open(links["director"], 1280, 860)
    audience = pages.open(links["audience"], 1280, 800)
    director.keyboard.press("ArrowRight")
    director.wait_for_selector("body[data-index='1']")
    seq1 = director.get_attribute("body", "data-seq")
    audience.wait_for_selector(f"body[data-seq='{seq1}']")
    serve.kill()
    audience.wait_for_selector("#status[data-kind='reconnecting'], #status[data-kind='error']")
    serve.start()
    audience.wait_for_selector("#status[data-kind='live']")
    director.wait_for_selector("#status[data-kind='live']")
    assert director.get_attribute("body", "data-index") == "1"  # the step was kept
    director.keyboard.press("ArrowRight")
    director.wait_for_selector("body[data-index='2']")
    seq2 = director.get_attribute("body", "data-seq")
    audience.wait_for_selector(f"body[data-seq='{seq2}']")
    audience.wait_for_selector(f"#diagram img[data-seq='{seq2}']")

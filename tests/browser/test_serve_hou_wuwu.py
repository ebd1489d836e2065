"""The live app's 侯 and 五物 in a real browser (docs/serve.md, "The 侯" and "The 五物").

``sheli serve`` runs in a subprocess (as in ``test_serve_event``); Debian's chromium then:

1. the director goes to the second round, before the 上耦 shoot, and asks the 衆庶 和 and then
   容 of the 上耦上射 (易氏: 見於未射之時); two audience screens (a phone and the projector,
   each its own voice) answer; the director's totals show each answer;
2. the 上射's scorer, on a phone, taps three arrows on the drawing of the 侯: the centre of the
   侯中 (a 貫), a point 3 尺 right and 2 尺 down tapped twice (白矢), and a point off the cloth
   (a miss); the audience screen shows the three where they struck.

Screenshots: ``serve-five-scorer.png``, ``serve-five-audience.png``,
``serve-five-phone.png``, ``serve-five-director.png``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_serve_event import CONFIG, Pages, Serve

from sheli.engine.records import Step
from sheli.outputs.english import cjk_outside_brackets
from sheli.serve.live import LiveOutcomes, engine_run
from sheli.serve.process import free_port


@pytest.fixture(scope="module")
def five_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    srv = Serve(free_port(), tmp_path_factory.mktemp("serve-five") / "event.sqlite3")
    try:
        srv.start()
        yield srv.base
    finally:
        srv.stop()


@pytest.fixture()
def screens(browser: Any, five_server: str) -> Iterator[Pages]:
    p = Pages(browser, five_server)
    yield p
    p.close()
    assert not p.outside, f"a page asked another address: {p.outside}"
    assert not p.errors, p.errors


def create(base: str) -> dict[str, Any]:
    """An event of the 三耦 alone, made through the API as the home page makes it."""
    # the server runs the rite to make the event: httpx's 5 s is too short on a busy machine
    with httpx.Client(base_url=base, timeout=30) as c:
        home = c.get("/")
        csrf = home.text.split('data-csrf="', 1)[1].split('"', 1)[0]
        body = {"rite": "xiangshe", "venue": "xie", "pairs": 0, "guests_shoot": False}
        r = c.post("/api/events", json=body | {"feast": False}, headers={"X-CSRF-Token": csrf})
        assert r.status_code == 201, r.text
        return r.json()["links"]


def goto(director: Any, index: int) -> None:
    """Go to the step of 0-based ``index``: the director's field counts from 1, as the viewer."""
    director.fill("#goto", str(index + 1))
    director.click("#goto-btn")
    director.wait_for_selector(f"body[data-index='{index}']")


def ask(director: Any, item: str, archer: str) -> None:
    director.select_option("#wuwu-archer", archer)
    director.select_option("#wuwu-item", item)
    director.click("#wuwu-open")
    director.wait_for_selector("#wuwu[data-open]:not([data-open=''])")


def close(director: Any) -> None:
    director.click("#wuwu-close")
    director.wait_for_selector("#wuwu[data-open='']")


def answer(screen: Any, qid: int, yes: bool) -> None:
    screen.wait_for_selector(f"#vote[data-question='{qid}']")
    screen.click("#vote-yes" if yes else "#vote-no")
    screen.wait_for_selector(f"#vote[data-answered='{str(yes).lower()}']")


def test_five_wu_and_the_hou(screens: Pages, five_server: str, artifacts: Path) -> None:
    links = create(five_server)
    base = five_server
    director = screens.open(base + links["director"], 1280, 900)
    phone = screens.open(base + links["audience"], 390, 844, has_touch=True, is_mobile=True)
    audience = screens.open(base + links["audience"], 1600, 900)
    up = screens.open(base + links["scorers"]["上射"], 390, 844, has_touch=True, is_mobile=True)

    # 1. the second round, before the 上耦 shoot: 和 and 容 may be asked of them, 和容 not
    records = engine_run(CONFIG, LiveOutcomes({}))[0].records
    steps = [r for r in records if isinstance(r, Step)]
    first = next(i for i, s in enumerate(steps) if s.round == 2 and s.actor == "上耦上射")
    goto(director, first)
    director.wait_for_selector("#wuwu:not([hidden])")
    director.select_option("#wuwu-archer", "上耦上射")
    assert director.is_disabled("#wuwu-item option[value='和容']")
    ask(director, "和", "上耦上射")
    answer(phone, 1, True)
    answer(audience, 1, False)
    phone.screenshot(path=str(artifacts / "serve-five-phone.png"))
    close(director)
    phone.wait_for_selector("#vote", state="hidden")
    ask(director, "容", "上耦上射")
    answer(phone, 2, True)
    # the projector in English: the question, its reading and the answers, the terms kept in
    # brackets; the event's title (none given) is the rite's name in English
    audience.click("#lang")
    audience.wait_for_selector("body[data-lang='en']")
    audience.wait_for_selector("#vote[data-question='2']")
    for sel in ("#vote", "header.bar h1"):
        text = audience.inner_text(sel)
        assert text and cjk_outside_brackets(text) == [], (sel, text)
    assert audience.text_content("header.bar h1") == "The District Archery Meeting (鄉射禮)"
    assert audience.text_content("#vote-q").endswith(": bearing (容)?")
    assert audience.text_content("#vote-yes") == "yes (是)"
    answer(audience, 2, True)
    assert audience.text_content("#vote-msg") == "✓ yes (是)"
    audience.keyboard.press("l")
    audience.wait_for_selector("body[data-lang='zh-Hant']")
    assert audience.text_content("#vote-q").endswith("容乎？")
    assert audience.text_content("header.bar h1") == "鄉射禮"
    close(director)
    row = "#wuwu-totals tr[data-archer='上耦上射']"
    director.wait_for_selector(f"{row} td[data-item='和'][data-yes='1'][data-no='1']")
    director.wait_for_selector(f"{row} td[data-item='容'][data-yes='2'][data-no='0']")

    # 2. the scorer taps three arrows on the 侯
    up.wait_for_selector("#hou svg rect[data-part='中']")
    taps = [
        ([(0, 0)], "貫"),
        ([(3, -2)] * 2, "白矢"),  # the second tap on the mark: it went through
        ([(-19, 2)], "不中"),  # beside the 中, off the cloth
    ]
    for n, (points, kind) in enumerate(taps, 1):
        for x, y in points:
            mid = up.locator("#hou svg rect[data-part='中']")
            mid.scroll_into_view_if_needed()
            box = mid.bounding_box()
            per_chi = box["width"] / 10  # the 侯中 of a 侯道 of 50 弓 is 10 尺 (xiangshe:374)
            cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            up.touchscreen.tap(cx + x * per_chi, cy - y * per_chi)
        up.wait_for_selector(f"body[data-spot='{kind}']")
        up.click("#hou-record")
        up.wait_for_selector(f"body[data-done='{n}']")
    up.wait_for_selector("#hou[data-marks='3']")
    up.screenshot(path=str(artifacts / "serve-five-scorer.png"), full_page=True)

    audience.wait_for_selector("#hou[data-marks='3']")
    marks = audience.locator("#hou .mark")
    got = [
        (marks.nth(i).get_attribute("data-arrow"), marks.nth(i).get_attribute("class"))
        for i in range(3)
    ]
    assert [a for a, _ in got] == ["1", "2", "3"]
    assert "hit" in got[0][1] and "through" in got[1][1] and "miss" in got[2][1]
    want = [(0.0, 0.0), (3.0, -2.0), (-19.0, 2.0)]
    for i, (x, y) in enumerate(want):
        m = marks.nth(i)
        assert abs(float(m.get_attribute("data-x")) - x) < 0.3
        assert abs(float(m.get_attribute("data-y")) - y) < 0.3
    # and drawn there: each mark's place on the audience's 侯, in its own 尺
    abox = audience.locator("#hou svg rect[data-part='中']").bounding_box()
    a_per_chi = abox["width"] / 10
    acx, acy = abox["x"] + abox["width"] / 2, abox["y"] + abox["height"] / 2
    for i, (x, y) in enumerate(want):
        dot = marks.nth(i).locator("circle").first.bounding_box()
        mx, my = dot["x"] + dot["width"] / 2, dot["y"] + dot["height"] / 2
        assert abs((mx - acx) / a_per_chi - x) < 0.4 and abs((acy - my) / a_per_chi - y) < 0.4
    audience.screenshot(path=str(artifacts / "serve-five-audience.png"))
    director.screenshot(path=str(artifacts / "serve-five-director.png"), full_page=True)
    # 主皮 from his hits: two of the three arrows recorded 中
    director.wait_for_selector(f"{row} td[data-item='主皮']:has-text('2 中 / 3')")

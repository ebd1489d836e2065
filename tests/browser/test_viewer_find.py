"""What a reader meets first in the viewer: the search box, a passage's address, the step's
words marked in their passage whatever their form, and a first step that can be read.

Each expectation comes from the engine's own run and the text layer, not from the viewer's
data. Screenshots, kept in ``test-artifacts/``:

- ``viewer-first-step.png``: 鄉射禮's first step (主人戒賓, the 賓 at the 門), as it opens
- ``viewer-passage-139.png``: ``index.html#xiangshe:139`` (the 上耦 walk north, 竝行)
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loglines import step_lines

from sheli.engine import run
from sheli.text import get_passage
from sheli.text.align import fold_text


@pytest.fixture(scope="module")
def steps() -> list[dict[str, Any]]:
    return step_lines(run("xiangshe"))


def _open(browser: Any, rendered: Path, hash_: str = "", **viewport: int) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport=viewport or {"width": 1280, "height": 860})
    ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto((rendered / "index.html").as_uri() + hash_)
    pg.wait_for_selector("body[data-ready='1']")
    pg.wait_for_function("document.body.dataset.drawn === document.body.dataset.seq")
    pg.errors = errors
    return ctx, pg


@pytest.fixture()
def page(browser: Any, rendered: Path) -> Iterator[Any]:
    ctx, pg = _open(browser, rendered)
    yield pg
    ctx.close()
    assert not pg.errors, pg.errors


def _seq(pg: Any) -> int:
    return int(pg.get_attribute("body", "data-seq"))


def _first_of(steps: list[dict[str, Any]], cite: str) -> dict[str, Any]:
    return next(s for s in steps if s["cite"] == cite)


# ------------------------------------------------------------------ (a) search
def test_search_by_passage_id_jumps_to_its_first_step(page: Any, steps) -> None:
    page.fill("#find", "xiangshe:139")
    hits = page.locator("#found button.hit")
    assert hits.count() == 1
    hits.first.click()
    assert _seq(page) == _first_of(steps, "xiangshe:139")["seq"]
    assert page.is_hidden("#found")
    # the bare number finds it too, and Enter takes the first hit
    page.fill("#find", "203")
    page.press("#find", "Enter")
    assert _seq(page) == _first_of(steps, "xiangshe:203")["seq"]


def test_search_by_words_finds_the_passage_that_has_them(page: Any, steps) -> None:
    said = next(s for s in steps if s.get("says") == "不貫不釋")
    page.fill("#find", "不貫不釋")
    cites = page.locator("#found button.hit .c").all_text_contents()
    assert said["cite"] in cites
    # every hit's passage, or its step's words, has them
    for i in page.evaluate("sheli.search('不貫不釋').map(([i]) => i)"):
        st = steps[i]
        assert "不貫不釋" in get_passage(st["cite"]).text + (st.get("says") or "") + (
            st.get("jing") or ""
        )
    page.locator("#found button.hit", has_text=said["cite"]).first.click()
    assert steps[page.evaluate("sheli.index")]["cite"] == said["cite"]


def test_search_by_role_lists_the_persons_steps(page: Any, steps) -> None:
    page.fill("#find", "釋獲者")
    found = page.evaluate("sheli.search('釋獲者')")
    who = [i for i, why in found if why == "who"]
    assert who and all(steps[i]["actor"] == "釋獲者" for i in who)
    # one hit for each passage in which he acts (up to the list's length)
    passages = list(dict.fromkeys(s["cite"] for s in steps if s["actor"] == "釋獲者"))
    assert [steps[i]["cite"] for i in who] == passages[: len(who)]
    page.locator("#found button.hit.who").nth(1).click()
    assert _seq(page) == steps[who[1]]["seq"]


def test_search_keys_do_not_step_the_viewer(page: Any) -> None:
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "find"
    page.keyboard.type("司射")
    page.keyboard.press("ArrowLeft")  # moves in the box, not a step back
    page.keyboard.press("End")
    assert _seq(page) == 1
    page.keyboard.press("Escape")
    assert page.is_hidden("#found")


# ------------------------------------------------------------------ (b) the address
def test_a_passage_in_the_address_opens_its_first_step(
    browser: Any, rendered: Path, steps, artifacts
):
    ctx, pg = _open(browser, rendered, "#xiangshe:139")
    first = _first_of(steps, "xiangshe:139")
    assert _seq(pg) == first["seq"]
    assert pg.text_content("#pid") == "xiangshe:139"
    pg.screenshot(path=str(artifacts / "viewer-passage-139.png"))
    # the address then follows the step
    pg.keyboard.press("ArrowRight")
    nxt = _seq(pg)
    assert nxt == first["seq"] + 1
    pg.wait_for_function("q => location.hash === '#' + q", arg=nxt)
    # a passage followed as a link later
    pg.evaluate("location.hash = '#xiangshe:203'")
    pg.wait_for_function(
        f"document.body.dataset.seq === '{_first_of(steps, 'xiangshe:203')['seq']}'"
    )
    ctx.close()
    assert not pg.errors, pg.errors


# ------------------------------------------------------------------ (c) the words marked
def test_words_in_another_form_are_marked_in_their_passage(page: Any, steps) -> None:
    """上射在左竝行 (the step's words) in a passage that writes 並行: marked in the passage,
    not given again below it."""
    st = next(
        s
        for s in steps
        if s.get("jing") and "竝" in s["jing"] and s["jing"] not in get_passage(s["cite"]).text
    )
    text = get_passage(st["cite"]).text
    assert fold_text(st["jing"]) in fold_text(text)  # the text layer folds them alike
    page.evaluate("q => { location.hash = '#' + q; }", st["seq"])
    page.wait_for_selector(f"body[data-seq='{st['seq']}']")
    assert page.text_content("#jing") == text  # the passage as it is, nothing added
    assert page.locator("#jing br").count() == 0
    marks = page.locator("#jing mark").all_text_contents()
    assert len(marks) == 1 and fold_text(marks[0]) == fold_text(st["jing"])
    assert marks[0] in text and "並" in marks[0]


# ------------------------------------------------------------------ (d) each note once
def test_each_commentary_is_shown_once(page: Any, steps) -> None:
    st = _first_of(steps, "xiangshe:139")
    page.evaluate("q => { location.hash = '#' + q; }", st["seq"])
    page.wait_for_selector(f"body[data-seq='{st['seq']}']")
    notes = page.locator("#notes .note").all_text_contents()
    zhu = [n for n in notes if "中猶" in n]
    assert len(zhu) == 1, notes  # two seeds give it (閒/間): once, both named
    assert "seed:000" in zhu[0] and "seed:004" in zhu[0]


# ------------------------------------------------------------------ (e) the first step
@pytest.mark.parametrize("size", [(1280, 860), (1024, 640)])
def test_first_step_readable_and_clear_of_the_header(browser, rendered, artifacts, size) -> None:
    w, h = size
    ctx, pg = _open(browser, rendered, width=w, height=h)
    for lang in ("zh-Hant", "en"):
        if lang == "en":
            pg.evaluate("sheli.setLang('en')")
            pg.wait_for_function("document.body.dataset.lang === 'en'")
        bar = pg.locator("#bar").bounding_box()
        stage = pg.locator("#stage").bounding_box()
        assert bar and stage
        assert stage["y"] >= bar["y"] + bar["height"], (lang, bar, stage)  # not under it
        assert stage["y"] + stage["height"] <= h + 1  # and its foot, the scale bar, on screen
    # the actor is on screen, and the names are drawn large enough to read (not the whole
    # 300 尺 squeezed into the window's height)
    actor = pg.locator("#stage svg g.person.current").bounding_box()
    stage = pg.locator("#stage").bounding_box()
    assert actor and stage
    assert stage["y"] <= actor["y"] and actor["y"] + actor["height"] <= stage["y"] + stage["height"]
    label = pg.evaluate(
        "Math.max(...[...document.querySelectorAll('#stage svg text')]"
        ".map(t => t.getBoundingClientRect().height).filter(x => x > 0).sort((a, b) => a - b)"
        ".slice(0, 1))"
    )
    assert label >= 8, label  # px: the smallest name on the plan
    if size == (1280, 860):
        pg.evaluate("sheli.setLang('zh-Hant')")
        pg.wait_for_function("document.body.dataset.lang === 'zh-Hant'")
        pg.screenshot(path=str(artifacts / "viewer-first-step.png"))
    ctx.close()
    assert not pg.errors, pg.errors

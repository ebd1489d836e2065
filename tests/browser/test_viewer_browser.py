"""The rendered viewer in a real browser (Debian's chromium, driven by Playwright).

The viewer is opened from ``file://`` with every other request refused, stepped to known
steps of the default 鄉射禮 (found in the engine's own run, not in the viewer's data), and
what it shows is checked against the 經: the passage and its words, the actor highlighted
in the diagram, the tally, the announcement. Screenshots are kept in ``test-artifacts/``:

- ``viewer-buguan-bushi.png``: 司射 命曰不貫不釋 (xiangshe:184)
- ``viewer-announce.png``: the 釋獲者 announces (xiangshe:203)
- ``viewer-youshe.png``: the 司射's 誘射, his first arrow (xiangshe:131)
- ``viewer-shuhuo.png``: the 數獲, the left side counted (xiangshe:201)
- ``viewer-bingxing.png``: the 上耦 walk north to the 西階, 上射在左竝行 (xiangshe:139)
- ``viewer-yin-busheng.png``: 飲不勝者, the first loser drinks (xiangshe:211)
- ``viewer-phone.png``, ``viewer-simplified.png``: a phone screen; simplified characters
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loglines import step_lines, tally_lines

from sheli.engine import run


@pytest.fixture(scope="module")
def steps() -> list[dict[str, Any]]:
    return step_lines(run("xiangshe"))


@pytest.fixture(scope="module")
def tallies() -> list[dict[str, Any]]:
    return tally_lines(run("xiangshe"))


def _first(steps: list[dict[str, Any]], **want: Any) -> dict[str, Any]:
    return next(s for s in steps if all(s.get(k) == v for k, v in want.items()))


@pytest.fixture()
def page(browser: Any, rendered: Path) -> Iterator[Any]:
    """A fresh page on the viewer, offline: any request that is not for a file fails the test."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    outside: list[str] = []

    def guard(route: Any) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    ctx.route("**/*", guard)
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto((rendered / "index.html").as_uri())
    pg.wait_for_selector("body[data-ready='1']")
    yield pg
    ctx.close()
    assert not outside, f"the viewer asked the network for {outside}"
    assert not errors, errors


def _goto(pg: Any, seq: int) -> None:
    """Go to a step the way a reader shares one: the seq in the address (#seq)."""
    pg.evaluate("q => { location.hash = '#' + q; }", seq)
    pg.wait_for_selector(f"body[data-seq='{seq}']")
    _drawn(pg)


def _drawn(pg: Any) -> None:
    """Wait for the diagram of the step shown (its chunk may be inflated on the way)."""
    pg.wait_for_function("document.body.dataset.drawn === document.body.dataset.seq")


def _seq(pg: Any) -> int:
    return int(pg.get_attribute("body", "data-seq"))


def _actor_drawn(pg: Any, actor: str) -> None:
    g = pg.locator(f'#stage svg g.person[data-actor="{actor}"]')
    assert g.count() == 1
    classes = (g.get_attribute("class") or "").split()
    assert "actor" in classes and "current" in classes, classes
    # the diagram draws the actor, not someone else
    assert pg.locator("#stage svg g.person.current").count() == 1


def test_keys_and_buttons_step(page: Any, steps: list[dict[str, Any]]) -> None:
    last = steps[-1]["seq"]
    assert _seq(page) == 1
    page.keyboard.press("ArrowRight")
    assert _seq(page) == 2
    page.click("#next")
    assert _seq(page) == 3
    page.keyboard.press("ArrowLeft")
    assert _seq(page) == 2
    page.click("#prev")
    assert _seq(page) == 1
    page.keyboard.press("End")
    assert _seq(page) == last
    page.keyboard.press("Home")
    assert _seq(page) == 1
    page.click("#last")
    assert _seq(page) == last
    page.click("#first")
    assert _seq(page) == 1
    assert page.inner_text("#pos").endswith(f"/ {last}")


def test_the_first_step_says_what_it_assumes(page: Any, steps: list[dict[str, Any]]) -> None:
    """The first step rests on assumptions of the spec (the feast's start, the gate): each
    is shown in the text's words, 假定：what it assumes, then why."""
    assert _seq(page) == 1 and steps[0]["assumes"]
    items = page.locator("#assumed li")
    assert items.count() == len(steps[0]["assumes"])
    for text in items.all_inner_texts():
        assert text.startswith("假定："), text
        what = text.removeprefix("假定：")
        assert what.strip() and "undefined" not in what and "null" not in what, text


def test_the_whole_range_is_drawn_at_the_stages_width(page: Any) -> None:
    """The first step's diagram is the whole range (堂 to 侯, far taller than wide): the plan
    itself, not the paper of the drawing round it, takes the stage's width, the stage
    scrolled to the actor; the drawing's head (which the side says) is not cut in half."""
    assert _seq(page) == 1
    got = page.evaluate(
        """() => {
          const stage = document.querySelector('#stage');
          const svg = stage.querySelector('svg');
          const plan = svg.querySelector('rect.view').getBoundingClientRect();
          const me = svg.querySelector('g.person.current').getBoundingClientRect();
          const box = stage.getBoundingClientRect();
          const head = [...svg.querySelectorAll(':scope > text')].filter(
            (t) => t.getClientRects().length && getComputedStyle(t).display !== 'none');
          return {tall: stage.classList.contains('tall'), plan: plan.width,
                  stage: stage.clientWidth, head: head.length,
                  seen: me.top >= box.top && me.bottom <= box.bottom};
        }"""
    )
    assert got["tall"] and got["seen"] and got["head"] == 0, got
    assert got["plan"] >= 0.85 * got["stage"], got


def test_buguan_bushi(page: Any, steps: list[dict[str, Any]], artifacts: Path) -> None:
    st = _first(steps, says="不貫不釋")
    _goto(page, st["seq"])
    assert page.inner_text("#pid") == "xiangshe:184"
    assert "不貫不釋" in page.inner_text("#says")
    assert page.inner_text("#jing mark") == st["jing"]
    assert "司射遂進由堂下北面命曰不貫不釋" in page.inner_text("#jing")
    assert "貫猶中也" in page.inner_text("#notes")  # 鄭注
    assert "§19" in page.inner_text("#sec")
    _actor_drawn(page, "司射")
    # before the second round's arrows: only the first round's hits, none released
    assert page.locator("#tallytab tr[data-round='1']").count() == 1
    assert page.locator("#tallytab tr[data-round='2']").count() == 0
    assert page.is_hidden("#announce")
    page.screenshot(path=str(artifacts / "viewer-buguan-bushi.png"))


def test_announcement(
    page: Any, steps: list[dict[str, Any]], tallies: list[dict[str, Any]], artifacts: Path
) -> None:
    t = tallies[0]
    st = _first(steps, actor="釋獲者", verb="告", says=t["announcement"])
    _goto(page, st["seq"])
    assert page.inner_text("#pid") == "xiangshe:203"
    assert page.is_visible("#announce")
    assert t["announcement"] in page.inner_text("#announce")
    _actor_drawn(page, "釋獲者")
    row = page.locator("#tallytab tr[data-round='2']")
    assert row.locator("td.right").inner_text() == str(t["right"])
    assert row.locator("td.left").inner_text() == str(t["left"])
    assert t["announcement"] in page.inner_text("#done")
    page.screenshot(path=str(artifacts / "viewer-announce.png"))


def test_youshe(page: Any, steps: list[dict[str, Any]], artifacts: Path) -> None:
    st = _first(steps, actor="司射", verb="射")
    _goto(page, st["seq"])
    assert page.inner_text("#pid") == st["cite"]
    assert "誘射" in page.inner_text("#section option:checked")
    _actor_drawn(page, "司射")
    # the arrow's flight from the 司射 to the 侯
    assert page.locator("#stage svg line.flight").count() == 1
    page.screenshot(path=str(artifacts / "viewer-youshe.png"))


def test_shuhuo(page: Any, steps: list[dict[str, Any]], artifacts: Path) -> None:
    counted = [s for s in steps if s["verb"] == "數獲" and s["round"] == 2]
    st = counted[-1]
    _goto(page, st["seq"])
    assert page.inner_text("#pid") == "xiangshe:201"
    _actor_drawn(page, "釋獲者")
    # the 筭 on the ground, on both sides (右 and 左), by the 中
    assert page.locator("#stage svg .suan").count() >= 2
    assert page.locator("#stage svg .zhong").count() == 1
    page.screenshot(path=str(artifacts / "viewer-shuhuo.png"))


def test_bingxing(page: Any, steps: list[dict[str, Any]], artifacts: Path) -> None:
    # 上耦揖進上射在左竝行當階北面揖 (xiangshe:139): two bodies, the 上射 on the west
    st = _first(steps, actor="上耦下射", verb="進", cite="xiangshe:139")
    _goto(page, st["seq"])
    assert page.inner_text("#pid") == "xiangshe:139"
    _actor_drawn(page, "上耦下射")
    up = page.locator('#stage svg g.person[data-actor="上耦上射"]')
    low = page.locator('#stage svg g.person[data-actor="上耦下射"]')
    assert float(up.get_attribute("data-x")) < float(low.get_attribute("data-x"))
    assert up.get_attribute("data-y") == low.get_attribute("data-y")
    page.screenshot(path=str(artifacts / "viewer-bingxing.png"))


def test_yin_busheng(page: Any, steps: list[dict[str, Any]], artifacts: Path) -> None:
    st = _first(steps, verb="卒觶", round=2)
    _goto(page, st["seq"])
    assert page.inner_text("#pid") == "xiangshe:211"
    assert "罰爵之事" in page.inner_text("#sec")
    _actor_drawn(page, st["actor"])
    page.screenshot(path=str(artifacts / "viewer-yin-busheng.png"))


def test_section_and_round_menus(page: Any, steps: list[dict[str, Any]]) -> None:
    first19 = _first(steps, section=19)["seq"]
    label = next(
        o for o in page.locator("#section option").all_inner_texts() if o.startswith("§19 ")
    )
    page.select_option("#section", label=label)
    assert _seq(page) == first19
    assert page.get_attribute("body", "data-section") == "19"
    first3 = _first(steps, round=3)["seq"]
    label = next(o for o in page.locator("#round option").all_inner_texts() if "第三番射" in o)
    page.select_option("#round", label=label)
    assert _seq(page) == first3
    # the keys step on from there (the menu does not keep them)
    page.keyboard.press("ArrowRight")
    assert _seq(page) == first3 + 1
    # PageDown goes on to the start of the next section, PageUp back to this one's
    segs = [k for k in range(1, len(steps)) if steps[k]["section"] != steps[k - 1]["section"]]
    nxt = next(k for k in segs if steps[k]["seq"] > first3 + 1)
    page.keyboard.press("PageDown")
    assert _seq(page) == steps[nxt]["seq"]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("PageUp")
    assert _seq(page) == steps[nxt]["seq"]


def test_role_filter(page: Any, steps: list[dict[str, Any]]) -> None:
    want = [s["seq"] for s in steps if s["actor"] == "司馬"]
    page.select_option("#role", label="司馬（司正）")
    assert "dim" in (page.locator("#stage svg").get_attribute("class") or "")
    # only his steps: the viewer goes on to his first, and the arrows skip to his next
    page.check("#only")
    assert _seq(page) == want[0]
    _drawn(page)
    assert page.locator('#stage svg g.person.hl[data-actor="司馬"]').count() == 1
    page.keyboard.press("ArrowRight")
    assert _seq(page) == want[1]
    page.keyboard.press("ArrowLeft")
    assert _seq(page) == want[0]
    page.uncheck("#only")
    page.keyboard.press("ArrowRight")
    assert _seq(page) == want[0] + 1
    # a whole role: every 上射 highlighted
    label = next(
        o for o in page.locator("#role option").all_inner_texts() if o.startswith("全部上射")
    )
    page.select_option("#role", label=label)
    assert label == "全部上射 (3)"  # 上耦, 次耦, 下耦 (the 賓 is a role of his own)
    assert page.locator("#stage svg g.person.hl").count() == 3


def test_simplified_toggle(page: Any, steps: list[dict[str, Any]], artifacts: Path) -> None:
    _goto(page, _first(steps, says="不貫不釋")["seq"])
    page.click("#script")
    assert "司射遂进由堂下北面命曰不贯不释" in page.inner_text("#jing")
    assert "不贯不释" in page.inner_text("#says")
    assert "贯犹中也" in page.inner_text("#notes")
    assert page.get_attribute("html", "lang") == "zh-Hans"
    assert "第二番射之事" in page.inner_text("#section option:checked")
    page.screenshot(path=str(artifacts / "viewer-simplified.png"))
    page.click("#script")
    assert "不貫不釋" in page.inner_text("#jing")


def test_play_and_walk(page: Any, rendered: Path, steps: list[dict[str, Any]]) -> None:
    # a step where the actor walks (the diagram draws his path): stepping into it wraps his
    # figure in a group that carries him along the path
    i = next(
        k
        for k, st in enumerate(steps)
        if k > 0
        and 'class="path actor-path"'
        in (rendered / "svg" / f"step-{st['seq']:04d}.svg").read_text(encoding="utf-8")
    )
    actor = steps[i]["actor"]
    _goto(page, steps[i - 1]["seq"])
    page.keyboard.press("ArrowRight")
    assert _seq(page) == steps[i]["seq"]
    _drawn(page)
    assert page.locator(f'#stage svg g.walk > g.person[data-actor="{actor}"]').count() == 1
    # going back does not walk
    page.keyboard.press("ArrowLeft")
    assert page.locator("#stage svg g.walk").count() == 0
    # space plays: the steps go on by themselves; space again stops
    page.keyboard.press(" ")
    assert page.get_attribute("#play", "aria-label") == "pause"
    page.wait_for_function(f"Number(document.body.dataset.seq) > {steps[i]['seq']}")
    page.keyboard.press(" ")
    assert page.get_attribute("#play", "aria-label") == "play"


def test_phone(browser: Any, rendered: Path, steps: list[dict[str, Any]], artifacts: Path) -> None:
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    ctx.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort())
    pg = ctx.new_page()
    seq = _first(steps, says="不貫不釋")["seq"]
    pg.goto(f"{(rendered / 'index.html').as_uri()}#{seq}")
    pg.wait_for_selector("body[data-ready='1']")
    assert _seq(pg) == seq
    stage = pg.locator("#stage").bounding_box()
    side = pg.locator("#side").bounding_box()
    assert stage and side
    assert side["y"] >= stage["y"] + stage["height"] - 1  # the text below the diagram
    assert stage["width"] <= 390
    width = pg.evaluate("document.documentElement.scrollWidth")
    assert width <= 391, width  # nothing runs off the side of the screen
    pg.tap("#next")
    assert _seq(pg) == seq + 1
    pg.screenshot(path=str(artifacts / "viewer-phone.png"))
    ctx.close()


def test_every_chunk_edge_unpacks_as_its_file(
    page: Any, rendered: Path, steps: list[dict[str, Any]]
) -> None:
    """The viewer's own unpacking (window.sheli.svg, from the blobs of every drawing
    process) gives the SVG file byte for byte: each step on either side of a chunk's edge
    (64 steps), out of order too, and every 97th."""
    n = len(steps)
    edges = sorted({i for c in range(0, n, 64) for i in (c - 1, c, c + 1) if 0 <= i < n})
    picks = edges + list(range(0, n, 97)) + edges[::-7]
    got = page.evaluate(
        "async (ix) => { const out = []; for (const i of ix) out.push(await window.sheli.svg(i));"
        " return out; }",
        picks,
    )
    for i, svg in zip(picks, got, strict=True):
        f = rendered / "svg" / f"step-{steps[i]['seq']:04d}.svg"
        assert svg == f.read_text(encoding="utf-8"), steps[i]["seq"]


def test_zoom_gives_the_diagram_the_full_width(page: Any) -> None:
    before = page.locator("#stage svg").bounding_box()
    page.keyboard.press("z")
    assert page.get_attribute("#zoom", "aria-pressed") == "true"
    after = page.locator("#stage svg").bounding_box()
    assert after["width"] > before["width"] * 1.3
    page.click("#zoom")
    assert page.get_attribute("#zoom", "aria-pressed") == "false"


def test_a_figure_is_named_on_hover_and_tap(page: Any) -> None:
    """A figure's name shows beside the pointer (a crowd's members have no label each)."""
    _drawn(page)
    fig = page.locator("#stage g.person[data-actor]").last
    name = fig.get_attribute("data-name") or fig.get_attribute("data-actor")
    fig.hover()
    assert page.locator("#tip").is_visible()
    assert page.text_content("#tip") == name
    page.locator("#bar").hover()
    assert page.locator("#tip").is_hidden()
    fig.click()
    assert page.locator("#tip").is_visible()
    assert page.text_content("#tip") == name


def test_far_steps_inflate_only_their_blobs(
    page: Any, rendered: Path, steps: list[dict[str, Any]]
) -> None:
    """The viewer inflates only the blobs of the steps it shows (a few chunks of 64 steps
    each), and keeps only a few: going to steps far apart, each diagram is its step's file,
    the blobs kept never pass the cache's four, and most blobs are never inflated."""
    n = len(steps)
    at_load = page.evaluate("window.sheli.blobs()")
    assert at_load["lines"] >= n // 256  # BLOB_STEPS
    assert at_load["inflated"] <= 2 and at_load["kept"] <= 2, at_load
    page.keyboard.press("End")
    picks = [n - 1, n // 2, n // 3, 64, 63, 0]
    for i in picks:
        page.evaluate("i => window.sheli.go(i)", i)
        _drawn(page)
        seq = steps[i]["seq"]
        assert page.get_attribute("#stage svg", "data-seq") == str(seq)
        f = rendered / "svg" / f"step-{seq:04d}.svg"
        assert page.evaluate("i => window.sheli.svg(i)", i) == f.read_text(encoding="utf-8")
        b = page.evaluate("window.sheli.blobs()")
        assert b["kept"] <= 4, (i, b)
    # each step's blob, and at most one ahead of each (for stepping on)
    assert b["inflated"] <= at_load["inflated"] + 2 * len(picks), b
    assert b["inflated"] < b["lines"], b


def test_the_address_follows_the_step(page: Any) -> None:
    """After a run of steps the address names the step shown (it is set once stepping
    pauses), so that a link to it opens the viewer there."""
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    seq = _seq(page)
    assert seq == 6
    page.wait_for_function("q => location.hash === '#' + q", arg=seq)
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert _seq(page) == seq

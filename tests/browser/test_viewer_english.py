"""The viewer in English and back, and its role filter on a role drawn member by member.

The render and the page are those of test_viewer_browser.py (the default 鄉射禮, offline).
English is checked where a reader meets it: the step's sentence, what is held, the tally and
its announcement, the menus; nothing of the text's script may stand outside brackets there
(``cjk_outside_brackets``, the check of ``sheli run --lang en``). The 經 itself and its
commentary stay in the text's words, the translation beside them. Screenshots
(``test-artifacts/``): ``viewer-english.png`` (the 釋獲者 announces, xiangshe:203),
``viewer-english-phone.png``, ``viewer-members.png`` (衆賓 chosen: every member highlighted).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner
from test_viewer_browser import _drawn, _first, _goto, _seq, page, steps, tallies

from sheli.cli import cli
from sheli.outputs.english import cjk_outside_brackets

__all__ = ["page", "steps", "tallies"]  # the fixtures of test_viewer_browser.py, used here

# where a reader meets English: none of these may hold the text's script outside brackets
ENGLISH = (
    "#who",
    "#state",
    "#stepnote",
    "#assumed",
    "#announce",
    "#tally",
    "#pos",
    "#jumps",
    "#jingen",
    "#sec",
    "#stage",
)


def _english(pg: Any) -> None:
    for sel in ENGLISH:
        text = pg.inner_text(sel)
        assert cjk_outside_brackets(text) == [], (sel, text)


def test_switch_to_english_and_back(
    page: Any, steps: list[dict[str, Any]], tallies: list[dict[str, Any]], artifacts: Path
) -> None:
    t = tallies[0]
    st = _first(steps, actor="釋獲者", verb="告", says=t["announcement"])
    _goto(page, st["seq"])
    assert page.get_attribute("body", "data-lang") == "zh-Hant"
    page.click("#lang")
    page.wait_for_selector("body[data-lang='en']")
    assert page.get_attribute("html", "lang") == "en"
    assert _seq(page) == st["seq"]  # the same step
    # the rite's name as Steele's translation of the 儀禮 gives it (glossary: titles)
    assert page.inner_text("#title") == "The District Archery Meeting (鄉射禮)"
    who = page.inner_text("#who")
    assert who.startswith("The scorer (釋獲者) says (告) to the guest"), who
    assert f"(「{t['announcement']}」)" in who  # his words, in brackets
    # the announcement in English (xiangshe:203, 注: 以純數告, 若有奇者亦曰奇)
    ann = page.inner_text("#announce")
    assert ann.startswith("The scorer (釋獲者) announces: The ")
    assert f"({t['announcement']})." in ann
    done = page.inner_text("#done")
    assert "the second round of shooting (第二番射): The " in done
    assert f"(right {t['right']}, left {t['left']})" in done
    assert page.inner_text("#tallytab tr th") == "round"
    row = page.locator("#tallytab tr[data-round='2']")
    assert row.locator("td.right").inner_text() == str(t["right"])
    # the passage: the 經 as it is, the translation below it
    assert "右賢於左" in page.inner_text("#jing")
    assert page.inner_text("#jingen").startswith("If the right has won")
    assert page.inner_text("#pos").startswith("step ")
    assert page.inner_text("#lang") == "中文"
    _english(page)
    # the address keeps the language with the step, once stepping pauses
    page.wait_for_function(f"location.hash === '#{st['seq']}&lang=en'")
    page.screenshot(path=str(artifacts / "viewer-english.png"))

    # stepping on stays in English: a step with something held and a dress
    armed = _first(steps, actor="司射", verb="射")
    _goto(page, armed["seq"])
    assert page.get_attribute("body", "data-lang") == "en"
    assert "holds: " in page.inner_text("#state")
    assert "(司射)" in page.inner_text("#who")
    _english(page)

    # and back: key l
    page.keyboard.press("l")
    page.wait_for_selector("body[data-lang='zh-Hant']")
    assert page.is_hidden("#jingen")
    assert page.inner_text("#who").startswith("司射")
    assert page.inner_text("#tally h2") == "獲"
    assert page.inner_text("#lang") == "EN"
    page.wait_for_function(f"location.hash === '#{armed['seq']}'")


def test_a_link_in_english_opens_in_english(
    browser: Any, rendered: Path, steps: list[dict[str, Any]], artifacts: Path
) -> None:
    st = _first(steps, says="不貫不釋")
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        pg = ctx.new_page()
        pg.goto((rendered / "index.html").as_uri() + f"#{st['seq']}&lang=en")
        pg.wait_for_selector("body[data-ready='1']")
        assert pg.get_attribute("body", "data-lang") == "en"
        assert _seq(pg) == st["seq"]
        # 不貫不釋 (xiangshe:184): his words in the sentence, the 注's reading below the text
        assert "(「不貫不釋」)" in pg.inner_text("#who")
        assert "the reading followed: (鄭)" in pg.inner_text("#jingen")
        _english(pg)
        pg.screenshot(path=str(artifacts / "viewer-english-phone.png"), full_page=False)
    finally:
        ctx.close()


def test_render_opens_in_english(browser: Any, tmp_path: Path) -> None:
    out = tmp_path / "en"
    res = CliRunner().invoke(
        cli, ["render", "xiangshe", "--lang", "en", "--no-svg", "-j", "1", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    ctx = browser.new_context(viewport={"width": 1280, "height": 860})
    try:
        pg = ctx.new_page()
        pg.goto((out / "index.html").as_uri())
        pg.wait_for_selector("body[data-ready='1']")
        assert pg.get_attribute("body", "data-lang") == "en"
        assert pg.inner_text("#who").startswith("The guest (賓)")
        _english(pg)
        # the other way: to the text's own terms, and the address says so
        pg.click("#lang")
        pg.wait_for_selector("body[data-lang='zh-Hant']")
        pg.wait_for_function("location.hash === '#1&lang=zh-Hant'")
    finally:
        ctx.close()


def test_role_filter_highlights_every_member(
    page: Any, steps: list[dict[str, Any]], artifacts: Path
) -> None:
    # 衆賓 is one actor drawn as several bodies (衆賓, 衆賓2 …): choosing him marks them all
    st = _first(steps, actor="衆賓")
    _goto(page, st["seq"])
    drawn = page.locator('#stage svg g.person[data-role="衆賓"]')
    n = drawn.count()
    assert n > 1
    page.select_option("#role", label="衆賓")
    _drawn(page)
    assert page.locator('#stage svg g.person.hl[data-role="衆賓"]').count() == n
    # nobody else
    assert page.locator("#stage svg g.person.hl").count() == n
    page.screenshot(path=str(artifacts / "viewer-members.png"))
    # the 弟子 as a whole role is several people too; in English the menu names them so
    page.click("#lang")
    page.wait_for_selector("body[data-lang='en']")
    labels = page.locator("#role option").all_inner_texts()
    assert "the other guests (衆賓)" in labels or "other guests (衆賓)" in labels, labels
    assert any(o.startswith("all upper archer") for o in labels), labels
    # the one chosen stays chosen, and highlighted, in English
    assert page.locator("#stage svg g.person.hl").count() == n


def _diagram_words(pg: Any) -> list[str]:
    return pg.eval_on_selector_all("#stage svg text", "ts => ts.map(t => t.textContent)")


def test_diagram_menu_and_notes_in_english(
    page: Any, steps: list[dict[str, Any]], artifacts: Path
) -> None:
    # a step of the 司射 with a note that names an assumption (xiangshe:111: 主人之吏 …;
    # A-sishe-start): the note without the id, the assumption by what it says
    st = _first(steps, actor="司射", verb="適")
    _goto(page, st["seq"])
    _drawn(page)
    zh_words = _diagram_words(page)
    assert "司射" in " ".join(zh_words)
    assumed = page.inner_text("#assumed")
    assert assumed.startswith("假定：")
    assert "A-" not in page.inner_text("#side")  # no spec's id, in either language
    page.click("#lang")
    page.wait_for_selector("body[data-lang='en']")
    _drawn(page)
    words = _diagram_words(page)
    seen = " ".join(words)
    # people, fixtures and places by the English the drawing in English gives them
    assert "director" in words, words
    assert "west steps" in words and "east steps" in words, words
    assert words[0].startswith("The District Archery Meeting (鄉射禮) §")
    assert cjk_outside_brackets(seen) == []
    # a person's label stays inside its box, laid out for its English
    for box in page.locator("#stage svg g.person-label").all()[:6]:
        rect = box.locator("rect").bounding_box()
        for t in box.locator("text").all():
            b = t.bounding_box()
            assert b["x"] + b["width"] <= rect["x"] + rect["width"] + 1, t.text_content()
    assert page.inner_text("#assumed").startswith("assumed: The director of archery (司射)")
    # the sections by 賈疏's topics in English (sheli's translation of them)
    options = page.locator("#section option").all_inner_texts()
    assert "§13 The three rounds of shooting" in options, options[:14]
    assert page.inner_text("#sec").startswith("§13 The three rounds of shooting")
    _english(page)
    page.screenshot(path=str(artifacts / "viewer-english-diagram.png"))
    # and back: the diagram in the text's terms again
    page.click("#lang")
    page.wait_for_selector("body[data-lang='zh-Hant']")
    _drawn(page)
    assert _diagram_words(page) == zh_words


# each person's label in the drawing shown: its box, the box of its person's figure, whether
# the drawing placed it on his west (its box ends before his centre) and whether he is the actor
LABELS = """() => [...document.querySelectorAll('#stage svg g.person-label')].map((g) => {
  const who = g.getAttribute('data-for').replace(/^person:/, '');
  const p = document.querySelector(`#stage svg g.person[data-actor="${CSS.escape(who)}"]`);
  const box = g.querySelector('rect').getBoundingClientRect();
  const fig = p.querySelector('circle').getBoundingClientRect();
  const [, , x1] = g.getAttribute('data-box').split(' ').map(Number);  // as drawn: x0 y0 x1 y1
  const edge = document.querySelector('#stage svg rect.view').getBoundingClientRect().left;
  return {who, actor: p.classList.contains('actor'), west: x1 <= Number(p.dataset.cx), edge,
          box: [box.left, box.top, box.right, box.bottom],
          fig: [fig.left, fig.top, fig.right, fig.bottom]};
})"""


def _meet(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


def test_english_labels_grow_away_from_their_people(page: Any, steps: list[dict[str, Any]]) -> None:
    """At the first step (the guest at the gate, the company round him) the English names are
    longer than the drawing's: a label the drawing put on its person's west grows west (to
    the plan's edge at most), so it covers neither him nor the actor's label, which is whole
    on top."""
    page.click("#lang")
    page.wait_for_selector("body[data-lang='en']")
    _drawn(page)
    labels = page.evaluate(LABELS)
    (actor,) = [x for x in labels if x["actor"]]
    assert actor["who"] == "賓"
    west = [x for x in labels if x["west"] and not x["actor"]]
    assert len(west) >= 3, labels  # 大夫, 弟子, 衆笙 at the gate
    for x in west:
        # ends before its figure begins, or begins at the plan's west edge (no further)
        assert x["box"][2] <= x["fig"][0] + 1 or x["box"][0] <= x["edge"] + 4, x
        assert not _meet(x["box"], actor["box"]), (x, actor)
    # the actor's label is drawn over every other (the last of the labels)
    last = page.evaluate(
        "() => [...document.querySelectorAll('#stage svg g.person-label')].pop().dataset.for"
    )
    assert last == "person:賓"
    # where the company stands by the plan's west edge (xiangshe:139, the 三耦 at 堂西 and
    # the 司射 by the 中, the hall's whole plan), a label grows west no further than the
    # edge, where the plan is cut: none is cut that the drawing put whole on the plan
    _goto(page, _first(steps, cite="xiangshe:139")["seq"])
    _drawn(page)
    cut = page.evaluate(
        """() => {
          const view = document.querySelector('#stage svg rect.view');
          const edge = view.getBoundingClientRect().left;
          const west = Number(view.getAttribute('x'));
          return [...document.querySelectorAll('#stage svg g.person-label')]
            .filter((g) => Number(g.getAttribute('data-box').split(' ')[0]) >= west)
            .filter((g) => g.querySelector('rect').getBoundingClientRect().left < edge - 1)
            .map((g) => g.textContent);
        }"""
    )
    assert cut == [], cut

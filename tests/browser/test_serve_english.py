"""Every live page in English: the home page, the director's, a scorer's, a performer's and
the audience screen (``sheli serve``), in Debian's chromium as the other browser tests.

Each page is opened in English (``#lang=en``, as a link gives it; the home page by its
button) and read as a user reads it: nothing of the text's script stands outside brackets
anywhere on it (``cjk_outside_brackets``, the check of ``sheli run --lang en``), but the 經
(``.jing``), which stays as the text gives it, and the switch's own name (中文). Its words
come from the gettext catalogue and the glossary (``sheli.serve.english``); what the page's
script writes as the rite goes (the director stepping on) is in English too. Back to the
text's terms, the page reads as before. Screenshots (``test-artifacts/``):
``serve-english-home.png``, ``serve-english-director.png``, ``serve-english-scorer.png``,
``serve-english-performer.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from test_serve_event import Pages, _submit, fill_short_event, pages, serve, server

from sheli.outputs.english import cjk_outside_brackets

__all__ = ["pages", "serve", "server"]  # the fixtures of test_serve_event.py, used here

# what a reader sees: the page's text but the 經 and the switch, and every hint and name
# a field or a button gives (but the CSV box's example, which is what to type: the roles as
# the text names them)
SEEN = """() => {
  const body = document.body.cloneNode(true);
  for (const e of body.querySelectorAll('.jing, script, style, textarea, #page-lang, [hidden]'))
    e.remove();
  const hints = [...document.querySelectorAll('[placeholder], [title], [aria-label]')]
    .filter((e) => !e.closest('.jing, #page-lang, textarea'))
    .flatMap((e) => ['placeholder', 'title', 'aria-label'].map((a) => e.getAttribute(a) || ''));
  return [body.innerText, ...hints, document.title].join('\\n');
}"""


def _english(pg: Any) -> str:
    """The page in English, read; fails where the text's script stands outside brackets."""
    pg.wait_for_selector("body[data-english='1']")
    seen = pg.evaluate(SEEN)
    assert cjk_outside_brackets(seen) == [], cjk_outside_brackets(seen)[:10]
    assert pg.get_attribute("html", "lang") == "en"
    return seen


def _open_english(pages: Pages, link: str, width: int, height: int, **ctx: Any) -> Any:
    pg = pages.open(link + "#lang=en", width, height, **ctx)
    pg.wait_for_selector("body[data-english='1']")
    return pg


def test_every_live_page_in_english(pages: Pages, artifacts: Path) -> None:
    # the home page, by its button; its form made in English
    home = pages.open("/", 1100, 900)
    assert home.text_content("#page-lang") == "EN"
    home.click("#page-lang")
    seen = _english(home)
    assert "create an event (設射禮)" in seen
    assert "rite (禮)" in seen
    assert home.locator("#rite option:checked").inner_text() == (
        "The District Archery Meeting (鄉射禮)"  # Steele's name for it
    )
    assert home.text_content("#page-lang") == "中文"
    assert home.evaluate("location.hash") == "#lang=en"
    home.screenshot(path=str(artifacts / "serve-english-home.png"), full_page=True)
    fill_short_event(home)
    links = _submit(home)  # the links, written by the page's script: in English as well
    seen = _english(home)
    assert "links (each is a secret: give each only to its holder) (連結)" in seen

    # the director: stepping on, what his script writes is in English as it comes
    director = _open_english(pages, links["director"], 1280, 900)
    seen = _english(director)
    assert "The District Archery Meeting (鄉射禮)" in director.text_content("header h1")
    assert "next moment (次節)" in seen
    assert director.text_content("#pos").startswith("step 1 / ")
    director.keyboard.press("ArrowRight")
    director.wait_for_selector("body[data-index='1']")
    seen = _english(director)
    assert director.text_content("#pos").startswith("step 2 / ")
    actor = director.text_content("#actor")
    assert actor.endswith(")") and "(" in actor, actor  # English, the term in brackets
    director.screenshot(path=str(artifacts / "serve-english-director.png"), full_page=True)

    # a scorer on a phone, a performer's cue sheet on a phone
    scorer = _open_english(pages, links["scorer:上射"], 390, 844, is_mobile=True)
    seen = _english(scorer)
    assert "MISS (不中)" in seen or "miss (不中)" in seen
    scorer.screenshot(path=str(artifacts / "serve-english-scorer.png"), full_page=True)
    performer = _open_english(pages, links["performer:釋獲者"], 390, 844, is_mobile=True)
    seen = _english(performer)
    assert "scorer (釋獲者)" in seen
    performer.screenshot(path=str(artifacts / "serve-english-performer.png"))

    # the audience screen has its own switch (its test: test_serve_event.py); in English
    # by its address, its title bar gives the rite's name as Steele gives it
    audience = pages.open(links["audience"] + "#lang=en", 1280, 720)
    audience.wait_for_selector("body[data-lang='en']")
    assert audience.text_content("header.bar h1") == "The District Archery Meeting (鄉射禮)"

    # and back to the text's terms: key l; the page as the server gives it
    with director.expect_navigation():
        director.keyboard.press("l")
    director.wait_for_selector("body[data-ready='1']")
    assert director.get_attribute("body", "data-english") is None
    assert director.get_attribute("html", "lang") == "zh-Hant"
    assert director.text_content("#next-moment").strip() == "次節 ▶▶"
    assert director.text_content("#page-lang") == "EN"


def test_the_pages_english_comes_from_the_catalogue(server: str) -> None:
    # the words of the pages by the catalogue's English, the terms by the glossary's
    with httpx.Client(base_url=server, timeout=30) as c:
        r = c.get("/english.json")
    assert r.status_code == 200
    w = r.json()
    assert w["ui"]["次節"] == "next moment (次節)"
    assert w["ui"]["大射儀"] == "The Observances of the Great Archery Meeting (大射儀)"
    assert w["terms"]["司射"] == "director of archery"
    assert w["terms"]["中"] == "hit"  # an arrow's 中, not the tally vessel

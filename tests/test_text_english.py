"""The English translation of the 經 and 記 (sheli/text/data/en): complete, in place, readable."""

from __future__ import annotations

import re

import pytest

from sheli.glossary import english as gloss
from sheli.text import load_chapter
from sheli.text.corpus import CHAPTER_KEYS
from sheli.text.english import english, load_english, missing

# CJK ideographs (the basic block, extension A and the supplementary planes' B–F).
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")


@pytest.mark.parametrize("key", CHAPTER_KEYS)
def test_every_passage_has_english_and_none_extra(key: str) -> None:
    ids = {p.n for p in load_chapter(key).passages}
    have = set(load_english(key))
    assert have == ids, (sorted(ids - have)[:10], sorted(have - ids)[:10])
    assert not [m for m in missing() if m.startswith(f"{key}:")]


def test_the_count_is_that_of_the_three_chapters() -> None:
    # 鄉射禮 391, 燕禮 185, 大射儀 324: every passage id, none extra.
    counts = {k: len(load_english(k)) for k in CHAPTER_KEYS}
    assert counts == {"xiangshe": 391, "yan": 185, "dashe": 324}
    assert missing() == []


@pytest.mark.parametrize("key", CHAPTER_KEYS)
def test_english_has_no_cjk_outside_brackets(key: str) -> None:
    bad = []
    for t in load_english(key).values():
        assert t.text.strip(), t.passage
        if CJK.search(re.sub(r"\([^()]*\)", "", t.text)):
            bad.append(t.passage)
    assert not bad


@pytest.mark.parametrize("key", CHAPTER_KEYS)
def test_readings_name_the_commentary(key: str) -> None:
    for t in load_english(key).values():
        if t.reading:
            assert re.match(r"^(鄭|賈|敖|義疏|李)( \(on [a-z]+:\d+\))?: ", t.reading), (
                t.passage,
                t.reading,
            )


def test_lookup_by_id() -> None:
    t = english("xiangshe:248")
    assert t is not None and "drum" in t.text and t.passage == "xiangshe:248"


def test_cli_shows_english_beside_the_chinese() -> None:
    from click.testing import CliRunner

    from sheli.cli.text import text

    r = CliRunner().invoke(text, ["xiangshe:247", "--lang", "en", "--no-notes"])
    assert r.exit_code == 0, r.output
    assert "司馬升命去侯" in r.output  # the Chinese stays
    assert 'asks the guest: "May we have music to please you, sir?"' in r.output
    assert "reading: 鄭:" in r.output
    plain = CliRunner().invoke(text, ["xiangshe:247", "--no-notes"])
    assert "May we have music" not in plain.output
    js = CliRunner().invoke(text, ["xiangshe:3", "--lang", "en", "--json", "--no-notes"])
    assert '"english": "There is no companion (介) for the guest."' in js.output
    hans = CliRunner().invoke(text, ["xiangshe:248", "--lang", "zh-Hans", "--no-notes"])
    assert "不鼓不释" in hans.output


# Terms with one sense in the three chapters, and the word of their glossary English that the
# translation must use wherever the term appears (the glossary's English contains it).
CONSISTENT = {
    "楅": "arrow rest",
    "乏": "blind",
    "釋獲者": "scorer",
    "司射": "director of archery",
    "豐": "cup stand",
    "上射": "upper archer",
    "下射": "lower archer",
    "扑": "rod",
    "旌": "flag",
    "決": "thumb ring",
    "袒": "bare",
    "楹": "pillar",
    "阼階": "east steps",
    "西階": "west steps",
    "揖": "salute",
}


@pytest.mark.parametrize("term", sorted(CONSISTENT))
def test_terms_are_translated_as_in_the_glossary(term: str) -> None:
    word = CONSISTENT[term]
    assert word in (gloss(term) or "") or word in (gloss(term, "verbs", "dress") or ""), term
    off = [
        p.id
        for k in CHAPTER_KEYS
        for p in load_chapter(k).passages
        if term in p.text and word not in load_english(k)[p.n].text.lower()
    ]
    assert off == [], f"{term} ({word}) not so translated in {off}"

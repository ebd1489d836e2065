"""The text API: chapters, passages, ids, sections."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheli.text import (
    UnknownPassage,
    chapter_key,
    chapters,
    get_passage,
    load_chapter,
    parse_id,
    parse_range,
)

COUNTS = {"xiangshe": 391, "yan": 185, "dashe": 324}
SECTIONS = {"xiangshe": 30, "yan": 22, "dashe": 38}


def test_chapter_sizes() -> None:
    assert {c.key: len(c.passages) for c in chapters()} == COUNTS
    assert {c.key: len(c.sections) for c in chapters()} == SECTIONS


def test_first_and_last_passages() -> None:
    assert get_passage("xiangshe:1").text.startswith("鄉射之禮主人戒賓")
    assert get_passage("xiangshe:248").text.endswith("不鼓不釋")
    assert get_passage("yan:185").id == "yan:185"
    assert get_passage("dashe:324").text == "公入驁"


def test_ji_begins_where_the_corpus_says() -> None:
    for key, first_ji in (("xiangshe", 310), ("yan", 158)):
        kinds = [p.kind for p in load_chapter(key).passages]
        assert kinds[first_ji - 2] == "經" and set(kinds[first_ji - 1 :]) == {"記"}
    assert {p.kind for p in load_chapter("dashe").passages} == {"經"}
    assert get_passage("xiangshe:310").text.startswith("記")


@pytest.mark.parametrize(
    "bad,words",
    [
        ("xiangshe:392", "鄉射禮 has 391 passages"),
        ("xiangshe:0", "鄉射禮 has 391 passages"),
        ("yan:186", "燕禮 has 185 passages"),
        ("qin:1", "not a chapter"),
        ("xiangshe", "not a passage id"),
        ("xiangshe:abc", "not a passage id"),
        ("xiangshe:3-5", "range"),
    ],
)
def test_unknown_ids_are_clear_errors(bad: str, words: str) -> None:
    with pytest.raises(UnknownPassage, match=words):
        get_passage(bad)
    assert issubclass(UnknownPassage, ValueError)


def test_names_and_scripts() -> None:
    for name in ["xiangshe", "鄉射禮", "鄉射", "乡射礼", "郷射禮", "鄉射禮第五", "XiangShe"]:
        assert chapter_key(name) == "xiangshe", name
    for name in ["大射儀", "大射", "大射仪", "dashe"]:
        assert chapter_key(name) == "dashe", name
    for name in ["燕禮", "燕礼", "yan"]:
        assert chapter_key(name) == "yan", name
    assert parse_id("乡射礼:247") == ("xiangshe", 247)
    assert parse_id("dashe：7") == ("dashe", 7)
    assert parse_range("xiangshe:110-115") == ("xiangshe", 110, 115)
    with pytest.raises(UnknownPassage):
        parse_range("xiangshe:115-110")


@given(st.sampled_from(sorted(COUNTS)), st.data())
def test_ids_round_trip(key: str, data: st.DataObject) -> None:
    n = data.draw(st.integers(1, COUNTS[key]))
    p = get_passage(f"{key}:{n}")
    assert (p.chapter, p.n) == (key, n)
    assert parse_id(p.id) == (key, n)


def test_sections_are_ordered_and_in_range() -> None:
    for ch in chapters():
        assert [s.n for s in ch.sections] == list(range(1, len(ch.sections) + 1))
        for s in ch.sections:
            assert 1 <= s.first <= s.last <= len(ch.passages), (ch.key, s.n)
            assert s.topic and s.form, (ch.key, s.n)
        firsts = [s.first for s in ch.sections]
        assert firsts == sorted(firsts)


def test_every_passage_knows_its_section() -> None:
    for ch in chapters():
        for p in ch.passages:
            if p.section is None:
                # Only 記 passages that 賈 leaves outside his divisions have none.
                assert p.kind == "記", p.id
                assert not any(p.n in s for s in ch.sections)
                continue
            s = ch.section(p.section)
            if p.section_inferred:
                assert not any(p.n in x for x in ch.sections)
                assert s.last < p.n
            else:
                assert p.n in s


def test_known_sections() -> None:
    # docs/xiangshe-spec.md: the archery of 鄉射禮 is 經 lines 110–258, 賈疏 sections 13–25.
    xs = load_chapter("xiangshe")
    assert xs.section(13).first == 110
    assert xs.section(25).last == 258
    assert get_passage("xiangshe:247").section == 25
    assert get_passage("xiangshe:1").section == 1
    assert "戒賓" in xs.section(1).topic
    # The nested 「此巳下論預張侯之事」 runs to the end of section 2.
    assert xs.section(3).first == 10 and xs.section(3).last == xs.section(2).last
    assert get_passage("xiangshe:10").section == 3
    assert get_passage("yan:124").section == 17


def test_sources_are_declared() -> None:
    seen = set()
    for ch in chapters():
        for p in ch.passages:
            assert p.source in {"seed:000", "seed:002", "seed:003", "seed:004", "corpus:WYG"}
            seen.add(p.source)
    assert {"seed:000", "seed:002", "seed:003", "seed:004", "corpus:WYG"} == seen
    # 002 is 燕禮 only; 000 and 004 are 鄉射禮 only.
    assert {p.source for p in load_chapter("yan").passages} <= {
        "seed:002",
        "seed:003",
        "corpus:WYG",
    }
    assert "seed:000" in {p.source for p in load_chapter("xiangshe").passages}

"""Search in any form of the characters."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheli.text import chapters
from sheli.text.search import EmptyQuery, search
from sheli.text.variants import fold, to_simplified

PASSAGES = [p for c in chapters() for p in c.passages]


def test_simplified_query() -> None:
    ids = [h.pid for h in search("不鼓不释")]
    assert "xiangshe:248" in ids


def test_variant_query_jian_xian() -> None:
    hits = search("間若一")
    assert {h.passage.chapter for h in hits} == {"xiangshe", "dashe"}
    for h in hits:
        assert h.passage.text[h.span[0] : h.span[1]] == "閒若一"


def test_chapter_filter_and_punctuation() -> None:
    assert [h.pid for h in search("不鼓，不釋。", ["鄉射禮"])] == ["xiangshe:248"]
    assert all(h.passage.chapter == "dashe" for h in search("公", ["dashe"]))


def test_empty_query() -> None:
    for q in ["", "  ", "，。"]:
        with pytest.raises(EmptyQuery):
            search(q)


def test_no_hit() -> None:
    assert search("電腦") == []


@settings(max_examples=60)
@given(st.sampled_from(PASSAGES), st.data())
def test_any_substring_in_simplified_finds_its_passage(p, data) -> None:  # type: ignore[no-untyped-def]
    a = data.draw(st.integers(0, len(p.text) - 1))
    b = data.draw(st.integers(a + 1, min(len(p.text), a + 8)))
    q = to_simplified(p.text[a:b])
    hits = {h.pid: h for h in search(q)}
    assert p.id in hits
    assert all(fold(p.text)[x:y] == fold(q) for x, y in hits[p.id].spans)


def test_match_across_a_passage_boundary() -> None:
    # xiangshe:248 ends 不鼓不釋; xiangshe:249 begins 上射揖.
    hits = search("不鼓不释上射揖", ["xiangshe"])
    assert [(h.pid, h.through) for h in hits] == [("xiangshe:248", "xiangshe:249")]
    h = hits[0]
    assert h.passage.text[h.span[0] : h.span[1]] == "不鼓不釋"
    assert all(h.through is None for h in search("不鼓不釋"))


@settings(max_examples=40)
@given(st.sampled_from([c for c in chapters()]), st.data())
def test_any_stretch_across_passages_is_found(ch, data) -> None:  # type: ignore[no-untyped-def]
    k = data.draw(st.integers(0, len(ch.passages) - 2))
    a, b = ch.passages[k], ch.passages[k + 1]
    q = a.text[-min(3, len(a.text)) :] + b.text[: min(3, len(b.text))]
    hit = {h.pid: h for h in search(q, [ch.key])}[a.id]
    assert hit.through == b.id


def test_cli_query_of_punctuation_or_a_pattern_is_answered_as_such() -> None:
    from click.testing import CliRunner

    from sheli.cli.text import search as search_cmd

    r = CliRunner().invoke(search_cmd, [".*("])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "'.*(' has no character of the text" in r.output and "empty" not in r.output
    r = CliRunner().invoke(search_cmd, ["  "])
    assert r.exit_code == 2 and "the query is empty" in r.output


@pytest.mark.slow
def test_cli_says_a_megabyte_query_back_cut_short() -> None:
    from click.testing import CliRunner

    from sheli.cli.text import search as search_cmd

    query = "電腦" * 500_000  # a megabyte of the text's script, which no passage holds
    r = CliRunner().invoke(search_cmd, [query])
    assert r.exit_code == 0, r.output
    (line,) = r.output.splitlines()
    assert line.startswith("no passage contains '電腦") and "(1000000 characters)" in line
    assert len(line) < 120
    r = CliRunner().invoke(search_cmd, ["，" * 1_000_000])
    assert r.exit_code == 2 and len(r.output) < 1000

"""Variant folding, normalisation, and simplified display."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sheli.text import chapters
from sheli.text.variants import (
    fold,
    normalisations,
    normalise,
    to_simplified,
    to_traditional,
    variant_groups,
)

ALL_TEXT = "".join(p.text for c in chapters() for p in c.passages)
passage_texts = st.sampled_from([p.text for c in chapters() for p in c.passages])


def test_brief_pairs_fold_together() -> None:
    for group in [
        "矦侯",
        "歩步",
        "岀出",
        "𤣥玄",
        "筭算",
        "个個",
        "于於",
        "鈞均",
        "豫序榭",
        "弣付",
        "爲為",
        "閒間",
    ]:
        assert len({fold(c) for c in group}) == 1, group


def test_distinct_words_stay_distinct() -> None:
    for a, b in ["上下", "左右", "賓主", "弓矢", "射獲", "于之"]:
        assert fold(a) != fold(b)


def test_tables_are_reviewed_rows() -> None:
    sources = [n.source for n in normalisations()]
    assert len(sources) == len(set(sources))
    for n in normalisations():
        assert len(n.source) == 1 and len(n.target) == 1 and n.note
        # A target is final: normalising twice changes nothing.
        assert normalise(n.target) == n.target
    for g in variant_groups():
        assert len(g.forms) >= 2 and g.note
        # Textual variants are not normalised away.
        assert normalise("".join(g.forms)) == "".join(g.forms)


def test_normalise_keeps_textual_forms() -> None:
    assert normalise("賔于矦个算閒") == "賓于侯个算閒"


@given(passage_texts)
def test_fold_keeps_positions_and_is_idempotent(s: str) -> None:
    f = fold(s)
    assert len(f) == len(s)
    assert fold(f) == f


@given(passage_texts)
def test_simplified_and_traditional_fold_alike(s: str) -> None:
    assert fold(to_simplified(s)) == fold(s)
    # (to_traditional is no inverse: OpenCC guesses, e.g. 上复位 → 上覆位; the corpus decides.)


@given(st.text(alphabet=sorted(set(ALL_TEXT)), max_size=30))
@pytest.mark.slow
def test_fold_of_any_text_chars(s: str) -> None:
    assert len(fold(s)) == len(s)
    assert fold(normalise(s)) == fold(s)


def test_simplified_display() -> None:
    assert to_simplified("司射遂適階閒堂下北面命曰不鼓不釋").endswith("不鼓不释")
    assert to_traditional("乡射之礼") == "鄉射之禮"


def test_groups_do_not_merge_each_other() -> None:
    # Folding through simplified forms must not join two reviewed groups into one.
    reps = [g.forms[0] for g in variant_groups()]
    reps += sorted({n.target for n in normalisations()})
    keys = [fold(r) for r in reps]
    assert len(set(keys)) == len(keys)

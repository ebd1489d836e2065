"""The alignment core: folding keeps length, the chain is the heaviest, anchors are exact."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheli.text.align import EDITION_FORMS, Target, align_doc, fold_text, heaviest_chain
from sheli.text.kanripo import parse_kanripo

CJK = "鄉射之禮主人戒賓賔出岀迎再拜荅答乃請矦侯于於靣面飮飲𫉬獲巳已筭算个個"


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SHELI_DATA_DIR", str(tmp_path))


@given(st.text(alphabet=CJK + "○¶/()", max_size=60))
def test_fold_keeps_length(s: str) -> None:
    assert len(fold_text(s)) == len(s)


def test_edition_forms_fold_to_the_standard_form() -> None:
    for raw, std in EDITION_FORMS.items():
        assert fold_text(raw) == fold_text(std), raw


def _brute(cands: list[tuple[int, int, int, int]]) -> int:
    best = 0
    for r in range(1, len(cands) + 1):
        for combo in itertools.combinations(sorted(cands), r):
            ok = all(a[0] < b[0] and a[2] <= b[1] for a, b in itertools.pairwise(combo))
            if ok:
                best = max(best, sum(c[3] for c in combo))
    return best


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 4), st.integers(0, 12), st.integers(1, 4), st.integers(1, 9)),
        max_size=7,
    )
)
def test_chain_is_the_heaviest(raw: list[tuple[int, int, int, int]]) -> None:
    cands = [(i, s, s + ln, w) for i, s, ln, w in raw]
    chain = heaviest_chain(cands, 20)
    assert sum(c[3] for c in chain) == _brute(cands)
    for a, b in itertools.pairwise(chain):
        assert a[0] < b[0] and a[2] <= b[1]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_anchors_are_exact_ordered_and_disjoint(seed: int) -> None:
    """Passages set among notes, in order, are found exactly where they are."""
    rnd = random.Random(seed)
    passages = [
        "".join(rnd.choice(CJK[:20]) for _ in range(rnd.randint(2, 9)))
        for _ in range(rnd.randint(1, 8))
    ]
    body = "".join(f"{p}({rnd.choice(['注曰', '某也', '矦'])})" for p in passages)
    doc = parse_kanripo(f"#+PROPERTY: ID KR1d0026\n{body}¶\n")
    targets = [Target(f"xiangshe:{i + 1}", p) for i, p in enumerate(passages)]
    al = align_doc(doc, "xiangshe", targets)
    assert al.unanchored == []
    starts = [a.start for a in al.anchors]
    assert starts == sorted(starts)
    for a, p in zip(al.anchors, passages, strict=True):
        got = "".join(c.ch for c in doc.chars[a.start : a.end])
        assert fold_text(got) == fold_text(p)


def test_ji_out_of_order_in_tu() -> None:
    doc = parse_kanripo(
        "#+PROPERTY: ID KR1d0032\n"
        "乃席賔南面東上(注一)○記大夫與則公士爲賔(注二)衆賔之席繼而西(注三)¶\n"
    )
    targets = [
        Target("xiangshe:4", "乃席賓南面東上"),
        Target("xiangshe:5", "衆賓之席繼而西"),
        Target("xiangshe:310", "記大夫與則公士為賓", "記"),
    ]
    al = align_doc(doc, "xiangshe", targets)
    assert al.unanchored == []
    by = {a.pid: a.start for a in al.anchors}
    assert by["xiangshe:4"] < by["xiangshe:310"] < by["xiangshe:5"]


def test_markup_is_removed_and_entities_kept() -> None:
    raw = "#+TITLE: 儀禮注疏\n<pb:KR1d0028_WYG_005-1a>¶\n當&KR0925;北面(音/義)&KR9999;¶\n"
    doc = parse_kanripo(raw)
    assert doc.text == "當楣北面音義〓"
    assert doc.chars[-1].out == "&KR9999;"
    assert [c.small for c in doc.chars] == [False] * 4 + [True, True, False]

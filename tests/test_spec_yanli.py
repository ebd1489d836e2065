"""燕禮 whole (yanli.yaml): the feast yan:1–123, the 燕射 in its place (yan:124), the rest and
the 記 (yan:125–185). Each test checks a statement of the text or of the spec's contract."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from loglines import shot_lines, step_lines, tally_lines

from sheli.engine import run
from sheli.engine.check import parse_cite
from sheli.engine.coverage import coverage
from sheli.rite import load_spec


@cache
def yanli(seed: int = 0, **options: Any) -> Any:
    return run("yanli", seed=seed, options=options or None)


@pytest.fixture(scope="module", autouse=True)
def runs_read() -> None:
    """The runs several tests read (with and without the archery), made before them and not
    by the first to ask."""
    yanli()
    yanli(she=False)


def _no_seq(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != "seq"} for e in lines]


def _index(r: Any, cite: str) -> int:
    return next(i for i, e in enumerate(step_lines(r)) if e["cite"] == cite)


@pytest.mark.slow
def test_aliases_are_the_texts_names() -> None:
    assert load_spec("燕禮").spec.rite == "yanli"
    assert load_spec("燕礼").spec.rite == "yanli"


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"she": False},
        {"ke": True},
        {"laochen": True, "wu": True},
        {"zhugong": True, "gongming": True, "ci": "長", "xiao": False},
    ],
)
@pytest.mark.slow
def test_runs_whole_without_warnings(options: dict[str, Any]) -> None:
    r = yanli(**options)
    assert r.rite == "yanli"
    assert not r.warnings
    assert step_lines(r)[0]["cite"] == "yan:1"
    assert step_lines(r)[-1]["cite"] == "yan:149"  # 卿大夫皆出


def test_coverage_is_whole_with_no_gap() -> None:
    rep = coverage("yanli")
    assert rep.count("gap") == 0
    assert rep.share >= 0.95
    assert len(rep.passages) == 185


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.slow
def test_the_archery_is_the_yanshe_archery(seed: int) -> None:
    # the same 燕射 for the same outcomes: shots, tallies and drinkers of `sheli run yanshe`
    a, b = yanli(seed), run("yanshe", seed=seed)
    assert _no_seq(shot_lines(a)) == _no_seq(shot_lines(b))
    assert _no_seq(tally_lines(a)) == _no_seq(tally_lines(b))
    assert a.drank == b.drank


@pytest.mark.slow
def test_the_archery_comes_after_the_xian_shi_and_lü_shi() -> None:
    # 疏 yan:124 此獻士旅食後乃射; then 賓媵觚于公 (yan:125)
    r = yanli()
    first_shot = min(s["seq"] for s in shot_lines(r))
    assert _index(r, "yan:123") < _index(r, "yan:124")
    seq_of = {i: e.get("seq") for i, e in enumerate(step_lines(r))}
    assert seq_of[_index(r, "yan:123")] < first_shot < seq_of[_index(r, "yan:125")]


def test_without_she_there_is_no_archery() -> None:
    r = yanli(she=False)
    assert not shot_lines(r) and not tally_lines(r)
    assert not any(parse_cite(e["cite"])[0] == "xiangshe" for e in step_lines(r))
    assert _index(r, "yan:123") < _index(r, "yan:125")


def test_the_feast_drinks_are_not_forfeits() -> None:
    # every drink before the archery is round 0: no 罰爵 in the feast
    r = yanli(she=False)
    assert r.drinks and all(rnd == 0 for rnd, _who, _cite in r.drinks)
    assert not r.drank


@pytest.mark.slow
def test_only_gong_and_bin_have_zu() -> None:
    # 記 yan:170 惟公與賓有俎 (in the feast; the 燕射's 獲者 have theirs, xiangshe:224)
    r = yanli()
    places = [
        e
        for e in step_lines(r)
        if e["verb"] == "設" and e.get("obj") == "俎" and e["cite"].startswith("yan:")
    ]
    assert {e["actor"] for e in places} == {"膳宰"}
    assert [parse_cite(e["cite"])[1] for e in places] == [34, 48]


def test_the_binzhe_is_the_sizheng_and_the_sima() -> None:
    # 射人…遂為司正 (yan:108); 注 yan:124 其為司正者亦為司馬: one person
    r = yanli()
    who = {e["actor"] for e in step_lines(r) if e["cite"] in ("yan:11", "yan:108", "yan:109")}
    assert who >= {"司馬"}
    assert any(e["actor"] == "司馬" and e["cite"].startswith("xiangshe:") for e in step_lines(r))


def test_the_yuezheng_stands_west_of_the_gong_beside_the_stair() -> None:
    """席工于西階上少東樂正先升北面立于其西 (yan:90); 工四人…升自西階北面東上 (yan:91): the
    大師 at the east end, the 工 west of him, the 樂正 west of them beside the 西階 (注
    xiangshe:85 「言少東者明樂正西側階」)."""
    r = yanli()
    at = {
        e["actor"]: e
        for e in step_lines(r)
        if e["cite"] in ("yan:90", "yan:91") and e.get("x") is not None
    }
    stair = next(f for f in r.scene.fixtures if f["name"] == "西階")
    assert at["大師"]["x"] > at["工"]["x"] > at["樂正"]["x"] > stair["x"]
    assert at["大師"]["y"] == at["工"]["y"] == at["樂正"]["y"]

"""Rows (北上, 東上 …): a group stands slot by slot from the head the text names.

三耦皆進由司射之西立于其西南東面北上 (xiangshe:127): the six archers stand in one north–south
line facing east, pairs in order and 上射 before 下射, the 上耦上射 northmost; 衆賓…繼三耦之南而
立東面北上 (xiangshe:179) continues the 三耦's row of xiangshe:170.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

import pytest
from loglines import step_lines

from sheli.engine import run
from sheli.place import load_venue
from sheli.place.model import Point

ORDER = [f"{p}{s}" for p in ("上耦", "次耦", "下耦") for s in ("上射", "下射")]


@cache
def steps(pairs: int = 0) -> list[dict[str, Any]]:
    return step_lines(run("xiangshe", seed=1, pairs=pairs))


def stood(cite: str, verb: str, pairs: int = 0) -> dict[str, dict[str, Any]]:
    """The first line of each person doing ``verb`` at ``cite``."""
    out: dict[str, dict[str, Any]] = {}
    for e in steps(pairs):
        if e["cite"] == cite and e["verb"] == verb:
            out.setdefault(e["actor"], e)
    return out


@pytest.mark.slow
def test_sanou_row_at_127() -> None:
    row = stood("xiangshe:127", "進")
    row.pop("司射")  # 司射東面立于三耦之北, the same passage
    assert list(row) == ORDER
    sp = load_venue("xie").offset("row")
    xs = {round(row[n]["x"], 6) for n in ORDER}
    assert len(xs) == 1  # one north–south line
    ys = [row[n]["y"] for n in ORDER]
    for a, b in itertools.pairwise(ys):
        assert a - b == pytest.approx(sp)  # 上耦上射 northmost, one row offset apart
    assert all(row[n]["facing"] == "E" for n in ORDER)
    assert all("北上" in row[n]["place"] for n in ORDER)


@pytest.mark.slow
def test_zhongbin_continue_the_row_at_179() -> None:
    sanou = stood("xiangshe:170", "進", pairs=2)
    zhong = stood("xiangshe:179", "進", pairs=2)
    sp = load_venue("xie").offset("row")
    last = sanou["下耦下射"]
    # 大夫之耦爲上: the 大夫's 耦 heads the 衆賓, then 衆耦1上射, 衆耦1下射 …
    assert list(zhong) == ["大夫之耦", "衆耦1上射", "衆耦1下射", "衆耦2上射", "衆耦2下射"]
    for i, name in enumerate(zhong, start=1):
        assert zhong[name]["x"] == pytest.approx(last["x"])
        assert zhong[name]["y"] == pytest.approx(last["y"] - i * sp)


@pytest.mark.slow
def test_no_two_archers_on_one_spot_at_the_shewei() -> None:
    row = stood("xiangshe:210", "進", pairs=3)
    spots = {(round(e["x"], 3), round(e["y"], 3)) for e in row.values()}
    assert len(spots) == len(row)


# ---------------------------------------------------------------- 盡階不升堂 (xiangshe:190, 202)


@pytest.mark.slow
def test_shihuozhe_announces_from_the_top_step() -> None:
    """釋獲者…升自西階盡階不升堂告于賓 (xiangshe:190, 202): on the 階, not on the 堂."""
    v = load_venue("xie")
    tells = [e for e in steps() if e["actor"] == "釋獲者" and e["verb"] == "告"]
    assert {e["cite"] for e in tells} >= {"xiangshe:190", "xiangshe:203"}
    for e in tells:
        p = Point(e["x"], e["y"])
        assert v.area(p) == "階", e
        assert not v.on_tang(p)
        assert v.stair_at(p) == "西階"
        assert e["facing"] == "N"
    # 降 from there brings him to the foot of the 階, in the 庭: beside it on its west, clear of
    # the way up (one who stands at a 階's foot, docs/place.md "Walks")
    foot = v.resolve({"foot_of": "西階"})
    west = v.stairs["西階"].extent.x0
    downs = [e for e in steps() if e["actor"] == "釋獲者" and e["verb"] == "降"]
    assert downs
    for e in downs:
        p = Point(e["x"], e["y"])
        assert v.stair_at(p) is None and not v.on_tang(p), e
        assert e["y"] == foot.y and west - 3 <= e["x"] < west, e


def test_top_step_relation() -> None:
    v = load_venue("xiang")
    p = v.resolve({"top_step_of": "阼階"})
    assert v.area(p) == "階" and v.stair_at(p) == "阼階"
    assert p.y < 0 < v.resolve({"top_of": "阼階"}).y

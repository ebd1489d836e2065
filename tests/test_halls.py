"""Every hall its own: the 燕射 is held in the 燕's 路寢 (記 yan:158 燕朝服於寢; yan:124 若射則
大射正為司射如鄉射之禮), not in the 鄉射's hall; nothing of the 鄉庠 leaks into it. And the
大射儀's 司宮 keeps his 位 in the 北堂下 (注 dashe:127 工人士梓人司宮位在北堂下; 疏 其人升降自北階
明位在北堂下).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from loglines import step_lines

from sheli.engine import run
from sheli.place import load_venue
from sheli.place.loader import DATA
from sheli.yamlfile import load_yaml

# whole runs of the rites (README: the quick loop leaves them out)
pytestmark = pytest.mark.slow

QIN = load_venue("qin")


def _not_in_the_yan() -> dict[str, str]:
    """The 鄉庠's furniture the plan of the 寢 keeps and the 燕 does not have (qin.yaml)."""
    text = (DATA / "qin.yaml").read_text(encoding="utf-8")
    return dict(load_yaml(text)["not_in_the_yan"])


@cache
def _run(rite: str, reading: str | None = None) -> Any:
    return run(rite, readings=[reading] if reading else None)


def _archery(rite: str, reading: str | None = None) -> list[dict[str, Any]]:
    """The 燕射's step lines: all of yanshe's, the rounds of yanli's (yan:124)."""
    lines = step_lines(_run(rite, reading))
    if rite == "yanshe":
        return lines
    return [e for e in lines if e["round"] > 0 or e["cite"] == "yan:124"]


def _base(place: str | None) -> str | None:
    """尊之南 → 尊: the fixture a relation is measured from (the first name)."""
    return None if place is None else place.split("之")[0] if "之" in place else place


def _foreign(lines: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    """The places of these steps that the 燕's hall does not have: by name (where he stands,
    where a thing is put or taken) and by where he stands (on its extent)."""
    gone = _not_in_the_yan()
    out = []
    for e in lines:
        for k in ("place", "at", "to", "from"):
            v = e.get(k)
            if isinstance(v, str) and (v in gone or _base(v) in gone):
                out.append((e["seq"], e["cite"], f"{k} {v}"))
        for name in gone:
            box = QIN.fixtures[name].extent
            x, y = e.get("x"), e.get("y")
            if box and x is not None and box.x0 < x < box.x1 and box.y0 < y < box.y1:
                out.append((e["seq"], e["cite"], f"on {name}"))
    return out


def test_the_qin_lists_the_xiang_furniture_it_keeps() -> None:
    # the 鄉射's 尊 is 尊於賓席之東 (xiangshe:7); the 燕's are 東楹之西 (yan:5)
    gone = _not_in_the_yan()
    assert {"尊", "上篚"} <= set(gone)
    assert all(n in QIN.fixtures for n in gone)
    fang = QIN.fixture("方壺")
    assert fang.x > QIN.fixture("尊").x  # the 燕's wine stands elsewhere


@pytest.mark.parametrize(
    "rite,reading",
    [("yanshe", None), ("yanli", None), ("yanshe", "R-jun-xianfa"), ("yanli", "R-jun-yue-jiao")],
)
def test_no_step_of_the_yanshe_uses_a_place_the_yans_hall_lacks(
    rite: str, reading: str | None
) -> None:
    lines = _archery(rite, reading)
    assert lines
    assert _foreign(lines) == []


def test_the_check_finds_the_xiangshes_own_zun() -> None:
    # the same check on 鄉射禮 finds its 尊 (xiangshe:7) in use: it is not vacuous
    assert any("尊" in w for _, _, w in _foreign(step_lines(_run("xiangshe"))))


@pytest.mark.parametrize("rite", ["yanshe", "yanli"])
def test_the_dafu_sits_at_the_yans_dafuxi(rite: str) -> None:
    # yan:89 辯獻大夫遂薦之繼賓以西東上 (A-dafuxi): west of the 賓席, in the archery as well
    bin_xi, dafu_xi = QIN.fixture("賓席"), QIN.fixture("大夫席")
    assert dafu_xi.extent.x1 == pytest.approx(bin_xi.extent.x0)
    assert QIN.fixture("燕大夫席") == dafu_xi
    seats = [e for e in _archery(rite) if e["actor"] == "大夫" and e["place"] == "大夫席"]
    assert seats
    assert all(e["x"] < bin_xi.extent.x0 for e in seats)


def test_the_sheguong_has_a_beitang_and_a_beijie() -> None:
    # dashe:126 升自北階; 注 dashe:29 升自北階立于房中: the 北階 rises south into the 東房
    v = load_venue("shegong")
    jie = v.fixture("北階")
    assert jie.kind == "stair" and jie.foot is not None and jie.top is not None
    assert jie.foot.y > v.platform.y1 > jie.top.y
    assert v.area(jie.top) == "房"
    assert v.fixture("北堂下").point == jie.foot
    assert not v.crosses(jie.foot, jie.top)  # the way up is by the 階, not over the edge


def test_the_sigong_keeps_his_wei_in_the_beitang_xia_and_goes_by_the_beijie() -> None:
    # 注 dashe:127 工人士梓人司宮位在北堂下; 疏 其人升降自北階明位在北堂下
    lines = [e for e in step_lines(_run("dashe")) if e["actor"] == "司宮"]
    ups = [e for e in lines if e["verb"] in ("升", "降")]
    assert len(ups) >= 10
    assert {e["place"] for e in ups} == {"北階上", "北階下"}
    assert {e["place"] for e in lines if e["verb"] == "反位"} == {"北堂下"}
    # he sweeps the 物 the 工人士 drew (dashe:127 司宮埽所畫物自北階下)
    (sweep,) = [e for e in lines if e["verb"] == "埽"]
    up = [e for e in lines if e["seq"] < sweep["seq"] and e["verb"] == "升"][-1]
    down = next(e for e in lines if e["seq"] > sweep["seq"] and e["verb"] == "降")
    assert up["cite"] == down["cite"] == "dashe:127"
    assert (up["place"], down["place"]) == ("北階上", "北階下")


@pytest.mark.parametrize("rite", ["yanshe", "yanli"])
def test_the_gong_goes_to_his_wu_only_once_the_music_plays(rite: str) -> None:
    # 記 yan:177 君與射則為下射袒朱襦樂作而后就物 (R-jun-yue-ao, the default): in each round he
    # shoots, the 奏 comes before his 就物, in the 燕射 alone and in the whole 燕禮
    lines = _archery(rite)
    went = [e for e in lines if e["actor"] == "公" and e["verb"] == "就物"]
    assert [e["round"] for e in went] == [2, 3]
    for e in went:
        music = [x["seq"] for x in lines if x["verb"] == "奏" and x["round"] == e["round"]]
        assert music and music[0] < e["seq"]
        shots = [
            x["seq"]
            for x in lines
            if x["actor"] == "公" and x["verb"] == "射" and x["round"] == e["round"]
        ]
        assert len(shots) == 4 and min(shots) > e["seq"]


def test_the_qins_xuan_is_the_lords_three_sided_xuanxian() -> None:
    """樂人縣 (yan:3; 注 縣鍾磬也; 疏 諸侯軒縣面皆鍾磬鎛各一虡): the 路寢's 縣 is the 諸侯's 軒縣,
    hung on the east, west and north and open to the south (疏 yan:101 諸侯軒縣闕南面), not the
    鄉庠's one 磬 north-east of the 洗 (xiangshe:9); its 縣中 (注 yan:101 縣中央也) lies within
    the three sides, on the midline."""
    east, west, north, middle = (QIN.fixture(n) for n in ("東縣", "西縣", "北縣", "縣中"))
    xiang = load_venue("xiang").fixture("縣")
    assert (east.x, east.y) != (xiang.x, xiang.y)
    assert west.x < middle.x < east.x and middle.x == 0
    assert middle.y < north.y and middle.y <= min(east.y, west.y)
    assert east.x == -west.x and east.y == west.y


def test_the_sheng_stand_at_the_middle_of_the_xuan_facing_north() -> None:
    """笙入立于縣中 (yan:101; 注 縣中縣中央也; 疏 此雖軒縣亦立近縣之南北面也): the 笙 come in to the
    centre of the 軒縣 and face north, and go back there after their 獻 (yan:102–103)."""
    middle = QIN.fixture("縣中")
    steps = step_lines(_run("yanli"))
    came = [
        e
        for e in steps
        if e["actor"] in ("笙", "衆笙")
        and e["cite"] in ("yan:101", "yan:102", "yan:103")
        and e["verb"] in ("入", "進")
    ]
    assert {(e["cite"], e["actor"]) for e in came} >= {("yan:101", "笙"), ("yan:101", "衆笙")}
    assert all(e["place"] == "縣中" and e["facing"] == "N" for e in came)
    leader = [e for e in came if e["actor"] == "笙"]
    assert all((e["x"], e["y"]) == (middle.x, middle.y) for e in leader)

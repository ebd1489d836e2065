"""Two hands: what a person holds takes them, and an act that needs a hand needs one free.

A 祭 needs the other hand free (獲者左執爵右祭薦俎 dashe:249): the 工 does not 祭 with his 瑟
in hand but puts it to his left (工不興左瑟 xiangshe:93, dashe:107, yan:93; 注 辟主人授爵也,
注 yan:93 左瑟便其右) and is helped to 祭 (使人相祭 xiangshe:94, dashe:110, yan:95; 注 dashe:111
相者相其祭酒而已). Nobody holds more than two things in hand (搢 in the belt and 挾 between the
fingers do not count): a group that carries several things carries them in its members' hands.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from loglines import step_lines

from sheli.engine import run

RITES = ["xiangshe", "dashe", "yanshe", "yanli"]


@cache
def steps_of(rite: str) -> list[dict[str, Any]]:
    return step_lines(run(rite, seed=1))


@pytest.fixture(scope="module", autouse=True)
def runs_read() -> None:
    """The runs the tests read, each by several (seed 1 of every rite), made before them and
    not by the first to ask."""
    for rite in RITES:
        steps_of(rite)


def in_hand(step: dict[str, Any]) -> list[str]:
    """What the actor holds in his hands: not what is 搢 in his belt."""
    return [h for h in step.get("holds") or [] if not h.startswith("搢")]


@pytest.mark.parametrize(
    ("rite", "cite", "drink"),
    [
        ("xiangshe", "xiangshe:93", "xiangshe:95"),
        ("dashe", "dashe:107", "dashe:111"),
        ("yanli", "yan:93", "yan:98"),
    ],
)
@pytest.mark.slow
def test_gong_puts_the_se_to_his_left(rite: str, cite: str, drink: str) -> None:
    """工不興左瑟: the 瑟 is set down at the 工's left (west: he faces north) before the 爵
    comes, and he holds no 瑟 when he 祭s."""
    steps = steps_of(rite)
    down = [e for e in steps if e["cite"] == cite and e["verb"] == "奠" and e.get("obj") == "瑟"]
    assert [e["actor"] for e in down] == ["工"]
    put = down[0]
    assert put["holds"] == []
    taken = next(
        e for e in steps if e["verb"] == "受" and e.get("obj") == "爵" and e["seq"] > put["seq"]
    )
    assert taken["actor"] == "大師"  # 一人拜受爵: the 爵 comes after the 瑟 is down
    ji = [e for e in steps if e["cite"] == drink and e["actor"] == "工" and e["verb"] == "祭"]
    assert ji and all("瑟" not in e["holds"] for e in ji)


@pytest.mark.parametrize(
    ("rite", "cite", "helper", "helped"),
    [
        ("xiangshe", "xiangshe:94", "弟子", "大師"),
        ("dashe", "dashe:111", "相者", "工"),
        ("yanli", "yan:98", "小臣", "工"),
    ],
)
@pytest.mark.slow
def test_someone_helps_the_gong_to_ji(rite: str, cite: str, helper: str, helped: str) -> None:
    """使人相祭 (注 dashe:110 相其祭薦祭酒; 注 dashe:111 相者相其祭酒而已): the helper's 相
    comes before the 祭 it helps."""
    steps = [e for e in steps_of(rite) if e["cite"] == cite]
    xiang = [
        e["seq"]
        for e in steps
        if e["actor"] == helper and e["verb"] == "相" and e.get("to") == helped
    ]
    ji = [e["seq"] for e in steps if e["actor"] == helped and e["verb"] == "祭"]
    assert xiang and ji and min(xiang) < min(ji)


@pytest.mark.parametrize(
    ("rite", "huozhe"),
    [
        ("xiangshe", "獲者"),
        ("yanshe", "獲者"),
        ("yanli", "獲者"),
        ("dashe", "服不"),
        ("dashe", "參侯獲者"),
        ("dashe", "干侯獲者"),
    ],
)
@pytest.mark.slow
def test_huozhe_leans_his_jing_before_the_cup(rite: str, huozhe: str) -> None:
    """獲者左執爵右祭薦俎 (dashe:249; xiangshe:225 左執爵祭脯醢): 敖繼公 (義疏, on
    xiangshe:223) 還而倚旌乃拜. He leans the 旌 before he takes the 爵, 祭s with it out of
    his hands, and holds it again when he next 負矦 (xiangshe:229, dashe:256; 注 xiangshe:258
    旌恒執也)."""
    mine = [e for e in steps_of(rite) if e["actor"] == huozhe and e["round"] == 2]
    lean = [e for e in mine if e["verb"] == "倚" and e.get("obj") == "旌"]
    cup = [e for e in mine if e["verb"] == "受" and e.get("obj") in ("爵", "散")]
    ji = [e for e in mine if e["verb"] == "祭"]
    assert lean and cup and ji
    assert lean[-1]["seq"] < cup[0]["seq"]
    assert all("旌" not in e["holds"] for e in ji)
    after = [e for e in mine if e["seq"] > ji[-1]["seq"] and e["verb"] == "執"]
    assert after and "旌" in after[0]["holds"]


@pytest.mark.parametrize("rite", ["xiangshe", "yanshe"])
@pytest.mark.slow
def test_shooting_gear_comes_in_in_several_hands(rite: str) -> None:
    """乃納射器皆在堂西 (xiangshe:114): the 旌, 中, 筭, 楅 and 豐 are brought in by several
    people (注 xiangshe:119 獲者亦弟子也; 疏 xiangshe:124 弟子執射器入者即使守之以授用者):
    the 獲者 his 旌, the 釋獲者 the 中 and 筭, the 弟子 the 楅 and 豐."""
    brought = {
        e["obj"]: e["actor"]
        for e in steps_of(rite)
        if e["cite"] == "xiangshe:114" and e["verb"] == "奉" and e["obj"] != "弓"
    }
    assert brought == {"旌": "獲者", "中": "釋獲者", "筭": "釋獲者", "楅": "弟子", "豐": "弟子"}


def test_dashe_gear_for_the_west_hall_in_two_hands() -> None:
    """dashe:125 中籌豐皆止于西堂下: the 有司 bring the 中 and 筭, the 司宮士 the 豐 (義疏's
    案 on dashe:124 司宮士以豐入; dashe:226 司宮士奉豐)."""
    brought = {
        e["obj"]: e["actor"]
        for e in steps_of("dashe")
        if e["cite"] == "dashe:125" and e["verb"] == "奉"
    }
    assert brought == {"中": "有司", "筭": "有司", "豐": "司宮士", "楅": "有司"}


@pytest.mark.parametrize("rite", RITES)
def test_every_ji_has_a_hand_free(rite: str) -> None:
    """dashe:249 左執爵右祭: one hand holds the cup, the other sacrifices."""
    full = [
        (e["seq"], e["cite"], e["actor"], e["holds"])
        for e in steps_of(rite)
        if e["verb"] == "祭" and len(in_hand(e)) > 1
    ]
    assert full == []


@pytest.mark.parametrize("rite", RITES)
def test_nobody_holds_more_than_two_things(rite: str) -> None:
    crowded = [
        (e["seq"], e["cite"], e["actor"], e["holds"])
        for e in steps_of(rite)
        if len([h for h in in_hand(e) if not h.startswith("挾")]) > 2
    ]
    assert crowded == []


@pytest.mark.parametrize("rite", ["xiangshe", "yanshe"])
def test_hou_zhe_holds_five_between_the_fingers(rite: str) -> None:
    """後者遂取誘射之矢兼乘矢而取之 (xiangshe:178; 注 挾五个; 疏 亦搢三挾一个乃幷取誘射之矢
    兼挾之故五个也): the four arrows of the 誘射 go between his fingers with his own one, and
    the four he hands to the 有司 leave him 搢三挾一个."""
    steps = [e for e in steps_of(rite) if e["cite"] == "xiangshe:178" and e["round"] == 2]
    took = [e for e in steps if e["actor"].endswith("下射") and e["verb"] == "挾"]
    assert took and "挾矢五" in took[0]["holds"] and "矢四" not in took[0]["holds"]
    gave = [e for e in steps if e["verb"] == "授" and e.get("to") == "有司"]
    assert gave and gave[0]["holds"] == ["張弓", "搢矢三", "挾矢一"]

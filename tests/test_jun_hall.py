"""燕禮's archery in 燕禮's hall, with the 君 there.

注 yan:124 其告請先於君乃以命賓及卿大夫; 疏 此燕禮每事皆先請於君: every 請 and every 告 of the
鄉射's archery goes to the 君 first, as the 大射儀 says it for each (請 dashe:163, 179, 261,
269; 告 dashe:155 三耦卒射, 207 左右卒射, 223 the count), and then to the 賓.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from loglines import step_lines

from sheli.engine import run

SPEECH = ("告", "請", "命")


@cache
def steps_of(rite: str) -> list[dict[str, Any]]:
    return step_lines(run(rite, seed=1))


@pytest.fixture(scope="module", autouse=True)
def runs_read() -> None:
    """The runs the tests read, each by several (seed 1 of these rites), made before them and
    not by the first to ask."""
    for rite in ("yanshe", "yanli", "xiangshe"):
        steps_of(rite)


@pytest.mark.parametrize("rite", ["yanshe", "yanli"])
@pytest.mark.slow
def test_every_gao_and_qing_goes_to_the_jun_first(rite: str) -> None:
    """Between two things said to the 賓 under different passages, the speaker has said it
    to the 公 first."""
    told_jun: dict[str, bool] = {}
    last_cite: dict[str, str] = {}
    missing = []
    for e in steps_of(rite):
        if e["verb"] not in SPEECH or e["actor"] not in ("司射", "釋獲者"):
            continue
        if e.get("to") == "公":
            told_jun[e["actor"]] = True
        elif e.get("to") == "賓":
            if last_cite.get(e["actor"]) == e["cite"]:
                continue  # 則遂告于賓 (xiangshe:162) after the 命 of the same passage
            if not told_jun.get(e["actor"]):
                missing.append((e["seq"], e["cite"], e["actor"], e["verb"], e.get("says")))
            told_jun[e["actor"]] = False
            last_cite[e["actor"]] = e["cite"]
    assert missing == []
    said = [e for e in steps_of(rite) if e["verb"] == "告" and e.get("to") == "公"]
    assert {e["says"] for e in said} >= {"三耦卒射", "左右卒射"}


def test_xiangshe_tells_the_bin_with_no_jun() -> None:
    """In 鄉射禮 there is no 君: 告于賓曰三耦卒射 (xiangshe:153), 左右卒射 (190) go to the 賓."""
    steps = steps_of("xiangshe")
    assert not [e for e in steps if e.get("to") == "公"]
    told = {e["says"] for e in steps if e["verb"] == "告" and e.get("to") == "賓"}
    assert {"三耦卒射", "左右卒射"} <= told


@pytest.mark.parametrize("rite", ["yanshe", "yanli"])
@pytest.mark.slow
def test_the_archery_of_the_yan_fills_at_the_yans_own_wine(rite: str) -> None:
    """The 燕射's 罰爵 (xiangshe:206, 215, 216) and 獻 (221, 230) are filled at the 燕's 方壺
    (yan:5 東楹之西; 注 yan:41 散方壺之酒也), not at a 尊 east of the 賓席, which the 燕 has not."""
    fills = [
        e
        for e in steps_of(rite)
        if e["verb"] in ("實", "酌") and e["round"] > 0 and e.get("obj") != "筭"
    ]
    assert {e["cite"] for e in fills} >= {"xiangshe:206", "xiangshe:221", "xiangshe:230"}
    at_fanghu = {e["cite"] for e in fills if e["place"] == "方壺之西"}
    assert at_fanghu >= {"xiangshe:206", "xiangshe:215", "xiangshe:221", "xiangshe:230"}
    assert {e["place"] for e in fills} <= {"方壺之西", "膳尊之西"}


@pytest.mark.slow  # a run of its own (seed 3)
def test_the_jia_jue_fills_the_juns_cup_at_the_shan_zun() -> None:
    """若飲君燕則夾爵 (yan:181): the 賓 fills his own 觶 at the 方壺 (酌散 yan:125) and the
    君's at the 膳尊 (酌膳 yan:126)."""
    r = run("yanshe", seed=3)
    fills = [
        (e["cite"], e["place"]) for e in step_lines(r) if e["verb"] == "酌" and e["actor"] == "賓"
    ]
    assert ("yan:181", "膳尊之西") in fills and ("yan:181", "方壺之西") in fills


def test_xiangshe_fills_at_its_zun() -> None:
    fills = {e["place"] for e in steps_of("xiangshe") if e["verb"] in ("實", "酌")}
    assert "尊" in fills and not {p for p in fills if p.startswith(("方壺", "膳尊"))}


@pytest.mark.parametrize(("rite", "jun"), [("yanshe", True), ("yanli", True), ("xiangshe", False)])
def test_no_zhou_before_the_jun(rite: str, jun: bool) -> None:
    """拾取矢: 左還退反位東面 (xiangshe:173). In the 鄉射 注 不言毋周，在阼非君，周可也: he may
    turn on round. With the 君 at the 阼 (the 燕射) 毋周 (dashe:172; 注 君在阼，還周則下射將背之):
    he turns left to go back and right to face again, so each arrow taken has two turns."""
    here = [e for e in steps_of(rite) if e["cite"] in ("xiangshe:173", "xiangshe:174")]
    taken = [e for e in here if e["verb"] == "取"]
    zhou = [e for e in here if e["verb"] == "還" and "周可也" in (e.get("note") or "")]
    wu_zhou = [e for e in here if e["verb"] == "還" and (e.get("note") or "").startswith("毋周")]
    assert taken
    if jun:
        assert zhou == [] and len(wu_zhou) == len(taken)
    else:
        assert wu_zhou == [] and zhou


def test_the_bin_is_told_his_partner_is_the_jun() -> None:
    """則遂告于賓 (xiangshe:162): in the 鄉射 注 告賓曰主人御于子; in the 燕射 the 賓's 耦 is the
    君 (注 yan:124 君與賓為耦), and the 大射儀 gives the words: 命賓御于公 (dashe:164)."""
    told = [
        e["says"]
        for e in steps_of("yanshe")
        if e["cite"] == "xiangshe:162" and e["verb"] == "告" and e.get("to") == "賓"
    ]
    assert told == ["御于公"]
    assert not [e for e in steps_of("xiangshe") if e.get("says") == "御于公"]

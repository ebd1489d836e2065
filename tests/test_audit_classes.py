"""Classes of error a reading of the runs against 經, 注 and 疏 found: each a rule or a datum
that applies wherever its passage is enacted, checked over 鄉射禮, 大射儀, 燕射 and 燕禮.

- a 位 or 席 carries its facing, and a return to it takes that facing (士西方東面 dashe:21;
  the 席 face south: 乃席賓南面 xiangshe:4, 司宮設賓席于户西南面 dashe:18);
- where the text says a bow is made (主人阼階上答拜 xiangshe:40–41) the bower is there, facing
  as the other bows there (阼階上當楣北面 xiangshe:20);
- posture: one sits from standing and rises from sitting (獲者…坐東面偃旌興而俟 xiangshe:144;
  獲者坐而獲 148; 偃旌 dashe:151);
- the pair at the 楅: 當楅 is 楅正南之東西 (注 dashe:171), the 上射 west (上射在左 dashe:141),
  and each take is walked: 進…取…左還反其位…右還而反東面 (注 dashe:172), 反面揖.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from loglines import step_lines

from sheli.engine import run

# every test here reads whole runs of the four rites (README: the quick loop)
pytestmark = pytest.mark.slow

RITES = ("xiangshe", "dashe", "yanshe", "yanli")


@cache
def steps(rite: str) -> list[dict[str, Any]]:
    return step_lines(run(rite))


def _is_seat_return(e: dict[str, Any]) -> bool:
    note = e.get("note") or ""
    return e["verb"] in ("反位", "復位", "就") and any(w in note for w in ("就席", "復筵"))


@pytest.mark.parametrize("rite", RITES)
def test_the_guests_return_to_their_seats_facing_south(rite: str) -> None:
    """就席, 反就席, 復筵: the 賓's 席 faces south (乃席賓南面 xiangshe:4; 司宮設賓席于户西南面,
    卿席…小卿賓西…大夫繼而東上 dashe:18), and the 賓 goes onto it, not to where he stood
    beside it at the 酬 (降筵西東南面立 dashe:63)."""
    back = [
        e
        for e in steps(rite)
        if _is_seat_return(e) and (e["actor"] == "賓" or e["actor"].startswith(("卿耦", "大夫耦")))
    ]
    assert len(back) >= 6
    assert [(e["seq"], e["actor"], e["facing"]) for e in back if e["facing"] != "S"] == []
    beside = [(e["seq"], e["place"]) for e in back if e["actor"] == "賓" and e["place"] != "賓席"]
    assert beside == []


def test_a_return_to_the_shi_wei_faces_east() -> None:
    """士西方東面北上 (dashe:21): the 勝者之弟子 who 反位 to the 士's 位 after setting the 觶 on
    the 豐 (dashe:226) faces east there, as his 位 does, not the way he walked."""
    back = [
        e
        for e in steps("dashe")
        if e["actor"] == "勝者之弟子" and e["verb"] == "反位" and e["cite"] == "dashe:226"
    ]
    assert back
    assert {e["facing"] for e in back} == {"E"}


def test_the_host_bows_at_the_head_of_the_east_stair() -> None:
    """主人阼階上答拜 (xiangshe:40, 41): he bows at the 阼階上, facing north as at every bow of
    his there (阼階上當楣北面再拜 xiangshe:20; 阼階上北面 28, 262), not from where he stood
    疑立 (阼階東 xiangshe:36). (The 燕禮's 主人, the 宰夫, has no such passage.)"""
    bows = [
        e
        for e in steps("xiangshe")
        if e["actor"] == "主人" and e["verb"] == "答拜" and "主人阼階上答拜" in e["jing"]
    ]
    assert len(bows) == 2
    assert [(e["place"], e["facing"]) for e in bows] == [("阼階上", "N")] * 2


def posture_faults(rite: str, who: str | None = None) -> list[tuple[int, str, str]]:
    """Each 坐 by one already seated and each 興 by one already standing, as (seq, actor, verb):
    an actor starts standing, 坐 seats him, 興, 立 and 俟 stand him."""
    seated: dict[str, bool] = {}
    out = []
    for e in steps(rite):
        a, v = e["actor"], e["verb"]
        if who is not None and not (who in a and "釋獲者" not in a):
            continue
        if v == "坐":
            if seated.get(a):
                out.append((e["seq"], a, v))
            seated[a] = True
        elif v in ("興", "立", "俟"):
            if v == "興" and not seated.get(a, False):
                out.append((e["seq"], a, v))
            seated[a] = False
    return out


@pytest.mark.parametrize("rite", RITES)
def test_the_target_keeper_rises_between_his_sittings(rite: str) -> None:
    """獲者…坐東面偃旌興而俟 (xiangshe:144; dashe:146 注 引鄉射禮): after each 偃旌 he rises to
    await the next arrow, and sits again to call the hit (獲者坐而獲 xiangshe:148, dashe:150;
    疏 xiangshe:144 待射者發矢當坐)."""
    sits = [e for e in steps(rite) if "獲者" in e["actor"] and e["verb"] == "坐"]
    assert sits
    assert posture_faults(rite, "獲者") == []


def _fu_axis(rite: str) -> float:
    xs = [e["x"] for e in steps(rite) if e["place"] in ("楅之西", "楅之東")]
    return (min(xs) + max(xs)) / 2


@pytest.mark.parametrize("rite", RITES)
def test_the_pair_south_of_the_fu_stand_upper_west(rite: str) -> None:
    """當楅, 楅南 (注 dashe:171 當楅，楅正南之東西; 注 176 鄉當楅之位也): facing north or south
    at the 楅's south the pair stand abreast, the 上射 west (上射在左 dashe:141, xiangshe:139),
    so that neither crosses the other going to or from the 楅's sides."""
    at: dict[str, dict[str, Any]] = {}
    checked = 0
    wrong = []
    for e in steps(rite):
        a = e["actor"]
        at[a] = e
        if not (a.endswith(("上射", "下射")) and "楅" in e["place"] and "南" in e["place"]):
            continue
        up, low = at.get(a[:-2] + "上射"), at.get(a[:-2] + "下射")
        if up is None or low is None or abs(up["y"] - low["y"]) > 0.5:
            continue
        if not all("楅" in p["place"] and "南" in p["place"] for p in (up, low)):
            continue
        if {up["facing"], low["facing"]} <= {"N", "S"}:
            checked += 1
            if not up["x"] < low["x"]:
                wrong.append((e["seq"], e["cite"], a, up["x"], low["x"]))
    assert checked > 20
    assert wrong == []


def test_the_dashe_pair_straddles_the_fu() -> None:
    """注 dashe:171 當楅，楅正南之東西: in the 大射儀 the pair at the 楅's south stand on either
    side of its axis, the 上射 west of it, the 下射 east."""
    axis = _fu_axis("dashe")
    south = [
        e
        for e in steps("dashe")
        if e["cite"] in ("dashe:171", "dashe:176") and e["place"] in ("楅之西南", "楅之東南")
    ]
    assert south
    for e in south:
        if e["actor"].endswith("上射"):
            assert e["x"] < axis, e
        else:
            assert e["x"] > axis, e


TAKES = {
    "xiangshe": ("xiangshe:173", "xiangshe:174"),
    "yanshe": ("xiangshe:173", "xiangshe:174"),
    "yanli": ("xiangshe:173", "xiangshe:174"),
    "dashe": ("dashe:172", "dashe:173"),
}


@pytest.mark.parametrize("rite", RITES)
def test_each_take_at_the_fu_is_walked_and_bowed(rite: str) -> None:
    """上射揖進坐…取一个…興順羽且左還毋周反面揖 (dashe:172; xiangshe:173 …左還退反位東面揖);
    下射…其他如上射 (xiangshe:174, dashe:173); 注 dashe:172 左還反其位，毋周，右還而反東面: each
    taker goes forward to the 楅, takes, turns, goes back to his 位 beside it, turns to face it
    again and bows."""
    cites = TAKES[rite]
    by_actor: dict[str, list[str]] = {}
    for e in steps(rite):
        if e["cite"] in cites and e["actor"].endswith(("上射", "下射")):
            by_actor.setdefault(e["actor"], []).append(e["verb"])
    assert by_actor
    for actor, verbs in by_actor.items():
        # each take, from the 進 to the 揖 that closes it
        takes = "".join(v if v != "取" else "|" for v in verbs)
        assert takes.count("|") >= 4, actor
        for i, v in enumerate(verbs):
            if v != "取":
                continue
            before, after = verbs[:i], verbs[i + 1 :]
            assert "進" in before[-3:], (actor, verbs[max(0, i - 4) : i + 6])
            tail = after[: after.index("揖") + 1] if "揖" in after else after
            assert tail[:1] == ["興"] and "退" in tail and tail[-1:] == ["揖"], (actor, tail)
            assert tail.count("還") == 2, (actor, tail)


@pytest.mark.parametrize("rite", RITES)
def test_every_cup_is_washed_empty(rite: str) -> None:
    """A cup is washed before it is filled (洗觶升酌 xiangshe:206, dashe:226; 實 after 洗
    xiangshe:30): no 洗 of a cup that is 實 — the 勝者之弟子 of a later round takes up an empty
    觶, not the full one he set on the 豐 the round before."""
    washes = [e for e in steps(rite) if e["verb"] == "洗"]
    assert washes
    assert [(e["seq"], e["actor"]) for e in washes if any("實" in h for h in e["holds"])] == []


def test_the_lesser_targets_keepers_wait_at_their_targets_for_round_three() -> None:
    """服不復負矦而俟 (dashe:256); 敖繼公: 參侯干侯亦有負侯者，不言者可知也. After the 獻 the
    參侯 and 干侯 獲者 stand at their 侯 again, so that round 3's 負矦皆許諾 (dashe:145, 269) is
    answered from the 侯, and the 趨直西及乏 is walked."""
    calls = [
        e
        for e in steps("dashe")
        if e["cite"] == "dashe:145"
        and e["verb"] == "許諾"
        and e["actor"] in ("參侯獲者", "干侯獲者")
    ]
    by_round: dict[int, set[str]] = {}
    for e in calls:
        by_round.setdefault(e["round"], set()).add(e["place"])
    assert 3 in by_round
    # each round's first answer (以宮) is given at the 侯 (its second, 以商, south of the 乏)
    for e in calls:
        prev = [c for c in calls if c["actor"] == e["actor"] and c["round"] == e["round"]]
        assert prev[0]["place"].endswith("侯之北"), prev[0]


def test_the_winner_takes_off_his_thimble_and_guard_after_the_forfeit_cup() -> None:
    """與升飲者相左交于階前相揖適次釋弓襲反位 (dashe:234); 敖繼公: 惟言釋弓襲亦文省 — the 勝者
    takes off the 決拾 before he 襲, as at xiangshe:213 (敖: 勝者又説決拾而襲也)."""
    for rite, cite in (("dashe", "dashe:234"), ("xiangshe", "xiangshe:213")):
        dressed = [
            e
            for e in steps(rite)
            if e["cite"] == cite and e["verb"] == "襲"  # only the 勝者 (the loser is 襲 already)
        ]
        assert dressed, rite
        assert [e["seq"] for e in dressed if "決遂" in e["dress"]] == [], rite


def test_the_guests_follow_the_bin_down_and_up_at_the_music() -> None:
    """賓降 (xiangshe:92); 疏 xiangshe:98: 衆賓卑從降可知，故今從賓升也; 反升就席 (98), 注:
    亦揖讓以賓升，衆賓皆升."""
    s = steps("xiangshe")
    at92 = [(e["actor"], e["verb"]) for e in s if e["cite"] == "xiangshe:92"]
    at98 = [(e["actor"], e["verb"]) for e in s if e["cite"] == "xiangshe:98"]
    assert ("衆賓", "降") in at92
    assert ("衆賓", "升") in at98
    assert ("主人", "揖") in at98 and ("主人", "讓") in at98
    # the 揖讓 comes before either goes up
    assert at98.index(("主人", "讓")) < min(at98.index(("主人", "升")), at98.index(("賓", "升")))


def test_the_target_keeper_sacrifices_north_of_the_offerings() -> None:
    """獲者南面坐…祭 (xiangshe:225); 注 dashe:249 獲者南面於俎北…此薦俎之設如於北面人焉; 注
    xiangshe:224 籩在東豆在西俎當其北 (敖繼公: 俎在侯北，薦在俎北，獲者又在薦北 — in both
    readings the 薦俎 are north of the 侯 and the 獲者 north of them, facing south)."""
    s = steps("xiangshe")
    target_y = min(e["y"] for e in s if e["place"] in ("侯中", "右个", "左个"))
    sits = [e for e in s if e["cite"] == "xiangshe:225" and e["verb"] == "坐"]
    assert sits
    for e in sits:
        assert e["facing"] == "S" and e["y"] > target_y + 6, e
    for e in (e for e in steps("dashe") if e["cite"] == "dashe:249" and e["verb"] == "坐"):
        assert e["facing"] == "S" and e["place"].endswith("之北"), e


def test_the_lord_rises_to_shoot_from_his_seat() -> None:
    """公以賓及卿大夫皆坐乃安 (yan:114): in the 燕禮 the 公 sits from then on; he rises to shoot
    (君與射則為下射 yan:177, 興) and sits again on his 席 after (dashe:206 公即席) — each 興 of
    his is from sitting, round 2 and round 3."""
    rises = [e for e in steps("yanli") if e["actor"] == "公" and e["verb"] == "興"]
    assert len([e for e in rises if e["cite"] == "yan:177"]) >= 2
    assert [f for f in posture_faults("yanli") if f[1] == "公"] == []

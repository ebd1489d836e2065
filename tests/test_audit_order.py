"""Classes of error in the order and the partners of acts in 鄉射禮's archery (and in the 燕射
of 燕禮, which runs its blocks) that a reading of the runs against 經, 注 and 疏 found, each
checked wherever its passage is enacted:

- the pair coming down 相揖s with the pair going up (與升射者相左交于階前相揖 xiangshe:153;
  與升飲者… 213) only where one is going up: after the last pair nobody is (敖繼公 on
  xiangshe:153 and 178, the 義疏 agreeing: 下耦無與升射者相左相揖之事), and every such 揖 that is
  staged names its partner (``with``);
- those who wait for a pair (而俟) are ready before its first arrow: the 釋獲者 has put back
  the 餘算, refilled the 中 and risen (若有餘算則反委之…興執而俟 xiangshe:186–187), the 獲者 is at
  his 乏 (偃旌興而俟 144), the 司馬 back at his 位 (反位 145);
- a cup offered (獻) passes at the receiver's 受, after his 拜 (獻獲者于矦 … 拜受爵
  xiangshe:221–223; 獻釋獲者 … 拜受爵 230–231; 獻公 … 公拜受爵 dashe:54–55): nobody bows
  holding a full cup he has not yet received;
- one who goes down to wash a cup for the 酢 first puts it down at the 西階前 and 辭降, which
  the 主人, come down with him, answers; the 主人's 辭洗 comes before 卒洗 (xiangshe:43–45 for
  the 賓; 主人復阼階降辭如初卒洗主人盥 82 for the 大夫);
- the 主人 拜辱 at the 賓's gate, once the 賓 has gone in unseen, and then goes home
  (主人不見，如賓服，遂從之，拜辱于門外，乃退 xiangshe:298; 敖繼公: 主人拜辱亦如之);
- the 大夫 and his 耦 go forward (進) to the 楅 before they sit to take their arrows (耦揖進坐
  兼取乘矢 xiangshe:243; 大夫進坐亦兼取乘矢 244; 大夫進坐説矢束 242), as in every 拾取 (173–174);
- the 罰爵 of a 賓, 主人 or 大夫 is handed in front of his 席 (以授于席前 xiangshe:216): south
  of a south-facing 席, west of the 主人's west-facing one;
- the 司正's 薦 is laid between his 觶 and where he stands (司正既舉觶而薦諸其位 xiangshe:332;
  注: 薦於觶南; 疏: 觶南位北);
- a pair going back from the 楅 相揖s with the pair coming forward (與進者相左相揖 xiangshe:177)
  only where one comes: not the last of the 三耦 (下耦亦無與進者相左相揖之事 敖繼公 on 178,
  the 義疏 agreeing), after whom in the third round the 賓, 主人 and 大夫 come down once the
  三耦 have gone back (三耦拾取矢如初反位賓主人大夫降 236), and the 衆耦 take theirs after
  them (衆賓繼拾取矢 246), the first of them crossing nobody;
- one who takes back an emptied 觶 fills it, hands it on or puts it down before he receives
  another (執觶者受觶遂實之 xiangshe:286; 注 288 執觶者酌在上辯降復位; 執觶者皆與旅 292; 卒受者
  以虛觶降奠于篚 293);
- the 揖 of the way down (揖如升射 xiangshe:151, 134) are made where those of the way up were,
  當物 and at the top of the 西階 (敖繼公: 如其當物升堂之揖; 義疏: 升時堂上三揖，退亦當然);
- the last 拾取矢 keeps the moves of 175–177 (拾取矢如初 254), the arrows taken in hand at the
  楅南 (敖繼公: 至楅南北面則不挾矢);
- the 司馬 goes down behind the 上射 and round the 西楹, not through the 物閒 (還其後降自西階
  145, 157; 疏: 若出物閒西行則似直爲上射命去矦; 義疏 案);
- the 司射 puts his 矢 down with his 弓, before the 扑 (釋弓矢去扑説決拾襲 xiangshe:230; 記 358).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest
from loglines import step_lines

# every test here reads whole runs (README: the quick loop)
pytestmark = pytest.mark.slow

CROSSINGS = ("xiangshe:153", "xiangshe:213")


def _steps(run_once: Callable[..., Any], rite: str, **kw: Any) -> list[dict[str, Any]]:
    return step_lines(run_once(rite, seed=1, **kw))


# ------------------------------------------------------------------ 相揖 at the 階前


@pytest.mark.parametrize(
    ("rite", "kw"),
    [
        ("xiangshe", {}),
        ("xiangshe", {"pairs": 2}),
        ("xiangshe", {"dafu": 1, "pairs": 1}),
        ("yanli", {}),
    ],
)
def test_a_crossing_bow_has_someone_to_bow_to(
    rite: str, kw: dict[str, Any], run_once: Callable[..., Any]
) -> None:
    """與升射者相左交于階前相揖 (xiangshe:153), 與升飲者相左交于階前相揖 (213): each staged
    揖 names the one he crosses; the last pair of the 三耦 in a round, after whom the 賓, 主人
    and 大夫 come down from the 堂 only once the 三耦 卒射 (xiangshe:187), bows to nobody and
    so does not bow (敖繼公, 義疏: 下耦無與升射者相左相揖之事)."""
    bows = [e for e in _steps(run_once, rite, **kw) if e["verb"] == "揖" and e["cite"] in CROSSINGS]
    assert bows
    alone = [(e["seq"], e["actor"]) for e in bows if not e.get("with")]
    assert alone == []
    shot = {(e["round"], e["actor"][:2]) for e in bows if e["cite"] == "xiangshe:153"}
    for rnd in (1, 2, 3):
        assert {(rnd, "上耦"), (rnd, "次耦")} <= shot
        assert (rnd, "下耦") not in shot


# ------------------------------------------------------------------ 而俟 before the first arrow


#: the acts a pair's first arrow waits for, by passage and verb: 鄉射禮's (and 燕射's) and
#: 大射儀's (大史 … 興執而俟 dashe:188, 獲者興共而俟 146, 司馬正 … 反位 147)
WAITS = {
    "xiangshe": {("xiangshe:187", "興"), ("xiangshe:144", "興"), ("xiangshe:145", "反位")},
    "dashe": {("dashe:188", "興"), ("dashe:146", "興"), ("dashe:147", "反位")},
}


@pytest.mark.parametrize(
    ("rite", "kw"),
    [("xiangshe", {}), ("xiangshe", {"dafu": 1, "pairs": 1}), ("yanli", {}), ("dashe", {})],
)
def test_a_pair_shoots_once_those_who_wait_for_it_are_ready(
    rite: str, kw: dict[str, Any], run_once: Callable[..., Any]
) -> None:
    """若有餘算則反委之，又取中之八算改實八算于中，興執而俟 (xiangshe:186–187): the 釋獲者's
    work between pairs is done before the next pair's first 射, which he awaits; so is the
    獲者's 偃旌興而俟 (144) and the 司馬's 反位 (145) before the first pair's; in 大射儀 the
    大史's 興執而俟 (dashe:188), as the 三耦's second and third pairs of each round showed
    shooting some 30 s before it."""
    waits = WAITS["dashe" if rite == "dashe" else "xiangshe"]
    ready: dict[str, float] = {}  # the end of the latest such act, by passage
    checked = early = 0
    shooter = None
    for e in _steps(run_once, rite, **kw):
        if (e["cite"], e["verb"]) in waits:
            ready[e["cite"]] = e["t"] + e["dur"]
        if e["verb"] != "射":
            continue
        if e["actor"][:2] != shooter and e["actor"] != "公":  # a pair's first arrow
            checked += 1
            early += any(e["t"] < end - 0.01 for end in ready.values())
            ready.clear()
        shooter = e["actor"][:2]
    assert checked >= 9 and early == 0


# ------------------------------------------------------------------ 獻 … 拜受


@pytest.mark.parametrize("rite", ("xiangshe", "dashe", "yanli"))
def test_an_offered_cup_passes_at_the_receivers_shou(
    rite: str, run_once: Callable[..., Any]
) -> None:
    """獲者負矦北面拜受爵 (xiangshe:223), 釋獲者薦右東面拜受爵 (231), 公拜受爵 (dashe:55):
    after the 獻 the giver still holds the cup, and the receiver holds it only from his 受;
    his 拜 before it is made with empty hands."""
    steps = _steps(run_once, rite)
    offers = 0
    for i, e in enumerate(steps):
        if e["verb"] != "獻":
            continue
        offers += 1
        cup, giver, taker = e["obj"], e["actor"], e["to"]
        assert any(h.startswith(cup) for h in e["holds"]), (e["seq"], "the giver keeps it")
        for later in steps[i + 1 :]:
            if later["actor"] == taker and later["verb"] == "受" and later["obj"] == cup:
                break
            if later["actor"] == taker:
                assert not any(h.startswith(cup) for h in later["holds"]), (e["seq"], later["seq"])
            if later["actor"] == giver:
                assert any(h.startswith(cup) for h in later["holds"]), (e["seq"], later["seq"])
        else:
            pytest.fail(f"{rite} {e['seq']}: {taker} never 受s the {cup} offered")
    assert offers >= 2


# ------------------------------------------------------------------ 降辭如初 before 卒洗


@pytest.mark.parametrize(
    ("washer", "passages"),
    [
        ("賓", ("xiangshe:42", "xiangshe:43", "xiangshe:44", "xiangshe:45")),
        ("大夫", ("xiangshe:81", "xiangshe:82")),
    ],
)
def test_the_host_comes_down_and_declines_before_the_wash_ends(
    washer: str, passages: tuple[str, ...], run_once: Callable[..., Any]
) -> None:
    """賓西階前東面坐奠爵興辭降主人對 … 適洗 … 盥洗; 主人阼階之東南面辭洗 … 賓卒洗 (xiangshe:
    43–45); 大夫降洗，主人復阼階降辭如初，卒洗主人盥 (81–82): the washer 奠爵 and 辭降 at the
    西階前 before he washes, the 主人 is down and has answered by then, and his 辭洗 comes
    before the washing is done."""
    part = [e for e in _steps(run_once, "xiangshe", dafu=1) if e["cite"] in passages]
    washes = [e for e in part if e["actor"] == washer and e["verb"] == "洗"]
    first, last = washes[0]["t"], washes[-1]["t"] + washes[-1]["dur"]
    put = [e for e in part if e["actor"] == washer and e["verb"] == "奠" and e["place"] == "西階前"]
    declines = [e for e in part if e["actor"] == washer and e["verb"] == "辭"]
    host_down = [e for e in part if e["actor"] == "主人" and e["verb"] == "降"]
    host_says = [e for e in part if e["actor"] == "主人" and e["verb"] in ("對", "辭")]
    assert put and declines and host_down and len(host_says) == 2
    assert put[0]["t"] < declines[0]["t"] < first
    assert host_down[0]["t"] + host_down[0]["dur"] <= declines[0]["t"] + 0.01
    answer, decline_wash = host_says
    assert answer["verb"] == "對" and answer["t"] < first
    assert decline_wash["verb"] == "辭" and decline_wash["t"] < last


# ------------------------------------------------------------------ 拜辱 at the 賓's gate


def test_the_host_bows_at_the_guests_gate_unseen(run_once: Callable[..., Any]) -> None:
    """主人不見，如賓服，遂從之，拜辱于門外，乃退 (xiangshe:298): the 賓 has gone to his own gate
    before the 主人 comes out; the 主人 bows outside the 賓's gate, not his own, and goes back
    in at his own."""
    part = [e for e in _steps(run_once, "xiangshe") if e["cite"] == "xiangshe:298"]
    guest = [e for e in part if e["actor"] == "賓"]
    host = [e for e in part if e["actor"] == "主人"]
    bow = next(e for e in host if e["verb"] == "拜")
    assert guest and guest[-1]["place"] == "賓之門"
    assert host[0]["t"] >= guest[-1]["t"] + guest[-1]["dur"] - 0.01  # 不見: he is gone
    assert bow["place"].startswith("賓之門") and bow["y"] < guest[-1]["y"] + 20
    assert host[-1]["verb"] == "入" and not host[-1]["place"].startswith("賓之門")


# ------------------------------------------------------------------ 進坐 at the 楅


@pytest.mark.parametrize(("rite", "kw"), [("xiangshe", {"dafu": 1}), ("yanli", {})])
def test_the_officer_and_his_partner_go_forward_to_the_rack(
    rite: str, kw: dict[str, Any], run_once: Callable[..., Any]
) -> None:
    """大夫進坐説矢束 (xiangshe:242), 耦揖進坐兼取乘矢 (243), 大夫進坐亦兼取乘矢 (244): each
    sits nearer the 楅 than where he stood and bowed beside it, as at 173 上射揖進坐."""
    steps = _steps(run_once, rite, **kw)
    cites = ("xiangshe:242", "xiangshe:243", "xiangshe:244", "xiangshe:364")
    checked = 0
    beside: dict[str, float] = {}  # each one's distance from the 楅's line when he bowed there
    for e in steps:
        if e["cite"] not in cites:
            continue
        if e["verb"] == "揖" and e["place"] in ("楅之西", "楅之東"):
            beside[e["actor"]] = abs(e["x"])
        if e["verb"] in ("取", "説") and e["actor"] in beside:
            checked += 1
            assert abs(e["x"]) < beside[e["actor"]] - 0.5, (e["seq"], e["actor"], e["x"])
    assert checked >= 3


# ------------------------------------------------------------------ 授于席前


def test_the_forfeit_cup_is_handed_in_front_of_the_seat(run_once: Callable[..., Any]) -> None:
    """執爵者取觶降洗升實之以授于席前 (xiangshe:216; 注: 優尊也): the 執爵者 stands before the
    drinker's 席, on the side it faces (賓席, 大夫席 南面 xiangshe:4, 78; 主人席 西面 6), beyond
    its 薦, not beside it."""
    front = {"賓": "賓席之南", "大夫": "大夫席之南", "主人": "主人席之西"}
    handed = []
    for e in step_lines(run_once("xiangshe", seed=3)):
        if e["cite"] == "xiangshe:216" and e["verb"] == "授":
            handed.append(e)
            assert e["place"].startswith(front[e["to"]]), (e["seq"], e["to"], e["place"])
    assert {e["to"] for e in handed} == set(front)


# ------------------------------------------------------------------ 薦於觶南


def test_the_overseers_relish_lies_between_his_cup_and_him(run_once: Callable[..., Any]) -> None:
    """司正既舉觶而薦諸其位 (xiangshe:332); 注: 薦於觶南; 疏: 以司正觶南北面立…故知觶南位北也:
    the 贊者 sets it north of the 司正's 位 and south of the 觶 he put down in the 中庭, not
    level with him."""
    steps = _steps(run_once, "xiangshe")
    cup = next(e for e in steps if e["cite"] == "xiangshe:107" and e["verb"] == "奠")
    stand = next(e for e in steps if e["cite"] == "xiangshe:108" and e["verb"] == "退")
    lay = next(e for e in steps if e["cite"] == "xiangshe:332" and e["verb"] == "設")
    assert lay["obj"] == "薦" and stand["y"] < lay["y"] < cup["y"]


# ------------------------------------------------------------------ 拾取矢: 與進者相左相揖


@pytest.mark.parametrize(
    ("rite", "kw"),
    [("xiangshe", {"pairs": 2}), ("xiangshe", {"dafu": 1, "pairs": 1}), ("yanli", {})],
)
def test_a_pair_back_from_the_rack_bows_only_to_one_coming(
    rite: str, kw: dict[str, Any], run_once: Callable[..., Any]
) -> None:
    """與進者相左相揖反位 (xiangshe:177): each staged 揖 names the one coming forward; the
    下耦 has nobody (敖繼公 on 178, 義疏: 下耦亦無與進者相左相揖之事). In the third round the
    三耦 are back at their 位 before the 賓 and 主人 come down (三耦拾取矢如初反位賓主人大夫降揖
    如初 236), and the first of the 衆耦 comes forward only once the 賓, 主人 and 大夫 are done
    (237–245; 衆賓繼拾取矢皆如三耦 246)."""
    steps = _steps(run_once, rite, **kw)
    bows = [e for e in steps if e["cite"] == "xiangshe:177" and e["verb"] == "揖"]
    assert [(e["seq"], e["actor"]) for e in bows if not e.get("with")] == []
    bowed = {(e["round"], e["actor"][:2]) for e in bows}
    for rnd in (2, 3):
        assert {(rnd, "上耦"), (rnd, "次耦")} <= bowed
        assert (rnd, "下耦") not in bowed
    # the third round's 拾取矢, from the 司射's 作 (236) to his 作上射 (246)
    start = next(e["seq"] for e in steps if e["cite"] == "xiangshe:236" and e["verb"] == "作")
    end = next(e["seq"] for e in steps if e["cite"] == "xiangshe:246" and e["verb"] == "作")
    part = [e for e in steps if start < e["seq"] < end]
    guests = [e for e in part if e["cite"] in {f"xiangshe:{n}" for n in range(236, 246)}]
    guests = [e for e in guests if e["actor"] != "司射"]
    assert guests
    first_guest = min(e["t"] for e in guests)
    three = [e for e in part if e["actor"][:2] in ("上耦", "次耦", "下耦")]
    assert max(e["t"] + e["dur"] for e in three) <= first_guest + 0.01
    many = [e for e in part if e["actor"].startswith("衆耦")]
    if kw.get("pairs"):
        assert min(e["t"] for e in many) >= max(e["t"] + e["dur"] for e in guests) - 0.01


# ------------------------------------------------------------------ 受觶遂實之


@pytest.mark.parametrize("rite", ("xiangshe", "dashe", "yanli"))
def test_an_emptied_cup_taken_back_goes_on_before_another_comes(
    rite: str, run_once: Callable[..., Any]
) -> None:
    """執觶者受觶遂實之 (xiangshe:286), 錯 (287), 辯…執觶者酌在上辯降復位 (注 288), 執觶者皆與旅
    (292), 卒受者以虛觶降奠于篚 (293): whoever receives or takes up an empty 觶 fills it, hands
    it on, washes it or puts it down before he receives or takes up another, so that nobody
    drinks in the 旅 with the cup he took back still in his hand."""
    cup_acts = ("受", "取", "實", "奠", "授", "洗")
    holding: dict[str, int] = {}  # who holds an empty 觶 he received or took, since which step
    late = []
    received = 0
    for e in _steps(run_once, rite):
        if e.get("obj") != "觶" or e["verb"] not in cup_acts:
            continue
        who, verb = e["actor"], e["verb"]
        if verb in ("受", "取"):
            received += 1
            if who in holding:
                late.append((e["seq"], e["cite"], who, holding[who]))
        holding.pop(who, None)
        if verb in ("受", "取") and "觶(虛)" in (e.get("holds") or []):
            holding[who] = e["seq"]
    assert received >= 10
    assert late == []


# ------------------------------------------------------------------ 説矢束 in both passes


def test_officers_untie_their_arrows_alike_in_both_passes(run_once: Callable[..., Any]) -> None:
    """進坐説矢束上射東面下射西面 (dashe:265): a pair of 卿 or 大夫 untie the bundle together,
    both facing N, before they take their stations E and W (敖繼公 via 義疏: 俱北面說之，旣說則
    上射少西而反東面，下射少東而反西面); the last 拾取矢 does it 如初 (dashe:275), not with the
    下射 alone first, facing W, then the 上射."""
    steps = _steps(run_once, "dashe")
    unties: dict[str, list[dict[str, Any]]] = {}
    for e in steps:
        if e["verb"] == "説" and e.get("obj") == "矢束":
            unties.setdefault(e["actor"], []).append(e)
    officers = [a for a in unties if a.startswith(("卿耦", "大夫耦"))]
    assert officers
    for actor in officers:
        partner = actor[:-2] + ("下射" if actor.endswith("上射") else "上射")
        assert len(unties[actor]) == len(unties[partner]) == 2, actor  # first pass and last
        for mine, theirs in zip(unties[actor], unties[partner], strict=True):
            assert mine["facing"] == "N", (mine["seq"], actor)
            assert mine["t"] == theirs["t"], (mine["seq"], theirs["seq"])


# ------------------------------------------------------------------ 相者 with the 工


def test_the_guides_bring_the_blind_musicians_in_and_up(run_once: Callable[..., Any]) -> None:
    """相者皆左何瑟…右手相 (dashe:100), 後者徒相入 (101; 注: 凡相者以工出入), 升自西階北面東上
    (103): the 相者 lead the 工 by the hand, so the 工 are at the 西階之南 no more than a few
    seconds before their 相者 (not 90 s) and go up no later than a few seconds after them, not
    once the 工 are at their 席."""
    steps = _steps(run_once, "dashe")
    acts = {
        (e["cite"], e["actor"], e["verb"]): e
        for e in steps
        if e["cite"] in ("dashe:101", "dashe:103") and e["actor"] in ("相者", "工", "大師")
    }
    guides_in = acts[("dashe:101", "相者", "入")]
    arrived = guides_in["path"][-1][2]  # where the walk from the gate ends
    for led in ("工", "大師"):
        came = acts[("dashe:101", led, "入")]
        assert came["t"] + came["dur"] >= arrived - 5, (came["seq"], arrived)  # a joint act's slack
        guides_up = acts[("dashe:103", "相者", "升")]
        up = acts[("dashe:103", led, "升")]
        assert guides_up["t"] <= up["t"] <= guides_up["t"] + 5, (guides_up["t"], up["seq"], up["t"])


# ------------------------------------------------------------------ 薦俎 of the 獲者


def test_each_markers_relish_lies_south_of_the_last_and_the_stand_goes_with_it(
    run_once: Callable[..., Any],
) -> None:
    """獲者皆執其薦庶子執俎從之設于乏少南 (dashe:255; 注: 隸㒒人巾車量人自服不而南): each
    獲者 of the 大侯 lays his 薦 south of the one laid before, and the 庶子 walks with the 俎
    beside him (從之), setting off as he does, not once he has arrived."""
    steps = [e for e in _steps(run_once, "dashe") if e["cite"] == "dashe:255"]
    laid = [e for e in steps if e["verb"] == "奠" and e.get("obj") == "薦"]
    order = [e["actor"] for e in laid[:4]]
    assert order == ["服不", "隸僕人", "巾車", "量人"]
    for before, after in pairwise(laid[:4]):
        assert after["y"] < before["y"], (before["seq"], after["seq"])
    follows = [k for k, e in enumerate(steps) if e["verb"] == "從"]
    assert len(follows) == 6  # the 大侯's four 獲者, the 參侯's and the 干侯's
    for k in follows:
        walk, follow = steps[k - 1], steps[k]
        assert walk["verb"] == "適" and walk["actor"] != "庶子", walk["seq"]
        assert abs(follow["t"] - walk["t"]) <= 1.0, (walk["seq"], walk["t"], follow["t"])


# ------------------------------------------------------------------ places named from a person


def test_the_director_pairs_the_officers_standing_west_of_them(
    run_once: Callable[..., Any],
) -> None:
    """司射東面于大夫之西比耦 (dashe:166): the 司射 stands just west of the 大夫 he pairs, where
    the row of those who came down before put him (大夫…立于三耦之南 165), not west of the
    point the text names for that row, 12 尺 north of him."""
    steps = _steps(run_once, "dashe")
    where: dict[str, tuple[float, float]] = {}
    checked = 0
    for e in steps:
        if e["cite"] == "dashe:166" and e["actor"] == "司射" and e["verb"] == "適":
            upper = e["place"].removesuffix("之西")
            ux, uy = where[upper]
            assert e["facing"] == "E"
            assert e["y"] == uy and 0 < ux - e["x"] <= 3.5, (e["seq"], (e["x"], e["y"]), (ux, uy))
            checked += 1
        where[e["actor"]] = (e["x"], e["y"])
    assert checked >= 1


# ------------------------------------------------------------------ 揖如升射 on the way down


@pytest.mark.parametrize(("rite", "kw"), [("xiangshe", {}), ("yanli", {})])
def test_the_bows_of_the_way_down_are_made_where_those_of_the_way_up_were(
    rite: str, kw: dict[str, Any], run_once: Callable[..., Any]
) -> None:
    """卒射…南面揖揖如升射 (xiangshe:151; the 司射's 誘射 134): 敖繼公 揖如升射，謂如其當物升堂之揖
    也, the 義疏 案 升時堂上三揖，退亦當然: after the 南面揖 at the 物, one 揖 where he stood 當物
    and one at the top of the 西階 (上射揖竝行 140; 升堂揖 128), not a second 揖 at the 物;
    and the 降 sets off from the top of the 階."""
    steps = _steps(run_once, rite, **kw)
    bows: dict[str, list[str]] = {}
    checked = 0
    for e in steps:
        if e["cite"] in ("xiangshe:151", "xiangshe:134") and e["verb"] == "揖":
            bows.setdefault(e["actor"], []).append(e["place"])
        if e["verb"] == "降" and e["actor"] in bows:
            places = bows.pop(e["actor"])
            assert len(places) == 3, (e["seq"], e["actor"], places)
            assert places[0].endswith("物") and places[1] == places[0] + "之南", (e["seq"], places)
            assert places[2].startswith("西階上"), (e["seq"], e["actor"], places)
            checked += 1
    assert checked >= 13  # the 司射 and the 三耦 in every round (and more in the 鄉射)


# ------------------------------------------------------------------ 拾取矢如初 (xiangshe:254)


@pytest.mark.parametrize(("rite", "kw"), [("xiangshe", {}), ("yanli", {})])
def test_the_last_taking_of_arrows_keeps_the_moves_of_the_first(
    rite: str, kw: dict[str, Any], run_once: Callable[..., Any]
) -> None:
    """拾取矢如初，矢不挾兼諸弦弣以退 (xiangshe:254): 如初 keeps 揖皆左還南面揖皆少進
    當楅南皆左還北面 (175) and 揖皆左還…與進者相左相揖 (176–177); only the 挾 and the
    反位 change. 敖繼公 (義疏): 至楅南北面則不挾矢，但取一矢兼諸弦: each archer takes
    his arrows in hand at the 楅南, facing north, after the moves of 175, and then leaves
    as at 176; a 大夫 and his 耦 at the 楅南 too (244 注: 亦於三耦爲之位); the 賓 and 主人
    at their places east and west of it (敖繼公: 賓與主人則于楅東西之位為之)."""
    steps = _steps(run_once, rite, **kw)
    before: dict[str, list[str]] = {}  # each archer's acts since his last 拾取 began
    held: dict[str, list[str]] = {}  # each archer's acts since he took his arrows in hand
    checked = 0
    for e in steps:
        who = e["actor"]
        if e["cite"] == "xiangshe:172" and e["verb"] == "揖":
            before[who] = []
            held.pop(who, None)
        elif who in ("賓", "主人"):
            continue  # 賓與主人則于楅東西之位為之 (敖繼公 on 254), as at 237–238
        elif e["cite"] == "xiangshe:254" and e["verb"] == "執" and e.get("obj") == "矢":
            assert e["place"] == "楅之南" and e["facing"] == "N", (e["seq"], who, e["place"])
            if who.startswith("大夫"):
                continue  # their way to the 楅南 is 244's (大夫進坐…北面搢三挾一个)
            assert before.get(who, [])[-5:] == [
                "175揖",
                "175還",
                "175揖",
                "175進",
                "175還",
            ], (e["seq"], who, before.get(who))
            held[who] = []
            continue
        elif e["cite"] == "xiangshe:254" and e["verb"] == "退" and who in held:
            assert held.pop(who)[:2] == ["176揖", "176還"], (e["seq"], who)
            checked += 1
            continue
        mine = held if who in held else before
        if who in mine:
            mine[who].append(e["cite"].removeprefix("xiangshe:") + e["verb"])
    assert checked >= 6  # the 三耦 at least


# ------------------------------------------------------------------ 還其後降 (xiangshe:145, 157)


def _crosses(
    a: list[float], b: list[float], c: tuple[float, float], d: tuple[float, float]
) -> bool:
    """Whether the walk a→b passes strictly through the segment c–d."""

    def side(p: Any, q: Any, r: Any) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


#: the passages of the 司馬's 還其後降: 鄉射禮's (and the 燕射's), 大射儀's (dashe:147, 159)
SIMA_DOWN = {"xiangshe": ("xiangshe:145", "xiangshe:157"), "dashe": ("dashe:147", "dashe:159")}


@pytest.mark.parametrize(("rite", "kw"), [("xiangshe", {}), ("yanli", {}), ("dashe", {})])
def test_the_sima_goes_down_behind_the_archers_not_through_the_gap(
    rite: str, kw: dict[str, Any], run_once: Callable[..., Any]
) -> None:
    """司馬出于下射之南還其後降自西階 (xiangshe:145; again after 命取矢, 157): 疏 若出物閒西行
    則似直爲上射命去矦, so having gone round the 下射 he does not walk back between the two 物;
    the 義疏 案: 仍由上射之後而西，鈎西楹之内，然後由西楹之南而適西階. Every walk of his from
    the 物閒 to the foot of the 西階 keeps off the line between the 物, and he passes behind
    (north of) the 上射's 物 on his way; so does the 司馬正 of 大射儀 (dashe:147, 159; 疏
    此出于下射之南還其後而降之者郷射文)."""
    steps = _steps(run_once, rite, **kw)
    # where the first pair stand to shoot: the 上射 on the 右物, the 下射 on the 左物
    shots = [e for e in steps if e["verb"] == "射" and e["actor"].startswith("上耦")]
    right, left = ((e["x"], e["y"]) for e in sorted(shots[:2], key=lambda e: e["actor"]))
    assert (shots[0]["place"], shots[1]["place"]) in (("右物", "左物"), ("左物", "右物"))
    checked = 0
    behind = False
    for e in steps:
        if not e["actor"].startswith("司馬") or e["cite"] not in SIMA_DOWN.get(
            rite, SIMA_DOWN["xiangshe"]
        ):
            continue
        path = e.get("path") or []
        for a, b in itertools.pairwise(path):
            assert not _crosses(a, b, right, left), (e["seq"], e["verb"], a, b)
        behind = behind or any(p[1] > right[1] and p[0] <= right[0] + 0.5 for p in path)
        if e["verb"] == "降":
            assert behind, (e["seq"], "not behind the 上射")
            behind = False
            checked += 1
    assert checked >= 6  # 命去矦 and 命取矢 in each of the three rounds


# ------------------------------------------------------------------ 釋弓矢去扑 (xiangshe:230)


@pytest.mark.parametrize(("rite", "kw"), [("xiangshe", {}), ("yanli", {})])
def test_the_director_puts_down_bow_and_arrow_together_before_the_rod(
    rite: str, kw: dict[str, Any], run_once: Callable[..., Any]
) -> None:
    """司射適階西釋弓矢去扑説決拾襲 (xiangshe:230); 記 358 司射釋弓矢視算 (192, 252): the 矢
    he holds goes down with his 弓, next after it, before he 去扑, 説決拾 and 襲; he holds no
    arrow through them."""
    steps = [e for e in _steps(run_once, rite, **kw) if e["actor"] == "司射"]
    checked = 0
    for before, e in itertools.pairwise(steps):
        if e["verb"] == "倚" and e["obj"] == "矢" and e["cite"] == "xiangshe:358":
            assert before["verb"] == "倚" and before["obj"] == "弓", (e["seq"], before["verb"])
            checked += 1
        if e["verb"] in ("去", "説決拾", "襲") and e["cite"] in ("xiangshe:192", "xiangshe:230"):
            assert not [h for h in e["holds"] if "矢" in h], (e["seq"], e["verb"], e["holds"])
    assert checked >= 2  # 視算 (192) and 獻釋獲者 (230)

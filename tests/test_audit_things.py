"""Classes of error in the things of the rite (what is held, how many, by how many people) that
a reading of the runs against 經, 注 and 疏 found, each checked wherever its passage is enacted
in 鄉射禮, 大射儀, 燕射 and 燕禮:

- the 君's arrows are handed in a 巾 (小臣以巾授矢稍屬 記 yan:178; 小臣以巾執矢以授 記
  xiangshe:383; 小臣師以巾内拂矢而授矢于公 dashe:200, 以巾退反位 204), which is put down once
  its use is over;
- the 瑟 are as many as the text counts (工四人二瑟 xiangshe:86, yan:91; 工六人四瑟 dashe:98);
- the 執冪者 are two, one to each 尊 of the 君 (立于尊南北面東上 dashe:29, yan:20; 執冪二人
  yan:120);
- a cup set full on the 豐 is full when it is taken up again, and nobody drinks from an empty
  one (勝者之弟子洗觶升酌南面坐奠于豐上 xiangshe:206; 不勝者…取豐上之觶…卒觶 211; 執爵者坐
  取觶實之反奠于豐上 215; dashe:226, 232, 234);
- whoever sets out a dish he brought holds it on his way (宰夫有司薦庶子設折俎 dashe:247, 薦俎
  從之 248, 設薦俎 252; 宰胥薦脯醢由左房，庶子設折俎升自西階 dashe:56; 膳宰薦脯醢由左房 yan:48),
  and so does one who lays a 席 (司宮兼卷重席 yan:76, 注 席自房來); whoever withdraws (徹) a
  dish or a 席 carries it away (卿辭重席司宮徹之 yan:77; 亦退其薦俎 注 xiangshe:258).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from loglines import step_lines

from sheli.engine.records import Step
from sheli.engine.state import CLOTH

# every test here reads whole runs (README: the quick loop)
pytestmark = pytest.mark.slow

RITES = ("xiangshe", "dashe", "yanshe", "yanli")
_DIGITS = {"": 1, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6}


def _steps(run_once: Callable[..., Any], rite: str) -> list[dict[str, Any]]:
    return step_lines(run_once(rite))


def _held(holds: list[str], thing: str) -> int:
    """How many of ``thing`` the log's ``holds`` words give (瑟, 瑟二, 瑟四)."""
    return sum(_DIGITS.get(w[len(thing) :], 0) for w in holds if w.startswith(thing))


# ------------------------------------------------------------------ 巾


@pytest.mark.parametrize("rite", ("dashe", "yanshe", "yanli"))
def test_the_lords_arrows_are_handed_in_a_cloth(rite: str, run_once: Callable[..., Any]) -> None:
    """小臣以巾授矢稍屬 (記 yan:178), 小臣師以巾内拂矢而授矢于公 (dashe:200; 敖繼公: 授矢亦以巾
    也): each arrow handed to the 公 comes from a hand that holds it in the 巾, one thing in one
    hand (以巾執矢 記 xiangshe:383; 敖繼公: 藉手以執之)."""
    before: dict[str, list[str]] = {}
    handed = []
    for e in _steps(run_once, rite):
        if e["verb"] in ("授", "屬") and e.get("obj") == "矢" and e.get("to") == "公":
            handed.append((e["seq"], e["actor"], before.get(e["actor"], [])))
        before[e["actor"]] = e["holds"]
    assert len(handed) >= 8  # four arrows in round 2 and four in round 3
    bare = [(seq, who, h) for seq, who, h in handed if not any(w.startswith("以巾執矢") for w in h)]
    assert bare == []


@pytest.mark.parametrize("rite", ("dashe", "yanshe", "yanli"))
def test_the_cloth_is_put_down_after_its_use(rite: str, run_once: Callable[..., Any]) -> None:
    """The 巾 is not held past its use: in the 大射儀 the 小臣師 withdraws with it (以巾退反位
    dashe:204) and is at his 位 without it; in the 燕射 the 小臣 lays it by the 君's 弓矢 at the
    end; nobody holds it at his last step."""
    steps = _steps(run_once, rite)
    last: dict[str, dict[str, Any]] = {}
    for e in steps:
        last[e["actor"]] = e
    assert [a for a, e in last.items() if any(CLOTH in w for w in e["holds"])] == []
    laid = [e for e in steps if e["verb"] == "奠" and e.get("obj") == CLOTH]
    assert laid
    if rite == "dashe":
        back = [e for e in steps if e["cite"] == "dashe:204" and e["verb"] == "反位"]
        assert len(back) == 2  # rounds 2 and 3
        assert [e["seq"] for e in back if any(CLOTH in w for w in e["holds"])] == []
        # he withdrew with it: laid down on the way, after the last arrow handed over
        assert all(e["cite"] == "dashe:204" for e in laid)


# ------------------------------------------------------------------ 瑟

# the 燕射 alone has only the 遷樂 (xiangshe:121): the 燕's 工 (工四人二瑟 yan:91)
ZITHERS = {"xiangshe": 2, "yanshe": 2, "yanli": 2, "dashe": 4}


@pytest.mark.parametrize("rite", RITES)
def test_the_zithers_are_as_many_as_the_text_counts(
    rite: str, run_once: Callable[..., Any]
) -> None:
    """工四人二瑟 (xiangshe:86, yan:91; 疏 xiangshe:86 則是二人歌可知), 工六人四瑟 (dashe:98, 注
    四瑟者禮大樂衆也): whoever carries or holds the 瑟 — the 相者 coming in (相者皆左何瑟), the
    工 on their 席, the 弟子 at the 遷樂 — holds that many, no more and no fewer."""
    want = ZITHERS[rite]
    counts = {
        (e["seq"], e["actor"], _held(e["holds"], "瑟"))
        for e in _steps(run_once, rite)
        if e.get("obj") == "瑟" and e["verb"] in ("取", "執", "受")
    }
    assert counts
    assert {n for _, _, n in counts} == {want}, sorted(counts)


# ------------------------------------------------------------------ 執冪者

COVERS = {"dashe": ("dashe:29",), "yanli": ("yan:20", "yan:120")}


@pytest.mark.parametrize("rite", sorted(COVERS))
def test_the_cover_holders_are_two(rite: str, run_once: Callable[..., Any]) -> None:
    """執冪者升自西階立于尊南北面東上 (dashe:29, yan:20; 注 dashe:29 東上執玄尊之冪為上, 注
    dashe:28 請士可使執君兩甒之冪); 執冪二人立于觶南東上 (yan:120): two, abreast, facing north,
    the one of the 玄尊 east."""
    placed = [
        e
        for e in _steps(run_once, rite)
        if e["actor"] == "執冪者" and e["cite"] in COVERS[rite] and e["verb"] in ("升", "立")
    ]
    assert {e["cite"] for e in placed} == set(COVERS[rite])
    for e in placed:
        members = e.get("members") or []
        assert len(members) == 2, e
        assert {m["facing"] for m in members} == {"N"}
        head, other = members
        assert head["y"] == other["y"] and head["x"] > other["x"], members


# ------------------------------------------------------------------ cups and the 豐


@pytest.mark.parametrize("rite", RITES)
def test_a_cup_keeps_its_fill_on_the_stand(rite: str, run_once: Callable[..., Any]) -> None:
    """The 豐 keeps the cup as it was set there: set full (勝者之弟子…酌…奠于豐上 xiangshe:206;
    執爵者…實之反奠于豐上 215; dashe:226, 234), it is full when the next 不勝者 takes it up
    (取豐上之觶…卒觶 xiangshe:211, dashe:232); and every drink is from a full cup."""
    r = run_once(rite)
    prev_holding: dict[str, Any] = {}
    on_stand: bool | None = None  # the fill of the cup on the 豐, None when there is none
    puts = takes = drinks = 0
    wrong = []
    for s in (x for x in r.records if type(x) is Step):
        o, h = s.objects, s.holding
        had = prev_holding.get(s.actor)
        if s.verb in ("飲", "卒觶", "卒爵"):
            drinks += 1
            if had is None or not had.cup_full:
                wrong.append((s.seq, s.cite, s.actor, "drinks from an empty cup"))
        if o.cup_on_stand and on_stand is None and s.verb == "奠":
            puts += 1
            if o.cup_on_stand_full != bool(had and had.cup_full):
                wrong.append((s.seq, s.cite, s.actor, "the 豐 changed the cup set on it"))
        if not o.cup_on_stand and on_stand is not None and s.verb == "取":
            takes += 1
            if h.cup_full != on_stand:
                wrong.append((s.seq, s.cite, s.actor, "the cup taken from the 豐 changed"))
        on_stand = o.cup_on_stand_full if o.cup_on_stand else None
        prev_holding[s.actor] = h
    assert puts >= 8 and takes >= 8 and drinks >= 10
    assert wrong == []


# ------------------------------------------------------------------ facing at the end of a walk


def test_the_target_keepers_face_east_at_their_blinds(run_once: Callable[..., Any]) -> None:
    """負矦皆許諾以宮趨直西及乏南又諾以商至乏聲止 (dashe:145); 獲者…以至于乏坐東面偃旌
    (xiangshe:144, 注 dashe:146 引鄉射禮): a 獲者 whose walk ends at his 乏 faces east there, as
    his place does, not north, the way he walked (乃折而北, 敖繼公)."""
    arrivals = [
        e
        for e in _steps(run_once, "dashe")
        if e["verb"] in ("適", "退") and e["place"].endswith("侯之乏") and "獲者" in e["actor"]
    ]
    assert len(arrivals) >= 6
    assert [(e["seq"], e["actor"], e["facing"]) for e in arrivals if e["facing"] != "E"] == []


def test_the_cup_filler_waits_at_the_end_of_the_west_wall_facing_east(
    run_once: Callable[..., Any],
) -> None:
    """㒒人師…反奠于豐上退俟于序端 (dashe:234): he goes back to wait at the 西序端, his place
    in the cast, whose facing is east (dashe.yaml: the text gives none), and faces as it does
    on arriving each time, not north, the way he faced at the 豐."""
    back = [
        e
        for e in _steps(run_once, "dashe")
        if e["actor"] == "僕人師" and e["verb"] == "退" and e["place"] == "西序端"
    ]
    assert len(back) >= 6
    assert {e["facing"] for e in back} == {"E"}


# ------------------------------------------------------------------ things carried

DISH_WORDS = ("薦", "俎", "脯醢", "羞", "庶羞")
WALKS = ("適", "進", "升", "降", "就", "從", "由", "出", "入")


@pytest.mark.parametrize("rite", ("dashe", "yanli"))
def test_a_dish_is_held_on_the_way_to_where_it_is_set(
    rite: str, run_once: Callable[..., Any]
) -> None:
    """宰夫有司薦庶子設折俎 (dashe:247), 卒錯獲者適右个薦俎從之 (248), 設薦俎立卒爵 (252);
    宰胥薦脯醢由左房，庶子設折俎升自西階 (dashe:56); 膳宰薦脯醢由左房 (yan:48); 使人執其薦與
    俎從之 (xiangshe:224): one who 設s or 薦s a dish holds it on each walk that leads him there
    (back to his last act that is not a walk), not empty-handed until it appears."""
    mine: dict[str, list[dict[str, Any]]] = {}
    empty, walked = [], 0
    for e in _steps(run_once, rite):
        before = mine.setdefault(e["actor"], [])
        if e["verb"] in ("設", "薦") and e.get("obj") in DISH_WORDS:
            for leg in reversed(before):
                if leg["verb"] not in WALKS:
                    break
                walked += 1
                if not any(w.startswith(e["obj"]) for w in leg["holds"]):
                    empty.append((leg["seq"], leg["cite"], e["actor"], leg["verb"], e["obj"]))
        before.append(e)
    assert walked >= 20
    assert empty == []


def test_the_lords_dried_meat_comes_from_the_left_chamber(run_once: Callable[..., Any]) -> None:
    """宰胥薦脯醢由左房 (dashe:56; 注 左房東房也人君左右房): the 宰胥 takes the 脯醢 up in the
    房 and carries them from there to the 公, not from where he stood."""
    mine = [
        e for e in _steps(run_once, "dashe") if e["cite"] == "dashe:56" and e["actor"] == "宰胥"
    ]
    verbs = [(e["verb"], e["place"], "脯醢" in e["holds"]) for e in mine]
    assert verbs[:2] == [("進", "房", False), ("取", "房", True)]
    assert verbs[-1][0] == "薦" and all(held for _, _, held in verbs[1:-1])


MAT_WORDS = ("席", "重席", "加席")


# the 燕射 lays no 席 (it runs the archery alone)
@pytest.mark.parametrize("rite", ("xiangshe", "dashe", "yanli"))
def test_a_mat_is_held_on_the_way_to_where_it_is_laid(
    rite: str, run_once: Callable[..., Any]
) -> None:
    """司宮兼卷重席設于賓左東上 (yan:76; 注 席自房來); 乃席賓南面東上 (xiangshe:4); 司宮設賓席
    (dashe:18): one who walks to lay a 席 carries it on each walk of that step that leads him
    there (back to his last act that is not a walk), not empty-handed until it lies there."""
    mine: dict[str, list[dict[str, Any]]] = {}
    empty, walked = [], 0
    for e in _steps(run_once, rite):
        before = mine.setdefault(e["actor"], [])
        if e["verb"] == "設" and e.get("obj") in MAT_WORDS:
            for leg in reversed(before):
                if leg["verb"] not in WALKS or leg["cite"] != e["cite"]:
                    break
                walked += 1
                if e["obj"] not in leg["holds"]:
                    empty.append((leg["seq"], leg["cite"], e["actor"], leg["verb"], e["obj"]))
        before.append(e)
    assert walked >= 3
    assert empty == []


@pytest.mark.parametrize("rite", RITES)
def test_what_is_withdrawn_is_carried_away(rite: str, run_once: Callable[..., Any]) -> None:
    """卿辭重席司宮徹之 (yan:77; 注 徹猶去也); 獲者…以旌負矦而俟 … 釋獲者…亦退其薦俎 (注
    xiangshe:258); 膳宰徹公俎 (yan:112): the 徹 takes the 薦, 俎 or 席 into his hands, and he
    holds it on every walk that takes it away, up to his 反位, until he puts it down, hands it
    on or (the text silent) lays it by where he went before his next act. One whose hands are
    both full (the 釋獲者 with the 中 and the 筭) does not take it: nobody holds three things."""
    steps = _steps(run_once, rite)
    mine: dict[str, list[dict[str, Any]]] = {}
    for e in steps:
        mine.setdefault(e["actor"], []).append(e)
    withdrawn, dropped, kept = 0, [], []
    for acts in mine.values():
        for i, e in enumerate(acts):
            thing = e.get("obj")
            if e["verb"] != "徹" or thing not in (*DISH_WORDS, *MAT_WORDS):
                continue
            held_before = [w for w in acts[i - 1]["holds"] if not w.startswith("挾")] if i else []
            if len(held_before) >= 2:
                # both hands full (the 釋獲者's 中 and 筭): not his to carry (world-rules.md)
                assert thing not in e["holds"]
                continue
            withdrawn += 1
            if thing not in e["holds"]:
                dropped.append((e["seq"], e["cite"], e["actor"], e["verb"]))
            for leg in acts[i + 1 :]:
                if leg["verb"] not in (*WALKS, "退", "反位"):
                    if leg.get("obj") != thing and thing in leg["holds"]:
                        kept.append((leg["seq"], leg["cite"], e["actor"], leg["verb"]))
                    break
                if thing not in leg["holds"]:
                    dropped.append((leg["seq"], leg["cite"], e["actor"], leg["verb"]))
    assert withdrawn >= {"xiangshe": 1, "dashe": 2, "yanshe": 1, "yanli": 3}[rite]
    assert dropped == []
    assert kept == []


def test_the_ministers_double_mats_come_from_the_chamber_and_go_back(
    run_once: Callable[..., Any],
) -> None:
    """司宮兼卷重席設于賓左東上 (yan:76; 注 言兼卷則每卿異席也 … 席自房來): the 司宮 takes the
    rolled 重席 up in the 房 and carries them to the 卿席; 卿辭重席司宮徹之 (yan:77): he takes
    them away again, back to the 房 they came from (an assumption: the text is silent)."""
    laid = [
        (e["verb"], e["place"], "重席" in e["holds"])
        for e in _steps(run_once, "yanli")
        if e["cite"] in ("yan:76", "yan:77") and e["actor"] == "司宮"
    ]
    took = laid.index(("取", "左房", True))
    set_at = laid.index(("設", "卿席之南", False))
    assert took < set_at and all(held for _, _, held in laid[took:set_at])
    gone = laid.index(("徹", "卿席之南", True))
    assert laid[gone + 1 : gone + 3] == [("適", "左房", True), ("奠", "左房", False)]


def test_the_dishes_follow_the_target_keeper_in_hand(run_once: Callable[..., Any]) -> None:
    """薦俎從之 (dashe:248): the 宰夫有司 and the 庶子 take up the 薦 and the 俎 they set at the
    獻 and carry them after the 獲者 to the 右个, the 左个 and the 中, then set them at his 卒爵
    place (設薦俎 252), for each 獲者 (皆如大矦之禮 253)."""
    follows = [
        e
        for e in _steps(run_once, "dashe")
        if e["verb"] == "從" and e["cite"] in ("dashe:248", "dashe:250")
    ]
    assert len(follows) >= 2 * 3 * 6  # two carriers, three places, six 獲者
    carried = {"宰夫有司": "薦", "庶子": "俎"}
    assert [(e["seq"], e["actor"]) for e in follows if carried[e["actor"]] not in e["holds"]] == []


# ------------------------------------------------------------------ the last pair's crossing


def test_the_last_pair_walks_to_no_crossing(run_once: Callable[..., Any]) -> None:
    """與升射者相左交于階前相揖 (dashe:154), 與升飲者相左交于階前相揖 (234), 退者與進者相左
    相揖 (178): 敖繼公 (the 義疏 agreeing) on xiangshe:153 and 178, 下耦無與升射者相左相揖之事,
    下耦亦無與進者相左相揖之事. The last pair to come down — the 下耦 of the 三耦, whom the
    公's shooting follows in rounds 2 and 3, and the 士御耦, last of the 卿大夫 — neither walks
    to the crossing point nor bows there; every other pair does, both rounds."""
    crossing: dict[str, set[tuple[int, str]]] = {"dashe:154": set(), "dashe:234": set()}
    bowed_178: set[tuple[int, str]] = set()
    for e in _steps(run_once, "dashe"):
        pair = e["actor"][:-2]
        if e["cite"] in crossing and e["verb"] in ("適", "揖") and "階前" in e["place"]:
            crossing[e["cite"]].add((e["round"], pair))
        if e["cite"] == "dashe:178" and e["verb"] == "揖":
            bowed_178.add((e["round"], pair))
    shooting = crossing["dashe:154"]
    assert {p for r, p in shooting if r == 1} == {"上耦", "次耦"}
    for r in (2, 3):
        assert {p for q, p in shooting if q == r} == {"上耦", "次耦", "卿耦", "大夫耦1"}
        assert {p for q, p in crossing["dashe:234"] if q == r} == {"上耦", "次耦"}
    assert bowed_178 and {p for _, p in bowed_178} == {"上耦", "次耦"}


@pytest.mark.parametrize("rite", RITES)
def test_the_cup_is_taken_from_the_stand_once_filled_again(
    rite: str, run_once: Callable[..., Any]
) -> None:
    """僕人師繼酌射爵取觶實之反奠于豐上 (dashe:234), 執爵者坐取觶實之反奠于豐上 (xiangshe:215):
    the next 不勝者 takes the 觶 from the 豐 (取豐上之觶 dashe:232, xiangshe:211) only once it is
    set there again, full: in time, after the 奠 on the 豐 has ended, not while its filler still
    holds it."""
    put: dict[str, Any] | None = None
    early, taken = [], 0
    for e in _steps(run_once, rite):
        if e["verb"] == "奠" and e.get("obj") == "觶" and e.get("at") in ("豐", "豐上"):
            put = e
        elif e["verb"] == "取" and e.get("obj") == "觶" and e["place"].startswith("豐之南"):
            if put is None or put["actor"] == e["actor"]:
                continue
            taken += 1
            if e["t"] < put["t"] + put["dur"] - 0.01:
                early.append((e["seq"], e["actor"], e["t"], put["seq"], put["actor"]))
    assert taken >= 6
    assert early == []


# ------------------------------------------------------------------ who brings the 薦


def test_the_lesser_cook_brings_the_dishes_of_the_ministers(
    run_once: Callable[..., Any],
) -> None:
    """羞卿者小膳宰也 (記 yan:165; 注 膳宰之佐也), 凡薦與羞者小膳宰也 (記 yan:175; 注 謂於卿大夫
    以下也…羞賓者亦士): the 薦 and 羞 of the 卿 (yan:78), the 大夫 (89), the 工 (94), the 司正
    and the 士 (120–123) are the 小膳宰's; the 膳宰 sets the 賓's (yan:34), a 士 (the 羞膳者)
    the 公's (48) and the 庶羞 of the 公 and the 賓 (115), the 胥 the 主人's (胥薦主人 88)."""
    by_cite: dict[str, list[str]] = {}
    for e in _steps(run_once, "yanli"):
        if e["verb"] == "薦" and e.get("obj") in ("脯醢", "庶羞"):
            by_cite.setdefault(e["cite"], []).append(e["actor"])
    lesser = ("yan:78", "yan:89", "yan:94", "yan:120", "yan:121", "yan:122", "yan:123")
    assert {c: set(by_cite[c]) for c in lesser} == {c: {"小膳宰"} for c in lesser}
    assert sorted(by_cite["yan:115"]) == ["小膳宰", "小膳宰", "羞膳者", "羞膳者"]
    assert by_cite["yan:34"] == ["膳宰"] and by_cite["yan:88"] == ["胥"]
    assert by_cite["yan:48"] == ["羞膳者"]


# ------------------------------------------------------------------ the 旅 of the 士


@pytest.mark.parametrize(("poured", "drunk"), [("yan:134", "yan:134"), ("yan:142", "yan:143")])
def test_each_shi_fills_the_cup_for_the_next(
    poured: str, drunk: str, run_once: Callable[..., Any]
) -> None:
    """士旅于西階上辯 (yan:133), 士旅酌 (134; 注 旅序也士以次序自酌相酬無執爵者), 士旅酌亦如之
    (142), 士終旅於上如初 (143): a 士 fills the cup at the 尊 for the next, who drinks it at the
    西階上; nobody drinks what he filled himself, and the last to receive puts it in the 篚
    (卒受者以虛觶降奠于篚 yan:74, 86)."""
    steps = _steps(run_once, "yanli")
    pourer = [e["actor"] for e in steps if e["cite"] == poured and e["verb"] == "酌"][-1]
    drinks = [e for e in steps if e["cite"] == drunk and e["verb"] in ("卒觶", "飲", "卒爵")]
    assert len(drinks) == 1
    drinker = drinks[0]
    assert drinker["actor"] != pourer
    assert drinker["place"].startswith("西階上")
    put = [e for e in steps if e["cite"] == drunk and e["verb"] == "奠"]
    assert [(e["actor"], e["at"]) for e in put] == [(drinker["actor"], "下篚")]


def test_the_filled_cup_is_brought_to_the_lord_before_he_names_its_drinker(
    run_once: Callable[..., Any],
) -> None:
    """執膳爵者酌以進公 … 執散爵者酌以之公，命所賜 (yan:137): each cup-bearer brings his filled
    爵 to the 公 — the 執散爵者 before the 公 names the one it is for, the order given to him."""
    steps = _steps(run_once, "yanli")
    bearer: dict[str, dict[str, Any]] = {}
    named = None
    for e in steps:
        if e["cite"] != "yan:137":
            continue
        if e["actor"] == "公" and e["verb"] == "命":
            named = (e, dict(bearer))
            break
        if e["actor"] in ("執膳爵者", "執散爵者") and e["verb"] == "進":
            bearer[e["actor"]] = e  # his last walk
    assert named is not None
    order, before = named
    assert order["to"] == "執散爵者"
    for who in ("執膳爵者", "執散爵者"):
        last = before[who]
        assert "爵(實)" in last["holds"]
        assert math.dist((last["x"], last["y"]), (order["x"], order["y"])) <= 6.0, last

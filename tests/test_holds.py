"""What leaves the hands when it is set down, and the 筭 conserved through the count.

設楅 (xiangshe:158) and 設豐 (xiangshe:206): the 弟子 no longer holds the 楅/豐 once it is set.
The 筭 (箭籌八十, 記 xiangshe:378; max(80, 4 × archers) here, A-chou) are never made or lost:
at every step, those in the 中, in anyone's hand, on the ground by side (釋獲 上射於右下射於左
xiangshe:186), 委 at the 中西 (xiangshe:183, 186 注 委之合於中西) and at other places add up
to the total. 取賢獲 (xiangshe:202) takes the winning side's excess (注 齊之而取其餘);
兼歛算…實八算于中委其餘于中西 (xiangshe:204) leaves eight in the 中 and the rest at the 中西.

挾 and 執 are two holds (注 dashe:274 側持弦矢曰執; 疏 上文皆云挾一个此經云執一个): an arrow 挾
is ready to shoot, one 執 lies along the string, head up, and is not shot (將止變於射也).
Nothing is held past its use: the table ``src/sheli/rite/data/use-ends.yaml`` says what uses a
thing and what the text itself has held on (docs/world-rules.md, "Nothing held past its use").
"""

from __future__ import annotations

from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from loglines import step_lines, tally_lines
from test_verbs import ON_WU, SHOOT_U, UP, S, do_run, fails
from watching import watch_records

from sheli.engine import run
from sheli.engine.interpreter import count_of
from sheli.engine.state import Holding
from sheli.yamlfile import load_yaml


def chou_total(w: Any) -> int:
    hands = sum(p.items.get("筭", 0) for p in w.people.values())
    places = sum(n for (obj, _), n in w.places.items() if obj == "筭")
    return (
        w.rods_in_vessel
        + w.rods_reserve
        + w.rods_on_ground["right"]
        + w.rods_on_ground["left"]
        + hands
        + places
    )


class _Checked(list):  # type: ignore[type-arg]
    """The event list of a run, checking the 筭 after every line."""

    def __init__(self, world: Any, total: int) -> None:
        super().__init__()
        self.world, self.total = world, total

    def append(self, ev: Any) -> None:
        super().append(ev)
        got = chou_total(self.world)
        where = (ev.seq, getattr(ev, "cite", None), getattr(ev, "verb", None))
        assert got == self.total, (*where, got)


@pytest.mark.parametrize(
    "kw", [{}, {"pairs": 3}, {"guests": False}, {"arrows_short": True}, {"venue": "xiang"}]
)
@pytest.mark.slow
def test_chou_conserved_at_every_step(monkeypatch: pytest.MonkeyPatch, kw: dict[str, Any]) -> None:
    r = run_checking_chou(monkeypatch, "xiangshe", seed=3, **kw)
    assert tally_lines(r)


def run_checking_chou(monkeypatch: pytest.MonkeyPatch, rite: Any, **kw: Any) -> Any:
    """Run ``rite`` with the 筭 counted after every line of its log (A-chou: eighty, or four
    for each archer): an assertion names the first line where one appears or goes missing.
    Also used by tests/test_dashe_archery.py."""
    box = watch_records(
        monkeypatch,
        lambda world: _Checked(world, count_of("max(80, 4 * archers)", world.names)),
    )
    r = run(rite, **kw)
    assert len(box["records"]) > 100  # the 筭 were counted after every record made
    return r


@pytest.mark.slow
def test_xianhuo_and_jianlian() -> None:
    r = run("xiangshe", seed=1)
    steps = step_lines(r)
    for t in tally_lines(r):
        # the lines of this round's 202–204 by the 釋獲者
        mine = [
            e
            for e in steps
            if e["actor"] == "釋獲者"
            and e["round"] == t["round"]
            and e["cite"] in ("xiangshe:202", "xiangshe:204")
            and e.get("obj") == "筭"
        ]
        take = mine[0]
        n = abs(t["right"] - t["left"])
        want = ["筭"] if n == 1 else [] if n == 0 else None
        if t["winner"] == "tie":
            assert take["count"] == 1  # 左右皆執一算
        elif want is not None:
            assert take["holds"] == want
        total = 80
        fill, rest = mine[-2], mine[-1]
        assert fill["verb"] == "實" and rest["verb"] == "委"
        # 實八算于中: he held all the 筭 but the eight; 委其餘于中西: his hands are empty
        assert fill["holds"] == [f"筭{total - 8}"]
        assert rest["holds"] == []


@pytest.mark.parametrize(("cite", "obj"), [("xiangshe:158", "楅"), ("xiangshe:206", "豐")])
@pytest.mark.slow
def test_set_down_leaves_the_hands(cite: str, obj: str) -> None:
    r = run("xiangshe", seed=1)
    sets = [e for e in step_lines(r) if e["cite"] == cite and e["verb"] == "設" and e["obj"] == obj]
    assert sets
    for e in sets:
        assert obj not in e["holds"]
        later = [x for x in step_lines(r) if x["actor"] == e["actor"] and x["seq"] > e["seq"]][:3]
        assert all(obj not in x["holds"] for x in later)


# ---------------------------------------------------------------- reach (E-reach)


@pytest.mark.parametrize(
    "kw",
    [{}, {"guests": False}, {"venue": "xiang"}, {"pairs": 3}, {"arrows_short": True}],
)
@pytest.mark.slow
def test_no_reach_warnings(kw: dict[str, Any]) -> None:
    """Everyone goes where he puts a thing down or hands it over: 執爵者…以授于席前 (216),
    授者在東飲者在西 (注 210), 弟子逆受於東面位之後 (注 178), 加于楅 (161), 設薦俎 at 左个之西北
    三歩 (227), 近司馬 (注 227); where the text is silent, an assumption (A-xu-dizi,
    A-zhijue-wei, A-sima-jin, A-youshi-dong)."""
    assert run("xiangshe", seed=1, **kw).warnings == []


# ---------------------------------------------------------------- 挾 and 執

RITES = ["xiangshe", "dashe", "yanshe", "yanli"]


@cache
def steps_of(rite: str) -> list[dict[str, Any]]:
    return step_lines(run(rite, seed=1))


@pytest.mark.parametrize(
    ("rite", "cite"),
    [("xiangshe", "xiangshe:253"), ("dashe", "dashe:274"), ("yanshe", "xiangshe:253")],
)
@pytest.mark.slow
def test_the_sishe_holds_his_arrow_zhi(rite: str, cite: str) -> None:
    """司射猶袒決遂左執弓右執一个兼諸弦面鏃 (xiangshe:253, dashe:274; 燕射 as 鄉射): the arrow he
    held 挾 is now 執 (注 側持弦矢曰執; 疏 dashe:274 上文皆云挾一个此經云執一个)."""
    steps = steps_of(rite)
    act = next(
        e for e in steps if e["cite"] == cite and e["actor"] == "司射" and e.get("obj") == "矢"
    )
    before = [e for e in steps if e["actor"] == "司射" and e["seq"] < act["seq"]][-1]
    assert "挾矢一" in before["holds"]  # 司射猶挾一个 (xiangshe:246, dashe:269)
    assert act["verb"] == "執" and "執矢一" in act["holds"]
    assert not any(h.startswith("挾") for h in act["holds"])


@pytest.mark.parametrize(
    ("rite", "cite", "archers"),
    [
        ("xiangshe", "xiangshe:254", ["上耦上射", "下耦下射", "大夫", "賓", "主人"]),
        ("dashe", "dashe:275", ["上耦上射", "下耦下射"]),
        ("yanshe", "xiangshe:254", ["上耦上射", "賓"]),
        ("yanli", "xiangshe:254", ["次耦下射", "賓"]),
    ],
)
@pytest.mark.slow
def test_the_last_arrows_are_held_zhi_not_xie(rite: str, cite: str, archers: list[str]) -> None:
    """矢不挾兼諸弦弣 (xiangshe:254), 矢不挾兼諸弦面鏃 (dashe:275): 注 不挾亦謂執之如司射; the
    four arrows are 執 until they are handed to the 有司 with the 弓."""
    steps = steps_of(rite)
    for who in archers:
        held = [e for e in steps if e["cite"] == cite and e["actor"] == who and e["verb"] == "執"]
        assert held, who
        assert "執矢四" in held[0]["holds"], (who, held[0]["holds"])
        given = next(
            e
            for e in steps
            if e["actor"] == who and e["verb"] == "授" and e["seq"] > held[0]["seq"]
        )
        assert given.get("obj") == "弓矢" and given["holds"] == []


@pytest.mark.parametrize(
    ("rite", "cite"),
    [
        ("xiangshe", "xiangshe:126"),  # 三耦皆執弓搢三而挾一个
        ("dashe", "dashe:149"),  # 上射既發挾矢而后下射射
        ("yanshe", "xiangshe:126"),
        ("yanli", "xiangshe:126"),
    ],
)
@pytest.mark.slow
def test_xie_passages_hold_xie(rite: str, cite: str) -> None:
    """Where the text says 挾, the arrow is 挾 and none is 執 (記 xiangshe:344
    凡挾矢於二指之閒横之)."""
    acts = [e for e in steps_of(rite) if e["cite"] == cite and e["verb"] == "挾"]
    assert acts
    for e in acts:
        assert "挾矢一" in e["holds"] and not any(h.startswith("執矢") for h in e["holds"]), e


def test_an_arrow_held_zhi_is_not_shot(tmp_path: Path) -> None:
    """將止變於射也 (注 dashe:274): an arrow 執 along the string cannot be loosed until it is 挾
    again (上射既發挾弓矢 xiangshe:147)."""
    zhi = S(253, "右執一个兼諸弦面鏃", actor="上耦上射", verb="執", obj="矢")
    fails(tmp_path, [UP, ON_WU, zhi, SHOOT_U], "no arrow 挾", "執")
    xie = S(147, "挾弓矢", actor="上耦上射", verb="挾", obj="矢")
    r = do_run(tmp_path, [UP, ON_WU, zhi, xie, SHOOT_U])
    assert r.world.people["上耦上射"].holds() == ["張弓", "搢矢三"]


# ---------------------------------------------------------------- nothing held past its use

USE_ENDS = load_yaml(
    (Path(__file__).resolve().parents[1] / "src/sheli/rite/data/use-ends.yaml").read_text("utf-8")
)
USES: dict[str, set[str]] = {}
for row in USE_ENDS["uses"]:
    for thing in row["things"]:
        USES.setdefault(thing, set()).update(row["verbs"])
ONE_ACT = {row["thing"] for row in USE_ENDS["one_act"]}
#: (thing, holder) → the passages at whose end he may still hold it (None: wherever)
KEPT: dict[tuple[str, str], set[str] | None] = {
    (row["thing"], who): set(row["at"]) if "at" in row else None
    for row in USE_ENDS["kept"]
    for who in row["holders"]
}


def kept(thing: str, holders: tuple[str, str], cite: str) -> bool:
    """Does the table keep ``thing`` in the hands of one of ``holders`` (his name, his role)
    at the end of the passage ``cite``?"""
    for who in holders:
        if (thing, who) in KEPT:
            at = KEPT[thing, who]
            return at is None or cite in at
    return False


#: the words of an act's obj that name more than one thing, or a thing by another word
NAMES = {"弓矢": ("弓", "矢"), "乘矢": ("矢",), "一个": ("矢",), "算": ("筭",)}


def things(h: Holding) -> dict[str, int]:
    """What a holding holds, by thing: 弓, 矢 (in hand, 搢, 挾 or 執), 扑, the items, 筭."""
    out = dict(h.items)
    if h.bow:
        out["弓"] = out.get("弓", 0) + 1
    if h.arrows:
        out["矢"] = h.arrows
    if h.discipline_rod:
        out["扑"] = 1
    if h.counting:
        out["筭"] = out.get("筭", 0) + h.counting
    return {k: n for k, n in out.items() if n > 0}


def acts_on(step: Any, thing: str) -> bool:
    """Does ``step`` name ``thing`` as its object, or use it (the table's ``uses``)?"""
    obj = step.obj or ""
    return thing in NAMES.get(obj, (obj,)) or step.verb in USES.get(thing, ())


class _Watched(list[Any]):
    """The records of a run, with each person's holding noted whenever it changes."""

    def __init__(self, world: Any) -> None:
        super().__init__()
        self.world = world
        self.last: dict[str, Holding] = {}
        self.changes: list[tuple[int, str, Holding]] = []

    def append(self, rec: Any) -> None:
        super().append(rec)
        if not hasattr(rec, "actor"):
            return
        for name, p in self.world.people.items():
            h = p.holding()
            if self.last.get(name) is not h:
                self.last[name] = h
                self.changes.append((len(self) - 1, name, h))


def watching(monkeypatch: pytest.MonkeyPatch) -> dict[str, _Watched]:
    """Make the next run note every holding as it changes; its records land in the box."""
    return watch_records(monkeypatch, _Watched)


def past_use(r: Any, recs: _Watched) -> list[str]:
    """Each thing someone holds when a section ends (or the rite ends) though its use is over
    (use-ends.yaml): a thing of one act, or one he neither acts on again nor lets go of before
    the end; what the table keeps is not counted. One line per holder and thing."""
    steps = [(i, e) for i, e in enumerate(recs) if hasattr(e, "actor")]
    roles = {name: p.role for name, p in r.world.people.items()}
    timeline: dict[str, list[tuple[int, dict[str, int]]]] = {}
    for i, name, h in recs.changes:
        timeline.setdefault(name, []).append((i, things(h)))
    ends = [i for (i, e), (_, n) in pairwise(steps) if e.section != n.section]
    ends.append(steps[-1][0])
    faults: dict[tuple[str, str], str] = {}
    for end in ends:
        for name, line in timeline.items():
            now = next((held for i, held in reversed(line) if i <= end), {})
            for thing, n in now.items():
                if kept(thing, (name, roles[name]), recs[end].cite):
                    continue
                if thing in ONE_ACT:
                    why = "a thing of one act, held as the section ends"
                else:
                    used = any(e.actor == name and acts_on(e, thing) for i, e in steps if i > end)
                    let_go = any(held.get(thing, 0) < n for i, held in line if i > end)
                    if used or let_go:
                        continue
                    why = "never used or let go again"
                cite = recs[end].cite
                faults.setdefault((name, thing), f"{name} holds {thing} at {cite}: {why}")
    return sorted(faults.values())


def held_past_use(monkeypatch: pytest.MonkeyPatch, rite: str, **kw: Any) -> list[str]:
    """:func:`past_use` of a run of ``rite`` (seed 1)."""
    box = watching(monkeypatch)
    r = run(rite, seed=1, **kw)
    return past_use(r, box["records"])


@pytest.mark.parametrize(
    ("rite", "kw"),
    [
        ("xiangshe", {}),
        ("xiangshe", {"venue": "xiang", "pairs": 2}),
        ("dashe", {}),
        ("dashe", {"guests": False}),
        ("yanshe", {}),
        ("yanli", {}),
    ],
)
@pytest.mark.slow
def test_nothing_held_past_its_use(
    monkeypatch: pytest.MonkeyPatch, rite: str, kw: dict[str, Any]
) -> None:
    """What is taken up is put down, handed on or put away where the text or its readers say:
    the 冪 goes back on the 尊 after each 酌 (dashe:40; 執冪如初 dashe:48, 敖繼公 on yan:41);
    the 公's 決拾 go back in their 笥 on the 坫 (dashe:198, 205); the last 士's 爵 goes to the
    篚 (A-she-last-shi, A-yan-last-shi); the 君's and the 賓's arrows are laid down by the 矢人
    (dashe:210, 注; A-she-shiren-put); the 公's 弓 goes to an 有司 in the 東堂 (注 dashe:204);
    the 釋獲者 carries the 中 and 筭 to the 堂西 (敖繼公 on xiangshe:258); the 有司 lays down
    the 弓矢 handed to him (A-youshi-put, A-she-youshi-put); the 君's 弓矢 in the 燕射 go to the
    弓人 (A-jun-shi-end)."""
    assert held_past_use(monkeypatch, rite, **kw) == []


@pytest.mark.parametrize(
    ("rite", "cite", "who", "thing"),
    [
        ("dashe", "dashe:48", "執冪者", "冪"),  # 執冪如初: 舉冪 … 蓋冪
        ("dashe", "dashe:205", "小射正", "決拾"),  # 以笥受決拾退奠于坫上
        ("dashe", "dashe:205", "大射正", "弓"),  # 注: 受弓以授有司於東堂
        ("dashe", "dashe:210", "矢人", "矢"),  # 注: 小臣以授矢人于東堂下
        ("dashe", "dashe:316", "士", "爵"),  # 士終旅於上如初
        ("yanli", "yan:143", "士", "爵"),
        ("xiangshe", "xiangshe:258", "釋獲者", "中"),  # 退中與算而俟
        ("dashe", "dashe:277", "大史", "筭"),
        ("xiangshe", "xiangshe:258", "弟子", "楅"),  # 命弟子退楅 (敖繼公: 退于堂西以俟)
        ("dashe", "dashe:276", "小臣師", "楅"),  # 小臣師退楅
    ],
)
@pytest.mark.slow
def test_each_passage_lets_go(rite: str, cite: str, who: str, thing: str) -> None:
    """At each of these passages the one who held the thing ends it with empty hands of it."""
    mine = [e for e in steps_of(rite) if e["cite"] == cite and e["actor"] == who]
    assert any(thing in "".join(e["holds"]) for e in mine), (who, thing)
    assert thing not in "".join(mine[-1]["holds"]), mine[-1]


def test_the_check_finds_a_thing_kept(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The check names a 豐 carried across a section's end (a thing of one act: 弟子奉豐升設于
    西楹之西 xiangshe:206) and a 觶 taken up and never used or set down again."""
    box = watching(monkeypatch)
    steps = [
        S(206, "弟子奉豐升設于西楹之西", actor="弟子", verb="奉", obj="豐"),
        S(206, "弟子奉豐升設于西楹之西", actor="司馬", verb="取", obj="觶"),
        S(258, "命弟子退楅", actor="司馬", verb="命", to="弟子"),
    ]
    cast = [{"role": who, "at": "堂西", "facing": "E"} for who in ("司馬", "弟子")]
    r = do_run(tmp_path, steps, cast=cast)
    found = past_use(r, box["records"])
    assert found == [
        "司馬 holds 觶 at xiangshe:206: never used or let go again",
        "弟子 holds 豐 at xiangshe:206: a thing of one act, held as the section ends",
    ]

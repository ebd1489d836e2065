"""What leaves the hands when it is set down, and the 筭 conserved through the count.

設楅 (xiangshe:158) and 設豐 (xiangshe:206): the 弟子 no longer holds the 楅/豐 once it is set.
The 筭 (箭籌八十, 記 xiangshe:378; max(80, 4 × archers) here, A-chou) are never made or lost:
at every step, those in the 中, in anyone's hand, on the ground by side (釋獲 上射於右下射於左
xiangshe:186), 委 at the 中西 (xiangshe:183, 186 注 委之合於中西) and at other places add up
to the total. 取賢獲 (xiangshe:202) takes the winning side's excess (注 齊之而取其餘);
兼歛算…實八算于中委其餘于中西 (xiangshe:204) leaves eight in the 中 and the rest at the 中西.
"""

from __future__ import annotations

from typing import Any

import pytest
from loglines import step_lines, tally_lines

from sheli.engine import interpreter as interp_mod
from sheli.engine import run
from sheli.engine.interpreter import count_of


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
def test_chou_conserved_at_every_step(monkeypatch: pytest.MonkeyPatch, kw: dict[str, Any]) -> None:
    r = run_checking_chou(monkeypatch, "xiangshe", seed=3, **kw)
    assert tally_lines(r)


def run_checking_chou(monkeypatch: pytest.MonkeyPatch, rite: Any, **kw: Any) -> Any:
    """Run ``rite`` with the 筭 counted after every line of its log (A-chou: eighty, or four
    for each archer): an assertion names the first line where one appears or goes missing.
    Also used by tests/test_dashe_archery.py."""
    real_init = interp_mod.Interpreter.__init__

    def init(self: Any, *a: Any, **k: Any) -> None:
        real_init(self, *a, **k)
        total = count_of("max(80, 4 * archers)", self.world.names)
        self.records = _Checked(self.world, total)

    monkeypatch.setattr(interp_mod.Interpreter, "__init__", init)
    return run(rite, **kw)


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
def test_no_reach_warnings(kw: dict[str, Any]) -> None:
    """Everyone goes where he puts a thing down or hands it over: 執爵者…以授于席前 (216),
    授者在東飲者在西 (注 210), 弟子逆受於東面位之後 (注 178), 加于楅 (161), 設薦俎 at 左个之西北
    三歩 (227), 近司馬 (注 227); where the text is silent, an assumption (A-xu-dizi,
    A-zhijue-wei, A-sima-jin, A-youshi-dong)."""
    assert run("xiangshe", seed=1, **kw).warnings == []

"""What an outcome's ``struck`` does in a run: the 過 and its 撻 (記 xiangshe:350), and 大射儀's
中離維綱, 揚觸, 梱復, counted for the 公 alone (dashe:182)."""

from __future__ import annotations

from typing import Any

import pytest

from sheli.engine import run
from sheli.engine.coverage import coverage
from sheli.engine.records import Shot, Step
from sheli.scoring.outcomes import Outcome, SeededOutcomes


class WithStruck:
    """The seeded model, but some arrows struck something else (and so did not 貫)."""

    def __init__(self, seed: int, struck: dict[tuple[int, str, str, int], str]) -> None:
        self.base = SeededOutcomes(seed)
        self.struck = struck

    def outcome(self, round: int, pair: str, archer: str, arrow: int) -> tuple[bool, bool | None]:
        hit, on_beat = self.base.outcome(round, pair, archer, arrow)
        return (False if (round, pair, archer, arrow) in self.struck else hit), on_beat

    def detail(self, round: int, pair: str, archer: str, arrow: int) -> Outcome | None:
        what = self.struck.get((round, pair, archer, arrow))
        if what is None:
            return None
        on_beat = self.base.outcome(round, pair, archer, arrow)[1]
        return Outcome(round, pair, archer, arrow, False, on_beat, struck=what)


def shots(r: Any) -> list[Shot]:
    return [e for e in r.records if isinstance(e, Shot)]


def steps(r: Any, cite: str) -> list[dict[str, Any]]:
    return [
        e.to_json() for e in r.records if isinstance(e, Step) and e.to_json().get("cite") == cite
    ]


@pytest.mark.slow
def test_a_guo_is_punished_in_the_zhongting() -> None:
    src = WithStruck(3, {(2, "上耦", "下射", 2): "人"})
    r = run("xiangshe", outcomes=src, options={"feast": False})
    (guo,) = [s for s in shots(r) if s.struck]
    assert (guo.round, guo.pair, guo.archer, guo.hit, guo.counted) == (
        2,
        "上耦",
        "下射",
        False,
        False,
    )
    assert guo.to_json()["struck"] == "人"
    acts = [(s.get("actor"), s.get("verb"), s.get("place")) for s in steps(r, "xiangshe:350")]
    assert ("上耦下射", "適", "中庭") in acts
    assert [a for a in acts if a[1] == "撻"] == [("司射", "撻", "中庭之西")]
    (ta,) = [s for s in steps(r, "xiangshe:350") if s.get("verb") == "撻"]
    assert ta.get("punished") == "上耦下射"
    assert "A-ta" in r.assumptions
    # the 撻 comes after his pair is down (降射 xiangshe:153), before the next pair goes up
    order = [e.to_json() for e in r.records if isinstance(e, Step)]
    i = order.index(ta)
    assert any(s.get("cite") == "xiangshe:153" for s in order[i - 12 : i])


@pytest.mark.slow
def test_no_guo_no_ta() -> None:
    r = run("xiangshe", seed=3, options={"feast": False})
    assert steps(r, "xiangshe:350") == []
    assert all("struck" not in s.to_json() for s in shots(r))


def test_coverage_counts_xiangshe_350_as_a_step() -> None:
    (p,) = [p for p in coverage("xiangshe").passages if p.n == 350]
    assert p.status == "step"


@pytest.mark.parametrize("what", ["維綱", "揚觸", "梱復"])
@pytest.mark.slow
def test_dashe_counts_the_gong_and_not_the_bin(what: str) -> None:
    src = WithStruck(2, {(2, "公耦", "下射", 1): what, (2, "公耦", "上射", 1): what})
    r = run("dashe", outcomes=src)
    got = {s.archer: s for s in shots(r) if s.round == 2 and s.pair == "公耦" and s.arrow == 1}
    gong, bin_ = got["下射"], got["上射"]
    assert (gong.person, gong.hit, gong.counted) == ("公", False, True)
    assert gong.reason.startswith("公則釋獲 (dashe:182")
    assert (bin_.person, bin_.counted) == ("賓", False)
    assert bin_.reason.startswith("衆則不與 (dashe:182")


@pytest.mark.slow
def test_dashe_tally_rises_by_the_gongs_weigang() -> None:
    base = run("dashe", seed=2)
    hit = SeededOutcomes(2).outcome(2, "公耦", "下射", 1)[0]
    src = WithStruck(2, {(2, "公耦", "下射", 1): "維綱"})
    r = run("dashe", outcomes=src)
    before = next(t for t in base.records if getattr(t, "announcement", None) and t.round == 2)
    after = next(t for t in r.records if getattr(t, "announcement", None) and t.round == 2)
    # the 公 is 下射, the left: one more 筭 unless his arrow had pierced anyway
    assert after.left == before.left + (0 if hit else 1)
    assert after.right == before.right

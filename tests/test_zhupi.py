"""The 主皮之射 (記 xiangshe:359 主皮之射者勝者又射不勝者降) as a rite variant: it runs, its log
shows the 不勝者 going down and the 勝者 shooting again, and coverage counts xiangshe:359."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from sheli.cli import cli
from sheli.engine import pair_names, run
from sheli.engine.coverage import coverage
from sheli.engine.records import Shot, Step
from sheli.engine.variants import ZHUPI, find_variant
from sheli.rite import load_spec
from sheli.scoring.outcomes import SeededOutcomes


def steps(r: Any) -> list[dict[str, Any]]:
    return [e.to_json() for e in r.records if isinstance(e, Step)]


def bouts(r: Any) -> list[dict[str, Any]]:
    return [s for s in steps(r) if s.get("verb") == "勝"]


@pytest.mark.parametrize("seed", range(6))
def test_losers_go_down_and_never_shoot_again_winners_shoot_again(seed: int) -> None:
    r = run("zhupi", seed=seed)
    shots = [e for e in r.records if isinstance(e, Shot)]
    assert shots and all(s.round in (1, 2, 3) for s in shots)
    # every shot is counted exactly when it struck the 皮: 主於獲
    assert all(s.counted == s.hit for s in shots)
    assert all("xiangshe:359" in s.reason for s in shots)
    down: set[str] = set()
    order = [e for e in r.records if isinstance(e, Step | Shot)]
    for e in order:
        if isinstance(e, Shot):
            assert e.person not in down, f"{e.person} shoots after going down (不勝者降)"
            continue
        d = e.to_json()
        if d.get("verb") == "降" and d.get("cite") == "xiangshe:359":
            down.add(str(d["actor"]))
    winners_1 = [b["勝"]["勝者"] for b in bouts(r) if b["round"] == 1 and b["勝"] != "鈞"]
    again = {s.person for s in shots if s.round > 1}
    # the 勝者 of round 1 shoot again, if two of them are left to be paired
    if len(winners_1) >= 2:
        assert set(winners_1[:2]) <= again
    # the end: at most one 勝者 left, and he goes down last
    last = steps(r)[-1]
    if any(s.get("verb") == "比耦" and "勝者" in s for s in steps(r)):
        assert last["verb"] == "立" and last["place"] == "堂西"


def test_the_log_names_losers_going_down_and_winners_again() -> None:
    r = run("zhupi", seed=0)
    jing = [(s["jing"], s["actor"], s["verb"]) for s in steps(r) if s.get("cite") == "xiangshe:359"]
    losers = [b["勝"]["不勝者"] for b in bouts(r) if b["勝"] != "鈞"]
    assert losers
    for who in losers:
        assert ("不勝者降", who, "降") in jing
    assert any(j == "勝者又射" and v == "比耦" for j, _, v in jing)
    rounds = {s.round for s in r.records if isinstance(s, Shot)}
    assert rounds >= {1, 2}


def test_a_tie_sends_both_down() -> None:
    class Tied:
        """上耦 both miss everything: 鈞; others as the seed."""

        base = SeededOutcomes(1)

        def outcome(self, rnd: int, pair: str, archer: str, arrow: int) -> Any:
            if rnd == 1 and pair == "上耦":
                return False, None
            return self.base.outcome(rnd, pair, archer, arrow)

    r = run("zhupi", outcomes=Tied())
    first = bouts(r)[0]
    assert first["勝"] == "鈞" and first["獲"] == {"上射": 0, "下射": 0}
    down = [s["actor"] for s in steps(r) if s.get("verb") == "降" and s.get("round") == 1]
    assert {"上耦上射", "上耦下射"} <= set(down)
    assert "A-zhupi-jun" in r.assumptions


def test_coverage_counts_xiangshe_359_as_enacted() -> None:
    (p,) = [p for p in coverage("zhupi").passages if p.n == 359]
    assert p.status == "step" and p.enacted


def test_declared_variant_found_by_name_and_alias() -> None:
    assert find_variant("zhupi") is ZHUPI and find_variant("主皮之射") is ZHUPI
    assert load_spec("主皮之射").spec.rite == "zhupi"
    spec = load_spec("zhupi").spec
    ids = {a.id for a in spec.assumptions}
    assert {"A-zhupi-place", "A-zhupi-who", "A-zhupi-judge", "A-zhupi-pair"} <= ids
    params = {"venue": "xie", "pairs": 0, "dafu": 0, "guests_shoot": False}
    assert pair_names(params, spec) == ["上耦", "次耦", "下耦", "勝耦1"]


def test_sheli_run_zhupi_cli_and_a_recorded_file(tmp_path: Any) -> None:
    res = CliRunner().invoke(cli, ["run", "zhupi", "--format", "jsonl"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in res.output.splitlines()]
    assert any(x.get("verb") == "勝" for x in lines)
    # a recorded file: 上耦上射 hits all, everyone else misses; he is the last 勝者
    rows = ["round,pair,archer,arrow,hit,on_beat"]
    for rnd in (1, 2, 3):
        for pair in ("上耦", "次耦", "下耦", "勝耦1"):
            for seat in ("上射", "下射"):
                for n in (1, 2, 3, 4):
                    hit = (pair in ("上耦", "勝耦1") and seat == "上射") or (pair, seat) == (
                        "次耦",
                        "上射",
                    )
                    rows.append(f"{rnd},{pair},{seat},{n},{str(hit).lower()},")
    path = tmp_path / "zp.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    r = run("zhupi", outcomes=str(path))
    ends = [s for s in steps(r) if s.get("verb") == "比耦"]
    assert ends[-1].get("勝者") == "上耦上射"

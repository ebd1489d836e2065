"""Bodies, not points: every person takes room, every group stands in its formation.

Reading the log step by step, each actor keeping the place of his last step (a step's
``members`` are bodies of their own), no two bodies are closer than the footprint; the text's
own placements are kept: 上射在左竝行 (xiangshe:139), 上射於右 with the 下射 少南 (xiangshe:176,
注), 上射升堂少左 (140), 拜送爵於衆賓右 (注 xiangshe:62), and the roles that are several people
carry their members.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from loglines import step_lines

import sheli.engine.bodies as bodies_mod
from sheli.engine import run
from sheli.place.bodies import load_bodies
from sheli.rite.loader import SpecError

GAP = load_bodies().min_gap
SP = load_bodies().spacing

#: The runs the contract is measured on (docs/event-log.md, members).
CONFIGS: dict[str, dict[str, Any]] = {
    "xiangshe": {"rite": "xiangshe"},
    "xiang": {"rite": "xiangshe", "venue": "xiang", "seed": 2},
    "pairs3": {"rite": "xiangshe", "pairs": 3, "seed": 3},
    "dashe": {"rite": "dashe"},
    "yanshe": {"rite": "yanshe"},
}


@cache
def steps(name: str) -> list[dict[str, Any]]:
    kw = dict(CONFIGS[name])
    return step_lines(run(kw.pop("rite"), **kw))


@pytest.fixture(scope="module", autouse=True)
def quick_runs() -> None:
    """The run the tests not marked slow read (the default 鄉射禮), made before them, not by
    the first to ask (tests/conftest.py counts a module's fixtures apart)."""
    steps("xiangshe")


def bodies_of(step: dict[str, Any]) -> list[tuple[str, float, float]]:
    if step.get("members"):
        return [(f"{step['actor']}#{m['name']}", m["x"], m["y"]) for m in step["members"]]
    if step["x"] is None or step["y"] is None:
        return []
    return [(step["actor"], step["x"], step["y"])]


def close_pairs(name: str, gap: float = GAP) -> list[str]:
    where: dict[str, list[tuple[str, float, float]]] = {}
    out = []
    for s in steps(name):
        b = bodies_of(s)
        if not b:
            continue
        where[s["actor"]] = b
        flat = [x for g in where.values() for x in g]
        for i, (n1, x1, y1) in enumerate(flat):
            for n2, x2, y2 in flat[i + 1 :]:
                if math.hypot(x1 - x2, y1 - y2) < gap - 1e-9:
                    out.append(f"{s['cite']} #{s['seq']}: {n1} and {n2}")
    return out


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.slow
def test_no_two_bodies_closer_than_the_footprint(name: str) -> None:
    # before bodies: 727,127 pair-steps closer than 1.5 尺 over these five runs
    assert close_pairs(name)[:5] == []


def at(name: str, cite: str, verb: str) -> list[dict[str, Any]]:
    return [s for s in steps(name) if s["cite"] == cite and s["verb"] == verb]


@pytest.mark.slow
def test_139_shangshe_on_the_left_walking_north() -> None:
    # 上耦揖進上射在左竝行當階北面揖 (xiangshe:139): walking north the left is the west
    lines = [s for s in at("pairs3", "xiangshe:139", "進") if s["place"] == "西階前"]
    by_pair: dict[str, dict[str, dict[str, Any]]] = {}
    for s in lines:
        pair, seat = s["actor"][:-2], s["actor"][-2:]
        by_pair.setdefault(pair, {})[seat] = s
    assert {"上耦", "次耦", "下耦", "衆耦1"} <= set(by_pair)
    for pair, seats in by_pair.items():
        up, low = seats["上射"], seats["下射"]
        assert up["facing"] == low["facing"] == "N"
        assert up["x"] < low["x"], pair  # 上射在左
        assert up["y"] == pytest.approx(low["y"])  # 竝行
        assert low["x"] - up["x"] == pytest.approx(SP)


def test_140_shangshe_steps_left_on_the_tang() -> None:
    # 上射升堂少左 (xiangshe:140; 疏 避下射升階): west of the 下射 who comes up after him
    up = next(s for s in at("xiangshe", "xiangshe:140", "立") if s["actor"] == "上耦上射")
    low = next(s for s in at("xiangshe", "xiangshe:139", "升") if s["actor"] == "上耦下射")
    assert up["x"] < low["x"] and up["y"] == pytest.approx(low["y"])


def test_176_shangshe_on_the_right_facing_west() -> None:
    # 揖皆左還上射於右 (xiangshe:176); 注 下射左還少南行乃西面; 疏 初北面時東西相當
    last: dict[str, dict[str, Any]] = {}  # each archer's line at 175 (北面搢三挾一个)
    checked = 0
    for s in steps("xiangshe"):
        if s["cite"] == "xiangshe:175":
            last[s["actor"]] = s
        if s["cite"] != "xiangshe:176" or s["verb"] != "還" or not s["actor"].endswith("下射"):
            continue
        pair = s["actor"][:-2]
        up, north = last[pair + "上射"], last[s["actor"]]
        if s["place"] != north["place"]:
            continue  # he went elsewhere (the 誘射之矢, xiangshe:178)
        assert north["facing"] == "N" and north["y"] == pytest.approx(up["y"])  # 東西相當
        assert up["x"] < north["x"]  # facing north, the 上射 on the west (the left)
        assert s["facing"] == "W"
        assert s["x"] == pytest.approx(north["x"])  # he goes only south (少南行)
        assert s["y"] < up["y"]  # facing west, the 上射 is on his right (the north)
        checked += 1
    assert checked >= 5


def test_61_zhuren_on_the_right_of_the_zhongbin() -> None:
    # 主人…西階上獻衆賓 (xiangshe:61); 注 xiangshe:62 拜送爵於衆賓右
    zhuren = at("xiangshe", "xiangshe:62", "拜送")[0]
    zb = at("xiangshe", "xiangshe:61", "受")[0]
    assert zb["facing"] == "N" and zhuren["place"] == zb["place"] == "西階上"
    assert all(m["x"] < zhuren["x"] for m in zb["members"])  # facing north, his right: east
    assert all(m["y"] == pytest.approx(zhuren["y"]) for m in zb["members"])
    assert zhuren["x"] - zb["x"] == pytest.approx(load_bodies().reach)


def test_members_of_roles_that_are_several() -> None:
    seen: dict[str, set[int]] = {}
    for s in steps("xiangshe"):
        if s.get("members"):
            ms = s["members"]
            assert (s["x"], s["y"]) == (ms[0]["x"], ms[0]["y"])  # the leading member
            assert len({m["name"] for m in ms}) == len(ms)
            assert all(m["facing"] == s["facing"] for m in ms)
            seen.setdefault(s["actor"], set()).add(len(ms))
    # 衆賓 three (疏 xiangshe:316), 工 four with the 大師 (xiangshe:86), 衆笙 three (注 329)
    assert seen["衆賓"] == {3} and seen["工"] == {3} and seen["衆笙"] == {3}
    assert seen["弟子"] == {4}
    assert all("members" not in s for s in steps("xiangshe") if s["actor"] == "司射")


def test_1_at_the_gate_everyone_apart() -> None:
    # xiangshe:1: 賓, 衆賓, 大夫 … all 門之西南 — each in his own place, the 賓 at the head
    first = {}
    for s in steps("xiangshe"):
        if s["cite"] == "xiangshe:1" and s["verb"] == "在":
            first.setdefault(s["actor"], s)
    pts = [b for s in first.values() for b in bodies_of(s)]
    assert len(pts) > 10
    for i, (n1, x1, y1) in enumerate(pts):
        for n2, x2, y2 in pts[i + 1 :]:
            assert math.hypot(x1 - x2, y1 - y2) >= GAP, (n1, n2)
    bin_ = first["賓"]
    west = [s for s in first.values() if s["place"] == bin_["place"]]
    assert all(b[1] <= bin_["x"] + 1e-9 or b[0] == "笙" for s in west for b in bodies_of(s))


@pytest.mark.slow
def test_dashe_6_liangren_and_jinche_apart() -> None:
    lines = [s for s in steps("dashe") if s["cite"] == "dashe:6"]
    last: dict[str, tuple[float, float]] = {}
    for s in lines:
        last[s["actor"]] = (s["x"], s["y"])
        if "量人" in last and "巾車" in last:
            assert math.dist(last["量人"], last["巾車"]) >= GAP


def test_no_room_fails_like_every_check(monkeypatch: pytest.MonkeyPatch) -> None:
    # with nowhere to step aside, the first crowding is refused with the spec file and line
    monkeypatch.setattr(bodies_mod, "_LATTICE", [(0, 0)])
    monkeypatch.setattr(bodies_mod, "FAR_RINGS", bodies_mod.RINGS)
    with pytest.raises(SpecError) as exc:
        run("xiangshe")
    msg = str(exc.value)
    assert "no room for" in msg and "xiangshe" in msg and "xiangshe:1" in msg


@pytest.mark.slow
def test_a_crowd_of_other_pairs_folds_at_the_tang_xi() -> None:
    # 繼三耦而立東上…若有東面者則北上 (xiangshe:166); 疏 若多不受則西邊東面北上; 敖繼公 東面於西壁
    # 而北上: with 50 衆耦 the 南面 rows fill the 堂西 to the back of the 堂, the others stand
    # facing east in columns from the west wall; each has a place of his own, none behind the 堂
    r = run("xiangshe", pairs=50)
    v = r.plan
    tang = v.platform
    wall = v.fixtures["庭"].extent
    last: dict[str, dict[str, Any]] = {}
    for s in step_lines(r):
        if s["cite"] == "xiangshe:166" and s["actor"].startswith("衆耦"):
            last[s["actor"]] = s
    assert len(last) == 100
    pts = [(s["x"], s["y"]) for s in last.values()]
    closest = min(
        math.hypot(x1 - x2, y1 - y2) for i, (x1, y1) in enumerate(pts) for x2, y2 in pts[i + 1 :]
    )
    assert closest >= GAP - 1e-9
    assert all(wall.x0 < x < tang.x0 and wall.y0 < y < tang.y1 for x, y in pts)
    south = [s for s in last.values() if s["facing"] == "S"]
    east = [s for s in last.values() if s["facing"] == "E"]
    assert south and east and len(south) + len(east) == 100
    # the columns stand in front of (south of) the rows, the first against the west wall
    assert max(s["y"] for s in east) < min(s["y"] for s in south)
    assert min(s["x"] for s in east) - wall.x0 < SP
    # 北上: down the first column in the order they came
    col = [s for s in east if s["x"] == min(e["x"] for e in east)]
    assert [s["y"] for s in col] == sorted((s["y"] for s in col), reverse=True)


def test_188_the_dafu_pair_does_not_walk_abreast() -> None:
    # 大夫爲下射揖進耦少退 (xiangshe:188); 注 耦於庭下不竝行尊大夫也
    go = [s for s in at("xiangshe", "xiangshe:188", "進") if s["place"] == "西階前"]
    ou = next(s for s in go if s["actor"] == "大夫之耦")
    dafu = next(s for s in go if s["actor"] == "大夫")
    assert ou["y"] < dafu["y"]  # facing north, the 耦 a little behind
    assert ou["x"] < dafu["x"]  # and on the left, as the 上射 (xiangshe:139)


@pytest.mark.slow
def test_211_the_loser_steps_back_to_drink_and_forward_to_set_down() -> None:
    # 坐取豐上之觶興少退立卒觶進坐奠于豐下 (xiangshe:211)
    lines = [s for s in steps("xiangshe") if s["cite"] == "xiangshe:211"]
    for i, s in enumerate(lines):
        if s["verb"] != "卒觶":
            continue
        took = next(
            t for t in reversed(lines[:i]) if t["actor"] == s["actor"] and t["verb"] == "取"
        )
        put = next(t for t in lines[i:] if t["actor"] == s["actor"] and t["verb"] == "奠")
        assert s["place"] == took["place"] == put["place"]
        assert s["y"] < took["y"]  # facing north, 少退 is to the south
        assert (put["x"], put["y"]) == (took["x"], took["y"])  # 進坐奠: back at the 豐


def test_tui_without_a_place_is_a_step_back() -> None:
    # 主人阼階上北面拜賓少退 (xiangshe:262; the spec's 退 with no place, 注 少逡遁也). At the
    # 楅 (xiangshe:173-174) 退 is his way back to his 位 after the 進 of 注 172: not a 少退;
    # so is the 大夫's and his 耦's after their 進坐兼取乘矢 (xiangshe:243-244).
    back_to_wei = {"xiangshe:173", "xiangshe:174", "xiangshe:243", "xiangshe:244"}
    last: dict[str, dict[str, Any]] = {}
    seen = 0
    for s in steps("xiangshe"):
        p = last.get(s["actor"])
        if (
            s["verb"] == "退"
            and "obj" not in s
            and p is not None
            and p["place"] == s["place"]
            and s["cite"] not in back_to_wei
        ):
            if (s["x"], s["y"]) != (p["x"], p["y"]):
                assert math.dist((s["x"], s["y"]), (p["x"], p["y"])) == pytest.approx(SP, abs=0.01)
                seen += 1
        last[s["actor"]] = s
    assert seen >= 3


def test_the_bodies_ledger_gives_every_source() -> None:
    import json

    from click.testing import CliRunner

    from sheli.cli import cli

    res = CliRunner().invoke(cli, ["place", "--bodies", "--json"])
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.output)["bodies"]}
    assert rows["body.footprint"]["source"].startswith("assumption: ")
    assert "xiangshe:316" in rows["members xiangshe 衆賓"]["source"]
    assert "上射在左竝行" in rows["case xiangshe:139"]["source"]
    assert all(r["source"] for r in rows.values())


@pytest.mark.parametrize(
    ("rite", "kw"),
    [
        ("xiangshe", {"pairs": 10}),
        ("xiangshe", {"pairs": 10, "guests": False}),
        ("xiangshe", {"pairs": 1, "venue": "xiang"}),
        ("dashe", {"pairs": 10}),
        ("yanshe", {"pairs": 10, "guests": False}),
    ],
)
@pytest.mark.slow
def test_crowded_runs_find_room_for_everyone(rite: str, kw: dict[str, Any]) -> None:
    # the engine refuses a step with no room (test_no_room_fails_like_every_check): every
    # run with up to ten 衆耦, with and without guests, finds a place for every body; and the
    # last bodies of the run are apart
    steps_ = step_lines(run(rite, **kw))
    last: dict[str, list[tuple[str, float, float]]] = {}
    for s in steps_:
        if bodies_of(s):
            last[s["actor"]] = bodies_of(s)
    flat = [b for g in last.values() for b in g]
    for i, (n1, x1, y1) in enumerate(flat):
        for n2, x2, y2 in flat[i + 1 :]:
            assert math.hypot(x1 - x2, y1 - y2) >= GAP - 1e-9, (n1, n2)


def shewei_row(pairs: int) -> tuple[Any, list[dict[str, Any]]]:
    """The 射位's row as it stands after xiangshe:179 (the 三耦 back from the 楅 at 170, the
    大夫之耦 and the 衆耦 of 179): each one's step there, in the order they came."""
    r = run("xiangshe", pairs=pairs)
    last: dict[str, dict[str, Any]] = {}
    for s in step_lines(r):
        if s["cite"] in ("xiangshe:170", "xiangshe:179") and s["verb"] == "進":
            last[s["actor"]] = s
    return r, sorted(last.values(), key=lambda s: s["seq"])


@pytest.mark.slow
def test_the_shewei_row_folds_into_columns_within_the_court() -> None:
    # 繼三耦之南而立東面北上 (xiangshe:179): with 100 衆耦 the row once ran 600 尺 south, out of
    # the 門; it folds as the 堂西's does (xiangshe:166 若有東面者則北上), bodies.yaml
    # column_fold: columns one spacing west of it, 北上, facing east, short of the 乏
    r, row = shewei_row(100)
    assert sum(s["actor"].startswith("衆耦") for s in row) == 200
    v = r.plan
    wall = v.fixtures["庭"].extent
    fa = v.fixtures["乏"].point
    assert all(wall.x0 < s["x"] < wall.x1 and wall.y0 < s["y"] < 0 for s in row)
    assert all(s["y"] >= fa.y + SP - 1e-9 for s in row)  # none at the 乏 or beyond it
    assert {s["facing"] for s in row} == {"E"}
    pts = [(s["x"], s["y"]) for s in row]
    closest = min(
        math.hypot(x1 - x2, y1 - y2) for i, (x1, y1) in enumerate(pts) for x2, y2 in pts[i + 1 :]
    )
    assert closest >= GAP - 1e-9
    xs = sorted({s["x"] for s in row}, reverse=True)
    assert len(xs) > 1 and all(math.isclose(a - b, SP) for a, b in itertools.pairwise(xs))
    cols = [[s for s in row if s["x"] == x] for x in xs]
    # 北上: each column from the head down in the order they came, its head level with the
    # row's; the next column is begun only when the one before is full
    for col in cols:
        assert [s["y"] for s in col] == sorted((s["y"] for s in col), reverse=True)
        assert math.isclose(col[0]["y"], cols[0][0]["y"])
    for a, b in itertools.pairwise(cols):
        assert a[-1]["seq"] < b[0]["seq"] and len(a) >= len(b)


@pytest.mark.slow
def test_the_shewei_row_of_ten_pairs_does_not_fold() -> None:
    _, row = shewei_row(10)
    assert sum(s["actor"].startswith("衆耦") for s in row) == 20
    assert len({s["x"] for s in row}) == 1


@pytest.mark.slow
def test_the_yuezheng_stands_south_of_the_gongs_row_in_the_ting(
    run_once: Callable[..., Any],
) -> None:
    """弟子相工…阼階下之東南堂前三笴西面北上坐 (xiangshe:121); 樂正北面立于其南 (122): the
    大師 at the head of the row, the 工 south of him, and the 樂正 south of the last of them,
    on the row's line, facing north (not beside the row)."""
    r = run_once("xiangshe", seed=1)
    pos: dict[str, tuple[float, float]] = {}
    for e in step_lines(r):
        if e["cite"] == "xiangshe:123":
            break
        for m in e.get("members") or [{"name": e["actor"], "x": e["x"], "y": e["y"]}]:
            pos[m["name"]] = (m["x"], m["y"])
    row = [pos["大師"]] + [xy for name, xy in pos.items() if name.startswith("工")]
    assert len(row) == 4 and len({x for x, _ in row}) == 1
    yue = pos["樂正"]
    assert yue[0] == row[0][0] and yue[1] < min(y for _, y in row)

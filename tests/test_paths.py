"""Walks: nobody walks through the 序 or a 楹, over the 堂's edge but by a 階 (into a 室 or 房
but by its door), or off the routes the text names (鉤楹, 由楹内, 由楹外, 由堂下, 由其階): the
engine refuses each, with the spec file and line; a walker goes round those who stand in his
way or between two a spacing apart, and walks through nobody's body in any configuration with
up to 10 衆耦 (``Run.path_faults`` lists any, with their spec line).
"""

from __future__ import annotations

import collections
import itertools
import math
import re
from collections.abc import Callable
from typing import Any

import msgspec
import pytest
from fixtures.standin import FixedOutcomes
from loglines import step_lines
from test_world_rules import SPEC_CONFIGS, SPECS, config_param

import sheli.engine.interpreter as interpreter
import sheli.engine.paths as paths_mod
from sheli.engine import run
from sheli.engine.paths import Fault, Paths, load_paths, route_words
from sheli.place import load_venue
from sheli.rite.loader import SpecError

FOOT = 2.0


def _paths(venue: str = "xie") -> Paths:
    return Paths(load_paths(), load_venue(venue), footprint=FOOT)


def _pt(v: Any, ref: Any) -> tuple[float, float]:
    p = v.resolve(ref)
    return (p.x, p.y)


def test_gouying_goes_round_the_west_pillar_on_its_north() -> None:
    # 升自西階鉤楹由上射之後 (xiangshe:143); 注 鉤楹，繞楹而東也; 疏 於西楹西而北東行過
    p = _paths()
    v = p.venue
    a, b = _pt(v, {"top_of": "西階"}), _pt(v, "物閒")
    via = _pt(v, {"north_of": "右物"})
    pts = p.detour(p.route(a, b, via, "適", None), "north")
    px, py = v.point("西楹")
    crossings = [
        s[1] + (t[1] - s[1]) * (px - s[0]) / (t[0] - s[0])
        for s, t in itertools.pairwise(pts)
        if (s[0] - px) * (t[0] - px) < 0
    ]
    assert crossings and all(y > py for y in crossings)
    p.stand("司馬", [a])
    assert p.walk("司馬", [b], "適", via=via, routes=["鉤楹"]) == []


def test_you_ying_wai_passes_south() -> None:
    # 堂則由楹外 (xiangshe:128): 疏 物近南故過由楹南也
    p = _paths("xiang")
    v = p.venue
    a, b = _pt(v, {"top_of": "西階"}), _pt(v, "左物")
    pts = p.detour(p.route(a, b, None, "適", None), "south")
    px, py = v.point("西楹")
    ys = [
        s[1] + (t[1] - s[1]) * (px - s[0]) / (t[0] - s[0])
        for s, t in itertools.pairwise(pts)
        if (s[0] - px) * (t[0] - px) < 0
    ]
    assert all(y < py for y in ys)


def test_a_walk_goes_round_a_pillar_and_the_xu() -> None:
    p = _paths()
    v = p.venue
    # from the top of the 阼階 to the 東楹's north: straight, he would walk into the 楹
    c = v.point("東楹")
    a, b = _pt(v, {"top_of": "阼階"}), (c.x - 2.0, c.y + 6.0)
    assert len(p.detour([a, b])) == 3  # one point beside the 楹
    p.stand("x", [a])
    assert p.walk("x", [b], "適") == []
    # through the 東序 from the 東夾 side: round its south end
    w = v.fixtures["東序"].extent
    a, b = (w.x0 + 3, (w.y0 + w.y1) / 2), (w.x0 - 3, (w.y0 + w.y1) / 2)
    p.stand("y", [a])
    assert p.walk("y", [b], "適") == []


def test_you_tang_xia_and_you_qi_jie() -> None:
    p = _paths()
    v = p.venue
    # 由堂下 (xiangshe:146): a walk on the 堂 is off the route
    p.stand("司射", [_pt(v, {"top_of": "西階"})])
    got = p.walk("司射", [_pt(v, "物閒")], "適", routes=route_words("由堂下北面"))
    assert [f.kind for f in got] == ["route"]
    # 皆由其階 (xiangshe:187): the 主人 by the 阼階, the 賓 by the 西階
    p.stand("主人", [_pt(v, {"foot_of": "西階"})])
    got = p.walk("主人", [_pt(v, {"top_of": "西階"})], "升", stair="西階", routes=["由其階"])
    assert [f.kind for f in got] == ["route"] and "阼階" in got[0].what
    p = _paths()
    p.stand("賓", [_pt(v, {"foot_of": "西階"})])
    got = p.walk("賓", [_pt(v, {"top_of": "西階"})], "升", stair="西階", routes=["由其階"])
    assert got == []


def test_a_walk_through_a_body_is_found() -> None:
    p = _paths()
    p.stand("甲", [(0.0, -20.0)])
    # to a place boxed in by bodies a footprint apart (too close to pass between): no way
    for i, (x, y) in enumerate((x, y) for x in (-2, 0, 2) for y in (-32, -30, -28)):
        if (x, y) != (0, -30):
            p.stand(f"乙{i}", [(float(x), float(y))])
    got = p.walk("甲", [(0.0, -30.0)], "進")
    assert got and {f.kind for f in got} == {"body"}


def test_one_passes_between_two_a_spacing_apart_not_closer() -> None:
    # paths.yaml passing: his centre keeps 1.5 尺 from each (he turns sideways), so that he
    # goes between two of a row 3 尺 apart (xiangshe:127 東面北上), not between two 2.5 apart
    for gap, through in ((3.0, True), (2.5, False)):
        p = _paths()
        p.stand("乙", [(0.0, -20.0)])
        p.stand("丙", [(0.0, -20.0 - gap)])
        p.stand("甲", [(-6.0, -20.0 - gap / 2)])
        assert p.walk("甲", [(6.0, -20.0 - gap / 2)], "適") == []
        way = p.clear("甲", [(-6.0, -20.0 - gap / 2), (6.0, -20.0 - gap / 2)])
        assert (len(way) == 2) is through, way  # straight between them, or round the row


def test_a_place_the_text_names_is_passed_beside_one_who_stands_on_it() -> None:
    # the 司馬正 適下物 by the north of the 右物 (注 dashe:144 由上射後東過也) where another
    # stands: he passes it beside him, on the side of his straight way, and walks through nobody
    p = _paths()
    p.stand("賓", [(-3.0, 12.5)])
    p.stand("司馬正", [(-15.0, 1.0)])
    assert p.walk("司馬正", [(0.0, 8.0)], "適", via=(-3.0, 12.5)) == []
    pts = p.route((-15.0, 1.0), (0.0, 8.0), (-3.0, 12.5), "適", None, "司馬正")
    # beside him, the passing distance off, toward the straight way: still north of the 右物
    assert math.dist(pts[1], (-3.0, 12.5)) == pytest.approx(1.5) and 8.0 < pts[1][1] < 12.5


def test_a_walker_goes_round_those_in_his_way() -> None:
    # a row 東面北上 (xiangshe:127) across his way: he goes round its end, clear of every body
    p = _paths()
    row = [(0.0, -20.0 - 3.0 * i) for i in range(4)]
    for i, q in enumerate(row):
        p.stand(f"耦{i}", [q])
    p.stand("司射", [(-8.0, -24.0)])
    assert p.walk("司射", [(8.0, -25.0)], "適") == []
    way = p.clear("司射", [(-8.0, -24.0), (8.0, -25.0)])
    assert len(way) > 2 and not p.blockers("司射", way)
    # round the north end (-17 is nearer than -32): every turn north of the row's middle
    assert all(y > -26.0 for _, y in way[1:-1])


def test_one_goes_up_the_side_of_a_stair_where_another_stands_at_its_head() -> None:
    # 主人 at the 西階上 (xiangshe:61): the 衆賓 comes up beside him, on the 階
    p = _paths()
    v = p.venue
    top = _pt(v, {"top_of": "西階"})
    p.stand("主人", [top])
    p.stand("衆賓", [(-18.0, -10.0)])
    assert p.walk("衆賓", [(-20.0, 4.0)], "升", stair="西階") == []
    e = v.stairs["西階"].extent
    foot, head = p.stair_way(v.stairs["西階"], "衆賓")
    assert e.x0 <= foot[0] <= e.x1 and e.x0 <= head[0] <= e.x1


@pytest.mark.slow
def test_those_who_wait_at_a_stair_stand_beside_it_not_on_its_line(
    run_once: Callable[..., Any],
) -> None:
    # 舉觶者…乃降 (xiangshe:273): no place is named; they wait beside the 西階's foot on its
    # west (立于階西, xiangshe:279), a footprint clear of it. The 樂正 立于其西 (xiangshe:85)
    # stands beside the head of the 西階 on its east (注 樂正西側階; 疏 側近西階東).
    r = run_once("xiangshe")
    e = r.plan.stairs["西階"].extent
    down = [
        s
        for s in step_lines(r)
        if s["cite"] == "xiangshe:273" and s["verb"] == "降" and s["actor"].startswith("舉觶者")
    ]
    assert len(down) == 2 and all(s["x"] <= e.x0 - FOOT for s in down), down
    yue = [s for s in step_lines(r) if s["cite"] == "xiangshe:85" and s["actor"] == "樂正"][-1]
    assert yue["x"] >= e.x1 + FOOT / 2 and yue["y"] > e.y1, yue
    # and nobody walks through them there any more (xiangshe:275-284)
    assert not [f for f in r.path_faults if re.search(r"xiangshe:(27[5-9]|28[0-4]),", f)]


def test_every_route_has_a_source() -> None:
    m = load_paths()
    assert all(r["source"] for r in m.routes.values())
    assert route_words("豫則鉤楹内") == ["鉤楹内"]


def test_a_path_fault_fails_like_every_check(monkeypatch: pytest.MonkeyPatch) -> None:
    # a walk off a route the 經 names is refused with the spec file, line, passage and who:
    # the first walk of a step whose 經 names a route (由楹内, xiangshe:102) made to fail
    def check(self: Paths, *a: Any, **k: Any) -> list[Fault]:
        routes = a[6]
        return [Fault("route", "由楹内: passes south of the 東楹")] if routes else []

    monkeypatch.setattr(paths_mod.Paths, "check", check)
    with pytest.raises(SpecError) as exc:
        run("xiangshe")
    msg = str(exc.value)
    assert "由楹内" in msg and "before.yaml:" in msg and "xiangshe:102" in msg and " by 主人" in msg
    assert "[P-route]" in msg


@pytest.mark.slow
def test_the_walk_faults_are_those_of_the_run(
    monkeypatch: pytest.MonkeyPatch, run_once: Callable[..., Any]
) -> None:
    # Run.path_faults reads the walks again from the records, with the spec's 階 of each 升
    r = run_once("xiangshe", seed=1)  # (shared: made before the patches below)
    again = paths_mod.walk_faults(r.records, r.plan, r.spec.file, FOOT, r.stairs)
    assert again == r.path_faults == []
    # with no way round anyone, the run refuses the first walk through a body, with its line
    monkeypatch.setattr(paths_mod.Paths, "_go_round", lambda self, *a: [])
    monkeypatch.setattr(paths_mod.Paths, "_round_groups", lambda self, *a: False)
    with pytest.raises(SpecError) as info:
        run("xiangshe", seed=1)
    assert info.value.file and info.value.line and info.value.cite and " by " in info.value.what
    assert "[P-body]" in str(info.value)


@pytest.mark.slow
def test_beyond_the_crowd_walked_round_a_walk_through_a_body_is_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # more 衆耦 than paths.yaml crowd: each walk through a body is a warning of its own, with
    # its spec line, counted in a last one; Run.path_faults gives the same walks
    model = msgspec.structs.replace(paths_mod.load_paths(), crowd_pairs=0)
    monkeypatch.setattr(interpreter, "load_paths", lambda: model)
    monkeypatch.setattr(paths_mod.Paths, "_go_round", lambda self, *a: [])
    monkeypatch.setattr(paths_mod.Paths, "_round_groups", lambda self, *a: False)
    r = run("xiangshe", seed=1, pairs=1)
    walks = [w for w in r.warnings if w.endswith("[P-body]")]
    assert walks and all(re.match(r"[\w/]+\.yaml:\d+ \(\w+:\d+, \S+ by \S+\): ", w) for w in walks)
    assert r.warnings[-1].startswith(f"{len(walks)} walks through a body with 1 衆耦")
    assert r.path_faults == walks


@pytest.mark.parametrize("name", [config_param(n) for n in sorted(SPEC_CONFIGS)])
@pytest.mark.slow
def test_every_venue_reading_and_option_walks_its_routes(
    name: str, run_once: Callable[..., Any]
) -> None:
    # the engine refuses a walk off a named route, through the 序 or a 楹, or over the 堂's
    # edge (into a 室 or 房 but by its door): every configuration runs (the run shared with
    # tests/test_world_rules.py's test of the same configuration)
    rite, kw = SPEC_CONFIGS[name]
    r = run_once(rite, seed=0, **kw)
    assert step_lines(r) and any(s["verb"] == "升" for s in step_lines(r))
    # and nobody walks through another's body
    assert r.path_faults == [], r.path_faults[:5]


@pytest.mark.parametrize(
    ("fixture", "said"),
    [
        # a walk by way of the 西楹 itself
        ("bad_walk_pillar.yaml", ("walks through the 西楹 [P-pillar]",)),
        # a walk in the 庭 by way of the 楹閒: up onto the 堂 and down again not by a 階
        ("bad_walk_edge.yaml", ("crosses the 堂's edge", "[P-edge]")),
        # up the 西階 between two who stand too close together at its head
        ("bad_walk_body.yaml", ("walks through 司馬 at (-16.2, 1.0) [P-body]",)),
    ],
)
def test_a_walk_refused_fails_with_file_and_line(fixture: str, said: tuple[str, ...]) -> None:
    # refused like every other check: the spec's file and the line marked "# ERROR"
    spec = SPECS / fixture
    with pytest.raises(SpecError) as info:
        run(spec, outcomes=FixedOutcomes())
    err = info.value
    line = next(
        n
        for n, t in enumerate(spec.read_text(encoding="utf-8").splitlines(), 1)
        if t.rstrip().endswith("# ERROR")
    )
    verb = "升" if fixture == "bad_walk_body.yaml" else "適"
    assert (err.file, err.line, err.cite, err.what) == (
        fixture,
        line,
        "xiangshe:128",
        f"{verb} by 司射",
    )
    for words in said:
        assert words in str(err)


def test_the_engine_refuses_every_kind_of_fault() -> None:
    assert paths_mod.STRICT == {"route", "wall", "pillar", "edge", "body"}


@pytest.mark.parametrize("rite", ["xiangshe", "dashe", "yanshe"])
@pytest.mark.parametrize("pairs", [0, 1, 2, 3, 5, 10, 43, 53, 100])
@pytest.mark.parametrize("guests", [True, False])
@pytest.mark.slow
def test_zero_to_a_hundred_zhongou_with_and_without_guests(
    rite: str, pairs: int, guests: bool
) -> None:
    # the engine refuses a walk through a body with up to paths.yaml crowd 衆耦: the run
    # completes, so every walk found its way; beyond it the run completes too, and each walk
    # through a body is a warning of its own, counted (docs/place.md "Walks")
    # (its own run: but for the 3 default runs the 54 are read by no other test; pickling them for
    # the other workers, tests/sharing.py, would cost more than the one it shares)
    r = run(rite, pairs=pairs, guests=guests)
    assert step_lines(r)
    walks = [w for w in r.warnings if w.endswith("[P-body]")]
    assert r.path_faults == walks
    if pairs <= paths_mod.load_paths().crowd_pairs:
        assert walks == []
    elif walks:
        assert r.warnings[-1].startswith(f"{len(walks)} walk")


#: The default runs (docs/place.md "Walks"): nobody walks through another's body, a 楹, the
#: 序, or over the 堂's edge.
CONFIGS = {
    "xiangshe": ("xiangshe", {}),
    "xiang": ("xiangshe", {"venue": "xiang", "seed": 2}),
    "dashe": ("dashe", {}),
    "yanshe": ("yanshe", {}),
}


def fault_counts(name: str, run_once: Callable[..., Any]) -> dict[str, int]:
    rite, kw = CONFIGS[name]
    faults = run_once(rite, **kw).path_faults
    return dict(collections.Counter(re.search(r"\[P-(\w+)\]", f).group(1) for f in faults))


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.slow
def test_the_default_runs_walk_through_nobody(name: str, run_once: Callable[..., Any]) -> None:
    assert fault_counts(name, run_once) == {}

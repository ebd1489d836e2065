"""Route words shape the walk: where the 經 says how one goes (直西, 及…, 折而北, 由…之南, 還其後)
the walk takes that shape, and a step's ``via`` may give the route's waypoints in order.

- dashe:145 負矦皆許諾以宮趨直西及乏南又諾以商至乏聲止; 敖繼公 (義疏): 趨直西至乏南乃折而北，不自
  侯西北行者，不敢由便也 (案: 所謂折還中矩也). The 乏 stands 西十北十 of its 侯 (dashe:5).
- xiangshe:145, 157; dashe:147 司馬出于下射之南還其後降自西階; 疏 xiangshe:145 乃圍下射之後繞下射之
  東南行而適西階 (注 圍下射者明爲二人命去侯).
- 注 dashe:29 由堂東升自北階: the way between the 庭 and the 北階 goes round the east of the house.
"""

from __future__ import annotations

import itertools
import math
from functools import cache
from typing import Any

import pytest

from sheli.engine import run
from sheli.engine.paths import Paths, load_paths, waypoints
from sheli.engine.timeline import schedule
from sheli.place import load_venue
from sheli.place.model import Point

# whole runs of the rites (README: the quick loop leaves them out)
pytestmark = pytest.mark.slow


@cache
def _timeline(rite: str) -> Any:
    return schedule(run(rite))


def _walks(rite: str, cite: str, verb: str, actor: str | None = None) -> list[tuple[Any, list]]:
    """(step, the points of its walk) of each step of ``cite`` and ``verb`` that moves."""
    tl = _timeline(rite)
    out = []
    for i, s in enumerate(tl.steps):
        if s.cite == cite and s.verb == verb and (actor is None or s.actor == actor):
            w = tl.walks.get(i, {}).get(s.actor)
            if w:
                out.append((s, [(p[0], p[1]) for p in w]))
    return out


def test_the_fuhou_go_due_west_to_below_the_fa_then_north() -> None:
    # dashe:145 趨直西及乏南 … 至乏: from his 侯 due west until south of the 乏, then north
    v = load_venue("shegong")
    west = _walks("dashe", "dashe:145", "適")
    assert west
    legs = {}
    for s, pts in west:
        legs.setdefault(s.actor, []).append(pts)
    assert "服不" in legs
    for who, walks in legs.items():
        hou = {"服不": "大侯", "參侯獲者": "參侯", "干侯獲者": "干侯"}[who]
        fa = v.fixture(f"{hou}之乏")
        for first, second in zip(walks[::2], walks[1::2], strict=True):
            (x0, y0) = first[0]
            # 直西: every point of the first walk level with where he stood at the 侯, ending
            # due south of the 乏
            assert all(y == pytest.approx(y0) for _, y in first)
            assert first[-1][0] == pytest.approx(fa.x)
            assert first[-1][0] < x0
            # 折而北: the second goes north to the 乏 (beside its 獲者, who stands on it)
            (x1, y1), (x2, y2) = second[0], second[-1]
            assert y2 > y1 and abs(x2 - x1) < (y2 - y1) / 10


def test_the_fuhou_walk_is_not_the_diagonal() -> None:
    # 不自侯西北行者，不敢由便也 (敖繼公): the 服不 reaches the 乏 by two legs at a right angle,
    # longer than the straight way from the 侯 to the 乏
    (_, first), (_, second) = _walks("dashe", "dashe:145", "適", "服不")[:2]
    walked = sum(math.dist(a, b) for pts in (first, second) for a, b in itertools.pairwise(pts))
    assert walked > math.dist(first[0], second[-1]) + 10


@pytest.mark.parametrize("rite,who", [("xiangshe", "司馬"), ("dashe", "司馬正")])
def test_the_sima_goes_round_the_xiashe_by_his_east(rite: str, who: str) -> None:
    # 還其後: 疏 xiangshe:145 圍下射之後繞下射之東 — from south of the 下射 round his east to
    # behind him, in every round (命去侯如初)
    tl = _timeline(rite)
    wu = load_venue(run(rite).params["venue"]).fixture("左物").extent
    turns = [
        [(p[0], p[1]) for p in tl.walks[i][who]]
        for i, s in enumerate(tl.steps)
        if s.actor == who and s.verb == "還" and who in tl.walks.get(i, {})
    ]
    assert len(turns) >= 3
    for pts in turns:
        assert pts[0][1] < wu.y0 and pts[-1][1] > wu.y1  # from south of him to north of him
        assert max(x for x, _ in pts) > wu.x1  # by his east


def test_a_via_list_is_walked_in_order() -> None:
    # the waypoints of a route in words are passed in the order given
    p = Paths(load_paths(), load_venue("shegong"), footprint=2.0)
    a, b = (30.0, -10.0), (30.0, 40.0)
    w = ((40.0, 0.0), (40.0, 30.0))
    assert p.route(a, b, w, "適", None) == [a, *w, b]
    assert p.route(a, b, w[::-1], "適", None) == [a, *w[::-1], b]
    assert waypoints(w) == list(w) and waypoints(w[0]) == [w[0]] and waypoints(None) == []


def test_the_sigong_goes_round_the_east_of_the_house() -> None:
    # 注 dashe:29 由堂東: from his 位 in the 北堂下 (注 dashe:127) to the 士旅食之尊 (dashe:14)
    # and back from the 洗 (dashe:16), by the house's north-east and south-east corners, never
    # over the 堂
    v = load_venue("shegong")
    ne, se = v.fixture("堂東北").point, v.fixture("堂東南").point
    tl = _timeline("dashe")
    seen = 0
    for i, s in enumerate(tl.steps):
        if s.actor != "司宮" or s.via_point is None or len(waypoints(s.via_point)) < 2:
            continue
        pts = [(p[0], p[1]) for p in tl.walks[i]["司宮"]]
        corners = [q for q in pts if q in ((ne.x, ne.y), (se.x, se.y))]
        # out of the 北堂下 by the north-east corner first; back to it by the south-east first
        if pts[0][1] > v.platform.y1:
            assert corners == [(ne.x, ne.y), (se.x, se.y)]
        else:
            assert corners == [(se.x, se.y), (ne.x, ne.y)] and pts[-1][1] > v.platform.y1
        assert not any(v.platform.contains(Point(x, y)) for x, y in pts)
        seen += 1
    assert seen >= 3


@pytest.mark.parametrize(
    "rite,cite,who",
    [
        ("xiangshe", "xiangshe:128", "司射"),
        ("dashe", "dashe:133", "司射"),
    ],
)
def test_one_turns_north_when_in_line_with_the_jie(rite: str, cite: str, who: str) -> None:
    # 揖進當階北面揖及階揖 (xiangshe:128; dashe:133 出于次西面揖當階北面揖): the 司射 goes
    # across (east from his 位, west from the 次) at his own level until 當階, in line with
    # the 西階, and then north to the 階前 (where he stands beside one there: the last leg)
    jie = load_venue(run(rite).params["venue"]).fixture("西階")
    ((_, pts), *_) = [w for w in _walks(rite, cite, "進", who) if w[0].via_point is not None]
    corner = next(i for i, p in enumerate(pts) if p[0] == pytest.approx(jie.x))
    assert all(y == pytest.approx(pts[0][1]) for _, y in pts[: corner + 1])
    assert all(x == pytest.approx(jie.x) for x, _ in pts[corner:-1])
    (x1, y1), (x2, y2) = pts[-2], pts[-1]
    assert y2 - y1 > 5 * abs(x2 - x1)

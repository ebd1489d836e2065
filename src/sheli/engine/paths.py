"""Walks: the way each body goes in a step, and what it may not go through.

A step moves its actor's body from where it stood to where the log puts it (for a role that
is several people, each member from his last place to his new one). The walk is straight,
by the step's ``via`` where it names one, by the foot and the top of the 階 where he goes up
or down (升, 降: a 階 is the way up and down), and round the 堂's south corner where a walk
in the 庭 would cut across it. On that walk nobody goes

- through another body (a standing body is a circle of the footprint, sheli/place/bodies.yaml);
- through a 楹, the 序 (the walls of the venue), or over the 堂's edge other than by a 階;

and the routes the 經 names are taken: 鉤楹 and 由楹内 pass north of the 楹, 由楹外 south of
it, 由堂下 stays in the 庭, 由其階 goes by one's own 階 (sheli/place/paths.yaml).

:meth:`Paths.walk` gives the faults of one walk, each a :class:`Fault` of a kind (``body``,
``pillar``, ``wall``, ``edge``, ``route``) with what went wrong.

>>> from sheli.place import load_venue
>>> paths = Paths(load_paths(), load_venue("xie"), footprint=2.0)
>>> paths.stand("甲", [(0.0, -20.0)])
>>> paths.stand("乙", [(0.0, -25.0)])
>>> paths.walk("甲", [(0.0, -30.0)], verb="進")   # 乙 is in his way: he goes round him
[]
>>> ring = [(8.0, -32.0), (10.0, -32.0), (12.0, -32.0), (8.0, -30.0), (12.0, -30.0)]
>>> for i, q in enumerate([*ring, (8.0, -28.0), (10.0, -28.0), (12.0, -28.0)]):
...     paths.stand(f"丙{i}", [q])
>>> {f.kind for f in paths.walk("甲", [(10.0, -30.0)], verb="進")}  # boxed in: no way
{'body'}
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from sheli.place.model import Point, Venue
from sheli.yamlfile import load_yaml

PATHS_FILE = Path(__file__).resolve().parent.parent / "place" / "paths.yaml"

Vec = tuple[float, float]

#: The side of a cell of the grid of standing bodies, in 尺.
CELL = 8.0

#: How many legs :meth:`Paths._crosses` remembers before it begins again.
CROSSED = 50_000

#: How many walks :meth:`Paths._plain` remembers before it begins again: a group's walks come
#: again round after round (the default run's 1,382 walks are 773 distinct), and the bound keeps
#: a run of a thousand 衆耦 from keeping every walk it checked.
STRICT_SEEN = 4_096

#: Beyond the crowd the model walks round (paths.yaml crowd), the way round is looked for (by
#: the cheap side step alone) only where no more than this many stand in the walk's way (at
#: the head of a 階, in a row along the 堂's edge), not through a crowd (:meth:`Paths.check`).
FEW = 6

#: The sides of the polygon a walk goes round one who stands alone by (:meth:`Paths._arc`).
ROUND_SIDES = 8

#: The most bodies of a group a walk goes round along its edge (:meth:`Paths._round_groups`),
#: and how far more than the passing distance its edge keeps from the plan's edges.
GROUP = 24
PLAN_MARGIN = 0.5

#: The kinds of fault the engine refuses: a step that goes off the route its 經 names, through
#: the 序 or a 楹, over the 堂's edge other than by a 階 (into a 室 or 房 other than by its
#: door), or through another's body where no way round those who stand is found, fails like
#: every other check. With more 衆耦 than the model walks round (paths.yaml crowd) a walk
#: through a body is a warning, one a line, counted (docs/place.md "Walks").
STRICT = frozenset({"route", "wall", "pillar", "edge", "body"})

__all__ = [
    "PATHS_FILE",
    "STRICT",
    "Fault",
    "PathModel",
    "Paths",
    "load_paths",
    "route_words",
    "walk_faults",
]


class Fault(NamedTuple):
    """One thing a walk went through, or a route it did not take."""

    kind: str  # body, pillar, wall, edge, route
    what: str


class PathModel(msgspec.Struct, frozen=True):  # made in C at import, not compiled
    """The data of ``paths.yaml``: the 楹's size, how far out one rounds the 堂's corner, the
    routes by the words that name them, whose 階 is which."""

    pillar_radius: float
    corner: float
    passing: float
    routes: dict[str, dict[str, Any]]
    own_stair: dict[str, str]
    default_stair: str
    #: the most 衆耦 with whom the engine refuses a walk through a body (more: a warning)
    crowd_pairs: int | None = None

    def walks_round(self, pairs: int) -> bool:
        """Whether the model walks round every crowd of ``pairs`` 衆耦 (paths.yaml crowd):
        a walk through a body is then refused and the way round searched for.

        >>> m = load_paths()
        >>> m.walks_round(m.crowd_pairs), m.walks_round(m.crowd_pairs + 1)
        (True, False)
        """
        return self.crowd_pairs is None or pairs <= self.crowd_pairs


@cache
def load_paths(path: Path | None = None) -> PathModel:
    """Read ``paths.yaml``; every route must give its source.

    >>> m = load_paths()
    >>> m.routes["鉤楹"]["pillar_side"], m.own_stair["主人"]
    ('north', '阼階')
    """
    # libyaml's parse (sheli.yamlfile): the data yaml.safe_load gives, in a fraction of its time
    raw = load_yaml((path or PATHS_FILE).read_text(encoding="utf-8"))
    routes = {str(k): dict(v) for k, v in raw["routes"].items()}
    for k, v in routes.items():
        if not v.get("source"):
            raise ValueError(f"route {k} gives no source")
    own = raw["own_stair"]
    return PathModel(
        pillar_radius=float(raw["pillar"]["radius"]["value"]),
        corner=float(raw["corner"]["value"]),
        passing=float(raw["passing"]["value"]),
        routes=routes,
        own_stair={str(k): str(v) for k, v in (own.get("by_role") or {}).items()},
        default_stair=str(own["default"]),
        crowd_pairs=int(raw["crowd"]["pairs"]) if "crowd" in raw else None,
    )


def route_words(jing: str | None, model: PathModel | None = None) -> list[str]:
    """The routes a step's 經 names, longest words first (鉤楹内 before 鉤楹).

    >>> route_words("升堂揖豫則鉤楹内")
    ['鉤楹内']
    >>> route_words("司射遂進由堂下北面命曰不貫不釋")
    ['由堂下']
    """
    if not jing:
        return []
    return list(_route_words(jing, tuple((model or load_paths()).routes)))


@cache
def _route_words(jing: str, routes: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for w in sorted(routes, key=len, reverse=True):
        if w in jing and not any(w in o for o in out):
            out.append(w)
    return tuple(out)


def _seg_dist2(p: Vec, a: Vec, b: Vec) -> float:
    """The square of the distance from p to the segment a–b."""
    ax, ay = a
    px, py = p
    dx, dy = b[0] - ax, b[1] - ay
    n = dx * dx + dy * dy
    # max(0, min(1, t)) written out (a hot function: every body near every leg)
    t = 0.0 if n == 0 else ((px - ax) * dx + (py - ay) * dy) / n
    t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
    qx, qy = ax + t * dx - px, ay + t * dy - py
    return qx * qx + qy * qy


def _clear(bodies: list[Vec], a: Vec, b: Vec, g2: float) -> bool:
    """Whether every one of ``bodies`` is at least the root of g2 from the segment a–b
    (``_seg_dist2(p, a, b) >= g2`` for each, written out: the ways round try many legs).

    >>> a, b = (-1.0, 0.0), (1.0, 0.0)
    >>> _clear([(0.0, 1.0), (2.0, 0.0)], a, b, 1.0), _clear([(0.0, 0.5)], a, b, 1.0)
    (True, False)
    """
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    n = dx * dx + dy * dy
    for px, py in bodies:
        t = 0.0 if n == 0 else ((px - ax) * dx + (py - ay) * dy) / n
        t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
        qx, qy = ax + t * dx - px, ay + t * dy - py
        if qx * qx + qy * qy < g2:
            return False
    return True


def _cross(a: Vec, b: Vec, c: Vec, d: Vec) -> bool:
    """Whether the segments a–b and c–d cross (touching counts).

    >>> _cross((0, -1), (0, 1), (-1, 0), (1, 0)), _cross((0, 1), (0, 2), (-1, 0), (1, 0))
    (True, False)
    """
    # the orientation of each end against the other segment, written out (a hot function:
    # the walls are tried for every leg of every walk on the 堂)
    ax, ay = a
    bx, by = b
    cx, cy = c
    dx, dy = d
    d1 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
    d2 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx)
    if not d1 * d2 <= 0:
        return False
    d3 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    d4 = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax)
    return d3 * d4 <= 0 and (d1, d2) != (0, 0)


class Paths:
    """Everyone's bodies as they stand, and the check of each walk."""

    def __init__(self, model: PathModel, venue: Venue | None, footprint: float) -> None:
        self.m = model
        # a stand-in environment's venue without a plan (no 堂, no 階): nothing to walk round
        if not (hasattr(venue, "platform") and hasattr(venue, "stairs")):
            venue = None
        self.venue = venue
        # a walker passes a standing body with his centre this far from its centre (paths.yaml
        # passing: he turns sideways), between two who stand a spacing apart
        self.gap2 = model.passing * model.passing - 1e-6
        # how far beyond a box :meth:`_near` looks: a little more than the passing distance
        self._gap = math.sqrt(self.gap2)
        self._reach = self._gap + 0.5
        self.at: dict[str, list[Vec]] = {}
        # who stands where, by cells of CELL 尺: a walk looks only at the cells it passes; a
        # cell lists its bodies as (x, y, whose, the point), in the order they came, so that
        # a look at them is one loop
        self.cells: dict[tuple[int, int], list[tuple[float, float, str, Vec]]] = {}
        fixtures = getattr(venue, "fixtures", None) or {}
        self.pillars = [(n, (f.x, f.y)) for n, f in fixtures.items() if f.kind == "pillar"]
        self.pillar2 = (model.pillar_radius + footprint / 2) ** 2 - 1e-6
        self._pillar_at = [c for _, c in self.pillars]
        self.walls = [
            (n, (f.extent.x0, f.extent.y0), (f.extent.x1, f.extent.y1))
            for n, f in fixtures.items()
            if f.kind == "wall" and f.extent is not None
        ]
        self.stairs = dict(venue.stairs) if venue is not None else {}
        # the raised platform as a box, read once (on_tang and crosses cost a call each)
        e = venue.platform if venue is not None else None
        self.box = (e.x0, e.y0, e.x1, e.y1) if e is not None else None
        # the box with the margin of a point on its edge, for _on (none: nothing is on it)
        self._on_box = (
            (e.x0 - 1e-9, e.y0 - 1e-9, e.x1 + 1e-9, e.y1 + 1e-9)
            if e is not None
            else (math.inf, math.inf, -math.inf, -math.inf)
        )
        # (from, to) → the turns of the last way found round those in the leg's way (_go_round)
        self._ways: dict[tuple[Vec, Vec], list[Vec]] = {}
        # (from, to) → whether the straight leg crosses the platform's edge (_crosses)
        self._crossed: dict[tuple[Vec, Vec], bool] = {}
        # a walk checked by _plain → its faults, walks and cells: nothing in them moves
        self._strict_seen: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        # the edges of the plan a walk round a group keeps off (_clear_of_plan): the
        # platform's, each 階's, each 室's and 房's, the 序; a body → whether it stands clear
        boxes = [self.box] if self.box is not None else []
        for n, f in fixtures.items():
            if (f.kind == "stair" or n in ("室", "房")) and f.extent is not None:
                boxes.append((f.extent.x0, f.extent.y0, f.extent.x1, f.extent.y1))
        self._plan_edges = [(w0, w1) for _, w0, w1 in self.walls]
        for x0, y0, x1, y1 in boxes:
            self._plan_edges += [
                ((x0, y0), (x1, y0)),
                ((x1, y0), (x1, y1)),
                ((x1, y1), (x0, y1)),
                ((x0, y1), (x0, y0)),
            ]
        self._plan_clear: dict[Vec, bool] = {}
        # the corners of the polygon round one who stands, from his centre (_hull)
        self._corners_round: list[Vec] | None = None
        # a 階's foot and head → the ways up it :meth:`stair_way` tries, in order
        self._stair_ways: dict[tuple[Vec, Vec], tuple[Any, ...]] = {}
        # a body → its group (_group) and the cells near it as they were, kept while nobody
        # stands or leaves in them: each cell's count of comings and goings
        self._groups: dict[Vec, tuple[Any, ...]] = {}
        # whether a way round is searched for on the grid (:meth:`_go_round`), besides the
        # cheap side step (not beyond the crowd the model walks round: :meth:`check`)
        self.grid = True
        self._epoch: dict[tuple[int, int], int] = {}
        # the corners the walks in the 庭 go round (_round), read once
        c = model.corner
        self._corners = ((e.x0 - c, e.y0 - c), (e.x1 + c, e.y0 - c)) if e is not None else None
        # a 庠 has a 室 and 房 on its platform, with walls a walk on the 堂 may cross
        self.rooms = any(n in ("室", "房") and f.extent is not None for n, f in fixtures.items())
        # each room's door (户 of the 室, 房户 of the 房): the door in the south wall of its box
        self.doors: list[tuple[tuple[float, float, float, float], Vec]] = []
        for n, f in fixtures.items():
            if n in ("室", "房") and f.extent is not None:
                r = f.extent
                for d in fixtures.values():
                    e = d.extent
                    if d.kind == "door" and e is not None and r.x0 <= e.x0 and e.x1 <= r.x1:
                        self.doors.append(((r.x0, r.y0, r.x1, r.y1), ((e.x0 + e.x1) / 2, e.y0)))

    def _on(self, p: Vec) -> bool:
        """Whether p is on the 堂 (Venue.on_tang, without the call)."""
        x0, y0, x1, y1 = self._on_box
        return x0 <= p[0] <= x1 and y0 <= p[1] <= y1

    def _crosses(self, a: Vec, b: Vec) -> bool:
        """Venue.crosses, asked only when the walk comes near the platform at all."""
        x = self.box
        if x is None:
            return False
        ax, ay = a
        bx, by = b
        if not self.rooms:
            ox0, oy0, ox1, oy1 = self._on_box  # _on, written out
            if ox0 <= ax <= ox1 and oy0 <= ay <= oy1 and ox0 <= bx <= ox1 and oy0 <= by <= oy1:
                return False  # from the 堂 to the 堂: the platform is a box
        if (ax if ax > bx else bx) < x[0] - 1e-6 or (ax if ax < bx else bx) > x[2] + 1e-6:
            return False
        if (ay if ay > by else by) < x[1] - 1e-6 or (ay if ay < by else by) > x[3] + 1e-6:
            return False
        # the plan does not change: each leg is asked of the venue once (the same legs are
        # walked round after round); a bound on what is kept, for runs of many 衆耦
        got = self._crossed.get((a, b))
        if got is None:
            v = self.venue
            assert v is not None
            if len(self._crossed) >= CROSSED:
                self._crossed.clear()
            got = self._crossed[(a, b)] = v.crosses(Point(*a), Point(*b))
        return got

    def stand(self, name: str, bodies: list[Vec]) -> None:
        """Where ``name``'s bodies stand now (after his step)."""
        cells = self.cells
        epoch = self._epoch
        for x, y in self.at.get(name, ()):
            key = (int(x // CELL), int(y // CELL))
            c = cells.get(key)
            if c is not None:
                left = [e for e in c if e[2] != name]
                if left:
                    c[:] = left
                else:
                    del cells[key]  # only cells where someone stands are kept (_legs_near)
            epoch[key] = epoch.get(key, 0) + 1
        self.at[name] = bodies
        for p in bodies:
            x, y = p
            key = (int(x // CELL), int(y // CELL))
            epoch[key] = epoch.get(key, 0) + 1
            c = cells.get(key)
            if c is None:
                cells[key] = [(x, y, name, p)]
            else:
                c.append((x, y, name, p))

    def route(
        self,
        a: Vec,
        b: Vec,
        via: Vec | None,
        verb: str,
        stair: str | None,
        name: str | None = None,
    ) -> list[Vec]:
        """The points of a walk from a to b: by ``via``, by the 階 (升, 降), round the 堂.
        Where another (not ``name``) stands at the 階's foot or head, the walk keeps to the
        side of the 階 clear of him (:meth:`stair_way`)."""
        pts: list[Vec] = [a]
        if via is not None:
            if name is not None and self.blockers(name, [via, via]):
                # another stands on the place the text names: one passes it beside him, on the
                # side of the straight way (the place still passed, 過; nobody steps aside)
                via = self._beside(name, via, _toward(via, a, b))
            pts.append(via)
        st = self.stairs.get(stair) if stair else None
        if st is not None and st.foot is not None and st.top is not None and verb in ("升", "降"):
            way = self.stair_way(st, name)
            # up to the 堂, or only onto the 階 (盡階不升堂, xiangshe:97): then no further
            end = b if verb == "升" else a
            if not self._on(end):
                e = st.extent
                on_stair = e is not None and e.x0 <= end[0] <= e.x1 and e.y0 <= end[1] <= e.y1
                way = way[:1] if on_stair else []
            pts.extend(way if verb == "升" else way[::-1])
        pts.append(b)
        return self._round(pts, name)

    def _beside(self, name: str, p: Vec, ways: list[Vec]) -> Vec:
        """The nearest point to p clear of every standing body (the passing distance), going
        out from p along the first of ``ways`` that has one within a few 尺; else p.

        >>> from sheli.place import load_venue
        >>> paths = Paths(load_paths(), load_venue("xie"), footprint=2.0)
        >>> paths.stand("乙", [(0.0, -25.0)])
        >>> paths._beside("甲", (0.0, -25.0), [(0.0, 1.0)])
        (0.0, -23.5)
        """
        q = self.m.passing
        for wx, wy in ways:
            for k in range(1, 13):
                c = (p[0] + wx * q * k / 3, p[1] + wy * q * k / 3)
                if not self.blockers(name, [c, c]):
                    return c
        return p

    def stair_way(self, st: Any, name: str | None) -> list[Vec]:
        """The foot and the head of the way up a 階: its middle, or where another stands on
        that line, its side clear of him (a 階 is 4 尺 wide, the venue's data; one keeps to it,
        his body's middle within it, and steps onto the 堂 at its edge).

        >>> from sheli.place import load_venue
        >>> p = Paths(load_paths(), load_venue("xie"), footprint=2.0)
        >>> st = p.stairs["西階"]
        >>> p.stair_way(st, "甲")
        [(-15.0, -4.0), (-15.0, 1.0)]
        >>> p.stand("主人", [(-15.0, 1.0)])
        >>> p.stair_way(st, "甲")
        [(-16.5, -4.0), (-16.5, 1.0)]
        """
        foot, top = (st.foot.x, st.foot.y), (st.top.x, st.top.y)
        if name is None:
            return [foot, top]
        ways = self._stair_ways.get((foot, top))
        if ways is None:
            ways = self._stair_ways[(foot, top)] = self._stair_tries(st)
        # those who stand near the 階, looked up once for all the tries (each try's own look,
        # blockers, finds no body these do not hold)
        tries, box = ways
        near = self._near(name, *box)
        if not near:
            return [tries[0][0], tries[0][1]]
        g2 = self.gap2
        for f, t, ax, ay, dx, dy, n in tries:
            for px, py in near:
                # _seg_dist2, written out (each try against each who stands near)
                u = 0.0 if n == 0 else ((px - ax) * dx + (py - ay) * dy) / n
                u = 0.0 if u < 0.0 else 1.0 if u > 1.0 else u
                qx, qy = ax + u * dx - px, ay + u * dy - py
                if qx * qx + qy * qy < g2:
                    break
            else:
                return [f, t]
        return [foot, top]

    def _stair_tries(self, st: Any) -> tuple[list[tuple[Any, ...]], tuple[float, ...]]:
        """The ways up a 階 :meth:`stair_way` tries, in order (the 階 does not change), each
        with its line (start, direction, squared length), and the box of them all."""
        foot, top = (st.foot.x, st.foot.y), (st.top.x, st.top.y)
        e = st.extent
        half = (e.x1 - e.x0) / 2 - 0.1 if e is not None else 0.0
        edge = e.y1 if e is not None else top[1]
        # the foot as far as one step up (1 尺), the head as far as the 堂's edge
        up = 1.0 if top[1] > foot[1] else -1.0
        # the middle, a quarter, between two who stand a spacing apart at its head or foot
        # (the passing distance from the one on its line), its edge
        q = self.m.passing
        sides = (0.0, -half / 2, half / 2, *((-q, q) if q < half else ()), -half, half)
        # straight up the 階 at one place across it, else slanting across it (one at its
        # foot on one side, another at its head on the other)
        out: list[tuple[Any, ...]] = []
        for fdx, tdx in sorted(
            itertools.product(sides, sides), key=lambda d: (d[0] != d[1], abs(d[0] - d[1]))
        ):
            for fy, ty in (
                (foot[1], top[1]),
                (foot[1], edge),
                (foot[1] + up, top[1]),
                (foot[1] + up, edge),
            ):
                f, t = (round(foot[0] + fdx, 3), fy), (round(top[0] + tdx, 3), ty)
                dx, dy = t[0] - f[0], t[1] - f[1]
                out.append((f, t, f[0], f[1], dx, dy, dx * dx + dy * dy))
        xs = [p[0] for w in out for p in w[:2]]
        ys = [p[1] for w in out for p in w[:2]]
        return out, (min(xs), min(ys), max(xs), max(ys))

    def detour(self, pts: list[Vec], side: str | None = None) -> list[Vec]:
        """The walk on the 堂 goes round a 楹 it would walk through (on ``side``, north or
        south, where the 經 names it: 鉤楹, 由楹内, 由楹外; else on the side it passes) and
        round the south end of a 序 it would walk through (one passes from the 東堂 to the
        堂 in front of the 序). A few passes: a way round one 楹 may come near the other."""
        return self._detoured(pts, side)[0]

    def _detoured(self, pts: list[Vec], side: str | None) -> tuple[list[Vec], bool]:
        """:meth:`detour`, and whether its last pass found nothing to go round: then no leg
        of the walk that touches the 堂 goes through the 序, and none on the 堂 (both ends)
        through a 楹 (:meth:`_plain` need not ask again)."""
        v = self.venue
        if v is None or not (self.pillars or self.walls):
            return pts, False
        for _ in range(4):
            out = self._detour_once(pts, side)
            if len(out) == len(pts):
                return out, True
            pts, side = out, None  # the side the text names is kept by the first pass
        return pts, False

    def _detour_once(self, pts: list[Vec], side: str | None) -> list[Vec]:
        v = self.venue
        assert v is not None
        k = 1.2 * (math.sqrt(self.pillar2) + 0.5)
        out = [pts[0]]
        x0, y0, x1, y1 = self._on_box  # _on, written out
        for a, b in itertools.pairwise(pts):
            if not (x0 <= a[0] <= x1 and y0 <= a[1] <= y1) and not (
                x0 <= b[0] <= x1 and y0 <= b[1] <= y1
            ):
                out.append(b)
                continue  # a walk in the 庭 passes no 楹 and no 序
            if self.doors and self._crosses(a, b):
                out.extend(self._by_door(a, b))
            for _, w0, w1 in self.walls:
                if _cross(a, b, w0, w1):
                    south = w0 if w0[1] <= w1[1] else w1
                    out.append((south[0], south[1] - k))
            if self._on(a) and self._on(b) and math.dist(a, b) > 1e-9:
                for _, c in self.pillars:
                    passes = (a[0] - c[0]) * (b[0] - c[0]) < 0
                    y = a[1] + (b[1] - a[1]) * (c[0] - a[0]) / (b[0] - a[0]) if passes else c[1]
                    near = _seg_dist2(c, a, b) < self.pillar2
                    wrong = passes and side is not None and (y > c[1]) != (side == "north")
                    if near or wrong:
                        out.append(_around(a, b, c, k, side if passes else None))
            out.append(b)
        return out

    def _by_door(self, a: Vec, b: Vec) -> list[Vec]:
        """Into or out of a 室 or 房 by its door (户, 房户; the venue's data): a step before it
        on the 堂 and one inside, straight through it."""
        out: list[Vec] = []
        for (x0, y0, x1, y1), (dx, dy) in self.doors:
            ins = [x0 < p[0] < x1 and y0 < p[1] <= y1 + 1e-9 for p in (a, b)]
            if ins[0] == ins[1]:
                continue
            way = [(dx, dy - 1.5), (dx, dy + 1.5)]
            out.extend(way[::-1] if ins[0] else way)
        return out

    def _round(self, pts: list[Vec], name: str | None = None) -> list[Vec]:
        """A walk in the 庭 that would cut across the 堂 goes round its south corner(s), out
        beyond one who stands there."""
        if self.venue is None or self._corners is None:
            return pts
        sw, se = self._corners
        out = [pts[0]]
        if len(pts) == 2:
            a, b = pts
            if self._on(a) or self._on(b) or not self._crosses(a, b):
                return [a, b]  # one leg, clear of the 堂 (most walks): the loop below
        for a, b in itertools.pairwise(pts):
            if not self._on(a) and not self._on(b) and self._crosses(a, b):
                if name is not None:
                    sw = self._beside(name, sw, [(-0.6, -0.8), (-0.8, -0.6)])
                    se = self._beside(name, se, [(0.6, -0.8), (0.8, -0.6)])

                def length(w: list[Vec], a: Vec = a, b: Vec = b) -> float:
                    q = [a, *w, b]
                    return sum(math.dist(s, t) for s, t in itertools.pairwise(q))

                for w in sorted([[sw], [se], [sw, se], [se, sw]], key=length):
                    q = [a, *w, b]
                    if not any(self._crosses(s, t) for s, t in itertools.pairwise(q)):
                        out.extend(w)
                        break
            out.append(b)
        return out

    def clear(self, name: str, pts: list[Vec], depth: int = 0) -> list[Vec]:
        """The walk goes round the bodies that stand in its way: each leg that would pass
        closer than a footprint to a standing body is replaced, where it is blocked, by the
        shortest way round on a grid of GRID 尺 (round the end of a row or a crowd), kept to
        the leg's level (the 堂 or the 庭) and clear of the 楹 and the 序, then drawn tight
        (only the turns are kept). A leg whose end itself stands on another's body is left.

        >>> from sheli.place import load_venue
        >>> p = Paths(load_paths(), load_venue("xie"), footprint=2.0)
        >>> p.stand("乙", [(0.0, -25.0)])
        >>> way = p.clear("甲", [(0.0, -20.0), (0.0, -30.0)])
        >>> len(way) > 2, p.blockers("甲", way)
        (True, [])
        """
        out = [pts[0]]
        for a, b in itertools.pairwise(pts):
            block = self.blockers(name, [a, b])
            if block:
                out.extend(self._go_round(name, a, b, block, depth))
            out.append(b)
        return out

    def blockers(self, name: str, pts: list[Vec], gap2: float | None = None) -> list[Vec]:
        """The standing bodies (not ``name``'s) closer than the passing distance (or the root
        of ``gap2``, no more than a footprint) to the walk ``pts``."""
        out: list[Vec] = []
        g2 = self.gap2 if gap2 is None else gap2
        near = self._near
        for a, b in itertools.pairwise(pts):
            ax, ay = a
            dx, dy = b[0] - ax, b[1] - ay
            n = dx * dx + dy * dy
            # _seg_dist2 written out: most asks are of a point (a walk's turn, a place)
            for p in near(name, min(ax, b[0]), min(ay, b[1]), max(ax, b[0]), max(ay, b[1])):
                px, py = p
                t = 0.0 if n == 0 else ((px - ax) * dx + (py - ay) * dy) / n
                t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
                qx, qy = ax + t * dx - px, ay + t * dy - py
                if qx * qx + qy * qy < g2:
                    out.append(p)
        return out

    def _near(self, name: str, x0: float, y0: float, x1: float, y1: float) -> list[Vec]:
        """The bodies (not ``name``'s) within a footprint of the box x0, y0 – x1, y1 (a
        little more than the passing distance)."""
        g = self._reach
        x0, y0, x1, y1 = x0 - g, y0 - g, x1 + g, y1 + g
        out: list[Vec] = []
        cells = self.cells
        iys = range(int(y0 // CELL), int(y1 // CELL) + 1)
        for ix in range(int(x0 // CELL), int(x1 // CELL) + 1):
            for iy in iys:
                c = cells.get((ix, iy))
                if not c:
                    continue
                for px, py, other, p in c:
                    if other != name and x0 <= px <= x1 and y0 <= py <= y1:
                        out.append(p)
        return out

    def _go_round(self, name: str, a: Vec, b: Vec, block: list[Vec], depth: int = 0) -> list[Vec]:
        """The turns of the shortest clear way from a to b past ``block`` (none if there is
        none within the search's reach: the walk stays straight and its fault is reported)."""
        ln = math.dist(a, b)
        if ln < 1e-9:
            return []
        ux, uy = (b[0] - a[0]) / ln, (b[1] - a[1]) / ln
        ts = [(p[0] - a[0]) * ux + (p[1] - a[1]) * uy for p in block]
        # the stretch of the leg where it is blocked, with room to turn before and after
        s0, s1 = max(0.0, min(ts) - REACH), min(ln, max(ts) + REACH)
        p_in = (a[0] + ux * s0, a[1] + uy * s0)
        p_out = (a[0] + ux * s1, a[1] + uy * s1)
        if self.blockers(name, [p_in, p_in]) or self.blockers(name, [p_out, p_out]):
            return []  # he would stand on another's body where the walk turns: no way round
        # the same leg is walked round after round, past the same people: the way found last
        # time, if it is still clear
        ways = self._ways
        last = ways.get((a, b))
        if last is not None and all(
            self._leg_ok(name, p, q) for p, q in itertools.pairwise([a, *last, b])
        ):
            return last
        got = self._side_step(name, a, b, block, (ux, uy), ln, depth)
        if got is None and len(block) <= CROWD and self.grid:
            got = self._grid_way(name, a, b, block, p_in, p_out, s0 > 0, s1 < ln)
        if not got:
            return []
        if len(ways) >= CROSSED:
            ways.clear()
        ways[(a, b)] = got
        return got

    def _grid_way(
        self,
        name: str,
        a: Vec,
        b: Vec,
        block: list[Vec],
        p_in: Vec,
        p_out: Vec,
        turn_in: bool,
        turn_out: bool,
    ) -> list[Vec]:
        """The turns of the shortest way found on the grid (:meth:`_search`) from ``p_in`` to
        ``p_out``, past ``block``; none if there is none within the search's reach."""
        # the grid is laid from one end, the tighter one first (one who stands between two
        # a spacing apart, as at the head of a 階, leaves them only along the line between
        # them, and a grid laid from elsewhere may have no node there); else from the middle
        # of a gap between two of those in the way and one beside them (a row, a crowd a
        # spacing apart: its gaps are nodes of that grid)
        q = self.m.passing + 0.25
        ends = [p_out, p_in]
        if self.blockers(name, [p_in, p_in], q * q):
            ends.reverse()
        origins = [*ends, *self._gaps(name, block)]
        for margin, h in ((REACH, GRID), (REACH, 1.0), (3 * REACH, 1.0)):
            xs = [p_in[0], p_out[0], *(p[0] for p in block)]
            ys = [p_in[1], p_out[1], *(p[1] for p in block)]
            box = (min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin)
            for o in origins if h == GRID else ends[:1]:
                got = self._search(name, p_in, p_out, box, h, o)
                if got is not None:
                    way = [a, p_in, *got, p_out, b] if turn_in else [a, *got, p_out, b]
                    if not turn_out:
                        way = way[:-1]
                    return self._tight(name, _dedupe(way))[1:-1]
        return []

    def _gaps(self, name: str, block: list[Vec]) -> list[Vec]:
        """The middles of the gaps between each of ``block`` and those who stand a spacing
        or less from him (at most four).

        >>> from sheli.place import load_venue
        >>> p = Paths(load_paths(), load_venue("xie"), footprint=2.0)
        >>> p.stand("乙", [(0.0, -25.0)]); p.stand("丙", [(0.0, -28.0)])
        >>> p._gaps("甲", [(0.0, -25.0)])
        [(0.0, -26.5)]
        """
        out: list[Vec] = []
        r = 2 * self.m.passing + 0.2
        for c in block:
            for d in self._near(name, c[0] - r, c[1] - r, c[0] + r, c[1] + r):
                m = ((c[0] + d[0]) / 2, (c[1] + d[1]) / 2)
                if d != c and math.dist(c, d) <= r and m not in out:
                    out.append(m)
                    if len(out) >= 4:
                        return out
        return out

    def _side_step(
        self, name: str, a: Vec, b: Vec, block: list[Vec], u: Vec, ln: float, depth: int = 0
    ) -> list[Vec] | None:
        """The first try, cheap: past the whole cluster of those in the way (and those who
        stand near them) on one side, the nearer side first, by two turns square to the leg.
        Where the way past it is clear but the turn into it or out of it passes others (one
        who leaves a crowd, or joins one, to walk along a row), those are walked round in
        turn, once."""
        g = math.sqrt(self.gap2)
        cluster = list(block)
        seen = set(cluster)
        i = 0
        while i < len(cluster) and len(cluster) < 40:
            c = cluster[i]
            for q in self._near(name, c[0] - g, c[1] - g, c[0] + g, c[1] + g):
                if q not in seen and math.dist(q, c) < 2 * g + 0.2:
                    seen.add(q)
                    cluster.append(q)
            i += 1
        nx, ny = -u[1], u[0]
        ts = [(p[0] - a[0]) * u[0] + (p[1] - a[1]) * u[1] for p in cluster]
        ss = [(p[0] - a[0]) * nx + (p[1] - a[1]) * ny for p in cluster]
        t0, t1 = max(0.0, min(ts) - g), min(ln, max(ts) + g)
        best: list[Vec] | None = None
        best_len = math.inf
        for side in (1.0, -1.0):
            o = side * (max(side * x for x in ss) + g + 0.1)
            w1 = (a[0] + u[0] * t0 + nx * o, a[1] + u[1] * t0 + ny * o)
            w2 = (a[0] + u[0] * t1 + nx * o, a[1] + u[1] * t1 + ny * o)
            way = [a, w1, w2, b]
            oks = [self._leg_ok(name, p, q) for p, q in itertools.pairwise(way)]
            if not all(oks) and depth == 0 and oks[1]:
                if self._leg_ok(name, a, w1, False) and self._leg_ok(name, w2, b, False):
                    way = [*self.clear(name, [a, w1], 1), *self.clear(name, [w2, b], 1)]
                    oks = [self._leg_ok(name, p, q) for p, q in itertools.pairwise(way)]
            if all(oks):
                n = sum(math.dist(p, q) for p, q in itertools.pairwise(way))
                if n < best_len:
                    best, best_len = way, n
        if best is None:
            return None
        return self._tight(name, best)[1:-1]

    def _search(
        self,
        name: str,
        s: Vec,
        t: Vec,
        box: tuple[float, float, float, float],
        h: float,
        origin: Vec | None = None,
    ) -> list[Vec] | None:
        """A* on a grid of side h laid from ``origin`` (else t) inside ``box``: the nodes
        between s and t."""
        o = origin or t
        bodies = self._near(name, *box)
        level = self._on(s)
        pillars = [c for _, c in self.pillars] if level else []
        walls = [(w0, w1) for _, w0, w1 in self.walls] if level else []
        i0, i1 = math.floor((box[0] - o[0]) / h), math.ceil((box[2] - o[0]) / h)
        j0, j1 = math.floor((box[1] - o[1]) / h), math.ceil((box[3] - o[1]) / h)
        # the nodes a 楹 covers (a little more than the clearance: a step between two clear
        # nodes then keeps clear of it too); the nodes a body covers, exactly (one passes
        # between two who stand a spacing apart, paths.yaml passing), and the bodies within a
        # step of each node, against which a step from it is checked
        blocked: set[tuple[int, int]] = set()
        close: dict[tuple[int, int], list[Vec]] = {}
        r = math.sqrt(self.pillar2) + h / 8
        k = math.ceil(r / h)
        for cx, cy in pillars:
            ci, cj = round((cx - o[0]) / h), round((cy - o[1]) / h)
            for i in range(ci - k, ci + k + 1):
                for j in range(cj - k, cj + k + 1):
                    if (o[0] + i * h - cx) ** 2 + (o[1] + j * h - cy) ** 2 < r * r:
                        blocked.add((i, j))
        gap2 = self.gap2
        r = math.sqrt(gap2) + h
        k = math.ceil(r / h)
        for c in bodies:
            cx, cy = c
            ci, cj = round((cx - o[0]) / h), round((cy - o[1]) / h)
            for i in range(ci - k, ci + k + 1):
                for j in range(cj - k, cj + k + 1):
                    d2 = (o[0] + i * h - cx) ** 2 + (o[1] + j * h - cy) ** 2
                    if d2 < gap2:
                        blocked.add((i, j))
                    elif d2 < r * r:
                        close.setdefault((i, j), []).append(c)
        free: dict[tuple[int, int], bool] = {}

        def pt(n: tuple[int, int]) -> Vec:
            return (o[0] + n[0] * h, o[1] + n[1] * h)

        def ok(n: tuple[int, int]) -> bool:
            got = free.get(n)
            if got is None:
                got = (
                    i0 <= n[0] <= i1
                    and j0 <= n[1] <= j1
                    and n not in blocked
                    and self._on(pt(n)) == level
                )
                free[n] = got
            return got

        def seg_ok(p: Vec, q: Vec, bodies: list[Vec] = bodies) -> bool:
            return (
                _clear(bodies, p, q, gap2)
                and _clear(pillars, p, q, self.pillar2)
                and not any(_cross(p, q, w0, w1) for w0, w1 in walls)
                and not self._crosses(p, q)
            )

        def step_ok(n: tuple[int, int], m: tuple[int, int]) -> bool:
            # a body nearer than the clearance to a step is within a step of one of its nodes
            a, b = close.get(n), close.get(m)
            if a is None and b is None:
                return True
            p, q = pt(n), pt(m)
            return (a is None or _clear(a, p, q, gap2)) and (b is None or _clear(b, p, q, gap2))

        # the first and the last step: straight to any clear node near the ends
        k = int(ENDS / h)
        si, sj = round((s[0] - o[0]) / h), round((s[1] - o[1]) / h)
        ti, tj = round((t[0] - o[0]) / h), round((t[1] - o[1]) / h)
        # only the bodies within reach of those steps can be in their way
        far2 = (math.sqrt(gap2) + (k + 1) * h * math.sqrt(2)) ** 2
        near_s = [c for c in bodies if (c[0] - s[0]) ** 2 + (c[1] - s[1]) ** 2 < far2]
        near_t = [c for c in bodies if (c[0] - t[0]) ** 2 + (c[1] - t[1]) ** 2 < far2]
        start: dict[tuple[int, int], float] = {}
        ends: dict[tuple[int, int], float] = {}
        for di in range(-k, k + 1):
            for dj in range(-k, k + 1):
                n = (si + di, sj + dj)
                if ok(n) and seg_ok(s, pt(n), near_s):
                    start[n] = math.dist(s, pt(n))
                n = (ti + di, tj + dj)
                if ok(n) and seg_ok(pt(n), t, near_t):
                    ends[n] = math.dist(pt(n), t)
        if not start or not ends:
            return None
        dist: dict[tuple[int, int], float] = dict(start)
        came: dict[tuple[int, int], tuple[int, int] | None] = dict.fromkeys(start)
        # whether a step may cross the 堂's edge at all: not where every node (within a step
        # of the box) is beyond the platform's box on one side (_crosses says no there)
        px = self.box
        tang = px is not None and not (
            box[2] + h < px[0] - 1e-6
            or box[0] - h > px[2] + 1e-6
            or box[3] + h < px[1] - 1e-6
            or box[1] - h > px[3] + 1e-6
        )
        # a weighted A*: the way is drawn tight afterwards, the fewest nodes looked at matter
        w = 1.5 * h
        heap = [(g + w * math.hypot(n[0] - ti, n[1] - tj), g, n) for n, g in start.items()]
        heapq.heapify(heap)
        done: set[tuple[int, int]] = set()
        best: tuple[float, tuple[int, int]] | None = None
        while heap:
            f, g, n = heapq.heappop(heap)
            if n in done:
                continue
            if best is not None and f >= best[0]:
                break
            done.add(n)
            if len(done) > LOOK:
                return None  # boxed in: no way round worth the look
            e = ends.get(n)
            if e is not None and (best is None or g + e < best[0]):
                best = (g + e, n)
                break
            for di, dj, c in _STEPS:
                m = (n[0] + di, n[1] + dj)
                if m in done or not ok(m):
                    continue
                if walls and any(_cross(pt(n), pt(m), w0, w1) for w0, w1 in walls):
                    continue  # the bodies are step_ok's, the 楹 the blocked nodes'
                if not step_ok(n, m):
                    continue
                if tang and self._crosses(pt(n), pt(m)):
                    continue  # a step across the corner of the 堂
                g2 = g + c * h
                if g2 < dist.get(m, math.inf):
                    dist[m] = g2
                    came[m] = n
                    heapq.heappush(heap, (g2 + w * math.hypot(m[0] - ti, m[1] - tj), g2, m))
        if best is None:
            return None
        way: list[Vec] = []
        n2: tuple[int, int] | None = best[1]
        while n2 is not None:
            way.append(pt(n2))
            n2 = came[n2]
        return way[::-1]

    def _tight(self, name: str, way: list[Vec]) -> list[Vec]:
        """The way drawn tight: from each turn straight to the farthest point clear of it."""
        out = [way[0]]
        i = 0
        while i < len(way) - 1:
            j = len(way) - 1
            while j > i + 1 and not self._leg_ok(name, way[i], way[j]):
                j -= 1
            out.append(way[j])
            i = j
        return out

    def _leg_ok(self, name: str, a: Vec, b: Vec, bodies: bool = True) -> bool:
        if bodies and self.blockers(name, [a, b]):
            return False
        if self._crosses(a, b):
            return False
        if self._on(a) or self._on(b):
            if not _clear(self._pillar_at, a, b, self.pillar2):
                return False
            if any(_cross(a, b, w0, w1) for _, w0, w1 in self.walls):
                return False
        return True

    def walk(
        self,
        name: str,
        bodies: list[Vec],
        verb: str,
        via: Vec | None = None,
        stair: str | None = None,
        routes: list[str] | None = None,
        role: str | None = None,
    ) -> list[Fault]:
        """The faults of the walk of ``name``'s bodies from where they stood to ``bodies``
        (which then stand there); ``routes``: the routes the step's 經 names."""
        old = self.at.get(name)
        if old != bodies:
            self.stand(name, bodies)
        if not old:
            return []
        faults: list[Fault] = []
        lead = True
        for a, b in zip(old, bodies, strict=False):
            if math.dist(a, b) < 1e-9:
                lead = False
                continue
            pts = self.route(a, b, via if lead else None, verb, stair, name)
            pts = self.clear(name, self.detour(pts, self._side(routes)))
            faults.extend(self._through(name, pts))
            if routes:
                faults.extend(self._routes(pts, verb, stair, routes, role or name))
            lead = False
        return faults

    def _plain(
        self,
        old: list[Vec],
        bodies: list[Vec],
        verb: str,
        via: Vec | None,
        stair: str | None,
        routes: list[str],
        role: str,
    ) -> tuple[tuple[Fault, ...], tuple[list[Vec], ...], tuple[Any, ...]]:
        """The faults of a walk from ``old`` to ``bodies`` that do not depend on who stands
        (off the routes the step's 經 names, through the 序 or a 楹, over the 堂's edge other
        than by a 階, into a 室 or 房 other than by its door), the walk of each body, made
        without regard to who stands (route and detour are given no name), and the cells of
        the grid of standing bodies each walk's legs pass near (:meth:`_legs_near`): the same
        walk has the same faults and legs, remembered within a bound (a group's walks come
        again round after round)."""
        key = (tuple(old), tuple(bodies), verb, via, stair, tuple(routes), role)
        seen = self._strict_seen.get(key)
        if seen is not None:
            return seen
        if len(self._strict_seen) >= STRICT_SEEN:
            self._strict_seen.clear()
        out: list[Fault] = []
        walks: list[list[Vec]] = []
        lead = True
        for a, b in zip(old, bodies, strict=False):
            if math.dist(a, b) < 1e-9:
                lead = False
                walks.append([])
                continue
            way = stair if stair is not None else self.stair_of(verb, a, b)
            pts, settled = self._detoured(
                self.route(a, b, via if lead else None, verb, way), self._side(routes)
            )
            walks.append(pts)
            if routes:
                out.extend(self._routes(pts, verb, stair, routes, role))
            x0, y0, x1, y1 = self._on_box  # _on, written out
            for s, t in itertools.pairwise(pts):
                if self._crosses(s, t):
                    out.append(
                        Fault("edge", f"crosses the 堂's edge between {_xy(s)} and {_xy(t)}")
                    )
                s_on = x0 <= s[0] <= x1 and y0 <= s[1] <= y1
                t_on = x0 <= t[0] <= x1 and y0 <= t[1] <= y1
                if not s_on and not t_on:
                    continue  # a walk in the 庭 passes no 楹 and no 序
                if settled:
                    # the detour's last pass found no leg through the 序, and this one, on the
                    # 堂 from end to end, clear of the 楹 too
                    if s_on and t_on and math.dist(s, t) > 1e-9:
                        continue
                else:
                    for n, w0, w1 in self.walls:
                        if _cross(s, t, w0, w1):
                            out.append(Fault("wall", f"walks through the {n}"))
                for n, c in self.pillars:
                    if _seg_dist2(c, s, t) < self.pillar2:
                        out.append(Fault("pillar", f"walks through the {n}"))
            lead = False
        g = self._gap
        near = tuple([_leg_cells(pts, g) if pts else None for pts in walks])
        got = self._strict_seen[key] = (tuple(out), tuple(walks), near)
        return got

    def check(
        self,
        name: str,
        old: list[Vec],
        bodies: list[Vec],
        verb: str,
        via: Vec | None,
        stair: str | None,
        routes: list[str],
        role: str,
        search: bool = True,
    ) -> list[Fault]:
        """Every fault of the walk of ``name``'s bodies from ``old`` to ``bodies``, who stand
        there already (:meth:`stand`): those of :meth:`_plain`, and a walk through a body
        where no way round those who stand is found.

        The walk made without regard to who stands is taken where it passes nobody; else where
        each group it passes (those standing too close to pass between, one after another)
        can be walked round (:meth:`_round_groups`); else the walk made by the place where
        others stand (:meth:`route` with his name) likewise; else the way round is searched
        for (:meth:`clear`; with ``search`` false, beyond the crowd the model walks round,
        only where no more than FEW stand in the way: the search through hundreds would cost
        more than the run), and where none is found, the walk goes through a body (one fault
        for the walk, the first body).

        >>> from sheli.place import load_venue
        >>> p = Paths(load_paths(), load_venue("xie"), footprint=2.0)
        >>> p.stand("乙", [(0.0, -25.0)]); p.stand("甲", [(0.0, -30.0)])
        >>> p.check("甲", [(0.0, -20.0)], [(0.0, -30.0)], "進", None, None, [], "甲")
        []
        """
        faults, walks, near = self._plain(old, bodies, verb, via, stair, routes, role)
        out = list(faults)
        lead = True
        for a, b, pts, cells in zip(old, bodies, walks, near, strict=False):
            if not pts:
                lead = False
                continue
            block = self._legs_near(name, cells)
            if block and not self._round_groups(name, pts, block):
                # the walk as it goes by those who stand (up the side of a 階 clear of one at
                # its head, beside one on the place the text names), else the way round
                way = stair if stair is not None else self.stair_of(verb, a, b)
                full = self.route(a, b, via if lead else None, verb, way, name)
                full = self.detour(full, self._side(routes))
                block = self._legs_near(name, _leg_cells(full, math.sqrt(self.gap2)))
                if block and not self._round_groups(name, full, block):
                    if search:
                        full = self.clear(name, full)
                    elif len({q for _, q in block}) <= FEW:
                        # past a few: the cheap side step only (the search on the grid in a
                        # crowd looks at every node it may before it gives up)
                        self.grid = False
                        try:
                            full = self.clear(name, full)
                        finally:
                            self.grid = True
                    # one line for the walk: the first he walks through
                    out.extend([f for f in self._through(name, full) if f.kind == "body"][:1])
            lead = False
        return out

    def _legs_near(self, name: str, near: tuple[Any, ...]) -> list[tuple[int, Vec]]:
        """The standing bodies (not ``name``'s) nearer than the passing distance to a leg of a
        walk, each with the leg's index (``near``: :func:`_leg_cells`). The cells of the walk's
        box are looked in, or, where they are more than the cells where anyone stands (a long
        walk, to the 侯), those cells that are in the box."""
        out: list[tuple[int, Vec]] = []
        grid = self.cells
        if not grid:
            return out
        g2 = self.gap2
        legs, (x0, y0, x1, y1), (ix0, ix1, iy0, iy1) = near
        if (ix1 - ix0 + 1) * (iy1 - iy0 + 1) <= len(grid):
            get = grid.get
            iys = range(iy0, iy1 + 1)
            found = [c for ix in range(ix0, ix1 + 1) for iy in iys if (c := get((ix, iy)))]
        else:
            found = [c for (ix, iy), c in grid.items() if ix0 <= ix <= ix1 and iy0 <= iy <= iy1]
        if len(legs) == 1:
            # a walk of one leg (most are): the loop below, without its loop
            ax, ay, dx, dy, n = legs[0]
            for c in found:
                for px, py, other, p in c:
                    if other == name or not (x0 <= px <= x1 and y0 <= py <= y1):
                        continue
                    t = 0.0 if n == 0 else ((px - ax) * dx + (py - ay) * dy) / n
                    t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
                    qx, qy = ax + t * dx - px, ay + t * dy - py
                    if qx * qx + qy * qy < g2:
                        out.append((0, p))
            return out
        for c in found:
            for px, py, other, p in c:
                if other == name or not (x0 <= px <= x1 and y0 <= py <= y1):
                    continue
                for i, (ax, ay, dx, dy, n) in enumerate(legs):
                    t = 0.0 if n == 0 else ((px - ax) * dx + (py - ay) * dy) / n
                    t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
                    qx, qy = ax + t * dx - px, ay + t * dy - py
                    if qx * qx + qy * qy < g2:
                        out.append((i, p))
        return out

    def _round_groups(self, name: str, pts: list[Vec], block: list[tuple[int, Vec]]) -> bool:
        """Whether the walk ``pts`` can go round each group of those who stand in its way
        (``block``: each with the leg it stands in the way of) along the group's edge.

        A group is those who stand so near one another (one after another) that one cannot
        pass between them (paths.yaml passing). Where it is a chain or a tree of bodies (no
        ring of them encloses a place, so its edge is one line round it), stands clear of the
        堂's edge, a 階, the 序, the walls of a 室 or 房 and the 楹 (the way along its edge
        stays on the walk's level), and none of the walk's turns is on it, the walk goes along
        its edge: every other body stands at least two passing distances from the group, so
        that way passes it. Other groups (near the plan's edges: at the head or the foot of a
        階, along the 堂's edge; a ring of them) are walked round, each in turn, on a side that
        is clear (:meth:`_round_each`); a group of more than GROUP is not (the search for a way
        round, :meth:`clear`, is then made).

        >>> from sheli.place import load_venue
        >>> p = Paths(load_paths(), load_venue("xie"), footprint=2.0)
        >>> for i in range(4):
        ...     p.stand(f"耦{i}", [(0.0, -20.0 - 2.5 * i)])  # a chain across the way
        >>> p._round_groups("甲", [(-8.0, -24.0), (8.0, -24.0)], [(0, (0.0, -22.5))])
        True
        >>> for i, q in enumerate([(-2.5, -25.0), (-2.5, -27.5), (0.0, -30.0)]):
        ...     p.stand(f"丙{i}", [q])  # a ring of them: he goes round it
        >>> p._round_groups("甲", [(-8.0, -24.0), (8.0, -24.0)], [(0, (0.0, -22.5))])
        True
        >>> p._round_groups("甲", [(-8.0, -26.25), (-1.25, -26.25)], [(0, (-2.5, -25.0))])
        False
        """
        edge2 = self.gap2
        done: dict[Vec, int] = {}  # a body → its group
        groups: list[tuple[Vec, ...]] = []
        ok: list[bool] = []
        for _, start in block:
            if start in done:
                continue
            group, names, tree, good = self._group(start, None)
            if name in names:
                # his own body is one of them: the group without him (not kept)
                group, names, tree, good = self._group(start, name)
            if len(group) > GROUP:
                return False  # a crowd: the search for a way round (clear)
            for c in group:
                done[c] = len(groups)
                for v in pts:
                    if (v[0] - c[0]) ** 2 + (v[1] - c[1]) ** 2 < edge2:
                        return False  # a turn of the walk is on the group
            groups.append(group)
            ok.append(tree and good)
        if all(ok):
            return True
        # a ring of them, or those near the plan's edges: a leg in their way is walked round
        # each of them in turn, on the side that is clear
        by_leg: dict[int, set[int]] = {}
        for i, q in block:
            by_leg.setdefault(i, set()).add(done[q])
        for i, gs in by_leg.items():
            if all(ok[g] for g in gs):
                continue
            if not self._round_each(name, pts[i], pts[i + 1], [groups[g] for g in gs]):
                return False
        return True

    def _round_each(self, name: str, s: Vec, t: Vec, those: list[tuple[Vec, ...]]) -> bool:
        """Whether the leg s–t can go round each group of ``those`` who stand in its way, on
        one side or the other: one alone by the turns of a polygon round him whose sides keep
        the passing distance, several by the corners of the smallest convex polygon round
        those of each of them (a ring of them, a crowd a spacing apart); every leg of the way
        clear (:meth:`_leg_ok`: of every body, the 堂's edge, the 楹, the 序).

        >>> from sheli.place import load_venue
        >>> p = Paths(load_paths(), load_venue("xie"), footprint=2.0)
        >>> for x in (-15.0, -12.0, -9.0):
        ...     p.stand(f"賓{x}", [(x, 1.0)])  # along the 堂's edge, 1 尺 in from it
        >>> those = [((-15.0, 1.0),), ((-12.0, 1.0),), ((-9.0, 1.0),)]
        >>> p._round_each("甲", (-19.0, 1.0), (-5.0, 1.0), those)
        True
        >>> ring = [(8.0, -32.0), (10.0, -32.0), (12.0, -32.0), (8.0, -30.0), (12.0, -30.0)]
        >>> p._round_each("甲", (10.0, -24.0), (10.0, -40.0), [tuple(ring)])
        True
        """
        dx, dy = t[0] - s[0], t[1] - s[1]
        n = dx * dx + dy * dy
        if n == 0:
            return False
        for _ in range(len(those)):
            cuts = self._cuts(s, t, those)
            if cuts is None:
                return False
            # where the ways round two of them overlap, one way round both
            k = next(
                (
                    k
                    for k in range(1, len(cuts))
                    if (cuts[k - 1][1] - cuts[k][0]) * math.sqrt(n) > 1e-5
                ),
                None,
            )
            if k is None:
                break
            a, b = cuts[k - 1][6], cuts[k][6]
            those = [q for q in those if q is not a and q is not b] + [(*a, *b)]
        else:
            return False
        way = [s]
        for t0, t1, c, rho, i, j, _ in cuts:
            e = (s[0] + t0 * dx, s[1] + t0 * dy)
            x = (s[0] + t1 * dx, s[1] + t1 * dy)
            # the leg up to them passes nobody (those in its way are walked round)
            if not self._leg_ok(name, way[-1], e, False):
                return False
            if rho:
                arc = self._arc(name, c, rho, e, x)
            else:
                arc = self._along(name, c, e, x, i, j)
            if arc is None:
                return False
            way += [e, *arc, x]
        return self._leg_ok(name, way[-1], t, False)

    def _cuts(self, s: Vec, t: Vec, those: list[tuple[Vec, ...]]) -> list[Any] | None:
        """Where the leg s–t enters and leaves the way round each group of ``those``, in
        order along it, each with the polygon's or circle's data and its group; None if an
        end of the leg is among them."""
        dx, dy = t[0] - s[0], t[1] - s[1]
        n = dx * dx + dy * dy
        g = math.sqrt(self.gap2)
        cuts: list[tuple[float, float, Any, float, int, int, tuple[Vec, ...]]] = []
        for group in those:
            if len(group) > 1:
                hull = self._hull(group)
                got = _clip(hull, s, t)
                if got is None:
                    continue  # the leg passes them after all
                t0, t1, i, j = got
                if t0 <= 1e-9 or t1 >= 1 - 1e-9:
                    return None  # an end of the leg is among them
                cuts.append((t0, t1, hull, 0.0, i, j, group))
                continue
            c = group[0]
            # the circle round him the polygon's sides touch: the passing distance, less where
            # an end of the leg is nearer (no nearer than the passing distance allows)
            rho = min(self.m.passing, math.dist(s, c), math.dist(t, c))
            if rho < g:
                return None
            fx, fy = s[0] - c[0], s[1] - c[1]
            b = fx * dx + fy * dy
            disc = b * b - n * (fx * fx + fy * fy - rho * rho)
            if disc <= 0:
                continue  # the leg passes him after all
            root = math.sqrt(disc)
            t0, t1 = max(0.0, (-b - root) / n), min(1.0, (-b + root) / n)
            cuts.append((t0, t1, c, rho, 0, 0, group))
        cuts.sort(key=lambda k: k[0])
        return cuts

    def _hull(self, group: tuple[Vec, ...]) -> list[Vec]:
        """The smallest convex polygon (anticlockwise) round the polygons round each of
        ``group`` whose sides keep the passing distance from him: its sides keep it from
        every one of them."""
        corners = self._corners_round
        if corners is None:
            r = self.m.passing / math.cos(math.pi / ROUND_SIDES) + 1e-6
            corners = self._corners_round = [
                (
                    r * math.cos(2 * math.pi * k / ROUND_SIDES),
                    r * math.sin(2 * math.pi * k / ROUND_SIDES),
                )
                for k in range(ROUND_SIDES)
            ]
        pts = sorted({(c[0] + ox, c[1] + oy) for c in group for ox, oy in corners})

        def half(points: Iterable[Vec]) -> list[Vec]:
            out: list[Vec] = []
            for p in points:
                while (
                    len(out) >= 2
                    and (
                        (out[-1][0] - out[-2][0]) * (p[1] - out[-2][1])
                        - (out[-1][1] - out[-2][1]) * (p[0] - out[-2][0])
                    )
                    <= 0
                ):
                    out.pop()
                out.append(p)
            return out

        lower, upper = half(pts), half(reversed(pts))
        return lower[:-1] + upper[:-1]

    def _along(
        self, name: str, hull: list[Vec], e: Vec, x: Vec, i: int, j: int
    ) -> list[Vec] | None:
        """The corners of ``hull`` from e (on its side i) to x (on its side j), one way round
        or the other, whichever is clear first (the shorter first); else None."""
        m = len(hull)
        ccw = [hull[(i + 1 + k) % m] for k in range((j - i) % m)]
        cw = [hull[(i - k) % m] for k in range((i - j) % m)]
        g2 = self.gap2
        xs = [p[0] for p in hull]
        ys = [p[1] for p in hull]
        reach = math.sqrt(g2)
        near = self._near(name, min(xs) - reach, min(ys) - reach, max(xs) + reach, max(ys) + reach)

        def length(w: list[Vec]) -> float:
            q = [e, *w, x]
            return sum(math.dist(a, b) for a, b in itertools.pairwise(q))

        for arc in sorted((ccw, cw), key=length):
            way = [e, *arc, x]
            if all(
                _clear(near, p, q, g2) and self._leg_ok(name, p, q, False)
                for p, q in itertools.pairwise(way)
            ):
                return arc
        return None

    def _arc(self, name: str, c: Vec, rho: float, e: Vec, x: Vec) -> list[Vec] | None:
        """The corners of a polygon round c from e to x (both ``rho`` from c), its sides
        touching the circle of ``rho``: on the side whose legs are clear, else None."""
        ae = math.atan2(e[1] - c[1], e[0] - c[0])
        ax = math.atan2(x[1] - c[1], x[0] - c[0])
        # only those who stand within a passing distance of the polygon can be in its way
        g2 = self.gap2
        reach = rho / math.cos(math.pi / ROUND_SIDES) + math.sqrt(g2)
        near = [
            q
            for q in self._near(name, c[0] - reach, c[1] - reach, c[0] + reach, c[1] + reach)
            if q != c
        ]
        for side in (1.0, -1.0):
            span = (ax - ae) * side % (2 * math.pi)
            m = max(1, math.ceil(span / (2 * math.pi / ROUND_SIDES)))
            half = span / (2 * m)
            r = rho / math.cos(half)
            arc = [
                (
                    c[0] + r * math.cos(ae + side * (2 * j + 1) * half),
                    c[1] + r * math.sin(ae + side * (2 * j + 1) * half),
                )
                for j in range(m)
            ]
            way = [e, *arc, x]
            if all(
                _clear(near, p, q, g2) and self._leg_ok(name, p, q, False)
                for p, q in itertools.pairwise(way)
            ):
                return arc
        return None

    def _group(self, start: Vec, without: str | None) -> tuple[Any, ...]:
        """The group of the body at ``start`` (those standing so near one another, one after
        another, that one cannot pass between them: paths.yaml passing), not counting
        ``without``'s bodies: its bodies, whose they are, whether it is a chain or a tree (no
        ring of them encloses a place; no more than GROUP), whether it stands clear of the
        plan's edges (:meth:`_clear_of_plan`). Kept, for everyone's, until someone stands in or
        leaves a cell within two passing distances of one of it (:meth:`stand`): most groups
        a walk passes are those who stood there for the walk before.

        >>> from sheli.place import load_venue
        >>> p = Paths(load_paths(), load_venue("xie"), footprint=2.0)
        >>> p.stand("乙", [(0.0, -20.0)]); p.stand("丙", [(0.0, -22.5)])
        >>> bodies, names, tree, clear = p._group((0.0, -20.0), None)
        >>> bodies, sorted(names), tree, clear
        (((0.0, -20.0), (0.0, -22.5)), ['丙', '乙'], True, True)
        """
        epoch = self._epoch
        if without is None:
            kept = self._groups.get(start)
            # the counts of its cells as they were (one look at each, in one call)
            if kept is not None and list(map(epoch.get, kept[1])) == kept[2]:
                return kept[0]
        r2 = 4 * self.gap2
        r = math.sqrt(r2)
        grid = self.cells
        group = [start]
        seen = {start}
        names: set[str] = set()
        links = 0
        i = 0
        big = False
        # the cells looked in: those within two passing distances of one of the group, whose
        # comings and goings may change it (kept with it, below)
        near: dict[tuple[int, int], None] = {}
        while i < len(group) and not big:
            cx, cy = c = group[i]
            iys = range(int((cy - r) // CELL), int((cy + r) // CELL) + 1)
            for ix in range(int((cx - r) // CELL), int((cx + r) // CELL) + 1):
                for iy in iys:
                    key = (ix, iy)
                    near[key] = None
                    cell = grid.get(key)
                    if cell is None:
                        continue
                    for qx, qy, other, q in cell:
                        if other == without:
                            continue
                        if qx == cx and qy == cy:
                            names.add(other)
                            continue
                        dx, dy = qx - cx, qy - cy
                        if dx * dx + dy * dy >= r2:
                            continue
                        links += 1
                        if q not in seen:
                            seen.add(q)
                            group.append(q)
                            big = big or len(group) > GROUP
            i += 1
        if big:
            return tuple(group), frozenset(names), False, False
        # each link is seen from both its ends: a tree has one link fewer than bodies
        tree = links // 2 == len(group) - 1
        edge = math.sqrt(self.gap2)
        good = all(self._clear_of_plan(c, edge) for c in group)
        got = (tuple(group), frozenset(names), tree, good)
        if without is None:
            keys = tuple(near)
            kept = (got, keys, list(map(epoch.get, keys)))
            for c in group:
                self._groups[c] = kept
        return got

    def _clear_of_plan(self, c: Vec, edge: float) -> bool:
        """Whether a body at c stands far enough from the plan's edges (the 堂's, a 階's, the
        序, a 室 or 房) and its 楹 that a walk round it at ``edge`` keeps off them."""
        got = self._plan_clear.get(c)
        if got is None:
            m = edge + PLAN_MARGIN
            m2 = m * m
            p2 = (edge + math.sqrt(self.pillar2) + PLAN_MARGIN) ** 2
            got = all(_seg_dist2(c, s, t) > m2 for s, t in self._plan_edges) and all(
                (c[0] - q[0]) ** 2 + (c[1] - q[1]) ** 2 > p2 for _, q in self.pillars
            )
            self._plan_clear[c] = got
        return got

    def stair_of(self, verb: str, a: Vec, b: Vec) -> str | None:
        """The 階 of a 升 (whose top is nearest where he ends) or 降 (nearest where he
        starts), as the log does not name it."""
        if verb not in ("升", "降") or not self.stairs:
            return None
        end = b if verb == "升" else a
        tops = {n: f.top for n, f in self.stairs.items() if f.top is not None}
        if not tops:
            return None
        return min(tops, key=lambda n: math.dist((tops[n].x, tops[n].y), end))

    def _side(self, routes: list[str] | None) -> str | None:
        for w in routes or ():
            side = self.m.routes[w].get("pillar_side")
            if side is not None:
                return str(side)
        return None

    def _through(self, name: str, pts: list[Vec]) -> list[Fault]:
        out: list[Fault] = []
        segs = list(itertools.pairwise(pts))
        g = math.sqrt(self.gap2)
        # the walk's box, grown by the gap: a body outside it is not near the walk
        x0 = min(p[0] for p in pts) - g
        x1 = max(p[0] for p in pts) + g
        y0 = min(p[1] for p in pts) - g
        y1 = max(p[1] for p in pts) + g
        gap2 = self.gap2
        hit: set[str] = {name}
        cells = self.cells
        for a, b in segs:
            # the cells of this leg's box, grown by the gap
            ix0, ix1 = int((min(a[0], b[0]) - g) // CELL), int((max(a[0], b[0]) + g) // CELL)
            iy0, iy1 = int((min(a[1], b[1]) - g) // CELL), int((max(a[1], b[1]) + g) // CELL)
            for ix in range(ix0, ix1 + 1):
                for iy in range(iy0, iy1 + 1):
                    c = cells.get((ix, iy))
                    if not c:
                        continue
                    for px, py, other, p in c:
                        if other in hit:
                            continue
                        if x0 <= px <= x1 and y0 <= py <= y1 and _seg_dist2(p, a, b) < gap2:
                            hit.add(other)
                            out.append(
                                Fault("body", f"walks through {other} at ({px:.1f}, {py:.1f})")
                            )
        if self.venue is None:
            return out
        for a, b in segs:
            if self._crosses(a, b):
                out.append(Fault("edge", f"crosses the 堂's edge between {_xy(a)} and {_xy(b)}"))
            if not (self._on(a) or self._on(b)):
                continue  # a walk in the 庭 passes no 楹 and no 序
            for n, c in self.pillars:
                if _seg_dist2(c, a, b) < self.pillar2:
                    out.append(Fault("pillar", f"walks through the {n}"))
            for n, w0, w1 in self.walls:
                if _cross(a, b, w0, w1):
                    out.append(Fault("wall", f"walks through the {n}"))
        return out

    def _routes(
        self, pts: list[Vec], verb: str, stair: str | None, routes: list[str], role: str
    ) -> list[Fault]:
        out: list[Fault] = []
        v = self.venue
        for w in routes:
            r = self.m.routes[w]
            side = r.get("pillar_side")
            if side is not None:
                for n, (px, py) in self.pillars:
                    for a, b in itertools.pairwise(pts):
                        if (a[0] - px) * (b[0] - px) >= 0 or a[0] == b[0]:
                            continue  # this leg does not pass the 楹
                        if not self._on(a):
                            continue  # a walk in the 庭 passes no 楹
                        y = a[1] + (b[1] - a[1]) * (px - a[0]) / (b[0] - a[0])
                        if (y > py) != (side == "north"):
                            out.append(Fault("route", f"{w}: passes {_side(y, py)} of the {n}"))
            if r.get("level") == "ting" and v is not None and verb not in ("升", "降"):
                if any(self._on(p) for p in pts):
                    out.append(Fault("route", f"{w}: walks on the 堂"))
            if r.get("own_stair") and verb in ("升", "降") and stair is not None:
                own = self.m.own_stair.get(role, self.m.default_stair)
                if stair != own and not (own == "阼階" and stair == "東階"):
                    out.append(Fault("route", f"{w}: goes by the {stair}, not his {own}"))
        return out


#: The grid of the search for a way round, in 尺; how far from a blocked stretch one turns;
#: how far from each end the first and the last step may reach.
GRID = 0.5
REACH = 6.0
ENDS = 2.5
#: The most nodes one search looks at.
LOOK = 1500
#: A leg that passes more standing bodies than this (along a row or through a crowd of 衆耦)
#: is walked round only by the cheap side step (:meth:`Paths._side_step`): the search on the
#: grid through a crowd of hundreds costs more than the run.
CROWD = 12
_STEPS = [(1, 0, 1.0), (-1, 0, 1.0), (0, 1, 1.0), (0, -1, 1.0)] + [
    (i, j, math.sqrt(2)) for i in (1, -1) for j in (1, -1)
]


def _clip(hull: list[Vec], s: Vec, t: Vec) -> tuple[float, float, int, int] | None:
    """Where the leg s–t enters and leaves the convex polygon ``hull`` (anticlockwise): the
    fractions of the leg, and the sides it crosses; None if it misses it.

    >>> _clip([(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)], (-1.0, 1.0), (3.0, 1.0))
    (0.25, 0.75, 3, 1)
    """
    t0, t1, i, j = -math.inf, math.inf, -1, -1
    dx, dy = t[0] - s[0], t[1] - s[1]
    m = len(hull)
    for k in range(m):
        a, b = hull[k], hull[(k + 1) % m]
        # the outward normal of side k, and where the leg is on its inner side
        nx, ny = b[1] - a[1], a[0] - b[0]
        num = nx * (a[0] - s[0]) + ny * (a[1] - s[1])
        den = nx * dx + ny * dy
        if den == 0:
            if num < 0:
                return None
            continue
        f = num / den
        if den < 0 and f > t0:
            t0, i = f, k
        elif den > 0 and f < t1:
            t1, j = f, k
    if t0 >= t1 or i < 0 or j < 0:
        return None
    return t0, t1, i, j


def _leg_cells(pts: list[Vec], g: float) -> tuple[Any, ...]:
    """The legs of a walk (start, direction, squared length), the box of the walk grown by
    ``g``, and the cells of the grid of standing bodies (CELL) in that box: what
    :meth:`Paths._legs_near` reads.

    >>> legs, box, cells = _leg_cells([(0.0, 0.0), (10.0, 0.0)], 1.5)
    >>> legs, box, cells
    (((0.0, 0.0, 10.0, 0.0, 100.0),), (-1.5, -1.5, 11.5, 1.5), (-1, 1, -1, 0))
    """
    legs = []
    ax, ay = pts[0]
    x0 = x1 = ax
    y0 = y1 = ay
    # the legs and the box in one pass (min and max of each, the first of equals kept)
    for i in range(1, len(pts)):
        bx, by = pts[i]
        dx, dy = bx - ax, by - ay
        legs.append((ax, ay, dx, dy, dx * dx + dy * dy))
        if bx < x0:
            x0 = bx
        elif bx > x1:
            x1 = bx
        if by < y0:
            y0 = by
        elif by > y1:
            y1 = by
        ax, ay = bx, by
    box = (x0 - g, y0 - g, x1 + g, y1 + g)
    cells = (
        int(box[0] // CELL),
        int(box[2] // CELL),
        int(box[1] // CELL),
        int(box[3] // CELL),
    )
    return tuple(legs), box, cells


def _dedupe(pts: list[Vec]) -> list[Vec]:
    out = [pts[0]]
    for p in pts[1:]:
        if math.dist(p, out[-1]) > 1e-9:
            out.append(p)
    return out


def _around(a: Vec, b: Vec, c: Vec, k: float, side: str | None) -> Vec:
    """A point ``k`` from c, square to the leg a–b, on ``side`` (north or south) or else on
    the side of c the leg passes."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy)
    nx, ny = -dy / n, dx / n
    if side is not None:
        if abs(ny) < 0.3:
            return (c[0], c[1] + (k if side == "north" else -k))
        sign = 1.0 if (ny > 0) == (side == "north") else -1.0
    else:
        t = max(0.0, min(1.0, ((c[0] - a[0]) * dx + (c[1] - a[1]) * dy) / (n * n)))
        qx, qy = a[0] + t * dx - c[0], a[1] + t * dy - c[1]
        sign = -1.0 if qx * nx + qy * ny < 0 else 1.0
    return (c[0] + sign * nx * k, c[1] + sign * ny * k)


def _toward(p: Vec, a: Vec, b: Vec) -> list[Vec]:
    """The ways out from p: square to a–b toward the straight line a–b first, then away from
    it, then along it.

    >>> _toward((0.0, 5.0), (-5.0, 0.0), (5.0, 0.0))[0]
    (0.0, -1.0)
    """
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / n, dx / n
    if (a[0] - p[0]) * nx + (a[1] - p[1]) * ny < 0:
        nx, ny = -nx, -ny
    return [(nx + 0.0, ny + 0.0), (-nx + 0.0, -ny + 0.0), (dx / n, dy / n), (-dx / n, -dy / n)]


def _side(y: float, py: float) -> str:
    return "north" if y > py else "south"


def _xy(p: Vec) -> str:
    return f"({p[0]:.1f}, {p[1]:.1f})"


def walk_faults(
    records: Iterable[Any],
    venue: Venue | None,
    file: str,
    footprint: float,
    stairs: dict[int, str] | None = None,
    search: bool = True,
) -> list[str]:
    """Every walk of a run read again from its records (``Run.records``), each actor from
    the body of his last step, with the run's own check (:meth:`Paths.check`): the faults of
    each (those the engine refuses cannot be among them but a walk through a body beyond the
    crowd it walks round, paths.yaml crowd), one line each with the spec file, line and
    passage, as ``Run.path_faults`` gives them. ``stairs``: the 階 of each 升 and 降 by its seq
    (the spec's ``by``, which the log does not give; else the nearest); ``search``: whether
    the way round is searched for (:meth:`Paths.check`).

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1)
    >>> faults = walk_faults(r.records, r.plan, r.spec.file, 2.0, r.stairs)
    >>> faults == r.path_faults, any("[P-route]" in f for f in faults)
    (True, False)
    """
    paths = Paths(load_paths(), venue, footprint)
    out: list[str] = []
    for r in records:
        if getattr(r, "verb", None) is None or r.x is None or r.y is None:
            continue
        members = r.more.get("members") if r.more else None
        bodies = [(m["x"], m["y"]) for m in members] if members else [(r.x, r.y)]
        old = paths.at.get(r.actor)
        if old == bodies:
            continue
        paths.stand(r.actor, bodies)
        if old is None:
            continue
        stair = (stairs or {}).get(r.seq)
        routes = route_words(r.jing, paths.m)
        faults = paths.check(
            r.actor, old, bodies, r.verb, r.via_point, stair, routes, r.actor, search
        )
        where = (r.more or {}).get("file") or file
        for f in faults:
            if f.kind == "route":
                continue  # the run refuses these, with the spec's own 階 and role
            out.append(f"{where}:{r.line} ({r.cite}, {r.verb} by {r.actor}): {f.what} [P-{f.kind}]")
    return out

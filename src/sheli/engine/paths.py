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
>>> [f.kind for f in paths.walk("甲", [(0.0, -30.0)], verb="進")]   # straight through 乙
['body']
>>> paths.walk("甲", [(3.0, -30.0)], verb="進")   # beside him is clear
[]
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from sheli.place.model import Point, Venue

PATHS_FILE = Path(__file__).resolve().parent.parent / "place" / "paths.yaml"

Vec = tuple[float, float]

#: The kinds of fault the engine refuses (a step that goes through the 序 or off the route its
#: 經 names fails like every other check). The others (through a body, a 楹, over the 堂's
#: edge into a 室 or 房) are found in the runs of today and not yet resolved: they are listed
#: in ``Run.path_faults`` with their spec file, line and passage, and counted in
#: docs/place.md "Walks", rather than hidden.
STRICT = frozenset({"route", "wall"})

__all__ = ["PATHS_FILE", "STRICT", "Fault", "PathModel", "Paths", "load_paths", "route_words"]


class Fault(NamedTuple):
    """One thing a walk went through, or a route it did not take."""

    kind: str  # body, pillar, wall, edge, route
    what: str


@dataclass(frozen=True)
class PathModel:
    """The data of ``paths.yaml``: the 楹's size, how far out one rounds the 堂's corner, the
    routes by the words that name them, whose 階 is which."""

    pillar_radius: float
    corner: float
    routes: dict[str, dict[str, Any]]
    own_stair: dict[str, str]
    default_stair: str


@cache
def load_paths(path: Path | None = None) -> PathModel:
    """Read ``paths.yaml``; every route must give its source.

    >>> m = load_paths()
    >>> m.routes["鉤楹"]["pillar_side"], m.own_stair["主人"]
    ('north', '阼階')
    """
    raw = yaml.safe_load((path or PATHS_FILE).read_text(encoding="utf-8"))
    routes = {str(k): dict(v) for k, v in raw["routes"].items()}
    for k, v in routes.items():
        if not v.get("source"):
            raise ValueError(f"route {k} gives no source")
    own = raw["own_stair"]
    return PathModel(
        pillar_radius=float(raw["pillar"]["radius"]["value"]),
        corner=float(raw["corner"]["value"]),
        routes=routes,
        own_stair={str(k): str(v) for k, v in (own.get("by_role") or {}).items()},
        default_stair=str(own["default"]),
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
    m = model or load_paths()
    out: list[str] = []
    for w in sorted(m.routes, key=len, reverse=True):
        if w in jing and not any(w in o for o in out):
            out.append(w)
    return out


def _seg_dist2(p: Vec, a: Vec, b: Vec) -> float:
    """The square of the distance from p to the segment a–b."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
    qx, qy = a[0] + t * dx - p[0], a[1] + t * dy - p[1]
    return qx * qx + qy * qy


def _cross(a: Vec, b: Vec, c: Vec, d: Vec) -> bool:
    """Whether the segments a–b and c–d cross (touching counts)."""

    def orient(p: Vec, q: Vec, r: Vec) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    d1, d2 = orient(c, d, a), orient(c, d, b)
    d3, d4 = orient(a, b, c), orient(a, b, d)
    return d1 * d2 <= 0 and d3 * d4 <= 0 and (d1, d2) != (0, 0)


class Paths:
    """Everyone's bodies as they stand, and the check of each walk."""

    def __init__(self, model: PathModel, venue: Venue | None, footprint: float) -> None:
        self.m = model
        self.venue = venue
        self.gap2 = footprint * footprint - 1e-6
        self.at: dict[str, list[Vec]] = {}
        fixtures = getattr(venue, "fixtures", None) or {}
        self.pillars = [(n, (f.x, f.y)) for n, f in fixtures.items() if f.kind == "pillar"]
        self.pillar2 = (model.pillar_radius + footprint / 2) ** 2 - 1e-6
        self.walls = [
            (n, (f.extent.x0, f.extent.y0), (f.extent.x1, f.extent.y1))
            for n, f in fixtures.items()
            if f.kind == "wall" and f.extent is not None
        ]
        self.stairs = dict(venue.stairs) if venue is not None else {}

    def stand(self, name: str, bodies: list[Vec]) -> None:
        """Where ``name``'s bodies stand now (after his step)."""
        self.at[name] = bodies

    def route(self, a: Vec, b: Vec, via: Vec | None, verb: str, stair: str | None) -> list[Vec]:
        """The points of a walk from a to b: by ``via``, by the 階 (升, 降), round the 堂."""
        pts: list[Vec] = [a]
        if via is not None:
            pts.append(via)
        st = self.stairs.get(stair) if stair else None
        if st is not None and st.foot is not None and st.top is not None and verb in ("升", "降"):
            way = [(st.foot.x, st.foot.y), (st.top.x, st.top.y)]
            pts.extend(way if verb == "升" else way[::-1])
        pts.append(b)
        return self._round(pts)

    def detour(self, pts: list[Vec], side: str | None = None) -> list[Vec]:
        """The walk on the 堂 goes round a 楹 it would walk through (on ``side``, north or
        south, where the 經 names it: 鉤楹, 由楹内, 由楹外; else on the side it passes) and
        round the south end of a 序 it would walk through (one passes from the 東堂 to the
        堂 in front of the 序). A few passes: a way round one 楹 may come near the other."""
        v = self.venue
        if v is None or not (self.pillars or self.walls):
            return pts
        for _ in range(4):
            out = self._detour_once(pts, side)
            if len(out) == len(pts):
                return out
            pts, side = out, None  # the side the text names is kept by the first pass
        return pts

    def _detour_once(self, pts: list[Vec], side: str | None) -> list[Vec]:
        v = self.venue
        assert v is not None
        k = 1.2 * (math.sqrt(self.pillar2) + 0.5)
        out = [pts[0]]
        for a, b in itertools.pairwise(pts):
            for _, w0, w1 in self.walls:
                if _cross(a, b, w0, w1):
                    south = w0 if w0[1] <= w1[1] else w1
                    out.append((south[0], south[1] - k))
            if v.on_tang(Point(*a)) and v.on_tang(Point(*b)) and math.dist(a, b) > 1e-9:
                for _, c in self.pillars:
                    passes = (a[0] - c[0]) * (b[0] - c[0]) < 0
                    y = a[1] + (b[1] - a[1]) * (c[0] - a[0]) / (b[0] - a[0]) if passes else c[1]
                    near = _seg_dist2(c, a, b) < self.pillar2
                    wrong = passes and side is not None and (y > c[1]) != (side == "north")
                    if near or wrong:
                        out.append(_around(a, b, c, k, side if passes else None))
            out.append(b)
        return out

    def _round(self, pts: list[Vec]) -> list[Vec]:
        """A walk in the 庭 that would cut across the 堂 goes round its south corner(s)."""
        v = self.venue
        if v is None:
            return pts
        e = v.platform
        c = self.m.corner
        sw, se = (e.x0 - c, e.y0 - c), (e.x1 + c, e.y0 - c)
        out = [pts[0]]
        for a, b in itertools.pairwise(pts):
            pa, pb = Point(*a), Point(*b)
            if not v.on_tang(pa) and not v.on_tang(pb) and v.crosses(pa, pb):

                def length(w: list[Vec], a: Vec = a, b: Vec = b) -> float:
                    q = [a, *w, b]
                    return sum(math.dist(s, t) for s, t in itertools.pairwise(q))

                for w in sorted([[sw], [se], [sw, se], [se, sw]], key=length):
                    q = [a, *w, b]
                    if not any(v.crosses(Point(*s), Point(*t)) for s, t in itertools.pairwise(q)):
                        out.extend(w)
                        break
            out.append(b)
        return out

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
        self.at[name] = bodies
        if not old:
            return []
        faults: list[Fault] = []
        lead = True
        for a, b in zip(old, bodies, strict=False):
            if math.dist(a, b) < 1e-9:
                lead = False
                continue
            pts = self.route(a, b, via if lead else None, verb, stair)
            pts = self.detour(pts, self._side(routes))
            faults.extend(self._through(name, pts))
            if routes:
                faults.extend(self._routes(pts, verb, stair, routes, role or name))
            lead = False
        return faults

    def _side(self, routes: list[str] | None) -> str | None:
        for w in routes or ():
            side = self.m.routes[w].get("pillar_side")
            if side is not None:
                return str(side)
        return None

    def _through(self, name: str, pts: list[Vec]) -> list[Fault]:
        out: list[Fault] = []
        v = self.venue
        segs = list(itertools.pairwise(pts))
        seen: set[str] = set()
        for other, bs in self.at.items():
            if other == name:
                continue
            for p in bs:
                if any(_seg_dist2(p, a, b) < self.gap2 for a, b in segs) and other not in seen:
                    seen.add(other)
                    out.append(Fault("body", f"walks through {other} at ({p[0]:.1f}, {p[1]:.1f})"))
        if v is None:
            return out
        for a, b in segs:
            pa, pb = Point(*a), Point(*b)
            if v.crosses(pa, pb):
                out.append(Fault("edge", f"crosses the 堂's edge between {_xy(a)} and {_xy(b)}"))
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
                        if v is not None and not v.on_tang(Point(*a)):
                            continue  # a walk in the 庭 passes no 楹
                        y = a[1] + (b[1] - a[1]) * (px - a[0]) / (b[0] - a[0])
                        if (y > py) != (side == "north"):
                            out.append(Fault("route", f"{w}: passes {_side(y, py)} of the {n}"))
            if r.get("level") == "ting" and v is not None and verb not in ("升", "降"):
                if any(v.on_tang(Point(*p)) for p in pts):
                    out.append(Fault("route", f"{w}: walks on the 堂"))
            if r.get("own_stair") and verb in ("升", "降") and stair is not None:
                own = self.m.own_stair.get(role, self.m.default_stair)
                if stair != own and not (own == "阼階" and stair == "東階"):
                    out.append(Fault("route", f"{w}: goes by the {stair}, not his {own}"))
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


def _side(y: float, py: float) -> str:
    return "north" if y > py else "south"


def _xy(p: Vec) -> str:
    return f"({p[0]:.1f}, {p[1]:.1f})"

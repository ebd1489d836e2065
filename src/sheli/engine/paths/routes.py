"""The routes of a walk: by the 階 where he goes up or down, round the 楹 and the 堂's corner."""

from __future__ import annotations

import itertools
import math
from typing import Any

from sheli.engine.paths.geometry import _around, _cross, _seg_dist2, _toward
from sheli.engine.paths.model import Vec, Via, waypoints
from sheli.engine.paths.search import _WaysRound


class _Routes(_WaysRound):
    """The ways the 經 names: by the 階, round the 楹 and the 堂's corner, by the door."""

    def route(
        self,
        a: Vec,
        b: Vec,
        via: Via | None,
        verb: str,
        stair: str | None,
        name: str | None = None,
    ) -> list[Vec]:
        """The points of a walk from a to b: by ``via``, by the 階 (升, 降), round the 堂.
        Where another (not ``name``) stands at the 階's foot or head, the walk keeps to the
        side of the 階 clear of him (:meth:`stair_way`)."""
        pts: list[Vec] = [a]
        for w in waypoints(via):
            if name is not None and self.blockers(name, [w, w]):
                # another stands on the place the text names: one passes it beside him, on the
                # side of the straight way (the place still passed, 過; nobody steps aside)
                w = self._beside(name, w, _toward(w, pts[-1], b))
            pts.append(w)
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

        >>> from sheli.engine.paths import Paths, load_paths
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

        >>> from sheli.engine.paths import Paths, load_paths
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
        # the foot as far as one step up (1 尺), the head as far as the 堂's edge (a 階 that
        # rises to the south, the 北階, has it on its south side)
        up = 1.0 if top[1] > foot[1] else -1.0
        edge = (e.y1 if up > 0 else e.y0) if e is not None else top[1]
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

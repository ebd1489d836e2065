"""The way round those who stand in a walk's way: a side step, or a search on a grid."""

from __future__ import annotations

import heapq
import itertools
import math

from sheli.engine.paths.geometry import _clear, _cross, _dedupe
from sheli.engine.paths.grid import _Grid
from sheli.engine.paths.model import CROSSED, Vec

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


class _WaysRound(_Grid):
    """The way round those who stand in a walk's way: a side step, or the shortest way on a
    grid."""

    def clear(self, name: str, pts: list[Vec], depth: int = 0) -> list[Vec]:
        """The walk goes round the bodies that stand in its way: each leg that would pass
        closer than a footprint to a standing body is replaced, where it is blocked, by the
        shortest way round on a grid of GRID 尺 (round the end of a row or a crowd), kept to
        the leg's level (the 堂 or the 庭) and clear of the 楹 and the 序, then drawn tight
        (only the turns are kept). A leg whose end itself stands on another's body is left.

        >>> from sheli.engine.paths import Paths, load_paths
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

        >>> from sheli.engine.paths import Paths, load_paths
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
            for di, dj, cost in _STEPS:
                m = (n[0] + di, n[1] + dj)
                if m in done or not ok(m):
                    continue
                if walls and any(_cross(pt(n), pt(m), w0, w1) for w0, w1 in walls):
                    continue  # the bodies are step_ok's, the 楹 the blocked nodes'
                if not step_ok(n, m):
                    continue
                if tang and self._crosses(pt(n), pt(m)):
                    continue  # a step across the corner of the 堂
                g2 = g + cost * h
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

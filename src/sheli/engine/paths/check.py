"""The check of a walk: the faults of one, and of every walk of a run read again."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from typing import Any

from sheli.engine.paths.geometry import _clear, _clip, _cross, _leg_cells, _seg_dist2, _side, _xy
from sheli.engine.paths.model import (
    CELL,
    FEW,
    GROUP,
    PLAN_MARGIN,
    ROUND_SIDES,
    STRICT_SEEN,
    Fault,
    Vec,
    Via,
    load_paths,
    route_words,
)
from sheli.engine.paths.routes import _Routes
from sheli.place.model import Venue


class Paths(_Routes):
    """Everyone's bodies as they stand, and the check of each walk."""

    def walk(
        self,
        name: str,
        bodies: list[Vec],
        verb: str,
        via: Via | None = None,
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
        via: Via | None,
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
        via: Via | None,
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
            for n, centre in self.pillars:
                if _seg_dist2(centre, a, b) < self.pillar2:
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
        bodies = [(m.x, m.y) for m in r.members] if r.members else [(r.x, r.y)]
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
        where = r.source_file or file
        for f in faults:
            if f.kind == "route":
                continue  # the run refuses these, with the spec's own 階 and role
            out.append(f"{where}:{r.line} ({r.cite}, {r.verb} by {r.actor}): {f.what} [P-{f.kind}]")
    return out

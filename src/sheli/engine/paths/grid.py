"""Everyone's bodies as they stand, by cell: what a leg of a walk meets (docs/place.md, "Walks").

A walk past one who stands meets his body; his own walk, and a walk well clear, meet none:

>>> from sheli.engine.paths.model import load_paths
>>> grid = _Grid(load_paths(), None, 1.5)
>>> grid.stand("司射", [(0.0, -10.0)])
>>> grid.blockers("賓", [(-5.0, -10.0), (5.0, -10.0)])
[(0.0, -10.0)]
>>> grid.blockers("賓", [(-5.0, -30.0), (5.0, -30.0)])
[]
>>> grid.blockers("司射", [(-5.0, -10.0), (5.0, -10.0)])
[]
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from sheli.engine.paths.geometry import _clear, _cross
from sheli.engine.paths.model import CELL, CROSSED, PathModel, Vec
from sheli.place.model import Point, Venue


class _Grid:
    """Everyone's bodies as they stand, by cell, and the plan's walls, 楹 and 階: what a
    leg of a walk meets."""

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

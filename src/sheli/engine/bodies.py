"""Bodies, not points: where each person's body stands after each step.

The verbs place a person on the point a place word names (西階前, 堂西 …). Several people may be
sent to one point; they cannot stand on it together. After every step this module puts the
actor's body, and the bodies of a role that is several people (衆賓, 工 …), where the text has
them stand (:mod:`sheli.place.bodies`, the data ``sheli/place/bodies.yaml``):

- the text's own placements, passage by passage (上射在左竝行 xiangshe:139, 上射於右 176, 少左
  140, 拜送爵於衆賓右 注 xiangshe:62 …);
- the two of a pair at one place stand abreast, the 上射 to the west or the north (竝);
- a role that is several people stands as a row, its head at the place named (東上 facing north
  or south, 北上 facing east or west; the spec's ``row:`` where it gives one);
- one who comes where another already stands continues the row (繼…而立), else stands one row
  behind, else on the other side, else in front.

Whoever already stands keeps his place: only the actor of the step moves, so no two bodies are
ever closer than the footprint (the check: :meth:`Bodies.place` says why it cannot place one).
The person's point (``Person.x``, ``.y``) is unchanged: places relative to people are resolved
from it; the log gives the body.

>>> from sheli.engine.state import Person, World
>>> from sheli.place.bodies import load_bodies
>>> w = World()
>>> a, b = Person("甲", role="甲"), Person("乙", role="乙")
>>> bodies = Bodies(load_bodies(), {}, w, None)
>>> ev = {"x": 0.0, "y": 0.0, "facing": "N"}
>>> bodies.place(ev, a, "x:1", "立", None), (ev["x"], ev["y"])
('', (0.0, 0.0))
>>> ev = {"x": 0.0, "y": 0.0, "facing": "N"}
>>> bodies.place(ev, b, "x:1", "立", None), (ev["x"], ev["y"])  # 東上: he stands to the west
('', (-3.0, 0.0))
"""

from __future__ import annotations

from typing import Any

from sheli.engine.state import Person, World
from sheli.place.bodies import FACING_VECTORS, BodyCase, BodyModel, right_of

Vec = tuple[float, float]

#: How far (in spacings) the search for a free place goes before the step is refused.
RINGS = 12


def _continue_vector(facing: str | None) -> Vec:
    """Where a row continues from its head when the text names none: west of him facing north
    or south (東上), south of him facing east or west (北上)."""
    f = (facing or "N")[0]
    return (-1.0, 0.0) if f in ("N", "S") else (0.0, -1.0)


def _upper_side(facing: str | None) -> Vec:
    """The side of a pair abreast where the 上射 stands: west facing north or south, north
    facing east or west (竝, bodies.yaml formations)."""
    f = (facing or "N")[0]
    return (-1.0, 0.0) if f in ("N", "S") else (0.0, 1.0)


_ROW_VECTORS: dict[str, Vec] = {
    "北上": (0.0, -1.0),
    "南上": (0.0, 1.0),
    "東上": (-1.0, 0.0),
    "西上": (1.0, 0.0),
}


class Bodies:
    """The bodies of everyone who has acted, as the log gives them."""

    def __init__(self, model: BodyModel, members: dict[str, int], world: World, venue: Any) -> None:
        self.m = model
        self.members = members
        self.world = world
        self.venue = venue
        self.at: dict[str, list[Vec]] = {}  # actor → his bodies (the first leads)
        self.point: dict[str, Vec] = {}  # actor → the point he was placed for
        self.facing: dict[str, str | None] = {}
        self._formed: dict[str, tuple[str, Vec]] = {}  # who formed a pair at which passage
        self._cell = model.min_gap
        self._grid: dict[tuple[int, int], list[tuple[str, float, float]]] = {}
        self._gap2 = model.min_gap * model.min_gap - 1e-9
        self._on_tang = getattr(venue, "on_tang", None)
        self._stair_at = getattr(venue, "stair_at", None)
        self._point_cls: Any = None
        if self._on_tang is not None:
            from sheli.place.model import Point

            self._point_cls = Point
        # the walls of the 庭 (east and west), and the things one does not stand on (楅, 尊 …)
        fixtures = getattr(venue, "fixtures", None) or {}
        ting = fixtures.get("庭")
        self._walls = (ting.extent.x0, ting.extent.x1) if ting is not None and ting.extent else None
        half = model.footprint / 2
        self._things = [
            (f.extent.x0 - half, f.extent.y0 - half, f.extent.x1 + half, f.extent.y1 + half)
            for f in fixtures.values()
            if getattr(f, "kind", None) == "vessel" and f.extent is not None
        ]

    # ---------------------------------------------------------------- the grid of bodies
    def _key(self, x: float, y: float) -> tuple[int, int]:
        return (int(x // self._cell), int(y // self._cell))

    def _put(self, name: str, bodies: list[Vec]) -> None:
        old = self.at.get(name)
        if old is not None:
            for x, y in old:
                cell = self._grid[self._key(x, y)]
                cell[:] = [e for e in cell if e[0] != name]
        self.at[name] = bodies
        for x, y in bodies:
            self._grid.setdefault(self._key(x, y), []).append((name, x, y))

    def _free(self, name: str, x: float, y: float) -> bool:
        ix, iy = self._key(x, y)
        gap2 = self._gap2
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for other, ox, oy in self._grid.get((ix + dx, iy + dy), ()):
                    if other != name and (ox - x) ** 2 + (oy - y) ** 2 < gap2:
                        return False
        return True

    def _level(self, x: float, y: float) -> Any:
        """Where a body may stand, as a key: on the 堂 or not, on which 階, inside the 庭's
        walls or not, on a thing (楅, 尊) or not. A place beside another is taken only if it
        has the same key as the place named (one does not step aside off the 堂, onto a 階,
        through a wall or onto the 楅)."""
        if self._on_tang is None:
            return None
        p = self._point_cls(x, y)
        walls = self._walls
        return (
            bool(self._on_tang(p)),
            self._stair_at(p) if self._stair_at is not None else None,
            walls is None or walls[0] <= x <= walls[1],
            any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in self._things),
        )

    # ---------------------------------------------------------------- placing
    def _cases(self, cite: str, p: Person, verb: str) -> list[BodyCase]:
        out = []
        for c in self.m.cases.get(cite, ()):
            if c.verb is not None and c.verb != verb:
                continue
            if c.who is not None and c.who not in (p.name, p.role, p.seat):
                continue
            if c.pair_upper is not None and p.seat is None:
                continue
            out.append(c)
        return out

    def _partner(self, p: Person) -> str | None:
        if p.pair is None or p.seat is None:
            return None
        pr = self.world.pairs.get(p.pair)
        if pr is None:
            return None
        return pr.lower if p.seat == "上射" else pr.upper

    def place(self, ev: dict[str, Any], p: Person, cite: str, verb: str, row: str | None) -> str:
        """Put the body (or bodies) of the step's actor, writing ``x``, ``y`` and, for a role
        that is several people, ``members``. Returns '' or why no place could be found."""
        x, y = ev["x"], ev["y"]
        if x is None or y is None:
            return ""
        name = p.name
        n = self.members.get(name, 1)
        facing = ev.get("facing")
        cases = self._cases(cite, p, verb) if cite in self.m.cases else ()
        if self.point.get(name) != (x, y):
            self._formed.pop(name, None)
        why = ""
        if not cases and self.point.get(name) == (x, y) and name in self.at:
            bodies = self.at[name]  # he keeps his place
        else:
            bodies, why = self._spread(name, p, n, (x, y), facing, cases, row)
            self._put(name, bodies)
        self.point[name] = (x, y)
        self.facing[name] = facing
        ev["x"], ev["y"] = bodies[0]
        if n > 1:
            ev["members"] = [
                {"name": f"{name}{i + 1}", "x": bx, "y": by, "facing": facing}
                for i, (bx, by) in enumerate(bodies)
            ]
        return why

    def keep(self, ev: dict[str, Any], p: Person) -> None:
        """A further line of the same act (the acts of a 數獲): the body as it stands."""
        got = self.at.get(p.name)
        if got is not None and self.point.get(p.name) == (ev["x"], ev["y"]):
            ev["x"], ev["y"] = got[0]

    def _spread(
        self,
        name: str,
        p: Person,
        n: int,
        pt: Vec,
        facing: str | None,
        cases: Any,
        row: str | None,
    ) -> tuple[list[Vec], str]:
        want = pt
        axis = _ROW_VECTORS[row] if row in _ROW_VECTORS else _continue_vector(facing)
        partner = self._partner(p)
        shaped = False
        for c in cases:
            if c.pair_upper is not None and partner is not None:
                shaped = True
                if c.pair_keep == p.seat and name in self.at:
                    return self.at[name], ""  # he turns where he stands (上射轉居右)
                if c.pair_keep is not None and name in self.at:
                    # only he moves to form the pair: from where he stands, by the offset,
                    # once for the passage (its other acts find him there)
                    if self._formed.get(name) == (c.cite, pt):
                        return self.at[name], ""
                    self._formed[name] = (c.cite, pt)
                    bx, by = self.at[name][0]
                    dx, dy = self.m.offset_vector(c.offset, facing) if c.offset else (0, 0)
                    want = (bx + dx, by + dy)
                    continue
                want = self._abreast(p, partner, pt, facing, c.pair_upper) or want
            elif c.offset is not None:
                dx, dy = self.m.offset_vector(c.offset, facing)
                want = (want[0] + dx, want[1] + dy)
                shaped = True
            elif c.beside is not None:
                other = self.at.get(c.beside)
                if other is None or self.point.get(c.beside) != pt:
                    continue  # beside him where both are sent to one place
                ox, oy = other[0]
                of = self.facing.get(c.beside)
                vx, vy = self._side(c.side or "right", of)
                want = (ox + vx * self.m.reach, oy + vy * self.m.reach)
                axis = (vx, vy)
                shaped = True
        if not shaped and partner is not None:
            want = self._abreast(p, partner, pt, facing, None) or want
        return self._search(name, n, want, pt, axis, facing)

    def _side(self, side: str, facing: str | None) -> Vec:
        rx, ry = right_of(facing)
        fx, fy = FACING_VECTORS.get(facing or "N", (0.0, 1.0))
        return {
            "right": (rx, ry),
            "left": (-rx, -ry),
            "front": (fx, fy),
            "behind": (-fx, -fy),
        }[side]

    def _abreast(
        self, p: Person, partner: str, pt: Vec, facing: str | None, upper: str | None
    ) -> Vec | None:
        """Beside his partner, when the partner stands at the same point (竝)."""
        if self.point.get(partner) != pt or partner not in self.at:
            return None
        if upper is None:
            ux, uy = _upper_side(facing)
        else:
            ux, uy = self._side(upper, facing)
        if p.seat != "上射":
            ux, uy = -ux, -uy
        bx, by = self.at[partner][0]
        return (bx + ux * self.m.spacing, by + uy * self.m.spacing)

    def _search(
        self, name: str, n: int, want: Vec, pt: Vec, axis: Vec, facing: str | None
    ) -> tuple[list[Vec], str]:
        sp = self.m.spacing
        ax, ay = axis
        fx, fy = FACING_VECTORS.get(facing or "N", (0.0, 1.0))
        level = self._level(*pt)
        if want != pt and level is not None and not _fits(self._level(*want), level):
            want = pt  # the text's place for him is on the other level: from the point itself
        starts = [want] if want == pt else [want, pt]
        for start in starts:
            sx, sy = start
            for i, j in _LATTICE:
                # i places along the row (negative: the other side), j rows behind (negative:
                # in front)
                hx = sx + (ax * i - fx * j) * sp
                hy = sy + (ay * i - fy * j) * sp
                slots = [(hx + ax * k * sp, hy + ay * k * sp) for k in range(n)]
                if all(self._free(name, x, y) for x, y in slots) and (
                    level is None or all(_fits(self._level(x, y), level) for x, y in slots)
                ):
                    return [(round(x, 3) + 0.0, round(y, 3) + 0.0) for x, y in slots], ""
        why = (
            f"no room for {name} within {RINGS} spacings of ({pt[0]:.1f}, {pt[1]:.1f}): every "
            f"place is taken by another body (bodies {self.m.footprint:g} 尺 across, "
            "sheli/place/bodies.yaml)"
        )
        return [want] * n, why


def _fits(got: Any, want: Any) -> bool:
    """A place beside the one named may be taken: the same level, off the 階 or on the one
    named; inside the walls and off the things if the place named is."""
    return (
        got[0] == want[0]
        and got[1] in (None, want[1])
        and (got[2] or not want[2])
        and (not got[3] or want[3])
    )


def _lattice() -> list[tuple[int, int]]:
    """The places tried around a taken one, nearest first by the row's rule (bodies.yaml
    formations, row): along the row (繼) costs 1 a place (3 beyond the fourth), a row behind
    2.5, the other side of the head 3 a place, in front 5 a row."""
    out = []
    for i in range(-RINGS, RINGS + 1):
        for j in range(-2, RINGS + 1):
            # a row of four at most before another row is begun behind it
            along = i if 0 <= i <= 4 else (4 + 3 * (i - 4) if i > 4 else -3 * i)
            cost = along + (2.5 * j if j > 0 else -5 * j)
            out.append((cost, abs(i) + abs(j), -i, -j, i, j))
    out.sort()
    return [(i, j) for *_, i, j in out]


_LATTICE = _lattice()

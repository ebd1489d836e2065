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
- where the text folds its row (若有東面者則北上 xiangshe:166), those the place named does not
  hold stand in columns facing the other way, the first against the wall at their backs, the
  next in front of it, across the 庭 (a fold); nobody is set aside beyond the back of the 堂.

Whoever already stands keeps his place: only the actor of the step moves, so no two bodies are
ever closer than the footprint (the check: :meth:`Bodies.place` says why it cannot place one).
The person's point (``Person.x``, ``.y``) is unchanged: the log gives the body, and places
named from a person (大夫之西) are resolved from it (:meth:`Bodies.keep`, docs/place.md).

>>> from sheli.engine.state import Person, World
>>> from sheli.place.bodies import load_bodies
>>> w = World()
>>> a, b = Person("甲", role="甲"), Person("乙", role="乙")
>>> bodies = Bodies(load_bodies(), {}, w, None)
>>> a.x = a.y = b.x = b.y = 0.0; a.facing = b.facing = "N"
>>> bodies.place(a, "x:1", "立", None, False)
Placed(why='', x=0.0, y=0.0, members=None)
>>> bodies.place(b, "x:1", "立", None, False)  # 東上: he stands to the west
Placed(why='', x=-3.0, y=0.0, members=None)
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any, NamedTuple

from sheli.engine.state import Person, World
from sheli.place.bodies import FACING_VECTORS, BodyCase, BodyModel, right_of

Vec = tuple[float, float]

#: 退 with no place to go: a step back where he stands (the verb's own 少退).
_SHAO_TUI = BodyCase(cite="", source="注 xiangshe:262 少退，少逡遁也", verb="退", offset="少退")


class Placed(NamedTuple):
    """Where a step's actor stands in the log: his body (``x``, ``y``) and, for a role that is
    several people, ``members`` (``[{name, x, y, facing}]``, docs/event-log.md); ``why`` is ''
    or why no place could be found."""

    why: str
    x: float | None
    y: float | None
    members: list[dict[str, Any]] | None


#: How far (in spacings) the search for a free place goes by the row's rule (:func:`_lattice`).
RINGS = 12
#: Past that (a crowd of 衆耦 larger than the place the text names holds: 100 pairs wait at the
#: 堂西), the nearest free place ring by ring, out to this many spacings, before the step is
#: refused.
FAR_RINGS = 100


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
        self._formed: dict[str, tuple[str, Vec]] = {}  # who formed a pair at which passage
        self._momentary: set[str] = set()  # who stands aside for this act only
        # (point, bodies) → how far out the last crowd there found room: a newcomer starts
        # his search two rings inside it, not at the point (a crowd of hundreds, 衆耦 at the
        # 堂西, would make every search walk through all of it)
        self._crowd: dict[tuple[float, float, int], int] = {}
        # the places tried by the searches, and what they found (:class:`_Candidates`);
        # who blocks which of them, to forget when he moves
        # actor → (his point, facing, the Placed of his last step): while he stands so
        self._placed: dict[str, tuple[float, float, str | None, Placed]] = {}
        self._seqs: dict[tuple[Any, ...], _Candidates] = {}
        # (passage, a row's head, its kind) → (how many a column holds, how many columns)
        self._column_sizes: dict[tuple[Any, ...], tuple[int, int] | None] = {}
        self._blocks: dict[str, list[tuple[_Candidates, int]]] = {}
        self._gap = model.min_gap
        self._rounded: dict[Vec, Vec] = {}  # a place → the same rounded (:meth:`_round`)
        self._cell = 2 * model.min_gap
        self._grid: dict[tuple[int, int], list[tuple[float, float, str]]] = {}
        self._gap2 = model.min_gap * model.min_gap - 1e-9
        # where a body may stand, read once from the plan (the venue's on_tang and stair_at,
        # as boxes): the 堂, the 階, the walls of the 庭, the things one does not stand on
        self._levels: dict[Vec, Any] = {}
        plat = getattr(venue, "platform", None) if getattr(venue, "on_tang", None) else None
        self._plan = plat is not None
        fixtures = getattr(venue, "fixtures", None) or {}
        self._platform = tuple(plat) if plat is not None else (0.0, 0.0, 0.0, 0.0)
        self._stairs = [
            (n, tuple(f.extent))
            for n, f in fixtures.items()
            if getattr(f, "kind", None) == "stair" and f.extent is not None
        ]
        # the foot of each 階 → where one who stands there waits: beside the 階, on its
        # outer side, a footprint clear of its edge: the 階 is the way up and down, and one
        # who comes up or down it by its side passes him (paths.yaml, stair_side)
        self._feet: dict[Vec, Vec] = {}
        for f in fixtures.values():
            ft, ex = getattr(f, "foot", None), getattr(f, "extent", None)
            if getattr(f, "kind", None) == "stair" and ft is not None and ex is not None:
                out = -1.0 if ft.x <= 0 else 1.0
                edge = ex.x0 if out < 0 else ex.x1
                self._feet[(ft.x, ft.y)] = (edge + out * model.footprint, ft.y)
        ting = fixtures.get("庭")
        e = ting.extent if ting is not None else None
        # the walls of the compound: east and west of the 庭, the 門 at its south edge
        self._walls = (e.x0, e.x1, e.y0) if e is not None else None
        # the 室 and 房 of a 庠 (their walls): one does not step aside through a wall into them
        self._rooms = [
            (n, tuple(f.extent))
            for n, f in fixtures.items()
            if n in ("室", "房") and getattr(f, "extent", None) is not None
        ]
        half = model.footprint / 2
        self._things = [
            (f.extent.x0 - half, f.extent.y0 - half, f.extent.x1 + half, f.extent.y1 + half)
            for f in fixtures.values()
            if getattr(f, "kind", None) == "vessel" and f.extent is not None
        ]

        # the same, with the margin of a point on an edge added once (:meth:`_level_at`)
        e = 1e-9
        x0, y0, x1, y1 = self._platform
        self._platform_e = (x0 - e, y0 - e, x1 + e, y1 + e)
        self._stairs_e = [(n, a - e, b - e, c + e, d - e) for n, (a, b, c, d) in self._stairs]
        things = self._things
        self._things_box = (
            (
                min(t[0] for t in things),
                min(t[1] for t in things),
                max(t[2] for t in things),
                max(t[3] for t in things),
            )
            if things
            else (1.0, 1.0, 0.0, 0.0)  # contains nothing
        )

    # ---------------------------------------------------------------- the grid of bodies
    def _put(self, name: str, bodies: list[Vec]) -> None:
        # a cell lists its bodies flat, (x, y, whose), in the order they came: a look at them
        # is one loop
        old = self.at.get(name)
        c = self._cell
        grid = self._grid
        if old is not None:
            for x, y in old:
                key = (int(x // c), int(y // c))
                cell = grid.get(key)
                if cell is not None:
                    left = [e for e in cell if e[2] != name]
                    if left:
                        cell[:] = left
                    else:
                        del grid[key]
        self.at[name] = bodies
        for x, y in bodies:
            key = (int(x // c), int(y // c))
            cell = grid.get(key)
            if cell is None:
                grid[key] = [(x, y, name)]
            else:
                cell.append((x, y, name))

    def _occupant(self, name: str, x: float, y: float) -> str | None:
        """Who other than ``name`` stands nearer than the gap to (x, y), or None."""
        # the cells are twice the gap wide: the disc of the gap around (x, y) meets at most
        # two of them each way
        c, g = self._cell, self._gap
        grid = self._grid
        gap2 = self._gap2
        ix0, ix1 = int((x - g) // c), int((x + g) // c)
        iy0, iy1 = int((y - g) // c), int((y + g) // c)
        for ix in (ix0, ix1) if ix1 != ix0 else (ix0,):
            for iy in (iy0, iy1) if iy1 != iy0 else (iy0,):
                cell = grid.get((ix, iy))
                if cell is None:
                    continue
                for ox, oy, other in cell:
                    if (ox - x) * (ox - x) + (oy - y) * (oy - y) < gap2 and other != name:
                        return other
        return None

    def _level(self, x: float, y: float) -> Any:
        """Where a body may stand, as a key: on the 堂 or not, on which 階, inside the 庭's
        walls or not, on a thing (楅, 尊) or not. A place beside another is taken only if it
        fits the place named (:func:`_fits`: one does not step aside off the 堂, onto a 階,
        through a wall or onto the 楅)."""
        if not self._plan:
            return None
        got = self._levels.get((x, y))
        if got is None:
            got = self._levels[(x, y)] = self._level_at(x, y)
        return got

    def _level_at(self, x: float, y: float) -> tuple[bool, str | None, bool, bool, str | None]:
        """:meth:`_level` of a place, not kept (the places tried by a search are many)."""
        x0, y0, x1, y1 = self._platform_e
        stair = None
        for n, sx0, sy0, sx1, sy1 in self._stairs_e:
            # the top edge of a 階 belongs to the 堂 (Venue.stair_at)
            if sx0 <= x <= sx1 and sy0 <= y < sy1:
                stair = n
                break
        walls = self._walls
        on_thing = False
        tx0, ty0, tx1, ty1 = self._things_box
        if tx0 <= x <= tx1 and ty0 <= y <= ty1:
            for a, b, c, d in self._things:
                if a <= x <= c and b <= y <= d:
                    on_thing = True
                    break
        room = None
        for n, (rx0, ry0, rx1, ry1) in self._rooms:
            if rx0 < x < rx1 and ry0 < y < ry1:
                room = n
                break
        return (
            x0 <= x <= x1 and y0 <= y <= y1,
            stair,
            # within the 庭: between its walls, north of the 門, and not beyond the back of the
            # 堂 (whence no walk goes to the 庭 but over the 堂)
            walls is None or (walls[0] <= x <= walls[1] and walls[2] <= y <= y1),
            on_thing,
            room,
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

    def place(self, p: Person, cite: str, verb: str, row: str | None, has_obj: bool) -> Placed:
        """Put the body (or bodies) of the step's actor, who stands at his point ``p.x``,
        ``p.y`` facing ``p.facing``; ``has_obj``: the act has a thing (退中 is not a 少退)."""
        x = p.x
        y = p.y
        name = p.name
        last = self._placed.get(name)
        if (
            last is not None
            and last[0] == x
            and last[1] == y
            and last[2] == p.facing
            and verb != "退"
            and cite not in self.m.cases
        ):
            # he stands where he stood, facing the same way, and no passage places him: the
            # line of his last step (kept only while nothing else moves him, below)
            return last[3]
        if x is None or y is None:
            return Placed("", x, y, None)
        pt = (x, y)
        # one who stepped aside for one act only (少退 to drink, 退) comes back with the next
        moved = self.point.get(name) != pt or name in self._momentary
        cases = self._cases(cite, p, verb) if cite in self.m.cases else ()
        if verb == "退" and not moved and not has_obj and name in self.at:
            # 退 with no place and no thing (not 退中, the taking away of xiangshe:258): he
            # steps back a little where he stands (少退, 注 xiangshe:262 少逡遁也)
            cases = (*cases, _SHAO_TUI)
        why = ""
        bodies = None if moved or cases else self.at.get(name)
        if bodies is None:
            # he moved, or the text places him at this passage: find his body's place
            if moved:
                self._formed.pop(name, None)
            if name in self._blocks:
                self._forget(name)
            bodies, why, turn = self._spread(
                name, p, self.members.get(name, 1), pt, p.facing, cases, row
            )
            if turn is not None:
                p.facing = turn  # a fold stands facing its own way (若有東面者, xiangshe:166)
            self._put(name, bodies)
            self.point[name] = pt
            if cases and any(c.verb is not None and c.offset is not None for c in cases):
                self._momentary.add(name)
            else:
                self._momentary.discard(name)
        members = None
        if len(bodies) > 1:
            members = [
                {"name": f"{name}{i + 1}", "x": bx, "y": by, "facing": p.facing}
                for i, (bx, by) in enumerate(bodies)
            ]
        got = Placed(why, bodies[0][0], bodies[0][1], members)
        if not why and name not in self._momentary:
            # shared by the lines of his steps while he stands so (read-only, as ``more``)
            self._placed[name] = (x, y, p.facing, got)
        else:
            self._placed.pop(name, None)
        return got

    def column_of(self, cite: str, head: Vec, row: str, index: int) -> tuple[int, int] | None:
        """Where the ``index``-th of a row the text names stands when the row folds into
        columns (bodies.yaml formations, column_fold: the 射位's row 東面北上, xiangshe:179):
        (column, place in it), or None where he stands in the text's row as it runs (no fold
        at ``cite``, or the row still holds him).

        >>> from sheli.engine.state import World
        >>> from sheli.place import load_venue
        >>> from sheli.place.bodies import load_bodies
        >>> b = Bodies(load_bodies(), {}, World(), load_venue("xie"))
        >>> head = (-25.121, -43.121)  # the 射位, southwest of the 司馬
        >>> b.column_of("xiangshe:179", head, "北上", 3) is None  # in the row
        True
        >>> [b.column_of("xiangshe:179", head, "北上", i) for i in (45, 46, 93)]  # to the 乏
        [None, (1, 0), (2, 1)]
        >>> b.column_of("xiangshe:18", head, "北上", 47) is None  # no fold there
        True
        """
        cols = self._columns(cite, head, row)
        if cols is None:
            return None
        per, n = cols
        if index < per:
            return None
        if index >= per * n:
            # the columns hold no more: the text's row runs on south from the first one's end
            return (0, index - per * (n - 1))
        return (index // per, index % per)

    def column_step(self, cite: str) -> Vec | None:
        """The way from one column of a folded row to the next (bodies.yaml column_fold,
        next: W → one spacing west), in 尺; None where the row at ``cite`` does not fold.

        >>> from sheli.engine.state import World
        >>> from sheli.place.bodies import load_bodies
        >>> Bodies(load_bodies(), {}, World(), None).column_step("xiangshe:179")
        (-3.0, 0.0)
        """
        cf = self.m.column_folds.get(cite)
        if cf is None:
            return None
        vx, vy = FACING_VECTORS[cf.next]
        return (vx * self.m.spacing + 0.0, vy * self.m.spacing + 0.0)

    def _columns(self, cite: str, head: Vec, row: str) -> tuple[int, int] | None:
        """How many a column of the folded row at ``cite`` holds and how many columns there
        are, from the row's head to the 乏 (short_of) or the walls of the 庭; None: no fold."""
        step = self.column_step(cite)
        if step is None or row not in _ROW_VECTORS or self._walls is None:
            return None
        key = (cite, head, row)
        got = self._column_sizes.get(key)
        if got is not None:
            return got
        cf = self.m.column_folds[cite]
        sp, h = self.m.spacing, self.m.footprint / 2
        ux, uy = _ROW_VECTORS[row]
        wx0, wx1, wy0 = self._walls
        court = (wx0 + h, wy0 + h, wx1 - h, self._platform[1])
        fx = (getattr(self.venue, "fixtures", None) or {}).get(cf.short_of or "")
        stop = None if fx is None else (fx.x, fx.y)

        def fits(q: Vec) -> bool:
            # within the 庭, and a spacing short of the 乏 along the row (none at it or past it)
            if not _inside(q, court):
                return False
            return stop is None or (stop[0] - q[0]) * ux + (stop[1] - q[1]) * uy >= sp - 1e-9

        def at(k: int, c: int) -> Vec:
            return (head[0] + ux * k * sp + step[0] * c, head[1] + uy * k * sp + step[1] * c)

        per = 0
        while fits(at(per, 0)):
            per += 1
        n = 0
        while per and fits(at(0, n)):
            n += 1
        got = self._column_sizes[key] = None if per == 0 else (per, max(n, 1))
        return got

    def keep(self, p: Person) -> tuple[float | None, float | None]:
        """Where ``p``'s body stands (his point if he moved since it was placed): for a further
        line of the same act (the acts of a 數獲), and for places named from him (大夫之西)."""
        got = self.at.get(p.name)
        if got is not None and self.point.get(p.name) == (p.x, p.y):
            return got[0]
        return p.x, p.y

    def _spread(
        self,
        name: str,
        p: Person,
        n: int,
        pt: Vec,
        facing: str | None,
        cases: Any,
        row: str | None,
    ) -> tuple[list[Vec], str, str | None]:
        want = pt
        axis = _ROW_VECTORS[row] if row in _ROW_VECTORS else _continue_vector(facing)
        partner = None if p.pair is None or p.seat is None else self._partner(p)
        shaped = False
        lattice = None
        fold = None
        for c in cases:
            if c.row is not None:
                # the text's row: each continues it in his order, pairs not abreast; in an
                # area (堂西) the row begins at its 上 edge
                axis = _ROW_VECTORS[c.row]
                want = self._row_head(p, pt, axis)
                lattice = _ROW_LATTICE
                if c.fold_facing is not None and c.fold_row is not None and n == 1:
                    fold = self._fold(p, c.fold_facing, c.fold_row)
                shaped = True
            elif c.pair_upper is not None and partner is not None:
                shaped = True
                if c.pair_keep == p.seat and name in self.at:
                    return self.at[name], "", None  # he turns where he stands (上射轉居右)
                if c.pair_keep is not None and name in self.at:
                    # only he moves to form the pair: from where he stands, by the offset,
                    # once for the passage (its other acts find him there)
                    if self._formed.get(name) == (c.cite, pt):
                        return self.at[name], "", None
                    self._formed[name] = (c.cite, pt)
                    bx, by = self.at[name][0]
                    dx, dy = self.m.offset_vector(c.offset, facing) if c.offset else (0, 0)
                    want = (bx + dx, by + dy)
                    continue
                want = self._abreast(p, partner, pt, facing, c.pair_upper) or want
            elif c.offset is not None:
                dx, dy = self.m.offset_vector(c.offset, facing)
                if c is _SHAO_TUI:
                    bx, by = self.at[name][0]  # from where he stands
                    want = (bx + dx, by + dy)
                else:
                    if want == pt and pt in self._feet:
                        # at the foot of a 階: from beside it (one does not step back onto
                        # the 階, the way up: 降階耦少退 xiangshe:188)
                        want = pt = self._feet[pt]
                    want = (want[0] + dx, want[1] + dy)
                shaped = True
            elif c.beside is not None:
                other = self.at.get(c.beside)
                if other is None or self.point.get(c.beside) != pt:
                    continue  # beside him where both are sent to one place
                ox, oy = other[0]
                who = self.world.person(c.beside)
                of = who.facing if who is not None else None
                vx, vy = self._side(c.side or "right", of)
                want = (ox + vx * self.m.reach, oy + vy * self.m.reach)
                axis = (vx, vy)
                shaped = True
        if not shaped and partner is not None:
            want = self._abreast(p, partner, pt, facing, None) or want
        if not shaped and want == pt and pt in self._feet:
            # one who stands at the foot of a 階 stands beside it, not on the way up
            want = pt = self._feet[pt]
        if fold is not None:
            got = self._search_fold(name, want, axis, facing, fold)
            if got is not None:
                return got
        bodies, why = self._search(name, n, want, pt, axis, facing, lattice)
        return bodies, why, None

    def _fold(self, p: Person, facing: str, row: str) -> tuple[Any, ...] | None:
        """The boxes of a fold (bodies.yaml formations, fold) at the area ``p`` is sent to:
        where a body's middle may stand in the text's row (the area), and in the columns (the
        庭 within its walls, as far north as the area goes); None without a plan."""
        f = (getattr(self.venue, "fixtures", None) or {}).get(p.at_key or "")
        e = getattr(f, "extent", None)
        if e is None or getattr(f, "kind", None) != "area" or self._walls is None:
            return None
        h = self.m.footprint / 2
        wx0, wx1, wy0 = self._walls
        area = (e.x0 + h, e.y0 + h, e.x1 - h, e.y1 - h)
        court = (wx0 + h, wy0 + h, wx1 - h, e.y1 - h)
        return (facing, _ROW_VECTORS[row], area, court)

    def _search_fold(
        self, name: str, head: Vec, axis: Vec, facing: str | None, fold: tuple[Any, ...]
    ) -> tuple[list[Vec], str, str | None] | None:
        """The first free place of a fold from the row's head (:func:`_fold_places`), and the
        way he faces there (None: the row's own); None if the 庭 is full."""
        f = FACING_VECTORS.get(facing or "N", (0.0, 1.0))
        level = self._level(*head)
        seq = self._candidates(_BY_FOLD, head, axis, f, 1, level, fold)
        got = self._first_free(name, seq, 0)
        if got < 0:
            return None
        return self._took(name, seq, got), "", seq.turn[got]

    def _row_head(self, p: Person, pt: Vec, axis: Vec) -> Vec:
        """The head of a row the text names, where the place is an area (堂西 …): at its edge
        on the row's 上 side (東上: its east edge), half a spacing in; else the point."""
        f = (getattr(self.venue, "fixtures", None) or {}).get(p.at_key or "")
        e = getattr(f, "extent", None)
        if f is None or getattr(f, "kind", None) != "area" or e is None:
            return pt
        half = self.m.spacing / 2
        ax, ay = axis
        x = (e.x1 - half if ax < 0 else e.x0 + half) if ax else pt[0]
        y = (e.y1 - half if ay < 0 else e.y0 + half) if ay else pt[1]
        return (x, y)

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
        # across the facing from his partner's body; along it, at the place named (the
        # partner may stand 少退 of it, xiangshe:188)
        bx, by = self.at[partner][0]
        rx, ry = right_of(facing)
        across = (bx - pt[0]) * rx + (by - pt[1]) * ry
        sp = self.m.spacing
        return (pt[0] + across * rx + ux * sp, pt[1] + across * ry + uy * sp)

    def _forget(self, name: str) -> None:
        """He is about to move: what the searches learnt of the places his body blocked is
        no longer known."""
        for seq, i in self._blocks.pop(name, ()):
            if seq.blocked.get(i) == name:
                del seq.blocked[i]
                if i < seq.lo:
                    seq.lo = i

    def _first_free(self, name: str, seq: _Candidates, start: int) -> int:
        """The first place of ``seq`` from ``start`` on where his bodies fit and no other body
        stands, or -1. What each try learns is kept: a place found taken stays taken while the
        body that took it stays (:meth:`_forget`), so a crowd is walked once, not by every
        newcomer."""
        blocked = seq.blocked
        slots = seq.slots
        level, fit = seq.level, seq.fit
        i = start if start > seq.lo else seq.lo
        from_lo = start <= seq.lo
        while True:
            while i >= len(slots):
                if not seq.extend():
                    return -1
            if i in blocked:
                i += 1
                continue
            if level is not None and i not in fit:
                # a place off the level of the point named (:func:`_fits`) is never taken
                if not all(_fits(self._level_at(x, y), level) for x, y in slots[i]):
                    blocked[i] = None
                    i += 1
                    continue
                fit.add(i)
            who = self._taken_by(name, slots[i])
            if who is None:
                break
            blocked[i] = who
            self._blocks.setdefault(who, []).append((seq, i))
            i += 1
        if from_lo:
            seq.lo = i
        return i

    def _taken_by(self, name: str, slots: tuple[Vec, ...]) -> str | None:
        """Who stands where one of ``slots`` would stand (nearer than the gap), or None."""
        for x, y in slots:
            other = self._occupant(name, x, y)
            if other is not None:
                return other
        return None

    def _candidates(
        self,
        kind: int,
        start: Vec,
        axis: Vec,
        f: Vec,
        n: int,
        level: Any,
        fold: tuple[Any, ...] | None = None,
    ) -> Any:
        key = (kind, start, axis, f, n, level, fold)
        seq = self._seqs.get(key)
        if seq is None:
            # the rings round a place within the 庭 keep only the places within it (those
            # outside never fit its level): a crowd's search goes out to the walls, not beyond
            w = self._walls
            clip = (
                (w[0], w[2], w[1], self._platform[3])
                if kind == _BY_RING and w is not None and level is not None and level[2]
                else None
            )
            seq = self._seqs[key] = _Candidates(
                kind, start, axis, f, n, level, self.m.spacing, fold, clip
            )
        return seq

    def _search(
        self,
        name: str,
        n: int,
        want: Vec,
        pt: Vec,
        axis: Vec,
        facing: str | None,
        lattice: list[tuple[int, int]] | None = None,
    ) -> tuple[list[Vec], str]:
        if self._plan:  # self._level(*pt), in line: a search for each step that moves
            level = self._levels.get(pt)
            if level is None:
                level = self._levels[pt] = self._level_at(*pt)
        else:
            level = None
        if want != pt and level is not None and not _fits(self._level(*want), level):
            want = pt  # the text's place for him is on the other level: from the point itself
        if n == 1 and self._occupant(name, *want) is None:
            # his place fits the level: it is the point, or it was found to fit it above
            return [self._round(want)], ""
        f = FACING_VECTORS.get(facing or "N", (0.0, 1.0))
        crowd_key = (pt[0], pt[1], n)
        crowd = self._crowd.get(crowd_key, 0)
        starts = [] if crowd else [want] if want == pt else [want, pt]
        kind = _BY_ROW if lattice is not None else _BY_LATTICE
        for start in starts:
            # i places along the row (negative: the other side), j rows behind (negative: in
            # front), in the order of the row's rule (_lattice)
            seq = self._candidates(kind, start, axis, f, n, level)
            got = self._first_free(name, seq, 0)
            if got >= 0:
                return self._took(name, seq, got), ""
        # a crowd that has thinned (those who stood there went to shoot) is searched from
        # nearer in, two rings a newcomer, back to the row's own rule once it is small again
        seq = self._candidates(_BY_RING, pt, axis, f, n, level)
        first = max(RINGS + 1, crowd - 2)
        got = self._first_free(name, seq, seq.first_of(first)) if first <= FAR_RINGS else -1
        if got < 0 and first > RINGS + 1:
            # nothing out there (the 庭 ends at its walls and the back of the 堂): nearer in,
            # where those who stood there have gone
            got = self._first_free(name, seq, seq.first_of(RINGS + 1))
        if got >= 0:
            r = seq.ring[got]
            self._crowd[crowd_key] = r if r > RINGS + 1 else 0
            return self._took(name, seq, got), ""
        why = (
            f"no room for {name} within {FAR_RINGS} spacings of ({pt[0]:.1f}, {pt[1]:.1f}): every "
            f"place is taken by another body (bodies {self.m.footprint:g} 尺 across, "
            "sheli/place/bodies.yaml)"
        )
        return [want] * n, why

    def _took(self, name: str, seq: _Candidates, i: int) -> list[Vec]:
        """He takes the place ``i`` of ``seq``: it is taken while he stands there."""
        seq.blocked[i] = name
        self._blocks.setdefault(name, []).append((seq, i))
        if seq.lo == i:
            seq.lo = i + 1
        return [self._round(q) for q in seq.slots[i]]

    def _round(self, q: Vec) -> Vec:
        """A place as the log gives it, to the thousandth of a 尺 (kept: round is slow, and
        the same places come again)."""
        got = self._rounded.get(q)
        if got is None:
            got = self._rounded[q] = (round(q[0], 3) + 0.0, round(q[1], 3) + 0.0)
        return got


_BY_LATTICE, _BY_ROW, _BY_RING, _BY_FOLD = 0, 1, 2, 3


class _Candidates:
    """The places tried, in order, for ``n`` bodies in a row along ``axis`` from ``start``
    (a body facing ``f``): made as far as a search has needed them, with what the searches
    learnt — ``blocked`` (place → the body standing on it), ``lo`` (every place before it is
    blocked or does not fit the level)."""

    __slots__ = (
        "axis",
        "blocked",
        "clip",
        "f",
        "fit",
        "kind",
        "level",
        "lo",
        "n",
        "places",
        "ring",
        "ring_first",
        "rings_made",
        "slots",
        "sp",
        "start",
        "turn",
    )

    def __init__(
        self,
        kind: int,
        start: Vec,
        axis: Vec,
        f: Vec,
        n: int,
        level: Any,
        sp: float,
        fold: tuple[Any, ...] | None = None,
        clip: tuple[float, float, float, float] | None = None,
    ) -> None:
        self.kind, self.start, self.axis, self.f, self.n, self.level = (
            kind,
            start,
            axis,
            f,
            n,
            level,
        )
        self.sp = sp
        self.slots: list[tuple[Vec, ...]] = []
        self.ring: list[int] = []  # for the rings: the ring of each place
        self.blocked: dict[int, str | None] = {}  # None: not on his level, never free
        self.fit: set[int] = set()  # the places found on his level
        self.lo = 0
        self.turn: list[str | None] = []  # for a fold: the way he faces at each place
        self.clip = clip  # for the rings: the box the places are kept within
        self.rings_made = RINGS  # for the rings: the last ring made
        self.ring_first: dict[int, int] = {}  # for the rings: where each ring begins
        self.places = (
            _fold_places(start, axis, f, fold[0], fold[1], fold[2], fold[3], sp)
            if kind == _BY_FOLD and fold is not None
            else None
        )

    def extend(self) -> bool:
        """Make the next places (a ring at a time for the rings); False when there are none."""
        k = len(self.slots)
        if self.places is not None:
            for _ in range(64):
                got = next(self.places, None)
                if got is None:
                    return len(self.slots) > k
                self.slots.append((got[0],))
                self.turn.append(got[1])
            return True
        if self.kind == _BY_RING:
            r = self.rings_made + 1
            if r > FAR_RINGS:
                return False
            self.rings_made = r
            self.ring_first[r] = k
            cells = _ring(r)
        else:
            lattice = _ROW_LATTICE if self.kind == _BY_ROW else _LATTICE
            if k >= len(lattice):
                return False
            cells = lattice[k : k + max(4, k)]  # most searches end at the first few
            r = 0
        sx, sy = self.start
        ax, ay = self.axis
        fx, fy = self.f
        sp, n = self.sp, self.n
        clip = self.clip
        for i, j in cells:
            hx = sx + (ax * i - fx * j) * sp
            hy = sy + (ay * i - fy * j) * sp
            if n == 1:
                slot: tuple[Vec, ...] = ((hx, hy),)
            else:
                slot = tuple((hx + ax * q * sp, hy + ay * q * sp) for q in range(n))
            if clip is not None and not all(_inside(q, clip) for q in slot):
                continue
            self.slots.append(slot)
            self.ring.append(r)
        return True

    def first_of(self, r: int) -> int:
        """Where ring ``r`` begins among the places of the rings (made as far as that)."""
        while self.rings_made < r and self.extend():
            pass
        return self.ring_first.get(r, len(self.slots))


def _inside(p: Vec, box: tuple[float, float, float, float]) -> bool:
    return box[0] - 1e-9 <= p[0] <= box[2] + 1e-9 and box[1] - 1e-9 <= p[1] <= box[3] + 1e-9


def _fold_places(
    head: Vec,
    axis: Vec,
    f: Vec,
    facing: str,
    col: Vec,
    area: tuple[float, float, float, float],
    court: tuple[float, float, float, float],
    sp: float,
) -> Iterator[tuple[Vec, str | None]]:
    """The places of a fold (bodies.yaml formations, fold), in the order they are taken, each
    with the way one faces there (None: the row's own): the text's row from ``head`` along
    ``axis``, rows behind it (away from ``f``, the row's facing) while within ``area``; then
    columns facing ``facing`` that run along ``col`` (北上: south), the first at the far end
    of the row one spacing in front of it, each next one a spacing further ``facing``, while
    within ``court``. The places on the 堂, a 階 or a thing are left out by the search.

    >>> area, court = (-44.0, -3.0, -25.0, 31.0), (-44.0, -313.0, 44.0, 31.0)
    >>> got = list(_fold_places((-25.5, 16.0), (-1.0, 0.0), (0.0, -1.0), "E", (0.0, -1.0),
    ...                         area, court, 3.0))
    >>> got[0], got[7], got[41]  # the row 南面東上, then the rows behind it (north)
    (((-25.5, 16.0), None), ((-25.5, 19.0), None), ((-43.5, 31.0), None))
    >>> got[42], got[43], got[151]  # by the west wall 東面北上, then the next column
    (((-43.5, 13.0), 'E'), ((-43.5, 10.0), 'E'), ((-40.5, 13.0), 'E'))
    >>> len(got), max(y for (x, y), _ in got) <= 31.0
    (3312, True)
    """

    def at(p: Vec, v: Vec, k: int) -> Vec:
        return (round(p[0] + v[0] * k * sp, 6) + 0.0, round(p[1] + v[1] * k * sp, 6) + 0.0)

    along = 0
    while _inside(at(head, axis, along), area):
        along += 1
    back = (-f[0], -f[1])
    rows = 0
    while along and _inside(at(head, back, rows), area):
        rows += 1
    for j in range(rows):
        for i in range(along):
            yield at(at(head, axis, i), back, j), None
    far = at(head, axis, max(along - 1, 0))
    first = at(far, f, 1)
    fx, fy = FACING_VECTORS[facing]
    step = (round(fx), round(fy))
    c = 0
    while True:
        base = at(first, step, c)
        # the columns go on while their line is within the 庭 across their facing
        if not _inside((base[0] if step[0] else court[0], base[1] if step[1] else court[1]), court):
            return
        k = 0
        while True:
            q = at(base, col, k)
            if not _inside((q[0] if col[0] else court[0], q[1] if col[1] else court[1]), court):
                break
            if _inside(q, court):
                yield q, facing
            k += 1
        c += 1


@cache
def _ring(r: int) -> list[tuple[int, int]]:
    """The places ``r`` spacings out (along the row ``i``, behind ``j``): those nearest the row
    first, in front of it last.

    >>> _ring(1)[:3], _ring(1)[-1], len(_ring(2))
    ([(-1, 0), (1, 0), (0, 1)], (1, -1), 16)
    """
    # the edge of the square only (r a side from the centre), each place once
    side = range(-r, r + 1)
    cells = [(i, j) for i in side for j in ((-r, r) if r else (0,))]
    cells += [(i, j) for i in ((-r, r) if r else ()) for j in range(-r + 1, r)]
    return sorted(cells, key=lambda c: (c[1] < 0, abs(c[1]), abs(c[0]), c[0]))


def _fits(got: Any, want: Any) -> bool:
    """A place beside the one named may be taken: the same level, off the 階 or on the one
    named, on the same side of the walls (within the 庭, or outside the 門 or beyond the back
    of the 堂), off the things if the place named is, in the 室 or 房 only if the place named
    is."""
    return (
        got[0] == want[0]
        and got[1] in (None, want[1])
        and got[2] == want[2]
        and (not got[3] or want[3])
        and got[4] == want[4]
    )


def _lattice() -> list[tuple[int, int]]:
    """The places tried around a taken one, nearest first by the row's rule (bodies.yaml
    formations, row): along the row (繼) costs 1 a place (3 beyond the fourth), a row behind
    2.5, the other side of the head 3 a place, in front (before those who stand) 20 a row."""
    out = []
    for i in range(-RINGS, RINGS + 1):
        for j in range(-2, RINGS + 1):
            # a row of four at most before another row is begun behind it
            along = i if 0 <= i <= 4 else (4 + 3 * (i - 4) if i > 4 else -3 * i)
            # in front of those already standing only when nothing else is left
            cost = along + (2.5 * j if j > 0 else -20 * j)
            out.append((cost, abs(i) + abs(j), -i, -j, i, j))
    out.sort()
    return [(i, j) for *_, i, j in out]


_LATTICE = _lattice()


#: The places tried for one who joins a row the text names: along it as far as it goes, then
#: the next row behind it, from its head again.
_ROW_LATTICE = [(i, j) for j in range(RINGS + 1) for i in range(2 * RINGS + 1)]

"""The plan of a venue: points, fixtures, and the relations the text uses to place people.

Unit 尺; x runs east, y runs north. A :class:`Venue` is built from a YAML file in
``sheli/place/data`` by :func:`sheli.place.load_venue`; this module holds the geometry.

>>> from sheli.place import load_venue
>>> v = load_venue("xie")
>>> v.point("右物").y == v.point("棟").y       # 序則物當棟 (xiangshe:339)
True
>>> p = v.resolve({"southwest_of": "中"})
>>> p.x < v.point("中").x and p.y < v.point("中").y
True
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import msgspec

from sheli.errors import SheliError

__all__ = [
    "DIRECTIONS",
    "ROWS",
    "Extent",
    "Fixture",
    "LedgerRow",
    "Param",
    "PlaceError",
    "Point",
    "Venue",
]


class PlaceError(SheliError, ValueError):
    """A place that cannot be found or computed: an unknown name, a malformed relation.

    >>> from sheli.place import load_venue
    >>> try:
    ...     load_venue("xie").point("西楹西")
    ... except PlaceError as e:
    ...     print("西楹" in str(e))
    True
    """


class _Unknown(PlaceError):
    """No fixture or person called ``name``: its message (the near names, by difflib) is made
    only when it is shown; a caller that catches it (a word that is not a place) pays nothing."""

    def __init__(self, venue: Venue, name: str, people: Sequence[str] = ()) -> None:
        super().__init__(name)
        self.venue, self.name, self.people = venue, name, people

    def __str__(self) -> str:
        return self.venue._unknown(self.name, people=self.people)

    def __reduce__(self) -> tuple[Any, ...]:
        return (PlaceError, (str(self),))


class Point(NamedTuple):
    """A point on the plan, in 尺 (x east, y north).

    >>> Point(3, 4).dist(Point(0, 0))
    5.0
    """

    x: float
    y: float

    def dist(self, other: Point) -> float:
        """Straight-line distance in 尺."""
        return math.hypot(self.x - other.x, self.y - other.y)

    def offset(self, dx: float, dy: float) -> Point:
        """This point moved by (dx, dy).

        >>> Point(1, 1).offset(2, -1)
        Point(x=3, y=0)
        """
        return Point(self.x + dx, self.y + dy)


class Extent(NamedTuple):
    """An axis-aligned box (x0 ≤ x1, y0 ≤ y1); a line when one side is zero.

    >>> Extent(0, 0, 2, 1).contains(Point(1, 0.5))
    True
    """

    x0: float
    y0: float
    x1: float
    y1: float

    def contains(self, p: Point, tol: float = 1e-9) -> bool:
        """Whether p lies in the box (edges included)."""
        return self.x0 - tol <= p.x <= self.x1 + tol and self.y0 - tol <= p.y <= self.y1 + tol

    @property
    def centre(self) -> Point:
        return Point((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)


class Fixture(msgspec.Struct, frozen=True):
    """A named place or object of the plan, named as the text names it.

    ``source`` cites the passage(s) the position follows from (``xiangshe:8``,
    ``xiangshe:12 注``); ``assumption`` is true when part of the position is not fixed by the
    text, and ``note`` then says what is assumed and why. ``foot``/``top`` are set for 階.

    >>> from sheli.place import load_venue
    >>> f = load_venue("xie").fixtures["洗"]
    >>> f.source.startswith("xiangshe:8"), f.on_tang
    (True, False)
    """

    name: str
    x: float
    y: float
    source: str
    kind: str = "point"
    on_tang: bool = False
    note: str = ""
    assumption: bool = False
    extent: Extent | None = None
    foot: Point | None = None
    top: Point | None = None
    rule: str = ""  # how the position was computed, as written in the data file
    assumed: str = ""  # the words of the assumption (empty when the text fixes it all)

    @property
    def point(self) -> Point:
        return Point(self.x, self.y)


class Param(msgspec.Struct, frozen=True):
    """A named number of the plan (笴, 弓, 侯道, 堂深 …) with its source or assumption."""

    name: str
    value: float
    source: str = ""
    assumption: str = ""
    rule: str = ""


class LedgerRow(msgspec.Struct, frozen=True):
    """One line of the ledger: where a fixture is and why."""

    name: str
    x: float
    y: float
    source: str
    assumption: bool
    note: str
    kind: str = "point"
    rule: str = ""
    assumed: str = ""

    def as_dict(self, metre_per_chi: float | None = None) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "x": round(self.x, 3),
            "y": round(self.y, 3),
            "kind": self.kind,
            "source": self.source,
            "assumption": self.assumption,
            "assumed": self.assumed,
            "note": self.note,
            "rule": self.rule,
        }
        if metre_per_chi is not None:
            d["x_m"] = round(self.x * metre_per_chi, 3)
            d["y_m"] = round(self.y * metre_per_chi, 3)
        return d


# Unit vectors of the direction words the text uses (之東, 之西南 …).
_S2 = math.sqrt(0.5)
DIRECTIONS: dict[str, tuple[float, float]] = {
    "north": (0.0, 1.0),
    "south": (0.0, -1.0),
    "east": (1.0, 0.0),
    "west": (-1.0, 0.0),
    "northeast": (_S2, _S2),
    "northwest": (-_S2, _S2),
    "southeast": (_S2, -_S2),
    "southwest": (-_S2, -_S2),
}
_ZH_DIR = {
    "north": "北",
    "south": "南",
    "east": "東",
    "west": "西",
    "northeast": "東北",
    "northwest": "西北",
    "southeast": "東南",
    "southwest": "西南",
}
_COMPASS = {
    "north": "N",
    "south": "S",
    "east": "E",
    "west": "W",
    "northeast": "NE",
    "northwest": "NW",
    "southeast": "SE",
    "southwest": "SW",
}
# A row 北上 has its head (index 0) at the north and runs south, and so on.
ROWS: dict[str, tuple[float, float]] = {
    "北上": (0.0, -1.0),
    "南上": (0.0, 1.0),
    "東上": (-1.0, 0.0),
    "西上": (1.0, 0.0),
}
_RELATION_KEYS = (
    *(f"{d}_of" for d in DIRECTIONS),
    "foot_of",
    "top_of",
    "top_step_of",
    "front_of",
    "between",
    "row",
    "x_of",
    "y_of",
    "x",
    "y",
)
TOP_STEP = 0.5  # 尺 below the 堂廉: where one stands on the top step of a 階 (盡階)
STEP = 6.0  # 尺 per 步, for {"…_of": X, "steps": n}; xiangshe:12 疏 (歩六尺)


class Venue(msgspec.Struct):
    """A venue: its fixtures, parameters and the relations computed on its plan.

    Build one with :func:`sheli.place.load_venue`.

    >>> from sheli.place import load_venue
    >>> v = load_venue("xiang")
    >>> v.key, v.point("右物").y == v.point("楣").y   # 堂則物當楣 (xiangshe:339)
    ('xiang', True)
    """

    key: str
    title: str
    fixtures: dict[str, Fixture]
    params: dict[str, Param] = msgspec.field(default_factory=dict)
    offsets: dict[str, Param] = msgspec.field(default_factory=dict)
    aliases: dict[str, str] = msgspec.field(default_factory=dict)  # other names of fixtures
    ambiguous: dict[str, list[str]] = msgspec.field(default_factory=dict)  # names that mean several
    metre_per_chi: Param = msgspec.field(default_factory=lambda: Param("尺", 0.231))
    hou: dict[str, Any] = msgspec.field(
        default_factory=dict
    )  # the 侯 in elevation (xiangshe:372–377)
    objects: dict[str, dict[str, Any]] = msgspec.field(
        default_factory=dict
    )  # 楅, 中, 算, 扑 … sizes
    description: str = ""
    venue_aliases: tuple[str, ...] = ()

    # ------------------------------------------------------------------ look-up
    @property
    def stairs(self) -> dict[str, Fixture]:
        """The 階 (西階, 阼階), each with ``foot`` and ``top`` points."""
        return {n: f for n, f in self.fixtures.items() if f.kind == "stair"}

    def offset(self, name: str) -> float:
        """A default offset of the relations ('near', 'row', 'front', 'top'), in 尺."""
        return self.offsets[name].value

    def fixture(self, name: str) -> Fixture:
        """The fixture called ``name`` (or one of its other names).

        >>> from sheli.place import load_venue
        >>> load_venue("xie").fixture("上物").name     # 上射's 物 is the 右物
        '右物'
        """
        if name in self.fixtures:
            return self.fixtures[name]
        if name in self.aliases:
            return self.fixtures[self.aliases[name]]
        if name in self.ambiguous:
            opts = "、".join(self.ambiguous[name])
            raise PlaceError(f"{self.key}: '{name}' is ambiguous here; say which: {opts}")
        raise _Unknown(self, name)

    def _unknown(self, name: str, people: Iterable[str] = ()) -> str:
        known = [*self.fixtures, *self.aliases, *people]
        near = difflib.get_close_matches(name, known, n=5, cutoff=0.3)
        near += [k for k in known if (name in k or k in name) and k not in near][:5]
        hint = f" Near names: {'、'.join(near)}." if near else ""
        return (
            f"{self.key} ({self.title}): no fixture or person named '{name}'.{hint} "
            "`sheli place --venue " + self.key + "` lists them all."
        )

    def point(self, name: str) -> Point:
        """The point of a fixture, in 尺.

        >>> from sheli.place import load_venue
        >>> v = load_venue("xie")
        >>> round(v.point("侯").dist(v.point("右物").offset(3, 0)))   # 侯道五十弓
        300
        """
        return self.fixture(name).point

    # ------------------------------------------------------------------ relations
    def resolve(self, ref: Any, people: Mapping[str, Point] | None = None) -> Point:
        """Compute a place: a fixture or person name, or a relation the text uses.

        Relations (nest freely): ``{"southwest_of": X}`` and the other seven directions,
        with optional ``"by"`` (尺) or ``"steps"`` (步) — otherwise the venue's ``near``
        offset, measured from X's edge; ``{"foot_of": 階}`` (及階), ``{"front_of": 階}``
        (階前), ``{"top_of": 階}`` (階上), ``{"top_step_of": 階}`` (盡階: on its top step, not
        on the 堂); ``{"between": [A, B]}``;
        ``{"row": "北上", "anchor": X, "index": i}``; ``{"x_of": A, "y_of": B}`` (西當A、南當B),
        either half may be a number ``"x"``/``"y"``; ``{"x": .., "y": ..}``.

        >>> from sheli.place import load_venue
        >>> v = load_venue("xie")
        >>> v.resolve({"row": "北上", "anchor": "堂西", "index": 2}).y < v.point("堂西").y
        True
        >>> v.resolve("司射", people={"司射": Point(1, 2)})
        Point(x=1.0, y=2.0)
        """
        return self._resolve(ref, people or {}, depth=0)

    def _resolve(self, ref: Any, people: Mapping[str, Point], depth: int) -> Point:
        if depth > 20:
            raise PlaceError(f"{self.key}: relation nested too deeply: {ref!r}")
        if isinstance(ref, Point):
            return ref
        if isinstance(ref, str):
            if ref in people:
                try:
                    p = people[ref]
                    return Point(float(p[0]), float(p[1]))
                except (KeyError, TypeError, IndexError, ValueError):
                    raise PlaceError(f"{self.key}: {ref} has no place yet") from None
            if ref in self.fixtures or ref in self.aliases or ref in self.ambiguous:
                return self.fixture(ref).point
            raise _Unknown(self, ref, tuple(people))
        if isinstance(ref, (tuple, list)) and len(ref) == 2 and all(_is_num(c) for c in ref):
            return Point(float(ref[0]), float(ref[1]))
        if not isinstance(ref, Mapping):
            raise PlaceError(f"{self.key}: cannot read a place from {ref!r}")
        keys = set(ref)
        sub = lambda r: self._resolve(r, people, depth + 1)  # noqa: E731

        for d, (ux, uy) in DIRECTIONS.items():
            k = f"{d}_of"
            if k in ref:
                self._only(ref, {k, "by", "steps"})
                dist = self._distance(ref)
                x0, y0, x1, y1 = self._box(ref[k], people, depth)
                # measure from X's edge on the side the relation names
                bx = x1 if ux > 0 else x0 if ux < 0 else (x0 + x1) / 2
                by = y1 if uy > 0 else y0 if uy < 0 else (y0 + y1) / 2
                return Point(bx + ux * dist, by + uy * dist)
        if keys & {"foot_of", "top_of", "front_of"}:
            (k,) = keys & {"foot_of", "top_of", "front_of"}
            self._only(ref, {k})
            st = self._stair(ref[k])
            assert st.foot is not None and st.top is not None
            if k == "foot_of":
                return st.foot
            if k == "top_of":
                return st.top
            return st.foot.offset(0, -self.offset("front"))
        if "top_step_of" in ref:
            # 升自西階盡階不升堂 (xiangshe:190, 202): up the 階 to its last step, not onto
            # the 堂. The number of 等 is not modelled: the point is half a 尺 below the 堂廉,
            # on the tread of the top step (an assumption: the depth of a tread is not given).
            self._only(ref, {"top_step_of"})
            st = self._stair(ref["top_step_of"])
            assert st.extent is not None
            return Point(st.x, st.extent.y1 - TOP_STEP)
        if "between" in ref:
            self._only(ref, {"between"})
            pair = ref["between"]
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise PlaceError(f"{self.key}: between needs two places, got {pair!r}")
            a, b = sub(pair[0]), sub(pair[1])
            return Point((a.x + b.x) / 2, (a.y + b.y) / 2)
        if "row" in ref:
            self._only(ref, {"row", "anchor", "index", "spacing"})
            kind = ref["row"]
            if kind not in ROWS:
                raise PlaceError(
                    f"{self.key}: unknown row '{kind}'; rows are {'、'.join(ROWS)} "
                    "(the text's 北上, 東上 …: where the head of the row is)"
                )
            if "anchor" not in ref:
                raise PlaceError(f"{self.key}: a row needs an anchor (the place of its head)")
            idx = ref.get("index", 0)
            if not isinstance(idx, int) or idx < 0:
                raise PlaceError(f"{self.key}: row index must be 0, 1, 2 … (got {idx!r})")
            sp = ref.get("spacing", self.offset("row"))
            if not _is_num(sp) or sp <= 0:
                raise PlaceError(f"{self.key}: row spacing must be a positive number of 尺")
            head = sub(ref["anchor"])
            ux, uy = ROWS[kind]
            return head.offset(ux * idx * sp, uy * idx * sp)
        if keys & {"x_of", "y_of", "x", "y"}:
            self._only(ref, {"x_of", "y_of", "x", "y"})
            if ("x_of" in ref) == ("x" in ref) or ("y_of" in ref) == ("y" in ref):
                raise PlaceError(
                    f"{self.key}: give the east–west place once (x_of or x) and the "
                    f"north–south place once (y_of or y): {dict(ref)!r}"
                )
            x = sub(ref["x_of"]).x if "x_of" in ref else self._num(ref["x"], "x")
            y = sub(ref["y_of"]).y if "y_of" in ref else self._num(ref["y"], "y")
            return Point(x, y)
        raise PlaceError(
            f"{self.key}: unknown relation {sorted(keys)!r}; known: {', '.join(_RELATION_KEYS)}"
        )

    def _num(self, v: Any, what: str) -> float:
        if not _is_num(v):
            raise PlaceError(f"{self.key}: {what} must be a number of 尺, got {v!r}")
        return float(v)

    def _only(self, ref: Mapping[str, Any], allowed: set[str]) -> None:
        extra = set(ref) - allowed
        if extra:
            raise PlaceError(
                f"{self.key}: relation {dict(ref)!r} has keys it does not use: {sorted(extra)}"
            )

    def _distance(self, ref: Mapping[str, Any]) -> float:
        if "by" in ref and "steps" in ref:
            raise PlaceError(f"{self.key}: give 'by' (尺) or 'steps' (步), not both")
        if "by" in ref:
            d = self._num(ref["by"], "by")
        elif "steps" in ref:
            d = self._num(ref["steps"], "steps") * STEP
        else:
            return self.offset("near")
        if d < 0:
            raise PlaceError(f"{self.key}: a distance cannot be negative ({d})")
        return d

    def _box(self, ref: Any, people: Mapping[str, Point], depth: int) -> Extent:
        """The extent of a named fixture (its edges), else the point itself."""
        if isinstance(ref, str) and ref not in people:
            f = self.fixture(ref)
            # 堂前 is measured from the 堂廉; other areas (堂西 …) from their point
            if f.extent is not None and (f.kind != "area" or f.name == "堂"):
                return f.extent
            return Extent(f.x, f.y, f.x, f.y)
        p = self._resolve(ref, people, depth + 1)
        return Extent(p.x, p.y, p.x, p.y)

    def _stair(self, ref: Any) -> Fixture:
        if not isinstance(ref, str):
            raise PlaceError(f"{self.key}: a 階 must be named (西階 or 阼階), got {ref!r}")
        f = self.fixture(ref)
        if f.kind != "stair":
            raise PlaceError(
                f"{self.key}: '{ref}' is not a 階; the 階 are {'、'.join(self.stairs)}"
            )
        return f

    # ------------------------------------------------------------------ areas
    def on_tang(self, p: Point) -> bool:
        """Whether p is up on the 堂 (the raised hall; in a 庠 its 室 and 房 too).

        >>> from sheli.place import load_venue
        >>> v = load_venue("xie")
        >>> v.on_tang(v.point("右物")), v.on_tang(v.point("洗"))
        (True, False)
        """
        return self.platform.contains(p)

    @property
    def platform(self) -> Extent:
        """The raised platform: the 堂, and in a 庠 the 室 and 房 behind it (to 屋深)."""
        tang = self.fixtures["堂"].extent
        assert tang is not None
        back = self.params["屋深"].value if "屋深" in self.params else tang.y1
        return Extent(tang.x0, tang.y0, tang.x1, max(back, tang.y1))

    def stair_at(self, p: Point) -> str | None:
        """The 階 p stands on, if any."""
        for n, f in self.stairs.items():
            if f.extent is not None and f.extent.contains(p):
                # the top edge belongs to the 堂
                if p.y < f.extent.y1 - 1e-9:
                    return n
        return None

    def area(self, p: Point) -> str:
        """The part of the venue p is in, in the text's words.

        One of 室, 房 (庠 only), 堂, 階, 堂西, 堂東, 庭, 門外, or 宮外 (beyond the walls).

        >>> from sheli.place import load_venue
        >>> v = load_venue("xie")
        >>> [v.area(v.point(n)) for n in ("右物", "洗", "西階", "堂西")]
        ['堂', '庭', '階', '堂西']
        """
        for name in ("室", "房"):
            f = self.fixtures.get(name)
            if f is not None and f.extent is not None and f.extent.contains(p):
                # the wall line itself is the 堂's
                if p.y > f.extent.y0 + 1e-9:
                    return name
        if self.platform.contains(p):
            return "堂"
        if self.stair_at(p):
            return "階"
        for name in ("堂西", "堂東"):
            f = self.fixtures.get(name)
            if f is not None and f.extent is not None and f.extent.contains(p):
                return name
        court = self.fixtures["庭"].extent
        assert court is not None
        if court.contains(p):
            return "庭"
        if court.x0 <= p.x <= court.x1 and p.y < court.y0:
            return "門外"
        return "宮外"

    # ------------------------------------------------------------------ description
    def describe(self, p: Point, people: Mapping[str, Point] | None = None) -> str:
        """The nearest named place, in the text's words: 西階前, 中之西南, 堂上西楹之西 …

        >>> from sheli.place import load_venue
        >>> v = load_venue("xie")
        >>> v.describe(v.resolve({"southwest_of": "中"}))
        '中之西南'
        >>> v.describe(v.resolve({"front_of": "西階"}))
        '西階前'
        """
        tol = 0.75
        on_tang = self.on_tang(p)
        for n, st in self.stairs.items():
            assert st.foot is not None and st.top is not None
            if p.dist(st.top) <= 1.5 and on_tang:
                return f"{n}上"
            front = st.foot.offset(0, -self.offset("front"))
            if p.dist(st.foot) <= tol:
                return f"{n}下"
            if p.dist(front) <= 1.5:
                return f"{n}前"
        st_name = self.stair_at(p)
        if st_name:
            return st_name
        cands: list[tuple[float, str, Point]] = []
        for n, f in self.fixtures.items():
            if f.kind in ("area", "line", "wall") or f.on_tang != on_tang:
                continue
            if f.kind == "point" and f.rule.startswith("at:"):
                continue  # a place named by a relation (司射位 = 中之西南): say the relation
            cands.append((p.dist(f.point), n, f.point))
        for n in people or {}:
            try:
                q = Point(float(people[n][0]), float(people[n][1]))  # type: ignore[index]
            except (KeyError, TypeError, ValueError):
                continue  # someone not yet placed
            if self.on_tang(q) == on_tang and q.dist(p) > 1e-9:
                cands.append((p.dist(q), n, q))
        if not cands:
            return self.area(p)
        d, name, q = min(cands)
        if d <= tol:
            return name
        return f"{name}之{_ZH_DIR[_direction(q, p)]}"

    def facing(self, a: Any, b: Any, people: Mapping[str, Point] | None = None) -> str:
        """The compass facing (N, NE, E … as in the event log) of one at a looking toward b.

        >>> from sheli.place import load_venue
        >>> v = load_venue("xie")
        >>> v.facing("西階前", "西階"), v.facing("中", "楅")    # 當階北面; 中 … 東面
        ('N', 'E')
        """
        pa, pb = self.resolve(a, people), self.resolve(b, people)
        if pa.dist(pb) < 1e-9:
            raise PlaceError(f"{self.key}: cannot face from a place toward itself")
        return _COMPASS[_direction(pa, pb)]

    # ------------------------------------------------------------------ movement
    def crosses(self, a: Point, b: Point) -> bool:
        """Whether walking straight from a to b goes over the 堂's edge other than by a 階,
        or (in a 庠) through the wall of the 室 or 房 other than by its door.

        One reaches the 堂 only by a 階 (升自西階 …), so the engine can refuse such a move.

        >>> from sheli.place import load_venue
        >>> v = load_venue("xie")
        >>> v.crosses(v.point("中"), v.point("右物"))
        True
        >>> v.crosses(v.resolve({"foot_of": "西階"}), v.resolve({"top_of": "西階"}))
        False
        """
        tang = self.platform
        for q in _box_crossings(a, b, tang):
            # by a 階 that meets the edge there: the 西階, 阼階 at the front (south) of the
            # platform, the 北階 at its back (dashe:126 升自北階, into the 房)
            via_stair = any(
                s.extent is not None
                and s.extent.x0 - 1e-6 <= q.x <= s.extent.x1 + 1e-6
                and (
                    (abs(q.y - tang.y0) < 1e-6 and abs(s.extent.y1 - tang.y0) < 1e-6)
                    or (abs(q.y - tang.y1) < 1e-6 and abs(s.extent.y0 - tang.y1) < 1e-6)
                )
                for s in self.stairs.values()
            )
            if not via_stair:
                return True
        doors = [f.extent for f in self.fixtures.values() if f.kind == "door" and f.extent]
        for room in ("室", "房"):
            f = self.fixtures.get(room)
            if f is None or f.extent is None:
                continue
            box = f.extent
            for q in _box_crossings(a, b, box):
                if abs(q.y - box.y1) < 1e-6 and abs(q.y - tang.y1) < 1e-6:
                    continue  # the back of the house is the platform's edge, checked above
                through_door = abs(q.y - box.y0) < 1e-6 and any(
                    d.x0 - 1e-6 <= q.x <= d.x1 + 1e-6 and box.x0 <= d.x0 and d.x1 <= box.x1
                    for d in doors
                )
                if not through_door:
                    return True
        return False

    def passes_left(self, path1: Sequence[Any], path2: Sequence[Any]) -> bool:
        """相左: two people walking at once pass keeping each other on the left.

        Each path is a sequence of places (points, fixture names or relations), walked
        at an even pace, both starting and ending together. At the moment they are nearest,
        each must have the other on his left (xiangshe:146 疏: 各以左相近).

        >>> from sheli.place import load_venue
        >>> v = load_venue("xie")
        >>> v.passes_left([(0, 1), (-10, 1)], [(-10, -1), (0, -1)])   # west- and eastbound
        True
        >>> v.passes_left([(0, 1), (-10, 1)], [(-10, 3), (0, 3)])
        False
        """
        p1 = [self.resolve(r) for r in path1]
        p2 = [self.resolve(r) for r in path2]
        if len(p1) < 2 or len(p2) < 2:
            raise PlaceError("passes_left needs two paths of at least two places each")
        n = 400
        best: tuple[float, float] | None = None
        for i in range(n + 1):
            t = i / n
            d = _along(p1, t).dist(_along(p2, t))
            if best is None or d < best[0] - 1e-12:
                best = (d, t)
        assert best is not None
        t = best[1]
        a, b = _along(p1, t), _along(p2, t)
        d1, d2 = _heading(p1, t), _heading(p2, t)
        r = (b.x - a.x, b.y - a.y)
        left1 = d1[0] * r[1] - d1[1] * r[0] > 1e-9
        left2 = d2[0] * (-r[1]) - d2[1] * (-r[0]) > 1e-9
        return left1 and left2

    # ------------------------------------------------------------------ ledger
    def ledger(self) -> list[LedgerRow]:
        """Every fixture with its place, source and assumptions, in the data file's order."""
        return [
            LedgerRow(f.name, f.x, f.y, f.source, f.assumption, f.note, f.kind, f.rule, f.assumed)
            for f in self.fixtures.values()
        ]

    def metres(self, chi: float) -> float:
        """尺 → metres with the venue's factor (see ``metre_per_chi``)."""
        return chi * self.metre_per_chi.value


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _direction(origin: Point, p: Point) -> str:
    """The direction word (8-way) of p seen from origin."""
    ang = math.degrees(math.atan2(p.y - origin.y, p.x - origin.x)) % 360
    names = ["east", "northeast", "north", "northwest", "west", "southwest", "south", "southeast"]
    return names[int(((ang + 22.5) % 360) // 45)]


def _box_crossings(a: Point, b: Point, box: Extent) -> list[Point]:
    """Points where segment a–b meets the box's edges and passes between inside and out."""
    out: list[Point] = []
    inside_a, inside_b = box.contains(a), box.contains(b)
    if inside_a and inside_b:
        return out
    # clip the segment against the box (Liang–Barsky) to find entry and exit
    dx, dy = b.x - a.x, b.y - a.y
    t0, t1 = 0.0, 1.0
    for p_, q_ in (
        (-dx, a.x - box.x0),
        (dx, box.x1 - a.x),
        (-dy, a.y - box.y0),
        (dy, box.y1 - a.y),
    ):
        if abs(p_) < 1e-12:
            if q_ < 0:
                return out
            continue
        r = q_ / p_
        if p_ < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
        if t0 > t1:
            return out
    if not inside_a:
        out.append(Point(a.x + t0 * dx, a.y + t0 * dy))
    if not inside_b:
        out.append(Point(a.x + t1 * dx, a.y + t1 * dy))
    return out


def _lengths(path: Sequence[Point]) -> list[float]:
    return [path[i].dist(path[i + 1]) for i in range(len(path) - 1)]


def _along(path: Sequence[Point], t: float) -> Point:
    """The point a fraction t of the way along a polyline."""
    segs = _lengths(path)
    total = sum(segs)
    if total == 0:
        return path[0]
    goal = t * total
    for i, s in enumerate(segs):
        if goal <= s or i == len(segs) - 1:
            f = 0.0 if s == 0 else min(goal / s, 1.0)
            a, b = path[i], path[i + 1]
            return Point(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f)
        goal -= s
    return path[-1]


def _heading(path: Sequence[Point], t: float) -> tuple[float, float]:
    """Unit direction of travel at fraction t (of the segment t falls in)."""
    segs = _lengths(path)
    total = sum(segs)
    goal = t * total
    for i, s in enumerate(segs):
        if s > 0 and (goal <= s or i == len(segs) - 1):
            a, b = path[i], path[i + 1]
            return ((b.x - a.x) / s, (b.y - a.y) / s)
        goal -= s
    return (0.0, 0.0)

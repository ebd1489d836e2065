"""Label boxes and their placement, shared by the renderer and the tests.

A label's box is estimated, not measured (no font engine): a CJK glyph (and any full-width
character) is 1 em wide, any other character 0.6 em; a line is 1.25 em high. The renderer
draws with these sizes and the tests check overlaps with the same estimate, so what the tests
pass is what is drawn (a real font may draw a Latin run a little narrower, never wider).

Placement is greedy: labels are placed in priority order, each at the first free candidate
around its anchor (8 positions next to it, then rings further out with a leader line), free
meaning inside the bounds and clear of every obstacle and every label already placed. If no
ring is free, the label goes to an overflow column outside the plan, with a leader line.
A candidate is tested only against the boxes in the cells of a grid that it covers, so a
crowd of two hundred labels costs about what a few do.

>>> b = Box(0, 0, 10, 10)
>>> b.overlaps(Box(5, 5, 20, 20)), b.overlaps(Box(10, 0, 20, 10))
(True, False)
>>> text_width("司射", 12), text_width("筭16", 10)
(24.0, 22.0)
"""

from __future__ import annotations

import heapq
import itertools
import math
import operator
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, cast

__all__ = [
    "LINE_HEIGHT",
    "RUN_GAP",
    "Box",
    "Label",
    "LabelMemory",
    "Obstacles",
    "clear_placements",
    "line_width",
    "obstacle_grid",
    "place_labels",
    "text_width",
]

#: Line height in em.
LINE_HEIGHT = 1.25


# Latin letters as the diagrams' first font (Noto Serif CJK TC) draws them, in em, rounded
# up to 0.05 (measured in Chromium): an English label is as wide as its letters.
_LATIN = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        map(
            float,
            ".6 .65 .55 .65 .55 .4 .6 .7 .35 .35 .65 .35 1 .7 .6 .65 .65 .5 .5 .4 .65 .55 .85 .6"
            " .55 .5 .75 .7 .7 .8 .65 .65 .75 .85 .4 .4 .75 .65 1 .8 .8 .65 .8 .75 .6 .7 .8 .75"
            " 1.05 .7 .7 .6".split(),
        ),
        strict=True,
    )
)


def _em(ch: str) -> float:
    """Width of one character in em: 1 for wide and full-width (CJK), a Latin letter its
    own, else 0.6.

    >>> _em("射"), _em("m"), _em("i"), _em("1")
    (1.0, 1.0, 0.35, 0.6)
    """
    latin = _LATIN.get(ch)
    if latin is not None:
        return latin
    return 1.0 if unicodedata.east_asian_width(ch) in ("W", "F", "A") else 0.6


@lru_cache(maxsize=4096)
def text_width(text: str, size: float) -> float:
    """Estimated width in px of ``text`` at font size ``size`` (CJK glyph = 1 em)."""
    return round(sum(_em(c) for c in text) * size, 3)


#: The space between two runs of one line, in em of the smaller run.
RUN_GAP = 0.3


def line_width(runs: list[tuple[str, float]]) -> float:
    """Width in px of a line of runs (text, size), with ``RUN_GAP`` between runs.

    >>> line_width([("司射", 12), ("張弓", 10)])
    47.0
    """
    w = sum(text_width(t, s) for t, s in runs)
    w += sum(RUN_GAP * min(a[1], b[1]) for a, b in itertools.pairwise(runs))
    return round(w, 3)


@dataclass(frozen=True, slots=True)
class Box:
    """An axis-aligned box in px, screen coordinates (y down)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box, gap: float = 0.0) -> bool:
        """True if the interiors overlap (boxes that only touch do not)."""
        return (
            self.x0 < other.x1 + gap
            and other.x0 < self.x1 + gap
            and self.y0 < other.y1 + gap
            and other.y0 < self.y1 + gap
        )

    def inside(self, other: Box) -> bool:
        return (
            self.x0 >= other.x0
            and self.y0 >= other.y0
            and self.x1 <= other.x1
            and self.y1 <= other.y1
        )


@dataclass(slots=True)
class Label:
    """A label to place: its lines, each a list of runs (text, font size) set side by side
    with a space of 0.3 em between; the anchor point (px) and the radius of the thing it
    names (the first ring of candidates starts just outside it).

    After placement ``box`` is set, and ``leader`` is True where the label stands away from
    its anchor and needs a leader line."""

    key: str
    lines: Sequence[Sequence[tuple[str, float]]]
    ax: float
    ay: float
    r: float = 4.0
    box: Box | None = None
    leader: bool = False
    _size: tuple[float, float] | None = field(default=None, repr=False, compare=False)

    @property
    def size(self) -> tuple[float, float]:
        """(width, height) in px: the widest line, the lines' heights, and a little padding."""
        if self._size is None:
            self._size = size_of(tuple(tuple(line) for line in self.lines))
        return self._size


@lru_cache(maxsize=8192)
def size_of(lines: tuple[tuple[tuple[str, float], ...], ...]) -> tuple[float, float]:
    w = max((line_width(list(line)) for line in lines), default=0.0)
    h = sum(max(s for _, s in line) * LINE_HEIGHT for line in lines if line)
    return (w + 4.0, h + 2.0)  # 2 px of padding each side across, 1 up and down


class Obstacles:
    """Fixed obstacles, built once and shared by many placements (the plan's fixtures, the
    same for every step in a view): pass it to :func:`place_labels` as ``base``. The
    placement is the same as with its boxes among ``obstacles``. Do not change it.

    >>> Obstacles([Box(0, 0, 1, 1)]).boxes
    ((0, 0, 1, 1),)
    """

    __slots__ = ("boxes", "set")

    def __init__(self, boxes: Iterable[Box]) -> None:
        self.boxes: tuple[tuple[float, float, float, float], ...] = tuple(
            (b.x0, b.y0, b.x1, b.y1) for b in boxes
        )
        self.set = frozenset(self.boxes)


def obstacle_grid(boxes: Iterable[Box]) -> Obstacles:
    """:class:`Obstacles` of these boxes (the name is kept from when they were a grid)."""
    return Obstacles(boxes)


# Directions of the first candidates: right, left, above, below, then the corners.
_NEAR = [(1, 0), (-1, 0), (0, -1), (0, 1), (1, -1), (-1, -1), (1, 1), (-1, 1)]


def _at(lab: Label, dx: float, dy: float, dist: float) -> Box:
    """The box of ``lab`` put on the side (dx, dy) of its anchor, ``dist`` px away."""
    w, h = lab.size
    cx, cy = lab.ax + dx * dist, lab.ay + dy * dist
    # anchor the box by its near edge so that it does not cover the thing it names
    x0 = cx if dx > 0 else cx - w if dx < 0 else cx - w / 2
    y0 = cy if dy > 0 else cy - h if dy < 0 else cy - h / 2
    return Box(x0, y0, x0 + w, y0 + h)


_T = tuple[float, float, float, float]

#: The side in px of a cell of :class:`_Grid` (a label is a cell or two across).
_CELL = 24.0
#: Up to this many boxes a placement scans them all rather than file them by cell: the
#: filing pays for itself only with the hundreds of a big event (docs/benchmarks.md)
LINEAR_UP_TO = 200
#: A candidate is first tried against the boxes that took the last this many runs of
#: candidates (the boxes round the label), then against the grid.
_RECENT = 24
#: A label searched for gathers the labels before it that may meet its candidates of this
#: many rings at a time.
_ZONE_RINGS = 3
#: A box over more cells than this is tested against every candidate instead.
_BIG_CELLS = 48
_ROW = 1 << 20  # a cell's key: its column times this, plus its row


class _Grid:
    """Boxes by the cells of a square grid they come near (within ``gap`` and a px more),
    so that a candidate is tested only against the boxes in the cells it covers: a box
    meets a candidate only if they share a point, which lies in a cell of both.

    >>> g = _Grid(1.0)
    >>> g.add_all([(0, 0, 10, 10), (100, 100, 110, 110)])
    >>> g.blocked(10.5, 0, 20, 5), g.blocked(12, 0, 20, 5)
    ((0, 0, 10, 10), None)
    """

    __slots__ = ("big", "cells", "gap", "linear")

    def __init__(self, gap: float, linear: bool = False) -> None:
        self.gap = gap
        self.cells: dict[int, list[_T]] = {}
        self.big: list[_T] = []
        # linear: every box is tested against every candidate, as if each were big: with a
        # few dozen boxes a step (the default run) a scan costs less than filing them
        self.linear = linear

    def _span(self, b: _T) -> tuple[int, int, int, int] | None:
        """The cells a box is filed in (first and last row, first and last column), grown by
        the gap; None for a box too big to file, kept in ``big`` and tested every time."""
        m = self.gap + 1.0
        i0, i1 = int((b[0] - m) // _CELL), int((b[2] + m) // _CELL)
        j0, j1 = int((b[1] - m) // _CELL), int((b[3] + m) // _CELL)
        if (i1 - i0 + 1) * (j1 - j0 + 1) > _BIG_CELLS:
            return None
        return i0, i1, j0, j1

    def add_all(self, boxes: Iterable[_T]) -> None:
        if self.linear:
            self.big.extend(boxes)
            return
        cells = self.cells
        for b in boxes:
            span = self._span(b)
            if span is None:
                self.big.append(b)
                continue
            i0, i1, j0, j1 = span
            for i in range(i0 * _ROW, i1 * _ROW + 1, _ROW):
                for k in range(i + j0, i + j1 + 1):
                    c = cells.get(k)
                    if c is None:
                        cells[k] = [b]
                    else:
                        c.append(b)

    def remove_all(self, boxes: Iterable[_T]) -> None:
        """Take out boxes added before (each once, as filed by :meth:`add_all`).

        >>> g = _Grid(1.0)
        >>> g.add_all([(0, 0, 10, 10)])
        >>> g.remove_all([(0, 0, 10, 10)])
        >>> g.blocked(0, 0, 5, 5), g.cells
        (None, {})
        """
        if self.linear:
            for b in boxes:
                self.big.remove(b)
            return
        cells = self.cells
        for b in boxes:
            span = self._span(b)
            if span is None:
                self.big.remove(b)
                continue
            i0, i1, j0, j1 = span
            for i in range(i0 * _ROW, i1 * _ROW + 1, _ROW):
                for k in range(i + j0, i + j1 + 1):
                    c = cells[k]
                    c.remove(b)
                    if not c:
                        del cells[k]

    def blocked(
        self, x0: float, y0: float, x1: float, y1: float, then: _Grid | None = None
    ) -> _T | None:
        """A box that meets (x0, y0, x1, y1) within ``gap``, or None; with ``then``, a box
        of this grid, else of ``then``."""
        gap = self.gap
        for b in self.big:
            if x0 < b[2] + gap and b[0] < x1 + gap and y0 < b[3] + gap and b[1] < y1 + gap:
                return b
        if then is not None:
            for b in then.big:
                if x0 < b[2] + gap and b[0] < x1 + gap and y0 < b[3] + gap and b[1] < y1 + gap:
                    return b
        j0, j1 = int(y0 // _CELL), int(y1 // _CELL) + 1
        ks = range(int(x0 // _CELL) * _ROW, int(x1 // _CELL) * _ROW + 1, _ROW)
        for cells in (self.cells,) if then is None else (self.cells, then.cells):
            for i in ks:
                for k in range(i + j0, i + j1):
                    c = cells.get(k)
                    if c is not None:
                        for b in c:
                            if x0 < b[2] + gap and b[0] < x1 + gap and y0 < b[3] + gap:
                                if b[1] < y1 + gap:
                                    return b
        return None

    def first(
        self, x0: float, y0: float, x1: float, y1: float, x1g: float, y1g: float
    ) -> _T | None:
        """:meth:`blocked` for a grid filed by cell, without ``then``; ``x1g`` and ``y1g``
        are ``x1`` and ``y1`` plus the gap.

        >>> g = _Grid(1.0)
        >>> g.add_all([(0, 0, 10, 10)])
        >>> g.first(10.5, 0, 20, 5, 21, 6), g.first(12, 0, 20, 5, 21, 6)
        ((0, 0, 10, 10), None)
        """
        gap = self.gap
        for b in self.big:
            if x0 < b[2] + gap and b[0] < x1g and y0 < b[3] + gap and b[1] < y1g:
                return b
        cells = self.cells
        j0, j1 = int(y0 // _CELL), int(y1 // _CELL) + 1
        for i in range(int(x0 // _CELL) * _ROW, int(x1 // _CELL) * _ROW + 1, _ROW):
            for k in range(i + j0, i + j1):
                c = cells.get(k)
                if c is not None:
                    for b in c:
                        if x0 < b[2] + gap and b[0] < x1g and y0 < b[3] + gap and b[1] < y1g:
                            return b
        return None


class _Ref:
    """One placement made, kept as the reference for the next one with the same fixed
    obstacles and parameters (see :func:`place_labels`)."""

    __slots__ = (
        "base",
        "boxes",
        "byid",
        "geoms",
        "ids",
        "keys",
        "map",
        "obst",
        "obst_list",
        "params",
        "rows",
        "still",
    )

    def __init__(self, base: Any, params: Any, obst_list: list[_T], obst: set[_T]) -> None:
        self.base = base
        self.params = params
        self.obst_list = obst_list
        self.obst = obst
        # label → (its geometry, index, box, leader, the runs of candidates taken, box as a
        # tuple, for one in the overflow column where the column goes on after it, and the
        # candidate it took); runs None: never reused (placed at the last resort)
        self.map: dict[str, tuple[Any, ...]] = {}
        self.keys: list[str] = []  # the labels' keys, in order
        self.geoms: list[Any] = []  # and their size, anchor and radius
        self.rows: list[tuple[Any, ...]] = []  # (box … where its search ended)
        self.boxes: list[_T] = []  # the labels' boxes, in order
        self.ids: list[int] = []  # their ids (of these very tuples)
        self.byid: dict[int, _T] = {}  # and back
        self.still: _Grid | None = None  # the fixed boxes and obstacles by cell


#: The last placements, most recent first (one per set of fixed obstacles and parameters).
_REFS: list[_Ref] = []
_REFS_MAX = 8


def clear_placements() -> None:
    """Forget the placements kept as references and the grids of the fixed boxes kept for
    placements with ``keep``: caches, it changes only the time taken (where labels are kept
    is a :class:`LabelMemory`, the caller's)."""
    _REFS.clear()
    _STILL.clear()


class _Kept:
    """The last placement made with ``keep``, for the next one with the same fixed
    obstacles and parameters: each label's geometry and box, and the obstacles."""

    __slots__ = ("base", "labels", "obst", "params")

    def __init__(self, base: Any, params: Any, obst: list[_T]) -> None:
        self.base = base
        self.params = params
        self.obst = obst
        # key → (geometry, box as a tuple, Box, leader, in the overflow column); None for a
        # label that cannot be kept (put at its anchor as the last resort, or a twin)
        self.labels: dict[str, tuple[Any, ...] | None] = {}


class LabelMemory:
    """Where the labels of a sequence of placements stay put: the last placement made with
    it (as ``keep`` of :func:`place_labels`), one per set of fixed obstacles and parameters
    (a view of the diagram). Whoever draws a sequence of diagrams makes one and passes it to
    each: a drawing depends only on its inputs, this memory among them, never on what was
    drawn before with another. A new memory begins afresh: the first placement with it
    is the plain greedy's.

    >>> a, b = Label("a", [[("甲", 10)]], 50, 50), Label("b", [[("乙", 10)]], 50, 50)
    >>> memory = LabelMemory()
    >>> first = place_labels([a, b], [], Box(0, 0, 100, 100), keep=memory)[0].box
    >>> # b is gone and an obstacle came where a would be put anew: a stays put
    >>> a2 = Label("a", [[("甲", 10)]], 50, 50)
    >>> place_labels([a2], [Box(0, 0, 1, 1)], Box(0, 0, 100, 100), keep=memory)[0].box == first
    True
    >>> len(memory.kept), len(LabelMemory().kept)
    (1, 0)
    """

    __slots__ = ("kept",)

    def __init__(self) -> None:
        self.kept: list[_Kept] = []

    def _keep(self, kp: _Kept) -> None:
        self.kept.insert(0, kp)
        del self.kept[_REFS_MAX:]


#: The grid of the fixed boxes and obstacles of the last such search, with the
#: obstacles it holds: (base, parameters, grid, obstacles).
_STILL: list[tuple[Any, Any, _Grid, list[_T]]] = []


def _chunks(boxes: list[_T], n: int = 8) -> list[tuple[_T, list[_T]]]:
    """Boxes in runs of ``n`` (in their order: a path's boxes lie along it), each with the
    box round them, for a quick test against many."""
    out = []
    for k in range(0, len(boxes), n):
        run = boxes[k : k + n]
        x0, y0, x1, y1 = zip(*run, strict=True)
        out.append(((min(x0), min(y0), max(x1), max(y1)), run))
    return out


def _clear_of(t: tuple[float, float, float, float], added: list[Any], gap: float) -> bool:
    """Whether box ``t`` keeps ``gap`` from every box of ``added`` (runs of boxes, each with
    the box round it, as :func:`_chunks` makes them).

    >>> box = (0, 0, 5, 5)
    >>> _clear_of(box, _chunks([(10, 0, 12, 2)]), 1), _clear_of(box, _chunks([(5, 0, 7, 2)]), 1)
    (True, False)
    """
    f0, f1, f2, f3 = t
    for (c0, c1, c2, c3), run in added:
        if f0 < c2 + gap and c0 < f2 + gap and f1 < c3 + gap and c1 < f3 + gap:
            for b in run:
                if f0 < b[2] + gap and b[0] < f2 + gap and f1 < b[3] + gap and b[1] < f3 + gap:
                    return False
    return True


def _column_slot(
    x0: float, y: float, w: float, h: float, gap: float, low: list[Any]
) -> tuple[Box, float]:
    """The first box ``w`` by ``h`` of the overflow column at ``x0``, at ``y`` or below, that
    keeps ``gap`` from every box of ``low`` (as tuples x0, y0, x1, y1), and the ``y`` the next
    one starts at.

    >>> _column_slot(0, 0, 10, 5, 1, [(0, 0, 10, 5)])
    (Box(x0=0, y0=7, x1=10, y1=12), 14)
    """
    while True:
        b = Box(x0, y, x0 + w, y + h)
        y += h + gap + 1
        if not any(
            b.x0 < o[2] + gap and o[0] < b.x1 + gap and b.y0 < o[3] + gap and o[1] < b.y1 + gap
            for o in low
        ):
            return b, y


def place_labels(
    labels: list[Label],
    obstacles: Sequence[Box | tuple[float, float, float, float]],
    bounds: Box,
    *,
    overflow: Box | None = None,
    gap: float = 1.0,
    rings: int = 14,
    ring_step: float = 12.0,
    base: Obstacles | None = None,
    keep: LabelMemory | None = None,
    passing: Sequence[tuple[float, float, float, float]] = (),
) -> list[Label]:
    """Place ``labels`` in order, each clear of ``obstacles`` (boxes, or their
    ``(x0, y0, x1, y1)`` as tuples) and of those placed before.

    With ``keep`` (a :class:`LabelMemory`), a label whose size and anchor are as in the last
    placement made with that memory (with the same fixed obstacles and parameters) keeps
    the box it had there if no obstacle new since then meets it; the others are then
    placed, in order, by the greedy, each clear of the labels before it (kept or placed),
    a kept label after it that its box meets being placed again in its turn. Labels whose
    thing did not move so stay where they were (a sequence of diagrams does not shuffle
    them), and only the few that moved are searched for. The first such placement with a
    memory is the plain greedy's.

    ``passing`` are obstacles too, like ``obstacles``, for this placement only (a walk's
    boxes, there for a step): the placement is the same as with them among
    ``obstacles``, at the end.

    ``base`` (from :func:`obstacle_grid`) holds more obstacles, fixed ones built once; the
    placement is the same as with its boxes among ``obstacles``.

    ``bounds`` is where labels may go; ``overflow`` (if given) a column where labels that
    find no room are stacked, one under another. Returns the labels with ``box`` set.

    >>> a = Label("a", [[("甲", 10)]], 50, 50)
    >>> b = Label("b", [[("乙", 10)]], 50, 50)
    >>> out = place_labels([a, b], [], Box(0, 0, 100, 100))
    >>> out[0].box.overlaps(out[1].box)
    False
    """
    # The placement is greedy: each label takes the first free candidate, in a fixed
    # order, of those round its anchor. So its place is decided by the boxes that took the
    # candidates before the one it took (kept as runs: a candidate, and the box that took
    # it and those after it up to the next run), and by that one being free. Consecutive
    # steps differ little, so the placement made last time with the same fixed obstacles is
    # the reference: a label whose size and anchor are the same as there takes the same
    # box again if every box that took a candidate then is here now (an obstacle, or a
    # label placed before it) and no box here now and not then (an obstacle, or a label
    # placed before it) meets the box it took. Where some box that took candidates is gone,
    # only those candidates are tried again; where the box it took is no longer free, the
    # search goes on from there. Each candidate before the one taken is taken as the plain
    # greedy finds it, so the choice is the same: the result is exactly that of placing
    # everything anew (the tests check it on every step of a run).
    c: _T | None  # a box that took a candidate, or None where it is free
    bt = (bounds.x0, bounds.y0, bounds.x1, bounds.y1)
    ot = (overflow.x0, overflow.y0, overflow.x1, overflow.y1) if overflow else None
    params = (bt, ot, gap, rings, ring_step)
    if passing and keep is None:
        obstacles = [*obstacles, *passing]
    if keep is not None:
        for k, kp in enumerate(keep.kept):
            if kp.params == params and (
                kp.base is base
                or (kp.base is not None and base is not None and kp.base.set == base.set)
            ):
                last = keep.kept.pop(k)
                return _place_kept(
                    labels,
                    obstacles,
                    passing,
                    bounds,
                    overflow,
                    gap,
                    rings,
                    ring_step,
                    base,
                    keep,
                    last,
                )
        # the first with this memory: every label searched for, as the plain greedy
        return _place_kept(
            labels,
            obstacles,
            passing,
            bounds,
            overflow,
            gap,
            rings,
            ring_step,
            base,
            keep,
            None,
            params,
        )
    ref: _Ref | None = None
    for k, rf in enumerate(_REFS):
        if rf.base is base and rf.params == params:
            ref = _REFS.pop(k)
            break
    obst = [o if isinstance(o, tuple) else (o.x0, o.y0, o.x1, o.y1) for o in obstacles]
    obst_set = set(obst)
    new = _Ref(base, params, obst, obst_set)
    rmap: dict[str, tuple[Any, ...]] = {}
    added: list[tuple[_T, list[_T]]] = []  # obstacles there now and not then
    ref_boxes: list[_T] = []
    same = False  # everything so far as in the reference (obstacles, labels, boxes)
    # the fixed boxes and obstacles by cell (made at the first search, or the reference's,
    # brought up to date), and the labels placed so far
    still: _Grid | None = None
    if ref is not None:
        rmap, ref_boxes = ref.map, ref.boxes
        if obst == ref.obst_list:
            same = True
            still = ref.still
        else:
            ro = ref.obst
            new_obst = [t for t in obst if t not in ro]
            added = _chunks(new_obst)
            if (
                ref.still is not None
                and len(obst_set) == len(obst)
                and len(ro) == len(ref.obst_list)
            ):
                # each obstacle there once: the reference's grid, less the obstacles gone
                # and with those new (what it files is the same; the reference is dropped)
                still = ref.still
                still.remove_all([t for t in ref.obst_list if t not in obst_set])
                still.add_all(new_obst)
            elif ref.still is not None:
                # some obstacle there twice (two bodies' boxes alike): the same, by how
                # many times each is there now and was then
                now, then = Counter(obst), Counter(ref.obst_list)
                still = ref.still
                still.remove_all(list((then - now).elements()))
                still.add_all(list((now - then).elements()))
    fixed = base.boxes if base is not None else ()
    lgrid: _Grid | None = None
    gridded = 0  # the labels placed so far that are in ``lgrid``
    low: list[_T] | None = None  # the boxes that may meet the overflow column from here
    lowed = 0  # the labels placed so far looked at for ``low``
    placed: list[_T] = new.boxes  # the boxes of the labels placed so far, in order
    fixed_set = base.set if base is not None else frozenset()
    out_map = new.map
    # a label is known by its key (person:…, fixture:…) and matched by its geometry
    keys = new.keys = [lab.key for lab in labels]
    geoms = new.geoms = [(*lab.size, lab.ax, lab.ay, lab.r) for lab in labels]
    rows = new.rows
    ov_y = overflow.y0 if overflow else 0.0
    start = 0
    if same and ref is not None:
        # the labels that begin as the reference's began, with the same obstacles, are
        # placed as there (the greedy is the same up to the first that differs)
        rk, rg, rr = ref.keys, ref.geoms, ref.rows
        m = min(len(keys), len(rk))
        while (
            start < m
            and keys[start] == rk[start]
            and geoms[start] == rg[start]
            and rr[start][2] is not None
        ):
            box, leader, _, _, ov, _ = row = rr[start]
            if ov is not None:  # in the overflow column: the column's next place after it
                ov_y = ov
            lab = labels[start]
            lab.box, lab.leader = box, leader
            rows.append(row)
            out_map.setdefault(keys[start], (geoms[start], start, *row))
            start += 1
        placed.extend(ref_boxes[:start])
    placed_set = set(placed)  # and by value
    # the labels placed so far, by the identity of their box tuples: a label that takes its
    # box from the reference shares the reference's tuple, so the two sets differ only by
    # labels placed differently (or anew: a conservative difference, never a missed one,
    # as the reference keeps its tuples alive and no two live objects share an id)
    byid = {id(t): t for t in placed}
    placed_ids = set(byid)
    rbyid = ref.byid if ref is not None else {}
    ref_ids = ref.ids if ref is not None else []
    aligned = ref is not None  # every label so far placed as the reference's, in its order
    # ``diff`` is the symmetric difference of ``placed_ids`` and the first ``dj`` of
    # ``ref_ids``, kept up to date as labels are placed and ``dj`` moves on (labels mostly
    # keep their order, so this costs a few steps a label instead of a set of all of them)
    diff: set[int] = set()
    dj = start
    bx0, by0, bx1, by1 = bt
    cands = _candidates(rings)
    ncand = len(cands)

    def grids() -> tuple[_Grid, _Grid]:
        """The grids, the labels' holding every label placed so far."""
        nonlocal still, lgrid, gridded
        if still is None:
            still = _Grid(gap, len(fixed) + len(obst) <= LINEAR_UP_TO)
            still.add_all(fixed)
            still.add_all(obst)
        if lgrid is None:
            lgrid = _Grid(gap, len(labels) <= LINEAR_UP_TO)
        if gridded < len(placed):
            lgrid.add_all(placed[gridded:])
            gridded = len(placed)
        return still, lgrid

    for i in range(start, len(labels)):
        lab = labels[i]
        key = keys[i]
        geom = geoms[i]
        w, h, ax, ay, r = geom
        hit = rmap.get(key) if key not in out_map else None  # (a twin label: anew)
        chosen: Box | None = None
        leader = False
        # the candidates found taken, as runs (the first candidate of a run, the box that
        # takes it and those after it up to the next run's), and where the search goes on
        runs: list[tuple[int, _T]] = []
        k = 0
        if hit is not None and hit[4] is not None and hit[0] == geom:
            _, j, box, leader, blk, t, ov, kc = hit
            gone = False  # some box that took a candidate then is not here now
            for _, b in blk:
                if b not in obst_set and b not in placed_set and b not in fixed_set:
                    gone = True
                    break
            if not gone and ov is None:  # the one it took: free now?
                ok = _clear_of(t, added, gap)
                f0, f1, f2, f3 = t
                if ok and not (aligned and j == i):  # of the labels before it, as then
                    if j >= dj:
                        for q in ref_ids[dj:j]:
                            if q in diff:
                                diff.remove(q)
                            else:
                                diff.add(q)
                    else:
                        diff = placed_ids.symmetric_difference(ref_ids[:j])
                    dj = j
                    for q in diff:
                        b = byid.get(q) or rbyid[q]
                        if f0 < b[2] + gap and b[0] < f2 + gap and f1 < b[3] + gap:
                            if b[1] < f3 + gap:
                                ok = False
                                break
                if ok:
                    if j != i:
                        aligned = False
                    lab.box, lab.leader = box, leader
                    placed.append(t)
                    placed_set.add(t)
                    byid[id(t)] = t
                    placed_ids.add(id(t))
                    _toggle(diff, id(t))
                    row = (box, leader, blk, t, None, kc)
                    rows.append(row)
                    out_map[key] = (geom, i, *row)
                    continue
            leader = False
            if not gone:  # every candidate before ``kc`` is taken as then
                runs, k = list(blk), kc
            else:
                # only the candidates whose box is gone are tried again, in order
                sg, lg = grids()
                blocked = sg.blocked
                block: _T | None = None
                for n, (k0, b) in enumerate(blk):
                    if b in obst_set or b in placed_set or b in fixed_set:
                        runs.append((k0, b))
                        block = b
                        continue
                    for q in range(k0, blk[n + 1][0] if n + 1 < len(blk) else kc):
                        ring, dx, dy = cands[q]
                        dist = r + 2.0 + ring * ring_step
                        cx, cy = ax + dx * dist, ay + dy * dist
                        x0 = cx if dx > 0 else cx - w if dx < 0 else cx - w / 2
                        y0 = cy if dy > 0 else cy - h if dy < 0 else cy - h / 2
                        x1, y1 = x0 + w, y0 + h
                        if x0 < bx0 or y0 < by0 or x1 > bx1 or y1 > by1:
                            continue
                        if block is not None:
                            c = block
                            if x0 < c[2] + gap and c[0] < x1 + gap and y0 < c[3] + gap:
                                if c[1] < y1 + gap:
                                    continue
                        for _, c in runs[-_RECENT:]:
                            if x0 < c[2] + gap and c[0] < x1 + gap and y0 < c[3] + gap:
                                if c[1] < y1 + gap:
                                    break
                        else:
                            c = blocked(x0, y0, x1, y1, lg)
                        if c is None:
                            chosen, leader, k = Box(x0, y0, x1, y1), ring > 0, q
                            break
                        runs.append((q, c))
                        block = c
                    if chosen is not None:
                        break
                else:
                    k = kc
        if chosen is None and k < ncand:
            # the search, from candidate ``k`` on: each against the boxes in its cells
            sg, lg = grids()
            blocked = sg.blocked
            # the obstacles first: a box that took a candidate is kept as a reason for the
            # verdict, and an obstacle (a figure, a fixture) moves less than a label
            block = runs[-1][1] if runs else None
            for q in range(k, ncand):
                ring, dx, dy = cands[q]
                # inline _at: this loop runs for every candidate of every label
                dist = r + 2.0 + ring * ring_step
                cx, cy = ax + dx * dist, ay + dy * dist
                x0 = cx if dx > 0 else cx - w if dx < 0 else cx - w / 2
                y0 = cy if dy > 0 else cy - h if dy < 0 else cy - h / 2
                x1, y1 = x0 + w, y0 + h
                if x0 < bx0 or y0 < by0 or x1 > bx1 or y1 > by1:
                    continue
                if block is not None:
                    c = block
                    if x0 < c[2] + gap and c[0] < x1 + gap and y0 < c[3] + gap:
                        if c[1] < y1 + gap:
                            continue
                for _, c in runs[-_RECENT:]:
                    if x0 < c[2] + gap and c[0] < x1 + gap and y0 < c[3] + gap:
                        if c[1] < y1 + gap:
                            break
                else:
                    c = blocked(x0, y0, x1, y1, lg)
                if c is None:
                    chosen, leader, k = Box(x0, y0, x1, y1), ring > 0, q
                    break
                runs.append((q, c))
                block = c
        blockers: tuple[tuple[int, _T], ...] | None = tuple(runs)
        if chosen is None:
            k = ncand
        ov = None
        if chosen is None and overflow is not None:
            # the column: stacked under the labels put there before, clear of every box;
            # the boxes that end above where it is now can meet nothing further down
            if low is None:
                low = [o for o in (*fixed, *obst) if o[3] + gap > ov_y]
            low.extend(o for o in placed[lowed:] if o[3] + gap > ov_y)
            lowed = len(placed)
            low = [o for o in low if o[3] + gap > ov_y]
            b, ov_y = _column_slot(overflow.x0, ov_y, w, h, gap, low)
            chosen, leader, ov = b, True, ov_y
        if chosen is None:  # no overflow column: the last resort is the anchor itself
            chosen = _at(lab, 1, 0, lab.r + 2.0)
            blockers = None  # (never reused)
        lab.box, lab.leader = chosen, leader
        t = (chosen.x0, chosen.y0, chosen.x1, chosen.y1)
        if hit is not None and hit[5] == t:
            # placed anew where it was: the reference's very tuple, so that the labels
            # after it do not see it as changed
            t = hit[5]
        if hit is None or t is not hit[5] or hit[1] != i:
            aligned = False
        placed.append(t)
        placed_set.add(t)
        byid[id(t)] = t
        placed_ids.add(id(t))
        _toggle(diff, id(t))
        row = (chosen, leader, blockers, t, ov, k)
        rows.append(row)
        out_map.setdefault(key, (geom, i, *row))
    new.byid = byid
    new.still = still
    new.ids = [id(t) for t in placed]
    _REFS.insert(0, new)
    del _REFS[_REFS_MAX:]
    return labels


def _place_kept(
    labels: list[Label],
    obstacles: Sequence[Box | tuple[float, float, float, float]],
    passing: Sequence[_T],
    bounds: Box,
    overflow: Box | None,
    gap: float,
    rings: int,
    ring_step: float,
    base: Obstacles | None,
    memory: LabelMemory,
    last: _Kept | None,
    params: Any = None,
) -> list[Label]:
    """:func:`place_labels` with ``keep``, ``memory``, after the placement ``last`` (None:
    the first, with these ``params``: every label is searched for, in order, as by the plain
    greedy); the placement made is kept in ``memory``."""
    given = list(obstacles)
    if set(map(type, given)) - {tuple}:  # (tuples as a rule: a drawing's every obstacle)
        obst = [o if isinstance(o, tuple) else (o.x0, o.y0, o.x1, o.y1) for o in given]
    else:
        obst = cast("list[_T]", given)  # every one a tuple
    c: _T | None  # a box that took a candidate, or None where it is free
    pchunks = _chunks(list(passing))  # tested by their runs, not filed
    if last is None:
        last = _Kept(base, params, [])
        diff = None
        added = []
    else:
        # the obstacles come since the last placement (most are its very tuples, in the
        # same places)
        diff = _diff(last.obst, obst)
        added = _chunks(diff[1]) + pchunks
    kp = _Kept(base, last.params, obst)
    kl = kp.labels
    old = last.labels
    placed: list[_T] = []  # the boxes of the labels placed so far
    kept: list[tuple[int, _T]] = []  # the labels kept, in order, and their boxes
    todo: list[int] = []
    twins: list[str] = []
    ov_end = overflow.y0 if overflow is not None else 0.0  # below every label in the column
    # the box round everything new (a kept label clear of it is clear of each: most are
    # far from the few obstacles new at a step)
    u0 = u1 = math.inf
    u2 = u3 = -math.inf
    for (c0, c1, c2, c3), _ in added:
        u0, u1, u2, u3 = min(u0, c0), min(u1, c1), max(u2, c2), max(u3, c3)
    u0, u1, u2, u3 = u0 - gap, u1 - gap, u2 + gap, u3 + gap
    for i, lab in enumerate(labels):
        key = lab.key
        if key in kl:
            twins.append(key)
            todo.append(i)
            continue
        e = old.get(key)
        kl[key] = e
        if e is None or e[0] != (lab._size or lab.size, lab.ax, lab.ay, lab.r):
            todo.append(i)
            continue
        t = e[1]
        if t[0] < u2 and u0 < t[2] and t[1] < u3 and u1 < t[3] and not _clear_of(t, added, gap):
            todo.append(i)
            continue
        lab.box, lab.leader = e[2], e[3]
        kept.append((i, t))
        if e[4]:
            ov_end = max(ov_end, t[3] + gap + 1)
    # the fixed boxes and obstacles by cell, of the last search with these (a cache: it
    # outlives a LabelMemory), brought up to date at every step, searched or not: the
    # obstacles change a few at a time from step to step, while those of the last search
    # may be many steps old (their difference, by identity and value, cost more than the
    # search)
    still = None
    for k, (b, prm, grid, then) in enumerate(_STILL):
        if b is base and prm == last.params:
            if diff is not None and then is last.obst:
                gone, new = diff
            elif todo:
                gone, new = _diff(then, obst)
            else:
                break  # not searched now: brought up to date when it is
            del _STILL[k]
            grid.remove_all(gone)
            grid.add_all(new)
            still = grid
            break
    if todo:
        fixed = base.boxes if base is not None else ()
        if still is None:
            still = _Grid(gap)  # kept and brought up to date: filed by cell however few
            still.add_all(fixed)
            still.add_all(obst)
        # each is searched for, in order, clear of the labels before it (kept or placed),
        # as the greedy would; a kept label after it that its box meets is put out and
        # searched for in its turn (the actor's label, near the front, keeps its place
        # beside him)
        lbox: list[_T] = []  # the labels before the one searched for: kept, or placed
        ahead = 0  # the kept labels before the one searched for are in ``lbox``
        out: set[int] = set()  # kept labels put out
        first = still.first
        bx0, by0, bx1, by1 = bounds.x0, bounds.y0, bounds.x1, bounds.y1
        cands = _candidates(rings)
        low: list[_T] | None = None
        while todo:
            i = heapq.heappop(todo)
            while ahead < len(kept) and kept[ahead][0] < i:
                if kept[ahead][0] not in out:
                    lbox.append(kept[ahead][1])
                ahead += 1
            lab = labels[i]
            w, h = lab.size
            ax, ay, r = lab.ax, lab.ay, lab.r
            chosen: Box | None = None
            leader = ov = False
            recent: list[_T] = []  # the boxes that took its candidates, grown, last first
            zr = -1  # the candidates up to this ring are tested against ``near``
            near: list[_T] = []
            for ring, dx, dy in cands:
                # as in place_labels: each candidate in order, the first free taken
                dist = r + 2.0 + ring * ring_step
                cx, cy = ax + dx * dist, ay + dy * dist
                x0 = cx if dx > 0 else cx - w if dx < 0 else cx - w / 2
                y0 = cy if dy > 0 else cy - h if dy < 0 else cy - h / 2
                x1, y1 = x0 + w, y0 + h
                if x0 < bx0 or y0 < by0 or x1 > bx1 or y1 > by1:
                    continue
                # the boxes that took this label's candidates before (grown by the gap:
                # x0, y0, x1 + gap, y1 + gap), the last found first: the box that took a
                # candidate most often takes the next too
                x1g, y1g = x1 + gap, y1 + gap
                for c in recent:
                    if x0 < c[2] and c[0] < x1g and y0 < c[3] and c[1] < y1g:
                        if c is not recent[0]:
                            recent.remove(c)
                            recent.insert(0, c)
                        break
                else:
                    if ring > zr:
                        # the labels before it and the passing boxes that may meet a
                        # candidate of the rings up to ``zr``, gathered once for them (a px
                        # of margin against rounding)
                        zr = min(rings, ring + _ZONE_RINGS - 1)
                        d = max(abs(r + 2.0), abs(r + 2.0 + zr * ring_step)) + max(gap, 0.0) + 1.0
                        z0, z1, z2, z3 = ax - d - w, ay - d - h, ax + d + w, ay + d + h
                        near = [
                            (b[0], b[1], b[2] + gap, b[3] + gap)
                            for b in lbox
                            if b[0] < z2 and z0 < b[2] and b[1] < z3 and z1 < b[3]
                        ]
                        for (c0, c1, c2, c3), run in pchunks:
                            if c0 < z2 and z0 < c2 and c1 < z3 and z1 < c3:
                                near += [
                                    (b[0], b[1], b[2] + gap, b[3] + gap)
                                    for b in run
                                    if b[0] < z2 and z0 < b[2] and b[1] < z3 and z1 < b[3]
                                ]
                    for c in near:
                        if x0 < c[2] and c[0] < x1g and y0 < c[3] and c[1] < y1g:
                            break
                    else:
                        c = first(x0, y0, x1, y1, x1g, y1g)
                        if c is None:
                            chosen, leader = Box(x0, y0, x1, y1), ring > 0
                            break
                        c = (c[0], c[1], c[2] + gap, c[3] + gap)
                    recent.insert(0, c)
                    if len(recent) > _RECENT:
                        recent.pop()
            if chosen is None and overflow is not None:
                # the column: under every label there, clear of every box
                if low is None:
                    low = [
                        o
                        for o in (*fixed, *obst, *passing, *(t for _, t in kept), *placed)
                        if o[3] + gap > ov_end
                    ]
                b, ov_end = _column_slot(overflow.x0, ov_end, w, h, gap, low)
                chosen, leader, ov = b, True, True
            if chosen is None:  # no overflow column: the last resort is the anchor itself
                chosen = _at(lab, 1, 0, lab.r + 2.0)
                t = (chosen.x0, chosen.y0, chosen.x1, chosen.y1)
                kl[lab.key] = None  # never kept
            else:
                t = (chosen.x0, chosen.y0, chosen.x1, chosen.y1)
                kl[lab.key] = ((lab.size, ax, ay, r), t, chosen, leader, ov)
                t0, t1, t2, t3 = t
                for j, b in kept[ahead:]:
                    if t0 < b[2] + gap and b[0] < t2 + gap and t1 < b[3] + gap:
                        if b[1] < t3 + gap and j not in out:
                            out.add(j)
                            heapq.heappush(todo, j)
            lab.box, lab.leader = chosen, leader
            placed.append(t)
            lbox.append(t)
            if low is not None:
                low.append(t)
    if still is not None:
        _STILL.insert(0, (base, last.params, still, obst))
        del _STILL[_REFS_MAX:]
    for key in twins:
        kl[key] = None  # two labels alike: placed anew next time
    memory._keep(kp)
    return labels


def _diff(old: list[_T], new: list[_T]) -> tuple[list[_T], list[_T]]:
    """Boxes to take out of ``old`` and to put in to make ``new`` (as multisets; a box may
    be in both, taken out and put back). The lists are mostly the same tuples in the same
    places: they are compared place by place, and where that finds many (a box put in or
    taken out shifts those after it), by identity, then by value.

    >>> _diff([(0, 0, 1, 1), (1, 1, 2, 2)], [(0, 0, 1, 1), (5, 5, 6, 6), (7, 7, 8, 8)])
    ([(1, 1, 2, 2)], [(5, 5, 6, 6), (7, 7, 8, 8)])
    >>> a, b, c = (0, 0, 1, 1), (1, 1, 2, 2), (2, 2, 3, 3)
    >>> gone, come = _diff([a, b, c] * 20, [b, c] * 20)
    >>> gone == [a] * 20, come
    (True, [])
    """
    m = min(len(old), len(new))
    ks = [
        k
        for k in itertools.compress(range(m), map(operator.is_not, old, new))
        if old[k] != new[k]  # (a box made anew alike: the same)
    ]
    if len(ks) + abs(len(old) - len(new)) <= _FEW:
        return [old[k] for k in ks] + old[m:], [new[k] for k in ks] + new[m:]
    ido, idn = set(map(id, old)), set(map(id, new))
    if len(ido) != len(old) or len(idn) != len(new):  # an object there twice: by value
        g, c = Counter(old), Counter(new)
        return list((g - c).elements()), list((c - g).elements())
    gone = [b for b in old if id(b) not in idn]
    come = [b for b in new if id(b) not in ido]
    if gone and come:  # (boxes made anew alike)
        sg, sc = set(gone), set(come)
        if len(sg) == len(gone) and len(sc) == len(come):
            return [b for b in gone if b not in sc], [b for b in come if b not in sg]
        g, c = Counter(gone), Counter(come)
        gone, come = list((g - c).elements()), list((c - g).elements())
    return gone, come


#: Up to this many boxes differing place by place, :func:`_diff` takes them as they are.
_FEW = 24


def _toggle(s: set[int], k: int) -> None:
    """Put ``k`` in ``s`` or take it out (a symmetric difference of one)."""
    if k in s:
        s.remove(k)
    else:
        s.add(k)


@lru_cache(maxsize=16)
def _candidates(rings: int) -> list[tuple[int, float, float]]:
    """Every candidate round an anchor, in the order tried: (ring, dx, dy).

    >>> _candidates(1)[:2], len(_candidates(1))
    ([(0, 1, 0), (0, -1, 0)], 20)
    """
    return [(0, dx, dy) for dx, dy in _NEAR] + [
        (ring, dx, dy) for ring in range(1, rings + 1) for dx, dy in _ring_dirs(ring)
    ]


@lru_cache(maxsize=64)
def _ring_dirs(ring: int) -> list[tuple[float, float]]:
    """Unit directions around a ring: more of them further out, right and left first."""
    n = 8 + 4 * min(ring, 6)
    out = [(math.cos(2 * math.pi * k / n), math.sin(2 * math.pi * k / n)) for k in range(n)]
    # snap near-zero components so that boxes centre on the axis
    return [(0.0 if abs(x) < 1e-9 else x, 0.0 if abs(y) < 1e-9 else y) for x, y in out]

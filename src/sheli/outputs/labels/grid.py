"""Where a label may go: the candidates round its anchor, and the boxes by cell that each is tested
against.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from sheli.outputs.labels.measure import Box, Label


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

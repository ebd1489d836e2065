"""Label boxes and their placement, shared by the renderer and the tests.

A label's box is estimated, not measured (no font engine): a CJK glyph (and any full-width
character) is 1 em wide, any other character 0.6 em; a line is 1.25 em high. The renderer
draws with these sizes and the tests check overlaps with the same estimate, so what the tests
pass is what is drawn (a real font may draw a Latin run a little narrower, never wider).

Placement is greedy: labels are placed in priority order, each at the first free candidate
around its anchor (8 positions next to it, then rings further out with a leader line), free
meaning inside the bounds and clear of every obstacle and every label already placed. If no
ring is free, the label goes to an overflow column outside the plan, with a leader line.

>>> b = Box(0, 0, 10, 10)
>>> b.overlaps(Box(5, 5, 20, 20)), b.overlaps(Box(10, 0, 20, 10))
(True, False)
>>> text_width("司射", 12), text_width("筭16", 10)
(24.0, 22.0)
"""

from __future__ import annotations

import itertools
import math
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

__all__ = [
    "LINE_HEIGHT",
    "RUN_GAP",
    "Box",
    "Label",
    "line_width",
    "obstacle_grid",
    "place_labels",
    "text_width",
]

#: Line height in em.
LINE_HEIGHT = 1.25


def _em(ch: str) -> float:
    """Width of one character in em: 1 for wide and full-width (CJK), else 0.6."""
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
    lines: list[list[tuple[str, float]]]
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
            self._size = _size_of(tuple(tuple(line) for line in self.lines))
        return self._size


@lru_cache(maxsize=8192)
def _size_of(lines: tuple[tuple[tuple[str, float], ...], ...]) -> tuple[float, float]:
    w = max((line_width(list(line)) for line in lines), default=0.0)
    h = sum(max(s for _, s in line) * LINE_HEIGHT for line in lines if line)
    return (w + 4.0, h + 2.0)  # 2 px of padding each side across, 1 up and down


#: The grid's cell, px; a cell (i, j) is stored under the key ``i * _K + j``.
_CELL = 40.0
_K = 1 << 20


class _Grid:
    """Boxes (as tuples x0, y0, x1, y1) bucketed on a coarse grid, so that a collision test
    looks at few boxes. ``base``, if given, is a grid of fixed boxes included too (built once
    and shared, never changed: see :func:`obstacle_grid`); its cells are copied only when a
    box is added to them."""

    __slots__ = ("cells", "key", "shared")

    def __init__(self, base: _Grid | None = None) -> None:
        self.cells: dict[int, list[tuple[float, float, float, float]]] = (
            dict(base.cells) if base is not None else {}
        )
        # the cells still the base's lists (copied before a box is added to one)
        self.shared: set[int] = set(self.cells)
        self.key: tuple[tuple[float, float, float, float], ...] = ()  # its boxes (obstacle_grid)

    def add(self, b: Box) -> None:
        self.add4(b.x0, b.y0, b.x1, b.y1)

    def add4(self, x0: float, y0: float, x1: float, y1: float) -> None:
        cells = self.cells
        shared = self.shared
        t = (x0, y0, x1, y1)
        j0, j1 = math.floor(y0 / _CELL), math.floor(y1 / _CELL) + 1
        for i in range(math.floor(x0 / _CELL), math.floor(x1 / _CELL) + 1):
            k = i * _K
            for j in range(k + j0, k + j1):
                lst = cells.get(j)
                if lst is None:
                    cells[j] = [t]
                elif j in shared:
                    cells[j] = [*lst, t]
                    shared.discard(j)
                else:
                    lst.append(t)

    def hits(self, x0: float, y0: float, x1: float, y1: float, gap: float) -> bool:
        """Does the box (x0, y0, x1, y1), grown by ``gap``, overlap a box in the grid?"""
        cells = self.cells
        j0, j1 = math.floor(y0 / _CELL), math.floor(y1 / _CELL) + 1
        for i in range(math.floor(x0 / _CELL), math.floor(x1 / _CELL) + 1):
            k = i * _K
            for j in range(k + j0, k + j1):
                lst = cells.get(j)
                if lst:
                    for a0, b0, a1, b1 in lst:
                        if x0 < a1 + gap and a0 < x1 + gap and y0 < b1 + gap and b0 < y1 + gap:
                            return True
        return False


def obstacle_grid(boxes: Iterable[Box]) -> _Grid:
    """A grid of fixed obstacles, to pass to :func:`place_labels` as ``base`` for many
    placements (the plan's fixtures, the same for every step in a view). Do not change it."""
    g = _Grid()
    for b in boxes:
        g.add(b)
    g.key = tuple((b.x0, b.y0, b.x1, b.y1) for b in boxes)
    return g


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


def place_labels(
    labels: list[Label],
    obstacles: list[Box],
    bounds: Box,
    *,
    overflow: Box | None = None,
    gap: float = 1.0,
    rings: int = 14,
    ring_step: float = 12.0,
    base: _Grid | None = None,
) -> list[Label]:
    """Place ``labels`` in order, each clear of ``obstacles`` and of those placed before.

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
    # Label i's place is a function of the obstacles, the bounds and labels 0..i (of
    # their text only its size matters): the labels placed before, by the same obstacles,
    # with the same first labels, are taken as they were (a trie of placements per set of
    # obstacles), and only the rest is placed. The result is the same as placing all anew.
    global _NODES
    env = (
        tuple((o.x0, o.y0, o.x1, o.y1) for o in obstacles),
        base.key if base is not None else None,
        (bounds.x0, bounds.y0, bounds.x1, bounds.y1),
        (overflow.x0, overflow.y0, overflow.x1, overflow.y1) if overflow else None,
        gap,
        rings,
        ring_step,
    )
    if _NODES > _NODES_MAX:
        _PLACED.clear()
        _NODES = 0
    node = _PLACED.get(env)
    if node is None:
        node = _PLACED[env] = {}
    keys = [(*lab.size, lab.ax, lab.ay, lab.r) for lab in labels]
    ov_y = overflow.y0 if overflow else 0.0
    n = len(labels)
    k = 0
    while k < n:
        hit = node.get(keys[k])
        if hit is None:
            break
        lab = labels[k]
        lab.box, lab.leader, ov_y, node = hit
        k += 1
    if k == n:
        return labels
    grid = _Grid(base)
    for o in env[0]:
        grid.add4(*o)
    for lab in labels[:k]:
        b = lab.box
        grid.add4(b.x0, b.y0, b.x1, b.y1)  # type: ignore[union-attr]
    hits = grid.hits
    bx0, by0, bx1, by1 = bounds.x0, bounds.y0, bounds.x1, bounds.y1
    for i in range(k, n):
        lab = labels[i]
        chosen: Box | None = None
        leader = False
        w, h = lab.size
        for ring in range(rings + 1):
            dist = lab.r + 2.0 + ring * ring_step
            dirs = _NEAR if ring == 0 else _ring_dirs(ring)
            for dx, dy in dirs:
                # inline _at: this loop runs for every candidate of every label
                cx, cy = lab.ax + dx * dist, lab.ay + dy * dist
                x0 = cx if dx > 0 else cx - w if dx < 0 else cx - w / 2
                y0 = cy if dy > 0 else cy - h if dy < 0 else cy - h / 2
                x1, y1 = x0 + w, y0 + h
                if x0 < bx0 or y0 < by0 or x1 > bx1 or y1 > by1:
                    continue
                if not hits(x0, y0, x1, y1, gap):
                    chosen, leader = Box(x0, y0, x1, y1), ring > 0
                    break
            if chosen:
                break
        if chosen is None and overflow is not None:
            while True:
                b = Box(overflow.x0, ov_y, overflow.x0 + w, ov_y + h)
                ov_y += h + gap + 1
                if not hits(b.x0, b.y0, b.x1, b.y1, gap):
                    break
            chosen, leader = b, True
        if chosen is None:  # no overflow column: the last resort is the anchor itself
            chosen = _at(lab, 1, 0, lab.r + 2.0)
        lab.box, lab.leader = chosen, leader
        grid.add4(chosen.x0, chosen.y0, chosen.x1, chosen.y1)
        child: dict[Any, Any] = {}
        node[keys[i]] = (chosen, leader, ov_y, child)
        node = child
        _NODES += 1
    return labels


#: Placements made, per set of obstacles (and bounds …): a trie on the labels' sizes and
#: anchors, each node the box, leader and overflow column's next y of that label and the
#: labels after it (see ``place_labels``). Boxes are frozen. Cleared when large.
_PLACED: dict[Any, dict[Any, Any]] = {}
_NODES = 0
_NODES_MAX = 200_000


@lru_cache(maxsize=64)
def _ring_dirs(ring: int) -> list[tuple[float, float]]:
    """Unit directions around a ring: more of them further out, right and left first."""
    n = 8 + 4 * min(ring, 6)
    out = [(math.cos(2 * math.pi * k / n), math.sin(2 * math.pi * k / n)) for k in range(n)]
    # snap near-zero components so that boxes centre on the axis
    return [(0.0 if abs(x) < 1e-9 else x, 0.0 if abs(y) < 1e-9 else y) for x, y in out]

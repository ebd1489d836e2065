"""Labels that stay put: the placement made with a LabelMemory, the last placement kept in it."""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import Any, cast

from sheli.outputs.labels.grid import (
    _RECENT,
    _T,
    _ZONE_RINGS,
    Obstacles,
    _at,
    _candidates,
    _chunks,
    _clear_of,
    _column_slot,
    _diff,
    _Grid,
)
from sheli.outputs.labels.measure import Box, Label

_REFS_MAX = 8


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

    >>> from sheli.outputs.labels import place_labels
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
    obst = _as_tuples(obstacles)
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
    stay = _Staying(labels, last.labels, kp.labels, added, gap, overflow)
    still = _still_grid(base, last, diff, obst, bool(stay.todo))
    if stay.todo:
        fixed = base.boxes if base is not None else ()
        if still is None:
            still = _Grid(gap)  # kept and brought up to date: filed by cell however few
            still.add_all(fixed)
            still.add_all(obst)
        search = _Search(bounds, overflow, gap, rings, ring_step, pchunks, still)
        search.place(labels, stay, kp.labels, (*fixed, *obst, *passing))
    if still is not None:
        _STILL.insert(0, (base, last.params, still, obst))
        del _STILL[_REFS_MAX:]
    for key in stay.twins:
        kp.labels[key] = None  # two labels alike: placed anew next time
    memory._keep(kp)
    return labels


def _as_tuples(obstacles: Sequence[Box | tuple[float, float, float, float]]) -> list[_T]:
    """The obstacles as tuples ``(x0, y0, x1, y1)`` (the very list where every one is one,
    as a drawing's are)."""
    given = list(obstacles)
    if set(map(type, given)) - {tuple}:
        return [o if isinstance(o, tuple) else (o.x0, o.y0, o.x1, o.y1) for o in given]
    return cast("list[_T]", given)  # every one a tuple


class _Staying:
    """Which labels keep the box they had in the last placement (``old``): those of the same
    size and anchor that no obstacle new since then (``added``) meets. The others are to be
    searched for (``todo``, in order), the twins among them (two labels of one key) never
    kept. ``kl`` gets each label's entry of the last placement, to be replaced where it is
    searched for."""

    def __init__(
        self,
        labels: list[Label],
        old: dict[str, tuple[Any, ...] | None],
        kl: dict[str, tuple[Any, ...] | None],
        added: list[tuple[_T, list[_T]]],
        gap: float,
        overflow: Box | None,
    ) -> None:
        self.kept: list[tuple[int, _T]] = []  # the labels kept, in order, and their boxes
        self.todo: list[int] = []
        self.twins: list[str] = []
        self.ov_end = overflow.y0 if overflow is not None else 0.0  # under every label there
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
                self.twins.append(key)
                self.todo.append(i)
                continue
            e = old.get(key)
            kl[key] = e
            if e is None or e[0] != (lab._size or lab.size, lab.ax, lab.ay, lab.r):
                self.todo.append(i)
                continue
            t = e[1]
            if t[0] < u2 and u0 < t[2] and t[1] < u3 and u1 < t[3]:
                if not _clear_of(t, added, gap):
                    self.todo.append(i)
                    continue
            lab.box, lab.leader = e[2], e[3]
            self.kept.append((i, t))
            if e[4]:
                self.ov_end = max(self.ov_end, t[3] + gap + 1)


def _still_grid(
    base: Obstacles | None,
    last: _Kept,
    diff: tuple[list[_T], list[_T]] | None,
    obst: list[_T],
    searched: bool,
) -> _Grid | None:
    """The grid of the fixed boxes and obstacles of the last search with these (a cache: it
    outlives a LabelMemory), taken out of ``_STILL`` and brought up to date with ``obst`` at
    every step, searched or not; None where there is none, or where nothing is ``searched``
    now and it is not the last placement's (it is brought up to date when it is searched).
    The obstacles change a few at a time from step to step, while those of the last search
    may be many steps old (their difference, by identity and value, cost more than the
    search)."""
    for k, (b, prm, grid, then) in enumerate(_STILL):
        if b is base and prm == last.params:
            if diff is not None and then is last.obst:
                gone, new = diff
            elif searched:
                gone, new = _diff(then, obst)
            else:
                return None
            del _STILL[k]
            grid.remove_all(gone)
            grid.add_all(new)
            return grid
    return None


class _Search:
    """The search for the labels not kept, each in order, clear of the labels before it (kept
    or placed), as the greedy would; a kept label after it that its box meets is put out and
    searched for in its turn (the actor's label, near the front, keeps its place beside him).
    """

    def __init__(
        self,
        bounds: Box,
        overflow: Box | None,
        gap: float,
        rings: int,
        ring_step: float,
        pchunks: list[tuple[_T, list[_T]]],
        still: _Grid,
    ) -> None:
        self.bt = (bounds.x0, bounds.y0, bounds.x1, bounds.y1)
        self.overflow, self.gap, self.rings, self.ring_step = overflow, gap, rings, ring_step
        self.pchunks = pchunks
        self.first = still.first
        self.cands = _candidates(rings)

    def place(
        self,
        labels: list[Label],
        stay: _Staying,
        kl: dict[str, tuple[Any, ...] | None],
        fixed: tuple[_T, ...],
    ) -> None:
        """Place the labels of ``stay.todo``, recording each in ``kl``; ``fixed``: every box
        but the labels', for the overflow column."""
        todo, kept, gap, overflow = stay.todo, stay.kept, self.gap, self.overflow
        placed: list[_T] = []  # the boxes of the labels placed so far
        lbox: list[_T] = []  # the labels before the one searched for: kept, or placed
        ahead = 0  # the kept labels before the one searched for are in ``lbox``
        out: set[int] = set()  # kept labels put out
        low: list[_T] | None = None  # the boxes that may meet the overflow column
        while todo:
            i = heapq.heappop(todo)
            while ahead < len(kept) and kept[ahead][0] < i:
                if kept[ahead][0] not in out:
                    lbox.append(kept[ahead][1])
                ahead += 1
            lab = labels[i]
            w, h = lab.size
            found = self.first_free(lab, lbox)
            leader = ov = False
            if found is not None:
                chosen, leader = found
            elif overflow is not None:
                # the column: under every label there, clear of every box
                if low is None:
                    low = [
                        o
                        for o in (*fixed, *(t for _, t in kept), *placed)
                        if o[3] + gap > stay.ov_end
                    ]
                chosen, stay.ov_end = _column_slot(overflow.x0, stay.ov_end, w, h, gap, low)
                leader, ov = True, True
            else:  # no overflow column: the last resort is the anchor itself
                chosen = _at(lab, 1, 0, lab.r + 2.0)
            t = (chosen.x0, chosen.y0, chosen.x1, chosen.y1)
            if found is None and overflow is None:
                kl[lab.key] = None  # never kept
            else:
                kl[lab.key] = ((lab.size, lab.ax, lab.ay, lab.r), t, chosen, leader, ov)
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

    def first_free(self, lab: Label, lbox: list[_T]) -> tuple[Box, bool] | None:
        """As in place_labels: each candidate of ``lab`` in order, the first free taken (its
        box, and whether it has a leader); None if none is. ``lbox``: the labels before it."""
        w, h = lab.size
        ax, ay, r = lab.ax, lab.ay, lab.r
        gap, rings, ring_step, pchunks, first = (
            self.gap,
            self.rings,
            self.ring_step,
            self.pchunks,
            self.first,
        )
        bx0, by0, bx1, by1 = self.bt
        c: _T | None  # a box that took a candidate, or None where it is free
        recent: list[_T] = []  # the boxes that took its candidates, grown, last first
        zr = -1  # the candidates up to this ring are tested against ``near``
        near: list[_T] = []
        for ring, dx, dy in self.cands:
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
                    # the labels before it and the passing boxes that may meet a candidate
                    # of the rings up to ``zr``, gathered once for them (a px of margin
                    # against rounding)
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
                        return Box(x0, y0, x1, y1), ring > 0
                    c = (c[0], c[1], c[2] + gap, c[3] + gap)
                recent.insert(0, c)
                if len(recent) > _RECENT:
                    recent.pop()
        return None

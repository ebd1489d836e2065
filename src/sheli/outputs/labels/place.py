"""The placement of labels: greedy, each at the first free candidate, the last placement the
reference for the next.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from sheli.outputs.labels.grid import (
    _RECENT,
    _T,
    LINEAR_UP_TO,
    Obstacles,
    _at,
    _candidates,
    _chunks,
    _clear_of,
    _column_slot,
    _Grid,
    _toggle,
)
from sheli.outputs.labels.kept import _REFS_MAX, _STILL, LabelMemory, _place_kept
from sheli.outputs.labels.measure import Box, Label


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


def clear_placements() -> None:
    """Forget the placements kept as references and the grids of the fixed boxes kept for
    placements with ``keep``: caches, it changes only the time taken (where labels are kept
    is a :class:`LabelMemory`, the caller's)."""
    _REFS.clear()
    _STILL.clear()


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
    bt = (bounds.x0, bounds.y0, bounds.x1, bounds.y1)
    ot = (overflow.x0, overflow.y0, overflow.x1, overflow.y1) if overflow else None
    params = (bt, ot, gap, rings, ring_step)
    if keep is not None:
        last = _last_kept(keep, params, base)
        where = (bounds, overflow, gap, rings, ring_step, base)
        return _place_kept(labels, obstacles, passing, *where, keep, last, params)
    if passing:
        obstacles = [*obstacles, *passing]
    greedy = _Greedy(labels, obstacles, bounds, overflow, gap, rings, ring_step, base, params)
    place = greedy.place
    for i in range(greedy.start, len(labels)):
        place(i)
    _REFS.insert(0, greedy.done())
    del _REFS[_REFS_MAX:]
    return labels


def _last_kept(keep: LabelMemory, params: Any, base: Obstacles | None) -> Any:
    """The last placement made with ``keep`` with these parameters and fixed obstacles (the
    same ``base``, or one with the same boxes), taken out of it; None for the first, in which
    every label is searched for, as by the plain greedy."""
    for k, kp in enumerate(keep.kept):
        if kp.params == params and (
            kp.base is base
            or (kp.base is not None and base is not None and kp.base.set == base.set)
        ):
            return keep.kept.pop(k)
    return None


def _reference(base: Obstacles | None, params: Any) -> _Ref | None:
    """The last placement made with these fixed obstacles and parameters, taken out of
    ``_REFS`` (the placement made now takes its place), or None."""
    for k, rf in enumerate(_REFS):
        if rf.base is base and rf.params == params:
            return _REFS.pop(k)
    return None


def _still_after(
    ref: _Ref | None, obst: list[_T], obst_set: set[_T]
) -> tuple[bool, _Grid | None, list[tuple[_T, list[_T]]]]:
    """What the obstacles ``obst`` have in common with the reference's: whether they are the
    very same, the grid of the fixed boxes and obstacles (the reference's, brought up to date;
    None where it has none, made at the first search), and the obstacles there now and not
    then (in runs, :func:`_chunks`)."""
    if ref is None:
        return False, None, []
    if obst == ref.obst_list:
        return True, ref.still, []
    ro = ref.obst
    new_obst = [t for t in obst if t not in ro]
    still = ref.still
    if still is not None and len(obst_set) == len(obst) and len(ro) == len(ref.obst_list):
        # each obstacle there once: the reference's grid, less the obstacles gone and with
        # those new (what it files is the same; the reference is dropped)
        still.remove_all([t for t in ref.obst_list if t not in obst_set])
        still.add_all(new_obst)
    elif still is not None:
        # some obstacle there twice (two bodies' boxes alike): the same, by how many times
        # each is there now and was then
        now, then = Counter(obst), Counter(ref.obst_list)
        still.remove_all(list((then - now).elements()))
        still.add_all(list((now - then).elements()))
    return False, still, _chunks(new_obst)


def _first_free(
    geom: tuple[float, float, float, float, float],
    qs: range,
    runs: list[tuple[int, _T]],
    cands: list[tuple[int, float, float]],
    ring_step: float,
    bt: _T,
    gap: float,
    blocked: Any,
    lg: _Grid,
) -> tuple[int, Box] | None:
    """The first candidate of those numbered ``qs`` that is in the bounds ``bt`` and free, and
    its box; None if none is. Each candidate found taken extends ``runs`` (a new run where the
    box that took it is not the last run's). A candidate is tried against the box of the last
    run first, then those of the last few runs (the boxes round the label), then the grids:
    ``blocked`` of the fixed boxes' grid, with ``lg`` the labels'."""
    w, h, ax, ay, r = geom
    bx0, by0, bx1, by1 = bt
    c: _T | None  # a box that took a candidate, or None where it is free
    # the obstacles first: a box that took a candidate is kept as a reason for the verdict,
    # and an obstacle (a figure, a fixture) moves less than a label
    block = runs[-1][1] if runs else None
    for q in qs:
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
            return q, Box(x0, y0, x1, y1)
        runs.append((q, c))
        block = c
    return None


class _Greedy:
    """One placement by the greedy, the last made with the same fixed obstacles and
    parameters (``_REFS``) its reference.

    The placement is greedy: each label takes the first free candidate, in a fixed order, of
    those round its anchor. So its place is decided by the boxes that took the candidates
    before the one it took (kept as runs: a candidate, and the box that took it and those
    after it up to the next run), and by that one being free. Consecutive steps differ
    little, so the placement made last time with the same fixed obstacles is the reference:
    a label whose size and anchor are the same as there takes the same box again if every box
    that took a candidate then is here now (an obstacle, or a label placed before it) and no
    box here now and not then (an obstacle, or a label placed before it) meets the box it
    took (:meth:`as_then`). Where some box that took candidates is gone, only those
    candidates are tried again (:meth:`retry`); where the box it took is no longer free, the
    search goes on from there. Each candidate before the one taken is taken as the plain
    greedy finds it, so the choice is the same: the result is exactly that of placing
    everything anew (the tests check it on every step of a run).
    """

    # (slots: the placement of each label reads many of them)
    __slots__ = (
        "added",
        "aligned",
        "bt",
        "byid",
        "cands",
        "diff",
        "dj",
        "fixed",
        "fixed_set",
        "gap",
        "geoms",
        "gridded",
        "keys",
        "labels",
        "lgrid",
        "low",
        "lowed",
        "new",
        "obst",
        "obst_set",
        "out_map",
        "ov_y",
        "overflow",
        "placed",
        "placed_ids",
        "placed_set",
        "rbyid",
        "ref",
        "ref_ids",
        "ring_step",
        "rmap",
        "rows",
        "start",
        "still",
    )

    def __init__(
        self,
        labels: list[Label],
        obstacles: Sequence[Box | tuple[float, float, float, float]],
        bounds: Box,
        overflow: Box | None,
        gap: float,
        rings: int,
        ring_step: float,
        base: Obstacles | None,
        params: Any,
    ) -> None:
        self.labels, self.overflow, self.gap, self.ring_step = labels, overflow, gap, ring_step
        self.bt = params[0]
        ref = self.ref = _reference(base, params)
        obst = [o if isinstance(o, tuple) else (o.x0, o.y0, o.x1, o.y1) for o in obstacles]
        self.obst, self.obst_set = obst, set(obst)
        self.new = new = _Ref(base, params, obst, self.obst_set)
        self.out_map, self.rows = new.map, new.rows
        self.rmap: dict[str, tuple[Any, ...]] = ref.map if ref is not None else {}
        same, self.still, self.added = _still_after(ref, obst, self.obst_set)
        self.fixed = base.boxes if base is not None else ()
        self.fixed_set = base.set if base is not None else frozenset()
        # the labels' grid (made at the first search) and how many of those placed it holds
        self.lgrid: _Grid | None = None
        self.gridded = 0
        self.low: list[_T] | None = None  # the boxes that may meet the overflow column from here
        self.lowed = 0  # the labels placed so far looked at for ``low``
        self.ov_y = overflow.y0 if overflow else 0.0  # the overflow column's next place
        self.placed: list[_T] = new.boxes  # the boxes of the labels placed so far, in order
        # a label is known by its key (person:…, fixture:…) and matched by its geometry
        self.keys = new.keys = [lab.key for lab in labels]
        self.geoms = new.geoms = [(*lab.size, lab.ax, lab.ay, lab.r) for lab in labels]
        self.start = self._as_reference_up_to_a_change() if same and ref is not None else 0
        self.placed_set = set(self.placed)  # and by value
        # the labels placed so far, by the identity of their box tuples: a label that takes
        # its box from the reference shares the reference's tuple, so the two sets differ
        # only by labels placed differently (or anew: a conservative difference, never a
        # missed one, as the reference keeps its tuples alive and no two live objects share
        # an id)
        self.byid = {id(t): t for t in self.placed}
        self.placed_ids = set(self.byid)
        self.rbyid = ref.byid if ref is not None else {}
        self.ref_ids = ref.ids if ref is not None else []
        self.aligned = ref is not None  # every label so far placed as the reference's, in its order
        # ``diff`` is the symmetric difference of ``placed_ids`` and the first ``dj`` of
        # ``ref_ids``, kept up to date as labels are placed and ``dj`` moves on (labels mostly
        # keep their order, so this costs a few steps a label instead of a set of all of them)
        self.diff: set[int] = set()
        self.dj = self.start
        self.cands = _candidates(rings)

    def _as_reference_up_to_a_change(self) -> int:
        """The labels that begin as the reference's began, with the same obstacles, placed as
        there (the greedy is the same up to the first that differs): how many."""
        assert self.ref is not None
        keys, geoms, labels, rows, out_map = (
            self.keys,
            self.geoms,
            self.labels,
            self.rows,
            self.out_map,
        )
        rk, rg, rr = self.ref.keys, self.ref.geoms, self.ref.rows
        m = min(len(keys), len(rk))
        start = 0
        while (
            start < m
            and keys[start] == rk[start]
            and geoms[start] == rg[start]
            and rr[start][2] is not None
        ):
            box, leader, _, _, ov, _ = row = rr[start]
            if ov is not None:  # in the overflow column: the column's next place after it
                self.ov_y = ov
            lab = labels[start]
            lab.box, lab.leader = box, leader
            rows.append(row)
            out_map.setdefault(keys[start], (geoms[start], start, *row))
            start += 1
        self.placed.extend(self.ref.boxes[:start])
        return start

    def grids(self) -> tuple[_Grid, _Grid]:
        """The grids, the labels' holding every label placed so far."""
        if self.still is None:
            self.still = _Grid(self.gap, len(self.fixed) + len(self.obst) <= LINEAR_UP_TO)
            self.still.add_all(self.fixed)
            self.still.add_all(self.obst)
        if self.lgrid is None:
            self.lgrid = _Grid(self.gap, len(self.labels) <= LINEAR_UP_TO)
        if self.gridded < len(self.placed):
            self.lgrid.add_all(self.placed[self.gridded :])
            self.gridded = len(self.placed)
        return self.still, self.lgrid

    def place(self, i: int) -> None:
        """Place the ``i``-th label: as in the reference where that holds, else by the
        search (from where the reference's left off, where it can), else in the overflow
        column, else at its anchor."""
        lab, key, geom = self.labels[i], self.keys[i], self.geoms[i]
        hit = self.rmap.get(key) if key not in self.out_map else None  # (a twin label: anew)
        found: tuple[int, Box] | None = None
        # the candidates found taken, as runs (the first candidate of a run, the box that
        # takes it and those after it up to the next run's), and where the search goes on
        runs: list[tuple[int, _T]] = []
        k = 0
        if hit is not None and hit[4] is not None and hit[0] == geom:
            blk, kc = hit[4], hit[7]
            gone = self.gone(blk)
            if not gone and hit[6] is None and self.as_then(i, lab, key, geom, hit):
                return
            if not gone:  # every candidate before ``kc`` is taken as then
                runs, k = list(blk), kc
            else:
                found = self.retry(geom, blk, kc, runs)
                k = found[0] if found is not None else kc
        if found is None and k < len(self.cands):
            # the search, from candidate ``k`` on: each against the boxes in its cells
            sg, lg = self.grids()
            qs = range(k, len(self.cands))
            found = _first_free(
                geom, qs, runs, self.cands, self.ring_step, self.bt, self.gap, sg.blocked, lg
            )
        blockers: tuple[tuple[int, _T], ...] | None = tuple(runs)
        ov = None
        if found is not None:
            k, chosen = found
            leader = self.cands[k][0] > 0
        elif self.overflow is not None:
            k = len(self.cands)
            chosen, ov = self.column(geom[0], geom[1])
            leader = True
        else:  # no overflow column: the last resort is the anchor itself
            k = len(self.cands)
            chosen, leader = _at(lab, 1, 0, lab.r + 2.0), False
            blockers = None  # (never reused)
        self.record(i, lab, key, geom, hit, (chosen, leader, blockers, ov, k))

    def gone(self, blk: Sequence[tuple[int, _T]]) -> bool:
        """Whether some box that took a candidate in the reference is not here now."""
        obst_set, placed_set, fixed_set = self.obst_set, self.placed_set, self.fixed_set
        for _, b in blk:
            if b not in obst_set and b not in placed_set and b not in fixed_set:
                return True
        return False

    def as_then(self, i: int, lab: Label, key: str, geom: Any, hit: tuple[Any, ...]) -> bool:
        """Whether the box the label took in the reference (its ``hit``, every box that took
        a candidate before it there being here now) is free now: if so it takes it again.
        It is free if no obstacle new since then meets it, nor a label before it placed
        differently than then (``diff``)."""
        _, j, box, leader, blk, t, _, kc = hit
        gap = self.gap
        ok = _clear_of(t, self.added, gap)
        f0, f1, f2, f3 = t
        if ok and not (self.aligned and j == i):  # of the labels before it, as then
            ref_ids = self.ref_ids
            if j >= self.dj:
                diff = self.diff
                for q in ref_ids[self.dj : j]:
                    if q in diff:
                        diff.remove(q)
                    else:
                        diff.add(q)
            else:
                self.diff = self.placed_ids.symmetric_difference(ref_ids[:j])
            self.dj = j
            byid, rbyid = self.byid, self.rbyid
            for q in self.diff:
                b = byid.get(q) or rbyid[q]
                if f0 < b[2] + gap and b[0] < f2 + gap and f1 < b[3] + gap:
                    if b[1] < f3 + gap:
                        ok = False
                        break
        if not ok:
            return False
        if j != i:
            self.aligned = False
        lab.box, lab.leader = box, leader
        self.placed.append(t)
        self.placed_set.add(t)
        self.byid[id(t)] = t
        self.placed_ids.add(id(t))
        _toggle(self.diff, id(t))
        row = (box, leader, blk, t, None, kc)
        self.rows.append(row)
        self.out_map[key] = (geom, i, *row)
        return True

    def retry(
        self,
        geom: tuple[float, float, float, float, float],
        blk: Sequence[tuple[int, _T]],
        kc: int,
        runs: list[tuple[int, _T]],
    ) -> tuple[int, Box] | None:
        """The candidates before ``kc`` whose box in the reference (its runs ``blk``) is gone
        tried again, in order, the others taken as then; the first free, or None (the search
        goes on from ``kc``). ``runs`` gets the runs found."""
        sg, lg = self.grids()
        obst_set, placed_set, fixed_set = self.obst_set, self.placed_set, self.fixed_set
        for n, (k0, b) in enumerate(blk):
            if b in obst_set or b in placed_set or b in fixed_set:
                runs.append((k0, b))
                continue
            qs = range(k0, blk[n + 1][0] if n + 1 < len(blk) else kc)
            found = _first_free(
                geom, qs, runs, self.cands, self.ring_step, self.bt, self.gap, sg.blocked, lg
            )
            if found is not None:
                return found
        return None

    def column(self, w: float, h: float) -> tuple[Box, float]:
        """A place in the overflow column, stacked under the labels put there before, clear of
        every box, and the column's next place; the boxes that end above where it is now can
        meet nothing further down."""
        assert self.overflow is not None
        gap, ov_y = self.gap, self.ov_y
        if self.low is None:
            self.low = [o for o in (*self.fixed, *self.obst) if o[3] + gap > ov_y]
        self.low.extend(o for o in self.placed[self.lowed :] if o[3] + gap > ov_y)
        self.lowed = len(self.placed)
        self.low = [o for o in self.low if o[3] + gap > ov_y]
        b, self.ov_y = _column_slot(self.overflow.x0, ov_y, w, h, gap, self.low)
        return b, self.ov_y

    def record(
        self,
        i: int,
        lab: Label,
        key: str,
        geom: Any,
        hit: tuple[Any, ...] | None,
        where: tuple[Box, bool, tuple[tuple[int, _T], ...] | None, float | None, int],
    ) -> None:
        """The label placed where the search put it (its box, leader, runs, place in the
        column, candidate), kept for the next placement."""
        chosen, leader, blockers, ov, k = where
        lab.box, lab.leader = chosen, leader
        t = (chosen.x0, chosen.y0, chosen.x1, chosen.y1)
        if hit is not None and hit[5] == t:
            # placed anew where it was: the reference's very tuple, so that the labels
            # after it do not see it as changed
            t = hit[5]
        if hit is None or t is not hit[5] or hit[1] != i:
            self.aligned = False
        self.placed.append(t)
        self.placed_set.add(t)
        self.byid[id(t)] = t
        self.placed_ids.add(id(t))
        _toggle(self.diff, id(t))
        row = (chosen, leader, blockers, t, ov, k)
        self.rows.append(row)
        self.out_map.setdefault(key, (geom, i, *row))

    def done(self) -> _Ref:
        """The placement made, to be the reference of the next."""
        new = self.new
        new.byid = self.byid
        new.still = self.still
        new.ids = [id(t) for t in self.placed]
        return new

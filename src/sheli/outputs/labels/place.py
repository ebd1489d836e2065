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
        last = None  # the first with this memory: every label searched for, as the plain greedy
        for k, kp in enumerate(keep.kept):
            if kp.params == params and (
                kp.base is base
                or (kp.base is not None and base is not None and kp.base.set == base.set)
            ):
                last = keep.kept.pop(k)
                break
        where = (bounds, overflow, gap, rings, ring_step, base)
        return _place_kept(labels, obstacles, passing, *where, keep, last, params)
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

"""The crowds: many people at one point laid out as a block and labelled together, brought up to
date from the last step's layout.

A person whose standing has not changed keeps his place in the layout:

>>> from sheli.engine import run
>>> from sheli.outputs.frames import build_frames
>>> first = next(iter(build_frames(run("xiangshe", seed=1))[0].people.values()))
>>> _same_standing(first, first)
True
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from sheli.outputs.diagram.figures import _people_layout, _spread_group
from sheli.outputs.diagram.memo import _MEMO, _changed
from sheli.outputs.diagram.plan import View
from sheli.outputs.diagram.style import CROWD, _f
from sheli.outputs.frames import Person


def _people_memo(
    v: View, r: float, spacing: float, plist: list[Person], actor: str
) -> tuple[Any, ...]:
    """``_people_layout`` of these people, and the order their labels are placed in with
    ``actor`` highlighted: taken from the last drawing in this view when its people were
    these very objects."""
    e = _MEMO.people.get(v.name)
    changed = None
    if e is not None and e[0] is v and e[1] == r and e[2] == spacing:
        changed = _changed(e[3], plist)
    if changed and e is not None and all(_same_standing(e[3][i], plist[i]) for i in changed):
        # new objects for people who stand and are labelled as before (what they hold
        # changed): the same layout, crowds and labels' order, with these objects in them
        swaps = [(e[3][i], plist[i]) for i in changed]
        e = (v, r, spacing, plist, e[4], _swap_orders(e[5], swaps), e[6])
        _MEMO.people[v.name] = e
    elif (
        changed
        and e is not None
        and e[6] is not None
        and len(changed) <= _MOVED_MAX
        and all(e[3][i].actor == plist[i].actor for i in changed)
    ):
        # a few moved: their groups, at the points they left and came to, laid out again
        layout, state, moved = _move_layout(v, r, spacing, e[4], e[6], e[3], plist, changed)
        _MEMO.where_from = (layout[0], e[4][0], {plist[i].actor for i in moved})
        e = (v, r, spacing, plist, layout, _moved_orders(e[5], v, r, layout, plist, moved), state)
        _MEMO.people[v.name] = e
    elif changed is None or changed:
        pkey = tuple((p.actor, p.x, p.y, p.facing, p.row) for p in plist)
        layout = _people_layout(v, r, spacing, pkey)
        e = (v, r, spacing, plist, layout, {}, _layout_state(v, r, layout, plist))
        _MEMO.people[v.name] = e
    assert e is not None  # (kept when nobody changed: an empty ``changed``)
    layout, orders = e[4], e[5]
    order = orders.get(actor)
    if order is None:
        where, rank, sizes = layout[0], layout[1], layout[2]
        visible = orders.get(_VISIBLE)
        if visible is None:
            # once for these people: those in the view, the crowds among them (labelled as
            # one each) and the others, each labelled alone
            x0, x1, y0, y1 = v.x0, v.x1, v.y0, v.y1  # (v.contains, inline: ~450 a step)
            visible = orders[_VISIBLE] = [p for p in plist if x0 <= p.x <= x1 and y0 <= p.y <= y1]
            crowds = orders[_CROWDS] = _crowds(visible, rank, sizes, where, r)
            orders[_SOLO] = [p for p in visible if p.actor not in crowds.members]
            if e[6] is not None:  # (people moved are laid out again: _moved_orders)
                orders[_KEYS] = _crowd_keys(plist, v, rank, sizes)
        solo = orders[_SOLO]
        me = []
        if actor in orders[_CROWDS].members:
            me = [p for p in visible if p.actor == actor]
        # the actor first, then group by group from the nearest to him, each row in its
        # order (so that a row's labels alternate beside their figures); a crowd's members
        # have no label of their own (the actor has, wherever he stands)
        ax, ay = where.get(actor, (v.box.x0, v.box.y0))
        these = solo + me if me else solo
        # (math.hypot of the differences is math.dist of the points; the index last, as a
        # stable sort by the rest would keep them)
        hypot = math.hypot
        keys = []
        for k, p in enumerate(these):
            g = rank[p.actor]
            keys.append((p.actor != actor, round(hypot(g[0] - ax, g[1] - ay), 3), *g, k))
        keys.sort()
        order = orders[actor] = [these[key[-1]] for key in keys]
    return (*layout, order, orders[_VISIBLE], orders[_CROWDS])


#: At most this many people changed since the last drawing are laid out again by the
#: groups they left and joined (``_move_layout``); more, and everyone is
_MOVED_MAX = 8

_Boxes = dict[str, tuple[float, float, float, float]]
_State = tuple[dict[tuple[float, float], list[int]], _Boxes]


def _layout_state(v: View, r: float, layout: tuple[Any, ...], plist: list[Person]) -> _State | None:
    """What ``_move_layout`` keeps with a layout of ``plist``: the people at each point
    (their indexes in ``plist``, in order) and the box of each figure in the view; None
    where two share a name (the layout keys people by name)."""
    where = layout[0]
    if len(where) != len(plist):
        return None
    groups: dict[tuple[float, float], list[int]] = {}
    for i, p in enumerate(plist):
        groups.setdefault((round(p.x, 1), round(p.y, 1)), []).append(i)
    boxes = {}
    for p in plist:
        if v.contains(p.x, p.y):
            x, y = where[p.actor]
            boxes[p.actor] = (x - r * 2, y - r * 2, x + r * 2, y + r * 2)
    return groups, boxes


def _move_layout(
    v: View,
    r: float,
    spacing: float,
    layout: tuple[Any, ...],
    state: _State,
    old: list[Person],
    plist: list[Person],
    changed: list[int],
) -> tuple[tuple[Any, ...], _State, set[int]]:
    """``_people_layout`` of ``plist`` from that of ``old`` (the same people, those at
    ``changed`` in new states): the groups at the points they left and came to are laid
    out again, the others kept. The same places, sizes and boxes as laid out anew (the
    boxes maybe in another order); with its ``_layout_state``, and the indexes of those
    laid out again (``changed`` among them)."""
    where, rank, sizes = dict(layout[0]), dict(layout[1]), dict(layout[2])
    groups, boxes = dict(state[0]), dict(state[1])
    gap = max(2.2 * r, spacing * v.scale)
    touched = []
    for i in changed:
        o, p = old[i], plist[i]
        ko = (round(o.x, 1), round(o.y, 1))
        kn = (round(p.x, 1), round(p.y, 1))
        if ko != kn:
            g = [j for j in groups[ko] if j != i]
            if g:
                groups[ko] = g
            else:
                del groups[ko]
                del sizes[v.px(*ko)]
            there = groups.get(kn)
            groups[kn] = sorted([*there, i]) if there else [i]
            touched.append(ko)
        touched.append(kn)
    moved = set(changed)  # those laid out again (returned: their crowds are found again)
    for k in dict.fromkeys(touched):
        idx = groups.get(k)
        if idx is None:
            continue
        moved.update(idx)
        ps = [plist[j] for j in idx]
        _spread_group(k[0], k[1], ps, v, r, gap, where, rank)
        sizes[v.px(*k)] = len(ps)
        for p in ps:
            if v.contains(p.x, p.y):
                x, y = where[p.actor]
                b = (x - r * 2, y - r * 2, x + r * 2, y + r * 2)
                if boxes.get(p.actor) != b:  # (the same box kept: the placer sees it so)
                    boxes[p.actor] = b
            else:
                boxes.pop(p.actor, None)
    return (where, rank, sizes, list(boxes.values())), (groups, boxes), moved


# keys of the things remembered with a layout besides the orders (by actor, a str)
_VISIBLE, _CROWDS, _SOLO, _POS, _KEYS = (0,), (1,), (2,), (3,), (4,)


def _same_standing(a: Person, b: Person) -> bool:
    """Whether two states of one person are laid out and grouped alike: the same point,
    facing and row (``_people_layout``), crowd and place word (``_crowds``), and name."""
    return (
        a.actor == b.actor
        and a.x == b.x
        and a.y == b.y
        and a.facing == b.facing
        and a.row == b.row
        and a.member_of == b.member_of
        and a.place == b.place
        and a.name == b.name
    )


def _swap_orders(orders: dict[Any, Any], swaps: list[tuple[Person, Person]]) -> dict[Any, Any]:
    """The people remembered with a layout (``_people_memo``), each old object of
    ``swaps`` replaced by its new one: the same lists in the same order. The labels'
    orders by actor are dropped (made again when asked, from these)."""
    out: dict[Any, Any] = {}
    visible = orders.get(_VISIBLE)
    if visible is None:
        return out
    pos = orders.get(_POS)
    if pos is None:
        # where each person is in the lists, once per layout (swapping keeps it)
        pos = (
            {p.actor: k for k, p in enumerate(visible)},
            {p.actor: k for k, p in enumerate(orders[_SOLO])},
        )
    visible, solo = list(visible), list(orders[_SOLO])
    crowds: _Crowds = orders[_CROWDS]
    groups = crowds.groups
    for old, new in swaps:
        k = pos[0].get(old.actor)
        if k is not None:
            visible[k] = new
        k = pos[1].get(old.actor)
        if k is not None:
            solo[k] = new
        if old.actor in crowds.members:
            if groups is crowds.groups:
                groups = dict(groups)
            for g, ps in groups.items():
                for j, q in enumerate(ps):
                    if q is old:
                        groups[g] = ps = list(ps)
                        ps[j] = new
    if groups is not crowds.groups:
        c = _Crowds.__new__(_Crowds)
        c.groups, c.anchors, c.members = groups, crowds.anchors, crowds.members
        crowds = c
    out[_VISIBLE], out[_SOLO], out[_CROWDS], out[_POS] = visible, solo, crowds, pos
    if _KEYS in orders:  # (those swapped stand as they stood: the same crowds)
        out[_KEYS] = orders[_KEYS]
    return out


class _Crowds:
    """The crowds of a step: the people labelled together by group (in cast order), every
    one of them, and where each group's label is anchored (the middle of its block, and
    the block's half width, so that the label goes beside the block)."""

    __slots__ = ("anchors", "groups", "members")

    def __init__(
        self,
        groups: dict[str, list[Person]],
        anchors: dict[str, tuple[float, float, float]],
    ) -> None:
        self.groups = groups
        self.anchors = anchors
        self.members = frozenset(p.actor for ps in groups.values() for p in ps)


def _crowd_keys(
    plist: list[Person], v: View, rank: dict[str, tuple[float, float, int]], sizes: Any
) -> tuple[list[bool], list[str | None], dict[str, list[int]]]:
    """For ``_moved_orders``: whether each of ``plist`` is in the view, the key of the
    crowd he would belong to (as ``_crowds`` finds it: None for a member of a group or one
    without a place word), and the indexes with each key, in order."""
    x0, x1, y0, y1 = v.x0, v.x1, v.y0, v.y1
    vis = [x0 <= p.x <= x1 and y0 <= p.y <= y1 for p in plist]
    keys = [_crowd_key(p, rank, sizes) for p in plist]
    by: dict[str, list[int]] = {}
    for i, k in enumerate(keys):
        if k is not None and vis[i]:
            by.setdefault(k, []).append(i)
    return vis, keys, by


def _crowd_key(p: Person, rank: dict[str, tuple[float, float, int]], sizes: Any) -> str | None:
    """The key of the crowd ``p`` would belong to: his point, where more than ``CROWD``
    stand at it, else his place word (None for a member of a group, or one without it)."""
    if p.member_of is not None:
        return None
    g = rank[p.actor]
    if sizes[(g[0], g[1])] > CROWD:
        return f"@{_f(g[0])},{_f(g[1])}"
    return p.place or None


def _moved_orders(
    orders: dict[Any, Any],
    v: View,
    r: float,
    layout: tuple[Any, ...],
    plist: list[Person],
    moved: set[int],
) -> dict[Any, Any]:
    """The people remembered with a layout (``_people_memo``: those in the view, the crowds
    and those labelled alone) after those at ``moved`` were laid out again
    (``_move_layout``), from those remembered before: only the crowds they left or joined
    are found again. The same as found anew (``_crowds``); empty where nothing was
    remembered (found anew when asked)."""
    if _VISIBLE not in orders:
        return {}
    where, rank, sizes = layout[0], layout[1], layout[2]
    old = orders.get(_KEYS)
    if old is None:
        return {}  # found anew, with the keys for the next move
    vis, keys, by = list(old[0]), list(old[1]), dict(old[2])
    x0, x1, y0, y1 = v.x0, v.x1, v.y0, v.y1
    redo: set[str] = set()
    for i in sorted(moved):
        p = plist[i]
        ko = keys[i] if vis[i] else None
        vis[i] = x0 <= p.x <= x1 and y0 <= p.y <= y1
        keys[i] = _crowd_key(p, rank, sizes)
        kn = keys[i] if vis[i] else None
        if ko is not None:
            redo.add(ko)  # (laid out again: its block's anchor moves too)
            if ko != kn:
                ix = by[ko] = [j for j in by[ko] if j != i]
                if not ix:
                    del by[ko]
        if kn is not None:
            redo.add(kn)
            if ko != kn:
                was = by.get(kn)
                by[kn] = [i] if was is None else sorted([*was, i])
    crowds: _Crowds = orders[_CROWDS]
    groups: dict[str, list[Person]] = {}
    anchors: dict[str, tuple[float, float, float]] = {}
    # in the order of their first members (the order ``_crowds`` finds them in)
    for k in sorted((k for k, ix in by.items() if len(ix) > CROWD), key=lambda k: by[k][0]):
        if k not in redo and k in crowds.groups:
            groups[k], anchors[k] = crowds.groups[k], crowds.anchors[k]
            continue
        ps = groups[k] = [plist[j] for j in by[k]]
        anchors[k] = _crowd_anchor(ps, where, r)
    c = _Crowds(groups, anchors)
    visible = list(itertools.compress(plist, vis))
    return {
        _VISIBLE: visible,
        _CROWDS: c,
        _SOLO: [p for p in visible if p.actor not in c.members],
        _KEYS: (vis, keys, by),
    }


def _crowds(
    people: list[Person],
    rank: dict[str, tuple[float, float, int]],
    sizes: dict[tuple[float, float], int],
    where: dict[str, tuple[float, float]],
    r: float,
) -> _Crowds:
    """The people (those in the view, in cast order) labelled as a crowd: more than
    ``CROWD`` at one point, or, each being a body at his own point, sent to one place word
    (the 衆耦 waiting at 堂西). Each group is keyed by its place word (or point), so that
    its label is the same one from step to step."""
    by: dict[str, list[Person]] = {}
    for p in people:
        k = _crowd_key(p, rank, sizes)
        if k is None:
            continue
        ps = by.get(k)
        if ps is None:
            by[k] = [p]
        else:
            ps.append(p)
    groups: dict[str, list[Person]] = {}
    anchors: dict[str, tuple[float, float, float]] = {}
    for k, ps in by.items():
        if len(ps) <= CROWD:
            continue
        anchors[k] = _crowd_anchor(ps, where, r)
        groups[k] = ps
    return _Crowds(groups, anchors)


def _crowd_anchor(
    ps: list[Person], where: dict[str, tuple[float, float]], r: float
) -> tuple[float, float, float]:
    """The centre of a crowd's block and the radius round it (its label stands beside it)."""
    xs = [where[p.actor][0] for p in ps]
    ys = [where[p.actor][1] for p in ps]
    gx, gy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    return gx, gy, max(max(xs) - gx, max(ys) - gy) + r

"""The people: where each stands in the view, and his figure, facing, dressed and holding
(docs/diagrams.md).

A person's label is his name, in the name's size, with what he holds beneath (nothing here):

>>> from sheli.engine.state import Holding
>>> _person_lines("司射", Holding(), None)[0]
((('司射', 12.0),),)
"""

from __future__ import annotations

import math
from functools import lru_cache
from html import escape
from typing import Any

from sheli.engine.state import Holding
from sheli.outputs.diagram.memo import _MEMO, _changed
from sheli.outputs.diagram.plan import View
from sheli.outputs.diagram.style import (
    _ACTOR,
    _DRESS_COLOUR,
    CROWD,
    FACING,
    HOLD_SIZE,
    NAME_SIZE,
    ROW_MAX,
    SAYS_SIZE,
    _f,
)
from sheli.outputs.diagram.words import _hold, _tr
from sheli.outputs.frames import Person
from sheli.outputs.labels import (
    size_of,
)

# -- people ----------------------------------------------------------------------------------


def _spread(
    frame: Any, v: View, r: float, spacing: float
) -> tuple[dict[str, tuple[float, float]], dict[str, tuple[float, float, int]]]:
    """Where each figure is drawn (px). People at one point in the log are drawn side by
    side, in a row across their facing, the first (cast order) on their point and at the
    head of the row the text names in the step's note (北上 …), else with the row going
    away from his left hand; ``spacing`` 尺 apart (the place model's row offset); more than
    ``ROW_MAX`` stand in ranks, each behind the one before.

    Returns where each is drawn, and for each the px of his group's point and his index in
    it (to label a row in its order)."""
    people = frame.people
    groups: dict[tuple[float, float], list[Any]] = {}
    for p in people.values():
        groups.setdefault((round(p.x, 1), round(p.y, 1)), []).append(p)
    out: dict[str, tuple[float, float]] = {}
    rank: dict[str, tuple[float, float, int]] = {}
    gap = max(2.2 * r, spacing * v.scale)
    for (x, y), ps in groups.items():
        _spread_group(x, y, ps, v, r, gap, out, rank)
    return out, rank


def _spread_group(
    x: float,
    y: float,
    ps: list[Any],
    v: View,
    r: float,
    gap: float,
    out: dict[str, tuple[float, float]],
    rank: dict[str, tuple[float, float, int]],
) -> None:
    """``_spread`` of the people ``ps`` (in cast order) at the point (x, y) 尺: where each
    is drawn and his rank, put in ``out`` and ``rank``."""
    cx, cy = v.px(x, y)
    for k, p in enumerate(ps):
        rank[p.actor] = (cx, cy, k)
    if len(ps) == 1:
        out[ps[0].actor] = (cx, cy)
        return
    f = FACING.get(ps[0].facing or "S", (0.0, -1.0))
    # the left hand of the facing, on screen (y down)
    lx, ly = -f[1], -f[0]
    head = (lx, ly)
    row = ps[0].row
    if row:
        d = {"北上": (0, -1), "南上": (0, 1), "東上": (1, 0), "西上": (-1, 0)}[row]
        # head of the row towards that quarter, when it lies across the facing
        if abs(d[0] * lx + d[1] * ly) > 0.5:
            sgn = 1 if (d[0] * lx + d[1] * ly) > 0 else -1
            head = (lx * sgn, ly * sgn)
    # the head of the row stands on the point (the engine puts a row at its head's
    # place); the others follow away from the head
    # a long row (堂西 with the 衆耦) folds into ranks, one behind another: of ROW_MAX,
    # or for a crowd a square block, drawn closer
    n = len(ps)
    per_rank = max(ROW_MAX, math.ceil(math.sqrt(n)))
    g = gap if n <= CROWD else 2.2 * r
    bx, by = -f[0], f[1]  # behind him, on screen
    for k, p in enumerate(ps):
        i, j = k % per_rank, k // per_rank
        out[p.actor] = (
            cx - head[0] * i * g + bx * j * g,
            cy - head[1] * i * g + by * j * g,
        )


class _Stand:
    """What ``_spread`` reads of a person (a remembered layout is keyed on it)."""

    __slots__ = ("actor", "facing", "row", "x", "y")

    def __init__(self, actor: str, x: float, y: float, facing: str | None, row: str | None):
        self.actor, self.x, self.y, self.facing, self.row = actor, x, y, facing, row


class _Standing:
    __slots__ = ("people",)

    def __init__(self, people: dict[str, _Stand]) -> None:
        self.people = people


@lru_cache(maxsize=1024)
def _people_layout(
    v: View, r: float, spacing: float, key: tuple[tuple[Any, ...], ...]
) -> tuple[
    dict[str, tuple[float, float]],
    dict[str, tuple[float, float, int]],
    dict[tuple[float, float], int],
    list[tuple[float, float, float, float]],
]:
    """``_spread`` of the people standing as ``key`` says (actor, x, y, facing, row of
    each, in order), with the size of each group and the figures' boxes (obstacles for the
    labels, as (x0, y0, x1, y1)): a function of exactly these, so remembered (most steps
    move nobody or one)."""
    people = {k[0]: _Stand(*k) for k in key}
    where, rank = _spread(_Standing(people), v, r, spacing)
    sizes: dict[tuple[float, float], int] = {}
    for gx, gy, _ in rank.values():
        sizes[(gx, gy)] = sizes.get((gx, gy), 0) + 1
    figure_boxes = [
        (x - r * 2, y - r * 2, x + r * 2, y + r * 2)
        for a, (x, y) in where.items()
        if v.contains(people[a].x, people[a].y)
    ]
    return where, rank, sizes, figure_boxes


_EMPTY = Holding()


@lru_cache(maxsize=8192)
def _person_lines(
    label: str, holding: Holding | None, says: str | None, lang: str = "zh-Hant"
) -> tuple[tuple[tuple[tuple[str, float], ...], ...], tuple[float, float]]:
    """A person's label: one line, the name, then what he holds in smaller type (a row of
    people 3 尺 apart can then be labelled beside its figures); the words spoken under it,
    for the speaker. With its size. ``label`` is in ``lang`` already; the words spoken are
    the text's own (in brackets in English)."""
    first: tuple[tuple[str, float], ...] = ((label, NAME_SIZE),)
    ht = "·".join(_hold(holding, lang)) if holding is not None else ""
    if ht:
        first += ((ht, HOLD_SIZE),)
    if says is not None:
        says = f"(「{says}」)" if lang == "en" else _tr(lang)(f"「{says}」")
    lines = (first,) if says is None else (first, ((says, SAYS_SIZE),))
    return lines, size_of(lines)


def _figure(p: Person, x: float, y: float, r: float, actor: bool, raised: bool) -> str:
    """A person: a disc, his facing, 袒 and 決遂, and what he holds."""
    fx, fy = FACING.get(p.facing or "", (0.0, 0.0))
    sx, sy = fx, -fy  # on screen
    lx, ly = sy, -sx  # his left hand, on screen: rotate the facing a quarter anticlockwise
    if not p.facing:
        lx, ly = -1.0, 0.0
    rx, ry = -lx, -ly
    parts = []
    if actor:
        parts.append(
            f'<circle class="halo" cx="{_f(x)}" cy="{_f(y)}" r="{_f(r * 1.9)}" '
            f'fill="{_ACTOR}" fill-opacity=".18" stroke="{_ACTOR}" stroke-width="1.5"/>'
        )
    fill = "#fff" if p.inferred else "#f7f7f7"
    stroke = _ACTOR if actor else "#222"
    parts.append(
        f'<circle class="body" cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="{fill}" '
        f'stroke="{stroke}" stroke-width="{1.8 if actor else 1.1}"/>'
    )
    if "袒" in p.dress:  # the left arm bared: the left half shaded
        a = (x + sx * r, y + sy * r)
        b = (x - sx * r, y - sy * r)
        parts.append(
            f'<path class="tan" d="M{_f(a[0])} {_f(a[1])}A{_f(r)} {_f(r)} 0 0 0 '
            f'{_f(b[0])} {_f(b[1])}Z" fill="{_DRESS_COLOUR}"/>'
            if p.facing
            else f'<circle class="tan" cx="{_f(x + lx * r * 0.5)}" cy="{_f(y)}" '
            f'r="{_f(r * 0.5)}" fill="{_DRESS_COLOUR}"/>'
        )
    if "決遂" in p.dress:  # a ring at the right hand (決 on the thumb)
        jx, jy = x + rx * r * 1.25 + sx * r * 0.35, y + ry * r * 1.25 + sy * r * 0.35
        parts.append(
            f'<circle class="jue" cx="{_f(jx)}" cy="{_f(jy)}" r="{_f(max(r * 0.28, 1.6))}" '
            'fill="none" stroke="#1a5276" stroke-width="1.2"/>'
        )
    if p.facing:
        tx, ty = x + sx * r * 1.9, y + sy * r * 1.9
        parts.append(
            f'<line class="facing" data-facing="{p.facing}" x1="{_f(x)}" y1="{_f(y)}" '
            f'x2="{_f(tx)}" y2="{_f(ty)}" stroke="{stroke}" stroke-width="1.6"/>'
        )
        hx, hy = tx - sx * r * 0.6, ty - sy * r * 0.6
        parts.append(
            f'<path class="facing-head" d="M{_f(tx)} {_f(ty)}L{_f(hx + lx * r * 0.35)} '
            f'{_f(hy + ly * r * 0.35)}L{_f(hx - lx * r * 0.35)} {_f(hy - ly * r * 0.35)}Z" '
            f'fill="{stroke}"/>'
        )
    h = p.holding if p.holding is not None else _EMPTY
    # the bow in the left hand: strung (張弓) a bent bow with its string; unstrung (弛弓) a
    # shallow reversed curve without one
    bx, by = x + lx * r * 1.45, y + ly * r * 1.45
    ux, uy = sx * r * 0.95, sy * r * 0.95
    if h.bow == "張":
        parts.append(
            f'<path class="bow zhang" d="M{_f(bx - ux)} {_f(by - uy)}Q{_f(bx + lx * r * 0.8)} '
            f'{_f(by + ly * r * 0.8)} {_f(bx + ux)} {_f(by + uy)}Z" fill="none" '
            'stroke="#7d3c98" stroke-width="1.2"/>'
        )
    elif h.bow == "弛":
        parts.append(
            f'<path class="bow chi" d="M{_f(bx - ux)} {_f(by - uy)}Q{_f(bx - lx * r * 0.3)} '
            f'{_f(by - ly * r * 0.3)} {_f(bx + ux)} {_f(by + uy)}" fill="none" '
            'stroke="#7d3c98" stroke-width="1.6" stroke-dasharray="3 1.5"/>'
        )
    if h.discipline_rod:  # 扑 at the belt (搢扑) or in hand
        k = 0.0 if h.discipline_rod == "搢" else 1.0
        px0, py0 = x + rx * r * (0.6 + k * 0.6), y + ry * r * (0.6 + k * 0.6)
        parts.append(
            f'<line class="pu" x1="{_f(px0 - sx * r * 0.9)}" y1="{_f(py0 - sy * r * 0.9)}" '
            f'x2="{_f(px0 + sx * r * 0.9)}" y2="{_f(py0 + sy * r * 0.9)}" stroke="#6e2c00" '
            'stroke-width="2"/>'
        )
    if h.count("旌") > 0:  # the flag: up when raised (獲), its pole leaning when lowered (偃)
        gx, gy = x + rx * r * 1.2, y + ry * r * 1.2
        if raised:
            parts.append(
                f'<g class="jing raised"><line x1="{_f(gx)}" y1="{_f(gy)}" x2="{_f(gx)}" '
                f'y2="{_f(gy - r * 3.2)}" stroke="#333" stroke-width="1.2"/><path d="M{_f(gx)} '
                f'{_f(gy - r * 3.2)}l{_f(r * 1.2)} {_f(r * 0.4)}l{_f(-r * 1.2)} {_f(r * 0.4)}z" '
                f'fill="#c0392b"/></g>'
            )
        else:
            parts.append(
                f'<g class="jing"><line x1="{_f(gx)}" y1="{_f(gy)}" x2="{_f(gx + sx * r * 2.2)}" '
                f'y2="{_f(gy + sy * r * 2.2)}" stroke="#333" stroke-width="1.2"/></g>'
            )
    for cup, n in h.items:
        if cup in ("觶", "爵") and n > 0:
            full = h.cup_full
            name = f"{cup}({'實' if full else '虛'})"
            cx, cy = x + rx * r * 0.9 + sx * r * 1.1, y + ry * r * 0.9 + sy * r * 1.1
            parts.append(
                f'<circle class="zhi {"full" if full else "empty"}" data-name="{name}" '
                f'cx="{_f(cx)}" cy="{_f(cy)}" r="{_f(max(r * 0.35, 2))}" '
                f'fill="{"#b7950b" if full else "#fff"}" stroke="#7d6608"/>'
            )
    return "".join(parts)


@lru_cache(maxsize=16384)
def _person_svg(
    actor: str,
    role: str,
    name: str | None,
    facing: str | None,
    dress: tuple[str, ...],
    holds: tuple[str, ...],
    holding: Holding | None,
    inferred: bool,
    px: float,
    py: float,
    true_x: float,
    true_y: float,
    x: float,
    y: float,
    r: float,
    is_actor: bool,
    raised: bool,
    acting: bool = False,
) -> str:
    """A person's ``<g>`` (his lines of the SVG, joined as ``render_svg`` joins them): a
    function of exactly its arguments, everything of him that is drawn, so it is cached."""
    p = Person(
        actor, role, name, px, py, facing, dress, holds, None, inferred=inferred, holding=holding
    )
    cls = "person actor" if is_actor else "person acting" if acting else "person"
    out = [
        f'<g class="{cls}" data-actor="{escape(actor)}" data-role="{escape(role)}" '
        f'data-facing="{facing or ""}" data-dress="{escape(" ".join(dress))}" '
        f'data-holds="{escape(" ".join(holds))}" data-x="{_f(px)}" data-y="{_f(py)}" '
        f'data-cx="{_f(x)}" data-cy="{_f(y)}"'
        + (f' data-name="{escape(name)}"' if name else "")
        + ">"
    ]
    if abs(x - true_x) > 0.5 or abs(y - true_y) > 0.5:
        out.append(
            f'<line class="spread" x1="{_f(true_x)}" y1="{_f(true_y)}" x2="{_f(x)}" '
            f'y2="{_f(y)}" stroke="#aaa" stroke-width=".6"/>'
        )
    out.append(_figure(p, x, y, r, is_actor or acting, raised))
    out.append("</g>")
    return "\n".join(out)


def _figure_svg(
    p: Person,
    v: View,
    where: dict[str, tuple[float, float]],
    r: float,
    actor: str,
    raised: bool,
) -> str:
    """A person's figure as ``render_svg_parts`` draws it (taken from the last drawing of
    him where it was drawn from the same)."""
    x, y = where[p.actor]
    is_actor = p.actor == actor
    # the other members of the group that acts (衆賓2 …) are drawn acting, not as the actor
    acting = p.member_of is not None and p.member_of == actor
    up = raised and p.actor == "獲者"
    persons = _MEMO.persons.get(v.name)
    if persons is None:
        persons = _MEMO.persons[v.name] = {}
    e = persons.get(p.actor)
    # the same person (object), drawn in the same view at the same point as last time
    if (
        e is not None
        and e[0] is p
        and e[1] is v
        and e[2] == x
        and e[3] == y
        and e[4] == r
        and e[5] == is_actor
        and e[6] == up
        and e[8] == acting
    ):
        return e[7]
    true_x, true_y = v.px(p.x, p.y)
    svg = _person_svg(
        p.actor,
        p.role,
        p.name,
        p.facing,
        p.dress,
        p.holds,
        p.holding,
        p.inferred,
        p.x,
        p.y,
        true_x,
        true_y,
        x,
        y,
        r,
        is_actor,
        up,
        acting,
    )
    persons[p.actor] = (p, v, x, y, r, is_actor, up, svg, acting)
    return svg


_NO_FIGURES = (None, None, None, None, None, None, ())


def _figures(
    visible: list[Person],
    where: dict[str, tuple[float, float]],
    v: View,
    r: float,
    actor: str,
    raised: bool,
    people: Any,
) -> list[str]:
    """The figures of ``visible``, in order. Where the last call drew the same list but
    for a few new objects, in the same layout, only those are drawn again, with the
    actor, his group's members and the 獲者 of this call and of the last (their marks
    change with the actor and the 旌)."""
    last = _MEMO.figures.get(v.name, _NO_FIGURES)
    changed = None
    if last[2] is v and last[3] == r:
        changed = _changed(last[0], visible)
        if changed is not None and last[1] is not where:
            # laid out again (someone moved, and those at the points he left and came to
            # with him): those now drawn elsewhere are drawn again too
            get, ch = last[1].get, set(changed)
            wf = _MEMO.where_from
            if wf[0] is where and wf[1] is last[1]:
                # laid out from the last layout: only those laid out again may stand
                # elsewhere (``_move_layout``)
                lpos = last[5]
                for a in wf[2]:
                    k = lpos.get(a)
                    if k is not None and get(a) != where.get(a):
                        ch.add(k)
                changed = sorted(ch)
            else:
                changed = [
                    k for k, p in enumerate(visible) if k in ch or get(p.actor) != where[p.actor]
                ]
    if changed is None:
        svgs = [_figure_svg(p, v, where, r, actor, raised) for p in visible]
        pos = {p.actor: k for k, p in enumerate(visible)}
    else:
        svgs, pos = list(last[4]), last[5]
        old = last[0]
        if any(old[k].actor != visible[k].actor for k in changed):
            pos = {p.actor: k for k, p in enumerate(visible)}
    marked = [actor, "獲者"]
    a = people.get(actor)
    if a is not None:
        marked += [m.actor for m in a.members]
    at = [k for k in (pos.get(n) for n in marked) if k is not None]
    if changed is not None:
        for k in {*changed, *last[6], *at}:
            svgs[k] = _figure_svg(visible[k], v, where, r, actor, raised)
    _MEMO.figures[v.name] = (visible, where, v, r, svgs, pos, at)
    return svgs

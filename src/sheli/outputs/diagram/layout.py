"""The layout of a step: the view, everyone in it, the walks, and the labels placed clear of them
all.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from functools import lru_cache
from html import escape
from typing import Any

from sheli.engine.records import Scene
from sheli.outputs.diagram.crowds import _people_memo
from sheli.outputs.diagram.figures import _person_lines
from sheli.outputs.diagram.memo import _MEMO, _changed
from sheli.outputs.diagram.plan import View, _layout, _static_plan, _venue, beast_hou, choose_view
from sheli.outputs.diagram.present import _FrameView
from sheli.outputs.diagram.style import _ACTOR, _PATH, MARGIN, NAME_SIZE, _box_attr, _Canvas, _f
from sheli.outputs.diagram.things import _things_memo
from sheli.outputs.diagram.words import _person, _tr
from sheli.outputs.frames import Frame, Person
from sheli.outputs.labels import (
    LINE_HEIGHT,
    RUN_GAP,
    Box,
    Label,
    LabelMemory,
    place_labels,
    size_of,
    text_width,
)
from sheli.place.model import Venue


def _labels_of(specs: Any) -> list[Label]:
    """The labels of ``specs`` (key, lines, anchor x and y, radius, size each), the same
    objects for the very same specs (the plan's of a view, the things' while they stay).

    >>> specs = (("fixture:阼階", (((("阼階", 12.0),),)), 10.0, 20.0, 4.0, (30.0, 16.0)),)
    >>> _labels_of(specs) is _labels_of(specs), _labels_of(specs)[0].ax
    (True, 10.0)
    """
    e = _MEMO.label_lists.get(id(specs))
    if e is not None and e[0] is specs:
        return e[1]
    labels = [Label(k, lines, ax, ay, r, _size=sz) for k, lines, ax, ay, r, sz in specs]
    if len(_MEMO.label_lists) >= 64:
        _MEMO.label_lists.clear()  # (a view's plan and the things of the last few steps)
    _MEMO.label_lists[id(specs)] = (specs, labels)
    return labels


def _layout_all(
    frame: _FrameView,
    scene: Scene,
    highlight: str | None,
    width: int,
    view: str,
    lang: str = "zh-Hant",
    label_memory: LabelMemory | None = None,
) -> tuple[View, Venue, _Canvas, list[Label], dict[str, tuple[float, float]], float, str]:
    venue = _venue(scene.venue or "xie")
    name = choose_view(frame, view)
    v = _layout(name, width, frame, highlight, scene.venue or "xie")
    c = _Canvas()
    venue_key = scene.venue or "xie"
    plan_svg, plan_boxes, plan_labels, plan_grid = _static_plan(
        venue_key, v, beast_hou(scene), lang
    )
    if plan_svg:
        c.add(plan_svg)
    c.fixture_boxes.extend(plan_boxes)
    things_svg, things_boxes, things_labels, things_t = _things_memo(
        venue_key, v, frame.objects, lang
    )
    if any(things_svg):
        c.parts.extend(things_svg)
    c.fixture_boxes.extend(things_boxes)
    fixture_labels = [*_labels_of(plan_labels), *_labels_of(things_labels)]
    # a figure: radius 1 尺, kept legible (and not swamping the hall view)
    r = min(max(1.0 * v.scale, 5.0), 16.0 if v.name == "near" else 9.0)
    actor = highlight if highlight is not None else frame.actor
    where, _, _, figure_boxes, order, _, crowds = _people_memo(
        v, r, venue.offset("row"), frame.plist, actor or ""
    )
    plabels = []
    speaker, says = frame.actor, frame.says or None
    r2 = r * 2.0
    made = _MEMO.person_labels
    for p in order:
        if p.member_of is not None:
            continue  # a member's figure is drawn beside his group's (labelled by its head)
        x, y = where[p.actor]
        who = _person(p.actor, p.name, lang)
        lines, size = _person_lines(who, p.holding, says if p.actor == speaker else None, lang)
        # his label of the step before, while it reads and stands the same (its box is set
        # anew by each placement)
        key = f"person:{p.actor}"
        lab = made.get(key)
        if lab is None or lab.lines is not lines or lab.ax != x or lab.ay != y or lab.r != r2:
            lab = made[key] = Label(key, lines, x, y, r2, _size=size)
        plabels.append(lab)
    for gkey, ps in crowds.groups.items():
        # a crowd: one label beside its block, the first and last of it and how many
        # (xiangshe:210 衆射者), but for the actor; each member is named in the viewer on
        # hover or tap
        if actor in crowds.members:
            ps = [p for p in ps if p.actor != actor]
        tr = _tr(lang)
        text = tr("{first} … {last}（{n}人）").format(
            first=_person(ps[0].actor, ps[0].name, lang),
            last=_person(ps[-1].actor, ps[-1].name, lang),
            n=len(ps),
        )
        gx, gy, half = crowds.anchors[gkey]
        lines = (((text, NAME_SIZE),),)
        plabels.append(Label(f"group:{gkey}", lines, gx, gy, half, _size=size_of(lines)))
    # obstacles: the fixtures' shapes and every figure (labels keep clear of people too)
    # and the actor's way, so that his label does not hide where he walked
    me = frame.people.get(actor or "")
    walk = []
    if me is not None and me.moved_at == frame.seq:
        walk = _path_boxes(_drawn_path(me, v, where))
    b = v.box
    bounds = Box(MARGIN / 2, b.y0, width - MARGIN / 2, b.y1)
    if v.name == "hall":
        bounds = Box(MARGIN / 2, b.y0, b.x1 + 4, b.y1)
    bottom = b.y1 + 8
    overflow = Box(MARGIN, bottom + 30, width - MARGIN, bottom + 10_000)
    # the plan's own boxes are in ``plan_grid``, built once for the view
    labels = place_labels(
        fixture_labels + plabels,
        [*things_t, *figure_boxes],
        bounds,
        overflow=overflow,
        base=plan_grid,
        keep=label_memory,
        passing=walk,
    )
    return v, venue, c, labels, where, r, actor or ""


def _drawn_path(
    p: Person, v: View, where: dict[str, tuple[float, float]]
) -> list[tuple[float, float]]:
    """A person's path in px, ending where his figure is drawn."""
    pts = [v.px(*q) for q in p.path]
    if pts and p.actor in where:
        pts[-1] = where[p.actor]
    return pts


@lru_cache(maxsize=4096)
def _path_svg(
    actor: str,
    path: tuple[tuple[float, float], ...],
    v: View,
    end: tuple[float, float] | None,
    me: bool,
) -> str:
    """A walk drawn (``_drawn_path``: ending at ``end``, where his figure is drawn, if
    he is drawn), bold for the actor's walk in this step: a function of its arguments, so
    remembered (a group's walks are drawn at each of its steps)."""
    pts = [v.px(*q) for q in path]
    if pts and end is not None:
        pts[-1] = end
    points = " ".join(f"{_f(x)},{_f(y)}" for x, y in pts)
    return (
        f'<polyline class="path{" actor-path" if me else ""}" data-actor="{escape(actor)}"'
        f' points="{points}" fill="none" stroke="{_PATH}" stroke-width="{2 if me else 1}" '
        f'stroke-opacity="{1 if me else 0.45}" stroke-dasharray="{"none" if me else "4 3"}"'
        f' marker-end="url(#arrowhead)"/>'
    )


def _path_boxes(
    pts: list[tuple[float, float]], step: float = 6.0
) -> list[tuple[float, float, float, float]]:
    """Small boxes along a polyline (obstacles for labels), as (x0, y0, x1, y1).

    >>> _path_boxes([(0, 0), (6, 0)])
    [(-2.0, -2.0, 2.0, 2.0), (4.0, -2.0, 8.0, 2.0)]
    """
    out = []
    for (x0, y0), (x1, y1) in itertools.pairwise(pts):
        n = max(int(math.dist((x0, y0), (x1, y1)) / step), 1)
        for k in range(n + 1):
            x, y = x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n
            out.append((x - 2, y - 2, x + 2, y + 2))
    return out


@lru_cache(maxsize=16384)
def _label_svg(
    key: str,
    lines: tuple[tuple[tuple[str, float], ...], ...],
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    leader: bool,
    ax: float,
    ay: float,
    is_actor: bool,
) -> str:
    """A placed label's ``<g>``: a function of exactly its arguments, so it is cached."""
    bx = Box(x0, y0, x1, y1)
    kind = key.split(":", 1)[0]
    parts = [f'<g class="label {kind}-label" data-for="{escape(key)}" {_box_attr(bx)}>']
    if leader:
        cx = min(max(ax, bx.x0), bx.x1)
        cy = min(max(ay, bx.y0), bx.y1)
        parts.append(
            f'<line class="leader" x1="{_f(ax)}" y1="{_f(ay)}" x2="{_f(cx)}" '
            f'y2="{_f(cy)}" stroke="#999" stroke-width=".6"/>'
        )
    if kind == "person":
        parts.append(
            f'<rect x="{_f(bx.x0)}" y="{_f(bx.y0)}" width="{_f(bx.x1 - bx.x0)}" '
            f'height="{_f(bx.y1 - bx.y0)}" fill="#fff" fill-opacity=".85" '
            f'stroke="{_ACTOR if is_actor else "none"}" stroke-width=".8"/>'
        )
    ty = bx.y0 + 1
    for li, line in enumerate(lines):
        hmax = max(size for _, size in line)
        ty += hmax * LINE_HEIGHT
        tx = bx.x0 + 2
        for ri, (text, size) in enumerate(line):
            colour = _ACTOR if is_actor else ("#222" if kind == "person" else "#6b5b3e")
            if kind == "person" and ri > 0:
                colour = "#555"
            if li > 0 and kind == "person":
                colour = _ACTOR
            weight = ' font-weight="bold"' if is_actor and ri == 0 else ""
            parts.append(
                f'<text x="{_f(tx)}" y="{_f(ty - hmax * 0.3)}" font-size="{_f(size)}" '
                f'fill="{colour}"{weight}>{escape(text)}</text>'
            )
            tx += text_width(text, size)
            if ri + 1 < len(line):
                tx += RUN_GAP * min(size, line[ri + 1][1])
    parts.append("</g>")
    return "".join(parts)


def _movers(people: list[Person], group_from: int) -> list[Person]:
    """Those of ``people`` who walked in this run of steps on the same 經 words (at or
    after ``group_from``), in order: the last list's where the same people come in the
    same order and only a few are new objects (a step changes one person or a few).

    >>> from sheli.outputs.frames import Person
    >>> a = Person("甲", "r", None, 0, 0, None, (), (), None, path=((0, 0), (1, 1)), moved_at=5)
    >>> b = Person("乙", "r", None, 0, 0, None, (), (), None)
    >>> [p.actor for p in _movers([a, b], 3)], _movers([a, b], 6)
    (['甲'], [])
    """
    last_people, last_from, idx = _MEMO.movers
    changed = _changed(last_people, people) if last_from == group_from else None
    if changed is None:
        idx = [i for i, p in enumerate(people) if p.path and p.moved_at >= group_from]
    elif changed:
        now = set(idx)
        for i in changed:
            p = people[i]
            if p.path and p.moved_at >= group_from:
                now.add(i)
            else:
                now.discard(i)
        if len(now) != len(idx) or not now.issuperset(idx):
            idx = sorted(now)
    _MEMO.movers = (people, group_from, idx)
    return [people[i] for i in idx]


def label_boxes(
    frame: Frame,
    scene: Scene,
    *,
    width: int = 900,
    view: str = "auto",
    lang: str = "zh-Hant",
    label_memory: LabelMemory | None = None,
) -> tuple[list[Label], list[Box]]:
    """The placed labels of a frame's diagram and the fixtures' boxes, as the renderer
    draws them (for tests and for the viewer's hit-testing); ``label_memory`` as for
    :func:`render_svg_parts`. The labels are copies: the drawing's own are placed again by
    the next diagram."""
    fv = _FrameView(frame)
    _, _, c, labels, _, _, _ = _layout_all(fv, scene, None, width, view, lang, label_memory)
    return [replace(lab) for lab in labels], list(c.fixture_boxes)


def body_boxes(
    frame: Frame, scene: Scene, *, width: int = 900, view: str = "auto"
) -> dict[str, Box]:
    """The disc of every body drawn in a frame's diagram (each member of a role that is
    several people a body of his own), by name, as the renderer draws them: what no label
    may cover (for tests).

    >>> from sheli.engine import run
    >>> from sheli.outputs.frames import build_frames
    >>> r = run("xiangshe", seed=1)
    >>> sorted(n for n in body_boxes(build_frames(r)[0], r.scene) if n.startswith("衆賓"))
    ['衆賓', '衆賓2', '衆賓3']
    """
    fv = _FrameView(frame)
    v, _, _, _, where, r, _ = _layout_all(fv, scene, None, width, view)
    return {
        p.actor: Box(
            where[p.actor][0] - r,
            where[p.actor][1] - r,
            where[p.actor][0] + r,
            where[p.actor][1] + r,
        )
        for p in fv.plist
        if v.contains(p.x, p.y)
    }

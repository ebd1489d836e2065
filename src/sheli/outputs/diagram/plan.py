"""The plan: the views of the hall and the courtyard, the 侯 and the fixtures drawn to scale
(docs/diagrams.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from html import escape
from typing import Any

from sheli.engine import venue_plan
from sheli.engine.records import Scene
from sheli.outputs.diagram.present import _FrameView
from sheli.outputs.diagram.style import (
    FIX_SIZE,
    GATE_MARGIN,
    HEAD,
    MARGIN,
    VIEWS,
    _box_attr,
    _Canvas,
    _f,
    _inset_w,
)
from sheli.outputs.diagram.words import _thing
from sheli.outputs.frames import Frame, shot_hou
from sheli.outputs.labels import (
    Box,
    Label,
    obstacle_grid,
    size_of,
)
from sheli.place.model import Extent, Venue
from sheli.rite.ranks import load_ranks


@dataclass(frozen=True)
class View:
    """A view laid out on the canvas: which part of the plan, at what scale, where.

    ``scale`` is px per 尺; ``ox``, ``oy`` the px of the view's north-west corner."""

    name: str
    x0: float
    y0: float
    x1: float
    y1: float
    scale: float
    ox: float
    oy: float

    def px(self, x: float, y: float) -> tuple[float, float]:
        """Plan (尺, y north) → canvas (px, y down)."""
        return (self.ox + (x - self.x0) * self.scale, self.oy + (self.y1 - y) * self.scale)

    @cached_property
    def box(self) -> Box:
        a, b = self.px(self.x0, self.y1), self.px(self.x1, self.y0)
        return Box(a[0], a[1], b[0], b[1])

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    def __hash__(self) -> int:
        # kept: a view is a key of several caches asked at every step, and hashing its
        # eight fields each time was a hundredth of the drawing
        h = self.__dict__.get("_hash")
        if h is None:
            fields = (self.name, self.x0, self.y0, self.x1, self.y1, self.scale, self.ox, self.oy)
            h = self.__dict__["_hash"] = hash(fields)
        return h

    def __getstate__(self) -> dict[str, Any]:
        # (a string's hash differs from one process to another: not carried in a pickle)
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}


@lru_cache(maxsize=8)
def _venue(key: str) -> Venue:
    # the plan the runs resolved their places on (sheli.engine), not one loaded here
    return venue_plan(key)


@dataclass(frozen=True)
class Hou:
    """A 侯 of the venue as drawn: every fixture whose name ends in 侯 (the one 侯 of the
    州序 and 庠; the 大侯, 參侯 and 干侯 of a 射宮). ``width`` is its own size where the
    fixture has one (its extent across), else the top band of the venue's 侯; ``mid`` its
    中 in proportion; ``fa`` the name of its 乏 (``乏`` for ``侯``, else ``X之乏``), if any."""

    name: str
    x: float
    y: float
    width: float
    mid: float
    fa: str | None


@lru_cache(maxsize=16)
def targets(venue_key: str) -> tuple[Hou, ...]:
    """The 侯 of a venue, in the order of its data file.

    >>> [(h.name, h.width, h.mid, h.fa) for h in targets("xie")]
    [('侯', 40.0, 10.0, '乏')]
    """
    venue = _venue(venue_key)
    bands = venue.hou.get("bands", [])
    top = max((float(b["width"]) for b in bands), default=40.0)
    mid = next((float(b["width"]) for b in bands if b["name"] == "中"), 10.0)
    out = []
    for name, f in venue.fixtures.items():
        if not name.endswith(("侯", "矦")):
            continue
        e = f.extent
        w = float(e.x1 - e.x0) if e is not None and e.x1 > e.x0 else top
        fa = "乏" if name in ("侯", "矦") else f"{name}之乏"
        out.append(Hou(name, f.x, f.y, w, w * (mid / top), fa if fa in venue.fixtures else None))
    return tuple(out)


#: The colour of a 侯's 地 by its 質 (注 xiangshe:336 白質赤質皆謂采其地); others as the
#: venue's 侯 (a 布侯 or 采侯, 鄉射's).
QUALITY = {"赤質": "#c0392b", "白質": "#f4f1e8"}
_HOU = "#a33"


@lru_cache(maxsize=8)
def _beast_of(rank: str) -> tuple[str, str] | None:
    hou = load_ranks().cell(rank, "燕射").get("侯").value
    return (hou[0].名, hou[0].質 or "") if hou else None


def beast_hou(scene: Scene) -> tuple[str, str] | None:
    """The 獸侯 a run's one 侯 is, where the run names the host's rank (the 燕射's option
    ``rank``): its name and 質 for that rank's 燕射 (記 xiangshe:336 諸矦麋矦赤質; 注 此所謂獸矦
    也燕射則張之; ranks.yaml). None for a run that names no rank (the 鄉射's 侯 is the venue's).

    >>> beast_hou(Scene("yanshe", None, "xie", "尺", {"options": {"rank": "諸侯"}}, [], []))
    ('麋侯', '赤質')
    >>> beast_hou(Scene("xiangshe", None, "xie", "尺", {"options": {}}, [], [])) is None
    True
    """
    rank = (scene.params.get("options") or {}).get("rank")
    return _beast_of(str(rank)) if rank else None


def _default_hou(venue_key: str) -> Hou | None:
    """Where arrows whose shot line names no 侯 are drawn: the 侯 named 侯, else the first."""
    ts = targets(venue_key)
    return next((h for h in ts if h.name in ("侯", "矦")), ts[0] if ts else None)


def _hou_arrows(venue_key: str, o: Any) -> list[tuple[Hou, int, int]]:
    """(侯, arrows, hits) for every 侯 with arrows at it: those the shot lines name at
    theirs, the rest at the default 侯 (``Objects.at_hou``)."""
    ts = {h.name: h for h in targets(venue_key)}
    named_n = named_h = 0
    out = []
    for name, n, h in o.at_hou:
        if name in ts:
            out.append((ts[name], n, h))
            named_n += n
            named_h += h
    d = _default_hou(venue_key)
    if d is not None and o.arrows_hou - named_n > 0:
        k = next((i for i, e in enumerate(out) if e[0] is d), None)
        rest = (o.arrows_hou - named_n, o.hits_hou - named_h)
        if k is None:
            out.insert(0, (d, *rest))
        else:
            out[k] = (d, out[k][1] + rest[0], out[k][2] + rest[1])
    return out


def _flights(frame: Any, venue_key: str) -> list[tuple[str, Hou, bool, int]]:
    """The arrows loosed in this step: (archer, 侯, hit, k) for each, at the 侯 its shot line
    names, else at the default 侯; it is the k-th of its kind (hits, or misses) there, drawn
    at ``_arrow_spot(k, hit, …)`` as ``_things`` and the inset draw them."""
    if not frame.shots:
        return []
    o = frame.objects
    at = {t.name: (n, h) for t, n, h in _hou_arrows(venue_key, o)}
    default = _default_hou(venue_key)
    by_name = {t.name: t for t in targets(venue_key)}
    out = []
    for shot in frame.shots:
        hou = by_name.get(shot_hou(shot) or "", default)
        if hou is None:
            continue
        hit = shot.hit
        n, h = at.get(hou.name, (0, 0))
        k = max((h if hit else n - h) - 1, 0)
        out.append((shot.person or frame.actor, hou, hit, k))
    return out


@lru_cache(maxsize=16)
def _range(venue_key: str) -> tuple[float, float, float, float]:
    """The range view of a venue: ``VIEWS["range"]``, grown to hold every 侯 (its width and
    posts), every 乏 and the 門 with a margin, so that the farthest 侯 fits."""
    x0, y0, x1, y1 = VIEWS["range"]
    fx = _venue(venue_key).fixtures
    for h in targets(venue_key):
        y0 = min(y0, h.y - 6)
        x0 = min(x0, h.x - h.width / 2 - 12)
        x1 = max(x1, h.x + h.width / 2 + 12)
    for n, f in fx.items():
        if n.endswith("乏") or n == "門":
            # outside the 門, room for those who wait there as bodies (xiangshe:1)
            y0 = min(y0, f.y - (GATE_MARGIN if n == "門" else 6))
            x0 = min(x0, f.x - 8)
            x1 = max(x1, f.x + 8)
    return (x0, y0, x1, y1)


def _hou_dao(venue_key: str) -> float:
    """The 侯道 to the farthest 侯 (尺): from where the venue says the 侯道 is measured (its
    parameter 侯道起: the 堂廉 in 鄭's reading of 大射儀), else from the line of the 物."""
    venue = _venue(venue_key)
    fx = venue.fixtures
    start = venue.params.get("侯道起")
    ref = start.value if start is not None else fx["右物"].y if "右物" in fx else 0.0
    return max((ref - h.y for h in targets(venue_key)), default=0.0)


def choose_view(frame: Frame | _FrameView, view: str = "auto") -> str:
    """The view for a frame: "hall" when the actor and where he walked from in this act are
    inside the hall view, else "range". An archer loosing from his 物 is in the hall view:
    drawn there at a size one can read (the range view, 300 尺 of 侯道 on one screen, makes a
    person two pixels wide), his arrow's flight to the 侯 shown in the inset of the whole
    range (``_inset``).

    >>> from sheli.engine import run
    >>> from sheli.outputs.frames import build_frames
    >>> fr = build_frames(run("xiangshe", seed=1, options={"feast": False}))
    >>> shot = next(f for f in fr if f.verb == "射")
    >>> choose_view(fr[0]), choose_view(shot), choose_view(shot, "range")
    ('hall', 'hall', 'range')
    >>> choose_view(next(f for f in fr if f.actor == "獲者" and f.verb == "獲"))
    'range'
    """
    if view != "auto":
        if view not in VIEWS and view != "near":
            raise ValueError(f"unknown view {view!r}; views: auto, near, {', '.join(VIEWS)}")
        return view
    x0, y0, x1, y1 = VIEWS["hall"]
    people = frame.people
    pts: list[tuple[float, float]] = []
    a = people.get(frame.actor) if frame.actor else None
    if a is not None:
        pts.append((a.x, a.y))
        if a.moved_at == frame.seq:
            pts.extend(a.path)
    return "hall" if all(x0 <= x <= x1 and y0 <= y <= y1 for x, y in pts) else "range"


#: The "near" view: a window this many 尺 wide and high round the actor.
NEAR = (40.0, 26.0)


def _near_bounds(
    frame: Frame | _FrameView, who: str | None = None, venue_key: str = "xie"
) -> tuple[float, float, float, float]:
    """The "near" window: centred on ``who`` (the highlighted person; the actor by
    default), on the middle of his walk if he moved in this step; kept inside the range."""
    p = frame.people.get(who or frame.actor or "")
    cx, cy = (p.x, p.y) if p is not None else (0.0, 0.0)
    if p is not None and p.moved_at == frame.seq and p.path:
        xs = [q[0] for q in p.path]
        ys = [q[1] for q in p.path]
        cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    w, h = NEAR
    rx0, ry0, rx1, ry1 = _range(venue_key)
    x0 = min(max(cx - w / 2, rx0), rx1 - w)
    y0 = min(max(cy - h / 2, ry0), ry1 - h)
    return (x0, y0, x0 + w, y0 + h)


#: Equal views as one object: ``_layout`` makes a new one each step, and the memos of the
#: last drawing (``_Memo``) compare views by identity.
_VIEW_INTERN: dict[View, View] = {}


def _layout(
    name: str,
    width: int,
    frame: Frame | _FrameView | None = None,
    who: str | None = None,
    venue_key: str = "xie",
) -> View:
    if name == "near":
        assert frame is not None
        x0, y0, x1, y1 = _near_bounds(frame, who, venue_key)
        s = (width - 2 * MARGIN) / (x1 - x0)
        v = View(name, x0, y0, x1, y1, s, MARGIN, HEAD + MARGIN)
    else:
        x0, y0, x1, y1 = _range(venue_key) if name == "range" else VIEWS[name]
        if name == "hall":
            s = (width - 2 * MARGIN - _inset_w(width)) / (x1 - x0)
            v = View(name, x0, y0, x1, y1, s, MARGIN, HEAD + MARGIN)
        else:
            # the range: tall and narrow; height at most 1.6 × width, centred
            s = min((width - 2 * MARGIN) / (x1 - x0), 1.6 * width / (y1 - y0))
            w = (x1 - x0) * s
            v = View(name, x0, y0, x1, y1, s, (width - w) / 2, HEAD + MARGIN)
    if len(_VIEW_INTERN) > 4096:  # "near" views are many; the cache only saves time
        _VIEW_INTERN.clear()
    return _VIEW_INTERN.setdefault(v, v)


# -- fixtures --------------------------------------------------------------------------------


def _fixtures(
    c: _Canvas,
    v: View,
    venue: Venue,
    labels: list[Label],
    beast: tuple[str, str] | None = None,
    lang: str = "zh-Hant",
) -> None:
    """The plan: 庭 walls and 門, 堂 with 序, 楹, 階, 棟/楣, the 物, 席, 尊, 洗, 縣, 侯, 乏 …
    Shapes that labels must keep clear of go into ``c.fixture_boxes``; the fixture labels
    are returned in ``labels`` for the placer (they go first). ``beast``: the 獸侯 the
    venue's one 侯 is (:func:`beast_hou`), named and coloured by its 質. Drawn in this order,
    each over those before it."""
    d = _Drawing(c, v, labels, lang)
    fx = venue.fixtures
    _court(d, fx)
    _hall(d, fx)
    _pillars(d, fx)
    _steps(d, fx)
    _wu(d, fx)
    _mats(d, fx)
    _vessels(d, fx)
    _targets(d, venue, beast)
    _fa(d, fx)


class _Drawing:
    """The plan being drawn: its canvas, view and fixture labels, in the language ``lang``."""

    def __init__(self, c: _Canvas, v: View, labels: list[Label], lang: str) -> None:
        self.c, self.v, self.labels, self.lang = c, v, labels, lang
        self.names = v.name != "range"  # the range view leaves most of the hall unnamed

    def box_of(self, x0: float, y0: float, x1: float, y1: float) -> Box:
        """The box on the canvas of an extent of the plan."""
        a, b = self.v.px(x0, y1), self.v.px(x1, y0)
        return Box(a[0], a[1], b[0], b[1])

    def shape(self, svg: str, b: Box, name: str) -> None:
        """A fixture drawn, its box one that labels keep clear of."""
        self.c.add(f'<g class="fixture" data-name="{escape(name)}" {_box_attr(b)}>{svg}</g>')
        self.c.fixture_boxes.append(b)

    def label(self, name: str, x: float, y: float, r: float = 3.0, text: str | None = None) -> None:
        """A fixture's label, anchored at (x, y) of the plan, if that is in the view."""
        ax, ay = self.v.px(x, y)
        if self.v.box.overlaps(Box(ax - 1, ay - 1, ax + 1, ay + 1)):
            shown = text or _thing(name, self.lang)
            self.labels.append(Label(f"fixture:{name}", [[(shown, FIX_SIZE)]], ax, ay, r))


def _court(d: _Drawing, fx: dict[str, Any]) -> None:
    """The 庭: its walls (lines, not obstacles) and the 門."""
    v = d.v
    if "庭" in fx and fx["庭"].extent:
        e = fx["庭"].extent
        a, b2 = v.px(e.x0, 0), v.px(e.x1, e.y0)
        d.c.add(
            f'<path class="wall" d="M{_f(a[0])} {_f(a[1])}V{_f(b2[1])}H{_f(b2[0])}V{_f(a[1])}" '
            'fill="none" stroke="#888" stroke-width="1"/>'
        )
    if "門" in fx and fx["門"].extent and v.contains(0, fx["門"].y):
        e = fx["門"].extent
        a, b2 = v.px(e.x0, e.y0), v.px(e.x1, e.y0)
        bx = Box(a[0], a[1] - 3, b2[0], b2[1] + 3)
        d.shape(
            f'<rect x="{_f(a[0])}" y="{_f(a[1] - 3)}" width="{_f(b2[0] - a[0])}" height="6" '
            'fill="#fff" stroke="#555"/>',
            bx,
            "門",
        )
        d.label("門", 0, e.y0, (b2[0] - a[0]) / 2)


def _hall(d: _Drawing, fx: dict[str, Any]) -> None:
    """The 堂 with its beams (棟, 楣, and 北楣 where drawn), its 序 (walls), and the 室 and 房 of
    a 庠 where the venue has them: lines and areas, none an obstacle."""
    v, c = d.v, d.c
    e: Extent | None
    if "堂" in fx and fx["堂"].extent:
        e = fx["堂"].extent
        a, b2 = v.px(e.x0, e.y1), v.px(e.x1, e.y0)
        c.add(
            f'<rect class="tang" x="{_f(a[0])}" y="{_f(a[1])}" width="{_f(b2[0] - a[0])}" '
            f'height="{_f(b2[1] - a[1])}" fill="#f4ecd8" stroke="#6b5b3e" stroke-width="1.5"/>'
        )
        for n in ("楣", "棟", "北楣"):  # dashed lines across the 堂
            if n in fx:
                y = fx[n].y
                p, q = v.px(e.x0, y), v.px(e.x1, y)
                c.add(
                    f'<line class="beam" data-name="{n}" x1="{_f(p[0])}" y1="{_f(p[1])}" '
                    f'x2="{_f(q[0])}" y2="{_f(q[1])}" stroke="#b49c6c" stroke-dasharray="4 3"/>'
                )
                if d.names and n != "北楣":
                    d.label(n, e.x1 - 1.0, y, 2.0)
        if d.names:
            d.label("堂", e.x1 - 2, e.y1 - 3, 2.0)
    for n in ("東序", "西序"):
        if n in fx and (e := fx[n].extent):
            p, q = v.px(e.x0, e.y0), v.px(e.x1, e.y1)
            c.add(
                f'<line class="xu" data-name="{n}" x1="{_f(p[0])}" y1="{_f(p[1])}" '
                f'x2="{_f(q[0])}" y2="{_f(q[1])}" stroke="#6b5b3e" stroke-width="3"/>'
            )
            if d.names:
                d.label(n, e.x0, e.y1 - 2, 2.0)
    for n in ("室", "東房", "西房", "房"):
        if n in fx and (e := fx[n].extent):
            a, b2 = v.px(e.x0, e.y1), v.px(e.x1, e.y0)
            c.add(
                f'<rect class="room" data-name="{n}" x="{_f(a[0])}" y="{_f(a[1])}" '
                f'width="{_f(b2[0] - a[0])}" height="{_f(b2[1] - a[1])}" fill="#e6dcc4" '
                'stroke="#6b5b3e"/>'
            )


def _pillars(d: _Drawing, fx: dict[str, Any]) -> None:
    """The 楹: a disc each, at least 2.5 px across so that it shows in the range view."""
    for n in ("東楹", "西楹"):
        if n in fx:
            x, y = d.v.px(fx[n].x, fx[n].y)
            r = max(0.8 * d.v.scale, 2.5)
            d.shape(
                f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="#6b5b3e"/>',
                Box(x - r, y - r, x + r, y + r),
                n,
            )
            if d.names:
                d.label(n, fx[n].x, fx[n].y, r)


def _steps(d: _Drawing, fx: dict[str, Any]) -> None:
    """The 阼階 and 西階: each its extent, with three treads drawn across."""
    for n in ("阼階", "西階"):
        if n in fx and (e := fx[n].extent):
            b = d.box_of(e.x0, e.y0, e.x1, e.y1)
            steps = "".join(
                f'<line x1="{_f(b.x0)}" x2="{_f(b.x1)}" y1="{_f(b.y0 + k * (b.y1 - b.y0) / 4)}" '
                f'y2="{_f(b.y0 + k * (b.y1 - b.y0) / 4)}" stroke="#6b5b3e" stroke-width=".6"/>'
                for k in range(1, 4)
            )
            d.shape(
                f'<rect x="{_f(b.x0)}" y="{_f(b.y0)}" width="{_f(b.x1 - b.x0)}" '
                f'height="{_f(b.y1 - b.y0)}" fill="#e8dcc0" stroke="#6b5b3e"/>{steps}',
                b,
                n,
            )
            d.label(n, fx[n].x, e.y0, (b.x1 - b.x0) / 2)


def _wu(d: _Drawing, fx: dict[str, Any]) -> None:
    """The 物 where the archers stand: each a cross of its 從畫 and 横畫."""
    v = d.v
    for n in ("右物", "左物"):
        if n in fx and (e := fx[n].extent):
            f = fx[n]
            p, q = v.px(f.x, e.y0), v.px(f.x, e.y1)
            h0, h1 = v.px(e.x0, f.y), v.px(e.x1, f.y)
            b = Box(h0[0] - 1, q[1] - 1, h1[0] + 1, p[1] + 1)
            d.shape(
                f'<path d="M{_f(p[0])} {_f(p[1])}V{_f(q[1])}M{_f(h0[0])} {_f(h0[1])}'
                f'H{_f(h1[0])}" stroke="#333" stroke-width="1.2"/>',
                b,
                n,
            )
            if d.names:
                d.label(n, f.x, e.y1, 2.0)


def _mats(d: _Drawing, fx: dict[str, Any]) -> None:
    """The 席 (every fixture of kind mat with an extent): areas people sit on, no obstacle."""
    for n, f in fx.items():
        if f.kind == "mat" and (e := f.extent):
            b = d.box_of(e.x0, e.y0, e.x1, e.y1)
            d.c.add(
                f'<rect class="mat" data-name="{escape(n)}" x="{_f(b.x0)}" y="{_f(b.y0)}" '
                f'width="{_f(b.x1 - b.x0)}" height="{_f(b.y1 - b.y0)}" fill="#efe3b8" '
                'stroke="#a08850" stroke-width=".6"/>'
            )


#: The vessels and the rest on the ground, drawn about their points: half their width in 尺
#: (sizes are presentation, not text, except the 楅's, 記 xiangshe:348).
_SMALL = {"尊": 1.5, "洗": 1.5, "水": 1.0, "下篚": 1.0, "上篚": 0.8}


def _vessels(d: _Drawing, fx: dict[str, Any]) -> None:
    """The vessels (``_SMALL``), at least 4 px each way, and the 縣."""
    for n, half in _SMALL.items():
        if n in fx:
            f = fx[n]
            b = d.box_of(f.x - half, f.y - half * 0.7, f.x + half, f.y + half * 0.7)
            b = _min_box(b, 4)
            d.shape(
                f'<rect x="{_f(b.x0)}" y="{_f(b.y0)}" width="{_f(b.x1 - b.x0)}" '
                f'height="{_f(b.y1 - b.y0)}" fill="#ddd" stroke="#555" stroke-width=".8"/>',
                b,
                n,
            )
            if d.names or n == "洗":
                d.label(n, f.x, f.y, (b.x1 - b.x0) / 2)
    if "縣" in fx:
        f = fx["縣"]
        x, y = d.v.px(f.x, f.y)
        w = max(3 * d.v.scale, 8)
        b = Box(x - w / 2, y - 2, x + w / 2, y + 2)
        d.shape(
            f'<rect x="{_f(b.x0)}" y="{_f(b.y0)}" width="{_f(w)}" height="4" fill="#777"/>',
            b,
            "縣",
        )
        d.label("縣", f.x, f.y, w / 2)


def _targets(d: _Drawing, venue: Venue, beast: tuple[str, str] | None) -> None:
    """Every 侯 in the view, with its 中, and the 植 of the one 侯 of a 序 or 庠; that one 侯,
    where ``beast`` is given, named and coloured as that 獸侯 and its 質."""
    v, fx = d.v, venue.fixtures
    for h in targets(venue.key):
        if not v.contains(h.x, h.y):
            continue
        y = h.y
        a, b2 = v.px(h.x - h.width / 2, y), v.px(h.x + h.width / 2, y)
        m0, m1 = v.px(h.x - h.mid / 2, y), v.px(h.x + h.mid / 2, y)
        bx = Box(a[0], a[1] - 3, b2[0], a[1] + 3)
        one = beast is not None and h.name in ("侯", "矦")
        colour = QUALITY.get(beast[1], _HOU) if one and beast else _HOU
        # a 地 lighter than the plan's ground gets an edge, so that a 白質 shows
        edge = (
            f'<line x1="{_f(a[0])}" y1="{_f(a[1])}" x2="{_f(b2[0])}" y2="{_f(b2[1])}" '
            'stroke="#555" stroke-width="6"/>'
            if colour == QUALITY["白質"]
            else ""
        )
        mid = "#fff" if colour != QUALITY["白質"] else "#a33"
        d.shape(
            f'{edge}<line x1="{_f(a[0])}" y1="{_f(a[1])}" x2="{_f(b2[0])}" y2="{_f(b2[1])}" '
            f'stroke="{colour}" stroke-width="4"/><line x1="{_f(m0[0])}" y1="{_f(m0[1])}" '
            f'x2="{_f(m1[0])}" y2="{_f(m1[1])}" stroke="{mid}" stroke-width="2"/>',
            bx,
            h.name,
        )
        d.label(
            h.name, h.x, y, (b2[0] - a[0]) / 2, text=_beast_name(beast, d.lang) if one else None
        )
        if h.name not in ("侯", "矦"):
            continue
        for n in ("右植", "左植"):
            if n in fx:
                px, py = v.px(fx[n].x, fx[n].y)
                d.shape(
                    f'<circle cx="{_f(px)}" cy="{_f(py)}" r="2" fill="#555"/>',
                    Box(px - 2, py - 2, px + 2, py + 2),
                    n,
                )


def _beast_name(beast: tuple[str, str] | None, lang: str) -> str | None:
    """The label of a 獸侯 with its 質: 麋侯（赤質）, or ``elk target (red ground)`` in English.

    >>> _beast_name(("麋侯", ""), "zh-Hant"), _beast_name(None, "zh-Hant")
    ('麋侯', None)
    """
    if not beast:
        return None
    shown = _thing(beast[0], lang)
    if beast[1]:
        quality = _thing(beast[1], lang)
        shown += f" ({quality})" if lang == "en" else f"（{quality}）"
    return shown


def _fa(d: _Drawing, fx: dict[str, Any]) -> None:
    """Every 乏 in the view (the fixtures whose name ends in 乏)."""
    for n, f in fx.items():
        if not n.endswith("乏") or not d.v.contains(f.x, f.y):
            continue
        a, b2 = d.v.px(f.x - 3, f.y), d.v.px(f.x + 3, f.y)
        bx = Box(a[0], a[1] - 2.5, b2[0], a[1] + 2.5)
        d.shape(
            f'<rect x="{_f(a[0])}" y="{_f(a[1] - 2.5)}" width="{_f(b2[0] - a[0])}" height="5" '
            'fill="#8a6d3b"/>',
            bx,
            n,
        )
        d.label(n, f.x, f.y, (b2[0] - a[0]) / 2)


@lru_cache(maxsize=256)
def _static_plan(
    venue_key: str, v: View, beast: tuple[str, str] | None = None, lang: str = "zh-Hant"
) -> tuple[
    str, tuple[Box, ...], tuple[tuple[str, Any, float, float, float, tuple[float, float]], ...], Any
]:
    """The fixed plan of a venue in a view (what ``_fixtures`` draws, which depends on
    nothing else): its SVG (the parts joined as ``render_svg`` joins them), the fixtures'
    boxes and their labels (key, lines, anchor, radius), and the boxes as a grid for the
    label placer (``obstacle_grid``), drawn once per (venue, view).
    ``View`` is frozen and compared by value, so the key is everything that is drawn."""
    c = _Canvas()
    labels: list[Label] = []
    _fixtures(c, v, _venue(venue_key), labels, beast, lang)
    return (
        "\n".join(c.parts),
        tuple(c.fixture_boxes),
        tuple(_label_args(lab) for lab in labels),
        obstacle_grid(c.fixture_boxes),
    )


def _lines(lines: Any) -> tuple[tuple[tuple[str, float], ...], ...]:
    """A label's lines as tuples (hashable, and what ``_label_svg`` is keyed on)."""
    return tuple(tuple(line) for line in lines)


def _label_args(lab: Label) -> tuple[str, Any, float, float, float, tuple[float, float]]:
    """A label as remembered by the caches: key, lines (tuples), anchor, radius, size."""
    lines = _lines(lab.lines)
    return (lab.key, lines, lab.ax, lab.ay, lab.r, size_of(lines))


def _min_box(b: Box, m: float) -> Box:
    """Grow a box to at least ``m`` px each way, about its centre (tiny things stay visible)."""
    cx, cy = (b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2
    w, h = max(b.x1 - b.x0, m), max(b.y1 - b.y0, m)
    return Box(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)

"""The diagram of one step, as SVG: the plan to scale, north (the 堂) at the top, everyone
present where the engine put him, facing, dressed and holding what the log says, the actor
highlighted, the paths walked, the arrows, the 筭 and the words spoken.

What is drawn and the conventions (symbols, colours, views) are in docs/diagrams.md; they
are presentation, not text. The SVG is written as plain strings (no dependency): every
person is a ``<g class="person" data-actor="…">`` (``person actor`` for the actor of the
step), every label a ``<g class="label">`` with its box in ``data-box``, every fixture's
shape and label carries ``data-box`` too, so that the viewer and the tests can read them.

>>> from sheli.engine import run
>>> from sheli.outputs.frames import build_frames
>>> r = run("xiangshe", seed=1)
>>> frames = build_frames(r)
>>> svg = render_svg(frames[150], r.events[0])
>>> svg.startswith("<svg") and 'class="person actor"' in svg
True
"""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from html import escape
from typing import Any

from sheli.engine import venue_plan
from sheli.engine.state import Holding
from sheli.glossary import label as label_en
from sheli.i18n import translation
from sheli.outputs.frames import Frame, Person, shot_hou
from sheli.outputs.labels import (
    LINE_HEIGHT,
    RUN_GAP,
    Box,
    Label,
    clear_placements,
    obstacle_grid,
    place_labels,
    size_of,
    text_width,
)
from sheli.place.model import Venue
from sheli.rite.ranks import load_ranks
from sheli.text.english import english as passage_english
from sheli.text.variants import to_simplified

__all__ = [
    "FACING",
    "VIEWS",
    "Hou",
    "View",
    "beast_hou",
    "choose_view",
    "clear_caches",
    "label_boxes",
    "render_svg",
    "render_svg_parts",
    "targets",
]

SVG_NS = "http://www.w3.org/2000/svg"

#: Unit vectors of the facings, x east, y north (plan coordinates).
_S2 = math.sqrt(0.5)
FACING: dict[str, tuple[float, float]] = {
    "N": (0.0, 1.0),
    "S": (0.0, -1.0),
    "E": (1.0, 0.0),
    "W": (-1.0, 0.0),
    "NE": (_S2, _S2),
    "NW": (-_S2, _S2),
    "SE": (_S2, -_S2),
    "SW": (-_S2, -_S2),
}

#: The views: the part of the plan each shows, in 尺 (x0, y0, x1, y1; y north).
#: "hall": the 堂 and the near 庭 down to the line of the 洗, 楅 and 中 and the 射位;
#: "range": the whole 侯道, from the back of the 堂 to the 門 behind the 侯 and four 步 outside it.
VIEWS: dict[str, tuple[float, float, float, float]] = {
    "hall": (-50.0, -56.0, 50.0, 36.0),
    "range": (-50.0, -338.0, 50.0, 36.0),
}

GATE_MARGIN = 24.0  # 尺 shown outside the 門 in the range view: four 步, for those who wait there
FONT = "'Noto Serif CJK TC','Noto Sans CJK TC','Noto Serif CJK SC','Source Han Serif',serif"
NAME_SIZE = 12.0  # px, a person's label
HOLD_SIZE = 10.0  # px, the second line (holds)
CROWD = 12  # more people than this at one point are labelled together, as one group
ROW_MAX = 6  # people drawn side by side in one rank of a row before the next rank
SAYS_SIZE = 12.0  # px, the words spoken, under the speaker's name
FIX_SIZE = 10.0  # px, fixture labels
HEAD = 104.0  # px, the header band (cite, 經 in two lines, words spoken, state of things)
MARGIN = 12.0
INSET_W = 150.0  # px, the column of the whole-range inset (hall view)
INSET_MIN_WIDTH = 600  # below this canvas width the hall view has no inset
#: Arrows of each kind (hits, misses) drawn at a 侯 on the inset: at its scale (about 1 px to
#: the 尺) more only overlap, and with 衆耦 a round leaves hundreds there; its label counts all.
INSET_MARKS = 24


def _inset_w(width: int) -> float:
    return INSET_W if width >= INSET_MIN_WIDTH else 0.0


# -- the words of a drawing in its language (docs/diagrams.md, "Labels in English") ------------

#: Where a thing's English is looked up (洗 is a basin here, not the verb "wash").
_THINGS = ("places", "objects", "dress")
_NUMERAL = {c: str(k) for k, c in enumerate("一二三四五六七八九十", 1)}


@lru_cache(maxsize=4096)
def _thing(name: str, lang: str) -> str:
    """A fixture or a thing set down as its label names it.

    >>> _thing("阼階", "en"), _thing("阼階", "zh-Hans"), _thing("阼階", "zh-Hant")
    ('east steps', '阼阶', '阼階')
    """
    if lang == "en":
        return label_en(name, *_THINGS)
    return to_simplified(name) if lang == "zh-Hans" else name


@lru_cache(maxsize=4096)
def _person(actor: str, name: str | None, lang: str) -> str:
    """A person's label: his role and, where the cast names him, his name.

    >>> _person("司馬", "司正", "zh-Hant"), _person("司馬", "司正", "en")
    ('司馬（司正）', 'marshal (overseer)')
    """
    if lang != "en":
        text = f"{actor}（{name}）" if name and name != actor else actor
        return to_simplified(text) if lang == "zh-Hans" else text
    text = label_en(actor, "roles")
    return f"{text} ({label_en(name, 'roles')})" if name and name != actor else text


@lru_cache(maxsize=4096)
def _hold(h: str, lang: str) -> str:
    """What a person holds, shortened for his label (``搢三``, ``3 in belt``).

    >>> [_hold(h, "en") for h in ("張弓", "搢矢三", "挾矢一", "爵(實)", "矢12", "搢扑")]
    ['strung bow', '3 in belt', '1 held', 'goblet (full)', 'arrow ×12', 'rod in belt']
    """
    short = h.replace("搢矢", "搢").replace("挾矢", "挾")
    if lang != "en":
        return to_simplified(short) if lang == "zh-Hans" else short
    tr = _tr(lang)
    m = re.fullmatch(r"(搢|挾)([一二三四五六七八九十]|[0-9]+)", short)
    if m:
        n = _NUMERAL.get(m.group(2), m.group(2))
        return (tr("{n} in belt") if m.group(1) == "搢" else tr("{n} held")).format(n=n)
    if short in ("張弓", "弛弓"):
        return tr("strung bow") if short == "張弓" else tr("unstrung bow")
    if short.startswith("搢"):
        return tr("{thing} in belt").format(thing=_thing(short[1:], lang))
    m = re.fullmatch(r"(.+?)\((實|虛)\)", short)
    if m:
        state = label_en(m.group(2), "states")
        return f"{_thing(m.group(1), lang)} ({state})"
    m = re.fullmatch(r"(.+?)([一二三四五六七八九十]|[0-9]+)", short)
    if m:
        return f"{_thing(m.group(1), lang)} ×{_NUMERAL.get(m.group(2), m.group(2))}"
    return _thing(short, lang)


@lru_cache(maxsize=4)
def _tr(lang: str) -> Callable[[str], str]:
    """The drawing's strings (written as the default output reads) in ``lang``: through the
    catalogue for English, in simplified characters for zh-Hans.

    >>> _tr("en")("矢{n}（獲{h}）").format(n=4, h=1), _tr("zh-Hans")("矢{n}（獲{h}）")
    ('arrows 4 (hits 1)', '矢{n}（获{h}）')
    """
    if lang == "zh-Hans":
        return to_simplified
    return translation(lang).gettext


_DRESS_COLOUR = "#d9a066"  # the bared arm (袒)
_ACTOR = "#c0392b"
_PATH = "#2471a3"


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


def beast_hou(scene: dict[str, Any]) -> tuple[str, str] | None:
    """The 獸侯 a run's one 侯 is, where the run names the host's rank (the 燕射's option
    ``rank``): its name and 質 for that rank's 燕射 (記 xiangshe:336 諸矦麋矦赤質; 注 此所謂獸矦
    也燕射則張之; ranks.yaml). None for a run that names no rank (the 鄉射's 侯 is the venue's).

    >>> beast_hou({"params": {"options": {"rank": "諸侯"}}})
    ('麋侯', '赤質')
    >>> beast_hou({"params": {"options": {}}}) is None
    True
    """
    rank = ((scene.get("params") or {}).get("options") or {}).get("rank")
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
        hit = bool(shot.get("hit"))
        n, h = at.get(hou.name, (0, 0))
        k = max((h if hit else n - h) - 1, 0)
        out.append((shot.get("person") or frame.actor, hou, hit, k))
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


def choose_view(frame: Frame, view: str = "auto") -> str:
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
    frame: Frame, who: str | None = None, venue_key: str = "xie"
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
    frame: Frame | None = None,
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


def _f_uncached(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))


#: ``_f``'s results by value. A pure function of the value: numbers that compare equal
#: (``0.0`` and ``-0.0``, ``3`` and ``3.0``) format the same, so the cache cannot change what
#: is written, only how fast. Cleared when it grows large (never keyed on history).
_F_CACHE: dict[float, str] = {}
_F_CACHE_MAX = 1 << 18


def _f(v: float) -> str:
    """A number for SVG: at most 2 decimals, no trailing zeros (``3``, ``2.5``, ``-1.25``)."""
    s = _F_CACHE.get(v)
    if s is None:
        s = _f_uncached(v)
        if len(_F_CACHE) >= _F_CACHE_MAX:
            _F_CACHE.clear()
        _F_CACHE[v] = s
    return s


def _box_attr(b: Box) -> str:
    return f'data-box="{_f(b.x0)} {_f(b.y0)} {_f(b.x1)} {_f(b.y1)}"'


class _Canvas:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.fixture_boxes: list[Box] = []

    def add(self, s: str) -> None:
        self.parts.append(s)


def _wrap(text: str, size: float, width: float) -> list[str]:
    return list(_wrap_cached(text, size, width))


@lru_cache(maxsize=4096)
def _wrap_cached(text: str, size: float, width: float) -> tuple[str, ...]:
    """``_wrap``, remembered: the 經 words of a passage head many steps."""
    return tuple(_wrap_uncached(text, size, width))


def _wrap_uncached(text: str, size: float, width: float) -> list[str]:
    lines, cur = [], ""
    for ch in text:
        if text_width(cur + ch, size) > width:
            lines.append(cur)
            cur = ""
        cur += ch
    if cur:
        lines.append(cur)
    return lines


# -- fixtures --------------------------------------------------------------------------------


def _fixtures(
    c: _Canvas,
    v: View,
    venue: Venue,
    frame: Frame | None,
    labels: list[Label],
    beast: tuple[str, str] | None = None,
    lang: str = "zh-Hant",
) -> None:
    """The plan: 庭 walls and 門, 堂 with 序, 楹, 階, 棟/楣, the 物, 席, 尊, 洗, 縣, 侯, 乏 …
    Shapes that labels must keep clear of go into ``c.fixture_boxes``; the fixture labels
    are returned in ``labels`` for the placer (they go first). ``beast``: the 獸侯 the
    venue's one 侯 is (:func:`beast_hou`), named and coloured by its 質."""
    fx = venue.fixtures
    s = v.scale

    def box_of(x0: float, y0: float, x1: float, y1: float, pad: float = 0.0) -> Box:
        a, b = v.px(x0, y1), v.px(x1, y0)
        return Box(a[0] - pad, a[1] - pad, b[0] + pad, b[1] + pad)

    def shape(svg: str, b: Box, name: str) -> None:
        c.add(f'<g class="fixture" data-name="{escape(name)}" {_box_attr(b)}>{svg}</g>')
        c.fixture_boxes.append(b)

    def lab(name: str, x: float, y: float, r: float = 3.0, text: str | None = None) -> None:
        ax, ay = v.px(x, y)
        if v.box.overlaps(Box(ax - 1, ay - 1, ax + 1, ay + 1)):
            shown = text or _thing(name, lang)
            labels.append(Label(f"fixture:{name}", [[(shown, FIX_SIZE)]], ax, ay, r))

    # the 庭: its walls (lines, not obstacles) and the 門
    if "庭" in fx and fx["庭"].extent:
        e = fx["庭"].extent
        a, b = v.px(e.x0, 0), v.px(e.x1, e.y0)
        c.add(
            f'<path class="wall" d="M{_f(a[0])} {_f(a[1])}V{_f(b[1])}H{_f(b[0])}V{_f(a[1])}" '
            'fill="none" stroke="#888" stroke-width="1"/>'
        )
    if "門" in fx and fx["門"].extent and v.contains(0, fx["門"].y):
        e = fx["門"].extent
        a, b = v.px(e.x0, e.y0), v.px(e.x1, e.y0)
        bx = Box(a[0], a[1] - 3, b[0], b[1] + 3)
        shape(
            f'<rect x="{_f(a[0])}" y="{_f(a[1] - 3)}" width="{_f(b[0] - a[0])}" height="6" '
            'fill="#fff" stroke="#555"/>',
            bx,
            "門",
        )
        lab("門", 0, e.y0, (b[0] - a[0]) / 2)
    # the 堂
    if "堂" in fx and fx["堂"].extent:
        e = fx["堂"].extent
        a, b = v.px(e.x0, e.y1), v.px(e.x1, e.y0)
        c.add(
            f'<rect class="tang" x="{_f(a[0])}" y="{_f(a[1])}" width="{_f(b[0] - a[0])}" '
            f'height="{_f(b[1] - a[1])}" fill="#f4ecd8" stroke="#6b5b3e" stroke-width="1.5"/>'
        )
        # 棟, 楣 (and 北楣, 庪 where drawn): dashed lines across the 堂
        for n in ("楣", "棟", "北楣"):
            if n in fx:
                y = fx[n].y
                p, q = v.px(e.x0, y), v.px(e.x1, y)
                c.add(
                    f'<line class="beam" data-name="{n}" x1="{_f(p[0])}" y1="{_f(p[1])}" '
                    f'x2="{_f(q[0])}" y2="{_f(q[1])}" stroke="#b49c6c" stroke-dasharray="4 3"/>'
                )
                if v.name != "range" and n != "北楣":
                    lab(n, e.x1 - 1.0, y, 2.0)
        if v.name != "range":
            lab("堂", e.x1 - 2, e.y1 - 3, 2.0)
    # the 序 (walls)
    for n in ("東序", "西序"):
        if n in fx and fx[n].extent:
            e = fx[n].extent
            p, q = v.px(e.x0, e.y0), v.px(e.x1, e.y1)
            c.add(
                f'<line class="xu" data-name="{n}" x1="{_f(p[0])}" y1="{_f(p[1])}" '
                f'x2="{_f(q[0])}" y2="{_f(q[1])}" stroke="#6b5b3e" stroke-width="3"/>'
            )
            if v.name != "range":
                lab(n, e.x0, e.y1 - 2, 2.0)
    # the 室 and 房 of a 庠, where the venue has them
    for n in ("室", "東房", "西房", "房"):
        if n in fx and fx[n].extent:
            e = fx[n].extent
            a, b = v.px(e.x0, e.y1), v.px(e.x1, e.y0)
            c.add(
                f'<rect class="room" data-name="{n}" x="{_f(a[0])}" y="{_f(a[1])}" '
                f'width="{_f(b[0] - a[0])}" height="{_f(b[1] - a[1])}" fill="#e6dcc4" '
                'stroke="#6b5b3e"/>'
            )
    # 楹
    for n in ("東楹", "西楹"):
        if n in fx:
            x, y = v.px(fx[n].x, fx[n].y)
            r = max(0.8 * s, 2.5)
            shape(
                f'<circle cx="{_f(x)}" cy="{_f(y)}" r="{_f(r)}" fill="#6b5b3e"/>',
                Box(x - r, y - r, x + r, y + r),
                n,
            )
            if v.name != "range":
                lab(n, fx[n].x, fx[n].y, r)
    # 階
    for n in ("阼階", "西階"):
        if n in fx and fx[n].extent:
            e = fx[n].extent
            b = box_of(e.x0, e.y0, e.x1, e.y1)
            steps = "".join(
                f'<line x1="{_f(b.x0)}" x2="{_f(b.x1)}" y1="{_f(b.y0 + k * (b.y1 - b.y0) / 4)}" '
                f'y2="{_f(b.y0 + k * (b.y1 - b.y0) / 4)}" stroke="#6b5b3e" stroke-width=".6"/>'
                for k in range(1, 4)
            )
            shape(
                f'<rect x="{_f(b.x0)}" y="{_f(b.y0)}" width="{_f(b.x1 - b.x0)}" '
                f'height="{_f(b.y1 - b.y0)}" fill="#e8dcc0" stroke="#6b5b3e"/>{steps}',
                b,
                n,
            )
            lab(n, fx[n].x, e.y0, (b.x1 - b.x0) / 2)
    # the 物 (從畫 and 横畫)
    for n in ("右物", "左物"):
        if n in fx and fx[n].extent:
            f = fx[n]
            e = f.extent
            p, q = v.px(f.x, e.y0), v.px(f.x, e.y1)
            h0, h1 = v.px(e.x0, f.y), v.px(e.x1, f.y)
            b = Box(h0[0] - 1, q[1] - 1, h1[0] + 1, p[1] + 1)
            shape(
                f'<path d="M{_f(p[0])} {_f(p[1])}V{_f(q[1])}M{_f(h0[0])} {_f(h0[1])}'
                f'H{_f(h1[0])}" stroke="#333" stroke-width="1.2"/>',
                b,
                n,
            )
            if v.name != "range":
                lab(n, f.x, e.y1, 2.0)
    # 席 and 尊
    for n, f in fx.items():
        if f.kind == "mat" and f.extent:
            e = f.extent
            b = box_of(e.x0, e.y0, e.x1, e.y1)
            c.add(
                f'<rect class="mat" data-name="{escape(n)}" x="{_f(b.x0)}" y="{_f(b.y0)}" '
                f'width="{_f(b.x1 - b.x0)}" height="{_f(b.y1 - b.y0)}" fill="#efe3b8" '
                'stroke="#a08850" stroke-width=".6"/>'
            )
    # vessels and the rest on the ground, by their points (sizes are presentation, not text,
    # except the 楅's, 記 xiangshe:348)
    small = {"尊": 1.5, "洗": 1.5, "水": 1.0, "下篚": 1.0, "上篚": 0.8}
    for n, half in small.items():
        if n in fx:
            f = fx[n]
            b = box_of(f.x - half, f.y - half * 0.7, f.x + half, f.y + half * 0.7)
            b = _min_box(b, 4)
            shape(
                f'<rect x="{_f(b.x0)}" y="{_f(b.y0)}" width="{_f(b.x1 - b.x0)}" '
                f'height="{_f(b.y1 - b.y0)}" fill="#ddd" stroke="#555" stroke-width=".8"/>',
                b,
                n,
            )
            if v.name != "range" or n == "洗":
                lab(n, f.x, f.y, (b.x1 - b.x0) / 2)
    if "縣" in fx:
        f = fx["縣"]
        x, y = v.px(f.x, f.y)
        w = max(3 * s, 8)
        b = Box(x - w / 2, y - 2, x + w / 2, y + 2)
        shape(
            f'<rect x="{_f(b.x0)}" y="{_f(b.y0)}" width="{_f(w)}" height="4" fill="#777"/>',
            b,
            "縣",
        )
        lab("縣", f.x, f.y, w / 2)
    # every 侯, with its 中 (and the 植 of the one 侯 of a 序 or 庠); every 乏
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
        shape(
            f'{edge}<line x1="{_f(a[0])}" y1="{_f(a[1])}" x2="{_f(b2[0])}" y2="{_f(b2[1])}" '
            f'stroke="{colour}" stroke-width="4"/><line x1="{_f(m0[0])}" y1="{_f(m0[1])}" '
            f'x2="{_f(m1[0])}" y2="{_f(m1[1])}" stroke="{mid}" stroke-width="2"/>',
            bx,
            h.name,
        )
        shown = None
        if one and beast:  # 麋侯（赤質）
            shown = _thing(beast[0], lang)
            if beast[1]:
                q = _thing(beast[1], lang)
                shown += f" ({q})" if lang == "en" else f"（{q}）"
        lab(h.name, h.x, y, (b2[0] - a[0]) / 2, text=shown)
        if h.name not in ("侯", "矦"):
            continue
        for n in ("右植", "左植"):
            if n in fx:
                px, py = v.px(fx[n].x, fx[n].y)
                shape(
                    f'<circle cx="{_f(px)}" cy="{_f(py)}" r="2" fill="#555"/>',
                    Box(px - 2, py - 2, px + 2, py + 2),
                    n,
                )
    for n, f in fx.items():
        if not n.endswith("乏") or not v.contains(f.x, f.y):
            continue
        a, b2 = v.px(f.x - 3, f.y), v.px(f.x + 3, f.y)
        bx = Box(a[0], a[1] - 2.5, b2[0], a[1] + 2.5)
        shape(
            f'<rect x="{_f(a[0])}" y="{_f(a[1] - 2.5)}" width="{_f(b2[0] - a[0])}" height="5" '
            'fill="#8a6d3b"/>',
            bx,
            n,
        )
        lab(n, f.x, f.y, (b2[0] - a[0]) / 2)


@lru_cache(maxsize=256)
def _static_plan(
    venue_key: str, v: View, beast: tuple[str, str] | None = None, lang: str = "zh-Hant"
) -> tuple[str, tuple[Box, ...], tuple[tuple[str, Any, float, float, float], ...], Any]:
    """The fixed plan of a venue in a view (what ``_fixtures`` draws, which depends on
    nothing else): its SVG (the parts joined as ``render_svg`` joins them), the fixtures'
    boxes and their labels (key, lines, anchor, radius), and the boxes as a grid for the
    label placer (``obstacle_grid``), drawn once per (venue, view).
    ``View`` is frozen and compared by value, so the key is everything that is drawn."""
    c = _Canvas()
    labels: list[Label] = []
    _fixtures(c, v, _venue(venue_key), None, labels, beast, lang)
    return (
        "\n".join(c.parts),
        tuple(c.fixture_boxes),
        tuple(_label_args(lab) for lab in labels),
        obstacle_grid(c.fixture_boxes),
    )


@lru_cache(maxsize=4096)
def _things_of(venue_key: str, v: View, objects: Any, lang: str = "zh-Hant") -> tuple[Any, ...]:
    """What ``_things`` draws for these objects in this view: its SVG (in parts, each a
    part of ``render_svg_parts``: a thing that does not change is stored once when many
    steps are packed), boxes, labels, and the boxes as tuples. ``Objects`` is frozen and
    compared by value, so the key is everything drawn; the things change seldom from step
    to step."""
    c = _Canvas()
    labels: list[Label] = []
    _things(c, v, _venue(venue_key), _ObjectsOnly(objects), labels, lang)
    return (
        tuple(c.parts),
        tuple(c.fixture_boxes),
        tuple(_label_args(lab) for lab in labels),
        # the boxes as the label placer takes them: the same tuples from step to step
        tuple((b.x0, b.y0, b.x1, b.y1) for b in c.fixture_boxes),
    )


def _lines(lines: Any) -> tuple[tuple[tuple[str, float], ...], ...]:
    """A label's lines as tuples (hashable, and what ``_label_svg`` is keyed on)."""
    return tuple(tuple(line) for line in lines)


def _label_args(lab: Label) -> tuple[str, Any, float, float, float, tuple[float, float]]:
    """A label as remembered by the caches: key, lines (tuples), anchor, radius, size."""
    lines = _lines(lab.lines)
    return (lab.key, lines, lab.ax, lab.ay, lab.r, size_of(lines))


class _ObjectsOnly:
    """A stand-in frame for ``_things``, which reads only its objects."""

    __slots__ = ("objects",)

    def __init__(self, objects: Any) -> None:
        self.objects = objects


def _min_box(b: Box, m: float) -> Box:
    """Grow a box to at least ``m`` px each way, about its centre (tiny things stay visible)."""
    cx, cy = (b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2
    w, h = max(b.x1 - b.x0, m), max(b.y1 - b.y0, m)
    return Box(cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


# -- movable things: 楅 and its arrows, 中 and 筭, 豐 and 觶, 旌, bows … ----------------------


def _things(
    c: _Canvas, v: View, venue: Venue, frame: Any, labels: list[Label], lang: str = "zh-Hant"
) -> None:
    o = frame.objects
    tr = _tr(lang)
    s = v.scale
    fx = venue.fixtures
    # the places of the 楅, 中 and 豐 as faint outlines, so the plan shows where they go
    for n in ("楅", "中", "豐"):
        if n in fx and v.contains(fx[n].x, fx[n].y):
            x, y = v.px(fx[n].x, fx[n].y)
            c.add(
                f'<circle class="place-of" data-name="{n}" cx="{_f(x)}" cy="{_f(y)}" r="3" '
                'fill="none" stroke="#bbb" stroke-dasharray="2 2"/>'
            )
    # the things set down in the view: the 楅 and the 中 each drawn as itself, the rest
    # named together at each place; the same tuple of things as at the last call in this
    # view (only a count changed: arrows, 筭) is sorted as then
    m = _MEMO.placed.get(v.name)
    if m is not None and m[0] is o.placed and m[1] is v:
        special, grouped = m[2], m[3]
    else:
        special, grouped = [], {}
        for p in o.placed:
            if not v.contains(p.x, p.y):
                continue
            name = p.name.split(":")[0]
            if name in ("楅", "中"):
                special.append((name, p))
            else:  # 豐, 觶, 旌, 扑, bows and the rest set down
                grouped.setdefault((p.x, p.y), []).append(name)
        _MEMO.placed[v.name] = (o.placed, v, special, grouped)
    for name, p in special:
        if name == "楅":
            L = float(venue.objects.get("楅", {}).get("length", 3.0))
            a, b = v.px(p.x - L / 2, p.y), v.px(p.x + L / 2, p.y)
            bx = _min_box(Box(a[0], a[1] - 1.5, b[0], a[1] + 1.5), 5)
            n = o.arrows_bi if (p.x, p.y) == (fx["楅"].x, fx["楅"].y) else 0
            c.add(_bi_svg(bx.x0, bx.y0, bx.x1, bx.y1, a[1], s, n, o.bi_counted))
            c.fixture_boxes.append(bx)
            txt = _thing("楅", lang)
            if n:
                txt += tr(" 矢{n}").format(n=n) + (tr("（乘）") if o.bi_counted else "")
            ax_, ay_ = v.px(p.x, p.y)
            labels.append(Label("fixture:楅", [[(txt, FIX_SIZE)]], ax_, ay_, (bx.x1 - bx.x0) / 2))
        elif name == "中":
            x, y = v.px(p.x, p.y)
            w, h = max(2.0 * s, 7), max(1.0 * s, 4)
            bx = Box(x - w / 2, y - h / 2, x + w / 2, y + h / 2)
            c.add(
                f'<g class="fixture thing zhong" data-name="中" data-suan="{o.suan_zhong}" '
                f'{_box_attr(bx)}><ellipse cx="{_f(x)}" cy="{_f(y)}" rx="{_f(w / 2)}" '
                f'ry="{_f(h / 2)}" fill="#a0522d"/></g>'
            )
            c.fixture_boxes.append(bx)
            form = _thing(venue.objects.get("中", {}).get("form", "中"), lang)
            txt = form + tr(" 筭{n}").format(n=o.suan_zhong) if o.suan_zhong else form
            labels.append(Label("fixture:中", [[(txt, FIX_SIZE)]], x, y, w / 2))
    for (x, y), names in grouped.items():
        svgs, bx, label = _things_at(v, x, y, tuple(names), lang)
        c.parts.extend(svgs)
        c.fixture_boxes.append(bx)
        labels.append(Label(*label))
    # 筭 on the ground by the 中: the 釋獲者 sits west of the 中 facing east, so his right
    # (右獲) is to the south and his left (左獲) to the north (注 xiangshe:193, 199)
    if "中" in fx and v.contains(fx["中"].x, fx["中"].y):
        zx, zy = fx["中"].x, fx["中"].y
        rod = float(venue.objects.get("算", {}).get("length", 1.4))
        for side, n, counted, dy in (
            ("右", o.suan_right, o.counted_right, -2.2),
            ("左", o.suan_left, o.counted_left, 2.2),
        ):
            if not n:
                continue
            x0, y0 = v.px(zx - 4.5, zy + dy)
            rods, w = _suan_rods(n, counted, x0, y0, rod * s, max(0.9 * s, 4))
            bx = Box(x0 - 1, y0 - rod * s / 2 - 1, x0 + w, y0 + rod * s / 2 + 1)
            c.add(
                f'<g class="fixture thing suan" data-side="{side}" data-count="{n}" '
                f"{_box_attr(bx)}>{rods}</g>"
            )
            c.fixture_boxes.append(bx)
            labels.append(
                Label(
                    f"fixture:筭{side}",
                    [[((tr("右筭{n}") if side == "右" else tr("左筭{n}")).format(n=n), FIX_SIZE)]],
                    (bx.x0 + bx.x1) / 2,
                    (bx.y0 + bx.y1) / 2,
                    (bx.x1 - bx.x0) / 2,
                )
            )
    # arrows at each 侯: in it (hits) across its 中, the rest fallen short before it
    for h, n_arrows, n_hits in _hou_arrows(venue.key, o) if o.arrows_hou else ():
        if not v.contains(h.x, h.y):
            continue
        c.add(_hou_arrows_svg(v, h, n_arrows, n_hits))
        x, y = v.px(h.x, h.y + 6)
        key = "fixture:侯矢" if h.name == "侯" else f"fixture:{h.name}矢"
        txt = tr("矢{n}（獲{h}）").format(n=n_arrows, h=n_hits)
        labels.append(Label(key, [[(txt, FIX_SIZE)]], x, y, 2))


@lru_cache(maxsize=4096)
def _things_at(
    v: View, x: float, y: float, names: tuple[str, ...], lang: str
) -> tuple[tuple[str, ...], Box, tuple[str, Any, float, float, float]]:
    """Things set down at one point (旌, 豐, a person's 弓 …): their SVG parts, box and
    label (key, lines, anchor, radius). Remembered: a hundred bows set down are drawn again
    whenever any thing changes."""
    px, py = v.px(x, y)
    out = []
    if "旌" in names:
        # the 旌 leant (倚) at the 侯中: a pole and its flag
        out.append(
            f'<g class="thing jing" data-name="旌"><line x1="{_f(px)}" y1="{_f(py)}" '
            f'x2="{_f(px)}" y2="{_f(py - 14)}" stroke="#333"/><path d="M{_f(px)} '
            f'{_f(py - 14)}l8 3l-8 3z" fill="#c0392b"/></g>'
        )
    half = max(3.0, 0.6 * v.scale)  # a token, about 1 尺 across (the text gives no size)
    bx = Box(px - half, py - half, px + half, py + half)
    out.append(
        f'<g class="fixture thing" data-name="{escape(" ".join(sorted(set(names))))}" '
        f'{_box_attr(bx)}><rect x="{_f(px - half)}" y="{_f(py - half)}" '
        f'width="{_f(2 * half)}" height="{_f(2 * half)}" fill="#fff" stroke="#7a5230"/></g>'
    )
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    tr = _tr(lang)
    txt = "·".join(
        tr("{thing}{n}").format(thing=_thing(n, lang), n=k) if k > 1 else _thing(n, lang)
        for n, k in counts.items()
    )
    key = f"fixture:things@{_f(x)},{_f(y)}"
    return tuple(out), bx, (key, (((txt, FIX_SIZE),),), px, py, half)


@lru_cache(maxsize=1024)
def _hou_arrows_svg(v: View, h: Hou, n_arrows: int, n_hits: int) -> str:
    """The arrows at a 侯 on the plan, hits in it across its 中 and the rest fallen short
    before it: remembered, as they are drawn again at every step until taken up."""
    k40 = h.width / 40.0  # the spread, as on the 40-尺 侯 of the 序
    marks = "".join(
        [_hou_mark(v, k, True, h.y, h.x, k40) for k in range(n_hits)]
        + [_hou_mark(v, k, False, h.y, h.x, k40) for k in range(n_arrows - n_hits)]
    )
    which = "" if h.name == "侯" else f' data-hou="{escape(h.name)}"'
    return (
        f'<g class="thing arrows-hou"{which} data-arrows="{n_arrows}" '
        f'data-hits="{n_hits}">{marks}</g>'
    )


@lru_cache(maxsize=1024)
def _bi_svg(
    x0: float, y0: float, x1: float, y1: float, y: float, s: float, n: int, counted: bool
) -> str:
    """The 楅 in its box (``x0`` … ``y1`` px) with its ``n`` arrows (``_bi_arrows``), one
    part. Remembered whole: at a big event it holds hundreds of arrows (four an archer), and
    it is drawn again whenever any thing changes.

    >>> _bi_svg(0, 0, 10, 3, 1.5, 1.0, 2, False).count("<line ")
    2
    """
    arrows = _bi_arrows(x0, x1, y, s, n, counted) if n else ""
    return (
        f'<g class="fixture thing bi" data-name="楅" data-arrows="{n}" '
        f'{_box_attr(Box(x0, y0, x1, y1))}><rect x="{_f(x0)}" y="{_f(y0)}" '
        f'width="{_f(x1 - x0)}" height="{_f(y1 - y0)}" fill="#7a5230"/>{arrows}</g>'
    )


def _bi_arrows(x0: float, x1: float, y: float, s: float, n: int, counted: bool) -> str:
    """The ``n`` arrows on the 楅 between ``x0`` and ``x1`` px: 北括, laid north–south
    across it; in fours once 乘 (四四數分之).

    >>> for line in _bi_arrows(0, 10, 1.5, 1.0, 2, False).split("/>")[:2]:
    ...     print(line)
    <line x1="1" y1="0" x2="1" y2="3" stroke="#444" stroke-width=".7"
    <line x1="5" y1="0" x2="5" y2="3" stroke="#444" stroke-width=".7"
    """
    # (the ends across the 楅 are the same for every arrow: formatted once; each arrow's
    # place is x0 + 1 + t × (x1 − x0 − 2), t its share of the 楅 counted in arrows and,
    # once 乘, a gap of one and a half between fours)
    ya, yb = _f(y - 1.5 * s), _f(y + 1.5 * s)
    base, span, whole = x0 + 1, x1 - x0 - 2, max(n + (n // 4) * 1.5, 1)
    at = [base + (k + (k // 4 if counted else 0) * 1.5) / whole * span for k in range(n)]
    mid, end = f'" y1="{ya}" x2="', f'" y2="{yb}" stroke="#444" stroke-width=".7"/>'
    return "".join([f'<line x1="{ax}{mid}{ax}{end}' for ax in _fs(at)])


def _fs(values: list[float]) -> list[str]:
    """``_f`` of each of ``values``, written at once (the hundreds of arrows on the 楅): each
    with 2 decimals and a "|" after it, then a last decimal 0 taken off each ("x.d0|" →
    "x.d|", "x.00|" → "x.0|"), then a ".0" ("x.0|" → "x|"): ``_f``'s number for every value
    but -0.0 (``_f`` writes "0"), so a list with a zero or less in it is written one by one.

    >>> _fs([2.5, 3.0, 0.125, 10.004, 100.0]) == [_f(v) for v in (2.5, 3.0, 0.125, 10.004, 100.0)]
    True
    """
    if not values or min(values) <= 0:
        return [_f(v) for v in values]
    text = "".join(map("{:.2f}|".format, values)).replace("0|", "|").replace(".0|", "|")
    return text[:-1].split("|")


@lru_cache(maxsize=8192)
def _hou_mark(v: View, k: int, hit: bool, hou_y: float, hou_x: float, spread: float) -> str:
    """The k-th arrow at a 侯 on the plan (``_arrow_spot``): a dot for a hit, a stroke for
    a miss. A function of its arguments, so remembered: a round's arrows are drawn again at
    every step until they are taken up."""
    x, y = v.px(*_arrow_spot(k, hit, hou_y, hou_x, spread))
    if hit:
        return f'<circle cx="{_f(x)}" cy="{_f(y)}" r="1.6" fill="#000"/>'
    return (
        f'<line x1="{_f(x)}" y1="{_f(y)}" x2="{_f(x)}" y2="{_f(y - 4)}" '
        'stroke="#555" stroke-width=".8"/>'
    )


@lru_cache(maxsize=1024)
def _suan_rods(
    n: int, counted: int, x0: float, y: float, length: float, pitch: float
) -> tuple[str, float]:
    """The 筭 of one side, drawn from the 釋獲者 (west) eastwards; returns (svg, width px).

    As the 數獲 lays them (xiangshe:195–198; he faces east, so 縮 is east–west and 横
    north–south, 注 and 疏 xiangshe:195): nearest him (自近爲下, 注 197) the 奇 laid 縮,
    then the 餘純 laid 横 two by two, then each ten 純 laid 縮 as one bundle; beyond them,
    those not yet counted, as they were dropped by the 釋獲 (drawn north–south)."""
    out: list[str] = []
    x = x0
    tens, rest = divmod(counted, 20)
    pairs, odd = divmod(rest, 2)
    green = "#1e8449"

    def ew(x: float, width: float) -> str:
        return (
            f'<line class="suo" x1="{_f(x)}" y1="{_f(y)}" x2="{_f(x + length)}" y2="{_f(y)}" '
            f'stroke="{green}" stroke-width="{_f(width)}"/>'
        )

    def ns(x: float, colour: str, cls: str) -> str:
        return _rod_ns(x, y, length, colour, cls)

    if odd:
        out.append(ew(x, 1))
        x += length + pitch / 2
    for _ in range(pairs):
        out.append(ns(x, green, "heng") + ns(x + pitch / 3, green, "heng"))
        x += pitch
    for _ in range(tens):
        out.append(ew(x, 3))
        x += length + pitch / 2
    for k in range(n - counted):
        out.append(ns(x + (k // 2) * pitch + (k % 2) * pitch / 3, "#333", "loose"))
    x += ((n - counted + 1) // 2) * pitch
    return "".join(out), x - x0 + pitch / 2


@lru_cache(maxsize=8192)
def _rod_ns(x: float, y: float, length: float, colour: str, cls: str) -> str:
    """A 筭 laid north–south at (x, y) px: remembered, as the rods of a round are drawn
    again at every step until they are counted and taken up."""
    return (
        f'<line class="{cls}" x1="{_f(x)}" y1="{_f(y - length / 2)}" x2="{_f(x)}" '
        f'y2="{_f(y + length / 2)}" stroke="{colour}" stroke-width="1"/>'
    )


def _arrow_spot(
    k: int, hit: bool, hou_y: float, hou_x: float = 0.0, spread: float = 1.0
) -> tuple[float, float]:
    """Where the k-th arrow at a 侯 is drawn (尺): a hit on the 侯's 中 (10 尺 on the 序's
    侯; ``spread`` scales it to a wider 侯), a miss on the ground before the 侯. The spread
    is presentation (the log says only hit or not, and at which 侯)."""
    if hit:
        return (hou_x + spread * (-4 + 8 * ((k * 0.618) % 1)), hou_y)
    return (
        hou_x + spread * (-18 + 36 * ((k * 0.618 + 0.3) % 1)),
        hou_y + 3 + 4 * ((k * 0.382) % 1),
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
    label: str, holds: tuple[str, ...], says: str | None, lang: str = "zh-Hant"
) -> tuple[tuple[tuple[tuple[str, float], ...], ...], tuple[float, float]]:
    """A person's label: one line, the name, then what he holds in smaller type (a row of
    people 3 尺 apart can then be labelled beside its figures); the words spoken under it,
    for the speaker. With its size. ``label`` is in ``lang`` already; the words spoken are
    the text's own (in brackets in English)."""
    first: tuple[tuple[str, float], ...] = ((label, NAME_SIZE),)
    ht = "·".join(_hold(h, lang) for h in holds)
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


# -- the whole -------------------------------------------------------------------------------


def _header(frame: Frame, scene: dict[str, Any], width: int, lang: str = "zh-Hant") -> str:
    s = frame.step
    tr = _tr(lang)
    en = lang == "en"
    title = scene.get("title") or scene.get("rite", "")
    title = f"({title})" if en else tr(title)
    rnd = {0: "", 1: tr("第一番射"), 2: tr("第二番射"), 3: tr("第三番射")}.get(frame.round, "")
    head = tr("{title} {round} 疏§{section}  {cite}  #{seq}").format(
        title=title, round=rnd, section=frame.section, cite=frame.cite, seq=frame.seq
    )
    head = head.replace("  ", " ")
    actor = _person(frame.actor or "", None, lang) if frame.actor else ""
    if en:
        act = f"{actor}: {label_en(frame.verb, 'verbs')}" if frame.verb else actor
        act += f" ({label_en(frame.to, 'roles', 'places')})" if frame.to else ""
    else:
        act = f"{actor} {tr(frame.verb or '')}" + (f"（{tr(frame.to)}）" if frame.to else "")
    out = [
        f'<text class="cite" x="{MARGIN}" y="20" font-size="14">{escape(head)}</text>',
        f'<text class="act" x="{width - MARGIN}" y="20" font-size="14" text-anchor="end" '
        f'fill="{_ACTOR}">{escape(act)}</text>',
    ]
    y = 40.0
    jing = s.get("jing") or ""
    if en:
        # the passage in the project's English (sheli.text.english), its words by line
        t = passage_english(frame.cite) if frame.cite else None
        lines = (
            _wrap_words(t.text, 15, width - 2 * MARGIN) if t else ((f"({jing})",) if jing else ())
        )
    else:
        lines = _wrap_cached(tr(jing), 15, width - 2 * MARGIN)
    for k, line in enumerate(lines[:2]):
        if k == 1 and len(lines) > 2:
            line += " …"
        out.append(
            f'<text class="jing" x="{MARGIN}" y="{_f(y)}" font-size="15">{escape(line)}</text>'
        )
        y += 18
    if frame.says:
        said = (
            tr("{who} says ({words})").format(who=actor, words=f"「{frame.says}」")
            if en
            else f"{actor}曰{tr(f'「{frame.says}」')}"
        )
        out.append(
            f'<text class="says" x="{MARGIN}" y="{_f(y + 2)}" font-size="15" '
            f'font-weight="bold" fill="{_ACTOR}">{escape(said)}</text>'
        )
    o = frame.objects
    bits = []
    if o.arrows_hou:
        bits.append(tr("侯 矢{n}（獲{h}）").format(n=o.arrows_hou, h=o.hits_hou))
    if o.arrows_bi:
        bits.append(tr("楅 矢{n}").format(n=o.arrows_bi) + (tr("（乘）") if o.bi_counted else ""))
    if o.suan_zhong or o.suan_right or o.suan_left:
        bits.append(
            tr("中 筭{n}  右獲{right} 左獲{left}").format(
                n=o.suan_zhong, right=o.suan_right, left=o.suan_left
            )
        )
    if frame.tally and frame.tally.get("round") == frame.round:
        t = frame.tally
        said = f"({t['announcement']})" if en else tr(t["announcement"])
        bits.append(
            tr("數獲 右{right} 左{left}：{said}").format(
                right=t["right"], left=t["left"], said=said
            )
        )
    if bits:
        out.append(
            f'<text class="state" x="{width - MARGIN}" y="{_f(HEAD - 6)}" font-size="11" '
            f'text-anchor="end" fill="#555">{escape("  ".join(bits))}</text>'
        )
    return "".join(out)


@lru_cache(maxsize=1024)
def _wrap_words(text: str, size: float, width: float) -> tuple[str, ...]:
    """English broken into lines at spaces, each at most ``width`` px (a word longer than a
    line stands alone).

    >>> _wrap_words("the director of archery", 10, 70)
    ('the director', 'of archery')
    """
    lines: list[str] = []
    cur = ""
    for word in text.split():
        nxt = f"{cur} {word}" if cur else word
        if cur and text_width(nxt, size) > width:
            lines.append(cur)
            nxt = word
        cur = nxt
    if cur:
        lines.append(cur)
    return tuple(lines)


@lru_cache(maxsize=256)
def _scale_bar(v: View, m_per: float, y: float, lang: str = "zh-Hant") -> str:
    """A bar in 尺 and one in metres (``m_per``: the venue's metres to the 尺)."""
    tr = _tr(lang)
    chi, metres = {"hall": (10, 2), "near": (5, 1)}.get(v.name, (50, 10))
    x0 = v.ox + 4
    w_chi = chi * v.scale
    w_m = metres / m_per * v.scale
    chi_text = tr("{n} 尺").format(n=chi)
    m_text = tr("（1 尺 = {m} m）").format(m=m_per)
    return (
        f'<g class="scale-bar" data-scale="{v.scale:.6f}">'
        f'<rect class="bar-chi" data-chi="{chi}" data-px="{_f(w_chi)}" x="{_f(x0)}" '
        f'y="{_f(y)}" width="{_f(w_chi)}" height="4" fill="#333"/>'
        f'<text x="{_f(x0 + w_chi + 4)}" y="{_f(y + 5)}" font-size="10">'
        f"{chi_text}</text>"
        f'<rect class="bar-m" data-m="{metres}" data-px="{_f(w_m)}" x="{_f(x0)}" '
        f'y="{_f(y + 9)}" width="{_f(w_m)}" height="4" fill="#777"/>'
        f'<text x="{_f(x0 + w_m + 4)}" y="{_f(y + 14)}" font-size="10">{metres} m'
        f"{m_text}</text></g>"
    )


@lru_cache(maxsize=64)
def _inset_plan(
    venue_key: str,
    x: float,
    y: float,
    w: float,
    h: float,
    beast: tuple[str, str] | None = None,
    lang: str = "zh-Hant",
) -> tuple[str, View]:
    """The fixed part of the inset (its frame, the 堂, 侯, 乏 and the hall view's frame),
    drawn once per (venue, place), and its view."""
    venue = _venue(venue_key)
    x0, y0, x1, y1 = _range(venue_key)
    s = min(w / (x1 - x0), h / (y1 - y0))
    ox = x + (w - (x1 - x0) * s) / 2
    v = View("inset", x0, y0, x1, y1, s, ox, y)
    fx = venue.fixtures
    out = [f'<g class="inset" data-scale="{_f(s)}">']
    b = v.box
    out.append(
        f'<rect x="{_f(b.x0)}" y="{_f(b.y0)}" width="{_f(b.x1 - b.x0)}" '
        f'height="{_f(b.y1 - b.y0)}" fill="#fbfbf7" stroke="#888"/>'
    )
    if "堂" in fx and fx["堂"].extent:
        e = fx["堂"].extent
        a, c = v.px(e.x0, e.y1), v.px(e.x1, e.y0)
        out.append(
            f'<rect x="{_f(a[0])}" y="{_f(a[1])}" width="{_f(c[0] - a[0])}" '
            f'height="{_f(c[1] - a[1])}" fill="#f4ecd8" stroke="#6b5b3e"/>'
        )
    marks = [(t.name, _HOU, t.width / 2 * s) for t in targets(venue_key)]
    marks += [(n, "#8a6d3b", 3 * s) for n in fx if n.endswith("乏")]
    for n, col, half in marks:
        if n in fx:
            px, py = v.px(fx[n].x, fx[n].y)
            shown = _thing(n, lang)
            if beast is not None and n in ("侯", "矦"):  # the 燕射's 獸侯 (beast_hou)
                shown, col = _thing(beast[0], lang), QUALITY.get(beast[1], col)
            out.append(
                f'<line x1="{_f(px - half)}" y1="{_f(py)}" x2="{_f(px + half)}" y2="{_f(py)}" '
                f'stroke="{col}" stroke-width="2"/><text x="{_f(px + half + 2)}" '
                f'y="{_f(py + 3)}" font-size="9">{shown}</text>'
            )
    hb = _layout("hall", 900)
    a, c = v.px(hb.x0, hb.y1), v.px(hb.x1, hb.y0)
    out.append(
        f'<rect class="inset-view" x="{_f(a[0])}" y="{_f(a[1])}" width="{_f(c[0] - a[0])}" '
        f'height="{_f(c[1] - a[1])}" fill="none" stroke="{_PATH}" stroke-dasharray="3 2"/>'
    )
    return "".join(out), v


@lru_cache(maxsize=16384)
def _inset_dot(v: View, x: float, y: float, me: bool) -> str:
    """A person as a dot on the inset (the actor red)."""
    px, py = v.px(x, y)
    return f'<circle cx="{_f(px)}" cy="{_f(py)}" r="1.6" fill="{_ACTOR if me else "#333"}"/>'


def _inset_dots(v: View, pts: Iterable[tuple[float, float]]) -> tuple[str, ...]:
    """Everyone as a dot on the inset, each a part of its own: a part is stored once in a
    packing, and a dot moves only with its person (the actor is drawn red over his)."""
    return tuple(_inset_dot(v, x, y, False) for x, y in pts)


@lru_cache(maxsize=4096)
def _inset_arrows(v: View, t: Hou, n: int, h: int, lang: str) -> str:
    """The arrows at a 侯 on the inset, as ``_things`` lays them on the range view (hits on
    the 侯, misses short of it), at most ``INSET_MARKS`` of each kind, and their count: a
    function of its arguments, so remembered (drawn again at every step until taken up)."""
    px, py = v.px(t.x, t.y)
    marks = []
    for hit, count in ((True, h), (False, n - h)):
        for k in range(min(count, INSET_MARKS)):
            x, y = v.px(*_arrow_spot(k, hit, t.y, t.x, t.width / 40.0))
            marks.append(
                f'<circle cx="{_f(x)}" cy="{_f(y)}" r="1.2" fill="{"#000" if hit else "#888"}"/>'
            )
    which = "" if t.name == "侯" else f' data-hou="{escape(t.name)}"'
    count_text = _tr(lang)("矢{n}（獲{h}）").format(n=n, h=h)
    return (
        f'<g class="inset-arrows"{which} data-arrows="{n}" data-hits="{h}">'
        f'{"".join(marks)}</g><text x="{_f(px)}" y="{_f(py + 12)}" font-size="9" '
        f'text-anchor="middle">{count_text}</text>'
    )


def _inset_things(v: View, o: Any, venue_key: str, lang: str) -> list[str]:
    """What the inset draws of the things: the arrows at each 侯, as ``_things`` lays them
    on the range view (hits on the 侯, misses short of it), at most ``INSET_MARKS`` of each
    kind, and the 旌 where it is set down (倚旌于侯中 xiangshe:119; 不去旌 130: it stays
    there while the 司射 shoots), a pole with its flag, as on the plan."""
    arrows = _hou_arrows(venue_key, o) if o.arrows_hou else ()
    out = [_inset_arrows(v, t, n, h, lang) for t, n, h in arrows]
    for thing in o.placed:
        if thing.name.split(":")[0] == "旌":
            px, py = v.px(thing.x, thing.y)
            out.append(
                f'<path class="inset-jing" d="M{_f(px)} {_f(py)}v-8l5 2l-5 2" fill="#c0392b" '
                'stroke="#333" stroke-width=".6"/>'
            )
    return out


def _inset(
    frame: Frame,
    venue_key: str,
    x: float,
    y: float,
    w: float,
    h: float,
    beast: tuple[str, str] | None = None,
    lang: str = "zh-Hant",
) -> list[str]:
    """The whole range, small, with everyone as a dot and the hall view's frame: parts of
    the SVG (see :func:`render_svg_parts`)."""
    head, v = _inset_plan(venue_key, x, y, w, h, beast, lang)
    tr = _tr(lang)
    me = frame.actor
    d = _MEMO.dots
    plist = frame.plist  # type: ignore[attr-defined]
    changed = _changed(d[1], plist) if d[0] is v else None
    if changed is None:
        d[:] = [v, plist, _inset_dots(v, [(p.x, p.y) for p in plist])]
    elif changed:
        # a step moves one person or a few: only their dots are looked up again
        dots = list(d[2])
        for i in changed:
            p = plist[i]
            dots[i] = _inset_dot(v, p.x, p.y, False)
        d[:] = [v, plist, tuple(dots)]
    parts = [head, *d[2]]
    a = frame.people.get(me or "")
    if a is not None:
        parts.append(_inset_dot(v, a.x, a.y, True))
    o = frame.objects
    m = _MEMO.inset_things
    if m[0] is v and m[1] is o and m[2] == venue_key and m[3] == lang:
        out = list(m[4])
    else:
        out = _inset_things(v, o, venue_key, lang)
        _MEMO.inset_things = (v, o, venue_key, lang, tuple(out))
    for archer, t, hit, k in _flights(frame, venue_key):
        a = frame.people.get(archer)
        if a is None:
            continue
        spot = _arrow_spot(min(k, INSET_MARKS - 1), hit, t.y, t.x, t.width / 40.0)
        (x0, y0), (x1, y1) = v.px(a.x, a.y), v.px(*spot)
        out.append(
            f'<line class="inset-flight" data-hit="{str(hit).lower()}" x1="{_f(x0)}" '
            f'y1="{_f(y0)}" x2="{_f(x1)}" y2="{_f(y1)}" stroke="{_ACTOR}" stroke-width=".8" '
            'stroke-dasharray="2 2"/>'
        )
    b = v.box
    whole = tr("全侯道（{n} 尺）").format(n=_f(_hou_dao(venue_key)))
    out.append(f'<text x="{_f(b.x0)}" y="{_f(b.y1 + 12)}" font-size="9" fill="#555">{whole}</text>')
    out.append("</g>")
    parts.append("".join(out))
    return parts


def _changed(old: list[Any] | None, new: list[Any]) -> list[int] | None:
    """Where ``new`` holds another object than ``old`` (by identity), or None if their
    lengths differ: a step makes new objects for one person or a few, so what was drawn of
    the others can be kept.

    >>> a, b, c = object(), object(), object()
    >>> _changed([a, b], [a, c]), _changed([a, b], [a, b]), _changed([a], [a, b])
    ([1], [], None)
    """
    for o, n, got in _CHANGED:
        if o is old and n is new:
            return got
    if old is None or len(old) != len(new):
        return None
    got = list(itertools.compress(range(len(new)), map(operator.is_not, old, new)))
    _knew_changed(old, new, got)
    return got


#: The last answers of ``_changed`` (not to be changed by its callers), each with its two
#: lists, so that an identity cannot be another list's: a step asks it of the same lists
#: several times (the bodies, their layout, the inset's dots, the walks), and ``_bodies``
#: gives the answer for the list it makes as it makes it. It changes only the time taken.
_CHANGED: list[tuple[Any, Any, list[int] | None]] = []
_CHANGED_MAX = 4


def _knew_changed(old: list[Any], new: list[Any], got: list[int]) -> None:
    """Keep ``got`` as ``_changed(old, new)``."""
    _CHANGED.insert(0, (old, new, got))
    del _CHANGED[_CHANGED_MAX:]


class _Memo:
    """What the last drawings drew, to be taken again when what it was drawn from is the
    very same objects: consecutive frames share most of them (a frame makes a new
    ``Person`` only for the step's actor and new ``Objects`` only when a thing changed),
    and comparing objects by identity costs much less than hashing their values for the
    caches keyed on values. Each entry holds the objects it was drawn from, so they stay
    alive and an identity can never be another object's. It changes only the time taken.
    """

    def __init__(self) -> None:
        # each by the view's name: a run goes back and forth between the hall view and the
        # range view (the 獲者 at the 乏), and each view's drawing is taken again on return
        self.things: dict[str, tuple[Any, ...]] = {}  # view name → (venue, view, objects, drawn)
        self.people: dict[str, tuple[Any, ...]] = {}  # view name → (view, r, row, people, …)
        # view name → actor → (person, view, …, svg)
        self.persons: dict[str, dict[str, tuple[Any, ...]]] = {}
        # view name → label key → (lines, box, …, svg)
        self.labels: dict[str, dict[str, tuple[Any, ...]]] = {}
        self.dots: list[Any] = [None, None, None]  # inset view, people, their dots
        # the inset's things: view, objects, venue, language, and what was drawn
        self.inset_things: tuple[Any, ...] = (None, None, None, None, ())
        # view name → the figures drawn last in it: people, layout, view, radius, figures,
        # index by name, and those drawn marked (actor, members, 獲者)
        self.figures: dict[str, tuple[Any, ...]] = {}
        self.bodies: tuple[Any, ...] = (None, None, None)  # people, their bodies, where each begins
        # people, the seq their run of steps began, the indexes of those who walked in it
        self.movers: tuple[Any, ...] = (None, -1, [])
        # a layout made from another by moving a few (``_move_layout``): the two people's
        # places, and the names of those laid out again
        self.where_from: tuple[Any, ...] = (None, None, frozenset())
        # view name → the things set down (the tuple), view, the 楅 and 中 among them, the
        # others by place
        self.placed: dict[str, tuple[Any, ...]] = {}
        # the labels to place, made again only when what they read or where they stand
        # changed (each placement sets their boxes anew): a person's by his label's key (his
        # anchor, lines and radius compared), the plan's and the things' by the very list
        # of what they are made from (id → that list, its labels)
        self.person_labels: dict[str, Label] = {}
        self.label_lists: dict[int, tuple[Any, list[Label]]] = {}

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]


_MEMO = _Memo()


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


def _things_memo(venue_key: str, v: View, objects: Any, lang: str = "zh-Hant") -> tuple[Any, ...]:
    """``_things_of``, taken from the last drawing in this view when it had these objects."""
    e = _MEMO.things.get(v.name)
    if e is not None and e[2] is objects and e[1] is v and e[0] == venue_key and e[4] == lang:
        return e[3]  # type: ignore[no-any-return]
    drawn = _things_of(venue_key, v, objects, lang)
    _MEMO.things[v.name] = (venue_key, v, objects, drawn, lang)
    return drawn


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
    if changed and all(_same_standing(e[3][i], plist[i]) for i in changed):
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
            g = groups.get(kn)
            groups[kn] = sorted([*g, i]) if g else [i]
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
                ix = by.get(kn)
                by[kn] = [i] if ix is None else sorted([*ix, i])
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


def _layout_all(
    frame: Frame,
    scene: dict[str, Any],
    highlight: str | None,
    width: int,
    view: str,
    lang: str = "zh-Hant",
    keep_labels: bool = False,
) -> tuple[View, Venue, _Canvas, list[Label], dict[str, tuple[float, float]], float, str]:
    venue = _venue(scene.get("venue") or "xie")
    name = choose_view(frame, view)
    v = _layout(name, width, frame, highlight, scene.get("venue") or "xie")
    c = _Canvas()
    venue_key = scene.get("venue") or "xie"
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
        lines, size = _person_lines(who, p.holds, says if p.actor == speaker else None, lang)
        # his label of the step before, while it reads and stands the same (its box is set
        # anew by each placement)
        key = f"person:{p.actor}"
        lab = made.get(key)
        if lab is None or lab.lines is not lines or lab.ax != x or lab.ay != y or lab.r != r2:
            lab = made[key] = Label(key, lines, x, y, r2, _size=size)  # type: ignore[arg-type]
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
        plabels.append(Label(f"group:{gkey}", lines, gx, gy, half, _size=size_of(lines)))  # type: ignore[arg-type]
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
        keep=keep_labels,
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


def clear_caches() -> None:
    """Empty the caches the drawing keeps between steps (the plan of each view, figures,
    labels, numbers). They are keyed on everything that is drawn, so this changes only the
    time a diagram takes, never what it is (the tests check this)."""
    _F_CACHE.clear()
    _MEMO.clear()
    _CHANGED.clear()
    _VIEW_INTERN.clear()
    clear_placements()
    _static_plan.cache_clear()
    _things_of.cache_clear()
    _person_svg.cache_clear()
    _label_svg.cache_clear()
    _inset_plan.cache_clear()
    _view_parts.cache_clear()
    _inset_dot.cache_clear()
    _scale_bar.cache_clear()
    _people_layout.cache_clear()
    _person_lines.cache_clear()
    targets.cache_clear()
    _range.cache_clear()
    _hou_mark.cache_clear()
    _inset_arrows.cache_clear()
    _hou_arrows_svg.cache_clear()
    _things_at.cache_clear()
    _suan_rods.cache_clear()
    _path_svg.cache_clear()
    _bi_svg.cache_clear()
    _rod_ns.cache_clear()
    _wrap_cached.cache_clear()
    _wrap_words.cache_clear()
    size_of.cache_clear()


class _FrameView:
    """A frame with everyone present looked up once: ``Frame.people`` builds its mapping
    anew at each access, and a diagram asks for it many times. The same people, in the same
    order; every other attribute is the frame's."""

    __slots__ = (
        "_frame",
        "actor",
        "group_from",
        "objects",
        "people",
        "plist",
        "plist_people",
        "says",
        "seq",
        "shots",
    )

    def __init__(self, frame: Frame) -> None:
        self._frame = frame
        # (a frame of build_frames copies its mapping at C speed; any other, one by one)
        as_dict = getattr(frame, "people_dict", None)
        self.people = as_dict() if as_dict is not None else dict(frame.people)
        # every body: a role that is several people is drawn member by member
        self.plist_people = list(self.people.values())
        self.plist = _bodies(self.plist_people)
        # read many times a step: looked up once (the rest goes to the frame)
        self.actor = frame.actor
        self.seq = frame.seq
        self.says = frame.says
        self.objects = frame.objects
        self.shots = frame.shots
        self.group_from = frame.group_from

    def __getattr__(self, name: str) -> Any:
        return getattr(self._frame, name)


def _bodies(people: list[Person]) -> list[Person]:
    """Every body of ``people``: each person, then his group's other members. Made from
    the last list where the same people come in the same order and only a few are new
    objects (a step changes one person or a few), each with as many members as before.

    >>> from sheli.outputs.frames import Person
    >>> a = Person("甲", "r", None, 0, 0, None, (), (), None)
    >>> b = Person("乙", "r", None, 0, 0, None, (), (), None, members=(a,))
    >>> [p.actor for p in _bodies([b, a])]
    ['乙', '甲', '甲']
    """
    last = _MEMO.bodies
    changed = _changed(last[0], people)
    if changed is not None and all(
        len(people[i].members) == len(last[0][i].members) for i in changed
    ):
        before = last[1]
        out = list(before)
        starts = last[2]
        spans = []
        for i in changed:
            p = people[i]
            k = starts[i]
            out[k] = p
            out[k + 1 : k + 1 + len(p.members)] = p.members
            spans.append(range(k, k + 1 + len(p.members)))
        # where the bodies' list holds other objects than the last: within these spans only
        _knew_changed(before, out, [j for sp in spans for j in sp if out[j] is not before[j]])
    else:
        out = [q for p in people for q in (p, *p.members)]
        starts = list(itertools.accumulate((1 + len(p.members) for p in people[:-1]), initial=0))
    _MEMO.bodies = (people, out, starts)
    return out


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
    scene: dict[str, Any],
    *,
    width: int = 900,
    view: str = "auto",
    lang: str = "zh-Hant",
    keep_labels: bool = False,
) -> tuple[list[Label], list[Box]]:
    """The placed labels of a frame's diagram and the fixtures' boxes, as the renderer
    draws them (for tests and for the viewer's hit-testing); ``keep_labels`` as for
    :func:`render_svg_parts`. The labels are copies: the drawing's own are placed again by
    the next diagram."""
    frame = _FrameView(frame)  # type: ignore[assignment]
    _, _, c, labels, _, _, _ = _layout_all(frame, scene, None, width, view, lang, keep_labels)
    return [replace(lab) for lab in labels], list(c.fixture_boxes)


def body_boxes(
    frame: Frame, scene: dict[str, Any], *, width: int = 900, view: str = "auto"
) -> dict[str, Box]:
    """The disc of every body drawn in a frame's diagram (each member of a role that is
    several people a body of his own), by name, as the renderer draws them: what no label
    may cover (for tests).

    >>> from sheli.engine import run
    >>> from sheli.outputs.frames import build_frames
    >>> r = run("xiangshe", seed=1)
    >>> sorted(n for n in body_boxes(build_frames(r)[0], r.events[0]) if n.startswith("衆賓"))
    ['衆賓', '衆賓2', '衆賓3']
    """
    frame = _FrameView(frame)  # type: ignore[assignment]
    v, _, _, _, where, r, _ = _layout_all(frame, scene, None, width, view)
    return {
        p.actor: Box(
            where[p.actor][0] - r,
            where[p.actor][1] - r,
            where[p.actor][0] + r,
            where[p.actor][1] + r,
        )
        for p in frame.plist  # type: ignore[attr-defined]
        if v.contains(p.x, p.y)
    }


@lru_cache(maxsize=256)
def _view_parts(v: View, lang: str = "zh-Hant") -> tuple[str, tuple[str, ...], str]:
    """What a diagram draws of its view alone: the root's view attributes, the plan's frame
    and clip path (its lines of the SVG), and the north arrow (北 up, as the 儀禮圖 draw it)."""
    b = v.box
    attrs = (
        f'data-view="{v.name}" data-scale="{v.scale:.6f}" '
        f'data-bounds="{_f(v.x0)} {_f(v.y0)} {_f(v.x1)} {_f(v.y1)}" '
        f'data-origin="{_f(v.ox)} {_f(v.oy)} {_f(v.x0)} {_f(v.y1)}"'
    )
    parts = (
        f'<g class="plan" data-view="{v.name}">',
        f'<rect class="view" x="{_f(b.x0)}" y="{_f(b.y0)}" width="{_f(b.x1 - b.x0)}" '
        f'height="{_f(b.y1 - b.y0)}" fill="#fcfcf9" stroke="#ccc"/>',
        f'<clipPath id="plan-clip"><rect x="{_f(b.x0)}" y="{_f(b.y0)}" '
        f'width="{_f(b.x1 - b.x0)}" height="{_f(b.y1 - b.y0)}"/></clipPath>',
        '<g clip-path="url(#plan-clip)">',
    )
    nx, ny = b.x1 - 14, b.y0 + 8
    tr = _tr(lang)
    north_text = tr("北")
    north = (
        f'<g class="north"><path d="M{_f(nx)} {_f(ny)}l5 14h-10z" fill="#333"/>'
        f'<text x="{_f(nx)}" y="{_f(ny + 26)}" font-size="10" text-anchor="middle">'
        f"{north_text}</text></g>"
    )
    return attrs, parts, north


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
        return e[7]  # type: ignore[no-any-return]
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


def render_svg(
    frame: Frame,
    scene: dict[str, Any],
    *,
    highlight: str | None = None,
    width: int = 900,
    view: str = "auto",
    lang: str = "zh-Hant",
    keep_labels: bool = False,
) -> str:
    """The diagram of one step as a standalone SVG document (a string): the parts of
    :func:`render_svg_parts`, one line or more each, joined by newlines.

    >>> from sheli.engine import run
    >>> from sheli.outputs.frames import build_frames
    >>> r = run("xiangshe", seed=1)
    >>> f = build_frames(r)[0]
    >>> render_svg(f, r.events[0]) == chr(10).join(render_svg_parts(f, r.events[0]))
    True
    """
    return "\n".join(
        render_svg_parts(
            frame,
            scene,
            highlight=highlight,
            width=width,
            view=view,
            lang=lang,
            keep_labels=keep_labels,
        )
    )


def render_svg_parts(
    frame: Frame,
    scene: dict[str, Any],
    *,
    highlight: str | None = None,
    width: int = 900,
    view: str = "auto",
    lang: str = "zh-Hant",
    keep_labels: bool = False,
) -> list[str]:
    """The diagram of one step as a standalone SVG document, in parts: joined by newlines
    they are the document (:func:`render_svg`). A part is one line or several; a part
    that is the same from step to step (a figure, a label, the plan) is, as far as the
    drawing's caches reach, the very same string object, so that packing the diagrams of
    many steps (``sheli.outputs.render``) finds it again without reading it through.

    ``scene`` is the event log's scene line; ``highlight`` the person to highlight (the
    step's actor by default); ``view`` "hall", "range" or "auto" (the view that holds the
    step's actor and his path; "hall" comes with an inset of the whole range); ``lang``
    the language of its words (zh-Hant, zh-Hans or en: docs/diagrams.md, "Labels in
    English"). With ``keep_labels``, each label whose thing did not move stays where the
    last diagram drawn with ``keep_labels`` in this view put it, if that place is still
    free, and only the others are placed (``sheli.outputs.labels.place_labels`` with
    ``keep``): a sequence of diagrams drawn so begins with
    ``sheli.outputs.labels.restart_kept()``, and each diagram of it then depends on those
    drawn before it in the sequence (docs/diagrams.md, "Labels kept in a sequence").

    >>> from sheli.engine import run
    >>> from sheli.outputs.frames import build_frames
    >>> r = run("xiangshe", seed=1)
    >>> svg = render_svg(build_frames(r)[0], r.events[0], view="range")
    >>> 'xmlns="http://www.w3.org/2000/svg"' in svg, "<title>" in svg
    (True, True)
    """
    frame = _FrameView(frame)  # type: ignore[assignment]
    v, venue, c, labels, where, r, actor = _layout_all(
        frame, scene, highlight, width, view, lang, keep_labels
    )
    b = v.box
    ov = [lab.box.y1 for lab in labels if lab.box is not None]
    height = max(b.y1 + 40, *ov, 0) + MARGIN
    if lang == "en":
        title = f"({scene.get('title', '')}) {frame.cite} #{frame.seq} " + (
            f"{_person(frame.actor or '', None, lang)}: {label_en(frame.verb or '', 'verbs')}"
        )
        title += f" (「{frame.says}」)" if frame.says else ""
    else:
        title = f"{scene.get('title', '')} {frame.cite} #{frame.seq} {frame.actor}{frame.verb}"
        title = _tr(lang)(title + (f"「{frame.says}」" if frame.says else ""))
    bounds_attrs, view_parts, north = _view_parts(v, lang)
    out = [
        f'<svg xmlns="{SVG_NS}" width="{width}" height="{_f(height)}" '
        f'viewBox="0 0 {width} {_f(height)}" font-family="{FONT}" class="sheli-step" '
        f'data-seq="{frame.seq}" {bounds_attrs}>',
        f"<title>{escape(title)}</title>",
        f'<rect width="{width}" height="{_f(height)}" fill="#fff"/>',
        _header(frame, scene, width, lang),
        *view_parts,
        *c.parts,
        "</g>",
        north,
    ]
    # paths: the actor's walk in this act, bold; others who moved in this group of acts
    # (the same passage, e.g. each of the 三耦 進), faint; clipped to the plan, which a walk
    # from beyond the view (to the 中 from the 司馬之南, on a near view) would run out of
    paths = []
    for p in _movers(frame.plist_people, frame.group_from):
        me = p.actor == actor and p.moved_at == frame.seq
        paths.append(_path_svg(p.actor, p.path, v, where.get(p.actor), me))
    if paths:
        out += ['<g class="paths" clip-path="url(#plan-clip)">', *paths, "</g>"]
    # the flight of an arrow loosed in this step, to where it is drawn at the 侯; with the
    # 侯 beyond the view (an archer on the hall view), as far as the view's edge
    for archer, hou, hit, k in _flights(frame, venue.key):
        if archer not in where:
            continue
        tx, ty = v.px(*_arrow_spot(k, hit, hou.y, hou.x, hou.width / 40.0))
        x0, y0 = where[archer]
        line = (
            f'<line class="flight" data-hit="{str(hit).lower()}" x1="{_f(x0)}" y1="{_f(y0)}" '
            f'x2="{_f(tx)}" y2="{_f(ty)}" stroke="#555" stroke-width=".8" '
            'stroke-dasharray="1 3"/>'
        )
        inside = v.contains(hou.x, hou.y)
        out.append(line if inside else f'<g clip-path="url(#plan-clip)">{line}</g>')
    out.insert(
        3,
        '<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
        f'markerHeight="6" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" '
        f'fill="{_PATH}"/></marker></defs>',
    )
    # figures (clipped to the plan: a crowd's block may reach beyond it)
    out.append('<g clip-path="url(#plan-clip)">')
    raised = frame.objects.jing_raised
    # everyone in the view, as the layout found them (the same people, in order)
    out += _figures(_MEMO.people[v.name][5][_VISIBLE], where, v, r, actor, raised, frame.people)
    out.append("</g>")
    # labels (fixtures' and people's), with leader lines where displaced
    actor_key = f"person:{actor}"
    memo = _MEMO.labels.get(v.name)
    if memo is None:
        memo = _MEMO.labels[v.name] = {}
    for lab in labels:
        assert lab.box is not None
        bx = lab.box
        is_actor = lab.key == actor_key
        e = memo.get(lab.key)
        # the same lines (object) in the same box (object) as last time: the same drawing
        if (
            e is not None
            and e[0] is lab.lines
            and e[1] is bx
            and e[2] == lab.leader
            and e[3] == lab.ax
            and e[4] == lab.ay
            and e[5] == is_actor
        ):
            out.append(e[6])
            continue
        svg = _label_svg(
            lab.key,
            lab.lines,  # tuples: every label is made with them (_layout_all)
            bx.x0,
            bx.y0,
            bx.x1,
            bx.y1,
            lab.leader,
            lab.ax,
            lab.ay,
            is_actor,
        )
        memo[lab.key] = (lab.lines, bx, lab.leader, lab.ax, lab.ay, is_actor, svg)
        out.append(svg)
    out.append("</g>")
    out.append(_scale_bar(v, venue.metre_per_chi.value, b.y1 + 6, lang))
    if v.name == "hall" and _inset_w(width):
        venue_key = scene.get("venue") or "xie"
        out.extend(
            _inset(
                frame,
                venue_key,
                b.x1 + 8,
                b.y0,
                INSET_W - 8,
                b.y1 - b.y0,
                beast_hou(scene),
                lang,
            )
        )
    out.append("</svg>")
    return out

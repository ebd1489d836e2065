"""The things set down or carried about the plan: the 楅, the 中 and its 筭, the arrows at the 侯
(docs/diagrams.md).
"""

from __future__ import annotations

from functools import lru_cache
from html import escape
from typing import Any

from sheli.outputs.diagram.memo import _MEMO
from sheli.outputs.diagram.plan import Hou, View, _hou_arrows, _label_args, _min_box, _venue
from sheli.outputs.diagram.style import FIX_SIZE, _box_attr, _Canvas, _f
from sheli.outputs.diagram.words import _thing, _tr
from sheli.outputs.labels import (
    Box,
    Label,
)
from sheli.place.model import Venue


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


class _ObjectsOnly:
    """A stand-in frame for ``_things``, which reads only its objects."""

    __slots__ = ("objects",)

    def __init__(self, objects: Any) -> None:
        self.objects = objects


# -- movable things: 楅 and its arrows, 中 and 筭, 豐 and 觶, 旌, bows … ----------------------


def _things(
    c: _Canvas, v: View, venue: Venue, frame: Any, labels: list[Label], lang: str = "zh-Hant"
) -> None:
    o = frame.objects
    tr = _tr(lang)
    s = v.scale
    fx = venue.fixtures
    # the places of the 楅, 中 and 豐 as faint outlines, so the plan shows where they go
    for place in ("楅", "中", "豐"):
        if place in fx and v.contains(fx[place].x, fx[place].y):
            x, y = v.px(fx[place].x, fx[place].y)
            c.add(
                f'<circle class="place-of" data-name="{place}" cx="{_f(x)}" cy="{_f(y)}" r="3" '
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
    for hou, n_arrows, n_hits in _hou_arrows(venue.key, o) if o.arrows_hou else ():
        if not v.contains(hou.x, hou.y):
            continue
        c.add(_hou_arrows_svg(v, hou, n_arrows, n_hits))
        x, y = v.px(hou.x, hou.y + 6)
        key = "fixture:侯矢" if hou.name == "侯" else f"fixture:{hou.name}矢"
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


def _things_memo(venue_key: str, v: View, objects: Any, lang: str = "zh-Hant") -> tuple[Any, ...]:
    """``_things_of``, taken from the last drawing in this view when it had these objects."""
    e = _MEMO.things.get(v.name)
    if e is not None and e[2] is objects and e[1] is v and e[0] == venue_key and e[4] == lang:
        return e[3]
    drawn = _things_of(venue_key, v, objects, lang)
    _MEMO.things[v.name] = (venue_key, v, objects, drawn, lang)
    return drawn

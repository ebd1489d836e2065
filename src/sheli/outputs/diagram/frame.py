"""The sheet round the plan: the header, the scale bar, the north arrow and the inset of the whole
range (docs/diagrams.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from html import escape
from typing import Any

from sheli.engine.records import Scene
from sheli.glossary import label as label_en
from sheli.glossary import title_english
from sheli.outputs.diagram.memo import _MEMO, _changed
from sheli.outputs.diagram.plan import (
    _HOU,
    QUALITY,
    Hou,
    View,
    _flights,
    _hou_arrows,
    _hou_dao,
    _layout,
    _range,
    _venue,
    targets,
)
from sheli.outputs.diagram.present import _FrameView
from sheli.outputs.diagram.style import _ACTOR, _PATH, HEAD, INSET_MARKS, MARGIN, _f, _wrap_cached
from sheli.outputs.diagram.things import _arrow_spot
from sheli.outputs.diagram.words import _person, _thing, _tr
from sheli.outputs.frames import Frame
from sheli.outputs.labels import (
    text_width,
)
from sheli.text.english import english as passage_english

# -- the whole -------------------------------------------------------------------------------


def _header(frame: Frame | _FrameView, scene: Scene, width: int, lang: str = "zh-Hant") -> str:
    s = frame.step
    tr = _tr(lang)
    en = lang == "en"
    title = scene.title or scene.rite
    title = (title_english(title) or f"({title})") if en else tr(title)
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
    jing = s.jing or ""
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
    tally = frame.tally
    if tally and tally.round == frame.round:
        said = f"({tally.announcement})" if en else tr(tally.announcement)
        bits.append(
            tr("數獲 右{right} 左{left}：{said}").format(
                right=tally.right, left=tally.left, said=said
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
    frame: _FrameView,
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
    plist = frame.plist
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

"""The cue sheets' floor plan and step diagrams: the plan of the venue to scale, with the
fixtures a director tapes out and where each performer stands (:func:`plan_svg`,
:func:`floor_rows`), and the small diagram beside a cue (:func:`step_diagram`). Distances
are in 尺 on the text's plan and in metres on the floor (:class:`Scale`).

>>> from sheli.place import load_venue
>>> venue = load_venue("xie")
>>> rows = floor_rows(venue, venue_scale(venue))
>>> all(r.source or r.assumed for r in rows) and any(r.name == "西階" for r in rows)
True
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sheli.engine.records import Scene, Step
from sheli.errors import SheliError
from sheli.glossary import label as label_en
from sheli.outputs.labels import LINE_HEIGHT, Box, Label, place_labels, text_width


class CuesError(SheliError, ValueError):
    """A user error: an unknown role, a bad scale."""


def venue_scale(venue: Any, scale: float | None = None, hou_dao: float | None = None) -> Scale:
    """The :class:`Scale` for a venue from ``--scale F`` or ``--hou-dao METRES`` (not both).

    >>> from sheli.place import load_venue
    >>> venue_scale(load_venue("xie"), hou_dao=20).hou_dao_m
    20.0
    """
    mpc = venue.metre_per_chi.value
    hdc = venue.params["侯道"].value
    if scale is not None and hou_dao is not None:
        raise CuesError("give --scale or --hou-dao, not both")
    if hou_dao is not None:
        return Scale.fit(hou_dao, mpc, hdc)
    if scale is not None:
        if scale <= 0:
            raise CuesError(f"--scale must be a positive factor, not {scale}")
        return Scale(scale, mpc, hdc)
    return Scale(1.0, mpc, hdc)


_FACING_DEG = {"N": 0, "NE": 45, "E": 90, "SE": 135, "S": 180, "SW": 225, "W": 270, "NW": 315}


@dataclass(frozen=True)
class Scale:
    """尺 → metres on the floor: the venue's metre per 尺, times a scale factor.

    Real floors are smaller than the text's 侯道 of 300 尺 (≈ 69 m); a director chooses a
    factor, or the 侯道 the floor allows, and every distance is multiplied by it.

    >>> s = Scale(factor=0.5, metre_per_chi=0.231, hou_dao_chi=300)
    >>> s.m(100), round(s.hou_dao_m, 2)
    (11.55, 34.65)
    >>> Scale.fit(hou_dao_m=20, metre_per_chi=0.231, hou_dao_chi=300).factor == 20 / 69.3
    True
    """

    factor: float = 1.0
    metre_per_chi: float = 0.231
    hou_dao_chi: float = 300.0

    @classmethod
    def fit(cls, hou_dao_m: float, metre_per_chi: float, hou_dao_chi: float) -> Scale:
        """The scale at which the 侯道 is ``hou_dao_m`` metres on the floor."""
        if hou_dao_m <= 0:
            raise CuesError(f"--hou-dao must be a positive number of metres, not {hou_dao_m}")
        return cls(hou_dao_m / (hou_dao_chi * metre_per_chi), metre_per_chi, hou_dao_chi)

    def m(self, chi: float) -> float:
        """A length or coordinate in 尺 → metres on this floor."""
        return chi * self.metre_per_chi * self.factor

    @property
    def hou_dao_m(self) -> float:
        return self.m(self.hou_dao_chi)

    @property
    def scaled(self) -> bool:
        return not math.isclose(self.factor, 1.0)

    def statement(self) -> str:
        """What the sheet says about its scale (never silent about a scaled plan)."""
        full = self.hou_dao_chi * self.metre_per_chi
        base = (
            f"1 尺 = {self.metre_per_chi:g} m (the venue's assumption); "
            f"侯道 {self.hou_dao_chi:g} 尺 = {full:.1f} m at full size."
        )
        if not self.scaled:
            return "Full size. " + base
        return (
            f"SCALED PLAN: every distance is multiplied by {self.factor:.3f} "
            f"(侯道 {self.hou_dao_m:.2f} m on this floor instead of {full:.1f} m). " + base
        )


# --------------------------------------------------------------------------- plan drawing
# Kinds labelled on the plan; points are drawn as dots. The small step diagrams label only
# the landmarks one steers by (the 席 names would crowd the 堂 at that size).
_LABEL_KINDS = {"stair", "mat", "vessel", "pillar", "mark", "target", "screen", "gate", "post"}
_NAMED_KINDS = {"stair", "vessel", "pillar", "mark", "target", "screen", "gate", "instrument"}
_STEP_LABELS = {
    "西階",
    "阼階",
    "右物",
    "左物",
    "中",
    "楅",
    "洗",
    "豐",
    "乏",
    "侯",
    "門",
    "堂西",
    "堂東",
}


@dataclass(frozen=True)
class View:
    """The window of the plan drawn, in 尺 (x0 west, x1 east, y0 south, y1 north)."""

    x0: float
    y0: float
    x1: float
    y1: float


HALL_VIEW = View(-46, -44, 46, 36)  # the 堂 and the near 庭 (階, 中, 楅, 洗)


def whole_view(venue: Any) -> View:
    """The whole floor: the back of the 堂 to the 門, the width of the 庭."""
    ys = [f.y for f in venue.fixtures.values()]
    xs = [f.x for f in venue.fixtures.values()]
    for f in venue.fixtures.values():
        if f.extent:
            xs += [f.extent.x0, f.extent.x1]
            ys += [f.extent.y0, f.extent.y1]
    return View(min(xs) - 2, min(ys) - 4, max(xs) + 2, max(ys) + 2)


def _plan_geometry(view: View, width: int) -> tuple[float, int]:
    """Pixels per 尺 and the height in pixels of a view drawn ``width`` pixels wide."""
    k = width / (view.x1 - view.x0)
    return k, round((view.y1 - view.y0) * k)


def _plan_body(
    venue: Any,
    scale: Scale,
    view: View,
    width: int,
    numbered: dict[str, int] | None = None,
    labels: bool | set[str] = True,
    lang: str = "zh-Hant",
    shown_apart: View | None = None,
) -> str:
    """The fixtures, the origin, a metre bar and the north mark of a view, as SVG elements.

    ``labels``: True labels the landmark kinds, a set labels those names only; ``lang`` en
    names the fixtures in English (the glossary's label, docs/diagrams.md). The fixtures
    inside ``shown_apart`` (a plan of their own beside this one) are not labelled here: that
    window is outlined instead."""

    def name_of(n: str) -> str:
        return label_en(n, "places", "objects", "dress") if lang == "en" else n

    k, height = _plan_geometry(view, width)
    fs = max(7.0, min(12.0, 2.2 * k))

    def px(x: float, y: float) -> tuple[float, float]:
        return round((x - view.x0) * k, 1), round((view.y1 - y) * k, 1)

    def inside(x: float, y: float) -> bool:
        return view.x0 <= x <= view.x1 and view.y0 <= y <= view.y1

    out = [f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fbfaf6" stroke="#999"/>']
    fx = venue.fixtures
    marks: list[Box] = []  # what a label must not cover: each fixture's mark, the origin
    # The 堂 (raised hall) first, shaded; then walls, stairs and the rest on top.
    tang = fx.get("堂")
    if tang is not None and tang.extent is not None:
        (a, b), (c, d) = px(tang.extent.x0, tang.extent.y1), px(tang.extent.x1, tang.extent.y0)
        out.append(
            f'<rect x="{a}" y="{b}" width="{c - a}" height="{d - b}" fill="#e9e2cf" '
            f'stroke="#6b5d3f" stroke-width="1.2"/>'
        )
    for f in fx.values():
        ext = f.extent
        if ext is None or f.kind == "area" or f.name in ("堂廉", "堂西廉"):
            continue  # areas are not drawn; the edges of the 堂 are the 堂 rectangle's own
        (a, b), (c, d) = px(ext.x0, ext.y1), px(ext.x1, ext.y0)
        if f.kind in ("target", "gate"):
            marks.append(Box(min(a, c), min(b, d) - 1.5, max(a, c), max(b, d) + 1.5))
        if f.kind in ("wall", "line", "target", "gate"):
            colour = {"target": "#b03a2e", "gate": "#555"}.get(f.kind, "#6b5d3f")
            sw = 2.5 if f.kind in ("target", "gate", "wall") else 0.8
            out.append(
                f'<line x1="{a}" y1="{b}" x2="{c}" y2="{d}" stroke="{colour}" stroke-width="{sw}"/>'
            )
        else:
            fill = {"stair": "#d7ccb0", "mat": "#cfe0c3", "mark": "#333"}.get(f.kind, "#ddd")
            out.append(
                f'<rect x="{a}" y="{b}" width="{max(c - a, 1)}" height="{max(d - b, 1)}" '
                f'fill="{fill}" stroke="#6b5d3f" stroke-width="0.5"/>'
            )
    names: list[tuple[Label, str]] = []  # the labels, landmarks first, and their colour
    for f in fx.values():
        if not inside(f.x, f.y):
            continue
        cx, cy = px(f.x, f.y)
        r = 1.6
        if f.kind == "pillar":
            r = max(2.0, 0.8 * k)
            out.append(f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="#6b5d3f"/>')
        elif f.kind in ("vessel", "screen", "instrument", "post") and f.extent is None:
            r = max(2.0, 1.0 * k)
            out.append(
                f'<rect x="{cx - r}" y="{cy - r}" width="{2 * r}" height="{2 * r}" '
                f'fill="#c9b98f" stroke="#6b5d3f" stroke-width="0.5"/>'
            )
        elif numbered is not None:
            out.append(f'<circle cx="{cx}" cy="{cy}" r="1.6" fill="#555"/>')
        else:
            r = 1.0
        marks.append(Box(cx - r, cy - r, cx + r, cy + r))
        if shown_apart is not None and _in(shown_apart, f.x, f.y):
            continue
        if numbered is not None and f.name in numbered:
            # The key's number; short names of the landmarks too, where they have room.
            # (in English the numbers alone: the names, longer, are in the key beside it)
            named = f.kind in _NAMED_KINDS and len(f.name) <= 2 and lang != "en"
            text = f"{numbered[f.name]} {name_of(f.name)}" if named else f"{numbered[f.name]}"
            lab = Label(f"fixture:{f.name}", [[(text, round(fs * 0.8, 1))]], cx, cy, r + 1)
            names.append((lab, "#1a4f8a"))
        elif (f.name in labels) if isinstance(labels, set) else (labels and f.kind in _LABEL_KINDS):
            lab = Label(f"fixture:{f.name}", [[(name_of(f.name), round(fs, 1))]], cx, cy, r + 1)
            names.append((lab, "#555"))
    # The origin, marked as the director tapes it: a cross at the middle of the 堂廉.
    if inside(0, 0):
        ox, oy = px(0, 0)
        out.append(
            f'<g stroke="#c0392b" stroke-width="1.2"><line x1="{ox - 6}" y1="{oy}" '
            f'x2="{ox + 6}" y2="{oy}"/><line x1="{ox}" y1="{oy - 6}" x2="{ox}" y2="{oy + 6}"/>'
            f'</g><text x="{ox + 4}" y="{oy + fs + 2}" font-size="{fs * 0.85:.1f}" '
            f'fill="#c0392b">0,0</text>'
        )
        marks.append(Box(ox - 6, oy - 6, ox + 6, oy + 6))
        marks.append(Box(ox + 3, oy + 2, ox + 5 + text_width("0,0", fs * 0.85), oy + fs + 3))
    if shown_apart is not None:
        w = View(
            max(shown_apart.x0, view.x0),
            max(shown_apart.y0, view.y0),
            min(shown_apart.x1, view.x1),
            min(shown_apart.y1, view.y1),
        )
        (a, b), (c, d) = px(w.x0, w.y1), px(w.x1, w.y0)
        out.append(
            f'<rect class="shown-apart" x="{a}" y="{b}" width="{c - a:.1f}" height="{d - b:.1f}" '
            f'fill="none" stroke="#1a4f8a" stroke-width=".8" stroke-dasharray="3 2"/>'
        )
    out += _fixture_labels(names, marks, width, height, fs)
    # A bar of a round number of metres at this scale (0.5, 1, 2, 5, 10 …), and north.
    m_per_px = scale.m(1) / k
    target = m_per_px * width / 4
    step = next((v for v in (0.5, 1, 2, 5, 10, 20, 50, 100) if v >= target / 2), 100)
    blen = step / m_per_px
    y0 = height - 8
    # (the bar and north are drawn over a label that reaches them; the placement keeps clear
    # of both)
    out.append(
        f'<g stroke="#222" stroke-width="1.5"><line x1="8" y1="{y0}" x2="{8 + blen:.1f}" '
        f'y2="{y0}"/><line x1="8" y1="{y0 - 3}" x2="8" y2="{y0 + 3}"/>'
        f'<line x1="{8 + blen:.1f}" y1="{y0 - 3}" x2="{8 + blen:.1f}" y2="{y0 + 3}"/></g>'
        f'<text x="{12 + blen:.1f}" y="{y0 + 3}" font-size="{fs * 0.85:.1f}">{step:g} m'
        f"{' (scaled)' if scale.scaled else ''}</text>"
        f'<text x="{width - 16}" y="{fs + 4}" font-size="{fs:.1f}" '
        f'text-anchor="middle">{"N↑" if lang == "en" else "北 N↑"}</text>'
    )
    return "".join(out)


def _plan_title(view: View, lang: str) -> str:
    """The plan's name for a screen reader (the ``<title>`` of its ``role="img"``).

    >>> _plan_title(HALL_VIEW, "en"), _plan_title(View(0, 0, 1, 1), "zh-Hant")
    ('Plan of the hall and the near court, to scale', '平面圖：全場（依比例）')
    """
    hall = view == HALL_VIEW
    if lang == "en":
        return f"Plan of {'the hall and the near court' if hall else 'the whole floor'}, to scale"
    return f"平面圖：{'堂與近庭' if hall else '全場'}（依比例）"


def _scale_and_north(width: int, height: int, fs: float) -> list[Box]:
    """Where the metre bar (bottom left) and the north mark (top right) are drawn."""
    return [Box(0, height - 8 - fs, width / 2 + 40, height), Box(width - 36, 0, width, fs + 8)]


def _fixture_labels(
    names: list[tuple[Label, str]], marks: list[Box], width: int, height: int, fs: float
) -> list[str]:
    """The fixtures' labels placed clear of every fixture's mark, of each other, of the metre
    bar and of north (:func:`sheli.outputs.labels.place_labels`, as the step diagrams place
    theirs), each ``<text>`` in a ``<g class="fixture-label">``, with a leader line to its
    fixture where it stands away from it. Numbers that shared a point or a crowded corner
    (the 物, the 中 and the 楅 on one line) otherwise overprinted each other.

    >>> a = Label("fixture:甲", [[("1 甲", 9.0)]], 50, 50)
    >>> b = Label("fixture:乙", [[("2 乙", 9.0)]], 50, 50)
    >>> svg = "".join(_fixture_labels([(a, "#555"), (b, "#555")], [], 200, 200, 10))
    >>> import re  # one east of the point, the other west of it
    >>> re.findall(r'<text x="([0-9.]+)" y="([0-9.]+)"', svg)
    [('58.0', '52.9'), ('22.2', '52.9')]
    """
    if not names:
        return []
    # the numbers first (they are the key), then the names, each in the plan's order
    placed = place_labels(
        [lab for lab, _ in names],
        [*marks, *_scale_and_north(width, height, fs)],
        Box(0, 0, width, height),
        gap=0.5,
        ring_step=6.0,
    )
    colour = {lab.key: c for lab, c in names}
    out = []
    for lab in placed:
        bx = lab.box
        if bx is None:
            continue
        (text, size), *_ = lab.lines[0]
        parts = [f'<g class="fixture-label" data-for="{html.escape(lab.key)}">']
        if lab.leader:
            cx, cy = min(max(lab.ax, bx.x0), bx.x1), min(max(lab.ay, bx.y0), bx.y1)
            parts.append(
                f'<line class="leader" x1="{lab.ax}" y1="{lab.ay}" x2="{cx:.1f}" y2="{cy:.1f}" '
                f'stroke="#999" stroke-width=".5"/>'
            )
        # the baseline as the step diagrams set it (sheli.outputs.diagram.layout)
        ty = bx.y0 + 1 + size * LINE_HEIGHT - size * 0.3
        parts.append(
            f'<text x="{bx.x0 + 2:.1f}" y="{ty:.1f}" font-size="{size:g}" '
            f'fill="{colour[lab.key]}">{html.escape(text)}</text></g>'
        )
        out.append("".join(parts))
    return out


_MARKERS = (
    '<defs><marker id="arr-hi" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="4" '
    'markerHeight="4" orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="#c0392b"/></marker>'
    '<marker id="arr-lo" viewBox="0 0 6 6" refX="5" refY="3" markerWidth="4" '
    'markerHeight="4" orient="auto"><path d="M0,0 L6,3 L0,6 z" fill="#2c6fad"/></marker></defs>'
)


def _people_svg(
    view: View,
    width: int,
    people: Sequence[tuple[str, float, float, str | None, bool]],
    labelled: set[str] | frozenset[str] = frozenset(),
) -> str:
    """Dots (and facing arrows) for people: the highlighted one red, labelled, drawn last;
    those in ``labelled`` blue with their name."""
    k, _ = _plan_geometry(view, width)
    fs = max(8.0, min(12.0, 2.2 * k))
    out = []
    for name, x, y, facing, hi in sorted(people, key=lambda p: (p[4], p[0] in labelled)):
        if x is None or y is None:
            continue
        if not (view.x0 <= x <= view.x1 and view.y0 <= y <= view.y1):
            continue
        cx, cy = round((x - view.x0) * k, 1), round((view.y1 - y) * k, 1)
        r = 4.5 if hi else 2.5
        colour = "#c0392b" if hi else "#2c6fad"
        out.append(
            f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{colour}" stroke="#fff" '
            f'stroke-width="0.8"/>'
        )
        if facing in _FACING_DEG:
            ang = math.radians(_FACING_DEG[facing])
            length = r + (11 if hi else 5)
            tx, ty = cx + length * math.sin(ang), cy - length * math.cos(ang)
            out.append(
                f'<line x1="{cx}" y1="{cy}" x2="{tx:.1f}" y2="{ty:.1f}" stroke="{colour}" '
                f'stroke-width="{1.8 if hi else 1}" '
                f'marker-end="url(#{"arr-hi" if hi else "arr-lo"})"/>'
            )
        if hi or name in labelled:
            out.append(
                f'<text x="{cx + 6}" y="{cy + 13}" font-size="{fs:.1f}" font-weight="bold" '
                f'fill="{colour}">{html.escape(name)}</text>'
            )
    return "".join(out)


def plan_svg(
    venue: Any,
    scale: Scale,
    view: View | None = None,
    width: int = 360,
    people: Sequence[tuple[str, float, float, str | None, bool]] = (),
    numbered: dict[str, int] | None = None,
    labels: bool = True,
    lang: str = "zh-Hant",
) -> str:
    """The plan as one SVG: fixtures, the origin, a metre bar at this scale, and people;
    ``lang`` en names the fixtures in English.

    ``people`` are (name, x 尺, y 尺, facing, highlighted); ``numbered`` puts a number on
    each named fixture (the floor plan's key). North (the 堂) is up.

    >>> from sheli.place import load_venue
    >>> v = load_venue("xie")
    >>> svg = plan_svg(v, venue_scale(v), people=[("釋獲者", -23, -32, "E", True)])
    >>> svg.startswith("<svg") and "釋獲者" in svg
    True
    """
    view = view or HALL_VIEW
    _, height = _plan_geometry(view, width)
    # the whole floor beside the hall's plan (the floor plan sheet): its numbers are those
    # the hall's plan has no room for, the hall outlined, or 98 numbers crowd a thumbnail
    apart = HALL_VIEW if numbered is not None and view != HALL_VIEW else None
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plan" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'font-family="Noto Sans CJK TC, Noto Sans CJK SC, sans-serif">'
        f"<title>{_plan_title(view, lang)}</title>{_MARKERS}"
        + _plan_body(venue, scale, view, width, numbered, labels, lang, apart)
        + _people_svg(view, width, people)
        + "</svg>"
    )


# --------------------------------------------------------------------------- floor plan
@dataclass
class FloorRow:
    """A fixture with its taping measurements."""

    number: int
    name: str
    kind: str
    x: float  # 尺
    y: float
    x_m: float
    y_m: float
    extent_m: tuple[float, float, float, float] | None
    source: str
    assumed: str
    used: bool  # named by the run (its scene line)


def floor_rows(venue: Any, scale: Scale, scene: Scene | None = None) -> list[FloorRow]:
    """Every fixture of the venue (those of the run's scene first) in metres at ``scale``.

    >>> from sheli.place import load_venue
    >>> v = load_venue("xie")
    >>> rows = floor_rows(v, venue_scale(v))
    >>> round(next(r for r in rows if r.name == "侯").y_m, 3)
    -65.604
    """
    # the scene's record: the fixtures the run named
    fixtures = scene.fixtures if scene is not None else ()
    used = [f["name"] for f in fixtures]
    names = used + [n for n in venue.fixtures if n not in used]
    rows = []
    for i, n in enumerate(names, 1):
        f = venue.fixtures.get(n)
        if f is None:  # a scene fixture the venue does not know: keep it, from the scene
            sf = next(s for s in fixtures if s["name"] == n)
            x, y, kind, src, ass, ext = sf["x"], sf["y"], "point", sf["source"], "", None
        else:
            x, y, kind, src, ass, ext = f.x, f.y, f.kind, f.source, f.assumed, f.extent
        rows.append(
            FloorRow(
                number=i,
                name=n,
                kind=kind,
                x=x,
                y=y,
                x_m=scale.m(x),
                y_m=scale.m(y),
                extent_m=None
                if ext is None
                else tuple(scale.m(v) for v in (ext.x0, ext.y0, ext.x1, ext.y1)),  # type: ignore[arg-type]
                source=src,
                assumed=ass,
                used=n in used,
            )
        )
    return rows


# --------------------------------------------------------------------------- step diagrams
# Step diagrams share their background: each view's fixtures are drawn once per document as
# an SVG <symbol>, and every diagram is that symbol plus the people at that moment. (An
# all-roles sheet has a thousand and more diagrams; drawing the plan each time would make
# the page tens of megabytes.)
STEP_VIEWS: dict[str, tuple[View, int]] = {
    "hall": (HALL_VIEW, 230),  # the 堂 and the near 庭: most acts
    "far": (View(-46, -322, 46, -168), 150),  # the 侯, the 乏 and the 門
}


def _step_views(venue: Any) -> dict[str, tuple[View, int]]:
    views = dict(STEP_VIEWS)
    views["whole"] = (whole_view(venue), 82)  # walking between the two
    return views


def diagram_defs(venue: Any, scale: Scale) -> str:
    """A hidden SVG with one <symbol> per view of the step diagrams (and the arrow heads)."""
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" class="defs">']
    parts.append(_MARKERS)
    for vid, (view, width) in _step_views(venue).items():
        _, height = _plan_geometry(view, width)
        parts.append(
            f'<symbol id="plan-{vid}" viewBox="0 0 {width} {height}">'
            + _plan_body(venue, scale, view, width, labels=_STEP_LABELS)
            + "</symbol>"
        )
    parts.append("</svg>")
    return "".join(parts)


def step_diagram(
    venue: Any,
    role: str,
    at: dict[str, tuple[float | None, float | None, str | None]],
    other: str | None = None,
) -> str:
    """A small plan of one moment: everyone placed (blue dots), ``role`` in red with his
    facing, and ``other`` (the one who addresses him) labelled.

    ``at`` maps each actor to (x 尺, y 尺, facing) after the step; the view is the hall, the
    far end or the whole floor, whichever holds the person (``other`` if ``role`` is not
    placed yet). Needs :func:`diagram_defs` in the same document.
    """
    who = role if at.get(role, (None,))[0] is not None else (other or role)
    x, y, _ = at.get(who, (None, None, None))
    views = _step_views(venue)
    if x is None or y is None:
        vid = "hall"
    elif _in(views["hall"][0], x, y):
        vid = "hall"
    elif _in(views["far"][0], x, y):
        vid = "far"
    else:
        vid = "whole"
    view, width = views[vid]
    _, height = _plan_geometry(view, width)
    people = [
        (a, x, y, facing, a == role)
        for a, (x, y, facing) in at.items()
        if x is not None and y is not None
    ]
    labelled = {other} if other else set()
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="step-plan" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" '
        f'font-family="Noto Sans CJK TC, Noto Sans CJK SC, sans-serif">'
        f'<use href="#plan-{vid}" width="{width}" height="{height}"/>'
        + _people_svg(view, width, people, labelled)
        + "</svg>"
    )


def _in(v: View, x: float, y: float) -> bool:
    return v.x0 <= x <= v.x1 and v.y0 <= y <= v.y1


def positions_at(
    steps: Sequence[Step], seqs: Iterable[int]
) -> dict[int, dict[str, tuple[float | None, float | None, str | None]]]:
    """Where everyone is after each step of ``seqs``: actor → (x, y, facing), from the steps.

    A person keeps the place and facing of his last step until he acts again.

    >>> from sheli.engine import run
    >>> first = run("xiangshe", seed=1).records[1]
    >>> positions_at([first], [first.seq])[first.seq][first.actor][:2] == (first.x, first.y)
    True
    """
    want = set(seqs)
    now: dict[str, tuple[float | None, float | None, str | None]] = {}
    out = {}
    for s in steps:
        if s.x is not None:
            now[s.actor] = (s.x, s.y, s.facing)
        if s.seq in want:
            out[s.seq] = dict(now)
    return out

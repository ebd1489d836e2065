"""The 侯 drawn to scale as SVG, in elevation, with a scale bar in 尺 and in metres.

Each 侯 is a stack of five strips (下舌, 下躬, 中, 上躬, 上舌) with the 鵠 (or the 正, or the
painted beast's head) in the middle of the 中 and the 綱 one 尋 beyond the 舌. Several 侯 (the
three of 大射儀) stand side by side at the heights they are hung at (dashe:6, see
:func:`sheli.place.target.raised`). Every rectangle carries ``data-part`` and ``data-chi``
(its width in 尺) so a reader or a test can check the proportions.

>>> from sheli.place.target import Target
>>> svg = target_svg([Target(50, "二正", "采侯")], metre_per_chi=0.231)
>>> svg.startswith("<svg") and 'data-part="中" data-chi="10"' in svg
True
>>> svg = target_svg([Target(50, "畫獸", "麋侯", ground="赤質")], metre_per_chi=0.231)
>>> 'data-ground="赤質"' in svg and 'fill="#c0392b"' in svg and "麋首" in svg
True
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from sheli.glossary import label
from sheli.place.target import Target, raised, 尋, 幅, 武

PX = 8.0  # pixels per 尺
MARGIN = 24.0
CLOTH = "#efe6d2"
# The colours of the 正, from the centre out (seed 001 周禮 夏官 射人, 鄭玄):
# 中朱次白次苍次黄元居外; 三正损元黄; 二正去白苍而画以朱绿.
ZHENG = {"五正": ["#b8322a", "#f4f1e8", "#3f6f68", "#d2a126", "#202030"],
         "三正": ["#b8322a", "#f4f1e8", "#3f6f68"],
         "二正": ["#b8322a", "#3d7f45"]}  # fmt: skip
HIDE = "#b89468"  # the 鵠 of skin
# the 地 of a 獸侯 by its 質 (記 xiangshe:336 熊矦白質 … 麋矦赤質; 注 白質赤質皆謂采其地, 其地不采者
# 白布也): painted white or red; an unpainted 布 is the cloth
GROUND = {"白質": "#f7f5ee", "赤質": "#c0392b"}


def _n(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _chi(x: float) -> str:
    return f"{x:.4f}".rstrip("0").rstrip(".")


def target_svg(
    targets: list[Target],
    *,
    metre_per_chi: float,
    title: str = "",
    hung: bool = True,
    lang: str = "zh-Hant",
) -> str:
    """SVG of ``targets`` (farthest first) side by side, to one scale; ``lang`` en writes
    its words in English (the text's terms in brackets).

    ``hung``: at the heights of 大射儀's 張法 (each 鵠 seen above the nearer 侯, dashe:6) when
    there are several; otherwise every 侯 with its 下綱 one 武 above the ground (xiangshe:10).
    """
    if not targets:
        raise ValueError("no 侯 to draw")
    heights = raised(targets) if hung and len(targets) > 1 else [武] * len(targets)
    widths = [t.綱 for t in targets]
    top = max(h + t.height for h, t in zip(heights, targets, strict=True))
    span = sum(widths) + 尋 * (len(targets) - 1)
    bar_chi = max(10.0, 10 * round(span / 40))  # a round number of 尺, about a quarter
    w = MARGIN * 2 + max(span, bar_chi + 10) * PX
    ground = MARGIN + 30 + top * PX
    h = ground + 90
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(w)}" height="{_n(h)}" '
        f'viewBox="0 0 {_n(w)} {_n(h)}" data-px-per-chi="{_n(PX)}" '
        f'font-family="serif" font-size="12">',
        f"<title>{escape(title or '侯')}</title>",
        f'<text x="{_n(MARGIN)}" y="{_n(MARGIN)}" font-size="14">{escape(title)}</text>',
        f'<line x1="{_n(MARGIN)}" y1="{_n(ground)}" x2="{_n(w - MARGIN)}" y2="{_n(ground)}" '
        'stroke="#555" stroke-width="1"/>',
    ]
    x0 = MARGIN
    for t, lift, span_t in zip(targets, heights, widths, strict=True):
        cx = x0 + span_t / 2 * PX
        out.append(_one(t, cx, ground - lift * PX, lang))
        if lang == "en":
            words = (
                f"{label(t.name or '侯', 'places', 'objects')} ({t.name or '侯'}) · range "
                f"{_n(t.dao)} bow-lengths (弓) · middle (中) {_chi(t.中)} chi"
            )
        else:
            words = f"{t.name or '侯'} · 侯道 {_n(t.dao)} 弓 · 中 {_chi(t.中)} 尺"
        out.append(
            f'<text x="{_n(cx)}" y="{_n(ground + 16)}" text-anchor="middle">{escape(words)}</text>'
        )
        x0 += (span_t + 尋) * PX
    out.append(_scale_bar(MARGIN, ground + 40, bar_chi, metre_per_chi, lang))
    out.append("</svg>")
    return "\n".join(out)


def _rect(part: str, x: float, y: float, w_chi: float, h_chi: float, fill: str, extra: str = ""):
    return (
        f'<rect data-part="{part}" data-chi="{_chi(w_chi)}" data-chi-height="{_chi(h_chi)}" '
        f'x="{_n(x)}" y="{_n(y)}" width="{_n(w_chi * PX)}" height="{_n(h_chi * PX)}" '
        f'fill="{fill}" stroke="#6b5a3a" stroke-width="0.6"{extra}/>'
    )


def _one(t: Target, cx: float, bottom: float, lang: str = "zh-Hant") -> str:
    """One 侯 centred on ``cx`` with its lower edge at ``bottom`` (SVG y grows downwards)."""
    ground = f' data-ground="{escape(t.ground)}"' if t.ground else ""
    g = [f'<g data-hou="{escape(t.name)}" data-dao="{_n(t.dao)}"{ground}>']
    fill = GROUND.get(t.ground or "", CLOTH)
    for b in t.bands():
        y = bottom - (b.bottom + b.height) * PX
        g.append(_rect(b.name, cx - b.width / 2 * PX, y, b.width, b.height, fill))
    # the 綱: from the corners of the 舌 one 尋 outwards (上綱與下綱出舌尋)
    for name, band in (("上綱", t.bands()[-1]), ("下綱", t.bands()[0])):
        y = bottom - (band.bottom + (band.height if name == "上綱" else 0)) * PX
        for sign in (-1, 1):
            x1 = cx + sign * band.width / 2 * PX
            x2 = cx + sign * (t.上舌 / 2 + 尋) * PX
            g.append(
                f'<line data-part="{name}" x1="{_n(x1)}" y1="{_n(y)}" x2="{_n(x2)}" '
                f'y2="{_n(y)}" stroke="#333" stroke-width="1"/>'
            )
    mid_y = bottom - (2 * 幅 + t.中 / 2) * PX  # two 幅 of 舌 and 躬 below the 中
    s = t.鵠
    if t.mark in ZHENG:
        colours = ZHENG[t.mark]
        # equal rings (an assumption: the text gives only the outer size, 參分之一)
        for i, colour in reversed(list(enumerate(colours))):
            side = s * (i + 1) / len(colours)
            part = "正" if i == len(colours) - 1 else f"正{i + 1}"
            g.append(_rect(part, cx - side / 2 * PX, mid_y - side / 2 * PX, side, side, colour))
    elif t.mark == "鵠":
        g.append(_rect("鵠", cx - s / 2 * PX, mid_y - s / 2 * PX, s, s, HIDE))
        if t.內正 is not None:  # 鄭眾, 馬融: a 正 inside the 鵠 (hu-size.zheng-zhong)
            z = t.內正
            g.append(_rect("內正", cx - z / 2 * PX, mid_y - z / 2 * PX, z, z, ZHENG["二正"][0]))
    else:  # 畫獸: the beast's head painted where the 正 or 鵠 would be (xiangshe:336 注)
        g.append(
            _rect(
                "畫獸", cx - s / 2 * PX, mid_y - s / 2 * PX, s, s, "none", ' stroke-dasharray="3 2"'
            )
        )
        beast = t.name[:-1] if t.name.endswith(("侯", "矦")) else ""
        if beast:  # 正面畫其頭 (注 xiangshe:336): named, not drawn
            g.append(
                f'<text data-part="畫獸名" x="{_n(cx)}" y="{_n(mid_y + 5)}" '
                f'text-anchor="middle" font-size="14">'
                + (f"({escape(beast)}首)" if lang == "en" else f"{escape(beast)}首")
                + "</text>"
            )
    g.append("</g>")
    return "\n".join(g)


def _scale_bar(x: float, y: float, chi: float, metre_per_chi: float, lang: str = "zh-Hant") -> str:
    """A bar of ``chi`` 尺 in 10-尺 steps, and under it the same length in metres."""
    parts = [f'<g data-part="scale" data-chi="{_chi(chi)}" data-metre-per-chi="{metre_per_chi}">']
    steps = int(chi // 10)
    for i in range(steps):
        fill = "#333" if i % 2 == 0 else "#fff"
        parts.append(
            f'<rect x="{_n(x + i * 10 * PX)}" y="{_n(y)}" width="{_n(10 * PX)}" height="6" '
            f'fill="{fill}" stroke="#333" stroke-width="0.6"/>'
        )
    for i in range(steps + 1):
        parts.append(
            f'<text x="{_n(x + i * 10 * PX)}" y="{_n(y - 4)}" text-anchor="middle">{i * 10}</text>'
        )
    unit = "chi (尺)" if lang == "en" else "尺"
    parts.append(f'<text x="{_n(x + chi * PX + 8)}" y="{_n(y + 6)}">{unit}</text>')
    metres = chi * metre_per_chi
    step_m = 1.0 if metres < 12 else 2.0
    n = int(metres // step_m)
    for i in range(n + 1):
        mx = x + i * step_m / metre_per_chi * PX
        parts.append(
            f'<line x1="{_n(mx)}" y1="{_n(y + 14)}" x2="{_n(mx)}" y2="{_n(y + 22)}" stroke="#333"/>'
        )
        parts.append(
            f'<text x="{_n(mx)}" y="{_n(y + 36)}" text-anchor="middle">{_n(i * step_m)}</text>'
        )
    parts.append(
        f'<line data-part="metres" x1="{_n(x)}" y1="{_n(y + 18)}" '
        f'x2="{_n(x + n * step_m / metre_per_chi * PX)}" y2="{_n(y + 18)}" stroke="#333"/>'
    )
    parts.append(
        f'<text x="{_n(x + chi * PX + 8)}" y="{_n(y + 36)}">m (1 {unit} = {metre_per_chi} m)</text>'
    )
    parts.append("</g>")
    return "\n".join(parts)

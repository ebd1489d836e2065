"""The diagram of one step as an SVG document: its parts put together."""

from __future__ import annotations

from html import escape
from typing import cast

from sheli.engine.records import Scene
from sheli.glossary import label as label_en
from sheli.outputs.diagram.crowds import _VISIBLE
from sheli.outputs.diagram.figures import _figures, _people_layout, _person_lines, _person_svg
from sheli.outputs.diagram.frame import (
    _header,
    _inset,
    _inset_arrows,
    _inset_dot,
    _inset_plan,
    _scale_bar,
    _view_parts,
    _wrap_words,
)
from sheli.outputs.diagram.layout import _label_svg, _layout_all, _movers, _path_svg
from sheli.outputs.diagram.memo import _CHANGED, _MEMO
from sheli.outputs.diagram.plan import (
    _VIEW_INTERN,
    View,
    _flights,
    _range,
    _static_plan,
    beast_hou,
    targets,
)
from sheli.outputs.diagram.present import _FrameView
from sheli.outputs.diagram.style import (
    _F_CACHE,
    _PATH,
    FONT,
    INSET_W,
    MARGIN,
    SVG_NS,
    _f,
    _inset_w,
    _wrap_cached,
)
from sheli.outputs.diagram.things import (
    _arrow_spot,
    _bi_svg,
    _hou_arrows_svg,
    _hou_mark,
    _rod_ns,
    _suan_rods,
    _things_at,
    _things_of,
)
from sheli.outputs.diagram.words import _person, _tr
from sheli.outputs.frames import Frame
from sheli.outputs.labels import (
    Label,
    LabelMemory,
    clear_placements,
    size_of,
)


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


def render_svg(
    frame: Frame,
    scene: Scene,
    *,
    highlight: str | None = None,
    width: int = 900,
    view: str = "auto",
    lang: str = "zh-Hant",
    label_memory: LabelMemory | None = None,
) -> str:
    """The diagram of one step as a standalone SVG document (a string): the parts of
    :func:`render_svg_parts`, one line or more each, joined by newlines.

    >>> from sheli.engine import run
    >>> from sheli.outputs.frames import build_frames
    >>> r = run("xiangshe", seed=1)
    >>> f = build_frames(r)[0]
    >>> render_svg(f, r.scene) == chr(10).join(render_svg_parts(f, r.scene))
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
            label_memory=label_memory,
        )
    )


def render_svg_parts(
    frame: Frame,
    scene: Scene,
    *,
    highlight: str | None = None,
    width: int = 900,
    view: str = "auto",
    lang: str = "zh-Hant",
    label_memory: LabelMemory | None = None,
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
    English"). With ``label_memory`` (a ``sheli.outputs.labels.LabelMemory``), each label
    whose thing did not move stays where the last diagram drawn with that memory in this
    view put it, if that place is still free, and only the others are placed
    (``sheli.outputs.labels.place_labels`` with ``keep``): a sequence of diagrams drawn so
    begins with a new memory, and each diagram of it then depends on those drawn before it
    with the same memory (docs/diagrams.md, "Labels kept in a sequence"). Without one,
    every label is placed anew. Either way the diagram is a function of the arguments: the
    caches the drawing keeps between calls change only the time it takes.

    >>> from sheli.engine import run
    >>> from sheli.outputs.frames import build_frames
    >>> r = run("xiangshe", seed=1)
    >>> svg = render_svg(build_frames(r)[0], r.scene, view="range")
    >>> 'xmlns="http://www.w3.org/2000/svg"' in svg, "<title>" in svg
    (True, True)
    """
    fv = _FrameView(frame)
    v, venue, c, labels, where, r, actor = _layout_all(
        fv, scene, highlight, width, view, lang, label_memory
    )
    b = v.box
    ov = [lab.box.y1 for lab in labels if lab.box is not None]
    height = max(b.y1 + 40, *ov, 0) + MARGIN
    bounds_attrs, view_parts, north = _view_parts(v, lang)
    out = [
        f'<svg xmlns="{SVG_NS}" width="{width}" height="{_f(height)}" '
        f'viewBox="0 0 {width} {_f(height)}" font-family="{FONT}" class="sheli-step" '
        f'data-seq="{fv.seq}" {bounds_attrs}>',
        f"<title>{escape(_title(fv, scene, lang))}</title>",
        f'<rect width="{width}" height="{_f(height)}" fill="#fff"/>',
        '<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
        f'markerHeight="6" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" '
        f'fill="{_PATH}"/></marker></defs>',
        _header(fv, scene, width, lang),
        *view_parts,
        *c.parts,
        "</g>",
        north,
    ]
    out += _walks(fv, v, where, actor)
    out += _arrows_in_flight(fv, venue.key, v, where)
    # figures (clipped to the plan: a crowd's block may reach beyond it)
    out.append('<g clip-path="url(#plan-clip)">')
    raised = fv.objects.jing_raised
    # everyone in the view, as the layout found them (the same people, in order)
    out += _figures(_MEMO.people[v.name][5][_VISIBLE], where, v, r, actor, raised, fv.people)
    out.append("</g>")
    out += _labels_drawn(labels, v.name, actor)
    out.append("</g>")
    out.append(_scale_bar(v, venue.metre_per_chi.value, b.y1 + 6, lang))
    if v.name == "hall" and _inset_w(width):
        venue_key = scene.venue or "xie"
        out.extend(
            _inset(
                fv,
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


def _title(fv: _FrameView, scene: Scene, lang: str) -> str:
    """The diagram's title: the rite, the passage, the step's number, who does what (and
    says what), in ``lang``."""
    if lang == "en":
        title = f"({scene.title or ''}) {fv.cite} #{fv.seq} " + (
            f"{_person(fv.actor or '', None, lang)}: {label_en(fv.verb or '', 'verbs')}"
        )
        return title + (f" (「{fv.says}」)" if fv.says else "")
    title = f"{scene.title or ''} {fv.cite} #{fv.seq} {fv.actor}{fv.verb}"
    return _tr(lang)(title + (f"「{fv.says}」" if fv.says else ""))


def _walks(fv: _FrameView, v: View, where: dict[str, tuple[float, float]], actor: str) -> list[str]:
    """The paths: the actor's walk in this act, bold; others who moved in this group of acts
    (the same passage, e.g. each of the 三耦 進), faint; clipped to the plan, which a walk
    from beyond the view (to the 中 from the 司馬之南, on a near view) would run out of."""
    paths = []
    for p in _movers(fv.plist_people, fv.group_from):
        me = p.actor == actor and p.moved_at == fv.seq
        paths.append(_path_svg(p.actor, p.path, v, where.get(p.actor), me))
    if not paths:
        return []
    return ['<g class="paths" clip-path="url(#plan-clip)">', *paths, "</g>"]


def _arrows_in_flight(
    fv: _FrameView, venue_key: str, v: View, where: dict[str, tuple[float, float]]
) -> list[str]:
    """The flight of each arrow loosed in this step, to where it is drawn at the 侯; with the
    侯 beyond the view (an archer on the hall view), as far as the view's edge."""
    out = []
    for archer, hou, hit, k in _flights(fv, venue_key):
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
    return out


def _labels_drawn(labels: list[Label], view_name: str, actor: str) -> list[str]:
    """The labels (fixtures' and people's), with leader lines where displaced, the actor's
    marked; a label drawn as last time in this view (the same lines in the same box) is the
    same string again."""
    out = []
    actor_key = f"person:{actor}"
    memo = _MEMO.labels.get(view_name)
    if memo is None:
        memo = _MEMO.labels[view_name] = {}
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
            cast(
                "tuple[tuple[tuple[str, float], ...], ...]", lab.lines
            ),  # (as _layout_all makes them)
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
    return out

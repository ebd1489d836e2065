"""Verbs of 大射儀's court outside the archery (次, 小臣, 膳宰 …).

Registered into :data:`sheli.engine.verbs.VERBS` with the same ``@verb`` decorator; a name
already defined elsewhere is an error, so two modules cannot silently define one verb.

>>> from sheli.engine.verbs import VERBS
>>> all(v.kind for v in VERBS.values())
True
>>> VERBS["量"].kind
'court'
"""

from __future__ import annotations

from typing import Any

from sheli.engine.verbs import VERBS, Ctx, VerbError, verb  # noqa: F401

#: a 弓 (貍步) of six 尺: dashe:5 注 「考工記曰弓之下制六尺則此貍歩六尺明矣」
GONG = 6.0
#: how closely the plan must agree with the text's measure (尺)
TOLERANCE = 0.01


def _venue_param(ctx: Ctx, name: str, default: float) -> float:
    venue = getattr(ctx.env, "venue", None)
    params = getattr(venue, "params", {}) or {}
    prm = params.get(name)
    return float(prm.value) if prm is not None else default


def _on_plan(ctx: Ctx, ref: Any) -> tuple[float, float]:
    """The coordinates of a place the plan must have (a 侯, a 乏, the line measured from)."""
    pt = ctx.place(ref)
    if pt.x is None or pt.y is None:
        raise VerbError(f"量 needs {ref} on the plan, and the venue does not place it")
    return pt.x, pt.y


@verb("量", kind="court")
def measure(ctx: Ctx) -> None:
    """量: the 量人 measures the 侯道 or the place of a 乏 with the 貍步 (dashe:5).

    ``obj: 侯道``, ``at:`` the 侯, ``from:`` the line measured from (鄭注 dashe:5 量矦道謂去堂
    遠近也: the 堂廉; 敖繼公: the 物), ``count:`` the 弓 (大矦九十參七十干五十). ``obj: 乏``,
    ``at:`` the 乏, ``count:`` the 步 (設乏各去其矦西十北十): west and north of its own 侯.

    Precondition: the plan agrees with the measure; otherwise the venue is not the one the text
    (or the chosen reading) describes, and the run stops.

    >>> from sheli.engine import run
    >>> r = run("dashe")
    >>> any(getattr(e, "verb", None) == "量" for e in r.records)
    True
    """
    a = ctx.act
    if a.at is None or a.count is None:
        raise VerbError("量 needs at: (the 侯 or its 乏) and count: (弓 or 步)")
    n = float(ctx.count)
    target_x, target_y = _on_plan(ctx, a.at)
    if a.obj == "侯道":
        if a.from_ is None:
            raise VerbError("量 侯道 needs from: the line it is measured from (堂廉 or 物閒)")
        got = _on_plan(ctx, a.from_)[1] - target_y
        want = n * _venue_param(ctx, "弓", GONG)
        if abs(got - want) > TOLERANCE:
            raise VerbError(
                f"the plan puts {a.at} {got:g} 尺 from the {a.from_}, not {n:g} 弓 ({want:g} 尺): "
                "大矦九十參七十干五十 (dashe:5); 鄭注 measures from the 堂 (量矦道謂去堂遠近也), "
                "敖繼公 from the 物 (venue shegong_ao)"
            )
        ctx.extra["measured"] = f"{got:g} 尺"
    elif a.obj == "乏":
        hou_name = str(a.at).removesuffix("之乏")
        hou_x, hou_y = _on_plan(ctx, hou_name)
        step = _venue_param(ctx, "步", GONG)
        west, north = hou_x - target_x, target_y - hou_y
        if abs(west - n * step) > TOLERANCE or abs(north - n * step) > TOLERANCE:
            raise VerbError(
                f"the plan puts {a.at} {west:g} 尺 west and {north:g} 尺 north of the {hou_name}, "
                f"not {n:g} 步 each: 設乏各去其矦西十北十 (dashe:5; 疏 dashe:6 西與北皆六丈)"
            )
        ctx.extra["measured"] = f"西 {west:g} 尺, 北 {north:g} 尺"
    else:
        raise VerbError(f"量 measures the 侯道 or a 乏, not {a.obj!r}")
    if a.facing:
        ctx.p.facing = a.facing

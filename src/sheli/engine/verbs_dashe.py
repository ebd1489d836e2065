"""Verbs of 大射儀's archery (the 公's shooting, 服不, 大史 …).

Registered into :data:`sheli.engine.verbs.VERBS` with the same ``@verb`` decorator; a name
already defined elsewhere is an error, so two modules cannot silently define one verb.

- ``以矢行告``: the 大射正 tells the 公 where his arrow went — 下曰留上曰揚左右曰方 (dashe:201–202);
- ``埽``: sweep a place (dashe:127, 191).

大射儀's tables and the 公's 釋獲 (不以樂志 dashe:273) are its declared variant,
:data:`sheli.engine.variants.DASHE`.

>>> from sheli.engine.verbs import VERBS
>>> VERBS["以矢行告"].kind
'speech'
"""

from __future__ import annotations

from sheli.engine.verbs import Ctx, VerbError, set_facing, verb
from sheli.scoring.outcomes import miss_direction, miss_side

#: 敖繼公's reading of dashe:202 (方者左則曰左方右則曰右方也): the 大射正 names the side
FANG_SIDE_READING = "R-she-fang-ao"


@verb("以矢行告", kind="speech")
def tell_flight(ctx: Ctx) -> None:
    """以矢行告: the 大射正, standing behind the 公, tells him where his arrow went (dashe:201).

    Preconditions: the last arrow shot is the addressee's (``to``), and it missed — 注 「若不中
    使君當知而改其度」 (a hit is called by the 獲者). Effect: says 留 (it fell short), 揚 (it
    flew over) or 方 (it went wide): 下曰留上曰揚左右曰方 (dashe:202; 注 留不至也揚過去也方出旁也),
    fixed by the arrow's key and the run's seed (E-shixing); on 敖繼公's reading (R-she-fang-ao)
    左方 or 右方 (方者左則曰左方右則曰右方也).
    """
    w = ctx.world
    s = w.last_shot
    to = ctx.other(ctx.act.to) if ctx.act.to is not None else None
    if to is None:
        raise VerbError("以矢行告 needs to: the archer told (以矢行告于公 dashe:201)")
    if s is None or s.person != to.name:
        raise VerbError(
            f"以矢行告 {to.name}: his arrow is not the last one shot (大射正立于公後以矢行告于公 "
            "dashe:201)"
        )
    if s.hit:
        raise VerbError(
            "以矢行告 for a hit: the 大射正 tells where a missed arrow went (注 dashe:201 "
            "若不中使君當知而改其度); a hit is called by the 獲者"
        )
    source = getattr(ctx.env.outcome, "__self__", None)
    direction = getattr(source, "direction", None)
    key = (s.round, s.pair, s.archer, s.arrow)
    if callable(direction):
        word = direction(*key)
    else:
        word = miss_direction(None, *key)
    if word == "方" and FANG_SIDE_READING in (w.params.get("readings") or ()):
        side = getattr(source, "side", None)
        word = (side(*key) if callable(side) else miss_side(None, *key)) + "方"
    ctx.extra["to"] = to.name
    ctx.extra["says"] = word
    ctx.extra["矢行"] = word
    ctx.extra["assumes"] = ["E-shixing"]
    set_facing(ctx)


@verb("埽", kind="other")
def sweep(ctx: Ctx) -> None:
    """埽: sweep a place — 司宮埽所畫物 (dashe:127; 注 埽物重射事也), 隸僕人埽侯道 (dashe:191; 注
    新之).

    ``at`` names the place swept; as for every act of kind ``other`` with ``at``, the run warns
    when the sweeper stands farther than an arm's reach from it (E-reach). Nothing is tracked.
    """
    if ctx.act.at is not None:
        ctx.extra["at"] = ctx.place(ctx.act.at).desc
    set_facing(ctx)

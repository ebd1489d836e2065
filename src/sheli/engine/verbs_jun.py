"""Verbs of the 君's part in the archery of 燕禮 (記 yan:177–182, 鄉射記 xiangshe:381–384).

Registered into :data:`sheli.engine.verbs.VERBS` with the same ``@verb`` decorator; a name
already defined elsewhere is an error, so two modules cannot silently define one verb.

- ``就物``: the 君 goes to his own 物 once the music has started (樂作而后就物 yan:177);
- ``屬``: the 小臣 hands the 君 one arrow as he is about to shoot (小臣以巾授矢稍屬 yan:178;
  注 君尊不搢矢);
- ``答``: one turns to face a person (既發則答君而俟 yan:181; 注 xiangshe:381 答對也).

The 君's arrows are counted whether or not they fall on the drum: 不以樂志 (yan:179, 注
辟不敏也; 注 dashe:273 君之射儀遲速從心其發不必應樂): see :func:`jun_release` (a rule every
chapter shares, :data:`sheli.engine.variants.COMMON_RELEASE_OVERRIDES`).

>>> from sheli.engine.verbs import VERBS
>>> all(v.kind for v in VERBS.values())
True
>>> sorted(n for n in ("就物", "屬", "答") if VERBS[n].fn.__module__ == __name__)
['就物', '屬', '答']
"""

from __future__ import annotations

import math

from sheli.engine import verbs as _verbs
from sheli.engine.state import Person
from sheli.engine.variants import JUN_ROLES, jun_release
from sheli.engine.verbs import VERBS, Ctx, VerbError, verb
from sheli.engine.verbs_shooting import own_marks

__all__ = ["JUN_ROLES", "VERBS", "jun_release"]


def _is_jun(p: Person) -> bool:
    return p.role in JUN_ROLES


@verb("就物", kind="move")
def go_to_mark(ctx: Ctx) -> None:
    """就物: the 君 goes to his own 物 after the music has started.

    君與射則為下射袒朱襦樂作而后就物 (記 yan:177; 鄉射記 xiangshe:382 君樂作而后就物, 注 君尊);
    大射儀 has the same in its music round: 公樂作而后就物 (dashe:273). Preconditions: the music
    plays (奏, xiangshe:250); he is 袒 (the 記 puts 袒朱襦 before 就物); he goes on the same
    level (堂). Effect: he stands on his own 物 (下射: 左物, 鄭注 xiangshe:128 左物下物也).

    >>> VERBS["就物"].kind
    'move'
    """
    w, p = ctx.world, ctx.p
    if not w.music:
        raise VerbError(
            f"{p.name} goes to his 物 before the music: 樂作而后就物 (記 yan:177; "
            "xiangshe:382; dashe:273)"
        )
    if not p.bared:
        raise VerbError(f"{p.name} goes to his 物 not 袒: 袒朱襦樂作而后就物 (記 yan:177)")
    mark = own_marks(p)[0]
    dest = ctx.place(mark)
    _verbs.cross_check(ctx, dest)
    _verbs.set_place(p, dest)
    _verbs.set_facing(ctx)


@verb("屬", kind="object")
def hand_arrow(ctx: Ctx) -> None:
    """屬: the 小臣 hands the 君 one arrow, as he is to shoot it (``obj: 矢``, ``to: 公``).

    小臣以巾授矢稍屬 (記 yan:178; 注 君尊不搢矢); 小臣以巾執矢以授 (xiangshe:383; 注 君尊，
    不搢矢，不挾矢，授之稍屬); 大射儀: 小臣師以巾内拂矢而授矢于公稍屬 (dashe:200, 注 稍屬不搢矢).
    稍屬 is 屬續授之 (集釋): one at a time. Preconditions: the giver holds an arrow; the
    receiver holds a 張 弓 and no arrow (he neither 搢 nor 挾 a spare one). Effect: the arrow is
    on his string, ready to loose (the engine's 挾 state, which 射 needs).

    >>> VERBS["屬"].kind
    'object'
    """
    p = ctx.p
    recv = ctx.other(ctx.act.to)
    if recv is None:
        raise VerbError("屬 needs to: the person handed the arrow (小臣以巾授矢 yan:178)")
    if p.arrows < 1:
        raise VerbError(
            f"{p.name} has no arrow to hand to {recv.name} (小臣以巾授矢稍屬 yan:178)"
            f"{_verbs.last_let_go(p, '矢')}"
        )
    if recv.bow != "張":
        raise VerbError(
            f"{recv.name} is handed an arrow with {'no' if recv.bow is None else 'a 弛'} 弓: "
            "the 弓 is his before the arrow (小臣受弓以授弓人 yan:180 gives it back after)"
        )
    if recv.arrows:
        raise VerbError(
            f"{recv.name} is handed an arrow while he holds {recv.arrows}: 稍屬, one at a time "
            "(注 xiangshe:383 不搢矢不挾矢授之稍屬)"
        )
    # one arrow leaves his hand (or wherever he holds it), one only: 稍屬
    for attr in ("hand", "belt", "fingers", "side"):
        if getattr(p, attr) > 0:
            setattr(p, attr, getattr(p, attr) - 1)
            break
    p.let_go["矢"] = (ctx.act.verb, ctx.cite, ctx.line)
    recv.fingers += 1
    ctx.extra["to"] = recv.name
    _verbs.check_reach(ctx, recv)
    _verbs.set_facing(ctx)


#: facing words for the eight directions, counter-clockwise from east (x east, y north)
_DIRS = ("E", "NE", "N", "NW", "W", "SW", "S", "SE")


@verb("答", kind="turn")
def face_person(ctx: Ctx) -> None:
    """答: turn to face a person (``to``), who must be present on the same level.

    既發則答君而俟 (記 yan:181; xiangshe:381 注 答對也; 敖繼公 (義疏): 答君謂東面立而對之，射時
    進左手微背於君，故既射則還對之，俟待君發也). The facing is the nearest of the eight to the
    direction of the person from the actor, or ``facing`` if given (the text's word, e.g. 東面
    dashe:194), which must be within one of the eight steps of that direction.

    >>> VERBS["答"].kind
    'turn'
    """
    p = ctx.p
    other = ctx.other(ctx.act.to)
    if other is None:
        raise VerbError("答 needs to: the person faced (答君 yan:181)")
    if p.x is None or p.y is None or other.x is None or other.y is None:
        raise VerbError(f"答: {p.name} or {other.name} has no place yet")
    if p.on_tang is not None and other.on_tang is not None and p.on_tang != other.on_tang:
        raise VerbError(f"答: {other.name} is not on the same level as {p.name} (記 yan:181)")
    ang = math.atan2(other.y - p.y, other.x - p.x)
    toward = round(ang / (math.pi / 4)) % 8
    given = ctx.act.facing
    if given is not None:
        # the text's word (東面 dashe:194) may round the direction: within one step of eight
        off = (_DIRS.index(given) - toward) % 8
        if off not in (0, 1, 7):
            raise VerbError(
                f"答: {p.name} facing {given} does not face {other.name} (who is "
                f"{_DIRS[toward]} of him): 答，對也 (注 xiangshe:381)"
            )
        p.facing = given
    else:
        p.facing = _DIRS[toward]
    ctx.extra["to"] = other.name

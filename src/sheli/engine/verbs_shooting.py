"""The verbs of shooting and scoring: a shot and where it goes, the 獲 called and the flag,
the 釋獲 and the 數獲 (xiangshe:147-150, 186, 196; dashe:149-151, 187). Kept apart from
:mod:`sheli.engine.verbs` (the vocabulary's other verbs and its helpers) for its size.

Registered into :data:`sheli.engine.verbs.VERBS` with the same ``@verb`` decorator; a name
already defined elsewhere is an error, so two modules cannot silently define one verb.

>>> from sheli.engine.verbs import VERBS
>>> VERBS["射"].fn is shoot, VERBS["數獲"].kind
(True, 'score')
"""

from __future__ import annotations

from sheli.engine.env import VerbError
from sheli.engine.records import Shot, Tally, Winner
from sheli.engine.state import Person
from sheli.engine.state import Shot as Arrow
from sheli.engine.variants import COMMON_RELEASE_OVERRIDES, find_variant
from sheli.engine.verbs import (
    YOUSHE_REASON,
    CountAct,
    Ctx,
    _drop,
    _lower_first,
    _speech,
    set_facing,
    verb,
)


def own_marks(p: Person) -> tuple[str, ...]:
    """The 物 an archer shoots from: 上射 the right (east) one, 下射 the left (西, 下物).

    鄭注 xiangshe:128 「左物，下物也」; so the 上射 stands on the 右物 (上物).
    """
    if p.seat == "上射":
        return ("右物", "上物")
    if p.seat == "下射":
        return ("左物", "下物")
    return ("右物", "上物", "左物", "下物", "物")


@verb("射", kind="shoot")
def shoot(ctx: Ctx) -> None:
    """射: loose one arrow.

    Preconditions, each from the text:
    - he stands on his own 物: 及物揖左足履物 (xiangshe:129, 141 皆當其物…皆左足履物);
    - he is 袒 and wears 決遂: 三耦皆袒決遂 (xiangshe:124);
    - he holds a 張 弓 (皆執弓 xiangshe:126; 勝者…執張弓 xiangshe:207);
    - an arrow is 挾: 搢三而挾一个 (xiangshe:126), 上射既發挾弓矢 (xiangshe:147);
    - 拾發: 上射 first, then 下射, in turn (上射既發…而后下射射拾發 xiangshe:147);
    - at most 乘矢, four arrows, in a round (以將乘矢 xiangshe:147).
    Effect: the arrow lies at the 侯; its outcome is drawn from the run's source and a shot line
    is written; in rounds 2 and 3 the scoring rules say whether it is counted (xiangshe:184, 248).
    """
    w, p = ctx.world, ctx.p
    marks = own_marks(p)
    if p.at_key not in marks:
        raise VerbError(
            f"{p.name} shoots off his 物 (he is at {p.place or 'an unplaced spot'}; his is the "
            f"{marks[0]}): 及物揖左足履物 (xiangshe:129; xiangshe:141 皆當其物)"
        )
    if not (p.bared and p.ring_and_guard):
        raise VerbError(f"{p.name} shoots without being 袒決遂 (三耦皆袒決遂 xiangshe:124)")
    if p.bow != "張":
        what = "no 弓" if p.bow is None else "a 弛 弓"
        raise VerbError(f"{p.name} shoots with {what}: 皆執弓 (xiangshe:126), a 張弓")
    if p.fingers < 1:
        held = " (his arrow is 執, held along the string: 將止變於射也, 注 dashe:274)"
        raise VerbError(
            f"{p.name} shoots with no arrow 挾: 搢三而挾一个 (xiangshe:126); "
            f"上射既發挾弓矢 (xiangshe:147){held if p.side else ''}"
        )
    pair = p.pair or "誘射"
    seat = p.seat or p.role
    key = (w.round, pair)
    shot_counts = w.shots.setdefault(key, {})
    mine = shot_counts.get(seat, 0)
    if mine >= 4:
        raise VerbError(f"{p.name} shoots a fifth arrow: 以將乘矢, four (xiangshe:147, 132)")
    hou = None
    if ctx.act.to is not None:
        # 射 at a named 侯 (公射大侯大夫射參士射干 dashe:129): the venue must have it
        hou = ctx.place(ctx.act.to).key or ctx.env.fill(str(ctx.act.to), ctx.bind)
    if p.pair is not None and _lower_first(w, p.pair):
        # 公下射也而先發不留尊也 (注 dashe:203): the 公, though 下射, looses first; then in turn
        upper, lower = shot_counts.get("上射", 0), shot_counts.get("下射", 0)
        if p.seat == "上射" and lower <= mine:
            raise VerbError(
                f"{p.name} shoots before the 公 (公 has shot {lower}, {p.name} {mine}): "
                "公下射也而先發 (注 dashe:203)"
            )
        if p.seat == "下射" and mine > upper:
            raise VerbError(
                f"{p.name} shoots twice running ({mine} to 上射's {upper}): 拾發以將乘矢 "
                "(dashe:203)"
            )
    elif p.seat == "下射":
        upper = shot_counts.get("上射", 0)
        if upper <= mine:
            raise VerbError(
                f"{p.name} shoots before 上射 (上射 has shot {upper}, 下射 {mine}): 上射既發…"
                "而后下射射，拾發 (xiangshe:147)"
            )
    elif p.seat == "上射":
        lower = shot_counts.get("下射", 0)
        if mine > lower:
            raise VerbError(
                f"{p.name} shoots twice running ({mine} to 下射's {lower}): 拾發, in turn "
                "(xiangshe:147)"
            )
    arrow = mine + 1
    shot_counts[seat] = arrow
    p.fingers -= 1
    if p.is_dafu:
        w.dafu_at_target[p.name] = w.dafu_at_target.get(p.name, 0) + 1
        w.moved()
    else:
        w.arrows_at_target += 1
    if hou is not None:
        w.by_target[hou] = w.by_target.get(hou, 0) + 1
        w.moved()
    struck = ""  # what else the arrow struck, when a recorded outcome says so
    if pair == "誘射":
        # the text says nothing of the 誘射's hits; asked of the source if it knows them
        try:
            hit, on_beat = ctx.env.outcome(w.round, pair, seat, arrow)
        except Exception:
            hit, on_beat = False, None
        counted, reason = False, YOUSHE_REASON
    else:
        if w.round not in (1, 2, 3):
            raise VerbError(
                f"{p.name} shoots outside the three rounds (round {w.round}): the pairs shoot "
                "in 第一番, 第二番 and 第三番 only (賈疏 xiangshe:162); mark it with round: 1–3"
            )
        hit, on_beat = ctx.env.outcome(w.round, pair, seat, arrow)
        detail = ctx.env.detail(w.round, pair, seat, arrow) if ctx.env.detail else None
        struck = str(getattr(detail, "struck", "") or "")
        # the table of the chapter the step cites (大射儀's own words), its exceptions first;
        # a variant of the whole rite (主皮之射) before it
        variant = find_variant(w.rite)
        if not variant.whole_rite:
            variant = find_variant(ctx.cite.partition(":")[0])
        counted, reason = (variant.release or ctx.env.release)(w.round, hit, on_beat)
        got = None
        if struck and variant.struck_release is not None:
            got = variant.struck_release(p, w.round, struck)
        for override in (*variant.release_overrides, *COMMON_RELEASE_OVERRIDES):
            if got is not None:
                break
            got = override(p, w.round, hit, on_beat)
        if got is not None:
            counted, reason = got
    w.last_shot = Arrow(
        w.round, pair, seat, p.name, arrow, hit, on_beat, counted, reason, hou=hou, struck=struck
    )
    ctx.shots.append(
        Shot(w.round, pair, seat, p.name, arrow, hit, counted, reason, on_beat, hou, struck=struck)
    )
    ctx.extra["shot"] = {"arrow": arrow, "hit": hit, "counted": counted}
    if struck:
        ctx.extra["shot"]["struck"] = struck
    if struck == "人":
        w.faults.add((w.round, pair, seat))
    if hit and pair != "誘射":
        by_seat = w.hits.setdefault((w.round, pair), {})
        by_seat[seat] = by_seat.get(seat, 0) + 1
    if hou is not None:
        ctx.extra["shot"]["hou"] = hou
    if pair == "誘射":
        ctx.extra["assumes"] = ["E-youshe"]


@verb("獲", kind="score")
def call_hit(ctx: Ctx) -> None:
    """獲: the 獲者 calls a hit, raising the 旌 (舉旌以宮偃旌以商 xiangshe:149).

    Preconditions: he holds the 旌 (獲者執旌 xiangshe:137); the last arrow hit — 鄭注
    xiangshe:148 「射者中則大言獲」.
    """
    w, p = ctx.world, ctx.p
    if p.items.get("旌", 0) < 1:
        raise VerbError(f"{p.name} calls 獲 without the 旌 (獲者執旌 xiangshe:137, 149)")
    if w.last_shot is None or not w.last_shot.hit:
        raise VerbError("獲 is called only for a hit: 鄭注 「射者中則大言獲」 (xiangshe:148)")
    w.flag = "舉"
    _speech(ctx)


@verb("偃", "舉", "揚", kind="score")
def flag(ctx: Ctx) -> None:
    """偃/舉 the 旌 (偃旌 xiangshe:144, 舉旌以宮偃旌以商 xiangshe:149).

    Precondition: he holds it.
    """
    if ctx.p.items.get("旌", 0) < 1:
        raise VerbError(f"{ctx.p.name} holds no 旌 (獲者執旌 xiangshe:137)")
    ctx.world.flag = "偃" if ctx.act.verb == "偃" else "舉"
    set_facing(ctx)


@verb("釋獲", kind="score")
def release_tally(ctx: Ctx) -> None:
    """釋獲: lay one 筭 for the last arrow, 上射's to the right, 下射's to the left (xiangshe:186).

    Preconditions: not in round one — 獲而未釋獲 (xiangshe:150; 記 xiangshe:346 始射獲而未釋獲);
    the last arrow is counted — 不貫不釋 (xiangshe:184), 不鼓不釋 (xiangshe:248); it was not
    released already; he holds a 筭 (每一个釋一算 xiangshe:186, from the eight he took
    xiangshe:185).
    """
    w, p = ctx.world, ctx.p
    if w.round < 2:
        raise VerbError(
            f"釋獲 in round {w.round}: the first round is 獲而未釋獲 (xiangshe:150; "
            "記 xiangshe:346 始射獲而未釋獲)"
        )
    s = w.last_shot
    if s is None or s.round != w.round:
        raise VerbError("釋獲 with no arrow shot in this round (若中則釋獲 xiangshe:186)")
    if not s.counted:
        raise VerbError(f"釋獲 for an arrow that is not counted: {s.reason}")
    if s.released:
        raise VerbError("釋獲 twice for one arrow: 每一个釋一算 (xiangshe:186)")
    if p.items.get("筭", 0) < 1:
        raise VerbError(
            f"{p.name} holds no 筭 to lay: 取中之八算…興執而俟 (xiangshe:185) comes first"
        )
    _drop(ctx, "筭", 1)
    side = ctx.env.side_of(s.archer)
    w.rods_on_ground[side] += 1
    w.moved()
    s.released = True
    ctx.extra["side"] = "右" if side == "right" else "左"


@verb("數獲", kind="score")
def count_tally(ctx: Ctx) -> None:
    """數獲 (``side``: 右 then 左): the 釋獲者 counts the 筭 of one side (xiangshe:193–201).

    Preconditions: the round's shooting is over — every pair that shot has shot its 乘矢
    (卒射 xiangshe:190); the right is counted first (先數右獲 xiangshe:193). Effect: the count,
    act by act, as sub-steps (taking, gathering and laying the 筭, each line holding what
    is in his left hand then; his sitting down and going to the left are the spec's own
    steps); after the left, the tally and its announcement (xiangshe:203–204).
    """
    w, side_word = ctx.world, ctx.act.side
    if side_word is None:
        raise VerbError("數獲 needs side: 右 or 左 (先數右獲 xiangshe:193)")
    for (r, pair), counts in w.shots.items():
        done = min(counts.get("上射", 0), counts.get("下射", 0))
        if r == w.round and pair != "誘射" and done < 4:
            raise VerbError(
                f"數獲 before {pair} has finished shooting ({counts}): 卒射 first (xiangshe:190)"
            )
    side = "right" if side_word == "右" else "left"
    if side == "left" and w.counted["right"] is None:
        raise VerbError("the left is counted before the right: 先數右獲 (xiangshe:193)")
    # the counted 筭 stay on the ground (縮, 横, 委) until 兼歛算 (xiangshe:204)
    n = w.rods_on_ground[side]
    w.counted[side] = n
    procedure = find_variant(ctx.cite.partition(":")[0]).count_procedure or ctx.env.count_procedure
    in_hand = 0  # 筭 in his left hand (實于左手 xiangshe:195, 200) after each act
    for act in procedure(n, side):
        if act.kind == "approach":
            # 東面坐于中西 (193), 興自前適左東面 (199): the spec's own 坐, 興 and 立 do these,
            # with his posture and facing; the count does not do them a second time
            continue
        in_hand += act.count * ((act.dest == "hand") - (act.source == "hand"))
        ctx.sub.append(CountAct(act.cite, act.jing, act.description, act.count, in_hand))
    if side == "left":
        right = w.counted["right"] or 0
        left = n
        ann = ctx.env.announce(right, left)
        win: Winner = "tie" if right == left else ("right" if right > left else "left")
        tally = Tally(w.round, right, left, win, ann)
        w.last_tally = tally
        w.tallies.append(tally)
        ctx.tallies.append(tally)
        w.counted = {"right": None, "left": None}

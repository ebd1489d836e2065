"""The verbs: a fixed vocabulary, each with preconditions and effects that follow the text.

Each verb is a function of the act's context. A precondition that fails raises
:class:`VerbError`, whose message cites the passage the check follows; the interpreter adds
the spec file, the line of the step and the step's own passage id.

What the text does not say is stated as an assumption in the docstring (and listed by
``sheli coverage``'s rules when the spec cites it).

>>> "射" in VERBS and "飛" not in VERBS
True
>>> VERBS["升"].kind
'ascend'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec

from sheli.engine.carrying import DISHES, LAID
from sheli.engine.env import Env, Pt, VerbError, count_of
from sheli.engine.records import Shot, Tally
from sheli.engine.state import Pair, Person, World
from sheli.engine.variants import find_variant
from sheli.rite.nodes import Act


class CountAct(NamedTuple):
    """One act of a 數獲 as a sub-step: its passage, what it does, how many 筭, and how many
    are then in the counter's left hand (實于左手 xiangshe:195)."""

    cite: str
    jing: str | None
    note: str
    number: int  # how many 筭 (not ``count``: a tuple's method)
    in_hand: int


class Ctx(msgspec.Struct):
    """Everything a verb sees: the world, the actor, the act and the run's environment."""

    world: World
    p: Person
    act: Act
    cite: str
    env: Env
    bind: dict[str, Any]
    extra: dict[str, Any] = msgspec.field(default_factory=dict)  # added to the step event
    sub: list[CountAct] = msgspec.field(default_factory=list)  # expanded sub-steps (數獲)
    shots: list[Shot] = msgspec.field(default_factory=list)
    tallies: list[Tally] = msgspec.field(default_factory=list)
    line: int = 0  # the act's line in the spec file
    via: Pt | list[Pt] | None = None  # the place(s) a move went by (its step's via), resolved

    def place(self, ref: Any) -> Pt:
        return self.env.resolve(ref, self.world, self.bind)

    def other(self, ref: Any) -> Person | None:
        """The person an argument names, if it names one."""
        if isinstance(ref, str):
            return self.world.person(self.env.fill(ref, self.bind))
        return None

    @property
    def count(self) -> int:
        c = self.act.count
        if c is None:
            return 1
        if isinstance(c, int):
            return c
        words = {"乘": 4, "乘矢": 4, "一个": 1, "一": 1, "二": 2, "三": 3, "四": 4, "八": 8}
        if c in words:
            return words[c]
        try:
            return count_of(c, self.world.names)
        except ValueError:
            raise VerbError(
                f"count {c!r} is not a number (give 1, 2, …, 乘 for four, or a sum over "
                f"{', '.join(sorted(self.world.names))})"
            ) from None


class Verb(msgspec.Struct, frozen=True):
    name: str
    fn: Callable[[Ctx], None]
    kind: str
    doc: str


VERBS: dict[str, Verb] = {}

#: What the engine assumes where the text is silent: id → (assumption, reason). Steps that rest
#: on one carry its id in ``assumes``; the 儀注 lists them at the end.
ENGINE_ASSUMPTIONS: dict[str, tuple[str, str]] = {
    "E-youshe": (
        "the 司射's 誘射 arrows are shot like any other and never counted; their hits are drawn "
        "from the outcome source when it has them, else recorded as misses",
        "the text says 誘射…將乘矢 (xiangshe:131–132) and nothing of hits",
    ),
    "E-lost-arrow": (
        "矢不備: the missing arrow is one shot in the round just ended, lost at the first 取矢",
        "若矢不備 (xiangshe:160) does not say which arrow is missing",
    ),
    "E-reach": (
        "one puts a thing down, or hands it to someone, within two 步 (12 尺); farther is warned",
        "the text has the actor go to a place before he sets a thing there (適…奠于…); how "
        "far an arm reaches it does not say",
    ),
    "E-supply": (
        "a thing taken from a place where the run has put nothing (the 射器 in 堂西, 階西) is "
        "there: the spec does not list every bow and arrow brought in",
        "乃納射器皆在堂西 (xiangshe:114) names the 射器 without a count",
    ),
}


def verb(
    *names: str, kind: str, replace: bool = False
) -> Callable[[Callable[[Ctx], None]], Callable[[Ctx], None]]:
    """Register a function as the verb(s) ``names``. A name already in the vocabulary is an
    error (two modules defining one verb) unless ``replace`` says it is meant."""

    def deco(fn: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
        for n in names:
            if n in VERBS and not replace:
                raise ValueError(f"verb {n} is already defined ({VERBS[n].fn.__module__})")
            VERBS[n] = Verb(n, fn, kind, (fn.__doc__ or "").strip())
        return fn

    return deco


# ------------------------------------------------------------------ helpers


def set_place(p: Person, pt: Pt) -> None:
    p.x, p.y, p.place, p.on_tang, p.at_key = pt.x, pt.y, pt.desc, pt.on_tang, pt.key
    p.on_stair = None


def set_facing(ctx: Ctx) -> None:
    if ctx.act.facing:
        ctx.p.facing = ctx.act.facing


def face_on_arrival(ctx: Ctx) -> None:
    """Face as the act says; the act silent, one whose walk ends on his own 位 or 席 faces as
    it does (士西方東面 dashe:21; 席 南面 dashe:18; 獲者…以至于乏坐東面 xiangshe:144), as a
    反位 does, not the way he last faced.

    >>> from types import SimpleNamespace as NS
    >>> p = Person("士", role="士", x=1.0, y=2.0, facing="N")
    >>> p.wei, p.wei_facing = (1.0, 2.0, "士位", False, None), "E"
    >>> face_on_arrival(NS(p=p, act=NS(facing=None, sets_position=False))); p.facing
    'E'
    """
    p, a = ctx.p, ctx.act
    if not a.facing and not a.sets_position and p.wei_facing and p.wei is not None:
        if (p.x, p.y) == (p.wei[0], p.wei[1]):
            p.facing = p.wei_facing
    set_facing(ctx)


def _wei(p: Person) -> tuple[Any, ...]:
    return (p.x, p.y, p.place, p.on_tang, p.at_key)


def set_position(ctx: Ctx) -> None:
    """Make where he now stands his 位, with the facing the act gives it (a 位 or 席 carries
    its facing: 士西方東面北上 dashe:21; the 席 face south, dashe:18), so that a later 反位
    the spec leaves unfaced turns him the 位's way."""
    ctx.p.wei = _wei(ctx.p)
    if ctx.act.facing:
        ctx.p.wei_facing = ctx.act.facing


# ------------------------------------------------------------------ movement


def cross_check(ctx: Ctx, dest: Pt) -> None:
    p = ctx.p
    if p.on_stair is not None:
        raise VerbError(
            f"{p.name} stands on the top step of the {p.on_stair} (盡階不升堂 xiangshe:190): he "
            "comes down with 降 (降反位 xiangshe:190) before going anywhere"
        )
    if p.on_tang is None or dest.on_tang is None or p.on_tang == dest.on_tang:
        return
    where = "堂" if p.on_tang else "庭"
    raise VerbError(
        f"{p.name} is in the {where} and {dest.desc} is in the "
        f"{'堂' if dest.on_tang else '庭'}: one goes between 堂 and 庭 only by a 階, with 升/降 "
        "(xiangshe:111 升自西階; xiangshe:139 及階…升三等)"
    )


@verb("進", "適", "退", "就", "出", "入", "交", "負", "由", "從", "繼", "辟", kind="move")
def move(ctx: Ctx) -> None:
    """Go to a place (``to``), passing ``via``.

    Precondition: the destination is on the same level (堂 or 庭): one goes up and down only by
    a 階 (升自西階 xiangshe:111; 升三等 xiangshe:139), so 升 and 降 are their own verbs.
    """
    ref = ctx.act.to if ctx.act.to is not None else ctx.act.at
    if ref is not None:
        dest = ctx.place(ref)
        cross_check(ctx, dest)
        via = ctx.act.via
        if isinstance(via, list) and not all(isinstance(c, (int, float)) for c in via):
            # the waypoints of a route the text gives in words (直西…及…, 折而北), in order
            ctx.via = [ctx.place(w) for w in via]
            ctx.extra["via"] = "、".join(str(w.desc) for w in ctx.via)
        elif via is not None:
            ctx.via = ctx.place(via)
            ctx.extra["via"] = ctx.via.desc
        set_place(ctx.p, dest)
        if ctx.act.sets_position:
            set_position(ctx)
        face_on_arrival(ctx)
        return
    set_facing(ctx)


@verb("立", "俟", "坐", "興", kind="stand")
def stand(ctx: Ctx) -> None:
    """Stand (立), wait (俟), sit (坐), rise (興) — at ``at`` if given (same level only)."""
    ref = ctx.act.at if ctx.act.at is not None else ctx.act.to
    if ref is not None:
        dest = ctx.place(ref)
        cross_check(ctx, dest)
        set_place(ctx.p, dest)
        if ctx.act.sets_position:
            set_position(ctx)
    ctx.p.posture = "坐" if ctx.act.verb == "坐" else "立"
    set_facing(ctx)


@verb("反位", "復位", kind="move")
def return_to_position(ctx: Ctx) -> None:
    """Go back to one's 位 (反位, 復位).

    Precondition: he has a 位 (set by the cast or by an act with ``sets_position``), on the
    same level as he is.
    """
    p = ctx.p
    if p.wei is None:
        raise VerbError(
            f"{p.name} has no 位 to return to: give him one in the cast or with sets_position"
        )
    x, y, place, on_tang, key = p.wei
    cross_check(ctx, Pt(x, y, place or "his 位", on_tang, key))
    p.x, p.y, p.place, p.on_tang, p.at_key = x, y, place, on_tang, key
    if not ctx.act.facing and p.wei_facing:
        # the spec silent, he faces as his 位 or 席 does (反就席 dashe:236: the 席 南面)
        p.facing = p.wei_facing
    set_facing(ctx)


@verb("還", kind="turn")
def turn(ctx: Ctx) -> None:
    """Turn (還) to ``facing``; with ``to`` he also moves (還其後: goes round behind)."""
    if ctx.act.to is not None:
        move(ctx)
    set_facing(ctx)


def _stair(ctx: Ctx) -> str:
    by = ctx.act.by
    if by is None or by not in ("西階", "阼階", "東階", "北階"):
        raise VerbError(
            f"{ctx.act.verb} needs by: 西階 or 阼階 (or the 北階 where the venue has one) — one "
            "goes up and down only by a 階 (xiangshe:111 升自西階; xiangshe:187 皆由其階)"
        )
    return by


_STAIR_REFS: dict[tuple[str, str], dict[str, str]] = {}


def _stair_ref(rel: str, stair: str) -> dict[str, str]:
    """One lasting reference object per (relation, 階), so the resolver's caches hit."""
    ref = _STAIR_REFS.get((rel, stair))
    if ref is None:
        ref = _STAIR_REFS[rel, stair] = {rel: stair}
    return ref


@verb("升", kind="ascend")
def ascend(ctx: Ctx) -> None:
    """Go up to the 堂 by a 階 (``by``: 西階 or 阼階).

    Preconditions: he is in the 庭; he holds no 扑 — 司射去扑倚于西階之西升堂 (xiangshe:153),
    鄭注 「去扑乃升，不敢佩刑器即尊者之側」; 司射倚扑于階西升 (xiangshe:162).

    With ``盡階: true`` he goes up to the top step of the 階 and not onto the 堂 (釋獲者…升自
    西階盡階不升堂告于賓 xiangshe:190, 202); he stands there, neither on the 堂 nor in the 庭,
    until he comes down with 降.
    """
    p, stair = ctx.p, _stair(ctx)
    if p.on_tang:
        raise VerbError(f"{p.name} is already on the 堂 ({p.place}); 升 goes up from the 庭")
    if p.discipline_rod:
        raise VerbError(
            f"{p.name} goes up with the 扑 {'搢' if p.discipline_rod == '搢' else 'in hand'}: "
            "司射去扑倚于西階之西升堂 (xiangshe:153), 鄭注 「不敢佩刑器即尊者之側」"
        )
    if ctx.act.jin_jie:
        # 升自西階盡階不升堂 (xiangshe:190, 202): to the top step of the 階, not onto the 堂
        if ctx.act.to is not None:
            raise VerbError("升 with 盡階 goes to the top step of its 階: give no to:")
        if p.on_stair is not None:
            raise VerbError(f"{p.name} already stands on the top step of the {p.on_stair}")
        set_place(p, ctx.place(_stair_ref("top_step_of", stair)))
        p.on_tang = False
        p.on_stair = stair
        set_facing(ctx)
        return
    ref = ctx.act.to if ctx.act.to is not None else _stair_ref("top_of", stair)
    dest = ctx.place(ref)
    if dest.on_tang is False:
        raise VerbError(f"升 ends on the 堂, but {dest.desc} is in the 庭")
    set_place(p, dest)
    p.on_tang = True
    if ctx.act.sets_position:
        set_position(ctx)
    face_on_arrival(ctx)


@verb("降", kind="descend")
def descend(ctx: Ctx) -> None:
    """Go down from the 堂 by a 階 (``by``).

    Precondition: he is on the 堂 (降自西階 xiangshe:113).
    """
    p, stair = ctx.p, _stair(ctx)
    if p.on_stair is not None and p.on_stair != stair:
        raise VerbError(
            f"{p.name} stands on the {p.on_stair}; he comes down by it, not the {stair}"
        )
    if p.on_tang is False and p.on_stair is None:
        raise VerbError(f"{p.name} is in the 庭 ({p.place}); 降 goes down from the 堂")
    ref = ctx.act.to if ctx.act.to is not None else _stair_ref("foot_of", stair)
    dest = ctx.place(ref)
    if dest.on_tang is True:
        raise VerbError(f"降 ends in the 庭, but {dest.desc} is on the 堂")
    set_place(p, dest)
    p.on_tang = False
    if ctx.act.sets_position:
        set_position(ctx)
    face_on_arrival(ctx)


# ------------------------------------------------------------------ words and courtesy


def _speech(ctx: Ctx) -> None:
    """Speech and courtesy: the actor must be present (in the cast); ``to`` names the person
    addressed. ``says`` may contain ``{announcement}``, filled from the last 數獲.

    ``at`` says where he does it (主人阼階上答拜 xiangshe:41): he is there when he does it,
    brought there first if the spec has not walked him (same level only)."""
    if ctx.act.at is not None:
        dest = ctx.place(ctx.act.at)
        if (ctx.p.x, ctx.p.y) != (dest.x, dest.y):
            cross_check(ctx, dest)
            set_place(ctx.p, dest)
    if ctx.act.to is not None:
        other = ctx.other(ctx.act.to)
        if other is not None:
            ctx.extra["to"] = other.name
    says = ctx.act.says
    if says and "{announcement}" in says:
        if ctx.world.last_tally is None:
            raise VerbError(
                "says {announcement} before any 數獲: the announcement follows the count "
                "(xiangshe:202–203 釋獲者遂進取賢獲…告于賓)"
            )
        says = says.replace("{announcement}", ctx.world.last_tally.announcement)
        ctx.extra["_announces"] = ctx.world.last_tally.round  # (not a field of the log)
    if says:
        ctx.extra["says"] = says
    set_facing(ctx)


for _n in ("揖", "拜", "答拜", "荅拜", "拜受", "拜送", "許諾", "對", "應", "辭", "讓", "視"):
    VERBS[_n] = Verb(_n, _speech, "courtesy", (_speech.__doc__ or "").strip())
for _n in ("命", "告", "請", "比", "贊", "相"):
    VERBS[_n] = Verb(_n, _speech, "speech", (_speech.__doc__ or "").strip())


@verb("作", kind="speech")
def call_up(ctx: Ctx) -> None:
    """作: call a pair (or the 衆賓) to act — 司射…作上耦射 (xiangshe:138).

    Marks the pair called.
    """
    _speech(ctx)
    if isinstance(ctx.act.to, str):
        name = ctx.env.fill(ctx.act.to, ctx.bind)
        if name in ctx.world.pairs:
            ctx.world.called.add(name)
        if "to" not in ctx.extra:
            ctx.extra["to"] = name  # a pair or a group (上耦, 衆賓): named as the text does


# ------------------------------------------------------------------ dress


@verb("袒", kind="dress")
def bare(ctx: Ctx) -> None:
    """袒: bare the left arm (三耦皆袒決遂 xiangshe:124). Already 袒: no change."""
    ctx.p.bared = True


@verb("襲", kind="dress")
def cover(ctx: Ctx) -> None:
    """襲: cover the arm again. Precondition: he is 袒 (釋弓說決拾襲 xiangshe:153 follows 袒)."""
    if not ctx.p.bared:
        raise VerbError(f"{ctx.p.name} is not 袒: 襲 covers an arm that was bared (xiangshe:153)")
    ctx.p.bared = False


@verb("決遂", "決", kind="dress")
def put_on_guard(ctx: Ctx) -> None:
    """決遂: put on the thumb ring and arm guard (袒決遂 xiangshe:111, 124)."""
    ctx.p.ring_and_guard = True


@verb("説決拾", "說決拾", kind="dress")
def take_off_guard(ctx: Ctx) -> None:
    """説決拾: take off 決 and 拾(遂) (xiangshe:153). Precondition: he wears them."""
    if not ctx.p.ring_and_guard:
        raise VerbError(f"{ctx.p.name} wears no 決遂 to take off (説決拾 xiangshe:153)")
    ctx.p.ring_and_guard = False


# ------------------------------------------------------------------ objects


ARROWS = ("矢", "乘矢", "一个", "个")


def _is_arrow(obj: str | None) -> bool:
    return obj in ARROWS


def _place_key(ctx: Ctx, ref: Any) -> str:
    """The key under which the run tracks objects at a place (the text's words)."""
    if isinstance(ref, str):
        name = ctx.env.fill(ref, ctx.bind)
        ctx.env.note(name, ctx.world)
        return name
    return ctx.place(ref).desc


def _alternate_take(ctx: Ctx) -> None:
    """拾取矢: the two archers of a pair take one arrow each in turn, 上射 first, four each.

    上射…取一个兼諸弣…下射進坐…取一个 … 既拾取乘矢 (xiangshe:173–175; 拾取矢 xiangshe:169).
    Counted per pair for each filling of the 楅 (弟子委矢 xiangshe:159, 191, 252). Taking
    four at once (兼取乘矢, the 大夫 and his 耦 xiangshe:243–244; the 誘射之矢 xiangshe:178)
    is not 拾 and is not counted here.
    """
    w, p = ctx.world, ctx.p
    key = (w.rest_batches, p.pair or "")
    takes = w.takes.setdefault(key, {})
    mine = takes.get(p.seat or "", 0)
    if mine >= 4:
        raise VerbError(
            f"{p.name} takes a fifth arrow from the 楅: 既拾取乘矢, four each (xiangshe:175)"
        )
    other = takes.get("下射" if p.seat == "上射" else "上射", 0)
    if p.seat == "下射" and other <= mine:
        raise VerbError(
            f"{p.name} takes an arrow before the 上射 (上射 {other}, 下射 {mine}): 拾取矢, "
            "上射 first, then 下射 (xiangshe:173–174)"
        )
    if p.seat == "上射" and mine > other:
        raise VerbError(
            f"{p.name} takes twice running ({mine} to 下射's {other}): 拾取矢, in turn "
            "(xiangshe:173–175)"
        )
    takes[p.seat or ""] = mine + 1


def _take_from_place(ctx: Ctx, obj: str, ref: Any, n: int) -> None:
    """Take ``n`` of ``obj`` from a place the run tracks (楅, 中, 豐, declared objects)."""
    w, key = ctx.world, _place_key(ctx, ref)
    if obj in ("矢", "乘矢", "一个") and key == "楅":
        if not w.rest_set:
            raise VerbError("there is no 楅 to take arrows from: 乃設楅于中庭 (xiangshe:158)")
        if w.arrows_on_rest < n:
            if any(w.bound_on_rest.values()):
                raise VerbError(
                    "the arrows left on the 楅 are the 大夫's, bound with 茅 "
                    "(大夫之矢則兼束之以茅 xiangshe:191): 大夫進坐説矢束 first (xiangshe:242)"
                )
            raise VerbError(
                f"{ctx.p.name} takes {n} arrow(s) from the 楅, which holds {w.arrows_on_rest}: "
                "arrows are taken from the 楅 only after 弟子取矢…委于楅 (xiangshe:159)"
            )
        if n == 1 and ctx.p.seat in ("上射", "下射"):
            _alternate_take(ctx)
        w.arrows_on_rest -= n
        return
    if obj == "筭" and key == "中":
        if w.rods_in_vessel < n:
            raise VerbError(
                f"the 中 holds {w.rods_in_vessel} 筭, not {n}: 實八算于中 first (xiangshe:183, 185)"
            )
        w.rods_in_vessel -= n
        return
    if obj == "筭" and key in _CHOU_PLACES:
        pile, have = _chou_place(w, key)
        if have < n:
            raise VerbError(f"there are {have} 筭 at {key}, not {n}")
        if pile is None:
            w.rods_reserve -= n
        else:
            w.rods_on_ground[pile] -= n
            w.moved()
        return
    if obj == "觶" and key in ("豐", "豐上"):
        if not w.cup_on_stand:
            raise VerbError("there is no 觶 on the 豐 (勝者之弟子…奠于豐上 xiangshe:206)")
        w.cup_on_stand = False
        ctx.p.cup_full = w.cup_on_stand_full
        return
    tracked = (obj, key)
    if tracked in w.places:
        if w.places[tracked] < n:
            raise VerbError(f"there is no {obj} at {key} to take")
        w.add_at(obj, key, -n)
    else:
        # an untracked place is an unmodelled supply (射器 in 堂西 …): nothing to check
        ctx.extra["assumes"] = ["E-supply"]


# Where the 筭 lie besides the 中 and the hand: 其餘 委 at the 中西 (xiangshe:183, 186 注
# 委之合於中西), and the 筭 released for each side (上射於右下射於左 xiangshe:186), which stay
# on the ground, counted, until 兼歛算 (xiangshe:204). 賢獲 is the winning side's (xiangshe:202).
_CHOU_PLACES = ("中西", "中之西", "右獲", "左獲", "賢獲")


def _chou_place(w: Any, key: str) -> tuple[str | None, int]:
    """(side of the ground or None for the 中西 pile, how many 筭 lie there)."""
    if key in ("中西", "中之西"):
        return None, w.rods_reserve
    if key == "賢獲":
        t = w.last_tally
        if t is None or t.winner == "tie":
            raise VerbError("取賢獲 needs a winner: on 左右鈞 左右皆執一算 (xiangshe:204)")
        return t.winner, w.rods_on_ground[t.winner]
    side = "right" if key == "右獲" else "left"
    return side, w.rods_on_ground[side]


def _chou_count(ctx: Ctx) -> int | None:
    """How many 筭 a 取 without count takes: all that lie there; of 賢獲, the winning side's
    excess (賢獲勝黨之算也，齊之而取其餘 注 xiangshe:202)."""
    a = ctx.act
    if a.obj != "筭" or a.count is not None or a.from_ is None or ctx.other(a.from_):
        return None
    key = _place_key(ctx, a.from_)
    if key not in _CHOU_PLACES:
        return None
    if key == "賢獲":
        t = ctx.world.last_tally
        if t is None or t.winner == "tie":
            raise VerbError("取賢獲 needs a winner: on 左右鈞 左右皆執一算 (xiangshe:204)")
        return abs(t.right - t.left)
    return _chou_place(ctx.world, key)[1]


def _give(p: Person, obj: str, n: int, state: str | None) -> None:
    if obj == "弓" and n > 1:
        p.items["弓"] = p.items.get("弓", 0) + n  # carried (納射器), not held to shoot
    elif obj == "弓":
        p.bow = state or p.bow or "張"
    elif obj == "弓矢":
        p.bow = state or p.bow or "張"
        p.hand += n if n > 1 else 4
    elif _is_arrow(obj):
        p.hand += 4 if obj == "乘矢" and n == 1 else n
    elif obj == "扑":
        p.discipline_rod = "執"
    else:
        p.items[obj] = p.items.get(obj, 0) + n
        if obj in CUPS and state:  # 角觶, 象觶, 散觶 … as well (dashe:237–238)
            p.cup_full = state in ("實", "滿", "full")


def _has(p: Person, obj: str) -> bool:
    if obj in ("弓",):
        return p.bow is not None or p.items.get("弓", 0) > 0
    if obj == "弓矢":
        return p.bow is not None
    if _is_arrow(obj):
        return p.arrows > 0
    if obj == "扑":
        return p.discipline_rod is not None
    return p.items.get(obj, 0) > 0


def last_let_go(p: Person, obj: str) -> str:
    """Where the person last let go of ``obj``, for error messages."""
    got = p.let_go.get(obj) or (p.let_go.get("弓矢") if obj in ("弓", "矢") else None)
    if got is None:
        return " and has not held it in this run"
    verb, cite, line = got
    return f"; he last let go of it by {verb} at {cite} (spec line {line})"


def _drop(ctx: Ctx, obj: str, n: int) -> None:
    p = ctx.p
    if not _has(p, obj):
        raise VerbError(
            f"{p.name} does not hold {obj} ({ctx.act.verb} needs it in hand){last_let_go(p, obj)}"
        )
    p.let_go[obj] = (ctx.act.verb, ctx.cite, ctx.line)
    if obj == "弓" and p.items.get("弓", 0) >= n and (n > 1 or p.bow is None):
        p.items["弓"] -= n
        if not p.items["弓"]:
            del p.items["弓"]
    elif obj == "弓":
        p.bow = None
    elif obj == "弓矢":
        p.bow = None
        p.belt = p.fingers = p.hand = p.side = 0
    elif _is_arrow(obj):
        k = p.arrows if ctx.act.count is None else n
        # arrows 兼挾 beyond the one nocked go before those in the belt: the 後者 who holds
        # 挾五个 hands on the 誘射's four (注 xiangshe:178), keeping 搢三挾一个
        order = (
            ("side", "hand", "fingers", "belt")
            if p.fingers > 1
            else ("side", "hand", "belt", "fingers")
        )
        for attr in order:
            take = min(k, getattr(p, attr))
            setattr(p, attr, getattr(p, attr) - take)
            k -= take
    elif obj == "扑":
        p.discipline_rod = None
    else:
        p.items[obj] -= n
        if p.items[obj] <= 0:
            del p.items[obj]


def _put_at(ctx: Ctx, obj: str, ref: Any, n: int) -> None:
    w = ctx.world
    key = _place_key(ctx, ref) if ref is not None else None
    if obj in ("觶",) and key in ("豐", "豐上"):
        if not w.stand_set:
            raise VerbError(
                "there is no 豐 to set the 觶 on: 弟子奉豐升設于西楹之西 (xiangshe:206)"
            )
        w.cup_on_stand = True
        w.cup_on_stand_full = ctx.p.cup_full
        return
    if key is not None:
        w.add_at(obj, key, n)


@verb("取", "執", "奉", "兼取", kind="object")
def take(ctx: Ctx) -> None:
    """取/執: take ``obj`` (``count``) from ``from``.

    Preconditions: where the run tracks the place, the object is there — no arrows from an
    empty 楅 (弟子取矢…委于楅 xiangshe:159, then 拾取矢 xiangshe:173); 筭 from the 中 only as
    many as it holds (xiangshe:185); the 觶 from the 豐 only if one was set there (xiangshe:211).
    執 of something already in hand only states it (執弓 xiangshe:126); ``state`` sets the 弓
    張 or 弛 (勝者…執張弓, 不勝者…弛弓 xiangshe:207–208).
    """
    a, p = ctx.act, ctx.p
    obj = a.obj
    if obj is None:
        raise VerbError(f"{a.verb} needs obj: (弓, 矢, 扑, 旌, 觶, 筭 …)")
    n = _chou_count(ctx)
    if n is None:
        n = ctx.count
    if a.verb == "執" and a.from_ is None and _has(p, obj):
        if obj == "弓" and a.state:
            p.bow = a.state
        elif _is_arrow(obj):
            _hold_along_string(p, None if a.count is None else ctx.count)
        set_facing(ctx)
        return
    # a cup taken up from a place (not from a person) comes as it was set down (see put)
    cup_place = None
    if a.verb == "取" and obj in SET_DOWN_CUPS and a.from_ is not None:
        if ctx.other(a.from_) is None:
            cup_place = _place_key(ctx, a.from_)
    if a.from_ is not None:
        giver = ctx.other(a.from_)
        if giver is not None:
            if obj in ("弓", "弓矢") and a.state is None and giver.bow:
                a = a.model_copy(update={"state": giver.bow})
            ctx.p = giver
            _drop(ctx, obj, n)
            ctx.p = p
        else:
            _take_from_place(ctx, obj, a.from_, n)
    if obj == "旌":
        ctx.world.flag = "執"
    _give(p, obj, n, a.state)
    if cup_place is not None and cup_place not in ("豐", "豐上"):
        laid = ctx.world.cup_states.get((obj, cup_place))
        if laid:
            p.cup_full = laid.pop()
            ctx.world.moved_cups()
        elif ctx.act.state is None:
            p.cup_full = False  # a cup from the 篚 is empty until it is filled
    set_facing(ctx)


def _hold_along_string(p: Person, count: int | None) -> None:
    """執 arrows already in hand: they are held along the string, head up, no longer 挾 ready
    to shoot — 右執一个兼諸弦面鏃 (xiangshe:253, dashe:274; 注 側持弦矢曰執…將止變於射也; 疏
    dashe:274 上文皆云挾一个此經云執一个). Without ``count``, all those in hand (矢不挾 注
    xiangshe:254 不挾亦謂執之如司射); those 搢 stay in the belt.

    >>> p = Person("司射", role="司射", bow="張", fingers=1)
    >>> _hold_along_string(p, None); p.holds()
    ['張弓', '執矢一']
    """
    n = p.fingers + p.hand if count is None else count
    for attr in ("fingers", "hand", "belt"):
        k = min(n, getattr(p, attr))
        setattr(p, attr, getattr(p, attr) - k)
        p.side += k
        n -= k


@verb("受", kind="object")
def receive(ctx: Ctx) -> None:
    """受: receive ``obj`` from a person (``from``). If the giver's 授 was already run, it is
    in hand already; otherwise the giver must hold it (有司…授弓 xiangshe:124)."""
    a, p = ctx.act, ctx.p
    obj = a.obj or ""
    giver = ctx.other(a.from_) if a.from_ is not None else None
    if giver is not None:
        check_reach(ctx, giver, receiving=True)
    if giver is not None and _has(giver, obj):
        bow = giver.bow
        ctx.p = giver
        _drop(ctx, obj, ctx.count)
        ctx.p = p
        _give(p, obj, ctx.count, a.state or (bow if obj in ("弓", "弓矢") else None))
        if obj in CUPS:
            p.cup_full = giver.cup_full
    elif not _has(p, obj):
        if a.from_ is not None and giver is None:
            _take_from_place(ctx, obj, a.from_, ctx.count)
        _give(p, obj, ctx.count, a.state)
    set_facing(ctx)


@verb("授", "獻", kind="object")
def give(ctx: Ctx) -> None:
    """授/獻: hand ``obj`` to a person (``to``). Precondition: he holds it (xiangshe:124, 216).

    獻 offers it and keeps it: the text gives the hand-over after it, at the receiver's
    拜受 (獻獲者于矦 … 獲者負矦北面拜受爵 xiangshe:221–223; 獻釋獲者 … 釋獲者薦右東面拜受爵
    230–231; 主人…獻公, 公拜受爵 dashe:54–55), so the cup passes at his 受, and nobody bows
    holding a full cup he has not yet received.
    """
    a, p = ctx.act, ctx.p
    obj = a.obj or ("爵" if a.verb == "獻" else "")
    recv = ctx.other(a.to)
    if recv is None:
        raise VerbError(f"{a.verb} needs to: a person present (the one who receives {obj})")
    full, bow = p.cup_full, p.bow
    if obj and not _has(p, obj) and a.verb == "獻":
        # 獻 with a cup he does not hold is a slip in the spec: the cup is filled first.
        raise VerbError(
            f"{p.name} does not hold the {obj} he offers (洗爵升實之以降獻 xiangshe:221)"
        )
    if obj and a.verb == "授":
        _drop(ctx, obj, ctx.count)
        _give(recv, obj, ctx.count, a.state or (bow if obj in ("弓", "弓矢") else None))
        if obj in CUPS:
            recv.cup_full = full
    ctx.extra["to"] = recv.name
    check_reach(ctx, recv)
    set_facing(ctx)


#: the reason on every shot line of the 誘射: the 司射 teaches (注 誘猶教也), in round 1 with the
#: 三耦, and nothing is counted in it (賈疏 第一番直司射與三耦誘射不釋算)
YOUSHE_REASON = (
    "誘射 (xiangshe:131 注 誘猶教也): the 司射 shows the way; never counted "
    "(賈疏 xiangshe:162 第一番直司射與三耦誘射不釋算)"
)

#: how far (尺) one reaches to hand a thing to someone or put it down: two 步 (E-reach)
REACH = 12.0


def check_reach(ctx: Ctx, other: Person, receiving: bool = False) -> None:
    """Note (for a warning) a hand-over between two people standing far apart (E-reach)."""
    p = ctx.p
    if p.x is None or p.y is None or other.x is None or other.y is None:
        return
    d = ((p.x - other.x) ** 2 + (p.y - other.y) ** 2) ** 0.5
    if d > REACH:
        how = "receives it from" if receiving else "hands it to"
        ctx.extra["_warn"] = f"{how} {other.name} {d:.0f} 尺 away ({p.place}; he: {other.place})"


#: The cups 實 fills: 觶, 爵, and the named cups of 大射儀 (散 爵名 注 dashe:243; 觚 dashe:256;
#: 角觶, 象觶, 散觶 of the 夾爵 dashe:237–238).
CUPS: tuple[str, ...] = ("觶", "爵", "觚", "散", "角觶", "象觶", "散觶")
#: the cups whose state (full or empty) a place keeps when they are set down (奠) and taken up
#: (取) again; the 豐 keeps its own (w.cup_on_stand_full, xiangshe:206–215)
SET_DOWN_CUPS: tuple[str, ...] = ("爵", "觶")


@verb("奠", "倚", "委", "釋", "去", "加", "實", kind="object")
def put(ctx: Ctx) -> None:
    """奠/倚/委/釋/去/加: put ``obj`` down at ``at`` (or ``to``).

    委 矢 ``from: 侯`` ``at: 楅``: the 弟子 lay the shot arrows on the 楅 (弟子取矢北面坐委于楅
    xiangshe:159); with 矢不備 (the run's ``arrows_short``) one arrow is not found at the first
    取矢 (xiangshe:160) and stays missing until 復求矢加于楅 (xiangshe:161). The 大夫's arrows are
    bound with 茅 on the 楅 (xiangshe:191).
    實: fill (實 觶: the cup is full; 實 筭 into the 中: 實八算于中 xiangshe:183).
    Precondition otherwise: he holds what he puts down.
    """
    a, p, w = ctx.act, ctx.p, ctx.world
    obj = a.obj
    if obj is None:
        raise VerbError(f"{a.verb} needs obj:")
    dest = a.at if a.at is not None else a.to
    dkey = _place_key(ctx, dest) if dest is not None else None
    if a.verb == "實":
        if obj in CUPS:
            if not _has(p, obj) and not (dkey in ("豐", "豐上") and w.cup_on_stand):
                raise VerbError(f"{p.name} fills a {obj} he does not hold (xiangshe:215)")
            if _has(p, obj):
                p.cup_full = True
            else:
                w.cup_on_stand_full = True
            return
        if obj == "筭":
            n = ctx.count
            if dkey == "中":
                if not w.vessel_set:
                    raise VerbError("there is no 中 to fill: 釋獲者坐設中 (xiangshe:183)")
                held = p.items.get("筭", 0)
                if held < n:
                    raise VerbError(
                        f"{p.name} holds {held} 筭 and cannot 實 {n} into the 中 (xiangshe:183)"
                    )
                _drop(ctx, "筭", n)
                w.rods_in_vessel += n
                if w.rods_in_vessel > 8:
                    raise VerbError("the 鹿中 holds eight 筭: 鑿背容八算 (記 xiangshe:354)")
                return
        raise VerbError(f"實 fills a 觶/爵 or puts 筭 into the 中, not {obj}")
    if _is_arrow(obj) and a.from_ is not None and _place_key(ctx, a.from_) in ("侯", "矦"):
        if dkey != "楅":
            raise VerbError("the shot arrows are laid on the 楅 (委于楅 xiangshe:159)")
        if not w.rest_set:
            raise VerbError("there is no 楅 to lay the arrows on: 乃設楅于中庭 (xiangshe:158)")
        n = w.arrows_at_target + sum(w.dafu_at_target.values())
        if n == 0:
            raise VerbError("no arrows lie at the 侯 to be laid on the 楅 (xiangshe:159)")
        if w.params.get("arrows_short") and not w.rest_short_seen and w.lost == 0 and n:
            # 矢不備: one arrow is not found (xiangshe:160); which one is not said.
            if w.arrows_at_target:
                w.arrows_at_target -= 1
            else:
                first = next(k for k, v in w.dafu_at_target.items() if v)
                w.dafu_at_target[first] -= 1
                w.moved()
            w.lost = 1
            ctx.extra["assumes"] = ["E-lost-arrow"]
        w.rest_batches += 1  # a new filling of the 楅: a new 拾取
        w.arrows_on_rest += w.arrows_at_target
        for who, k in w.dafu_at_target.items():
            w.bound_on_rest[who] = w.bound_on_rest.get(who, 0) + k
            w.moved()
        w.arrows_at_target = 0
        w.dafu_at_target = {}
        w.by_target = {}
        w.rest_arranged = False
        return
    if _is_arrow(obj) and a.verb == "加" and dkey == "楅":
        # 弟子…復求矢加于楅 (xiangshe:161): the missing arrow is found and added.
        if w.lost == 0:
            raise VerbError("no arrow is missing: 復求矢加于楅 follows 矢不備 (xiangshe:160–161)")
        w.arrows_on_rest += w.lost
        w.lost = 0
        return
    if obj == "筭" and a.verb == "委":
        held = p.items.get("筭", 0)
        n = held if a.count is None else ctx.count
        if held < n:
            raise VerbError(f"{p.name} holds {held} 筭, not {n} (xiangshe:186 反委之)")
        if n:
            _drop(ctx, "筭", n)
        if dest is not None and _place_key(ctx, dest) not in ("中西", "中之西"):
            _put_at(ctx, "筭", dest, n)  # not the 其餘 of the 中 (納射器 …)
        else:
            w.rods_reserve += n
        return
    if obj == "扑" and p.discipline_rod is None:
        raise VerbError(
            f"{p.name} holds no 扑 to put down (xiangshe:153 去扑倚于西階之西)"
            f"{last_let_go(p, '扑')}"
        )
    full = p.cup_full
    _drop(ctx, obj, ctx.count)
    if obj == "旌":
        w.flag = "倚"
    _put_at(ctx, obj, dest, ctx.count)
    if obj in SET_DOWN_CUPS and not any(p.items.get(c, 0) for c in SET_DOWN_CUPS):
        # the full cup left his hand (奠于豐上 xiangshe:206 included): the next cup he takes up
        # to wash is empty (勝者之弟子洗觶 each round)
        p.cup_full = False
    if a.verb == "奠" and obj in SET_DOWN_CUPS and dkey is not None and dkey not in ("豐", "豐上"):
        # the feast sets full cups down and takes them up again (主人坐奠觶于薦西 xiangshe:57,
        # 賓…反奠于其所 74; 司正實觶…奠觶…取觶…卒觶 106–107): the place keeps the cup's state
        w.cup_states.setdefault((obj, dkey), []).append(full)
        w.moved_cups()
        p.cup_full = False
    set_facing(ctx)


@verb("設", kind="object")
def set_up(ctx: Ctx) -> None:
    """設: set up a fixture object — 楅 (乃設楅于中庭 xiangshe:158), 中 (坐設中 xiangshe:183),
    豐 (設于西楹之西 xiangshe:206), 薦, 俎. What he held to set it (奉豐, 奉楅) leaves his hands."""
    w, obj = ctx.world, ctx.act.obj
    dest = ctx.act.at if ctx.act.at is not None else ctx.act.to
    if obj in ("楅", "中", "豐"):
        if dest is not None:
            ctx.extra["at"] = _place_key(ctx, dest)
        ctx.env.note(obj, w)
    if obj and obj in ctx.p.items:
        # set down, it is no longer in his hands (弟子奉豐升設于西楹之西 xiangshe:206)
        ctx.p.let_go[obj] = (ctx.act.verb, ctx.cite, ctx.line)
        del ctx.p.items[obj]
    if obj == "楅":
        w.rest_set = True
    elif obj == "中":
        w.vessel_set = True
    elif obj == "豐":
        w.stand_set = True
    elif obj and dest is not None:
        _put_at(ctx, obj, dest, 1)
        if obj in DISHES:
            # he may follow on with it (薦俎從之 dashe:248; sheli.engine.carrying)
            w.just_set.setdefault(ctx.p.name, []).append((obj, _place_key(ctx, dest)))
    set_facing(ctx)


@verb("徹", "退", kind="object", replace=True)
def clear(ctx: Ctx) -> None:
    """徹: take away (乃徹豐與觶 xiangshe:220; 退楅, 退中與算 xiangshe:258). Without obj, 退 is a
    movement (see 進).

    退中與算, 退楅: the 釋獲者 carries the 中 with the 筭 in it and the 筭 委 at the 中西, the
    弟子 the 楅 (敖繼公, 義疏 xiangshe:258: 楅與中算退于堂西以俟), until they set them down.
    """
    w, obj = ctx.world, ctx.act.obj
    if obj is None:
        move(ctx)
        return
    if ctx.act.verb == "退" and obj in ("中", "筭", "楅"):
        _carry_off(ctx, obj)
    elif ctx.act.verb == "徹" and obj in LAID and sum(1 for n in ctx.p.items.values() if n) < 2:
        # a free hand: one whose two hands are full (the 釋獲者 with the 中 and the 筭) cannot
        # take it himself (docs/world-rules.md, Things carried)
        _withdraw(ctx, obj)
    if obj == "豐":
        w.stand_set = False
        w.cup_on_stand = False
    elif obj == "觶":
        w.cup_on_stand = False
    elif obj == "楅":
        w.rest_set = False
    elif obj in ("中", "筭"):
        w.vessel_set = obj != "中" and w.vessel_set
    set_facing(ctx)


VERBS["退"] = Verb("退", clear, "move", (clear.__doc__ or "").strip())


def _withdraw(ctx: Ctx, obj: str) -> None:
    """徹 of a dish or a mat: it goes into his hands, from where it lay (the ``from`` place, or
    the one place that holds it), and he carries it away until he puts it down or lays it by
    (亦退其薦俎 注 xiangshe:258; 卿辭重席司宮徹之 yan:77; sheli.engine.carrying)."""
    p, w = ctx.p, ctx.world
    p.items[obj] = p.items.get(obj, 0) + 1
    w.withdrawn.setdefault(p.name, []).append(obj)
    if ctx.act.from_ is not None:
        key: str | None = _place_key(ctx, ctx.act.from_)
    else:
        lying = [k for (thing, k), n in w.places.items() if thing == obj and n > 0]
        key = lying[0] if len(lying) == 1 else None
    if key is not None and w.places.get((obj, key), 0) > 0:
        w.add_at(obj, key, -1)


def _carry_off(ctx: Ctx, obj: str) -> None:
    """退中, 退楅: the 中 (with the 筭 it holds) or the 楅 goes into his hands; 退算, the 筭
    委 at the 中西 (注 xiangshe:186 委之合於中西) go into his hand."""
    p, w = ctx.p, ctx.world
    if obj in ("中", "楅"):
        p.items[obj] = p.items.get(obj, 0) + 1
        return
    pile, n = _chou_place(w, "中西")
    if n and pile is None:
        w.rods_reserve -= n
        p.items["筭"] = p.items.get("筭", 0) + n


@verb("搢", kind="object")
def tuck(ctx: Ctx) -> None:
    """搢: put in the belt — arrows (搢三而挾一个 xiangshe:126) or the 扑 (取扑搢之 xiangshe:135).

    Precondition: he holds them (in hand).
    """
    a, p = ctx.act, ctx.p
    if a.obj == "扑":
        if p.discipline_rod is None:
            raise VerbError(
                f"{p.name} holds no 扑 to 搢 (取扑搢之 xiangshe:135){last_let_go(p, '扑')}"
            )
        p.discipline_rod = "搢"
        return
    n = ctx.count
    if p.hand + p.fingers < n:
        raise VerbError(
            f"{p.name} holds {p.hand + p.fingers} arrow(s) in hand and cannot 搢 {n} "
            "(搢三而挾一个 xiangshe:126)"
        )
    k = min(n, p.hand)
    p.hand -= k
    p.fingers -= n - k
    p.belt += n


@verb("挾", kind="object")
def nock(ctx: Ctx) -> None:
    """挾: hold an arrow between the fingers (凡挾矢於二指之閒横之 記 xiangshe:344).

    Takes it from the hand, or from the belt (上射既發挾弓矢 xiangshe:147: after each shot the
    next arrow is drawn from the 搢). Precondition: he has an arrow to 挾.
    """
    p = ctx.p
    n = ctx.count
    if ctx.act.from_ is not None:
        _take_from_place(ctx, "矢", ctx.act.from_, n)
        p.fingers += n
        return
    if p.hand + p.belt + p.side < n:
        raise VerbError(
            f"{p.name} has no arrow to 挾 (he holds {p.arrows}; 挾一个 xiangshe:126, 147)"
        )
    for attr in ("side", "hand", "belt"):
        k = min(n, getattr(p, attr))
        setattr(p, attr, getattr(p, attr) - k)
        p.fingers += k
        n -= k


# ------------------------------------------------------------------ shooting


#: Roles that, as 下射, loose before their 上射: 公下射也而先發不留尊也 (注 dashe:203).
LOWER_FIRST_ROLES: set[str] = {"公"}


def _lower_first(w: World, pair: str) -> bool:
    """Does this pair's 下射 shoot first (the 公, 注 dashe:203)?

    >>> from sheli.engine.state import Pair
    >>> w = World(); w.pairs["公耦"] = Pair("公耦", "賓", "公", "公耦")
    >>> w.people["公"] = Person("公", role="公", pair="公耦", seat="下射")
    >>> _lower_first(w, "公耦")
    True
    """
    pr = w.pairs.get(pair)
    if pr is None:
        return False
    # the readings under which he looses after his 上射 like any 下射 (敖繼公 on dashe:203)
    upper_first = find_variant(w.chapter).upper_first_readings
    if upper_first and upper_first & set(w.params.get("readings") or ()):
        return False
    lower = w.people.get(pr.lower)
    return lower is not None and lower.role in LOWER_FIRST_ROLES


@verb("乘", kind="object")
def arrange(ctx: Ctx) -> None:
    """乘: the 司馬 arranges the arrows on the 楅 by fours (左右撫矢而乘之 xiangshe:159).

    Precondition: arrows lie on the 楅. Effect: if one is missing (矢不備), it shows now
    (若矢不備 xiangshe:160), and the spec's ``if: {arrows_short: true}`` branch applies.
    """
    w = ctx.world
    if not w.rest_set or w.arrows_on_rest + sum(w.bound_on_rest.values()) == 0:
        raise VerbError("乘 with no arrows on the 楅 (弟子取矢…委于楅 xiangshe:159 comes first)")
    w.rest_arranged = True
    if w.lost:
        w.rest_short_seen = True
    set_facing(ctx)


@verb("束", kind="object")
def bind(ctx: Ctx) -> None:
    """束: bind the 大夫's arrows with 茅 (大夫之矢則兼束之以茅上握焉 xiangshe:191).

    In sheli the binding is done as the arrows are laid on the 楅 (委); this act only states it.
    Precondition: a 大夫's arrows lie on the 楅.
    """
    if not any(ctx.world.bound_on_rest.values()):
        raise VerbError("no 大夫's arrows lie on the 楅 to bind with 茅 (xiangshe:191)")


@verb("説", "說", kind="object")
def unbind(ctx: Ctx) -> None:
    """説 (矢束): the 大夫 unties his arrows (大夫進坐説矢束 xiangshe:242; 記 xiangshe:364 坐説之).

    With obj 束 or 矢束 his own bound arrows become loose on the 楅 (each 大夫's arrows are
    bound apart: 兼束 his 乘矢, 注 「兼束大夫矢…是以不拾也」); otherwise 説 is generic.
    """
    w, p = ctx.world, ctx.p
    if ctx.act.obj in ("矢束", "束", "茅"):
        mine = w.bound_on_rest.get(p.name, 0)
        if not mine:
            whose = "、".join(k for k, v in w.bound_on_rest.items() if v) or "nobody's"
            raise VerbError(
                f"there is no 矢束 of {p.name} on the 楅 to untie (bound: {whose}; "
                "xiangshe:191, 242 大夫進坐説矢束)"
            )
        w.arrows_on_rest += mine
        w.bound_on_rest[p.name] = 0
        w.moved()
    set_facing(ctx)


# ------------------------------------------------------------------ cups


@verb("洗", "酌", "祭", "薦", "卒觶", "飲", "卒爵", kind="cup")
def cup(ctx: Ctx) -> None:
    """Cup verbs. 洗/酌: the cup is in hand (酌 fills it). 飲/卒觶/卒爵: the cup is in hand and
    full (不勝者…取豐上之觶…立卒觶 xiangshe:211); it is then empty. 祭, 薦: no check on the cup."""
    a, p, w = ctx.act, ctx.p, ctx.world
    obj = a.obj or ("爵" if a.verb == "卒爵" else "觶")
    if a.verb in ("祭", "薦"):
        if a.verb == "薦" and a.obj and a.obj in p.items:
            # what he carried to offer leaves his hands (膳宰…薦脯醢, carried 由左房 注 yan:48)
            p.let_go[a.obj] = (a.verb, ctx.cite, ctx.line)
            del p.items[a.obj]
        set_facing(ctx)
        return
    if p.items.get(obj, 0) < 1:
        if a.verb in ("洗", "酌") and obj in ("觶", "爵"):
            # 洗觶: he takes the cup to wash it (勝者之弟子洗觶 xiangshe:206), empty, whatever
            # the cup he last let go held
            p.items[obj] = 1
            p.cup_full = False
        else:
            raise VerbError(f"{p.name} {a.verb} with no {obj} in hand (xiangshe:211, 217)")
    if a.verb == "酌":
        p.cup_full = True
    elif a.verb in ("飲", "卒觶", "卒爵"):
        if not p.cup_full:
            raise VerbError(f"{p.name} drinks from an empty {obj} (實之 xiangshe:215 first)")
        p.cup_full = False
        # an archer drinks the 罰爵 (飲不勝者 xiangshe:205–220); others drink when offered
        # (獻獲者 xiangshe:221–227, 獻釋獲者 xiangshe:230–231). A drink of the feast (round 0)
        # is a drink (Run.drinks), never a 罰爵 (Run.drank).
        if p.pair is not None and w.round > 0:
            w.drank.setdefault(w.round, []).append(p.name)
        w.drinks.append((w.round, p.name, ctx.cite))
    set_facing(ctx)


# ------------------------------------------------------------------ others


@verb("奏", kind="music")
def play(ctx: Ctx) -> None:
    """奏: the music starts (乃奏騶虞以射 xiangshe:250)."""
    ctx.world.music = True
    _speech(ctx)


@verb("撻", kind="other")
def punish(ctx: Ctx) -> None:
    """撻: the 司射 strikes with the 扑 an archer whose arrow struck a person (``to``: him).

    記 xiangshe:350 「射者有過則撻之」; 注 「過謂矢揚中人…以扑撻於中庭而已」 (and 注
    xiangshe:135 「扑所以撻犯敎者」). Preconditions: he holds the 扑 (搢 or in hand); the one
    struck is in the 庭; his arrow struck a person this round, not yet punished.
    """
    w, p = ctx.world, ctx.p
    if p.discipline_rod is None:
        raise VerbError(f"{p.name} 撻s without the 扑: 以扑撻於中庭 (注 xiangshe:350)")
    name = ctx.env.fill(str(ctx.act.to or ""), ctx.bind)
    target = w.person(name)
    if target is None:
        raise VerbError(f"撻 needs to: the archer who erred, not {name!r}")
    if target.on_tang:
        raise VerbError(f"{target.name} is 撻'd on the 堂: 撻於中庭 (注 xiangshe:350)")
    fault = (w.round, target.pair or "", target.seat or "")
    if fault not in w.faults:
        raise VerbError(
            f"{target.name} is 撻'd without a 過 this round: 射者有過則撻之 (xiangshe:350; 注 "
            "過謂矢揚中人)"
        )
    w.faults.discard(fault)
    ctx.extra["punished"] = target.name


@verb("勝", kind="score")
def decide_bout(ctx: Ctx) -> None:
    """勝: the bout of the pair ``to`` is decided by its 獲 (主皮之射, 記 xiangshe:359).

    The archer with more 獲 this round is the 勝者 (he stays, to shoot again), the other the
    不勝者 (he goes down): 勝者又射，不勝者降; 注 主於獲也. The names 勝者 and 不勝者 then stand
    for them in the steps that follow. With as many 獲 each (鈞) neither has won (``bout_tie``).
    Precondition: both have shot their 乘矢 this round (卒射).
    """
    w = ctx.world
    pair = ctx.env.fill(str(ctx.act.to or ""), ctx.bind)
    pr = w.pairs.get(pair)
    if pr is None:
        raise VerbError(f"勝 needs to: a pair of this run, not {pair!r}")
    shot = w.shots.get((w.round, pair), {})
    if min(shot.get("上射", 0), shot.get("下射", 0)) < 4:
        raise VerbError(f"勝 before {pair} has shot its 乘矢 ({shot}): 卒射 first")
    hits = w.hits.get((w.round, pair), {})
    upper, lower = hits.get("上射", 0), hits.get("下射", 0)
    ctx.extra["獲"] = {"上射": upper, "下射": lower}
    w.aliases.pop("勝者", None)
    w.aliases.pop("不勝者", None)
    w.bout_tie = upper == lower
    if w.bout_tie:
        ctx.extra["勝"] = "鈞"
        return
    winner, loser = (pr.upper, pr.lower) if upper > lower else (pr.lower, pr.upper)
    w.aliases["勝者"], w.aliases["不勝者"] = winner, loser
    w.standing.append(winner)
    ctx.extra["勝"] = {"勝者": winner, "不勝者": loser}


@verb("比耦", kind="other")
def pair_winners(ctx: Ctx) -> None:
    """比耦: the 司射 pairs the 勝者 still standing for the next round, in the order they won
    (the 上射 the earlier), as he 比s the 耦 of a 禮射 (司射比三耦 xiangshe:110). Effect: the
    group 勝耦 holds the new pairs; one left over waits for the next round; none or one
    standing, the group is empty and the shooting is over.
    """
    w = ctx.world
    standing, w.standing = w.standing, []
    made = []
    for i in range(len(standing) // 2):
        name = f"勝耦{i + 1}"
        upper, lower = standing[2 * i], standing[2 * i + 1]
        w.pairs[name] = Pair(name, upper, lower, "勝耦")
        for seat, who in (("上射", upper), ("下射", lower)):
            w.people[who].pair, w.people[who].seat = name, seat
            w.aliases[name + seat] = who
        made.append(name)
    if len(standing) % 2:
        w.standing.append(standing[-1])  # no 耦 this round: he waits for the next
    w.groups["勝耦"] = made
    ctx.extra["耦"] = {p: [w.pairs[p].upper, w.pairs[p].lower] for p in made}
    if not made:
        # the end: no two left to shoot; the one left, if any, is the 勝者 of the contest
        w.aliases.pop("不勝者", None)
        if standing:
            w.aliases["勝者"] = standing[0]
            ctx.extra["勝者"] = standing[0]
        else:
            w.aliases.pop("勝者", None)
        w.bout_tie = not standing
    _speech(ctx)


@verb("張", "繫", "遷", kind="other")
def other(ctx: Ctx) -> None:
    """Acts on things the state does not track.

    張侯, 繫左下綱 (xiangshe:118), 遷樂 (xiangshe:120).
    """
    _speech(ctx)

"""The world state of a run (docs/architecture.md).

Everyone's place and facing, dress (袒/襲, 決遂), what each hand holds (弓 張 or 弛, arrows
搢 and 挾, 扑, 旌, 觶 …); where every object is (arrows on the 楅, at the 侯, in hand; 筭 in the
中, in the 釋獲者's hand and on the ground by side; the 旌 up or 偃).

The state is mutated in place by the verbs (:mod:`sheli.engine.verbs`); nothing is deep-copied
per step, so a run's cost is linear in its steps.

>>> p = Person("上耦上射", role="上射", pair="上耦", seat="上射")
>>> p.holds()
[]
>>> p.bow = "張"; p.belt = 3; p.fingers = 1
>>> p.holds()
['張弓', '搢矢三', '挾矢一']
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each field's
# annotation given as a string (Holding and Objects: many small compiles at every start
# of the engine; see docs/benchmarks.md, "Start-up").

from functools import partial
from typing import Any, NamedTuple

import msgspec

_NUM = "〇一二三四五六七八九十"
#: a struct's own setting of an attribute (World's __setattr__ also notes a change)
_set = msgspec.Struct.__setattr__


def _cn(n: int) -> str:
    if 0 <= n <= 10:
        return _NUM[n]
    return str(n)


_DRESS = {
    (True, True): ["袒", "決遂"],
    (True, False): ["袒"],
    (False, True): ["襲", "決遂"],
    (False, False): ["襲"],
}


class Holding(NamedTuple):
    """What one person holds at one step, as numbers (a value shared by equal holdings).

    ``bow`` 張 or 弛; arrows ``hand`` (兼諸弣), ``belt`` (搢, in the belt), ``fingers`` (挾, between
    the fingers, ready to shoot), ``side`` (執, held along the string, head up: 側持弦矢曰執 注
    dashe:274, not to be shot: 將止變於射也); ``discipline_rod`` the 扑 (執 or 搢);
    ``cup_full`` whether a cup he holds is 實; ``items`` the other things by name and number
    (旌, 觶, 筭 …); ``counting`` the 筭 in his left hand during a 數獲 (實于左手 xiangshe:195),
    besides his items.
    """

    bow: str | None = None
    hand: int = 0
    belt: int = 0
    fingers: int = 0
    discipline_rod: str | None = None
    cup_full: bool = False
    items: tuple[tuple[str, int], ...] = ()
    counting: int = 0
    side: int = 0

    @property
    def arrows(self) -> int:
        """Arrows held, however held.

        >>> Holding(belt=3, fingers=1).arrows, Holding(side=1).arrows
        (4, 1)
        """
        return self.hand + self.belt + self.fingers + self.side

    def count(self, name: str) -> int:
        """How many of the item ``name`` (the 筭 of a count included).

        >>> Holding(items=(("筭", 8),)).count("筭"), Holding(counting=6).count("筭")
        (8, 6)
        """
        n = self.counting if name == "筭" else 0
        for k, m in self.items:
            if k == name:
                n += m
        return n


_WORDS: dict[Holding, list[str]] = {}

#: the cloth the 君's arrows are handed in (小臣以巾授矢 記 yan:178; dashe:200, 204)
CLOTH = "巾"
#: the words of arrows held in it (小臣以巾執矢以授 記 xiangshe:383)
ARROWS_IN_CLOTH = "以巾執矢"


def holds_words(h: Holding) -> list[str]:
    """A holding in the text's words (the ``holds`` of the event log); a shared list.

    >>> holds_words(Holding(bow="張", belt=3, fingers=1))
    ['張弓', '搢矢三', '挾矢一']
    >>> holds_words(Holding(items=(("觶", 1),), cup_full=True, counting=10))
    ['觶(實)', '筭十']
    >>> holds_words(Holding(bow="張", side=1))
    ['張弓', '執矢一']

    Arrows in hand with a 巾 are held in it, one thing in one hand (小臣以巾執矢以授 記
    xiangshe:383; 敖繼公 (義疏): 以巾拂之而又藉手以執之):

    >>> holds_words(Holding(bow="張", hand=3, items=(("巾", 1),)))
    ['張弓', '以巾執矢三']
    """
    got = _WORDS.get(h)
    if got is None:
        got = _WORDS[h] = words_of(h)
    return got


def words_of(h: Holding) -> list[str]:
    out: list[str] = []
    if h.bow:
        out.append(f"{h.bow}弓")
    # arrows held in a 巾 are one thing, named as the text names them (記 xiangshe:383)
    in_cloth = h.hand > 0 and any(k == CLOTH and n > 0 for k, n in h.items)
    if h.hand:
        out.append(f"{ARROWS_IN_CLOTH if in_cloth else '矢'}{_cn(h.hand)}")
    if h.belt:
        out.append(f"搢矢{_cn(h.belt)}")
    if h.fingers:
        out.append(f"挾矢{_cn(h.fingers)}")
    if h.side:
        out.append(f"執矢{_cn(h.side)}")
    if h.discipline_rod:
        out.append("搢扑" if h.discipline_rod == "搢" else "扑")
    for k, n in h.items:
        if n <= 0 or (in_cloth and k == CLOTH):
            continue
        if k in ("觶", "爵"):
            out.append(f"{k}({'實' if h.cup_full else '虛'})")
        else:
            out.append(k if n == 1 else f"{k}{_cn(n)}")
    if h.counting:
        out.append(f"筭{_cn(h.counting)}")
    return out


_HOLDINGS: dict[tuple[Any, ...], Holding] = {}

#: The cups (爵, 觶 …) whose places and fill an :class:`Objects` snapshot keeps.
CUPS: frozenset[str] = frozenset(("觶", "爵", "觚", "散", "角觶", "象觶", "散觶"))


class Person(msgspec.Struct):
    """One person: role, place, facing, dress and holdings."""

    name: str
    role: str
    pair: str | None = None  # 上耦, 衆耦1, 賓耦 …
    seat: str | None = None  # 上射 / 下射
    display: str | None = None  # a person's name from the cast
    x: float | None = None
    y: float | None = None
    place: str | None = None  # the text's words for where he is
    at_key: str | None = None  # the fixture he stands on, if named (上物 …)
    on_tang: bool | None = None
    on_stair: str | None = None  # the 階 whose top step he stands on (盡階不升堂 xiangshe:190)
    facing: str | None = None
    wei: tuple[float | None, float | None, str | None, bool | None, str | None] | None = None
    # the facing his 位 or 席 carries (士西方東面 dashe:21; 席 南面 dashe:18): 反位 takes it
    wei_facing: str | None = None
    bared: bool = False  # 袒 (left arm bared)
    ring_and_guard: bool = False  # 決遂 on
    posture: str = "立"
    bow: str | None = None  # None, 張, 弛
    belt: int = 0  # arrows 搢 (in the belt)
    fingers: int = 0  # arrows 挾 (between the fingers)
    side: int = 0  # arrows 執 (側持弦矢曰執 注 dashe:274): along the string, not to be shot
    hand: int = 0  # arrows otherwise in hand (兼諸弣, 兼諸弦)
    discipline_rod: str | None = None  # None, 執, 搢
    items: dict[str, int] = msgspec.field(default_factory=dict)  # 旌, 觶, 爵, 筭, 中 …
    cup_full: bool = False
    is_dafu: bool = False
    # obj → (verb, cite, spec line) of the act that last put it out of his hands
    let_go: dict[str, tuple[str, str, int]] = msgspec.field(default_factory=dict)

    def holding(self) -> Holding:
        """What he holds, as numbers: one shared value per distinct holding (a snapshot).

        >>> p = Person("司射", role="司射"); p.bow = "張"; p.fingers = 4
        >>> p.holding().fingers, p.holding() is p.holding()
        (4, True)
        """
        key = (
            self.bow,
            self.hand,
            self.belt,
            self.fingers,
            self.discipline_rod,
            self.cup_full,
            tuple(self.items.items()) if self.items else (),
            0,
            self.side,
        )
        got = _HOLDINGS.get(key)
        if got is None:
            got = _HOLDINGS[key] = Holding(*key)
        return got

    def holds(self) -> list[str]:
        """What he holds, in the text's words (for the event log and 儀注): a shared list,
        read-only."""
        return holds_words(self.holding())

    def dress(self) -> list[str]:
        """袒 or 襲, and 決遂 if worn (a shared list: read-only)."""
        return _DRESS[self.bared, self.ring_and_guard]

    @property
    def arrows(self) -> int:
        return self.belt + self.fingers + self.hand + self.side


class Pair(msgspec.Struct):
    """A 耦: its name and its two archers (上射, 下射)."""

    name: str
    upper: str
    lower: str
    kind: str  # 三耦, 賓耦, 大夫耦, 衆耦


class Shot(msgspec.Struct):
    round: int
    pair: str
    archer: str  # 上射 / 下射 / 司射
    person: str
    arrow: int
    hit: bool
    on_beat: bool | None
    counted: bool
    reason: str
    released: bool = False  # a 筭 was laid for it (釋獲)
    hou: str | None = None  # the 侯 shot at, when the spec names one (射 to: 大侯)
    struck: str = ""  # what else it struck, from the outcome: 人 (a 過), 維綱, 揚觸, 梱復


class Objects(NamedTuple):
    """Where the things of a run are at one step, as numbers (a snapshot of the world).

    Arrows: ``arrows_on_rest`` loose on the 楅 (and ``bound_on_rest``, each 大夫's bundle,
    xiangshe:191), ``arrows_at_target`` lying at the 侯 (``by_target`` of them shot at a named
    侯, ``dafu_at_target`` shot by each 大夫), ``lost`` (矢不備). 筭: ``rods_in_vessel`` in the
    中, ``rods_reserve`` 委 west of it, ``rods_right``/``rods_left`` on the ground by side (those
    in hand are in each person's :class:`Holding`). Cups: ``cup_on_stand`` a 觶 on the 豐 and
    ``cup_on_stand_full``; ``cups`` the cups set down elsewhere, as (cup, place, number, whether
    each is 實, the last set down last).
    ``flag`` the 旌 (倚, 執, 舉, 偃).
    """

    rest_set: bool = False
    arrows_on_rest: int = 0
    bound_on_rest: tuple[tuple[str, int], ...] = ()
    rest_arranged: bool = False
    arrows_at_target: int = 0
    by_target: tuple[tuple[str, int], ...] = ()
    dafu_at_target: tuple[tuple[str, int], ...] = ()
    lost: int = 0
    vessel_set: bool = False
    rods_in_vessel: int = 0
    rods_reserve: int = 0
    rods_right: int = 0
    rods_left: int = 0
    stand_set: bool = False
    cup_on_stand: bool = False
    cup_on_stand_full: bool = False
    flag: str = "倚"
    music: bool = False
    cups: tuple[tuple[str, str, int, tuple[bool, ...]], ...] = ()


# an Objects from the tuple of its fields (without the keyword handling of Objects(...))
_new_objects = partial(tuple.__new__, Objects)

#: The fields of :class:`World` an :class:`Objects` snapshot is made of.
_OBJECT_FIELDS = frozenset(
    "rest_set arrows_on_rest bound_on_rest rest_arranged arrows_at_target by_target "
    "dafu_at_target lost vessel_set rods_in_vessel rods_reserve rods_on_ground stand_set "
    "cup_on_stand cup_on_stand_full flag music".split()
)


class World(msgspec.Struct, dict=True):
    """The whole state of a run.

    The verbs change it in place; :meth:`objects` gives the things' state as a snapshot,
    built again only after an object changed (set an attribute of :data:`_OBJECT_FIELDS`, or
    call :meth:`moved` after changing one of their dicts in place).
    """

    people: dict[str, Person] = msgspec.field(default_factory=dict)
    aliases: dict[str, str] = msgspec.field(default_factory=dict)  # 賓耦上射 → 賓 …
    pairs: dict[str, Pair] = msgspec.field(default_factory=dict)
    groups: dict[str, list[str]] = msgspec.field(default_factory=dict)  # 三耦, 衆耦 … → pair names
    params: dict[str, Any] = msgspec.field(default_factory=dict)
    chapter: str = "xiangshe"  # the spec's chapter (its variant: sheli.engine.variants)
    rite: str = ""  # the spec's key: a variant declared for a whole rite (主皮之射) is found by it
    names: dict[str, int] = msgspec.field(default_factory=dict)  # archers, pairs, dafu: for counts
    round: int = 0
    # objects
    rest_set: bool = False  # 楅 設 (xiangshe:158)
    arrows_on_rest: int = 0  # arrows on the 楅
    # each 大夫's arrows on the 楅, bound with 茅 (xiangshe:191): 大夫 → count
    bound_on_rest: dict[str, int] = msgspec.field(default_factory=dict)
    rest_arranged: bool = False  # 乘之 (xiangshe:159)
    rest_batches: int = 0  # how many times the shot arrows were laid on the 楅
    takes: dict[tuple[int, str], dict[str, int]] = msgspec.field(default_factory=dict)  # 拾取矢
    arrows_at_target: int = 0  # shot, lying at the 侯
    # shot at a named 侯 (射 to: 大侯, 參侯, 干侯 — 公射大侯大夫射參士射干 dashe:129): 侯 → count
    by_target: dict[str, int] = msgspec.field(default_factory=dict)
    # shot by each 大夫, lying at the 侯 (兼束之以茅 when laid on the 楅): 大夫 → count
    dafu_at_target: dict[str, int] = msgspec.field(default_factory=dict)
    lost: int = 0  # 矢不備: arrows not found at the first 取矢
    rest_short_seen: bool = False  # 乘 found the 楅 short
    vessel_set: bool = False  # 中 設 (xiangshe:183)
    rods_in_vessel: int = 0  # 筭 in the 中
    rods_reserve: int = 0  # 筭 委 west of the 中 (其餘)
    rods_on_ground: dict[str, int] = msgspec.field(default_factory=lambda: {"right": 0, "left": 0})
    counted: dict[str, int | None] = msgspec.field(
        default_factory=lambda: {"right": None, "left": None}
    )
    stand_set: bool = False  # 豐 設 (xiangshe:206)
    cup_on_stand: bool = False  # a 觶 on the 豐
    cup_on_stand_full: bool = False
    flag: str = "倚"  # the 旌: 倚 (leaning on the 侯), 執, 舉, 偃
    music: bool = False
    places: dict[tuple[str, str], int] = msgspec.field(default_factory=dict)  # (obj, place) → count
    # (cup, place) → whether each cup set down there was full, the last set down last
    cup_states: dict[tuple[str, str], list[bool]] = msgspec.field(default_factory=dict)
    shots: dict[tuple[int, str], dict[str, int]] = msgspec.field(default_factory=dict)
    last_shot: Shot | None = None
    # (round, pair, seat) of archers whose arrow struck a person (a 過, 注 xiangshe:350) and who
    # have not yet been 撻'd
    faults: set[tuple[int, str, str]] = msgspec.field(default_factory=set)
    # the 主皮之射 (xiangshe:359): hits by (round, pair) and seat; the 勝者 still standing, in
    # order; whether the last bout was 鈞
    hits: dict[tuple[int, str], dict[str, int]] = msgspec.field(default_factory=dict)
    standing: list[str] = msgspec.field(default_factory=list)
    bout_tie: bool = False
    called: set[str] = msgspec.field(default_factory=set)  # pairs 作'd this round
    tallies: list[Any] = msgspec.field(default_factory=list)  # the run's Tally records
    last_tally: Any = None  # the last Tally record (sheli.engine.records)
    drank: dict[int, list[str]] = msgspec.field(default_factory=dict)  # 罰爵, by round
    drinks: list[tuple[int, str, str]] = msgspec.field(default_factory=list)  # round, who, cite
    # who has just set dishes down, and where (設薦, 設俎): he takes them up if he follows on
    # (薦俎從之 dashe:248; sheli.engine.carrying)
    just_set: dict[str, list[tuple[str, str]]] = msgspec.field(default_factory=dict)
    # who has withdrawn (徹) a dish or a mat and carries it away (亦退其薦俎 注 xiangshe:258;
    # 卿辭重席司宮徹之 yan:77; sheli.engine.carrying)
    withdrawn: dict[str, list[str]] = msgspec.field(default_factory=dict)
    #: the objects' last snapshot, and whether an object changed since it was taken (these
    #: and the cups kept for it are bookkeeping: shown and compared as the others are)
    snapshot: Objects | None = None
    changed: bool = True
    _cups: tuple[Any, ...] | None = None
    # the cups set down, by (cup, place): the part of ``places`` a snapshot keeps
    _cup_places: dict[tuple[str, str], int] = msgspec.field(default_factory=dict)

    def person(self, name: str) -> Person | None:
        return self.people.get(self.aliases.get(name, name))

    def __setattr__(self, name: str, value: Any) -> None:
        _set(self, name, value)
        if name in _OBJECT_FIELDS:
            _set(self, "changed", True)

    def moved(self) -> None:
        """Say that an object changed in place (a count in one of the dicts above)."""
        self.changed = True

    def _cups_now(self) -> tuple[tuple[str, str, int, tuple[bool, ...]], ...]:
        states = self.cup_states
        got = self._cups = tuple(
            (thing, place, n, tuple(states.get((thing, place), ())))
            for (thing, place), n in self._cup_places.items()
            if n
        )
        return got

    def moved_cups(self) -> None:
        """Say that a cup was set down or taken up (its place or its fill changed)."""
        self.changed = True
        self._cups = None

    def add_at(self, thing: str, place: str, n: int) -> None:
        """Set down (``n`` > 0) or take up (``n`` < 0) ``n`` of a thing at a place."""
        self.places[(thing, place)] = self.places.get((thing, place), 0) + n
        if thing in CUPS:
            self._cup_places[(thing, place)] = self.places[(thing, place)]
            self.moved_cups()

    def objects(self) -> Objects:
        """The objects now, as a snapshot: the previous one when nothing changed (snapshots
        share, nothing is copied per step).

        >>> w = World(); w.rods_in_vessel = 8
        >>> w.objects().rods_in_vessel, w.objects() is w.objects()
        (8, True)
        """
        last = self.snapshot
        if not self.changed and last is not None:
            return last
        _set(self, "changed", False)
        o = _new_objects(
            (
                self.rest_set,
                self.arrows_on_rest,
                tuple(self.bound_on_rest.items()),
                self.rest_arranged,
                self.arrows_at_target,
                tuple(self.by_target.items()),
                tuple(self.dafu_at_target.items()),
                self.lost,
                self.vessel_set,
                self.rods_in_vessel,
                self.rods_reserve,
                self.rods_on_ground["right"],
                self.rods_on_ground["left"],
                self.stand_set,
                self.cup_on_stand,
                self.cup_on_stand_full,
                self.flag,
                self.music,
                self._cups if self._cups is not None else self._cups_now(),
            )
        )
        if last == o:
            return last
        _set(self, "snapshot", o)
        return o

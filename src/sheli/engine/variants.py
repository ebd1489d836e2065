"""Rite variants: how a chapter's archery differs from 鄉射禮's, declared, found by name.

A :class:`Variant` holds what the engine asks of a chapter whose words or rules differ from
鄉射禮's: its 釋獲 table (``release``), its 數獲 (``count_procedure``), the exceptions to its
table (``release_overrides``, tried in order before the rules every chapter shares), the
readings under which the 公 looses after his 上射 (``upper_first_readings``) and the
assumptions its verbs make (``assumptions``). Variants are found by chapter key or alias
(:func:`find_variant`, as python-chess finds its board variants); a chapter without one
follows 鄉射禮 (:data:`XIANGSHE`). Nothing here is changed when a module is imported: to add
a variant, declare it and list it in :data:`VARIANTS` (docs/architecture.md).

>>> find_variant("大射儀") is DASHE, find_variant("dashe").release(3, True, False)[0]
(True, False)
>>> find_variant("no such chapter") is XIANGSHE
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import msgspec

from sheli.engine.state import Person
from sheli.scoring.rules import count_procedure_in, release

#: ``(archer, round, hit, on_beat) -> (counted, reason)``, or None to leave the table's answer
ReleaseOverride = Callable[[Person, int, bool, "bool | None"], "tuple[bool, str] | None"]
#: ``(archer, round, struck) -> (counted, reason)`` for an arrow whose outcome says what else it
#: struck (維綱, 揚觸, 梱復, 人), or None to leave the table's answer
StruckRelease = Callable[[Person, int, str], "tuple[bool, str] | None"]


class Variant(msgspec.Struct, frozen=True):
    """One chapter's archery where it differs from 鄉射禮's (None: the run's environment's,
    鄉射禮's tables)."""

    chapter: str
    aliases: tuple[str, ...] = ()
    release: Callable[[int, bool, bool | None], tuple[bool, str]] | None = None
    count_procedure: Callable[[int, str], list[Any]] | None = None
    release_overrides: tuple[ReleaseOverride, ...] = ()
    struck_release: StruckRelease | None = None
    upper_first_readings: frozenset[str] = frozenset()
    assumptions: Mapping[str, tuple[str, str]] = msgspec.field(default_factory=dict)
    #: a variant of a whole rite (found by the spec's key, not by the chapter a step cites)
    whole_rite: bool = False
    #: groups of pairs formed during the run (verb 比耦), empty at the start
    later_groups: tuple[str, ...] = ()
    #: the names of those pairs, given the number of pairs declared
    later_pairs: Callable[[int], list[str]] = lambda n: []


def jun_release(p: Person, rnd: int, hit: bool, on_beat: bool | None) -> tuple[bool, str] | None:
    """The 君's arrows in the music round count on a hit, on the drum or not: 不以樂志 (記
    yan:179, 注 辟不敏也; 注 dashe:273 君之射儀遲速從心，其發不必應樂). Others: the table.

    >>> jun_release(Person("公", role="君"), 3, True, False)[0]
    True
    >>> jun_release(Person("賓", role="賓"), 3, True, False) is None
    True
    """
    if p.role not in JUN_ROLES or rnd != 3:
        return None
    if hit:
        return True, "不以樂志 (記 yan:179): the 君's hit counts, on the drum or not"
    return False, "not a hit (不貫不釋 xiangshe:184)"


def gong_release(p: Person, round: int, hit: bool, on_beat: bool | None) -> tuple[bool, str] | None:
    """The 公's arrows in 大射儀's third round: a hit counts whether or not it falls on the drum.

    經 dashe:273 公樂作而后就物稍屬不以樂志; 注: 「君之射儀遲速從心，其發不必應樂」. A miss is
    不貫不釋 (dashe:185). The others follow the table (不鼓不釋 dashe:271).

    >>> gong_release(Person("公", role="公"), 3, True, False)[0]
    True
    >>> gong_release(Person("賓", role="賓"), 3, True, False) is None
    True
    """
    if p.role != "公" or round != 3:
        return None
    if hit:
        return True, "不以樂志 (dashe:273; 注 其發不必應樂)"
    return False, "不貫不釋 (dashe:185)"


def gong_struck_release(p: Person, round: int, struck: str) -> tuple[bool, str] | None:
    """大射儀's arrows that 離維綱, 揚觸 or 梱復: counted for the 公, not for anyone else.

    經 dashe:182 「中離維綱，揚觸，梱復，公則釋獲，衆則不與」;
    注 「公則釋獲，優君也。衆當中鵠而著」.
    Round 1 lays no 筭 at all (獲而未釋獲 dashe:152); in round 3 the 公's arrow counts off the
    drum as his hits do (不以樂志 dashe:273).

    >>> gong_struck_release(Person("公", role="公"), 2, "維綱")
    (True, '公則釋獲 (dashe:182; 注 優君也)')
    >>> gong_struck_release(Person("賓", role="賓"), 2, "維綱")
    (False, '衆則不與 (dashe:182; 注 衆當中鵠而著)')
    >>> gong_struck_release(Person("公", role="公"), 2, "人") is None
    True
    """
    if struck not in ("維綱", "揚觸", "梱復") or round < 2:
        return None
    if p.role == "公":
        return True, "公則釋獲 (dashe:182; 注 優君也)"
    return False, "衆則不與 (dashe:182; 注 衆當中鵠而著)"


#: The role the 君 has as an archer in the 燕射 (yanshe.yaml ``pairs:``). His person is named
#: 公, as 燕禮 names him (公升即位于席 yan:8); the 記 calls him 君.
JUN_ROLES = ("君", "公")

#: The exceptions every chapter shares, tried after a variant's own: the 記's rule for the 君
#: (鄉射記 xiangshe:381–384 and 燕禮記 yan:177–182 speak of the 君 shooting wherever he does).
COMMON_RELEASE_OVERRIDES: tuple[ReleaseOverride, ...] = (jun_release,)

#: 鄉射禮: the run environment's tables (sheli/scoring/data/release.tsv, count_procedure).
XIANGSHE = Variant("xiangshe", aliases=("鄉射禮", "鄉射"))

#: 大射儀: its 數獲 (dashe:213–222) and 釋獲 (不貫不釋 dashe:185, 不鼓不釋 dashe:271) in its own
#: words; the 公 counts off the drum (dashe:273); 敖繼公's reading of dashe:203 (義疏: 拾發以將乘矢
#: 則是賓先公後) has the 賓 loose first; where the 公's missed arrow went is an assumption.
DASHE = Variant(
    "dashe",
    aliases=("大射儀", "大射"),
    release=lambda rnd, hit, on_beat: release(rnd, hit, on_beat, "release-dashe.tsv"),
    count_procedure=lambda n, side: count_procedure_in("count-dashe.tsv", n, side),
    release_overrides=(gong_release,),
    struck_release=gong_struck_release,
    upper_first_readings=frozenset({"R-she-bin-xian"}),
    assumptions={
        "E-shixing": (
            "where the 公's missed arrow went (留 short, 揚 over, 方 wide) is fixed by the arrow "
            "and the run's seed, the three equally likely; a recorded outcomes file does not "
            "give it",
            "the text names the three words (下曰留上曰揚左右曰方 dashe:202, 注 留不至也揚過去也"
            "方出旁也) but nothing of how often each happens",
        )
    },
)

#: 燕禮's archery (燕射): 鄉射禮's tables; the 君's rule is shared by every chapter.
YAN = Variant("yan", aliases=("燕禮", "燕射", "yanshe"))


def zhupi_release(rnd: int, hit: bool, on_beat: bool | None) -> tuple[bool, str]:
    """The 主皮之射 counts every arrow that strikes the hide: 主於獲 (注 xiangshe:359); it has
    neither the 正 nor the drum of a 禮射 (不待中爲雋, 其節比於樂 are the 禮射's).

    >>> zhupi_release(1, True, None), zhupi_release(3, False, None)[0]
    ((True, '主於獲 (注 xiangshe:359)'), False)
    """
    if hit:
        return True, "主於獲 (注 xiangshe:359)"
    return False, "not a 獲: the arrow did not strike the 皮 (注 xiangshe:359 主於獲)"


def zhupi_pairs(declared: int) -> list[str]:
    """The pairs the 主皮之射 forms of its 勝者 (verb 比耦): at most one 勝者 a pair stands, so
    at most half as many pairs.

    >>> zhupi_pairs(3)
    ['勝耦1']
    >>> zhupi_pairs(5)
    ['勝耦1', '勝耦2']
    """
    return [f"勝耦{i}" for i in range(1, max(1, declared // 2) + 1)]


#: 主皮之射 (記 xiangshe:359 主皮之射者勝者又射不勝者降; 注 主皮者無矦張獸皮而射之主於獲也): not a
#: 禮射 but a variant of 鄉射禮's archery run as its own rite (rite/specs/zhupi.yaml).
ZHUPI = Variant(
    "zhupi",
    aliases=("主皮之射", "主皮", "主皮射"),
    release=zhupi_release,
    whole_rite=True,
    later_groups=("勝耦",),
    later_pairs=zhupi_pairs,
)

#: Every declared variant.
VARIANTS: tuple[Variant, ...] = (XIANGSHE, DASHE, YAN, ZHUPI)


@cache
def find_variant(name: str) -> Variant:
    """The variant of a chapter, by key or alias; 鄉射禮's for a chapter without one."""
    for v in VARIANTS:
        if name == v.chapter or name in v.aliases:
            return v
    return XIANGSHE


def variant_assumptions() -> dict[str, tuple[str, str]]:
    """The assumptions of every variant, by id.

    >>> "E-shixing" in variant_assumptions()
    True
    """
    out: dict[str, tuple[str, str]] = {}
    for v in VARIANTS:
        out.update(v.assumptions)
    return out

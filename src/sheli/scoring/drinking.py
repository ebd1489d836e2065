"""飲不勝者: who drinks the 罰爵 after a count, in what order and how (xiangshe:205–220).

The losing side is a side, not a pair: every 上射 shot for the right, every 下射 for the left
(賈疏 xiangshe:186: 上射 the 賓黨, 下射 the 主黨). So in every pair one archer is 勝者 and the
other 不勝者, and each pair is called up in turn: 「一耦進揖如升射，及階勝者先升堂少右；不勝
者進北面坐取豐上之觶，興，少退，立卒觶」 (xiangshe:210–211).

The special cases, each with its passage:

- 賓, 主人 or 大夫 不勝: 「不執弓，執爵者取觶降洗升實之以授于席前，受觶以適西階上北面立飲，
  卒觶授執爵者反就席」 (xiangshe:216–218); 記 「主人亦飲于西階上」 (xiangshe:360).
- 「大夫飲則耦不升」 (xiangshe:218): the 大夫's 耦, the winner, does not go up with him; nor does
  the winner of the 賓耦, already on the 堂 (注 「以賓主人飲耦在上嫌其升」).
- 「若大夫之耦不勝則亦執弛弓特升飲」 (xiangshe:219): he goes up alone, holding the slack bow.
- 衆賓繼飲 (xiangshe:220), then 徹豐與觶.

Order: the 三耦 (「三耦卒飲」 xiangshe:216), then 賓, 主人, 大夫 (xiangshe:216–219), then the
衆賓 (xiangshe:220). Assumption: the 大夫之耦 drinks with his 大夫's pair, before the other 衆賓,
because the text treats him beside the 大夫 (xiangshe:219) and ranks him first among the
衆賓 (「大夫之耦爲上」 xiangshe:166).

>>> [d.pair + d.archer for d in drinking(3, 5, ["上耦", "次耦", "賓耦"])]
['上耦上射', '次耦上射', '賓耦上射']
>>> drinking(4, 4, ["上耦"])
[]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import msgspec

from sheli.scoring.rules import losers

_THREE = ("上耦", "次耦", "下耦")


class Drink(msgspec.Struct, frozen=True):
    """One 不勝者 drinking the 罰爵.

    ``rank`` is 三耦, 賓, 主人, 大夫, 大夫之耦 or 衆賓. ``partner_ascends``: his 耦 (the 勝者)
    goes up with him 「勝者先升堂少右」 (xiangshe:210). ``bow``: 弛弓 (xiangshe:208) or None
    (「不執弓」 xiangshe:216). ``cup``: where the 觶 comes from; ``poured_by``: who fills it.
    """

    order: int
    pair: str
    archer: str
    rank: str
    partner_ascends: bool
    bow: str | None
    cup: str
    poured_by: str
    place: str
    jing: str
    cites: tuple[str, ...]
    assumption: str | None = None

    @property
    def name(self) -> str:
        return self.pair + self.archer


def _category(pair: str) -> tuple[int, int]:
    """Sort key: 三耦 in order, then 賓耦, then 大夫耦N, then 衆耦N, then any other name."""
    if pair in _THREE:
        return (0, _THREE.index(pair))
    if pair == "賓耦":
        return (1, 0)
    if m := re.fullmatch(r"大夫耦([0-9]+)", pair):
        return (2, int(m.group(1)))
    if m := re.fullmatch(r"衆耦([0-9]+)", pair):
        return (3, int(m.group(1)))
    return (4, 0)


def rank_of(pair: str, archer: str) -> str:
    """The rank that decides how this archer drinks.

    >>> rank_of("賓耦", "下射"), rank_of("大夫耦1", "上射"), rank_of("衆耦2", "下射")
    ('主人', '大夫之耦', '衆賓')
    """
    kind = _category(pair)[0]
    if kind == 0:
        return "三耦"
    if kind == 1:
        return "賓" if archer == "上射" else "主人"
    if kind == 2:
        return "大夫" if archer == "下射" else "大夫之耦"
    return "衆賓"


def drinking(right: int, left: int, pairs: Sequence[str]) -> list[Drink]:
    """The 飲不勝者 after a count of ``right`` and ``left``, for the pairs that shot.

    Empty when 左右鈞 (see :func:`sheli.scoring.losers`). The first 觶 is poured by 「勝者之弟子」
    and set on the 豐 (xiangshe:206); after that the 執爵者 refills it for each drinker
    (「每者輒酌以至於徧」 注 xiangshe:215).

    >>> ds = drinking(9, 2, ["上耦", "大夫耦1", "賓耦"])
    >>> for d in ds: print(d.name, d.rank, d.partner_ascends, d.bow)
    上耦下射 三耦 True 弛弓
    賓耦下射 主人 False None
    大夫耦1下射 大夫 False None
    >>> [(d.name, d.partner_ascends, d.bow) for d in drinking(2, 9, ["大夫耦1"])]
    [('大夫耦1上射', False, '弛弓')]
    """
    side = losers(right, left)
    if side is None:
        return []
    archer = "上射" if side == "right" else "下射"
    ordered = sorted(enumerate(pairs), key=lambda ip: (_category(ip[1]), ip[0]))
    out: list[Drink] = []
    for _, pair in ordered:
        rank = rank_of(pair, archer)
        first = not out
        order = len(out) + 1
        if rank in ("賓", "主人", "大夫"):
            place_cites = ("xiangshe:360",) if rank == "主人" else ()
            out.append(
                Drink(
                    order,
                    pair,
                    archer,
                    rank,
                    partner_ascends=False,
                    bow=None,
                    cup="執爵者取觶降洗升實之以授于席前",
                    poured_by="執爵者",
                    place="西階上北面",
                    jing="賓主人大夫不勝則不執弓執爵者取觶降洗升實之以授于席前受觶以適西階上"
                    "北面立飲卒觶授執爵者反就席" + ("大夫飲則耦不升" if rank == "大夫" else ""),
                    cites=("xiangshe:216", "xiangshe:217", "xiangshe:218", *place_cites),
                    assumption=None
                    if rank == "大夫"
                    else "the 賓耦's winner stays on his 席 (注 xiangshe:218 「以賓主人飲耦在上」)",
                )
            )
            continue
        special = rank == "大夫之耦"
        out.append(
            Drink(
                order,
                pair,
                archer,
                rank,
                partner_ascends=not special,
                bow="弛弓",
                cup="豐上之觶",
                poured_by="勝者之弟子" if first else "執爵者",
                place="西階上北面（豐在西楹之西）",
                jing="若大夫之耦不勝則亦執弛弓特升飲"
                if special
                else "不勝者進北面坐取豐上之觶興少退立卒觶進坐奠于豐下興揖",
                cites=("xiangshe:219",)
                if special
                else ("xiangshe:208", "xiangshe:210", "xiangshe:211", "xiangshe:215"),
                assumption=None
                if rank == "三耦"
                else "衆賓繼飲 (xiangshe:220) as the 三耦 did: the 觶 on the 豐, "
                "refilled by the 執爵者"
                if rank == "衆賓"
                else "drinks at the 豐 like the other 不勝者 (「亦」), in his 大夫's turn",
            )
        )
    return out

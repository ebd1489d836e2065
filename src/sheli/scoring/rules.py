"""The rules of 釋獲, 數獲 and 告獲 as 鄉射禮 states them.

- :func:`release`: is a shot counted with a 筭, and why (xiangshe:150, 184, 186, 248, 250;
  記 xiangshe:346). The cases are the table ``data/release.tsv``.
- :func:`side_of`: 上射's 筭 go to the right, 下射's to the left (xiangshe:186, 記 347).
- :func:`count_procedure`: the 數獲 of one side, act by act (xiangshe:193–201).
- :func:`announce`: the 告獲 in the text's words (xiangshe:203–204).
- :func:`losers`: which side drinks (xiangshe:205–220).

>>> announce(19, 14)
'右賢於左二純一奇'
>>> release(2, False, None)
(False, '不貫不釋 (xiangshe:184)')
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path
from typing import Literal

import msgspec

from sheli.scoring.numerals import to_chinese

Side = Literal["right", "left"]
SIDES: tuple[Side, Side] = ("right", "left")
#: the text's names of the sides
SIDE_NAMES: dict[str, str] = {"right": "右", "left": "左"}
ARCHERS: tuple[str, str] = ("上射", "下射")

#: 二算爲純 (xiangshe:194)
PURE = 2
#: 十純則縮而委之 (xiangshe:195); 十則異之 (xiangshe:200)
PURES_PER_HEAP = 10

# the package's data files, on disk beside this module (importlib.resources costs `sheli
# run` some 13 million instructions of imports for the same paths)
DATA = Path(__file__).parent / "data"


# ---------------------------------------------------------------- 釋獲: is the hit counted?


class ReleaseRule(msgspec.Struct, frozen=True):
    """One row of ``data/release.tsv``: a case of 釋獲 with its words and cite."""

    round: int
    hit: bool | None  # None: any
    on_beat: bool | Literal["none"] | None  # None: any; "none": not recorded
    counted: bool
    reason: str
    cite: str
    note: str

    def matches(self, round: int, hit: bool, on_beat: bool | None) -> bool:
        if self.round != round or (self.hit is not None and self.hit != hit):
            return False
        if self.on_beat == "none":
            return on_beat is None
        return self.on_beat is None or self.on_beat == on_beat


def _cell(value: str) -> bool | Literal["none"] | None:
    return {"true": True, "false": False, "*": None, "none": "none"}[value]


@cache
def release_rules(table: str = "release.tsv") -> tuple[ReleaseRule, ...]:
    """The table of 釋獲 cases, read from ``sheli/scoring/data/release.tsv`` (鄉射禮's words), or
    another table of the same form (``release-dashe.tsv``: the same rules in 大射儀's words).

    >>> [r.reason for r in release_rules() if r.round == 2]
    ['若中則釋獲者坐而釋獲每一个釋一算', '不貫不釋']
    >>> [r.cite for r in release_rules("release-dashe.tsv") if r.round == 2]
    ['dashe:187', 'dashe:185']
    """
    text = (DATA / table).read_text("utf-8")
    rows = csv.reader(
        (ln for ln in text.splitlines() if ln and not ln.startswith("#")), "excel-tab"
    )
    rules = []
    for rnd, hit, beat, counted, reason, cite, note in rows:
        hit_cell = _cell(hit)
        assert hit_cell != "none", "release.tsv: hit is never 'none'"
        rules.append(
            ReleaseRule(int(rnd), hit_cell, _cell(beat), counted == "true", reason, cite, note)
        )
    return tuple(rules)


def release_rule(
    round: int, hit: bool, on_beat: bool | None, table: str = "release.tsv"
) -> ReleaseRule:
    """The row of ``release.tsv`` (or ``table``) that decides this shot.

    >>> release_rule(3, True, False).cite
    'xiangshe:248'
    >>> release_rule(3, True, False, "release-dashe.tsv").cite
    'dashe:271'
    """
    if round not in (1, 2, 3):
        raise ValueError(f"round is 1, 2 or 3, not {round!r}")
    for rule in release_rules(table):
        if rule.matches(round, hit, on_beat):
            return rule
    raise LookupError(f"release.tsv has no case for round {round}, hit {hit}, on_beat {on_beat}")


def release(
    round: int, hit: bool, on_beat: bool | None, table: str = "release.tsv"
) -> tuple[bool, str]:
    """Is this shot counted with a 筭 (釋獲)? And the reason in the text's words, with its cite.

    ``hit`` means 貫: the arrow pierced the 侯 (注 xiangshe:184 「貫猶中也」, 疏 「中者貫穿布
    矦」). ``on_beat`` (應鼓) matters only in round 3; a round-3 hit with ``on_beat=None`` is
    not counted (an assumption, see ``release.tsv``).

    >>> release(1, True, None)
    (False, '獲而未釋獲 (xiangshe:150)')
    >>> release(2, True, None)
    (True, '若中則釋獲者坐而釋獲每一个釋一算 (xiangshe:186)')
    >>> release(3, True, False)
    (False, '不鼓不釋 (xiangshe:248)')
    >>> release(3, True, True)[0]
    True
    """
    rule = release_rule(round, hit, on_beat, table)
    return rule.counted, f"{rule.reason} ({rule.cite})"


def side_of(archer: str) -> Side:
    """The side a counted hit's 筭 is laid on: 上射於右, 下射於左 (xiangshe:186; 記 347).

    賈疏: the 釋獲者 faces east; 上射 is the 賓黨 on his right, 下射 the 主黨 on his left.

    >>> side_of("上射"), side_of("下射")
    ('right', 'left')
    """
    if archer == "上射":
        return "right"
    if archer == "下射":
        return "left"
    raise ValueError(f"an archer is 上射 or 下射, not {archer!r}")


# ---------------------------------------------------------------- 告獲: the announcement


def pure_odd(n: int) -> tuple[int, int]:
    """Split a number of 筭 into 純 (two) and 奇 (one): 二算爲純, 一算爲奇 (xiangshe:194, 198).

    >>> pure_odd(5)
    (2, 1)
    """
    if n < 0:
        raise ValueError(f"a count of 筭 is never negative: {n}")
    return divmod(n, PURE)


def announce(right: int, left: int) -> str:
    """The 釋獲者's announcement to the 賓 (告獲), in the text's words.

    若右勝則曰右賢於左, 若左勝則曰左賢於右, 以純數告, 若有奇者亦曰奇; 若左右鈞 … 曰左右鈞
    (xiangshe:203–204). The number is that of the 賢獲, the winner's surplus: 「齊之而取其餘」
    (注 xiangshe:202). 鄭注 gives the form 「右賢於左若干純若干奇」; a 奇 is always one
    (賈疏: 「竒則一也一外無若干」), so it is said 一奇.

    >>> announce(19, 14)
    '右賢於左二純一奇'
    >>> announce(3, 4)
    '左賢於右一奇'
    >>> announce(10, 2)
    '右賢於左四純'
    >>> announce(7, 7)
    '左右鈞'
    """
    for name, n in (("right", right), ("left", left)):
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"{name} must be a count of 筭 (an int ≥ 0), not {n!r}")
    if right == left:
        return "左右鈞"
    head = "右賢於左" if right > left else "左賢於右"
    pure, odd = pure_odd(abs(right - left))
    return head + (f"{to_chinese(pure)}純" if pure else "") + ("一奇" if odd else "")


def winner(right: int, left: int) -> Side | None:
    """The side with more 筭 (右勝 / 左勝), or None when 左右鈞.

    >>> winner(19, 14), winner(7, 7)
    ('right', None)
    """
    if right == left:
        return None
    return "right" if right > left else "left"


def losers(right: int, left: int) -> Side | None:
    """Which side drinks the 罰爵 (飲不勝者, xiangshe:205–220): the side that did not win.

    When 左右鈞 there is no 不勝者 and so, in sheli's reading, no one drinks. This is an
    inference, not a statement of the text: 鄉射禮 gives 「若左右鈞…曰左右鈞」 (xiangshe:204) and
    goes on to 設豐 and 飲不勝者 (xiangshe:205) without a case for 鈞; the 罰爵 is 「將飲不勝者」
    (注 xiangshe:205) and presupposes a 不勝 side. Round 3 says 「以賢獲與鈞告如初…不勝者執
    弛弓升飲如初」 (xiangshe:253), again with no rule for 鈞.

    >>> losers(19, 14), losers(14, 19), losers(7, 7)
    ('left', 'right', None)
    """
    win = winner(right, left)
    if win is None:
        return None
    return "left" if win == "right" else "right"


# ---------------------------------------------------------------- 數獲: the count


CountKind = Literal["approach", "take", "gather", "lay", "set_apart"]


class CountAction(msgspec.Struct, frozen=True):
    """One act of the 釋獲者 in the 數獲 of one side.

    ``kind`` is one of

    - ``approach``: he moves to the side's 筭 (就右獲 xiangshe:193, 適左 xiangshe:199);
    - ``take``: 筭 from the ground into his left hand (右: one 純 at a time, xiangshe:195);
    - ``gather``: all the side's 筭 into the left hand at once (左: 兼歛算, xiangshe:200);
    - ``lay``: 筭 put down in the count's layout (``source`` ``hand`` or ``ground``);
    - ``set_apart``: the finished 委 of ten 純 is set apart from the next (每委異之 xiangshe:196,
      十則異之 xiangshe:200).

    ``count`` is the number of 筭 moved (0 for approach and set_apart), ``source`` and
    ``dest`` say from where to where (``ground``: where they were released; ``hand``: the left
    hand; ``heap N``: the N-th 委 of ten 純; ``rest``: the 餘純 横於下; ``odd``: the 奇),
    ``form`` how they lie (縮 east–west, 横 north–south, 注 xiangshe:195 「於數者東西爲從」).
    ``jing`` is the text it enacts and ``description`` says what is done.
    """

    kind: CountKind
    side: Side
    count: int
    source: str
    dest: str
    form: str | None
    cite: str
    jing: str
    description: str


class CountLayout(msgspec.Struct, frozen=True):
    """What lies on the ground after the count of one side (xiangshe:195–198).

    >>> count_layout(47)
    CountLayout(heaps=2, rest_pures=3, odd=1)
    >>> count_layout(47).total
    47
    """

    heaps: int  # 委 of 十純 (twenty 筭), each 縮 and set apart
    rest_pures: int  # 餘純 (fewer than ten), 横於下
    odd: int  # 0 or 1: the 奇, 縮諸純下

    @property
    def total(self) -> int:
        return self.heaps * PURES_PER_HEAP * PURE + self.rest_pures * PURE + self.odd


def count_layout(n: int) -> CountLayout:
    """The layout a count of ``n`` 筭 leaves: 委 of 十純, the 餘純, the 奇.

    >>> count_layout(19)
    CountLayout(heaps=0, rest_pures=9, odd=1)
    """
    pure, odd = pure_odd(n)
    heaps, rest = divmod(pure, PURES_PER_HEAP)
    return CountLayout(heaps, rest, odd)


def _side_check(side: str) -> Side:
    aliases: dict[str, Side] = {"right": "right", "右": "right", "left": "left", "左": "left"}
    if side not in aliases:
        raise ValueError(f"side is 'right'/'右' or 'left'/'左', not {side!r}")
    return aliases[side]


def count_procedure(n: int, side: str) -> list[CountAction]:
    """The 數獲 of one side as the 釋獲者 does it (xiangshe:193–201).

    Right (右獲) first: 「二算爲純，一純以取實于左手，十純則縮而委之，每委異之，有餘純則横於
    下，一算爲奇，奇則又縮諸純下」 (xiangshe:194–198): he takes the 筭 from the ground one 純
    at a time into his left hand; at ten 純 he lays them down 縮 as one 委, each 委 apart from
    the last; the 純 left over (fewer than ten) are laid 横 below (注 「自近爲下」); a single
    remaining 筭 is the 奇, laid 縮 below the 純.

    Left (左獲): 「坐兼歛算實于左手，一純以委，十則異之，其餘如右獲」 (xiangshe:200–201): he
    gathers all of them into the left hand at once and lays them down one 純 at a time, every
    ten set apart; the rest 「如右獲」, 注 「謂所縮所横」. 注 「變於右」: the order of hand and
    ground is reversed.

    Assumption (the text is silent): on the right, the 奇 is the one 筭 left on the ground once
    the 純 are taken, and he lays it from there; on the left it is the one left in his hand.

    >>> [(a.kind, a.count) for a in count_procedure(5, "right")]
    [('approach', 0), ('take', 2), ('take', 2), ('lay', 4), ('lay', 1)]
    >>> [(a.kind, a.count) for a in count_procedure(5, "left")]
    [('approach', 0), ('gather', 5), ('lay', 2), ('lay', 2), ('lay', 1)]
    """
    side = _side_check(side)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"a count of 筭 is an int ≥ 0, not {n!r}")
    acts = _Acts(side)
    if side == "right":
        _count_right(n, acts)
    else:
        _count_left(n, acts)
    return acts.done


class _Acts:
    """The acts of one side's count, in order: ``acts(kind, count, …)`` adds one."""

    def __init__(self, side: Side) -> None:
        self.side = side
        self.done: list[CountAction] = []

    def __call__(
        self,
        kind: CountKind,
        count: int,
        source: str,
        dest: str,
        form: str | None,
        cite: str,
        jing: str,
        desc: str,
    ) -> None:
        self.done.append(CountAction(kind, self.side, count, source, dest, form, cite, jing, desc))


def _more_after(heap: int, layout: CountLayout) -> bool:
    """Whether anything is laid after the ``heap``-th 委: only then is it set apart from the
    next (每委異之 xiangshe:196, 十則異之 xiangshe:200)."""
    return heap < layout.heaps or bool(layout.rest_pures or layout.odd)


def _count_right(n: int, act: _Acts) -> None:
    """右獲 (xiangshe:193–198): the 純 taken from the ground into the left hand one at a time,
    every ten laid down 縮 as a 委; the 純 left in the hand laid 横, the 奇 from the ground.

    >>> acts = _Acts("right")
    >>> _count_right(23, acts)
    >>> [(a.kind, a.dest) for a in acts.done if a.kind != "take"]
    [('approach', ''), ('lay', 'heap 1'), ('set_apart', 'heap 1'), ('lay', 'rest'), ('lay', 'odd')]
    """
    layout = count_layout(n)
    act(
        "approach",
        0,
        "",
        "",
        None,
        "xiangshe:193",
        "釋獲者東面于中西坐先數右獲",
        "東面坐于中西，少南就右獲（注「爲其少南就右獲」）",
    )
    in_hand = 0
    heap = 0
    for i in range(1, n // PURE + 1):
        act(
            "take",
            PURE,
            "ground",
            "hand",
            None,
            "xiangshe:195",
            "一純以取實于左手",
            f"取第{to_chinese(i)}純（二算）實于左手",
        )
        in_hand += 1
        if in_hand == PURES_PER_HEAP:
            heap += 1
            act(
                "lay",
                PURE * PURES_PER_HEAP,
                "hand",
                f"heap {heap}",
                "縮",
                "xiangshe:195",
                "十純則縮而委之",
                f"十純（二十算）縮而委之，爲第{to_chinese(heap)}委",
            )
            if _more_after(heap, layout):
                act(
                    "set_apart",
                    0,
                    "",
                    f"heap {heap}",
                    None,
                    "xiangshe:196",
                    "每委異之",
                    f"第{to_chinese(heap)}委異之（注「易校數」）",
                )
            in_hand = 0
    if in_hand:
        act(
            "lay",
            PURE * in_hand,
            "hand",
            "rest",
            "横",
            "xiangshe:197",
            "有餘純則横於下",
            f"餘{to_chinese(in_hand)}純（{to_chinese(PURE * in_hand)}算）横於下（注「自近爲下」）",
        )
    if layout.odd:
        act(
            "lay",
            1,
            "ground",
            "odd",
            "縮",
            "xiangshe:198",
            "一算爲奇奇則又縮諸純下",
            "一算爲奇，縮諸純下",
        )


def _count_left(n: int, act: _Acts) -> None:
    """左獲 (xiangshe:199–201): every 筭 gathered into the left hand at once, then laid down one
    純 at a time, 縮 in 委 of ten set apart; the rest 横 and the 奇 (from the hand) as on the
    right.

    >>> acts = _Acts("left")
    >>> _count_left(23, acts)
    >>> [(a.kind, a.dest) for a in acts.done if a.dest != "heap 1"]
    [('approach', ''), ('gather', 'hand'), ('lay', 'rest'), ('lay', 'odd')]
    """
    layout = count_layout(n)
    act(
        "approach",
        0,
        "",
        "",
        None,
        "xiangshe:199",
        "興自前適左東面",
        "興，自前適左獲，東面坐（注「起由中西就左獲少北於故」）",
    )
    if n:
        act(
            "gather",
            n,
            "ground",
            "hand",
            None,
            "xiangshe:200",
            "坐兼歛算實于左手",
            f"兼歛{to_chinese(n)}算實于左手（注「變於右」）",
        )
    laid = 0
    for i in range(1, n // PURE + 1):
        if i > layout.heaps * PURES_PER_HEAP:  # past the 委: the 餘純
            act(
                "lay",
                PURE,
                "hand",
                "rest",
                "横",
                "xiangshe:201",
                "其餘如右獲",
                "一純以委，餘純横於下（如右獲，注「謂所縮所横」）",
            )
            continue
        heap = (i - 1) // PURES_PER_HEAP + 1
        act(
            "lay",
            PURE,
            "hand",
            f"heap {heap}",
            "縮",
            "xiangshe:200",
            "一純以委",
            f"一純以委，第{to_chinese(heap)}委之"
            f"第{to_chinese((i - 1) % PURES_PER_HEAP + 1)}純（縮）",
        )
        laid += 1
        if laid == PURES_PER_HEAP:
            laid = 0
            if _more_after(heap, layout):
                act(
                    "set_apart",
                    0,
                    "",
                    f"heap {heap}",
                    None,
                    "xiangshe:200",
                    "十則異之",
                    f"十純爲第{to_chinese(heap)}委，異之",
                )
    if layout.odd:
        act(
            "lay",
            1,
            "hand",
            "odd",
            "縮",
            "xiangshe:201",
            "其餘如右獲",
            "一算爲奇，縮諸純下（如右獲）",
        )


@cache
def count_words(table: str) -> dict[tuple[str, str], tuple[str, str]]:
    """A chapter's words for the counting acts: (鄉射禮 cite, jing) → (its cite, jing), read from
    ``sheli/scoring/data/<table>`` (``count-dashe.tsv``: dashe:213–222).

    >>> count_words("count-dashe.tsv")[("xiangshe:196", "每委異之")]
    ('dashe:216', '每委異之')
    """
    text = (DATA / table).read_text("utf-8")
    rows = csv.reader(
        (ln for ln in text.splitlines() if ln and not ln.startswith("#")), "excel-tab"
    )
    return {(a, b): (c, d) for a, b, c, d in rows}


def count_procedure_in(table: str, n: int, side: str) -> list[CountAction]:
    """:func:`count_procedure` with each act citing the passage of another chapter that says the
    same (``count_words``); an act the table does not name keeps its cite.

    >>> [a.cite for a in count_procedure_in("count-dashe.tsv", 3, "right")][:2]
    ['dashe:213', 'dashe:215']
    """
    words = count_words(table)
    out = []
    for a in count_procedure(n, side):
        got = words.get((a.cite, a.jing))
        out.append(a if got is None else msgspec.structs.replace(a, cite=got[0], jing=got[1]))
    return out


def replay_count(actions: list[CountAction], n: int) -> dict[str, int]:
    """Replay a count's actions from ``n`` 筭 on the ground and return where they end.

    Every 筭 must be moved into the layout exactly once: the ground and the hand end empty and
    no place goes below zero. Used by the tests and useful to an engine that checks itself.

    >>> replay_count(count_procedure(23, "left"), 23)
    {'heap 1': 20, 'rest': 2, 'odd': 1}
    """
    places: dict[str, int] = {"ground": n, "hand": 0}
    for a in actions:
        if a.kind in ("approach", "set_apart"):
            if a.count:
                raise ValueError(f"{a.kind} moves no 筭: {a}")
            continue
        places[a.source] = places.get(a.source, 0) - a.count
        if places[a.source] < 0:
            raise ValueError(f"more 筭 taken from {a.source} than lie there: {a}")
        places[a.dest] = places.get(a.dest, 0) + a.count
    if places.pop("ground") or places.pop("hand"):
        raise ValueError("筭 left on the ground or in the hand after the count")
    return {k: v for k, v in places.items() if v}

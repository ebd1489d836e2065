"""The world state of a run (docs/architecture.md).

Everyone's place and facing, dress (袒/襲, 決遂), what each hand holds (弓 張 or 弛, arrows
搢 and 挾, 扑, 旌, 觶 …); where every object is (arrows on the 楅, at the 侯, in hand; 筭 in the
中, in the 釋獲者's hand and on the ground by side; the 旌 up or 偃).

The state is mutated in place by the verbs (:mod:`sheli.engine.verbs`); nothing is deep-copied
per step, so a run's cost is linear in its steps.

>>> p = Person("上耦上射", role="上射", pair="上耦", seat="上射")
>>> p.holds()
[]
>>> p.bow = "張"; p.jin = 3; p.xie = 1
>>> p.holds()
['張弓', '搢矢三', '挾矢一']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_NUM = "〇一二三四五六七八九十"


def _cn(n: int) -> str:
    if 0 <= n <= 10:
        return _NUM[n]
    return str(n)


_HOLDS: dict[tuple[Any, ...], list[str]] = {}
_DRESS = {
    (True, True): ["袒", "決遂"],
    (True, False): ["袒"],
    (False, True): ["襲", "決遂"],
    (False, False): ["襲"],
}


@dataclass(slots=True)
class Person:
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
    tan: bool = False  # 袒 (left arm bared)
    jue: bool = False  # 決遂 on
    posture: str = "立"
    bow: str | None = None  # None, 張, 弛
    jin: int = 0  # arrows 搢 (in the belt)
    xie: int = 0  # arrows 挾 (between the fingers)
    hand: int = 0  # arrows otherwise in hand (兼諸弣, 兼諸弦)
    pu: str | None = None  # None, 執, 搢
    items: dict[str, int] = field(default_factory=dict)  # 旌, 觶, 爵, 筭, 中 …
    cup_full: bool = False
    is_dafu: bool = False
    # obj → (verb, cite, spec line) of the act that last put it out of his hands
    let_go: dict[str, tuple[str, str, int]] = field(default_factory=dict)

    def holds(self) -> list[str]:
        """What he holds, in the text's words (for the event log and 儀注).

        Built once per distinct holding and shared: treat the list as read-only.
        """
        key = (
            self.bow,
            self.hand,
            self.jin,
            self.xie,
            self.pu,
            self.cup_full,
            tuple(self.items.items()) if self.items else (),
        )
        got = _HOLDS.get(key)
        if got is None:
            got = _HOLDS[key] = self._holds()
        return got

    def _holds(self) -> list[str]:
        out: list[str] = []
        if self.bow:
            out.append(f"{self.bow}弓")
        if self.hand:
            out.append(f"矢{_cn(self.hand)}")
        if self.jin:
            out.append(f"搢矢{_cn(self.jin)}")
        if self.xie:
            out.append(f"挾矢{_cn(self.xie)}")
        if self.pu:
            out.append("搢扑" if self.pu == "搢" else "扑")
        for k, n in self.items.items():
            if n <= 0:
                continue
            if k in ("觶", "爵"):
                out.append(f"{k}({'實' if self.cup_full else '虛'})")
            else:
                out.append(k if n == 1 else f"{k}{_cn(n)}")
        return out

    def dress(self) -> list[str]:
        """袒 or 襲, and 決遂 if worn (a shared list: read-only)."""
        return _DRESS[self.tan, self.jue]

    @property
    def arrows(self) -> int:
        return self.jin + self.xie + self.hand


@dataclass(slots=True)
class Pair:
    """A 耦: its name and its two archers (上射, 下射)."""

    name: str
    upper: str
    lower: str
    kind: str  # 三耦, 賓耦, 大夫耦, 衆耦


@dataclass(slots=True)
class Shot:
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


@dataclass
class World:
    """The whole state of a run."""

    people: dict[str, Person] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)  # 賓耦上射 → 賓 …
    pairs: dict[str, Pair] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)  # 三耦, 衆耦 … → pair names
    params: dict[str, Any] = field(default_factory=dict)
    names: dict[str, int] = field(default_factory=dict)  # archers, pairs, dafu: for counts
    round: int = 0
    # objects
    fu_set: bool = False  # 楅 設 (xiangshe:158)
    fu_loose: int = 0  # arrows on the 楅
    # each 大夫's arrows on the 楅, bound with 茅 (xiangshe:191): 大夫 → count
    fu_bound: dict[str, int] = field(default_factory=dict)
    fu_arranged: bool = False  # 乘之 (xiangshe:159)
    fu_batch: int = 0  # how many times the shot arrows were laid on the 楅
    takes: dict[tuple[int, str], dict[str, int]] = field(default_factory=dict)  # 拾取矢
    hou_arrows: int = 0  # shot, lying at the 侯
    # shot at a named 侯 (射 to: 大侯, 參侯, 干侯 — 公射大侯大夫射參士射干 dashe:129): 侯 → count
    hou_by: dict[str, int] = field(default_factory=dict)
    # shot by each 大夫, lying at the 侯 (兼束之以茅 when laid on the 楅): 大夫 → count
    hou_dafu: dict[str, int] = field(default_factory=dict)
    lost: int = 0  # 矢不備: arrows not found at the first 取矢
    short_seen: bool = False  # 乘 found the 楅 short
    zhong_set: bool = False  # 中 設 (xiangshe:183)
    zhong: int = 0  # 筭 in the 中
    pile: int = 0  # 筭 委 west of the 中 (其餘)
    ground: dict[str, int] = field(default_factory=lambda: {"right": 0, "left": 0})
    counted: dict[str, int | None] = field(default_factory=lambda: {"right": None, "left": None})
    feng_set: bool = False  # 豐 設 (xiangshe:206)
    zhi_on_feng: bool = False  # a 觶 on the 豐
    zhi_full: bool = False
    flag: str = "倚"  # the 旌: 倚 (leaning on the 侯), 執, 舉, 偃
    music: bool = False
    places: dict[tuple[str, str], int] = field(default_factory=dict)  # (obj, place) → count
    # (cup, place) → whether each cup set down there was full, the last set down last
    cup_states: dict[tuple[str, str], list[bool]] = field(default_factory=dict)
    shots: dict[tuple[int, str], dict[str, int]] = field(default_factory=dict)
    last_shot: Shot | None = None
    called: set[str] = field(default_factory=set)  # pairs 作'd this round
    tallies: list[dict[str, Any]] = field(default_factory=list)
    last_tally: dict[str, Any] | None = None
    drank: dict[int, list[str]] = field(default_factory=dict)  # 罰爵, by round
    drinks: list[tuple[int, str, str]] = field(
        default_factory=list
    )  # every drink: round, who, cite

    def person(self, name: str) -> Person | None:
        return self.people.get(self.aliases.get(name, name))

"""The 侯 in elevation: its parts from the 侯道, after 考工記 梓人 and the 鄉射記.

All lengths in 尺. The rules, each with the words it rests on:

- 侯中 (the square centre) = 2 寸 for every 弓 of the 侯道: xiangshe:374 矦道五十弓弓二寸以爲矦中;
  梓人 广与崇方 (xiangshe:373 注: 方者也). A 侯道 of 50 弓 gives a 中 of 10 尺 (中十尺, 373).
- 鵠 (or 正) one third of the 中: 梓人 参分其广而鹄居一焉 (dashe:6 注 quotes it; 疏:
  鵠居矦中三分之一).
- 躬 twice the 中: xiangshe:375 倍中以爲躳 (注: 中之上下幅).
- 上舌 (上个) twice the 躬: xiangshe:376 倍躳以爲左右舌 (注: 謂上个也).
- 下舌 half the 上舌, counted on what projects beyond the 躬: xiangshe:377 下舌半上舌 (注:
  半其出於躳者也).
- each of 躬 and 舌 is one 幅 of cloth, 2 尺 high: xiangshe:375 注 (中之上下幅); 373 疏 (幅各二尺).
- the 綱 run one 尋 (8 尺) beyond the 舌 on each side: 梓人 上纲与下纲出舌寻 (xiangshe:10 疏
  quotes it: 周禮梓人云上綱與下綱出舌尋).

>>> t = Target(50)                        # 鄉侯: 侯道 五十弓
>>> t.中, t.鵠 == t.中 / 3, t.躬, t.上舌, t.下舌, t.cloth
(10.0, True, 20.0, 40.0, 30.0, 160.0)
>>> Target(90).中, Target(90).cloth       # 377 注: 道九十弓之矦用布三十六丈
(18.0, 360.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

# Lengths the text fixes, in 尺.
弓 = 6.0  # 弓之下制六尺 (xiangshe:374 疏)
寸_PER_弓 = 0.2  # 弓二寸以爲矦中 (xiangshe:374)
幅 = 2.0  # 幅各二尺 (xiangshe:373 疏)
尋 = 8.0  # 八尺曰尋 (xiangshe:372 注)
武 = 1.2  # 中人之迹尺二寸 (xiangshe:10 注); 下綱不及地武

SOURCES: dict[str, str] = {
    "中": "xiangshe:374 (矦道五十弓弓二寸以爲矦中); xiangshe:373 (中十尺, 注: 方者也)",
    "鵠": "seed001 考工記 梓人 (参分其广而鹄居一焉); dashe:6 疏 (鵠居矦中三分之一)",
    "躬": "xiangshe:375 (倍中以爲躳; 注: 中之上下幅也)",
    "上舌": "xiangshe:376 (倍躳以爲左右舌; 注: 謂上个也)",
    "下舌": "xiangshe:377 (下舌半上舌; 注: 半者半其出於躳者也)",
    "幅": "xiangshe:373 疏 (幅各二尺)",
    "綱": "seed001 考工記 梓人 (上纲与下纲出舌寻); xiangshe:10 疏 (周禮梓人云上綱與下綱出舌尋)",
    "武": "xiangshe:10 (下綱不及地武; 注: 武迹也中人之迹尺二寸)",
    "張法": "dashe:6 (大矦之崇見鵠於參參見鵠於干干不及地武)",
}


@dataclass(frozen=True)
class Band:
    """One horizontal strip of the 侯: name, width and height in 尺, bottom edge above the
    侯's lower edge."""

    name: str
    width: float
    height: float
    bottom: float


@dataclass(frozen=True)
class Target:
    """A 侯 for a 侯道 of ``dao`` 弓, with its mark (鵠, 五正, 三正, 二正 or 畫獸).

    >>> Target(70).鵠                    # dashe:6 注: 糝矦之鵠方四尺六寸大半寸
    4.666666666666667
    """

    dao: float
    mark: str = "鵠"
    name: str = ""
    # The mark as a fraction of the 中: 1/3 after 梓人 (the default reading, hu-size.zheng-xuan);
    # 鄭眾 and 馬融 have 2/5 with a 正 of 1/5 inside (hu-size.zheng-zhong, in ranks.yaml).
    hu_fraction: Fraction = Fraction(1, 3)
    inner_fraction: Fraction | None = None
    # the 質 of a 獸侯, the colour of its 地 (注 xiangshe:336 白質赤質皆謂采其地); None: 布
    ground: str | None = None

    @property
    def 中(self) -> float:
        return self.dao * 寸_PER_弓

    @property
    def 鵠(self) -> float:
        """The side of the 鵠 (or 正, or the painted head): a third of the 中 by default."""
        f = self.hu_fraction
        return self.中 * f.numerator / f.denominator

    @property
    def 內正(self) -> float | None:
        """The side of a 正 inside the 鵠, on the reading that has one (鄭眾, 馬融)."""
        f = self.inner_fraction
        return None if f is None else self.中 * f.numerator / f.denominator

    @property
    def 躬(self) -> float:
        return 2 * self.中

    @property
    def 上舌(self) -> float:
        return 2 * self.躬

    @property
    def 下舌(self) -> float:
        # 半其出於躳者: the 躬 plus half of what the 上舌 projects beyond it
        return self.躬 + (self.上舌 - self.躬) / 2

    @property
    def 綱(self) -> float:
        """The span of the 綱: the 上舌 and one 尋 beyond it on each side."""
        return self.上舌 + 2 * 尋

    @property
    def height(self) -> float:
        """From the 下舌's lower edge to the 上舌's upper edge: 中 and four 幅."""
        return self.中 + 4 * 幅

    @property
    def cloth(self) -> float:
        """Cloth used, as a length of one 幅 in 尺 (377 注: 凡鄉矦用布十六丈)."""
        return sum(b.width * b.height for b in self.bands()) / 幅

    def bands(self) -> list[Band]:
        """The strips from the ground up: 下舌, 下躬, 中, 上躬, 上舌."""
        sizes = [
            ("下舌", self.下舌, 幅),
            ("下躬", self.躬, 幅),
            ("中", self.中, self.中),
            ("上躬", self.躬, 幅),
            ("上舌", self.上舌, 幅),
        ]
        out, y = [], 0.0
        for name, w, h in sizes:
            out.append(Band(name, w, h, y))
            y += h
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "侯道_弓": self.dao,
            "侯道_尺": self.dao * 弓,
            "mark": self.mark,
            "中": self.中,
            "鵠": self.鵠,
            "內正": self.內正,
            "躬": self.躬,
            "上舌": self.上舌,
            "下舌": self.下舌,
            "綱": self.綱,
            "height": self.height,
            "cloth": self.cloth,
            "ground": self.ground,
            "sources": SOURCES,
        }


def raised(targets: list[Target]) -> list[float]:
    """Height above the ground of each 侯's lower edge when they are hung as in 大射儀.

    ``targets`` farthest first (大侯, 參, 干). The nearest hangs 一武 up (干不及地武); each
    farther one so high that its 鵠 shows just above the nearer one (大矦之崇見鵠於參參見鵠於干,
    dashe:6): its 鵠's lower edge level with the top of the nearer 侯.

    >>> [round(h, 4) for h in raised([Target(90), Target(70), Target(50)])]
    [22.5333, 10.5333, 1.2]

    dashe:6 注: 糝矦去地一丈五寸少半寸, 大矦去地二丈二尺五寸少半寸.
    """
    heights: list[float] = [0.0] * len(targets)
    below: Target | None = None
    below_h = 0.0
    for i in range(len(targets) - 1, -1, -1):
        t = targets[i]
        if below is None:
            h = 武
        else:
            # lower edge to the 鵠's lower edge: 下舌 and 下躬 (two 幅) and the 中 under the 鵠
            h = below_h + below.height - (2 * 幅 + (t.中 - t.鵠) / 2)
        heights[i] = h
        below, below_h = t, h
    return heights

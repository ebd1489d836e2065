"""The diagram's sizes, colours and fonts, and the numbers and text boxes of its SVG
(docs/diagrams.md).

Numbers are written as short as they read (two decimals at most), and long text is wrapped
to the width it is given:

>>> _f(1.0), _f(2.345), _f(-0.5)
('1', '2.35', '-0.5')
>>> _wrap("射禮" * 20, 12.0, 100.0)[0]
'射禮射禮射禮射禮'
"""

from __future__ import annotations

import math
from functools import lru_cache

from sheli.outputs.labels import (
    Box,
    text_width,
)

SVG_NS = "http://www.w3.org/2000/svg"

#: Unit vectors of the facings, x east, y north (plan coordinates).
_S2 = math.sqrt(0.5)
FACING: dict[str, tuple[float, float]] = {
    "N": (0.0, 1.0),
    "S": (0.0, -1.0),
    "E": (1.0, 0.0),
    "W": (-1.0, 0.0),
    "NE": (_S2, _S2),
    "NW": (-_S2, _S2),
    "SE": (_S2, -_S2),
    "SW": (-_S2, -_S2),
}

#: The views: the part of the plan each shows, in 尺 (x0, y0, x1, y1; y north).
#: "hall": the 堂 and the near 庭 down to the line of the 洗, 楅 and 中 and the 射位;
#: "range": the whole 侯道, from the back of the 堂 to the 門 behind the 侯 and four 步 outside it.
VIEWS: dict[str, tuple[float, float, float, float]] = {
    "hall": (-50.0, -56.0, 50.0, 36.0),
    "range": (-50.0, -338.0, 50.0, 36.0),
}

GATE_MARGIN = 24.0  # 尺 shown outside the 門 in the range view: four 步, for those who wait there
FONT = "'Noto Serif CJK TC','Noto Sans CJK TC','Noto Serif CJK SC','Source Han Serif',serif"
NAME_SIZE = 12.0  # px, a person's label
HOLD_SIZE = 10.0  # px, the second line (holds)
CROWD = 12  # more people than this at one point are labelled together, as one group
ROW_MAX = 6  # people drawn side by side in one rank of a row before the next rank
SAYS_SIZE = 12.0  # px, the words spoken, under the speaker's name
FIX_SIZE = 10.0  # px, fixture labels
HEAD = 104.0  # px, the header band (cite, 經 in two lines, words spoken, state of things)
MARGIN = 12.0
INSET_W = 150.0  # px, the column of the whole-range inset (hall view)
INSET_MIN_WIDTH = 600  # below this canvas width the hall view has no inset
#: Arrows of each kind (hits, misses) drawn at a 侯 on the inset: at its scale (about 1 px to
#: the 尺) more only overlap, and with 衆耦 a round leaves hundreds there; its label counts all.
INSET_MARKS = 24


def _inset_w(width: int) -> float:
    return INSET_W if width >= INSET_MIN_WIDTH else 0.0


_DRESS_COLOUR = "#d9a066"  # the bared arm (袒)
_ACTOR = "#c0392b"
_PATH = "#2471a3"


def _f_uncached(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".") if v != int(v) else str(int(v))


#: ``_f``'s results by value. A pure function of the value: numbers that compare equal
#: (``0.0`` and ``-0.0``, ``3`` and ``3.0``) format the same, so the cache cannot change what
#: is written, only how fast. Cleared when it grows large (never keyed on history).
_F_CACHE: dict[float, str] = {}
_F_CACHE_MAX = 1 << 18


def _f(v: float) -> str:
    """A number for SVG: at most 2 decimals, no trailing zeros (``3``, ``2.5``, ``-1.25``)."""
    s = _F_CACHE.get(v)
    if s is None:
        s = _f_uncached(v)
        if len(_F_CACHE) >= _F_CACHE_MAX:
            _F_CACHE.clear()
        _F_CACHE[v] = s
    return s


def _box_attr(b: Box) -> str:
    return f'data-box="{_f(b.x0)} {_f(b.y0)} {_f(b.x1)} {_f(b.y1)}"'


class _Canvas:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.fixture_boxes: list[Box] = []

    def add(self, s: str) -> None:
        self.parts.append(s)


def _wrap(text: str, size: float, width: float) -> list[str]:
    return list(_wrap_cached(text, size, width))


@lru_cache(maxsize=4096)
def _wrap_cached(text: str, size: float, width: float) -> tuple[str, ...]:
    """``_wrap``, remembered: the 經 words of a passage head many steps."""
    return tuple(_wrap_uncached(text, size, width))


def _wrap_uncached(text: str, size: float, width: float) -> list[str]:
    lines, cur = [], ""
    for ch in text:
        if text_width(cur + ch, size) > width:
            lines.append(cur)
            cur = ""
        cur += ch
    if cur:
        lines.append(cur)
    return lines

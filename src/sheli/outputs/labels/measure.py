"""A label's size, estimated: text widths, lines, boxes (no font engine)."""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

#: Line height in em.
LINE_HEIGHT = 1.25


# Latin letters as the diagrams' first font (Noto Serif CJK TC) draws them, in em, rounded
# up to 0.05 (measured in Chromium): an English label is as wide as its letters.
_LATIN = dict(
    zip(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
        map(
            float,
            ".6 .65 .55 .65 .55 .4 .6 .7 .35 .35 .65 .35 1 .7 .6 .65 .65 .5 .5 .4 .65 .55 .85 .6"
            " .55 .5 .75 .7 .7 .8 .65 .65 .75 .85 .4 .4 .75 .65 1 .8 .8 .65 .8 .75 .6 .7 .8 .75"
            " 1.05 .7 .7 .6".split(),
        ),
        strict=True,
    )
)


def _em(ch: str) -> float:
    """Width of one character in em: 1 for wide and full-width (CJK), a Latin letter its
    own, else 0.6.

    >>> _em("射"), _em("m"), _em("i"), _em("1")
    (1.0, 1.0, 0.35, 0.6)
    """
    latin = _LATIN.get(ch)
    if latin is not None:
        return latin
    return 1.0 if unicodedata.east_asian_width(ch) in ("W", "F", "A") else 0.6


@lru_cache(maxsize=4096)
def text_width(text: str, size: float) -> float:
    """Estimated width in px of ``text`` at font size ``size`` (CJK glyph = 1 em)."""
    return round(sum(_em(c) for c in text) * size, 3)


#: The space between two runs of one line, in em of the smaller run.
RUN_GAP = 0.3


def line_width(runs: list[tuple[str, float]]) -> float:
    """Width in px of a line of runs (text, size), with ``RUN_GAP`` between runs.

    >>> line_width([("司射", 12), ("張弓", 10)])
    47.0
    """
    w = sum(text_width(t, s) for t, s in runs)
    w += sum(RUN_GAP * min(a[1], b[1]) for a, b in itertools.pairwise(runs))
    return round(w, 3)


@dataclass(frozen=True, slots=True)
class Box:
    """An axis-aligned box in px, screen coordinates (y down)."""

    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box, gap: float = 0.0) -> bool:
        """True if the interiors overlap (boxes that only touch do not)."""
        return (
            self.x0 < other.x1 + gap
            and other.x0 < self.x1 + gap
            and self.y0 < other.y1 + gap
            and other.y0 < self.y1 + gap
        )

    def inside(self, other: Box) -> bool:
        return (
            self.x0 >= other.x0
            and self.y0 >= other.y0
            and self.x1 <= other.x1
            and self.y1 <= other.y1
        )


@dataclass(slots=True)
class Label:
    """A label to place: its lines, each a list of runs (text, font size) set side by side
    with a space of 0.3 em between; the anchor point (px) and the radius of the thing it
    names (the first ring of candidates starts just outside it).

    After placement ``box`` is set, and ``leader`` is True where the label stands away from
    its anchor and needs a leader line."""

    key: str
    lines: Sequence[Sequence[tuple[str, float]]]
    ax: float
    ay: float
    r: float = 4.0
    box: Box | None = None
    leader: bool = False
    _size: tuple[float, float] | None = field(default=None, repr=False, compare=False)

    @property
    def size(self) -> tuple[float, float]:
        """(width, height) in px: the widest line, the lines' heights, and a little padding."""
        if self._size is None:
            self._size = size_of(tuple(tuple(line) for line in self.lines))
        return self._size


@lru_cache(maxsize=8192)
def size_of(lines: tuple[tuple[tuple[str, float], ...], ...]) -> tuple[float, float]:
    w = max((line_width(list(line)) for line in lines), default=0.0)
    h = sum(max(s for _, s in line) * LINE_HEIGHT for line in lines if line)
    return (w + 4.0, h + 2.0)  # 2 px of padding each side across, 1 up and down

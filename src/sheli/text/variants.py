"""Variant characters: normalisation, folding for search and comparison, simplified display.

Two reviewed tables drive this module, both in ``sheli/text/data``:

- ``normalise.tsv``: pure graphic variants (賔→賓, 矦→侯, 歩→步 …) and the one standard
  traditional form the canonical text uses for each. :func:`normalise` applies it.
- ``variants.tsv``: textual distinctions (于/於, 个/個, 算/筭, 閒/間 …) that the text keeps
  as written and that are folded only for comparison and search.

:func:`fold` turns a string into a *folding key*: every form of a group, every graphic
variant and every simplified/traditional pair map to one character, position by position
(the key has the same length as the string, so a match in the key is a match in the text).
A key is for comparing, never for display.

>>> fold("不鼓不释") == fold("不鼔不釋")
True
>>> fold("閒若一") == fold("间若一")
True
>>> normalise("賔岀迎")
'賓出迎'
>>> to_simplified("鄉射之禮")
'乡射之礼'
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    import opencc


__all__ = [
    "Normalisation",
    "VariantGroup",
    "fold",
    "fold_char",
    "normalisations",
    "normalise",
    "to_simplified",
    "to_traditional",
    "variant_groups",
]

# the package's data files, on disk beside this module (importlib.resources costs `sheli
# run` some 13 million instructions of imports for the same paths)
DATA = Path(__file__).parent / "data"


class Normalisation(msgspec.Struct, frozen=True):  # a struct: see sheli.text.model
    """One row of normalise.tsv: a graphic variant and the standard form replacing it."""

    source: str
    target: str
    note: str


class VariantGroup(msgspec.Struct, frozen=True):
    """One row of variants.tsv: forms folded together for search, never rewritten."""

    forms: tuple[str, ...]
    note: str


def _rows(name: str) -> list[list[str]]:
    """Read a data TSV: skip ``#`` comments and the header row, split on tabs."""
    text = (DATA / name).read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    return [ln.split("\t") for ln in lines[1:]]


@functools.cache
def normalisations() -> tuple[Normalisation, ...]:
    """The reviewed graphic-variant table.

    >>> any(n.source == "矦" and n.target == "侯" for n in normalisations())
    True
    """
    return tuple(
        Normalisation(r[0], r[1], r[2] if len(r) > 2 else "") for r in _rows("normalise.tsv")
    )


@functools.cache
def variant_groups() -> tuple[VariantGroup, ...]:
    """The reviewed table of textual variant groups.

    >>> [g.forms for g in variant_groups() if "于" in g.forms]
    [('于', '於')]
    """
    return tuple(
        VariantGroup(tuple(r[0].split()), r[1] if len(r) > 1 else "") for r in _rows("variants.tsv")
    )


@functools.cache
def _normal_map() -> dict[str, str]:
    return {n.source: n.target for n in normalisations()}


def normalise(s: str) -> str:
    """Replace graphic variants by the standard traditional form (normalise.tsv only).

    Textual variants (于/於 …) are left alone.

    >>> normalise("爲於矦")
    '為於侯'
    """
    table = _normal_map()
    return "".join(table.get(c, c) for c in s)


@functools.cache
def _t2s() -> opencc.OpenCC:
    import opencc  # deferred: its tables load only when simplified forms are asked for

    return opencc.OpenCC("t2s")


@functools.cache
def _s2t() -> opencc.OpenCC:
    import opencc  # deferred: as _t2s

    return opencc.OpenCC("s2t")


def to_simplified(s: str) -> str:
    """Simplified characters for display and search (OpenCC t2s). Never the canonical form.

    >>> to_simplified("司射遂適階閒")
    '司射遂适阶闲'
    """
    return _t2s().convert(s)


def to_traditional(s: str) -> str:
    """Traditional characters through OpenCC s2t, then normalise.tsv.

    OpenCC cannot know the text's choice where one simplified character stands for
    several traditional ones (后/後, 于/於, 干/幹 …): compare with :func:`fold` instead.

    >>> to_traditional("乡射之礼")
    '鄉射之禮'
    """
    return normalise(_s2t().convert(s))


@functools.cache
def _group_map() -> dict[str, str]:
    """Every member of a fold group, in any script, → one representative character."""
    # Union-find over characters: groups, normalisations, and each char's t2s form.
    parent: dict[str, str] = {}

    def find(c: str) -> str:
        while parent.get(c, c) != c:
            c = parent[c]
        return c

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra

    pairs: list[tuple[str, str]] = []
    for g in variant_groups():
        pairs += [(g.forms[0], f) for f in g.forms[1:]]
    pairs += [(n.target, n.source) for n in normalisations()]
    for a, b in pairs:
        union(a, b)
    members = {c for pair in pairs for c in pair}
    for c in members:
        s = _t2s().convert(c)
        if len(s) == 1:
            union(c, s)
    return {c: find(c) for c in {*members, *parent}}


@functools.cache
def fold_char(c: str) -> str:
    """The folding key of one character.

    Characters outside any group fold by their simplified form, so 釋 and 释 agree.

    >>> fold_char("於") == fold_char("于")
    True
    """
    groups = _group_map()
    if c in groups:
        return groups[c]
    s = _t2s().convert(c)
    if len(s) != 1:
        return c
    return groups.get(s, s)


def fold(s: str) -> str:
    """A folding key for comparison and search, the same length as ``s``.

    >>> fold("豫則鉤楹內") == fold("序则钩楹内")
    True
    >>> fold("射中則釋獲")
    '射中则释获'
    """
    return "".join(fold_char(c) for c in s)

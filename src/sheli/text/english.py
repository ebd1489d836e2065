"""The 經 and 記 in English: sheli's own plain translation of every passage.

One file per chapter, ``data/en/<key>.tsv`` (columns ``passage, english, reading``): the
translation was made for the project and follows 鄭注 where the sense is disputed; ``reading``
names the commentary followed (``鄭: …``) and why. Terms are translated as in the glossary
(``sheli/data/glossary.yaml``).

>>> t = english("xiangshe:248")
>>> t.text.startswith("The director of archery then goes between the steps")
True
>>> t.reading.startswith("鄭:")
True
>>> len(load_english("鄉射禮")) == len(load_chapter("xiangshe").passages)
True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

from sheli.text.corpus import CHAPTER_KEYS, chapter_key, load_chapter, parse_id

__all__ = ["Translation", "english", "load_english", "section_english"]


@dataclass(frozen=True)
class Translation:
    """The English of one passage and the reading it follows (empty when the text is plain)."""

    passage: str  # passage id, e.g. "xiangshe:247"
    text: str
    reading: str = ""


@functools.cache
def _load(key: str) -> dict[int, Translation]:
    f = resources.files("sheli.text").joinpath("data", "en", f"{key}.tsv")
    out: dict[int, Translation] = {}
    if not f.is_file():
        return out
    lines = [ln for ln in f.read_text("utf-8").splitlines() if ln and not ln.startswith("#")]
    for ln in lines[1:]:  # the first is the column header
        pid, text, reading = [*ln.split("\t"), ""][:3]
        chapter, n = pid.split(":")
        if chapter != key or int(n) in out:
            raise RuntimeError(f"data/en/{key}.tsv: {pid} is out of place or repeated")
        out[int(n)] = Translation(pid, text, reading)
    return out


def load_english(chapter: str) -> dict[int, Translation]:
    """The translation of a chapter (by key or name): passage number → Translation.

    >>> load_english("燕禮")[1].passage
    'yan:1'
    """
    return _load(chapter_key(chapter))


def english(pid: str) -> Translation | None:
    """The English of the passage ``pid``, or None where it has none yet.

    >>> english("dashe:202").text
    'Low, he says "short" (留); high, "over" (揚); to left or right, "wide" (方).'
    """
    key, n = parse_id(pid)
    return _load(key).get(n)


@functools.cache
def _sections() -> dict[tuple[str, int], str]:
    f = resources.files("sheli.text").joinpath("data", "en", "sections.tsv")
    lines = [ln for ln in f.read_text("utf-8").splitlines() if ln and not ln.startswith("#")]
    out: dict[tuple[str, int], str] = {}
    for ln in lines[1:]:  # the first is the column header
        chapter, n, text = ln.split("\t")
        out[chapter, int(n)] = text
    return out


def section_english(chapter: str, n: int) -> str | None:
    """The topic of 賈疏's section ``n`` of a chapter (by key or name) in English, sheli's
    translation (``data/en/sections.tsv``), or None where it has none.

    >>> section_english("xiangshe", 13), section_english("鄉射禮", 99)
    ('The three rounds of shooting', None)
    """
    return _sections().get((chapter_key(chapter), n))


def missing() -> list[str]:
    """Passage ids of the three chapters that have no English (empty when all are done).

    >>> missing()
    []
    """
    return [p.id for k in CHAPTER_KEYS for p in load_chapter(k).passages if p.n not in _load(k)]

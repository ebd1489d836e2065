"""Find passages whatever the form of the query: traditional, simplified or variant.

Query and text are compared through :func:`sheli.text.variants.fold`, which keeps
positions, so a hit's span indexes the passage's own text.

>>> [h.pid for h in search("不鼓不释")]
['xiangshe:248', 'dashe:271']
>>> sorted({h.passage.chapter for h in search("間若一")})
['dashe', 'xiangshe']
>>> h = search("不鼓不释", ["xiangshe"])[0]
>>> h.passage.text[h.span[0] : h.span[1]]
'不鼓不釋'
"""

from __future__ import annotations

import bisect
import functools
import unicodedata
from dataclasses import dataclass

from sheli.errors import SheliError
from sheli.text.corpus import CHAPTER_KEYS, chapter_key, load_chapter
from sheli.text.model import Passage
from sheli.text.variants import fold

__all__ = ["EmptyQuery", "Hit", "clean_query", "search"]


class EmptyQuery(SheliError, ValueError):
    """A query with no characters to look for."""


@dataclass(frozen=True)
class Hit:
    """A passage holding the query; ``span`` is the first match, ``spans`` all of them.

    Passage boundaries fall where the commentary is inserted, not where a sentence ends,
    so a match may run on into the next passage(s): ``through`` is then the id of the
    passage where it ends, and its span runs to the end of this passage's text.
    """

    pid: str
    passage: Passage
    span: tuple[int, int]
    spans: tuple[tuple[int, int], ...]
    through: str | None = None


def clean_query(query: str) -> str:
    """Drop what the text does not contain: spaces and punctuation (，。、「」 …).

    >>> clean_query(" 不鼓，不釋。")
    '不鼓不釋'
    """
    return "".join(c for c in query if unicodedata.category(c)[0] in "LN")


@functools.cache
def _folded(key: str) -> tuple[str, tuple[int, ...]]:
    """The chapter's folded text run together, and where each passage starts in it."""
    starts, pos = [], 0
    for p in load_chapter(key).passages:
        starts.append(pos)
        pos += len(p.text)
    return "".join(fold(p.text) for p in load_chapter(key).passages), tuple(starts)


def search(query: str, chapters: list[str] | None = None) -> list[Hit]:
    """Passages containing ``query`` after folding, in text order (鄉射, 燕, 大射).

    ``chapters`` limits the search (keys or names); an empty query raises EmptyQuery.
    A match may cross a passage boundary (see :class:`Hit`).

    >>> [(h.pid, h.through) for h in search("不鼓不釋上射揖", ["鄉射禮"])]
    [('xiangshe:248', 'xiangshe:249')]
    """
    q = clean_query(query)
    if not q:
        raise EmptyQuery(f"the query {query!r} has no characters to search for")
    fq = fold(q)
    keys = [chapter_key(c) for c in chapters] if chapters else list(CHAPTER_KEYS)
    hits = []
    for key in keys:
        passages = load_chapter(key).passages
        text, starts = _folded(key)
        found: dict[int, list[tuple[int, int]]] = {}
        through: dict[int, int] = {}
        i = text.find(fq)
        while i >= 0:
            k = bisect.bisect_right(starts, i) - 1
            last = bisect.bisect_right(starts, i + len(fq) - 1) - 1
            a = i - starts[k]
            found.setdefault(k, []).append((a, min(a + len(fq), len(passages[k].text))))
            if last != k:
                through.setdefault(k, last)
            i = text.find(fq, i + 1)
        for k, spans in found.items():
            p = passages[k]
            end = through.get(k)
            hits.append(Hit(p.id, p, spans[0], tuple(spans), passages[end].id if end else None))
    return hits

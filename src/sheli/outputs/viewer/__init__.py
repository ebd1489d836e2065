"""The HTML viewer's assets: ``index.html.tmpl``, ``viewer.css`` and ``viewer.js``, and what
the viewer's data needs from the text layer (each note once, the step's words in their passage).

They are plain files so that a reader can open and edit them; :mod:`sheli.outputs.render`
reads them with :func:`asset` and inlines them into one self-contained ``index.html``.

>>> "<!doctype html>" in asset("index.html.tmpl").lower()
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from importlib import resources
from typing import Any

from sheli.text.align import fold_text


def asset(name: str) -> str:
    """The text of one asset of this package (UTF-8).

    >>> "requestAnimationFrame" in asset("viewer.js")
    True
    """
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


# What two transcriptions of one note may differ by and still be one note: punctuation and
# spaces (one seed punctuates, the other does not). Variant forms are folded as for search.
_UNPUNCTUATED = re.compile(r"[\s，。、；：？！「」『』〈〉《》（）○·,.;:?!()]")


def same_note_key(kind: str, text: str) -> tuple[str, str]:
    """The key by which two notes are the same note: their kind, and their text folded
    (:func:`sheli.text.align.fold_text`: 閒/間, 於/于 …) without punctuation.

    >>> same_note_key("注", "中猶閒也。") == same_note_key("注", "中猶間也")
    True
    >>> same_note_key("注", "誘猶教也") == same_note_key("疏", "誘猶教也")
    False
    """
    return kind, _UNPUNCTUATED.sub("", fold_text(text))


def distinct_notes(notes: Iterable[Any]) -> list[tuple[str, str, str]]:
    """``(editions, kind, text)`` of each note once, in the order given: a note that two
    editions give alike (:func:`same_note_key`) is shown as the first gives it, with both
    editions named (``seed:000、seed:004``).

    >>> from types import SimpleNamespace as N
    >>> distinct_notes([N(edition="seed:000", kind="注", text="誘猶教也。"),
    ...                 N(edition="seed:004", kind="注", text="誘猶教也"),
    ...                 N(edition="seed:000", kind="疏", text="釋曰")])
    [('seed:000、seed:004', '注', '誘猶教也。'), ('seed:000', '疏', '釋曰')]
    """
    out: dict[tuple[str, str], list[str]] = {}
    for n in notes:
        entry = out.setdefault(same_note_key(n.kind, n.text), [n.edition, n.kind, n.text])
        if n.edition not in entry[0].split("、"):
            entry[0] += f"、{n.edition}"
    return [(e, k, t) for e, k, t in out.values()]


def words_span(text: str, words: str | None) -> list[int] | None:
    """Where ``words`` (a step's 經 words) stand in ``text`` (its passage) as ``[at, length]``
    when they are there only in another form (竝/並, 矦/侯, 衆/眾: the text layer's folding,
    :func:`sheli.text.align.fold_text`, which keeps the length); None when they are there
    as written (the viewer finds them itself) or not at all.

    >>> words_span("乃張矦下綱", "張侯")  # 乃 is at 0
    [1, 2]
    >>> words_span("乃張侯下綱", "張侯") is None, words_span("乃張侯", "射") is None
    (True, True)
    """
    if not words or words in text:
        return None
    at = fold_text(text).find(fold_text(words))
    return None if at < 0 else [at, len(words)]

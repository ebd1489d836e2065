"""The one base of every error a user can cause: :class:`SheliError`.

A spec that cannot be run, an outcomes file with a bad line, a venue or a reading the rite
does not have, a passage the text does not hold, a file too large to read: each is raised as
a subclass of :class:`SheliError` whose message is one line naming what is wrong (the file,
the line, the passage, the choices there are). The ``sheli`` program catches it in one place
and prints that line (``sheli COMMAND: …``, exit 2) rather than a traceback; a library
caller catches it, or one of its subclasses, as it needs.

:func:`did_you_mean` gives the nearest names to a misspelt one, for those messages.

The subclasses keep the bases their callers already catch as well: an outcomes file's error
is still a :class:`ValueError`, a file too large to read an :class:`OSError`. Nothing here
imports another module of sheli, so every layer may raise it.

>>> from sheli.scoring.outcomes import OutcomesError
>>> err = OutcomesError("a.csv", 3, "arrow must be 1–4, not 5")
>>> isinstance(err, SheliError), isinstance(err, ValueError), str(err)
(True, True, 'a.csv:3: arrow must be 1–4, not 5')
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["SheliError", "did_you_mean", "nearest"]


class SheliError(Exception):
    """An error a user can cause (a spec, a data file, a choice, a query, a file to read or
    write): its message is one line that says what is wrong and, where it can, what would be
    right.

    >>> try:
    ...     raise SheliError("no venue 'xei'; did you mean xie?")
    ... except SheliError as e:
    ...     print(e)
    no venue 'xei'; did you mean xie?
    """


def nearest(word: str, names: Iterable[str], n: int = 2) -> list[str]:
    """The (at most ``n``) names nearest ``word``, nearest first; [] when none is near.

    >>> nearest("xei", ["xie", "xiang", "qin"]), nearest("castle", ["xie"])
    (['xie'], [])
    """
    return difflib.get_close_matches(word, list(names), n=n, cutoff=0.6)


def did_you_mean(word: str, names: Iterable[str]) -> str:
    """``; did you mean X?`` for the names nearest ``word``, or ''.

    >>> did_you_mean("xei", ["xie", "xiang", "qin"])
    '; did you mean xie?'
    >>> did_you_mean("castle", ["xie", "xiang"])
    ''
    """
    near = nearest(word, names)
    return f"; did you mean {' or '.join(near)}?" if near else ""

"""What the last drawings drew, taken again when drawn from the very same objects: a cache, it
changes only the time taken.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any

from sheli.outputs.labels import (
    Label,
)


def _changed(old: list[Any] | None, new: list[Any]) -> list[int] | None:
    """Where ``new`` holds another object than ``old`` (by identity), or None if their
    lengths differ: a step makes new objects for one person or a few, so what was drawn of
    the others can be kept.

    >>> a, b, c = object(), object(), object()
    >>> _changed([a, b], [a, c]), _changed([a, b], [a, b]), _changed([a], [a, b])
    ([1], [], None)
    """
    for o, n, got in _CHANGED:
        if o is old and n is new:
            return got
    if old is None or len(old) != len(new):
        return None
    got = list(itertools.compress(range(len(new)), map(operator.is_not, old, new)))
    _knew_changed(old, new, got)
    return got


#: The last answers of ``_changed`` (not to be changed by its callers), each with its two
#: lists, so that an identity cannot be another list's: a step asks it of the same lists
#: several times (the bodies, their layout, the inset's dots, the walks), and ``_bodies``
#: gives the answer for the list it makes as it makes it. It changes only the time taken.
_CHANGED: list[tuple[Any, Any, list[int] | None]] = []
_CHANGED_MAX = 4


def _knew_changed(old: list[Any], new: list[Any], got: list[int]) -> None:
    """Keep ``got`` as ``_changed(old, new)``."""
    _CHANGED.insert(0, (old, new, got))
    del _CHANGED[_CHANGED_MAX:]


class _Memo:
    """What the last drawings drew, to be taken again when what it was drawn from is the
    very same objects: consecutive frames share most of them (a frame makes a new
    ``Person`` only for the step's actor and new ``Objects`` only when a thing changed),
    and comparing objects by identity costs much less than hashing their values for the
    caches keyed on values. Each entry holds the objects it was drawn from, so they stay
    alive and an identity can never be another object's. It changes only the time taken.
    """

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Forget every drawing."""
        # each by the view's name: a run goes back and forth between the hall view and the
        # range view (the 獲者 at the 乏), and each view's drawing is taken again on return
        self.things: dict[str, tuple[Any, ...]] = {}  # view name → (venue, view, objects, drawn)
        self.people: dict[str, tuple[Any, ...]] = {}  # view name → (view, r, row, people, …)
        # view name → actor → (person, view, …, svg)
        self.persons: dict[str, dict[str, tuple[Any, ...]]] = {}
        # view name → label key → (lines, box, …, svg)
        self.labels: dict[str, dict[str, tuple[Any, ...]]] = {}
        self.dots: list[Any] = [None, None, None]  # inset view, people, their dots
        # the inset's things: view, objects, venue, language, and what was drawn
        self.inset_things: tuple[Any, ...] = (None, None, None, None, ())
        # view name → the figures drawn last in it: people, layout, view, radius, figures,
        # index by name, and those drawn marked (actor, members, 獲者)
        self.figures: dict[str, tuple[Any, ...]] = {}
        self.bodies: tuple[Any, ...] = (None, None, None)  # people, their bodies, where each begins
        # people, the seq their run of steps began, the indexes of those who walked in it
        self.movers: tuple[Any, ...] = (None, -1, [])
        # a layout made from another by moving a few (``_move_layout``): the two people's
        # places, and the names of those laid out again
        self.where_from: tuple[Any, ...] = (None, None, frozenset())
        # view name → the things set down (the tuple), view, the 楅 and 中 among them, the
        # others by place
        self.placed: dict[str, tuple[Any, ...]] = {}
        # the labels to place, made again only when what they read or where they stand
        # changed (each placement sets their boxes anew): a person's by his label's key (his
        # anchor, lines and radius compared), the plan's and the things' by the very list
        # of what they are made from (id → that list, its labels)
        self.person_labels: dict[str, Label] = {}
        self.label_lists: dict[int, tuple[Any, list[Label]]] = {}


_MEMO = _Memo()

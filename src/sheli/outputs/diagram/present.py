"""A frame as the diagram reads it: everyone present looked up once, and every body of a
role that is several people.
"""

from __future__ import annotations

import itertools
from typing import Any

from sheli.outputs.diagram.memo import _MEMO, _changed, _knew_changed
from sheli.outputs.frames import Frame, Person


class _FrameView:
    """A frame with everyone present looked up once: ``Frame.people`` builds its mapping
    anew at each access, and a diagram asks for it many times. The same people, in the same
    order; every other attribute is the frame's."""

    __slots__ = (
        "_frame",
        "actor",
        "group_from",
        "objects",
        "people",
        "plist",
        "plist_people",
        "says",
        "seq",
        "shots",
    )

    def __init__(self, frame: Frame) -> None:
        self._frame = frame
        # (a frame of build_frames copies its mapping at C speed; any other, one by one)
        as_dict = getattr(frame, "people_dict", None)
        self.people = as_dict() if as_dict is not None else dict(frame.people)
        # every body: a role that is several people is drawn member by member
        self.plist_people = list(self.people.values())
        self.plist = _bodies(self.plist_people)
        # read many times a step: looked up once (the rest goes to the frame)
        self.actor = frame.actor
        self.seq = frame.seq
        self.says = frame.says
        self.objects = frame.objects
        self.shots = frame.shots
        self.group_from = frame.group_from

    def __getattr__(self, name: str) -> Any:
        return getattr(self._frame, name)


def _bodies(people: list[Person]) -> list[Person]:
    """Every body of ``people``: each person, then his group's other members. Made from
    the last list where the same people come in the same order and only a few are new
    objects (a step changes one person or a few), each with as many members as before.

    >>> from sheli.outputs.frames import Person
    >>> a = Person("甲", "r", None, 0, 0, None, (), (), None)
    >>> b = Person("乙", "r", None, 0, 0, None, (), (), None, members=(a,))
    >>> [p.actor for p in _bodies([b, a])]
    ['乙', '甲', '甲']
    """
    last = _MEMO.bodies
    changed = _changed(last[0], people)
    if changed is not None and all(
        len(people[i].members) == len(last[0][i].members) for i in changed
    ):
        before = last[1]
        out = list(before)
        starts = last[2]
        spans = []
        for i in changed:
            p = people[i]
            k = starts[i]
            out[k] = p
            out[k + 1 : k + 1 + len(p.members)] = p.members
            spans.append(range(k, k + 1 + len(p.members)))
        # where the bodies' list holds other objects than the last: within these spans only
        _knew_changed(before, out, [j for sp in spans for j in sp if out[j] is not before[j]])
    else:
        out = [q for p in people for q in (p, *p.members)]
        starts = list(itertools.accumulate((1 + len(p.members) for p in people[:-1]), initial=0))
    _MEMO.bodies = (people, out, starts)
    return out

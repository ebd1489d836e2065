"""Every performer's own marks on the floor, in metres.

A role that is several people (衆賓, 工, 弟子 …) is several performers: each member stands on
his own mark (the log's ``members``, docs/event-log.md), and two performers never share one
(the bodies check, docs/place.md "Bodies"). :func:`performer_marks` lists, for each body of a
run, every distinct place he stands on, in the order he first comes to it, in metres from the
venue's origin at the floor's scale: what a director tapes for him.

>>> from sheli.engine import run
>>> marks = performer_marks(run("xiangshe", seed=1).records, lambda chi: chi * 0.231)
>>> list(dict.fromkeys(m.performer for m in marks if m.role == "衆賓"))
['衆賓', '衆賓2', '衆賓3']
>>> first = dict(by_performer(marks))
>>> (first["衆賓"][0].x_m, first["衆賓"][0].y_m) != (first["衆賓2"][0].x_m, first["衆賓2"][0].y_m)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from sheli.engine.records import Record, Step

__all__ = ["Mark", "by_performer", "performer_marks"]


class Mark(NamedTuple):
    """One mark of one performer: where (尺 and metres), the place in the text's words, the
    first step he stands there (its seq and passage)."""

    performer: str
    role: str
    place: str | None
    x: float
    y: float
    x_m: float
    y_m: float
    seq: int
    cite: str | None


def performer_marks(records: Iterable[Record], metres: Callable[[float], float]) -> list[Mark]:
    """The marks of every body of a run's steps (its ``records``; the others are passed
    over), grouped by performer in the order each first appears; ``metres`` turns 尺 into
    metres on the floor (``Scale.m`` of the cue sheets)."""
    by: dict[str, list[Mark]] = {}
    seen: dict[str, set[tuple[float, float]]] = {}
    for s in records:
        if not isinstance(s, Step) or s.x is None or s.y is None:
            continue
        bodies = (
            [(m.name, float(m.x), float(m.y)) for m in s.members]
            if s.members
            else [(s.actor, float(s.x), float(s.y))]
        )
        for i, (name, x, y) in enumerate(bodies):
            # the leading member is the role itself (a step's x, y are his body)
            who = s.actor if i == 0 else name
            key = (round(x, 3), round(y, 3))
            got = seen.setdefault(who, set())
            if key in got:
                continue
            got.add(key)
            by.setdefault(who, []).append(
                Mark(
                    who,
                    s.actor,
                    s.place,
                    x,
                    y,
                    metres(x),
                    metres(y),
                    s.seq,
                    s.cite,
                )
            )
    return [m for ms in by.values() for m in ms]


def by_performer(marks: Iterable[Mark]) -> list[tuple[str, list[Mark]]]:
    """The marks grouped by performer, in the order each first appears."""
    out: dict[str, list[Mark]] = {}
    for m in marks:
        out.setdefault(m.performer, []).append(m)
    return list(out.items())

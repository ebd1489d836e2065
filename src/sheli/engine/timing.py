"""The run's steps put in time: each step given the schedule's start, duration, walk, joint
party and moment (docs/timeline.md), as the event log writes them (docs/event-log.md).

The engine does it to every run once its records are made (:func:`sheli.engine.run`), so
the steps of every run and every line of its log carry their time. The numbers are rounded
to the hundredth — of a second for times, of a 尺 for a walk's points — so that the log is
stable and not long: a step's end (``t + dur``) is rounded as its start is, so that of two
acts one after the other the first never seems to end after the second begins.

>>> from sheli.engine import run
>>> first = run("xiangshe", seed=1).records[1]
>>> first.t, first.dur >= 0, first.moment
(0.0, True, 1)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from sheli.engine.records import Record, Step
from sheli.engine.timeline import schedule

__all__ = ["PLACES", "in_time", "rounded"]

#: the decimals kept of a time (seconds) and of a walk's coordinates (尺)
PLACES = 2


class _Scheduled(NamedTuple):
    """What :func:`sheli.engine.timeline.schedule` reads of a run: its records, its spec."""

    records: Sequence[Record]
    spec: Any


def _hundredth(value: float) -> float:
    # first to the schedule's own thousandth, so that an end and the next start it works
    # out to the same (23288.635 and 23288.635000000002) round alike; never -0.0
    return round(round(value, 3), PLACES) + 0.0


def rounded(
    fields: Mapping[str, Any],
) -> tuple[float, float, tuple[tuple[float, float, float], ...] | None, tuple[str, ...], int]:
    """A step's time (the schedule's fields of it: :meth:`Timeline.fields`) as the log writes
    it: ``t``, ``dur``, ``path``, ``with``, ``moment``.

    >>> rounded({"t": 1.004, "dur": 2.003, "path": [[0.0, -0.001, 1.004], [3.333, 4, 2.5]],
    ...          "with": ["賓"], "moment": 3})
    (1.0, 2.01, ((0.0, 0.0, 1.0), (3.33, 4.0, 2.5)), ('賓',), 3)
    """
    t0 = fields["t"]
    t = _hundredth(t0)
    dur = _hundredth(_hundredth(t0 + fields["dur"]) - t)
    path = None
    if fields.get("path"):
        path = tuple((_hundredth(x), _hundredth(y), _hundredth(at)) for x, y, at in fields["path"])
    return t, dur, path, tuple(fields.get("with", ())), int(fields["moment"])


def in_time(records: list[Record], loaded: Any) -> None:
    """Give every step of ``records`` (a run's, in order, the scene first or not) its time,
    in place: the schedule of those steps with the ``alongside`` and ``joint`` of ``loaded``
    (the run's :class:`~sheli.rite.LoadedSpec`). Shots, tallies and the scene are as they
    were; the records stay in their order (``seq``).
    """
    timeline = schedule(_Scheduled(records, loaded))
    at = 0
    for n, r in enumerate(records):
        if type(r) is Step:
            records[n] = r.in_time(*rounded(timeline.fields(at)))
            at += 1

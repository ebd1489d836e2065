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

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sheli.engine.records import Record, Step
from sheli.engine.timeline import Stream, links

__all__ = ["PLACES", "InTime", "in_time", "rounded"]

#: the decimals kept of a time (seconds) and of a walk's coordinates (尺)
PLACES = 2
#: the steps a run makes before the schedule takes them (:class:`InTime`)
BATCH = 512


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

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1, pairs=0)
    >>> again = [s._replace(t=None) if type(s) is Step else s for s in r.records]
    >>> in_time(again, r.spec)
    >>> again == r.records
    True
    """
    timed = InTime(loaded, records.append)
    given = records[:]
    records.clear()
    for r in given:
        timed.append(r)
    timed.close()


class InTime:
    """The records of a run handed on to ``sink`` in their order, each step with its time,
    as the run makes them (an interpreter's record sink, :class:`sheli.engine.interpreter.
    RecordSink`): a step is held only until its time is final (:class:`sheli.engine.
    timeline.Stream`), and what comes after it with it; :meth:`close` once the run has
    ended hands on the rest. So the run's records need never be held whole, and the log
    is written as the steps get their time.

    >>> from sheli.engine import run
    >>> kept = []
    >>> timed = InTime(run("xiangshe", pairs=0).spec, kept.append)
    >>> for r in run("xiangshe", pairs=0).records[1:]:
    ...     timed.append(r._replace(t=None) if type(r) is Step else r)
    >>> timed.close()
    >>> kept == run("xiangshe", pairs=0).records[1:]
    True
    """

    def __init__(self, loaded: Any, sink: Callable[[Record], object]) -> None:
        self.sink = sink
        self.stream = Stream(links(loaded))
        # the records not yet handed on, the first a step whose time is not yet final
        self.held: deque[Record] = deque()
        # the steps made and not yet given to the schedule: it takes them ``BATCH`` at a
        # time, so that the run and the schedule do not take turns at every step (each
        # would find the processor's caches full of the other's data)
        self.made: list[Step] = []

    def append(self, record: Record) -> None:
        if type(record) is Step:
            self.made.append(record)
            self.held.append(record)
            if len(self.made) >= BATCH:
                self._schedule()
        elif self.held:
            self.held.append(record)
        else:
            self.sink(record)

    def _schedule(self) -> None:
        add, ready = self.stream.add, self.stream.ready
        for step in self.made:
            add(step)
            self._hand_on(ready())
        self.made.clear()

    def close(self) -> None:
        self._schedule()
        self._hand_on(self.stream.close())
        while self.held:  # (what came after the last step)
            self.sink(self.held.popleft())

    def _hand_on(self, ready: Iterable[tuple[int, dict[str, Any]]]) -> None:
        held, sink = self.held, self.sink
        for _, fields in ready:
            while type(held[0]) is not Step:
                sink(held.popleft())
            step = held.popleft()
            assert type(step) is Step
            sink(step.in_time(*rounded(fields)))
        while held and type(held[0]) is not Step:
            sink(held.popleft())

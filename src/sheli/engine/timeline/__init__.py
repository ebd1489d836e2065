"""The rite in time: a start, a duration, a walk's path and a director's moment for every
step of a run, with people acting at once where the text lets them (docs/timeline.md).

:func:`schedule` reads a run's records (its steps in order) and the spec they came from; it
is deterministic (the same run gives the same timeline) and changes nothing in the run.

- Each act lasts its verb's base time, plus its walk (the distance at the walking pace),
  plus its words (``data/durations.yaml``, every value with its source or assumption).
- One person does one thing at a time, his acts in his own order.
- Acts follow the text's order: an act starts when the act before it has ended. Consecutive
  acts of one passage, words and verb by different people are one act done together (三耦
  皆袒決遂, the 揖 of a pair), and start together. Where the spec says an act runs
  ``alongside`` another (the next pair's 揖進 with the last pair's 降, xiangshe:153), it
  starts with that act instead, and the acts after it follow it.
- A ``joint`` act (相左, 交, 相揖) starts together with the act of the other party it names;
  each names the other in ``with``.
- In the third round a pair shoots to the music: five 節, the first only listened to, then
  one 拾發 to each (xiangshe:248 注).
- Two walks at the same time keep their bodies ``CLEARANCE`` apart at every moment: a walk
  that would come closer waits (whole half seconds, so the same run waits the same).

>>> from sheli.engine import run
>>> tl = schedule(run("xiangshe", seed=1, pairs=0, guests=False))
>>> tl.span < 0.98 * tl.total, tl.timed[0].t
(True, 0.0)
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any

import msgspec
import yaml

from sheli.engine.durations import Durations, DurationsError
from sheli.engine.records import Step
from sheli.engine.timeline.geometry import CLEARANCE, Point, TimedPoint, closest
from sheli.engine.timeline.scheduler import Link, Scheduler, pair_of, persons

__all__ = [
    "CLEARANCE",
    "MOMENTS_FILE",
    "Cue",
    "Moments",
    "Point",
    "Stream",
    "Timed",
    "Timeline",
    "closest",
    "links",
    "load_moments",
    "overlaps",
    "persons",
    "schedule",
    "schedule_steps",
    "too_close",
]

MOMENTS_FILE = Path(__file__).parent.parent / "data" / "moments.yaml"


class Moments(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The director's cues (``data/moments.yaml``)."""

    sections: bool
    verbs: dict[str, Annotated[str, msgspec.Meta(min_length=1)]]
    assumption: Annotated[str, msgspec.Meta(min_length=1)]


@cache
def load_moments(path: Path = MOMENTS_FILE) -> Moments:
    """The cues; a bad file raises :class:`~sheli.engine.durations.DurationsError` in one line.

    >>> "射" in load_moments().verbs
    True
    """
    try:
        return msgspec.convert(yaml.safe_load(Path(path).read_text("utf-8")), Moments)
    except (OSError, yaml.YAMLError) as exc:
        raise DurationsError(f"{path}: cannot read: {' '.join(str(exc).split())}") from None
    except msgspec.ValidationError as exc:
        raise DurationsError(f"{path}: {' '.join(str(exc).split())}") from None


@dataclass(frozen=True)
class Timed:
    """The time of one step: start ``t`` and ``dur`` in seconds from the rite's start; the
    actor's walk ``path`` as ``(x, y, t)`` points (None when he does not move; for a group,
    its first member's: see :attr:`Timeline.walks`); the other parties ``with_`` of a joint
    act; the director's ``moment``."""

    t: float
    dur: float
    path: tuple[TimedPoint, ...] | None
    with_: tuple[str, ...]
    moment: int

    @property
    def end(self) -> float:
        return self.t + self.dur


@dataclass
class Timeline:
    """The steps of a run and their times, index for index; ``walks`` the path of every
    person who moves, by step index and person."""

    steps: list[Step]
    timed: list[Timed]
    walks: dict[int, dict[str, tuple[TimedPoint, ...]]] = field(default_factory=dict)
    #: what the schedule cost: acts ``placed``, of which ``undone`` to be placed again (in
    #: ``back`` goings back to a partner), pairs of bodies ``measured`` exactly
    work: Counter[str] = field(default_factory=Counter)

    @property
    def span(self) -> float:
        """The rite's length: from its first act's start to its last act's end."""
        if not self.timed:
            return 0.0
        return max(t.end for t in self.timed) - min(t.t for t in self.timed)

    @property
    def total(self) -> float:
        """The acts' durations added up (the rite's length were one act done at a time)."""
        return sum(t.dur for t in self.timed)

    @property
    def moments(self) -> int:
        return len({t.moment for t in self.timed})

    def fields(self, index: int) -> dict[str, Any]:
        """The log's fields of step ``index`` (docs/event-log.md): ``t``, ``dur``, ``path``
        (a walk), ``with`` (a joint act), ``moment``."""
        tm = self.timed[index]
        return _fields(tm.t, tm.dur, tm.path, tm.with_, tm.moment)


def _fields(
    t: float, dur: float, path: Sequence[TimedPoint] | None, with_: Sequence[str], moment: int
) -> dict[str, Any]:
    out: dict[str, Any] = {"t": t, "dur": dur}
    if path:
        out["path"] = [list(p) for p in path]
    if with_:
        out["with"] = list(with_)
    out["moment"] = moment
    return out


def schedule(run: Any, durations: Durations | None = None) -> Timeline:
    """The timeline of ``run`` (a :class:`sheli.engine.Run`): its steps in order, its spec
    for the acts' ``alongside`` and ``joint``.

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1, pairs=0, guests=False)
    >>> schedule(r).timed == schedule(r).timed
    True
    """
    steps = [r for r in run.records if type(r) is Step]
    return schedule_steps(steps, links(run.spec), durations)


def links(loaded: Any) -> dict[tuple[str | None, int], tuple[Any, Any, Any]]:
    """The ``alongside``, ``joint`` and ``after`` of the spec's acts, by (file, line) of the
    act: how a step of the run (its ``file`` and ``line``) finds them.

    >>> from sheli.rite import load_spec
    >>> found = links(load_spec("xiangshe"))
    >>> sorted({a.verb for a, _, _ in found.values() if a is not None})
    ['升', '命', '坐', '揖', '洗', '降']
    >>> sorted({(w.cite, w.verb) for _, _, ws in found.values() for w in ws or ()})
    [('xiangshe:144', '興'), ('xiangshe:145', '反位'), ('xiangshe:187', '興')]
    """
    out: dict[tuple[str | None, int], tuple[Any, Any, Any]] = {}
    main = loaded.file

    def visit(node: Any) -> None:
        if isinstance(node, list):
            for n in node:
                visit(n)
            return
        if isinstance(node, dict):
            for n in node.values():
                visit(n)
            return
        d = getattr(node, "__dict__", None)
        if d is None:
            return
        along, joint, after = d.get("alongside"), d.get("joint"), d.get("after")
        if along is not None or joint is not None or after is not None:
            out[(d.get("file") or main, d.get("line", 0))] = (along, joint, after)
        for k, v in d.items():
            if k not in ("alongside", "joint", "after"):
                visit(v)

    visit(loaded.spec)
    return out


def schedule_steps(
    steps: Sequence[Step],
    link: dict[tuple[str | None, int], tuple[Any, Any, Any]] | None = None,
    durations: Durations | None = None,
) -> Timeline:
    """The timeline of ``steps`` (a run's, in order) with the spec's ``link`` (:func:`links`).

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1, pairs=0, guests=False)
    >>> tl = schedule_steps([s for s in r.records[1:] if type(s) is Step])
    >>> tl.span < tl.total  # without the spec's links: only the acts done together
    True
    """
    sched = Scheduler(steps, link or {}, load_moments().verbs, durations)
    sched.run()
    moments = _moments(steps)
    return Timeline(
        list(steps),
        [
            Timed(t, d, path, tuple(w), m)
            for (t, d, path, w), m in zip(sched.timed, moments, strict=True)
        ],
        sched.walks,
        sched.work,
    )


def _moments(steps: Sequence[Step]) -> list[int]:
    """The director's moment of each step (``data/moments.yaml``)."""
    cue = Cue()
    return [cue.moment(s) for s in steps]


class Cue:
    """The director's moments of a run's steps, one step at a time (each step's depends
    only on the steps before it)."""

    def __init__(self) -> None:
        self.cues = load_moments()
        self.n = 0
        self.opener: Any = None
        self.section: Any = object()

    def moment(self, s: Step) -> int:
        """The moment of ``s``, the next step."""
        cues = self.cues
        key = (s.verb, s.cite, pair_of(s.actor))
        if self.n == 0 or (cues.sections and s.section != self.section):
            self.n += 1
            self.opener = key if s.verb in cues.verbs else None
        elif s.verb in cues.verbs and key != self.opener:
            self.n += 1
            self.opener = key
        self.section = s.section
        return self.n


class Stream:
    """A run put in time as it is made: :meth:`add` each step in order, and those whose
    time is final come out of :meth:`ready` with it, as ``(index, fields)`` (the fields of
    :meth:`Timeline.fields`); :meth:`close` when the run has ended gives the rest. A step's
    time depends only on the steps before it and on the acts of at most ``LOOK_BACK``
    steps after it, which may send the schedule back to its act; so all but the last few
    hundred steps are final, and the state of those well before them is let go of: what is
    held does not grow with the run (docs/timeline.md, "The cost"). The times are those of
    :func:`schedule_steps`, number for number.

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1, pairs=0, guests=False)
    >>> steps = [s for s in r.records if type(s) is Step]
    >>> stream = Stream({})
    >>> got = []
    >>> for s in steps:
    ...     stream.add(s)
    ...     got.extend(stream.ready())
    >>> got.extend(stream.close())
    >>> whole = schedule_steps(steps)
    >>> [f for _, f in got] == [whole.fields(i) for i in range(len(steps))]
    True
    """

    def __init__(self, link: Link, durations: Durations | None = None) -> None:
        self.scheduler = Scheduler((), link, load_moments().verbs, durations, keep=False)
        self.cue = Cue()
        self.moments: dict[int, int] = {}
        self.done = 0  # the steps handed on

    def add(self, step: Step) -> None:
        self.moments[len(self.scheduler.steps)] = self.cue.moment(step)
        self.scheduler.feed(step)

    def ready(self) -> Iterable[tuple[int, dict[str, Any]]]:
        """The steps not yet handed on whose time is final, in order, with their fields."""
        sched = self.scheduler
        upto = sched.final
        for i in range(self.done, upto):
            t, d, path, w = sched.timed[i]
            yield i, _fields(t, d, path, w, self.moments.pop(i))
            self.done = i + 1
        sched.release(self.done)

    def close(self) -> Iterable[tuple[int, dict[str, Any]]]:
        """The run has ended: the rest of its steps, placed."""
        self.scheduler.run()
        return self.ready()


def overlaps(tl: Timeline) -> Iterable[tuple[int, int, str]]:
    """Where one person does two things at once: (step, step, person), for the tests.

    >>> from sheli.engine import run
    >>> list(overlaps(schedule(run("xiangshe", seed=1, pairs=0, guests=False))))
    []
    """
    by: dict[str, list[tuple[float, float, int]]] = {}
    for i, (s, tm) in enumerate(zip(tl.steps, tl.timed, strict=True)):
        if tm.dur > 0:
            for p, _ in persons(s):
                by.setdefault(p, []).append((tm.t, tm.end, i))
    for p, spans in by.items():
        spans.sort()
        for (_a0, a1, i), (b0, _b1, j) in itertools.pairwise(spans):
            if a1 > b0 + 1e-6:
                yield i, j, p


def too_close(tl: Timeline, within: float = CLEARANCE) -> list[tuple[int, int, str, str, float]]:
    """Every two walks at the same time that come closer than ``within``: (step, step,
    person, person, distance), for the tests.

    >>> from sheli.engine import run
    >>> too_close(schedule(run("xiangshe", seed=1, pairs=0, guests=False)))
    []
    """
    flat = sorted(
        (pts[0][2], pts[-1][2], i, p, pts)
        for i, paths in tl.walks.items()
        for p, pts in paths.items()
    )
    starts = [f[0] for f in flat]
    out = []
    for k, (_t0, t1, i, p, pts) in enumerate(flat):
        for m in range(k + 1, bisect_left(starts, t1 + 1e-9)):
            _u0, _u1, j, q, qts = flat[m]
            if p == q or i == j:
                continue
            d = closest(pts, qts)
            if d is not None and d < within - 1e-6:
                out.append((i, j, p, q, d))
    return out

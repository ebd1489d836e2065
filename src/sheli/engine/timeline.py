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
import math
from bisect import bisect_left
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sheli.engine.durations import Durations, DurationsError, load_durations
from sheli.engine.records import Step

__all__ = [
    "CLEARANCE",
    "MOMENTS_FILE",
    "Moments",
    "Timed",
    "Timeline",
    "closest",
    "load_moments",
    "persons",
    "schedule",
    "schedule_steps",
]

#: the least distance between two bodies that walk at the same time, in 尺 (the bodies' 1.5
#: 尺 rule of the place layer, held at every moment of a walk)
CLEARANCE = 1.5
#: two who meet (相揖, 相左) come at least this near each other, in 尺: else the one who is
#: there first waits for the other
REACH = 8.0
#: a walk that would come closer than CLEARANCE to another waits this long, and again
WAIT = 0.5
#: at most this many times, or this many seconds (beyond, it goes: the tests find it)
MAX_WAITS = 240
#: the waits of half a second tried before it waits until the body in its way has gone
QUICK_WAITS = 12
#: acts done one by one even when they follow one another on the same words
ONE_BY_ONE = frozenset(("射", "數獲", "釋獲"))
#: how far back an ``alongside`` or ``joint`` act looks for the act it names, in steps
LOOK_BACK = 600
#: the passes that may make a party wait for one who joins him late (the last never does)
PASSES = 12
#: how often an act may be made to wait for one who joins it late
MOVES = 3
#: the time buckets of the walk index, in seconds
BUCKET = 10.0
MOMENTS_FILE = Path(__file__).with_name("data") / "moments.yaml"

Point = tuple[float, float]
TimedPoint = tuple[float, float, float]


def persons(step: Step) -> list[tuple[str, Point | None]]:
    """Who does the act, each with where it leaves him: a group's members, else the actor.

    >>> from sheli.engine import run
    >>> [p for p, _ in persons(run("xiangshe", seed=1).records[2])]
    ['衆賓1', '衆賓2', '衆賓3']
    """
    if step.members:
        return [(m.name, (m.x, m.y)) for m in step.members]
    here = (float(step.x), float(step.y)) if step.x is not None and step.y is not None else None
    return [(step.actor, here)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Moments(_Strict):
    """The director's cues (``data/moments.yaml``)."""

    sections: bool
    verbs: dict[str, Annotated[str, Field(min_length=1)]]
    assumption: Annotated[str, Field(min_length=1)]


@cache
def load_moments(path: Path = MOMENTS_FILE) -> Moments:
    """The cues; a bad file raises :class:`~sheli.engine.durations.DurationsError` in one line.

    >>> "射" in load_moments().verbs
    True
    """
    try:
        return Moments.model_validate(yaml.safe_load(Path(path).read_text("utf-8")))
    except (OSError, yaml.YAMLError) as exc:
        raise DurationsError(f"{path}: cannot read: {' '.join(str(exc).split())}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise DurationsError(f"{path}: {where}: {first['msg']}") from None


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
        out: dict[str, Any] = {"t": tm.t, "dur": tm.dur}
        if tm.path:
            out["path"] = [list(p) for p in tm.path]
        if tm.with_:
            out["with"] = list(tm.with_)
        out["moment"] = tm.moment
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


def links(loaded: Any) -> dict[tuple[str | None, int], tuple[Any, Any]]:
    """The ``alongside`` and ``joint`` of the spec's acts, by (file, line) of the act: how a
    step of the run (its ``file`` and ``line``) finds them.

    >>> from sheli.rite import load_spec
    >>> found = links(load_spec("xiangshe"))
    >>> sorted({a.verb for a, _ in found.values() if a is not None})
    ['升', '命', '揖', '降']
    """
    out: dict[tuple[str | None, int], tuple[Any, Any]] = {}
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
        along, joint = d.get("alongside"), d.get("joint")
        if along is not None or joint is not None:
            out[(d.get("file") or main, d.get("line", 0))] = (along, joint)
        for k, v in d.items():
            if k not in ("alongside", "joint"):
                visit(v)

    visit(loaded.spec)
    return out


def _pair(actor: str) -> str:
    for tail in ("上射", "下射"):
        if actor.endswith(tail) and len(actor) > len(tail):
            return actor[: -len(tail)]
    return actor


def _says(step: Step) -> int:
    return sum(1 for ch in step.says or "" if not ch.isspace())


def _walk(
    pts: Sequence[Point], t0: float, pace: float, cap: float
) -> tuple[list[TimedPoint], float]:
    """The points of a walk through ``pts`` starting at ``t0``, and its seconds (at most
    ``cap``: a longer walk is one whose start the run did not know).

    >>> _walk([(0.0, 0.0), (0.0, 10.0)], 5.0, 2.0, 90.0)
    ([(0.0, 0.0, 5.0), (0.0, 10.0, 10.0)], 5.0)
    """
    legs = [math.dist(a, b) for a, b in itertools.pairwise(pts)]
    length = sum(legs)
    secs = min(length / pace, cap) if length > 0 else 0.0
    out: list[TimedPoint] = [(round(pts[0][0], 3), round(pts[0][1], 3), round(t0, 3))]
    done = 0.0
    for p, leg in zip(pts[1:], legs, strict=True):
        done += leg
        at = t0 + (secs * done / length if length > 0 else 0.0)
        out.append((round(p[0], 3), round(p[1], 3), round(at, 3)))
    return out, secs


def _ways(start: Point, via: Point | None, end: Point) -> list[list[Point]]:
    """The ways a walker may take, in the order tried: straight (through ``via``), then
    stepping to his right by one, two, three bodies at the middle of his longest leg — so
    that two who meet pass left side to left side (相左) — and last to his left."""
    pts = [start, via, end] if via is not None and via not in (start, end) else [start, end]
    out = [pts]
    k = max(range(len(pts) - 1), key=lambda i: math.dist(pts[i], pts[i + 1]))
    (ax, ay), (bx, by) = pts[k], pts[k + 1]
    n = math.dist(pts[k], pts[k + 1])
    if n > 2 * CLEARANCE:
        rx, ry = (by - ay) / n, -(bx - ax) / n  # his right hand (x east, y north)
        for m in (1, 2, 3, -1, -2, -3):
            d = m * CLEARANCE
            mid = ((ax + bx) / 2 + rx * d, (ay + by) / 2 + ry * d)
            out.append([*pts[: k + 1], mid, *pts[k + 1 :]])
    return out


def _at(path: Sequence[TimedPoint], t: float) -> Point:
    if t <= path[0][2]:
        return path[0][0], path[0][1]
    for a, b in itertools.pairwise(path):
        if t <= b[2]:
            f = 0.0 if b[2] == a[2] else (t - a[2]) / (b[2] - a[2])
            return a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])
    return path[-1][0], path[-1][1]


def closest(a: Sequence[TimedPoint], b: Sequence[TimedPoint]) -> float | None:
    """The least distance between two walkers over the time both walk (None if they do not
    walk at the same time): exact, each leg a straight line at an even pace.

    >>> closest([(0, 0, 0), (10, 0, 10)], [(10, 2, 0), (0, 2, 10)])  # they pass 2 尺 apart
    2.0
    >>> closest([(0, 0, 0), (1, 0, 1)], [(5, 5, 2), (6, 6, 3)]) is None
    True
    """
    lo, hi = max(a[0][2], b[0][2]), min(a[-1][2], b[-1][2])
    if hi < lo:
        return None
    times = sorted(
        {lo, hi, *(p[2] for p in a if lo < p[2] < hi), *(p[2] for p in b if lo < p[2] < hi)}
    )
    pa, pb = _positions(a, times), _positions(b, times)
    best = math.inf
    for k in range(max(1, len(times) - 1)):
        m = min(k + 1, len(times) - 1)
        dx0, dy0 = pa[k][0] - pb[k][0], pa[k][1] - pb[k][1]
        dx1, dy1 = pa[m][0] - pb[m][0], pa[m][1] - pb[m][1]
        ex, ey = dx1 - dx0, dy1 - dy0
        e2 = ex * ex + ey * ey
        f = 0.0 if e2 == 0 else max(0.0, min(1.0, -(dx0 * ex + dy0 * ey) / e2))
        best = min(best, math.hypot(dx0 + f * ex, dy0 + f * ey))
    return round(best, 6)


def _positions(path: Sequence[TimedPoint], times: Sequence[float]) -> list[Point]:
    """Where a walker is at each of ``times`` (in order): one pass along his path."""
    out = []
    j = 0
    n = len(path)
    for t in times:
        while j + 1 < n and path[j + 1][2] < t:
            j += 1
        a = path[j]
        if t <= a[2] or j + 1 == n:
            out.append((a[0], a[1]))
            continue
        b = path[j + 1]
        f = 0.0 if b[2] == a[2] else (t - a[2]) / (b[2] - a[2])
        out.append((a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])))
    return out


def _box(path: Sequence[TimedPoint]) -> tuple[float, float, float, float, float, float]:
    """The box a walk keeps to: x, y and time, each from and to."""
    xs, ys = [p[0] for p in path], [p[1] for p in path]
    return (min(xs), max(xs), min(ys), max(ys), path[0][2], path[-1][2])


_Entry = tuple[str, tuple[TimedPoint, ...], tuple[float, float, float, float, float, float]]


class _Walks:
    """The bodies placed so far, walking or standing, indexed by time: which ones a new
    walk meets (a walk far from another's box is not measured against it)."""

    def __init__(self) -> None:
        self.buckets: dict[int, list[_Entry]] = {}

    def near(self, t0: float, t1: float) -> Iterator[_Entry]:
        seen: set[int] = set()
        for b in range(int(t0 // BUCKET), int(t1 // BUCKET) + 1):
            for w in self.buckets.get(b, ()):
                if id(w) not in seen:
                    seen.add(id(w))
                    yield w

    def add(self, who: str, path: tuple[TimedPoint, ...]) -> None:
        w = (who, path, _box(path))
        for b in range(int(path[0][2] // BUCKET), int(path[-1][2] // BUCKET) + 1):
            self.buckets.setdefault(b, []).append(w)

    def clear(self, who: str, path: Sequence[TimedPoint], group: set[str]) -> bool:
        return self.blocked(who, path, group) is None

    def blocked(self, who: str, path: Sequence[TimedPoint], group: set[str]) -> float | None:
        """None if ``path`` keeps ``CLEARANCE`` from every body placed; else when the first
        body it comes too near ends (no use trying before)."""
        x0, x1, y0, y1, t0, t1 = _box(path)
        for other, p, (u0, u1, v0, v1, s0, s1) in self.near(t0, t1):
            if other == who or other in group:
                continue
            if s1 < t0 or t1 < s0 or u0 - x1 >= CLEARANCE or x0 - u1 >= CLEARANCE:
                continue
            if v0 - y1 >= CLEARANCE or y0 - v1 >= CLEARANCE:
                continue
            d = closest(path, p)
            if d is not None and d < CLEARANCE:
                return s1
        return None


def _place(
    own: list[tuple[str, Point, Point]],
    via: Point | None,
    t0: float,
    rest: float,
    pace: float,
    cap: float,
    index: _Walks | None,
) -> tuple[dict[str, tuple[TimedPoint, ...]] | None, float]:
    """The walks of one step's people starting at ``t0`` (and standing ``rest`` seconds
    where they end), each the first of its :func:`_ways` clear of the bodies in ``index``
    (straight without one), and the longest one's seconds; if one has no clear way then,
    None and the earliest time worth trying again (when a body in his way is gone)."""
    paths: dict[str, tuple[TimedPoint, ...]] = {}
    longest = 0.0
    for p, old, end in own:
        again = math.inf
        for way in _ways(old, via if len(own) == 1 else None, end):
            pts, secs = _walk(way, t0, pace, cap)
            body = (*pts, (pts[-1][0], pts[-1][1], pts[-1][2] + rest))
            until = None if index is None else index.blocked(p, body, set())
            if until is None:
                break
            again = min(again, until)
        else:
            return None, again
        paths[p] = tuple(pts)
        longest = max(longest, secs)
    return paths, longest


def _body(
    steps: Sequence[Step], timed: list[Any], walks: dict[int, Any], i: int
) -> list[tuple[TimedPoint, ...]]:
    """Where the people of step ``i`` are during it: their walks (and standing after), or
    where they stand."""
    t0, dur = timed[i][0], timed[i][1]
    got = walks.get(i)
    if got:
        return [(*pts, (pts[-1][0], pts[-1][1], t0 + dur)) for pts in got.values()]
    return [((a[0], a[1], t0), (a[0], a[1], t0 + dur)) for _, a in persons(steps[i]) if a]


def _within(
    steps: Sequence[Step],
    g: list[int],
    partner: list[int],
    timed: list[Any],
    walks: dict[int, Any],
) -> bool:
    """Whether each two who meet in a joint act, as placed, are there at the same time and
    come within ``REACH`` of each other, none nearer than one 尺."""
    for i, k in _facing(g, partner):
        for a in _body(steps, timed, walks, i):
            for b in _body(steps, timed, walks, k):
                d = closest(a, b)
                if d is None or not 1.0 <= d <= REACH:
                    return False
    return True


def _facing(mine: list[int], theirs: list[int]) -> list[tuple[int, int]]:
    """Who meets whom in a joint act: the first of one act with the first of the other and
    so on (上射 with 上射, 下射 with 下射) when the two acts have as many steps; else each
    with each.

    >>> _facing([1, 2], [5, 6]), _facing([1], [5, 6])
    ([(1, 5), (2, 6)], [(1, 5), (1, 6)])
    """
    if len(mine) == len(theirs):
        return list(zip(mine, theirs, strict=True))
    return [(i, k) for i in mine for k in theirs]


def _meeting(
    steps: Sequence[Step],
    g: list[int],
    partner: list[int],
    timed: list[Any],
    walks: dict[int, dict[str, tuple[TimedPoint, ...]]],
    where: dict[str, Point],
    own: float,
    ready: float,
    pace: float,
    cap: float,
    index: _Walks,
) -> tuple[float, bool]:
    """When the act ``g`` (lasting ``own`` seconds besides its walk, ready at ``ready``)
    should start to meet the act ``partner``, placed already, and whether it can. If
    neither walks (相揖, 授受), with it. Else, of the half seconds from this act's ending
    as the other's starts to its starting as the other's ends, and not before it is
    ready, the start that brings each two who meet nearest, none nearer than
    ``CLEARANCE`` (the earliest of equals): they pass at the 階前 as the text has it, or
    one bows as the other arrives (上射揖竝行 xiangshe:140). None such: the earliest
    start of that span, and False (the other must wait).

    >>> from sheli.engine import run
    >>> tl = schedule(run("xiangshe", seed=1, pairs=0, guests=False))
    >>> [(s.actor, s.verb, tm.with_) for s, tm in zip(tl.steps, tl.timed)
    ...  if s.cite == "xiangshe:146" and tm.with_]
    [('司射', '進', ('司馬',))]
    """
    there = timed[partner[0]][0]
    # (the ways one of this act may go, what the one he meets does then)
    meets: list[tuple[str, list[list[Point]], tuple[TimedPoint, ...]]] = []
    moving = False
    for i, k in _facing(g, partner):
        t0, dur = timed[k][0], timed[k][1]
        got = walks.get(k)
        if got:
            moving = True
            theirs = [(*pts, (pts[-1][0], pts[-1][1], round(t0 + dur, 3))) for pts in got.values()]
        else:
            theirs = [((a[0], a[1], t0), (a[0], a[1], t0 + dur)) for _, a in persons(steps[k]) if a]
        walkers = persons(steps[i])
        for p, end in walkers:
            old = where.get(p, end)
            if end is not None and old is not None:
                moving = moving or math.dist(old, end) > 0.01
                ways = _ways(old, steps[i].via_point if len(walkers) == 1 else None, end)
                meets.extend((p, ways, pts) for pts in theirs)
    if not meets or not moving:
        return there, True
    secs = max(_walk(ways[0], 0.0, pace, cap)[1] for _, ways, _ in meets)
    until = max(pts[-1][2] for _, _, pts in meets)
    best: tuple[float, float] | None = None
    first = round(there - secs - own, 1)
    start = max(first, first + math.ceil((ready - first) / WAIT) * WAIT)
    while start <= until:
        far, near = 0.0, math.inf  # of each two, how near they come: the farthest, nearest
        for who, ways, pts in meets:
            d = _nearest(who, ways, pts, start, own, first, pace, cap, index)
            far, near = (math.inf, 0.0) if d is None else (max(far, d), min(near, d))
        if near >= CLEARANCE and far <= REACH and (best is None or far < best[0] - 1e-9):
            best = (far, start)
        start = round(start + WAIT, 3)
    if best is not None:
        return best[1], True
    return first, False  # he comes too late: the other must wait for him


def _nearest(
    who: str,
    ways: list[list[Point]],
    theirs: Sequence[TimedPoint],
    start: float,
    own: float,
    since: float,
    pace: float,
    cap: float,
    index: _Walks,
) -> float | None:
    """How near ``who``, setting off at ``start`` by the first of ``ways`` clear of the
    walks placed (``index``) that keeps him ``CLEARANCE`` from the other (``theirs``,
    standing where he starts from ``since``), comes to him; 0 if none does, None if they
    are not there at the same time."""
    got: float | None = 0.0
    for way in ways:
        mine, took = _walk(way, start, pace, cap)
        if not index.clear(who, mine, set()):
            continue
        mine.append((way[-1][0], way[-1][1], start + took + own))
        d = closest(mine, theirs)
        # and not into him where he stands before his act (one comes to the 楅 as the
        # other, still there, turns to go)
        before = closest(mine, ((theirs[0][0], theirs[0][1], since), theirs[0]))
        if (before is None or before >= CLEARANCE) and (d is None or d >= CLEARANCE):
            return d
        if d is None:
            got = None
    return got


def _groups(steps: Sequence[Step], link: dict[Any, tuple[Any, Any]]) -> list[list[int]]:
    """The steps as acts: consecutive steps of one passage, words and verb by different
    people are one act done together (an act the spec links, only with the steps of the
    same act: the two archers of a pair)."""
    out: list[list[int]] = []
    key_before: Any = None
    who: set[str] = set()
    for i, s in enumerate(steps):
        at = (s.source_file, s.line)
        # an act linked in the spec joins only the steps of the same act (a pair's two)
        key = (s.cite, s.jing, s.verb, s.round, s.says, at if at in link else None)
        names = {p for p, _ in persons(s)}
        if out and key == key_before and s.verb not in ONE_BY_ONE and not (who & names):
            out[-1].append(i)
            who |= names
        else:
            out.append([i])
            who = set(names)
        key_before = key
    return out


def _find(
    steps: Sequence[Step],
    i: int,
    cite: str,
    verb: str,
    names: set[str],
    cues: Collection[str] | None = None,
) -> int | None:
    """The latest step before ``i`` of ``cite`` and ``verb`` in the same round by others
    than ``names``. With ``cues`` (for ``alongside``: the director's cue verbs), none if
    one of ``names`` acted in between or a cue came between (the 公 shooting between two
    pairs of 大射儀)."""
    rnd = steps[i].round
    for j in range(i - 1, max(-1, i - LOOK_BACK), -1):
        s = steps[j]
        if s.round != rnd:
            return None
        who = {p for p, _ in persons(s)}
        if s.cite == cite and s.verb == verb and not (who & names):
            return j
        if cues is not None and (who & names or s.verb in cues):
            return None
    return None


def schedule_steps(
    steps: Sequence[Step],
    link: dict[tuple[str | None, int], tuple[Any, Any]] | None = None,
    durations: Durations | None = None,
) -> Timeline:
    """The timeline of ``steps`` (a run's, in order) with the spec's ``link`` (:func:`links`).

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1, pairs=0, guests=False)
    >>> tl = schedule_steps([s for s in r.records[1:] if type(s) is Step])
    >>> tl.span < tl.total  # without the spec's links: only the acts done together
    True
    """
    link = link or {}
    table = durations or load_durations()
    groups = _groups(steps, link)
    floor: dict[int, float] = {}  # a joint act's earliest start, found by the pass before
    unmet: set[int] = set()  # joint acts that cannot be met: the other is late whatever waits
    moved: dict[int, int] = {}  # how often each act was made to wait for one who joins it
    for n in range(PASSES + 1):
        timed, walks, raised = _pass(steps, groups, link, table, floor, unmet, moved, n < PASSES)
        if not raised:
            break
    moments = _moments(steps)
    return Timeline(
        list(steps),
        [Timed(t, d, path, tuple(w), m) for (t, d, path, w), m in zip(timed, moments, strict=True)],
        walks,
    )


def _pass(
    steps: Sequence[Step],
    groups: list[list[int]],
    link: dict[tuple[str | None, int], tuple[Any, Any]],
    table: Durations,
    floor: dict[int, float],
    unmet: set[int],
    moved: dict[int, int],
    may_raise: bool = True,
) -> tuple[list[Any], dict[int, dict[str, tuple[TimedPoint, ...]]], bool]:
    """One pass of the schedule; ``raised`` when a joint act had to move a partner already
    placed (``floor`` then holds the partner's new earliest start for the next pass). A
    partner is moved once: if the one who joins him is still late, he depends on the
    partner himself, the joint act is ``unmet`` and the partner keeps his time."""
    cues = load_moments().verbs
    pace = table.chi_per_second
    cap = table.walk.max_seconds
    beat = table.music.beat_seconds
    timed: list[Any] = [None] * len(steps)
    walks: dict[int, dict[str, tuple[TimedPoint, ...]]] = {}
    free: dict[str, float] = {}
    where: dict[str, Point] = {}
    index = _Walks()
    chain = 0.0  # when the act before (in the text's order) ended
    last_shot_pair: str | None = None
    raised = False
    group_of = {i: n for n, g in enumerate(groups) for i in g}
    # who is acting alongside (True) or came to no act to go with (False), since his last
    # act that the spec does not link
    alongside: dict[str, bool] = {}
    for g in groups:
        first = steps[g[0]]
        names = {p for i in g for p, _ in persons(steps[i])}
        along, joint = link.get((first.source_file, first.line), (None, None))
        gate = chain
        if along is not None:
            j = _find(steps, g[0], along.cite, along.verb, names, cues)
            if j is not None:
                gate = timed[j][0]
            for p in names:
                alongside[p] = j is not None
        elif joint is None:
            for p in names:
                alongside.pop(p, None)
        if joint is not None and not all(alongside.get(p, True) for p in names):
            joint = None  # not come alongside: nobody to meet (the last pair, 敖繼公)
        partner: list[int] | None = None  # the act of the other party (its steps)
        if joint is not None:
            j = _find(steps, g[0], joint.cite, joint.verb, names)
            if j is not None and g[0] not in unmet:
                partner = [
                    k for k in groups[group_of[j]] if not names & {p for p, _ in persons(steps[k])}
                ]
                gate = min(gate, timed[partner[0]][0])  # with it, not after it
        ready = max([gate, *(free.get(p, 0.0) for p in names)])
        start = max(ready, floor.get(g[0], 0.0))
        if partner is not None:
            there = timed[partner[0]][0]
            own = max(
                table.base(steps[i].verb) + _says(steps[i]) * table.speech.seconds_per_character
                for i in g
            )
            target, met = _meeting(
                steps, g, partner, timed, walks, where, own, ready, pace, cap, index
            )
            if not met and ready > target + WAIT:
                late = there + ready - target
                key = groups[group_of[partner[0]]][0]
                moved[key] = moved.get(key, 0) + 1
                if moved[key] > MOVES or not may_raise:
                    # moved and still late: the one who joins depends on him; he keeps his
                    # time and the act is not met
                    floor.pop(key, None)
                    unmet.add(g[0])
                    raised = raised or may_raise
                else:
                    floor[key] = max(floor.get(key, 0.0), late)  # he waits for this one
                    raised = True
            else:
                start = max(start, target)
        if first.verb == "射" and first.round == 3:
            pair = _pair(first.actor)
            if pair != last_shot_pair:
                start += beat  # the first 節 is listened to (xiangshe:248 注)
        if first.verb == "射":
            last_shot_pair = _pair(first.actor)
        plans = []
        for i in g:
            s = steps[i]
            base = table.base(s.verb)
            if s.verb == "射" and s.round == 3:
                base = beat / 2  # one 拾發 to a 節
            speech = _says(s) * table.speech.seconds_per_character
            goes: list[tuple[str, Point, Point]] = []
            for p, end in persons(s):
                old = where.get(p)
                if end is not None and old is not None and math.dist(old, end) > 0.01:
                    goes.append((p, old, end))
            plans.append((i, base + speech, goes, s.via_point))
        start = round(start, 3)
        end_all = start
        for i, rest, goes, via in plans:
            # each step of the act waits, if it must, until its walks are clear of those
            # already placed (the act's earlier steps too: 下射少右從之 follows the 上射)
            t0 = start
            for _wait in range(MAX_WAITS + 1):
                paths, longest = _place(goes, via, t0, rest, pace, cap, index)
                if paths is not None:
                    break
                if _wait == MAX_WAITS or longest - start > MAX_WAITS * WAIT:
                    # waited long enough: he goes straight (the tests find it)
                    paths, longest = _place(goes, via, t0, rest, pace, cap, None)
                    break
                # half a second, and after a few seconds on until the one in his way has gone
                jump = math.ceil((longest - t0) / WAIT) * WAIT if _wait >= QUICK_WAITS else 0
                t0 = round(t0 + max(WAIT, jump), 3)
            assert paths is not None
            s = steps[i]
            dur = round(rest + longest, 3)
            timed[i] = [t0, dur, paths.get(persons(s)[0][0]), []]
            end_all = max(end_all, t0 + dur)
            for p, end in persons(s):
                free[p] = t0 + dur
                if end is not None:
                    where[p] = end
            if paths:
                walks[i] = paths
                for p, walked in paths.items():
                    # with the rest of his act, standing where the walk left him
                    index.add(p, (*walked, (walked[-1][0], walked[-1][1], t0 + dur)))
        if partner is not None:
            late = max(timed[i][0] for i in g) - start  # held back by another walker
            if late > 0 and not _within(steps, g, partner, timed, walks):
                key = groups[group_of[partner[0]]][0]
                moved[key] = moved.get(key, 0) + 1
                if may_raise and moved[key] <= MOVES:
                    floor[key] = max(floor.get(key, 0.0), timed[partner[0]][0] + late)
                    raised = True
            for i, k in _facing(g, partner):
                if steps[k].actor not in timed[i][3]:
                    timed[i][3].append(steps[k].actor)
                if steps[i].actor not in timed[k][3]:
                    timed[k][3].append(steps[i].actor)
        chain = end_all
    return timed, walks, raised


def _moments(steps: Sequence[Step]) -> list[int]:
    """The director's moment of each step (``data/moments.yaml``)."""
    cues = load_moments()
    out = []
    n = 0
    opener: Any = None
    section: Any = object()
    for s in steps:
        key = (s.verb, s.cite, _pair(s.actor))
        if n == 0 or (cues.sections and s.section != section):
            n += 1
            opener = key if s.verb in cues.verbs else None
        elif s.verb in cues.verbs and key != opener:
            n += 1
            opener = key
        section = s.section
        out.append(n)
    return out


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

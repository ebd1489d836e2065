"""The walks of the timeline in space and time: a walk's points, the ways a walker may take,
how near two walkers come, and the index of the bodies placed so far (docs/timeline.md,
"Bodies").

>>> index = Walks()
>>> _ = index.add("甲", ((0.0, 0.0, 0.0), (10.0, 0.0, 10.0)))
>>> index.blocked("乙", ((10.0, 0.5, 0.0), (0.0, 0.5, 10.0)))  # into him: wait until 10 s
10.0
>>> index.blocked("乙", ((10.0, 90.0, 0.0), (0.0, 90.0, 10.0))) is None  # far away
True
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterator, Sequence

from sheli.engine.paths.model import Via, waypoints

__all__ = [
    "CLEARANCE",
    "MARGIN",
    "Leg",
    "Point",
    "TimedPoint",
    "Walks",
    "closest",
    "each_way",
    "legs",
    "nearest",
    "walk_points",
    "ways",
]

#: the least distance between two bodies that walk at the same time, in 尺 (the bodies' 1.5
#: 尺 rule of the place layer, held at every moment of a walk)
CLEARANCE = 1.5
#: how far from ``CLEARANCE`` the measure by legs (:func:`nearest`) must be for its answer to
#: be the exact measure's (:func:`closest`, rounded to the millionth): between, that one tells
MARGIN = 1e-5
#: the cells of the walk index: so many 尺 a side, so many seconds long (a walk past the
#: crowd at the 堂西 looks only at the bodies in the cells its path crosses)
CELL = 12.0
BUCKET = 10.0

Point = tuple[float, float]
TimedPoint = tuple[float, float, float]
Box = tuple[float, float, float, float, float, float]
#: a leg: its box, where it sets off (x, y) and its velocity (x, y)
Leg = tuple[float, float, float, float, float, float, float, float, float, float]


def walk_points(
    pts: Sequence[Point], t0: float, pace: float, cap: float
) -> tuple[list[TimedPoint], float]:
    """The points of a walk through ``pts`` starting at ``t0``, and its seconds (at most
    ``cap``: a longer walk is one whose start the run did not know).

    >>> walk_points([(0.0, 0.0), (0.0, 10.0)], 5.0, 2.0, 90.0)
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


def ways(start: Point, via: Via | None, end: Point) -> list[list[Point]]:
    """The ways a walker may take, in the order tried: straight (through ``via``, its
    waypoints in order), then
    stepping to his right by one, two, three bodies at the middle of his longest leg — so
    that two who meet pass left side to left side (相左) — and last to his left.

    >>> [w[1] for w in ways((0.0, 0.0), None, (0.0, 10.0))][:3]  # north: his right is east
    [(0.0, 10.0), (1.5, 5.0), (3.0, 5.0)]
    """
    return list(each_way(start, via, end))


def each_way(start: Point, via: Via | None, end: Point) -> Iterator[list[Point]]:
    """:func:`ways` one by one: the ways round are made only if the straight one is not
    taken (it mostly is).

    >>> next(each_way((0.0, 0.0), None, (0.0, 10.0)))
    [(0.0, 0.0), (0.0, 10.0)]
    """
    pts = [start, *(w for w in waypoints(via) if w not in (start, end)), end]
    yield pts
    k = max(range(len(pts) - 1), key=lambda i: math.dist(pts[i], pts[i + 1]))
    (ax, ay), (bx, by) = pts[k], pts[k + 1]
    n = math.dist(pts[k], pts[k + 1])
    if n > 2 * CLEARANCE:
        rx, ry = (by - ay) / n, -(bx - ax) / n  # his right hand (x east, y north)
        for m in (1, 2, 3, -1, -2, -3):
            d = m * CLEARANCE
            mid = ((ax + bx) / 2 + rx * d, (ay + by) / 2 + ry * d)
            yield [*pts[: k + 1], mid, *pts[k + 1 :]]


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


def box(path: Sequence[TimedPoint]) -> Box:
    """The box a walk keeps to: x, y and time, each from and to.

    >>> box([(0.0, 5.0, 1.0), (4.0, 2.0, 3.0)])
    (0.0, 4.0, 2.0, 5.0, 1.0, 3.0)
    """
    xs, ys = [p[0] for p in path], [p[1] for p in path]
    return (min(xs), max(xs), min(ys), max(ys), path[0][2], path[-1][2])


def legs(path: Sequence[TimedPoint]) -> tuple[Leg, ...] | None:
    """Each leg of a walk: its box (x, y and time, each from and to), where it sets off and
    its velocity (尺 a second, x and y); None if its times go back somewhere or it leaps (a
    leg of no time that moves), where only the exact measure, :func:`closest`, tells.

    >>> legs([(0.0, 5.0, 1.0), (4.0, 1.0, 3.0), (4.0, 1.0, 9.0)])[0]
    (0.0, 4.0, 1.0, 5.0, 1.0, 3.0, 0.0, 5.0, 2.0, -2.0)
    >>> legs([(0.0, 0.0, 2.0), (1.0, 0.0, 1.0)]) is None
    True
    """
    out = []
    for (ax, ay, at), (bx, by, bt) in itertools.pairwise(path):
        if bt > at:
            vx, vy = (bx - ax) / (bt - at), (by - ay) / (bt - at)
        elif bt == at and ax == bx and ay == by:
            vx = vy = 0.0
        else:
            return None
        xs = (ax, bx) if ax <= bx else (bx, ax)
        ys = (ay, by) if ay <= by else (by, ay)
        out.append((xs[0], xs[1], ys[0], ys[1], at, bt, ax, ay, vx, vy))
    return tuple(out) if out else None


def nearest(
    mine: Sequence[Leg], theirs: Sequence[Leg], enough: float = 0.0, later: float = 0.0
) -> float:
    """How near two walks come, by their legs (:func:`legs`): what :func:`closest` measures,
    to a millionth (inf if they do not walk at the same time); it stops looking once they
    come nearer than ``enough``. ``later``: the seconds ``mine`` sets off later than its
    legs say. The legs go in order of time, so the two are gone through side by side, each
    leg measured against those of the other at the same time; two whose boxes are farther
    apart than the nearest found so far are not measured (the cheap way that most pairs of a
    crowd take).

    >>> one = legs([(0.0, 0.0, 0.0), (10.0, 0.0, 10.0)])
    >>> nearest(one, legs([(10.0, 2.0, 0.0), (0.0, 2.0, 10.0)]))  # they pass 2 尺 apart
    2.0
    >>> nearest(one, legs([(5.0, 5.0, 11.0), (6.0, 6.0, 12.0)]))
    inf
    >>> round(nearest(one, legs([(5.0, 5.0, 11.0), (6.0, 6.0, 12.0)]), later=2.0), 3)
    6.403
    """
    best = math.inf
    enough *= enough
    i = j = 0
    n, m = len(mine), len(theirs)
    while i < n and j < m:
        x0, x1, y0, y1, t0, t1, ax, ay, vx, vy = mine[i]
        u0, u1, v0, v1, s0, s1, bx, by, wx, wy = theirs[j]
        t0, t1 = t0 + later, t1 + later
        if t1 < s0:
            i += 1
            continue
        if s1 < t0:
            j += 1
            continue
        dx = u0 - x1 if u0 > x1 else (x0 - u1 if x0 > u1 else 0.0)
        dy = v0 - y1 if v0 > y1 else (y0 - v1 if y0 > v1 else 0.0)
        if dx * dx + dy * dy < best:
            lo = t0 if t0 > s0 else s0
            span = (t1 if t1 < s1 else s1) - lo
            # where the one is from the other at the start of the time both walk, and how
            # that moves over it
            px = ax + vx * (lo - t0) - bx - wx * (lo - s0)
            py = ay + vy * (lo - t0) - by - wy * (lo - s0)
            ex, ey = (vx - wx) * span, (vy - wy) * span
            e2 = ex * ex + ey * ey
            f = 0.0 if e2 == 0 else max(0.0, min(1.0, -(px * ex + py * ey) / e2))
            px, py = px + f * ex, py + f * ey
            d2 = px * px + py * py
            if d2 < best:
                best = d2
                if best < enough:
                    return math.sqrt(best)
        # on with the leg that ends first (both, if they end together)
        if t1 <= s1:
            i += 1
        if s1 <= t1:
            j += 1
    return math.sqrt(best)


def _keys(path: Sequence[TimedPoint], grow: float) -> set[tuple[int, int, int]]:
    """The cells of space and time a body on ``path`` passes through, each leg cut in
    pieces no longer than a cell or a bucket, each piece's box grown by ``grow`` in space:
    two bodies nearer than ``grow`` at one moment share a cell, the one's grown and the
    other's not (a long walk is not indexed by its whole box, which a crowd would fill).

    >>> sorted(_keys([(0.0, 0.0, 0.0), (30.0, 0.0, 7.0)], 0.0))
    [(0, 0, 0), (1, 0, 0), (2, 0, 0)]
    """
    out: set[tuple[int, int, int]] = set()
    add = out.add
    for (ax, ay, at), (bx, by, bt) in itertools.pairwise(path):
        dx, dy, dt = bx - ax, by - ay, bt - at
        if dx == 0 and dy == 0:
            # standing: the same cells, bucket after bucket (the cells of its pieces in turn)
            ix0, ix1 = int((ax - grow) // CELL), int((ax + grow) // CELL)
            iy0, iy1 = int((ay - grow) // CELL), int((ay + grow) // CELL)
            for it in range(int(at // BUCKET), int((at + dt) // BUCKET) + 1):
                for ix in range(ix0, ix1 + 1):
                    for iy in range(iy0, iy1 + 1):
                        add((ix, iy, it))
            continue
        n = max(1, math.ceil(max(abs(dx), abs(dy)) / CELL), math.ceil(dt / BUCKET))
        # each piece from where the one before ended: (k + 1) / n of the one is k / n of the next
        xa, ya, ta = ax, ay, int(at // BUCKET)
        for k in range(1, n + 1):
            f = k / n
            xb, yb, tb = ax + f * dx, ay + f * dy, int((at + f * dt) // BUCKET)
            if dx >= 0:
                ix0, ix1 = int((xa - grow) // CELL), int((xb + grow) // CELL)
            else:
                ix0, ix1 = int((xb - grow) // CELL), int((xa + grow) // CELL)
            if dy >= 0:
                iy0, iy1 = int((ya - grow) // CELL), int((yb + grow) // CELL)
            else:
                iy0, iy1 = int((yb - grow) // CELL), int((ya + grow) // CELL)
            if ix0 == ix1 and iy0 == iy1 and ta == tb:
                add((ix0, iy0, ta))
            else:
                for it in range(ta, tb + 1):
                    for ix in range(ix0, ix1 + 1):
                        for iy in range(iy0, iy1 + 1):
                            add((ix, iy, it))
            xa, ya, ta = xb, yb, tb
    return out


class Entry:
    """A body placed in the index: whose, his path (walking, then standing), its box and its
    legs (:func:`legs`); ``live`` false once the schedule has gone back before it
    (:meth:`Walks.drop`), ``indexed`` false once it has left its cells for good
    (:meth:`Walks.forget`)."""

    __slots__ = ("box", "indexed", "legs", "live", "path", "seen", "who")

    def __init__(self, who: str, path: tuple[TimedPoint, ...]) -> None:
        self.who = who
        self.path = path
        self.box = box(path)
        self.legs = legs(path)
        # (its cells are not kept, but worked out again to take it out: a long walk of a
        # big crowd is in a thousand cells, and the crowd's bodies in millions)
        self.indexed = True
        self.live = True
        self.seen = 0  # the last look (:meth:`Walks.near`) that met it


class Walks:
    """The bodies placed so far, walking or standing, in cells of space and time: a new walk
    is measured only against those in the cells its box meets, so that its cost is what is
    near it, not the size of the crowd. ``examined`` counts the bodies looked at in those
    cells, ``measured`` the pairs measured exactly (:func:`closest`): the tests of the
    schedule's cost read them."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int, int], list[Entry]] = {}
        self.looks = 0
        self.measured = 0
        self.examined = 0  # bodies looked at in the cells (then by their boxes)
        self.placed = 0
        # the bodies in the cells by when they end, the first first (:meth:`forget`)
        self.ending: list[tuple[float, int, Entry]] = []

    def add(self, who: str, path: tuple[TimedPoint, ...]) -> Entry:
        w = Entry(who, path)
        cells = self.cells
        for key in _keys(path, CLEARANCE):
            got = cells.get(key)
            if got is None:
                cells[key] = [w]
            else:
                got.append(w)
        self.placed += 1
        heapq.heappush(self.ending, (w.box[5], self.placed, w))
        return w

    def forget(self, before: float) -> None:
        """Take out of the cells, for good, the bodies that end before ``before``: when no
        walk to come starts before it, none would pass the test of time in :meth:`near`, so
        the answers are the same, the cells shorter and the index no bigger than the
        bodies of the last minutes (docs/timeline.md, "The cost").

        >>> index = Walks()
        >>> _ = index.add("甲", ((0.0, 0.0, 0.0), (10.0, 0.0, 10.0)))
        >>> index.forget(20.0)
        >>> index.cells, index.blocked("乙", ((10.0, 0.5, 30.0), (0.0, 0.5, 40.0)))
        ({}, None)
        """
        ending = self.ending
        while ending and ending[0][0] < before:
            w = heapq.heappop(ending)[2]
            if w.live:
                self._leave(w)

    def _leave(self, w: Entry) -> None:
        # (the cells it was put in: :func:`_keys` gives them again, in the same order)
        if not w.indexed:
            return
        for key in _keys(w.path, CLEARANCE):
            cell = self.cells[key]
            cell.remove(w)
            if not cell:
                del self.cells[key]
        w.indexed = False

    def drop(self, w: Entry) -> None:
        """Take a body out again (the schedule goes back before it was placed)."""
        w.live = False
        self._leave(w)

    def near(self, path: Sequence[TimedPoint]) -> list[Entry]:
        """The bodies in the cells ``path`` passes through, whose boxes come within
        ``CLEARANCE`` of its box in space and meet it in time, each once."""
        x0, x1, y0, y1, t0, t1 = box(path)
        g = CLEARANCE
        self.looks += 1
        look = self.looks
        out = []
        examined = 0
        cells = self.cells
        for key in _keys(path, 0.0):
            got = cells.get(key)
            if got is None:
                continue
            examined += len(got)
            for w in got:
                if w.seen == look:
                    continue
                w.seen = look
                u0, u1, v0, v1, s0, s1 = w.box
                if s1 < t0 or t1 < s0 or u0 - x1 >= g or x0 - u1 >= g:
                    continue
                if v0 - y1 >= g or y0 - v1 >= g:
                    continue
                out.append(w)
        self.examined += examined
        return out

    def clear(self, who: str, path: Sequence[TimedPoint]) -> bool:
        return self.blocked(who, path) is None

    def blocked(
        self, who: str, path: Sequence[TimedPoint], every: bool = False, enough: float = math.inf
    ) -> float | None:
        """None if ``path`` keeps ``CLEARANCE`` from every body placed but ``who``'s; else
        when the first body it comes too near ends (no use trying before), or with
        ``every`` the last of all those it comes too near (one who waits in a queue waits
        for those ahead of him at once, not one by one). With ``every``, a body that ends
        no later than one it is already known to come too near is not measured (it cannot
        make the answer later), and the answer is given as soon as it is ``enough`` (the
        caller wants no later one: the earliest of the ways it tries)."""
        until: float | None = None
        mine: tuple[Leg, ...] | None = None  # (its legs, once there is one to measure)
        legged = False
        for w in self.near(path):
            if w.who == who:
                continue
            end = w.box[5]
            if until is not None and end <= until:
                continue  # (with every: no later than the answer so far)
            self.measured += 1
            if not legged:
                mine, legged = legs(path), True
            if mine is not None and w.legs is not None:
                d: float | None = nearest(mine, w.legs, CLEARANCE - MARGIN)
                if d is not None and CLEARANCE - MARGIN <= d < CLEARANCE + MARGIN:
                    d = closest(path, w.path)  # too near the line to tell by legs
            else:
                d = closest(path, w.path)
            if d is not None and d < CLEARANCE:
                if not every:
                    return end
                until = end
                if until >= enough:
                    return until
        return until

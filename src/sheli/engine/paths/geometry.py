"""The geometry of walks: distances, crossings and clipping of legs, on the plan in 尺."""

from __future__ import annotations

import math
from typing import Any

from sheli.engine.paths.model import CELL, Vec


def _seg_dist2(p: Vec, a: Vec, b: Vec) -> float:
    """The square of the distance from p to the segment a–b."""
    ax, ay = a
    px, py = p
    dx, dy = b[0] - ax, b[1] - ay
    n = dx * dx + dy * dy
    # max(0, min(1, t)) written out (a hot function: every body near every leg)
    t = 0.0 if n == 0 else ((px - ax) * dx + (py - ay) * dy) / n
    t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
    qx, qy = ax + t * dx - px, ay + t * dy - py
    return qx * qx + qy * qy


def _clear(bodies: list[Vec], a: Vec, b: Vec, g2: float) -> bool:
    """Whether every one of ``bodies`` is at least the root of g2 from the segment a–b
    (``_seg_dist2(p, a, b) >= g2`` for each, written out: the ways round try many legs).

    >>> a, b = (-1.0, 0.0), (1.0, 0.0)
    >>> _clear([(0.0, 1.0), (2.0, 0.0)], a, b, 1.0), _clear([(0.0, 0.5)], a, b, 1.0)
    (True, False)
    """
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    n = dx * dx + dy * dy
    for px, py in bodies:
        t = 0.0 if n == 0 else ((px - ax) * dx + (py - ay) * dy) / n
        t = 0.0 if t < 0.0 else 1.0 if t > 1.0 else t
        qx, qy = ax + t * dx - px, ay + t * dy - py
        if qx * qx + qy * qy < g2:
            return False
    return True


def _cross(a: Vec, b: Vec, c: Vec, d: Vec) -> bool:
    """Whether the segments a–b and c–d cross (touching counts).

    >>> _cross((0, -1), (0, 1), (-1, 0), (1, 0)), _cross((0, 1), (0, 2), (-1, 0), (1, 0))
    (True, False)
    """
    # the orientation of each end against the other segment, written out (a hot function:
    # the walls are tried for every leg of every walk on the 堂)
    ax, ay = a
    bx, by = b
    cx, cy = c
    dx, dy = d
    d1 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
    d2 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx)
    if not d1 * d2 <= 0:
        return False
    d3 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    d4 = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax)
    return d3 * d4 <= 0 and (d1, d2) != (0, 0)


def _clip(hull: list[Vec], s: Vec, t: Vec) -> tuple[float, float, int, int] | None:
    """Where the leg s–t enters and leaves the convex polygon ``hull`` (anticlockwise): the
    fractions of the leg, and the sides it crosses; None if it misses it.

    >>> _clip([(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)], (-1.0, 1.0), (3.0, 1.0))
    (0.25, 0.75, 3, 1)
    """
    t0, t1, i, j = -math.inf, math.inf, -1, -1
    dx, dy = t[0] - s[0], t[1] - s[1]
    m = len(hull)
    for k in range(m):
        a, b = hull[k], hull[(k + 1) % m]
        # the outward normal of side k, and where the leg is on its inner side
        nx, ny = b[1] - a[1], a[0] - b[0]
        num = nx * (a[0] - s[0]) + ny * (a[1] - s[1])
        den = nx * dx + ny * dy
        if den == 0:
            if num < 0:
                return None
            continue
        f = num / den
        if den < 0 and f > t0:
            t0, i = f, k
        elif den > 0 and f < t1:
            t1, j = f, k
    if t0 >= t1 or i < 0 or j < 0:
        return None
    return t0, t1, i, j


def _leg_cells(pts: list[Vec], g: float) -> tuple[Any, ...]:
    """The legs of a walk (start, direction, squared length), the box of the walk grown by
    ``g``, and the cells of the grid of standing bodies (CELL) in that box: what
    :meth:`Paths._legs_near` reads.

    >>> legs, box, cells = _leg_cells([(0.0, 0.0), (10.0, 0.0)], 1.5)
    >>> legs, box, cells
    (((0.0, 0.0, 10.0, 0.0, 100.0),), (-1.5, -1.5, 11.5, 1.5), (-1, 1, -1, 0))
    """
    legs = []
    ax, ay = pts[0]
    x0 = x1 = ax
    y0 = y1 = ay
    # the legs and the box in one pass (min and max of each, the first of equals kept)
    for i in range(1, len(pts)):
        bx, by = pts[i]
        dx, dy = bx - ax, by - ay
        legs.append((ax, ay, dx, dy, dx * dx + dy * dy))
        if bx < x0:
            x0 = bx
        elif bx > x1:
            x1 = bx
        if by < y0:
            y0 = by
        elif by > y1:
            y1 = by
        ax, ay = bx, by
    box = (x0 - g, y0 - g, x1 + g, y1 + g)
    cells = (
        int(box[0] // CELL),
        int(box[2] // CELL),
        int(box[1] // CELL),
        int(box[3] // CELL),
    )
    return tuple(legs), box, cells


def _dedupe(pts: list[Vec]) -> list[Vec]:
    out = [pts[0]]
    for p in pts[1:]:
        if math.dist(p, out[-1]) > 1e-9:
            out.append(p)
    return out


def _around(a: Vec, b: Vec, c: Vec, k: float, side: str | None) -> Vec:
    """A point ``k`` from c, square to the leg a–b, on ``side`` (north or south) or else on
    the side of c the leg passes."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy)
    nx, ny = -dy / n, dx / n
    if side is not None:
        if abs(ny) < 0.3:
            return (c[0], c[1] + (k if side == "north" else -k))
        sign = 1.0 if (ny > 0) == (side == "north") else -1.0
    else:
        t = max(0.0, min(1.0, ((c[0] - a[0]) * dx + (c[1] - a[1]) * dy) / (n * n)))
        qx, qy = a[0] + t * dx - c[0], a[1] + t * dy - c[1]
        sign = -1.0 if qx * nx + qy * ny < 0 else 1.0
    return (c[0] + sign * nx * k, c[1] + sign * ny * k)


def _toward(p: Vec, a: Vec, b: Vec) -> list[Vec]:
    """The ways out from p: square to a–b toward the straight line a–b first, then away from
    it, then along it.

    >>> _toward((0.0, 5.0), (-5.0, 0.0), (5.0, 0.0))[0]
    (0.0, -1.0)
    """
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / n, dx / n
    if (a[0] - p[0]) * nx + (a[1] - p[1]) * ny < 0:
        nx, ny = -nx, -ny
    return [(nx + 0.0, ny + 0.0), (-nx + 0.0, -ny + 0.0), (dx / n, dy / n), (-dx / n, -dy / n)]


def _side(y: float, py: float) -> str:
    return "north" if y > py else "south"


def _xy(p: Vec) -> str:
    return f"({p[0]:.1f}, {p[1]:.1f})"

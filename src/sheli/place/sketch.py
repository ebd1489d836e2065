"""A text sketch of a venue's plan, to scale, for the terminal and the docs.

Each cell is two columns wide (room for one Chinese character) and covers ``cell`` 尺
east–west and ``cell`` 尺 north–south. North is up. ``::`` is the 堂, ``##`` the 室 and
房 (庠), ``==`` a 階, ``..`` the 庭 wall line; a fixture is marked by one character of its
name, and the legend under the sketch says which.

>>> from sheli.place import load_venue
>>> from sheli.place.sketch import sketch
>>> "侯" in sketch(load_venue("xie"), region="court")
True
"""

from __future__ import annotations

import math

from .model import Point, Venue

__all__ = ["REGIONS", "sketch"]

# name → (x0, y0, x1, y1, cell): what to draw and at what scale (尺 per cell)
REGIONS: dict[str, tuple[float, float, float, float, float]] = {
    "hall": (-46, -42, 46, 34, 2.0),  # the 堂 and the near 庭: 洗, 楅, 中, 縣
    "court": (-46, -330, 46, 34, 10.0),  # the whole 庭 to the 門: 侯, 乏
}
# Not marked: areas and lines are drawn as such; named points (階閒, 觶南 …) are relations
# on the plan rather than things standing there.
_SKIP_KINDS = ("area", "line", "wall", "point")


def sketch(venue: Venue, region: str = "hall") -> str:
    """The plan as text: a grid, then a legend of the marks with their coordinates in 尺."""
    if region not in REGIONS:
        raise ValueError(f"unknown region {region!r}; regions: {', '.join(REGIONS)}")
    x0, y0, x1, y1, cell = REGIONS[region]
    cols = math.floor((x1 - x0) / cell) + 1
    rows = math.floor((y1 - y0) / cell) + 1

    def cell_of(x: float, y: float) -> tuple[int, int]:
        return (round((y1 - y) / cell), round((x - x0) / cell))

    grid = [["  " for _ in range(cols)] for _ in range(rows)]
    for r in range(rows):
        for c in range(cols):
            x, y = x0 + c * cell, y1 - r * cell
            area = venue.area(Point(x, y))
            if area in ("室", "房"):
                grid[r][c] = "##"
            elif area == "堂":
                grid[r][c] = "::"
            elif area == "階":
                grid[r][c] = "=="
            elif area in ("門外", "宮外"):
                grid[r][c] = "  "
    court = venue.fixtures["庭"].extent
    assert court is not None
    # the walls of the 庭: its east, west and south sides, up to the back of the house
    back = venue.platform.y1
    (_, c_west), (_, c_east) = cell_of(court.x0, 0), cell_of(court.x1, 0)
    r_top, r_south = cell_of(0, back)[0], cell_of(0, court.y0)[0]
    for r in range(max(r_top, 0), min(r_south, rows - 1) + 1):
        for c in (c_west, c_east):
            if 0 <= c < cols:
                grid[r][c] = ".."
    if 0 <= r_south < rows:
        for c in range(max(c_west, 0), min(c_east, cols - 1) + 1):
            grid[r_south][c] = ".."

    legend: list[str] = []
    used: dict[tuple[int, int], str] = {}
    for f in venue.fixtures.values():
        if f.kind in _SKIP_KINDS:
            continue
        if not (x0 <= f.x <= x1 and y0 <= f.y <= y1):
            continue
        rc = cell_of(f.x, f.y)
        if rc in used:
            legend.append(f"  ({used[rc]}) {f.name} ({_n(f.x)}, {_n(f.y)})")
            continue
        mark = f.name[0] if len(f.name) == 1 or f.name[0] not in "左右東西上下衆" else f.name[-1]
        if f.name[-1].isdigit():
            mark = "衆"
        grid[rc[0]][rc[1]] = mark
        used[rc] = mark
        legend.append(f"  {mark} {f.name} ({_n(f.x)}, {_n(f.y)})")
    head = (
        f"{venue.title} ({venue.key}): x {_n(x0)}…{_n(x1)}, y {_n(y0)}…{_n(y1)} 尺, "
        f"one cell = {_n(cell)} 尺, north up"
    )
    body = "\n".join("".join(row).rstrip() for row in grid)
    return head + "\n" + body + "\n" + "\n".join(legend)


def _n(v: float) -> str:
    return f"{v:g}"

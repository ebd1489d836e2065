"""The model of the walks (sheli/place/paths.yaml): its routes and the faults a walk may have."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, NamedTuple, cast

import msgspec

from sheli.yamlfile import load_yaml

PATHS_FILE = Path(__file__).resolve().parents[2] / "place" / "paths.yaml"

Vec = tuple[float, float]

#: The place or places a walk goes by (a step's ``via``): one point, or the waypoints of a
#: route the text gives in words (直西 … 及 …, 折而北), in order.
Via = Vec | tuple[Vec, ...]


def waypoints(via: Via | None) -> list[Vec]:
    """The points a walk goes by, in order, from a step's ``via`` as the run resolved it.

    >>> waypoints(None), waypoints((1.0, 2.0)), waypoints(((1.0, 2.0), (3.0, 4.0)))
    ([], [(1.0, 2.0)], [(1.0, 2.0), (3.0, 4.0)])
    """
    if via is None:
        return []
    if via and isinstance(via[0], tuple):
        return [(float(p[0]), float(p[1])) for p in via]
    x, y = cast(Vec, via)
    return [(float(x), float(y))]


#: The side of a cell of the grid of standing bodies, in 尺.
CELL = 8.0

#: How many legs :meth:`Paths._crosses` remembers before it begins again.
CROSSED = 50_000

#: How many walks :meth:`Paths._plain` remembers before it begins again: a group's walks come
#: again round after round (the default run's 1,382 walks are 773 distinct), and the bound keeps
#: a run of a thousand 衆耦 from keeping every walk it checked.
STRICT_SEEN = 4_096

#: Beyond the crowd the model walks round (paths.yaml crowd), the way round is looked for (by
#: the cheap side step alone) only where no more than this many stand in the walk's way (at
#: the head of a 階, in a row along the 堂's edge), not through a crowd (:meth:`Paths.check`).
FEW = 6

#: The sides of the polygon a walk goes round one who stands alone by (:meth:`Paths._arc`).
ROUND_SIDES = 8

#: The most bodies of a group a walk goes round along its edge (:meth:`Paths._round_groups`),
#: and how far more than the passing distance its edge keeps from the plan's edges.
GROUP = 24
PLAN_MARGIN = 0.5

#: The kinds of fault the engine refuses: a step that goes off the route its 經 names, through
#: the 序 or a 楹, over the 堂's edge other than by a 階 (into a 室 or 房 other than by its
#: door), or through another's body where no way round those who stand is found, fails like
#: every other check. With more 衆耦 than the model walks round (paths.yaml crowd) a walk
#: through a body is a warning, one a line, counted (docs/place.md "Walks").
STRICT = frozenset({"route", "wall", "pillar", "edge", "body"})


class Fault(NamedTuple):
    """One thing a walk went through, or a route it did not take."""

    kind: str  # body, pillar, wall, edge, route
    what: str


class PathModel(msgspec.Struct, frozen=True):  # made in C at import, not compiled
    """The data of ``paths.yaml``: the 楹's size, how far out one rounds the 堂's corner, the
    routes by the words that name them, whose 階 is which."""

    pillar_radius: float
    corner: float
    passing: float
    routes: dict[str, dict[str, Any]]
    own_stair: dict[str, str]
    default_stair: str
    #: the most 衆耦 with whom the engine refuses a walk through a body (more: a warning)
    crowd_pairs: int | None = None

    def walks_round(self, pairs: int) -> bool:
        """Whether the model walks round every crowd of ``pairs`` 衆耦 (paths.yaml crowd):
        a walk through a body is then refused and the way round searched for.

        >>> m = load_paths()
        >>> m.walks_round(m.crowd_pairs), m.walks_round(m.crowd_pairs + 1)
        (True, False)
        """
        return self.crowd_pairs is None or pairs <= self.crowd_pairs


@cache
def load_paths(path: Path | None = None) -> PathModel:
    """Read ``paths.yaml``; every route must give its source.

    >>> m = load_paths()
    >>> m.routes["鉤楹"]["pillar_side"], m.own_stair["主人"]
    ('north', '阼階')
    """
    # libyaml's parse (sheli.yamlfile): the data yaml.safe_load gives, in a fraction of its time
    raw = load_yaml((path or PATHS_FILE).read_text(encoding="utf-8"))
    routes = {str(k): dict(v) for k, v in raw["routes"].items()}
    for k, v in routes.items():
        if not v.get("source"):
            raise ValueError(f"route {k} gives no source")
    own = raw["own_stair"]
    return PathModel(
        pillar_radius=float(raw["pillar"]["radius"]["value"]),
        corner=float(raw["corner"]["value"]),
        passing=float(raw["passing"]["value"]),
        routes=routes,
        own_stair={str(k): str(v) for k, v in (own.get("by_role") or {}).items()},
        default_stair=str(own["default"]),
        crowd_pairs=int(raw["crowd"]["pairs"]) if "crowd" in raw else None,
    )


def route_words(jing: str | None, model: PathModel | None = None) -> list[str]:
    """The routes a step's 經 names, longest words first (鉤楹内 before 鉤楹).

    >>> route_words("升堂揖豫則鉤楹内")
    ['鉤楹内']
    >>> route_words("司射遂進由堂下北面命曰不貫不釋")
    ['由堂下']
    """
    if not jing:
        return []
    return list(_route_words(jing, tuple((model or load_paths()).routes)))


@cache
def _route_words(jing: str, routes: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for w in sorted(routes, key=len, reverse=True):
        if w in jing and not any(w in o for o in out):
            out.append(w)
    return tuple(out)

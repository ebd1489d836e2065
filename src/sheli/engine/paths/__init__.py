"""Walks: the way each body goes in a step, and what it may not go through.

A step moves its actor's body from where it stood to where the log puts it (for a role that
is several people, each member from his last place to his new one). The walk is straight,
by the step's ``via`` where it names one (a place, or the waypoints of a route in words), by
the foot and the top of the 階 where he goes up or down (升, 降: a 階 is the way up and
down), and round the 堂's south corner where a walk in the 庭 would cut across it. On that
walk nobody goes

- through another body (a standing body is a circle of the footprint, sheli/place/bodies.yaml);
- through a 楹, the 序 (the walls of the venue), or over the 堂's edge other than by a 階;

and the routes the 經 names are taken: 鉤楹 and 由楹内 pass north of the 楹, 由楹外 south of
it, 由堂下 stays in the 庭, 由其階 goes by one's own 階 (sheli/place/paths.yaml).

:meth:`Paths.walk` gives the faults of one walk, each a :class:`Fault` of a kind (``body``,
``pillar``, ``wall``, ``edge``, ``route``) with what went wrong.

>>> from sheli.place import load_venue
>>> paths = Paths(load_paths(), load_venue("xie"), footprint=2.0)
>>> paths.stand("甲", [(0.0, -20.0)])
>>> paths.stand("乙", [(0.0, -25.0)])
>>> paths.walk("甲", [(0.0, -30.0)], verb="進")   # 乙 is in his way: he goes round him
[]
>>> ring = [(8.0, -32.0), (10.0, -32.0), (12.0, -32.0), (8.0, -30.0), (12.0, -30.0)]
>>> for i, q in enumerate([*ring, (8.0, -28.0), (10.0, -28.0), (12.0, -28.0)]):
...     paths.stand(f"丙{i}", [q])
>>> {f.kind for f in paths.walk("甲", [(10.0, -30.0)], verb="進")}  # boxed in: no way
{'body'}
"""

from sheli.engine.paths.check import Paths, walk_faults
from sheli.engine.paths.model import (
    PATHS_FILE,
    STRICT,
    Fault,
    PathModel,
    Via,
    load_paths,
    route_words,
    waypoints,
)

__all__ = [
    "PATHS_FILE",
    "STRICT",
    "Fault",
    "PathModel",
    "Paths",
    "Via",
    "load_paths",
    "route_words",
    "walk_faults",
    "waypoints",
]

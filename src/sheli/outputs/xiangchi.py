"""襄尺 read from a run: where the 臣 whose 耦 is the 君 stood at each arrow the 君 loosed.

襄尺 is judged by the scoring layer (:func:`sheli.scoring.five.judge_five`, its threshold in
``sheli/scoring/data/five.yaml``) from the distances this module measures in a run's records:
the places are the engine's, so the reading of them sits above it, with the run's other
readers.

>>> from sheli.engine import run
>>> places = xiangchi_places(run("yanshe", seed=0).records)
>>> min(places[(2, "賓耦", "上射")]) > 0
True
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from sheli.engine.records import Shot, Step

#: the 君 as an archer: 公 in 大射儀 and 燕禮, 君 in the 記
JUN_NAMES = ("公", "君")


def xiangchi_places(records: Iterable[Any]) -> dict[tuple[int, str, str], list[float]]:
    """From a run's records: for the 臣 whose 耦 is the 君, by (round, pair, seat), how far
    further from the 侯 than the 君 he stood (尺) at each arrow the 君 loosed.

    The 侯 lies to the south of the 物 in every venue (y grows to the north), so further from
    the 侯 is a larger y.

    >>> from sheli.engine import run
    >>> sorted(xiangchi_places(run("yanshe", seed=0).records))[:1]
    [(2, '賓耦', '上射')]
    """
    pos: dict[str, tuple[float, float]] = {}
    people: dict[tuple[int, str, str], str] = {}  # (round, pair, seat) → who shot there
    # each arrow of the 君: round, pair, his 耦's seat, the 君's y, everyone's place then
    moments: list[tuple[int, str, str, float, dict[str, tuple[float, float]]]] = []
    for e in records:
        if isinstance(e, Step):
            d = e.to_json()
            if d.get("x") is not None and d.get("y") is not None and d.get("actor"):
                pos[str(d["actor"])] = (float(d["x"]), float(d["y"]))
        elif isinstance(e, Shot):
            people[(e.round, e.pair, e.archer)] = e.person
            if e.person in JUN_NAMES and e.person in pos:
                seat = "上射" if e.archer == "下射" else "下射"
                moments.append((e.round, e.pair, seat, pos[e.person][1], dict(pos)))
    out: dict[tuple[int, str, str], list[float]] = defaultdict(list)
    for rnd, pair, seat, jun_y, then in moments:
        chen = people.get((rnd, pair, seat))
        if chen is not None and chen in then:
            out[(rnd, pair, seat)].append(then[chen][1] - jun_y)
    return dict(out)

"""The live event's state, derived from its recorded inputs by re-running the engine.

- :mod:`sheli.serve.live.run`: the engine run for the recorded outcomes (:class:`Derived`),
  made in this process or a worker;
- :mod:`sheli.serve.live.state`: the inputs replayed (:class:`EventState`: the arrows, what
  the director has advanced, taps, the drum, the 五物's questions) and the runs they give;
- :mod:`sheli.serve.live.event`: :class:`LiveEvent`, the state with the views every screen is
  drawn from.

Sending the views to the screens (the open streams, each holding the newest message) is the
fan-out's (:mod:`sheli.serve.streams`); running the engine in a worker process, the server's
(:mod:`sheli.serve.server`).

>>> ev = LiveEvent({"id": "e1", "created_ms": 0, "rite": "xiangshe", "venue": "xie",
...                 "pairs": 0, "guests_shoot": False, "dafu": 1, "cast": []})
>>> ev.state(now=0)["step"]["cite"]
'xiangshe:1'
"""

from __future__ import annotations

from sheli.serve.live.event import LiveEvent, audience_english, english_step, marks, passage
from sheli.serve.live.run import (
    Anchor,
    ArrowKey,
    Derived,
    LiteRun,
    LiveOutcomes,
    compute_derived,
    compute_derived_pickled,
    engine_run,
    plan_run,
    plan_shots,
    unpickle_derived,
)
from sheli.serve.live.state import (
    DETAIL,
    INTERVAL_RANGE_MS,
    Arrow,
    EventState,
    iso,
    judge_tap,
    tap_tolerance_ms,
)

__all__ = [
    "DETAIL",
    "INTERVAL_RANGE_MS",
    "Anchor",
    "Arrow",
    "ArrowKey",
    "Derived",
    "EventState",
    "LiteRun",
    "LiveEvent",
    "LiveOutcomes",
    "audience_english",
    "compute_derived",
    "compute_derived_pickled",
    "engine_run",
    "english_step",
    "iso",
    "judge_tap",
    "marks",
    "passage",
    "plan_run",
    "plan_shots",
    "tap_tolerance_ms",
    "unpickle_derived",
]

"""The state of a live event: its recorded inputs replayed, and the run they give.

Nothing here is stored: :class:`EventState` replays the append-only inputs of the store
(arrows, corrections, advances, taps, drum settings, the 五物's questions) and the engine is
run for the recorded outcomes (:mod:`sheli.serve.live.run`). After a restart the same inputs
give the same state. The runs for the likely next inputs are computed ahead (by the server's
worker) and kept here until an input makes one current.

The director's place is kept as an *anchor* (round, spec line, actor, verb, and which
occurrence of that act it is), not as a bare index: a recorded hit adds acts (the 獲者's
獲, the 釋獲者's 釋獲) before later steps, and the director must stay on the act he was on.

>>> ev = EventState({"id": "e1", "created_ms": 0, "rite": "xiangshe", "venue": "xie",
...                  "pairs": 0, "guests_shoot": False, "dafu": 1, "cast": []})
>>> ev.current(), ev.derived().steps[0].cite, ev.version
(0, 'xiangshe:1', 0)
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sheli.outputs.runofshow import METRE_PER_CHI
from sheli.serve import wuwu
from sheli.serve.live.run import Anchor, ArrowKey, Derived, Outcome_, compute_derived, plan_shots

#: Assumption (docs/serve.md): a release tap counts as on the drum's 節 when it falls within
#: this many milliseconds of a beat, or within this fraction of the interval if that is less.
#: The text asks only that the shot answer the drum (不鼓不釋, xiangshe:248; 注 不與鼓節相應，
#: 不釋算也); the tolerance allows for a touch screen's latency and a human hand (both ~50–100 ms).
TAP_TOLERANCE_MS = 120
TAP_TOLERANCE_FRACTION = 0.2
#: the optional fields of an arrow's record (the outcome fields of docs/scoring.md)
DETAIL = ("x", "y", "through", "loosed_s", "struck", "flight")
#: the drum's interval before the director sets one (an assumption: a slow, even beat)
DEFAULT_INTERVAL_MS = 2000
INTERVAL_RANGE_MS = (250, 10000)


def tap_tolerance_ms(interval_ms: int) -> float:
    """The on-beat tolerance for a drum of this interval.

    >>> tap_tolerance_ms(2000), tap_tolerance_ms(400)
    (120, 80.0)
    """
    return min(TAP_TOLERANCE_MS, TAP_TOLERANCE_FRACTION * interval_ms)


def judge_tap(t_ms: int, t0_ms: int, interval_ms: int) -> tuple[bool, int]:
    """(on_beat, offset in ms from the nearest beat t0 + k·interval, k ≥ 0).

    >>> judge_tap(10_050, 0, 1000), judge_tap(10_500, 0, 1000), judge_tap(-30, 0, 1000)
    ((True, 50), (False, 500), (True, -30))
    """
    k = max(0, round((t_ms - t0_ms) / interval_ms))
    offset = t_ms - (t0_ms + k * interval_ms)
    return abs(offset) <= tap_tolerance_ms(interval_ms), int(offset)


def iso(ms: int | None) -> str | None:
    """Milliseconds since the epoch → ISO 8601 UTC, e.g. ``2026-11-22T03:10:00.123Z``.

    >>> iso(0), iso(None)
    ('1970-01-01T00:00:00.000Z', None)
    """
    if ms is None:
        return None
    t = dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


@dataclass
class Arrow:
    """The effective record of one arrow (the last record or correction of it)."""

    round: int
    pair: str
    seat: str
    arrow: int
    hit: bool
    on_beat: bool | None
    t_ms: int
    input_seq: int
    corrections: int = 0
    #: the optional fields given (x, y, through, loosed_s, struck, flight): docs/serve.md
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> ArrowKey:
        return (self.round, self.pair, self.seat, self.arrow)

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "pair": self.pair,
            "seat": self.seat,
            "arrow": self.arrow,
            "hit": self.hit,
            "on_beat": self.on_beat,
            "t": iso(self.t_ms),
            "input": self.input_seq,
            "corrections": self.corrections,
            **self.detail,
        }


class EventState:
    """An event's inputs replayed: what was recorded and advanced, and the runs they give."""

    def __init__(self, config: dict[str, Any], inputs: Sequence[dict[str, Any]] = ()) -> None:
        self.config = config
        self.id: str = config["id"]
        self.version = 0
        self.arrows: dict[ArrowKey, Arrow] = {}
        self.first_record: dict[ArrowKey, dict[str, Any]] = {}
        self.taps: dict[ArrowKey, dict[str, Any]] = {}
        self.anchor: Anchor | None = None
        self.index = 0
        self.reached: dict[Anchor, int] = {}  # act → when it first became the current step
        self.started_ms: int | None = None
        self.arrived_ms: int | None = None  # when the current step became current
        # the last "next moment": the act it moved from, when, and the version it made (the
        # audience screen plays the acts between at the timeline's pace, docs/serve.md)
        self.moved_from: Anchor | None = None
        self.moved_ms: int | None = None
        self.moved_version: int | None = None
        self.drum = {"interval_ms": DEFAULT_INTERVAL_MS, "t0_ms": None, "running": False}
        self._derived: Derived | None = None
        self._derived_key: Any = None
        self.ahead_runs: dict[Any, Derived] = {}  # runs computed ahead for likely next inputs
        self.pending: dict[Any, Any] = {}  # key → future of a run being computed ahead
        self.wanted: set[Any] = set()  # runs a request is waiting for (never cancelled)
        self._order: list[ArrowKey] | None = None
        self._expected: set[ArrowKey] | None = None
        self.run_rev = 0  # counts the runs the event has had (a performer's cues change)
        self.dirty = False  # an input not yet published
        self.names = {c["actor"]: c["name"] for c in config.get("cast", ()) if c.get("name")}
        self.questions = wuwu.Questions()  # the 五物 asked of the audience, and the answers
        for inp in inputs:
            self.apply(inp)

    # ------------------------------------------------------------------ replay
    def apply(self, inp: dict[str, Any]) -> None:
        """Apply one stored input (in log order); the version counts them."""
        kind, body, t = inp["kind"], inp["body"], inp["t_ms"]
        if kind in ("arrow", "correct"):
            a = Arrow(
                body["round"],
                body["pair"],
                body["seat"],
                body["arrow"],
                body["hit"],
                body.get("on_beat"),
                t,
                inp["seq"],
                detail={k: body[k] for k in DETAIL if k in body},
            )
            old = self.arrows.get(a.key)
            if old is not None:
                a.corrections = old.corrections + 1
            else:
                self.first_record[a.key] = a.to_dict()
            self.arrows[a.key] = a
        elif kind == "advance":
            if self.started_ms is None:
                self.started_ms = t
                if self.anchor is None and body.get("from_anchor"):
                    self.reached.setdefault(tuple(body["from_anchor"]), t)
            self.anchor = tuple(body["anchor"])
            self.index = body["index"]
            self.arrived_ms = t
            played = body.get("request", {}).get("moment") == 1 and body.get("from_anchor")
            self.moved_from = tuple(body["from_anchor"]) if played else None
            self.moved_ms = t
            self.moved_version = self.version + 1
            self.reached.setdefault(self.anchor, t)
        elif kind == "tap":
            self.taps[(body["round"], body["pair"], body["seat"], body["arrow"])] = body
        elif kind == "question":
            self.questions.apply(body, t)
        elif kind == "drum":
            self.drum = {
                "interval_ms": body["interval_ms"],
                "t0_ms": body.get("t0_ms"),
                "running": body["running"],
            }
        self.version += 1

    # ------------------------------------------------------------------ the derived run
    def outcomes(self) -> dict[ArrowKey, Outcome_]:
        out = {}
        for k, a in self.arrows.items():
            on_beat = a.on_beat
            if on_beat is None and k in self.taps:
                on_beat = self.taps[k]["on_beat"]
            struck = a.detail.get("struck")
            out[k] = (a.hit, on_beat, struck) if struck else (a.hit, on_beat)
        return out

    @property
    def factor(self) -> float:
        """The floor's scale: the 侯道 in metres the director gave / its full 300 尺."""
        m = self.config.get("hou_dao_m")
        return float(m) / (300 * METRE_PER_CHI) if m else 1.0

    @staticmethod
    def run_key(outcomes: dict[ArrowKey, Outcome_]) -> Any:
        """What decides the run: the hits and their marks, and what a miss struck (a 過 is
        撻'd, xiangshe:350). A miss is never counted, whatever its mark, so it changes nothing
        but its shot line's ``on_beat``, which the views and the export take from the record
        (:meth:`shot_on_beat`); an unrecorded arrow is already a miss."""
        return tuple(sorted((k, v) for k, v in outcomes.items() if v[0] or len(v) > 2))

    def shot_on_beat(self, k: ArrowKey) -> bool | None:
        """The effective on_beat of a recorded arrow: its mark, else its tap's judgment."""
        a = self.arrows.get(k)
        if a is None:
            return None
        if a.on_beat is not None:
            return a.on_beat
        tap = self.taps.get(k)
        return tap["on_beat"] if tap else None

    def detail(self, k: ArrowKey) -> dict[str, Any]:
        """The optional fields of a recorded arrow (docs/scoring.md): those the scorer gave,
        and, when he gave no ``loosed_s``, the time of his release tap (seconds since the
        event was created: one origin for every arrow of the event)."""
        a = self.arrows.get(k)
        if a is None:
            return {}
        out = dict(a.detail)
        tap = self.taps.get(k)
        if "loosed_s" not in out and tap is not None:
            out["loosed_s"] = round((tap["t_ms"] - self.config.get("created_ms", 0)) / 1000, 3)
        return out

    def compute(self, outcomes: dict[ArrowKey, Outcome_]) -> Derived:
        """Run the engine for these outcomes, now, in this process."""
        return compute_derived(self.config, self.factor, self.names, outcomes)

    def derived(self) -> Derived:
        """The engine run for the recorded outcomes: cached, or computed ahead of time (see
        :meth:`speculation_jobs`; a run still being computed ahead is waited for), else run
        now."""
        outcomes = self.outcomes()
        key = self.run_key(outcomes)
        if self._derived is None or key != self._derived_key:
            ahead = self.ahead_runs.pop(key, None)
            fut = self.pending.get(key) if ahead is None else None
            if fut is not None and not fut.cancel():
                try:  # the worker is on it: waiting costs less than starting again
                    ahead = fut.result(timeout=10)
                except Exception:
                    ahead = None
            self.use(key, ahead if ahead is not None else self.compute(outcomes))
        assert self._derived is not None
        return self._derived

    def use(self, key: Any, d: Derived) -> None:
        """Make ``d`` (the run for ``key``) the event's current run."""
        if key != self._derived_key or self._derived is None:
            self.run_rev += 1
        self._derived = d
        self._derived_key = key
        # a run computed ahead stays worth keeping while its outcomes hold all of these (the
        # runs foreseen before the first arrow, say, computed while the first state was)
        now = set(key)
        for k in [k for k in self.ahead_runs if not now.issubset(k)]:
            del self.ahead_runs[k]

    def has_plan(self) -> bool:
        """Whether the arrows of the event are known (:meth:`set_plan`)."""
        return self._order is not None

    def run_for(self, key: Any) -> Derived | None:
        """The current run if it is the one for ``key`` (:meth:`run_key`), else None."""
        return self._derived if self._derived_key == key else None

    def set_plan(self, shots: list[ArrowKey] | None) -> None:
        """The arrows of the event in the order they are shot (:func:`plan_shots`), or None
        if no whole run gives them (this run's own are then used)."""
        if shots is None:
            shots = [(s.round, s.pair, s.archer, s.arrow) for s in self.derived().shots]
        self._order = [k for k in shots if k[1] != "誘射"]
        self._expected = set(shots)

    def store_ahead(self, key: Any, d: Derived) -> None:
        """Keep a run computed ahead (a few at most: the oldest are dropped)."""
        self.ahead_runs[key] = d
        while len(self.ahead_runs) > 6:
            self.ahead_runs.pop(next(iter(self.ahead_runs)))

    def next_arrows(self) -> list[tuple[ArrowKey, tuple[bool, bool | None]]]:
        """The arrows most likely to be recorded next, each with the outcome that would change
        the run (a hit; in round 3 a hit on the drum): for each seat, the first unrecorded
        arrow after the one it recorded last, in the order they are shot."""
        order = self.shot_order()
        latest: dict[str, tuple[int, ArrowKey]] = {}
        for k, a in self.arrows.items():
            if k[2] not in latest or a.input_seq > latest[k[2]][0]:
                latest[k[2]] = (a.input_seq, k)
        last_any = max(latest.values(), default=None)
        out = []
        for seat in ("上射", "下射"):
            # after this seat's last record; a seat with none follows the other (拾發: the
            # two shoot in turn, xiangshe:147)
            mine = latest.get(seat) or last_any
            start = order.index(mine[1]) + 1 if mine and mine[1] in order else 0
            for k in order[start:] + order[:start]:
                if k[2] == seat and k not in self.arrows:
                    out.append((k, (True, True if k[0] == 3 else None)))
                    break
        return out

    def shot_order(self) -> list[ArrowKey]:
        """Every recordable arrow (the 誘射 left out), in the order they are shot."""
        if self._order is None:
            self.set_plan(plan_shots(self.config))
        assert self._order is not None
        return self._order

    def speculation_jobs(self) -> list[tuple[Any, dict[ArrowKey, Outcome_]]]:
        """(key, outcomes) of the runs worth computing ahead: the next likely hits."""
        base = self.outcomes()
        jobs = []
        # the likeliest only: the first in shot order of each seat's next (the two shoot in
        # turn, and each run computed ahead costs the server the unpickling of a whole run)
        order = {k: i for i, k in enumerate(self.shot_order())}
        last = max((a.input_seq, k) for k, a in self.arrows.items()) if self.arrows else None
        pos = order.get(last[1], -1) if last else -1
        nxt = sorted(self.next_arrows(), key=lambda kv: (order[kv[0]] - pos - 1) % len(order))
        likely = nxt[:1]
        if not self.arrows:
            # nothing recorded yet: the scorers may begin with any round (the first, 不釋獲,
            # is often left unrecorded), so the first arrow of each round is foreseen, once,
            # before the event starts
            firsts: dict[int, ArrowKey] = {}
            for k in order:
                firsts.setdefault(k[0], k)
            likely = [(k, (True, True if k[0] == 3 else None)) for k in firsts.values()]
        for k, v in likely:
            outcomes = {**base, k: v}
            key = self.run_key(outcomes)
            if key != self._derived_key and key not in self.ahead_runs and key not in self.pending:
                jobs.append((key, outcomes))
        return jobs

    def current(self, d: Derived | None = None) -> int:
        d = d or self.derived()
        return d.locate(self.anchor, self.index)

    def expected_shots(self) -> set[ArrowKey]:
        """Every arrow the event's rounds have. Which arrows are shot does not depend on their
        outcomes, so a whole seeded run of the event gives them (and this run's own when no
        seed gives a whole run)."""
        if self._expected is None:
            self.set_plan(plan_shots(self.config))
        assert self._expected is not None
        return self._expected

    def start_index(self, d: Derived) -> int:
        """The step the clock started on (the one current at the first advance)."""
        first = min(self.reached.items(), key=lambda kv: kv[1], default=None)
        return d.locate(first[0], 0) if first else 0

    def reached_at(self, d: Derived) -> dict[int, int]:
        """Step index → when the director first made it the current step."""
        out: dict[int, int] = {}
        for a, t in self.reached.items():
            j = d.index_of.get(a)
            if j is not None:
                out[j] = min(t, out.get(j, t))
        return out

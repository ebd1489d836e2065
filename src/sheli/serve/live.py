"""The live state of an event, derived from its recorded inputs by re-running the engine.

Nothing here is stored: :class:`LiveEvent` replays the append-only inputs of the store
(arrows, corrections, advances, taps, drum settings) and the engine is run with an outcome
source built from the recorded arrows (:class:`LiveOutcomes`; an arrow not yet recorded is a
miss, marked pending). After a restart the same inputs give the same state.

The director's place is kept as an *anchor* (round, spec line, actor, verb, and which
occurrence of that act it is), not as a bare index: a recorded hit adds acts (the 獲者's
獲, the 釋獲者's 釋獲) before later steps, and the director must stay on the act he was on.

>>> ev = LiveEvent({"id": "e1", "created_ms": 0, "rite": "xiangshe", "venue": "xie",
...                 "pairs": 0, "guests_shoot": False, "dafu": 1, "cast": []})
>>> s = ev.state(now=0)
>>> s["step"]["index"], s["step"]["cite"], s["version"]
(0, 'xiangshe:1', 0)
"""

from __future__ import annotations

import datetime as dt
import json
import pickle
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from types import SimpleNamespace
from typing import Any

from sheli import collector, engine, text
from sheli.engine import venue_plan
from sheli.engine.env import VerbError
from sheli.engine.records import Record, Scene, Shot, Step, Tally, accept
from sheli.i18n import translation
from sheli.outputs.cues import roles
from sheli.outputs.english import ROUNDS_EN, announcement_en, gloss, label
from sheli.outputs.render import EnglishTable
from sheli.outputs.runofshow import METRE_PER_CHI, Estimate, estimate
from sheli.rite.loader import SpecError
from sheli.scoring.outcomes import Outcome
from sheli.serve import wuwu
from sheli.serve.hou import target_for
from sheli.text.commentary import notes_for

ArrowKey = tuple[int, str, str, int]  # round, pair, seat (上射/下射), arrow
#: an arrow's outcome as the run needs it: (hit, on_beat), or (hit, on_beat, struck) when it
#: struck something else (docs/scoring.md)
Outcome_ = tuple[bool, bool | None] | tuple[bool, bool | None, str]
Anchor = tuple[int, str, str, str, int]  # round, file:line, actor, verb, occurrence

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


#: engine runs one at a time in a process (run_spec's interpreter is swapped while it runs)
ENGINE_LOCK = threading.Lock()


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


def marks(shots: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The arrows of the round with a place on the 侯, as the audience screen draws them.

    >>> m = marks([{"pair": "上耦", "seat": "上射", "arrow": 1, "hit": True, "x": 1.0, "y": 2.0,
    ...             "hou": "采侯", "name": None, "archer": "上耦上射"}, {"x": None}])
    >>> [(a["pair"], a["arrow"], a["x"], a["y"], a["through"], a["hou"]) for a in m]
    [('上耦', 1, 1.0, 2.0, False, '采侯')]
    """
    keep = ("pair", "seat", "archer", "name", "arrow", "hit", "x", "y")
    return [
        {k: s.get(k) for k in keep} | {"through": bool(s.get("through")), "hou": s.get("hou")}
        for s in shots
        if s.get("x") is not None and s.get("y") is not None
    ]


class LiveOutcomes:
    """The engine's outcome source during a live event: the recorded arrows.

    An arrow not recorded is a miss (and shows as pending); ``on_beat`` is the scorer's mark,
    else the judgment of a release tap, else None (a round-3 hit with None is not counted:
    不鼓不釋). An outcome may carry a third element, what else the arrow struck (``struck``:
    a 過 is 撻'd, xiangshe:350; dashe:182's 維綱 …): the engine reads it with :meth:`detail`.

    >>> src = LiveOutcomes({(2, "上耦", "上射", 1): (True, None),
    ...                     (2, "上耦", "下射", 1): (False, None, "人")})
    >>> src.outcome(2, "上耦", "上射", 1), src.outcome(2, "上耦", "上射", 2)
    ((True, None), (False, None))
    >>> src.detail(2, "上耦", "下射", 1).struck, src.detail(2, "上耦", "上射", 1)
    ('人', None)
    """

    def __init__(self, outcomes: dict[ArrowKey, Outcome_]) -> None:
        self.outcomes = outcomes

    def outcome(self, round: int, pair: str, archer: str, arrow: int) -> tuple[bool, bool | None]:
        v = self.outcomes.get((round, pair, archer, arrow), (False, None))
        return v[0], v[1]

    def detail(self, round: int, pair: str, archer: str, arrow: int) -> Outcome | None:
        """The whole outcome when the arrow struck something else (the only field of the
        detail that changes the run), else None."""
        v = self.outcomes.get((round, pair, archer, arrow))
        if v is None or len(v) < 3:
            return None
        return Outcome(round, pair, archer, arrow, v[0], v[1], struck=v[2])


class LiteRun:
    """What the live app keeps of an engine run: its typed records and the few facts the
    views and outputs ask of a ``Run`` (picklable, so a worker process can compute it).

    >>> from sheli.engine import run
    >>> lite = LiteRun.of(run("xiangshe", seed=1, pairs=0, guests=False))
    >>> lite.steps[0].seq, lite.scene.rite, lite.spec.spec.chapter
    (1, 'xiangshe', 'xiangshe')
    """

    def __init__(self, **kw: Any) -> None:
        self.rite: str = kw["rite"]
        self.title: str | None = kw["title"]
        self.venue: str = kw["venue"]
        self.params: dict[str, Any] = kw["params"]
        self.records: list[Record] = kw["records"]  # the run's typed records
        self.drinks: list[tuple[int, str, str]] = kw["drinks"]
        self.warnings: list[str] = kw.get("warnings", [])
        self.chapter: str = kw["chapter"]
        self.steps = [e for e in self.records if type(e) is Step]
        self.shots = [e for e in self.records if type(e) is Shot]
        self.tallies = [e for e in self.records if type(e) is Tally]

    @classmethod
    def of(cls, r: Any) -> LiteRun:
        return cls(
            rite=r.rite,
            title=r.title,
            venue=r.venue,
            params=dict(r.params),
            records=r.records,
            drinks=list(r.drinks),
            warnings=list(r.warnings),
            chapter=r.spec.spec.chapter,
        )

    @property
    def scene(self) -> Scene:
        first = self.records[0]
        assert isinstance(first, Scene), "a run's records begin with its scene"
        return first

    def __getstate__(self) -> dict[str, Any]:
        # the steps, shots and tallies are the records': made again, not pickled twice
        state = dict(self.__dict__)
        del state["steps"], state["shots"], state["tallies"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.steps = [e for e in self.records if type(e) is Step]
        self.shots = [e for e in self.records if type(e) is Shot]
        self.tallies = [e for e in self.records if type(e) is Tally]

    def accept(self, visitor: Any) -> Any:
        """Read the run with a visitor, as :meth:`sheli.engine.Run.accept` does."""
        return accept(self.records, visitor)

    @property
    def plan(self) -> Any:
        """The plan the run was run on (the engine's, loaded once per process)."""
        return venue_plan(self.venue)

    @property
    def spec(self) -> Any:
        """Enough of a ``LoadedSpec`` for the cue sheets (``spec.spec.chapter``)."""
        return SimpleNamespace(spec=SimpleNamespace(chapter=self.chapter))


def compute_derived(
    config: dict[str, Any],
    factor: float,
    names: dict[str, str],
    outcomes: dict[ArrowKey, Outcome_],
) -> Derived:
    """Run the engine for these outcomes and index the run (in this process or a worker)."""
    with ENGINE_LOCK:
        r, stopped = engine_run(config, LiveOutcomes(outcomes))
    d = Derived(LiteRun.of(r), factor, names, stopped)
    if stopped is not None:
        plan = plan_run(config)
        if plan is not None:
            d.plan_total = estimate(plan, factor).total
    return d


def compute_derived_pickled(
    config: dict[str, Any],
    factor: float,
    names: dict[str, str],
    outcomes: dict[ArrowKey, Outcome_],
) -> bytes:
    """:func:`compute_derived`, pickled in the worker: the server unpickles it with
    :func:`unpickle_derived`."""
    return pickle.dumps(compute_derived(config, factor, names, outcomes), pickle.HIGHEST_PROTOCOL)


def unpickle_derived(data: bytes) -> Derived:
    """A run from the worker, unpickled with the cyclic garbage collector paused: a run is
    some hundred thousand new objects, enough to set off a full collection of the server's
    heap while its streams wait (the engine pauses it during a run for the same reason).
    The run is then frozen out of the collector's sight (:mod:`sheli.collector`): it holds no
    reference cycle, so its reference counts free it when it is dropped, and a full
    collection scans only what the server made since, a few milliseconds instead of the
    50–140 ms that the runs held for an event cost each time.

    >>> d = unpickle_derived(compute_derived_pickled(
    ...     {"rite": "xiangshe", "pairs": 0, "guests_shoot": False, "feast": False}, 1.0, {}, {}))
    >>> d.steps[0].seq, len(d.run.records) > 0
    (1, True)
    """
    with collector.paused():
        d: Derived = pickle.loads(data)
        collector.freeze()
    return d


class Derived:
    """One engine run for one set of outcomes, with what the views look up in it."""

    def __init__(
        self, run: Any, factor: float, names: dict[str, str], stopped: str | None = None
    ) -> None:
        self.run = run
        self.factor = factor
        self.stopped = stopped  # why the engine could not go on (the run is then partial)
        self.plan_total: float | None = None
        self.steps: list[Step] = run.steps
        self.estimate: Estimate = estimate(run, factor)
        self.anchors: list[Anchor] = []
        seen: dict[tuple[int, str, str, str], int] = {}
        for s in self.steps:
            base = (s.round, f"{s.source_file or ''}:{s.line}", s.actor, s.verb)
            n = seen.get(base, 0)
            seen[base] = n + 1
            self.anchors.append((*base, n))
        self.index_of = {a: i for i, a in enumerate(self.anchors)}
        self.shots: list[Shot] = run.shots
        self.tallies: list[Tally] = run.tallies
        self.names = names
        # where each drink happens: the first act of the drinker at the drink's passage
        self.drink_seq: list[tuple[int, str, str, int | None]] = []
        for rnd, who, cite in run.drinks:
            seq = next(
                (s.seq for s in self.steps if s.cite == cite and s.actor == who and s.round == rnd),
                None,
            )
            if seq is None:  # no act of his there: the round's tally announces it
                seq = next((t.seq for t in self.tallies if t.round == rnd), None)
            self.drink_seq.append((rnd, who, cite, seq))
        self._roles: list[str] | None = None
        self._archers: dict[int | None, dict[str, list[Shot]]] = {}

    def locate(self, anchor: Anchor | None, fallback: int) -> int:
        """The index of the anchored act in this run (or the nearest sensible index)."""
        if anchor is not None:
            i = self.index_of.get(tuple(anchor))  # type: ignore[arg-type]
            if i is not None:
                return i
        return max(0, min(fallback, len(self.steps) - 1))

    def named(self, i: int) -> Step:
        """Step ``i`` with the cast's name of its actor, where the event gives one."""
        s = self.steps[i]
        name = self.names.get(s.actor)
        return s._replace(name=name) if name else s

    def step(self, i: int) -> dict[str, Any]:
        """Step ``i`` as the views get it (its fields as the log writes them, for the
        browser): the cast's name, and where the actor stands in metres on this floor
        (``x_m``, ``y_m``: 尺 × 0.231 × the floor's scale)."""
        st = self.steps[i]
        s = st.to_json()
        name = self.names.get(st.actor)
        if name:
            s["name"] = name
        if st.x is not None and st.y is not None:
            s["x_m"] = round(st.x * METRE_PER_CHI * self.factor, 2)
            s["y_m"] = round(st.y * METRE_PER_CHI * self.factor, 2)
        return s

    def archers(self, rnd: int | None = None) -> dict[str, list[Shot]]:
        """Each archer's shots (the 誘射 left out), in the order of the run; of round
        ``rnd`` only, if given (kept: the states of one run ask it again and again)."""
        if rnd not in self._archers:
            out: dict[str, list[Shot]] = {}
            for s in self.shots:
                if s.pair != "誘射" and (rnd is None or s.round == rnd):
                    out.setdefault(s.person, []).append(s)
            self._archers[rnd] = out
        return self._archers[rnd]

    def roles(self) -> list[str]:
        if self._roles is None:
            self._roles = roles(self.run)
        return self._roles


def _run_args(config: dict[str, Any]) -> dict[str, Any]:
    return {
        "venue": config.get("venue"),
        "pairs": config.get("pairs"),
        "guests": config.get("guests_shoot"),
        "dafu": config.get("dafu"),
        "options": config.get("options") or None,
    }


def engine_run(config: dict[str, Any], outcomes: Any) -> tuple[Any, str | None]:
    """Run the event's rite with these outcomes: (run, None), or (the partial run, why).

    The engine refuses some outcomes the text does not provide for (e.g. a round in which no
    arrow hit: 左右皆執一算 needs a 筭 on each side, xiangshe:204). Until an arrow is recorded
    every arrow is a miss, so the app must still show the rite as far as it can be performed:
    the steps up to the refusal, and the refusal itself (``stopped``) to the director.
    """
    rite = config.get("rite", "xiangshe")
    stopped: list[str] = []
    base = engine.Interpreter

    class Partial(base):  # type: ignore[misc, valid-type]
        """The interpreter, keeping the steps performed before the engine refused."""

        def run(self) -> None:
            try:
                super().run()
            except (SpecError, VerbError) as exc:
                stopped.append(str(exc))
            except Exception as exc:  # an engine fault must not take the event down with it
                stopped.append(f"the engine failed: {type(exc).__name__}: {exc}")

    # run_spec looks the interpreter up in sheli.engine when it runs; requests are handled
    # one at a time on the event loop, so the swap is seen by this call only
    engine.Interpreter = Partial  # type: ignore[misc]
    try:
        r = engine.run(rite, outcomes=outcomes, **_run_args(config))
    finally:
        engine.Interpreter = base  # type: ignore[misc]
    return r, (stopped[0] if stopped else None)


def plan_run(config: dict[str, Any]) -> Any | None:
    """A whole run of the event (seeded outcomes) to estimate the time of what is not yet
    derivable; None if no seed in a few gives one."""
    key = json.dumps(_run_args(config) | {"rite": config.get("rite")}, sort_keys=True)
    if key not in _PLANS:
        _PLANS[key] = None
        for seed in range(8):
            try:
                with ENGINE_LOCK:
                    _PLANS[key] = engine.run(
                        config.get("rite", "xiangshe"), seed=seed, **_run_args(config)
                    )
                break
            except Exception:
                continue
    return _PLANS[key]


_PLANS: dict[str, Any] = {}


def plan_shots(config: dict[str, Any]) -> list[ArrowKey] | None:
    """Every arrow of the event, in the order they are shot, from a whole seeded run (in the
    worker: the server is given the list, not the run); None if no seed gives one."""
    plan = plan_run(config)
    if plan is None:
        return None
    return [(s.round, s.pair, s.archer, s.arrow) for s in plan.shots]


@cache
def passage(cite: str) -> dict[str, Any]:
    """The passage a step enacts, with its 鄭注 and 賈疏 where the project has them."""
    try:
        p = text.get_passage(cite)
    except Exception:
        return {"cite": cite, "text": None, "zhu": [], "shu": []}
    zhu: list[str] = []
    shu: list[str] = []
    try:
        for n in notes_for(cite):
            if n.kind == "注" and n.text not in zhu:
                zhu.append(n.text)
            elif n.kind == "疏" and n.text not in shu:
                shu.append(n.text)
    except Exception:  # the commentary is optional; the passage is enough to perform
        pass
    return {
        "cite": cite,
        "text": p.text,
        "kind": p.kind,
        "section": p.section,
        "zhu": zhu,
        "shu": shu,
    }


#: each act's English sentence, made once (the audience screen's English, docs/serve.md)
_SENTENCES = EnglishTable()


def english_step(step: Step) -> str:
    """A step's English sentence as the audience screen shows it (outputs/english.py).

    >>> from sheli.engine.state import Holding, Objects
    >>> english_step(Step(7, 0, 9, "xiangshe:96", None, "司射", "袒", None, None, "W",
    ...     Holding(), None, "堂西", [], 0, Objects()))
    'The director of archery (司射) bares the arm (袒) west of the hall (堂西), facing west.'
    """
    return _SENTENCES.text(_SENTENCES.sentence(step))


@cache
def audience_english() -> dict[str, str]:
    """The audience screen's interface strings in English, from the gettext catalogue (the
    message ids are the screen's own words); the page holds them, not every state.

    >>> audience_english()["drink"]
    'the losers drink'
    """
    tr = translation("en").gettext
    return {
        "hou": tr("侯 · 矢之所著"),
        "announce": tr("釋獲者告"),
        "tally": tr("獲"),
        "right": tr("右"),
        "left": tr("左"),
        "history": tr("告 · 飲"),
        "drink": tr("飲不勝者"),
        "section": tr("賈疏"),
        "notCounted": tr("獲而未釋獲"),
        "drum": tr("不鼓不釋"),
        "vote": tr("五物 · 詢衆庶"),
        "yes": tr("是"),
        "no": tr("否"),
        "answered": tr("此屏已答"),
        **{f"round{k}": v for k, v in ROUNDS_EN.items()},
    }


class LiveEvent:
    """An event's inputs replayed into its current state (see the module's docstring)."""

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

    # ------------------------------------------------------------------ views
    def event_dict(self) -> dict[str, Any]:
        c = self.config
        d = self.derived()
        return {
            "id": self.id,
            "rite": c.get("rite"),
            "title": c.get("title") or d.run.title,
            # a title the director gave is his own words, kept as given; else the rite's name
            "title_en": c.get("title") or gloss(d.run.title),
            "venue": d.run.venue,
            "pairs": d.run.params.get("pairs"),
            "guests_shoot": d.run.params.get("guests_shoot"),
            "dafu": d.run.params.get("dafu"),
            "hou_dao_m": c.get("hou_dao_m"),
            "created_at": iso(c.get("created_ms")),
            "started_at": iso(self.started_ms),
            "cast": [
                {"role": x["role"], "actor": x["actor"], "name": x["name"]}
                for x in c.get("cast", ())
            ],
        }

    def state(self, now: int) -> dict[str, Any]:
        """The full state every view is drawn from (the role fields are added per token)."""
        d = self.derived()
        i = self.current(d)
        steps = d.steps
        cur = steps[i]
        seq = cur.seq
        rnd = cur.round
        step = d.step(i)
        step.update(index=i, total=len(steps))
        # the 筭 fallen so far this round; the count's result once it has been announced
        right = sum(
            1
            for s in d.shots
            if s.round == rnd and s.counted and s.archer == "上射" and s.seq <= seq
        )
        left = sum(
            1
            for s in d.shots
            if s.round == rnd and s.counted and s.archer == "下射" and s.seq <= seq
        )
        tally: dict[str, Any] = {"round": rnd, "right": right, "left": left, "announcement": None}
        # the English for the audience screen's switch (docs/serve.md): the step's sentence
        # and each announcement's (the tally's is its round's); kept to these, as every
        # screen gets every state (the drinkers' names stay the text's, in brackets)
        step["en"] = english_step(d.named(i))
        announcements = []
        for t in d.tallies:
            if t.seq <= seq:
                announcements.append(
                    {
                        "round": t.round,
                        "text": t.announcement,
                        "right": t.right,
                        "left": t.left,
                        "winner": t.winner,
                        "seq": t.seq,
                        "en": announcement_en(t.right, t.left),
                    }
                )
                if t.round == rnd:
                    tally.update(right=t.right, left=t.left, announcement=t.announcement)
                    tally["winner"] = t.winner
        # the 罰爵 drunk so far (飲不勝者, xiangshe:205–220): an archer's drink in a round of
        # shooting; the feast's drinks (round 0) and the 獻 of the 獲者 and the 釋獲者 are
        # not the losers' (as the engine's Run.drank)
        archers = {(s.round, s.person) for s in d.shots if s.pair != "誘射"}
        drinks = [
            {"round": r, "who": who, "name": self.names.get(who), "cite": cite}
            for r, who, cite, at in d.drink_seq
            if at is not None and at <= seq and (r, who) in archers
        ]
        shots = []
        for s in d.shots:
            if s.round != rnd or s.pair == "誘射":
                continue
            k = (s.round, s.pair, s.archer, s.arrow)
            rec = self.arrows.get(k)
            on_beat = None
            if rec is not None:
                on_beat = rec.on_beat
                if on_beat is None and k in self.taps:
                    on_beat = self.taps[k]["on_beat"]
            shots.append(
                {
                    "round": s.round,
                    "pair": s.pair,
                    "seat": s.archer,
                    "archer": s.person,
                    "name": self.names.get(s.person),
                    "arrow": s.arrow,
                    "hit": rec.hit if rec else None,
                    "on_beat": on_beat,
                    "recorded": rec is not None,
                    "counted": s.counted if rec else None,
                    "corrections": rec.corrections if rec else 0,
                    "tap": self.taps.get(k),
                    "seq": s.seq,
                    "shot": seq >= s.seq,
                    "hou": target_for(self.config.get("rite", ""), s.target).name,
                    **(rec.detail if rec else {}),
                }
            )
        est = d.estimate
        if self.started_ms is None:
            elapsed = 0.0
            late = 0.0
            remaining = est.remaining_from(i)
        else:
            elapsed = max(0.0, (now - self.started_ms) / 1000)
            arrived = ((self.arrived_ms or self.started_ms) - self.started_ms) / 1000
            on_step = elapsed - arrived
            planned_start = est.elapsed_before(i) - est.elapsed_before(self.start_index(d))
            late = (arrived - planned_start) + max(0.0, on_step - est.seconds[i])
            remaining = est.remaining_from(i + 1) + max(0.0, est.seconds[i] - on_step)
        total = est.total
        if d.stopped and d.plan_total and d.plan_total > total:
            # the rest of the rite is not derivable yet: its time from a whole (seeded) run
            remaining += d.plan_total - total
            total = d.plan_total
        return {
            "version": self.version,
            "server_ms": now,
            "event": self.event_dict(),
            "step": step,
            "next": [d.step(j) for j in range(i + 1, min(i + 6, len(steps)))],
            "round": rnd,
            "tally": tally,
            "announcements": announcements,
            "drinks": drinks,
            "shots": shots,
            "marks": marks(shots),
            "drum": dict(self.drum),
            "timing": {
                "elapsed_s": round(elapsed, 1),
                "estimated_total_s": round(total, 1),
                "estimated_remaining_s": round(remaining, 1),
                "late_s": round(late, 1),
                "step_estimated_s": round(est.seconds[i], 1),
            },
            "passage": passage(cur.cite),
            "question": self.question(d, seq),
            "wuwu": self.wuwu(d, seq, rnd),
            "stopped": d.stopped,
            "last_step": i == len(steps) - 1,
        }

    # ------------------------------------------------------------------ the 五物
    def archers(self, d: Derived, rnd: int | None = None) -> dict[str, list[Shot]]:
        """Each archer's shots in the run (:meth:`Derived.archers`)."""
        return d.archers(rnd)

    def moment(self, d: Derived, archer: str, i: int) -> str:
        """Before, while or after the archer's shooting at step ``i`` (易氏's moments,
        :mod:`wuwu`): his arrows of the step's round if he shoots in it, else all of his."""
        s = d.steps[i]
        return self.moments(d, s.seq, s.round).get(archer, "before")

    def moments(self, d: Derived, seq: int, rnd: int) -> dict[str, str]:
        """:meth:`moment` of every archer at the step ``seq`` of round ``rnd``."""
        now = self.archers(d, rnd)
        return {
            a: wuwu.moment_of([s.seq for s in now.get(a) or shots], seq)
            for a, shots in self.archers(d).items()
        }

    def question(self, d: Derived, seq: int) -> dict[str, Any] | None:
        """The question open now, as an audience phone shows it (no totals: a screen answers
        without seeing how the hall answered)."""
        q = self.questions.open_one()
        if q is None:
            return None
        it = wuwu.item(q["item"]) or {}
        return {
            "id": q["id"],
            "item": q["item"],
            "archer": q["archer"],
            "name": self.names.get(q["archer"]),
            "reading": it.get("yi"),
            "answers": list(wuwu.ANSWERS),
            # for the screen's English (docs/serve.md): the text's terms kept in brackets
            "en": {
                "item": f"{it['en']} ({q['item']})" if it.get("en") else f"({q['item']})",
                "archer": label(q["archer"], "roles"),
                "reading": gloss(it["yi_en"]) if it.get("yi_en") else None,
            },
        }

    def wuwu(self, d: Derived, seq: int, rnd: int) -> dict[str, Any] | None:
        """The director's 五物: for each archer the moment he is at, his 主皮 from his
        recorded arrows, and the totals of each item asked, with every question and the
        sources. None for a rite other than 鄉射禮 (the 五物 are its own, 周禮 鄉大夫)."""
        if self.config.get("rite", wuwu.RITE) != wuwu.RITE:
            return None
        out = []
        moments = self.moments(d, seq, rnd)
        for archer, shots in self.archers(d).items():
            recorded = [self.arrows.get((s.round, s.pair, s.archer, s.arrow)) for s in shots]
            asked: dict[str, dict[str, Any]] = {}
            for q in self.questions.asked.values():
                if q["archer"] != archer:
                    continue
                yes, no = self.questions.totals.get(q["id"], [0, 0])
                a = asked.setdefault(q["item"], {"yes": 0, "no": 0, "questions": []})
                a["yes"] += yes
                a["no"] += no
                a["questions"].append(q | {"yes": yes, "no": no})
            out.append(
                {
                    "archer": archer,
                    "name": self.names.get(archer),
                    "moment": moments[archer],
                    "主皮": {
                        "hits": sum(1 for a in recorded if a is not None and a.hit),
                        "recorded": sum(1 for a in recorded if a is not None),
                        "arrows": len(shots),
                    },
                    "asked": asked,
                }
            )
        return {
            "source": wuwu.source(),
            "answers": list(wuwu.ANSWERS),
            "items": wuwu.items(),
            "open": self.questions.open_one(),
            "archers": out,
        }

    def start_index(self, d: Derived) -> int:
        """The step the clock started on (the one current at the first advance)."""
        first = min(self.reached.items(), key=lambda kv: kv[1], default=None)
        return d.locate(first[0], 0) if first else 0

    def cues(self, performer_role: str | None) -> list[dict[str, Any]]:
        """A performer's acts, in order, the current one marked."""
        if not performer_role:
            return []
        d = self.derived()
        i = self.current(d)
        keep = (
            "seq", "round", "section", "cite", "jing", "verb", "says", "place", "facing",
            "x", "y", "holds", "dress", "to", "obj", "at", "note",
        )  # fmt: skip
        out = []
        for j, st in enumerate(d.steps):
            if st.actor == performer_role or st.to == performer_role:
                s = st.to_json()  # the fields the performer's screen shows, as the log has them
                c = {k: s[k] for k in keep if k in s}
                c.update(index=j, actor=st.actor, current=j == i, done=j < i)
                c["addressed"] = st.actor != performer_role
                out.append(c)
        return out

    def reached_at(self, d: Derived) -> dict[int, int]:
        """Step index → when the director first made it the current step."""
        out: dict[int, int] = {}
        for a, t in self.reached.items():
            j = d.index_of.get(a)
            if j is not None:
                out[j] = min(t, out.get(j, t))
        return out

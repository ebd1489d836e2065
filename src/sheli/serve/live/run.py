"""The engine run of a live event: the run for the recorded outcomes, and what the views look
up in it.

The engine is run with an outcome source built from the recorded arrows
(:class:`LiveOutcomes`; an arrow not yet recorded is a miss); a run the engine refuses part way
(a round in which no arrow hit, before the scorers record one) is kept as far as it went, with
the refusal (:func:`engine_run`). A run is computed in this process or in a worker, which
sends it pickled (:func:`compute_derived_pickled`, :func:`unpickle_derived`); what the app
keeps of it is a :class:`LiteRun` indexed as a :class:`Derived`.

>>> d = compute_derived({"rite": "xiangshe", "pairs": 0, "guests_shoot": False}, 1.0, {}, {})
>>> d.steps[0].cite, d.stopped
('xiangshe:1', None)
"""

from __future__ import annotations

import json
import pickle
import threading
from types import SimpleNamespace
from typing import Any

from sheli import collector, engine
from sheli.engine import venue_plan
from sheli.engine.env import VerbError
from sheli.engine.records import Record, Scene, Shot, Step, Tally, accept
from sheli.outputs.cues import roles
from sheli.outputs.runofshow import METRE_PER_CHI, Estimate, estimate
from sheli.rite import load_spec
from sheli.rite.loader import SpecError
from sheli.scoring.outcomes import Outcome

ArrowKey = tuple[int, str, str, int]  # round, pair, seat (上射/下射), arrow
#: an arrow's outcome as the run needs it: (hit, on_beat), or (hit, on_beat, struck) when it
#: struck something else (docs/scoring.md)
Outcome_ = tuple[bool, bool | None] | tuple[bool, bool | None, str]
Anchor = tuple[int, str, str, str, int]  # round, file:line, actor, verb, occurrence


#: engine runs one at a time in a process (run_spec's interpreter is swapped while it runs)
ENGINE_LOCK = threading.Lock()


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
        """Enough of a ``LoadedSpec`` for the cue sheets (``spec.spec.chapter``, and the
        spec's assumptions, which a sheet names by what they say)."""
        assumptions = load_spec(self.rite).spec.assumptions
        return SimpleNamespace(spec=SimpleNamespace(chapter=self.chapter, assumptions=assumptions))


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

    @property
    def moments(self) -> int:
        """How many moments (the director's cues, docs/timeline.md) the run has.

        >>> d = compute_derived({"rite": "xiangshe", "pairs": 0, "guests_shoot": False},
        ...                     1.0, {}, {})
        >>> d.moments == d.steps[-1].moment == len({s.moment for s in d.steps})
        True
        """
        return max((s.moment or 0) for s in self.steps) if self.steps else 0

    def moment_start(self, i: int, direction: int) -> int | None:
        """The first step of the moment after step ``i`` (``direction`` 1), or of the one
        before it (-1: the first step of ``i``'s own moment when ``i`` is not that step, as a
        slide's "back" goes to its start). None past either end. A step's ``moment`` never
        decreases along the run (docs/event-log.md).

        >>> d = compute_derived({"rite": "xiangshe", "pairs": 0, "guests_shoot": False},
        ...                     1.0, {}, {})
        >>> j = d.moment_start(0, 1)
        >>> d.steps[j].moment, d.steps[j - 1].moment, d.moment_start(j, -1), d.moment_start(0, -1)
        (2, 1, 0, None)
        """
        m = self.steps[i].moment
        if direction > 0:
            return next(
                (j for j in range(i + 1, len(self.steps)) if self.steps[j].moment != m), None
            )
        j = i
        while j > 0 and self.steps[j - 1].moment == m:
            j -= 1
        if j < i:
            return j
        if j == 0:
            return None
        m = self.steps[j - 1].moment
        j -= 1
        while j > 0 and self.steps[j - 1].moment == m:
            j -= 1
        return j

    def first_where(self, field: str, value: Any) -> int | None:
        """The first step whose ``field`` (round, section or cite) is ``value``, or None.

        >>> d = compute_derived({"rite": "xiangshe", "pairs": 0, "guests_shoot": False},
        ...                     1.0, {}, {})
        >>> i = d.first_where("round", 1)
        >>> d.steps[i].round, d.steps[i - 1].round, d.first_where("cite", "xiangshe:9999")
        (1, 0, None)
        """
        return next((i for i, s in enumerate(self.steps) if getattr(s, field) == value), None)

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

    The engine may refuse outcomes the text does not provide for, or fail; the app must still
    show the rite as far as it can be performed: the steps up to the refusal, and the refusal
    itself (``stopped``) to the director. (A round in which no arrow hits is provided for:
    左右鈞, xiangshe:204; until an arrow is recorded every arrow is a miss.)
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

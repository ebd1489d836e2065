"""The engine: world state, verbs, interpreter and event log (docs/architecture.md).

:func:`run` runs a rite spec and returns a :class:`Run`: its records, the typed events
whose lines are the event log of docs/event-log.md (written by
:mod:`sheli.outputs.eventlog`). ``sheli run`` is a thin layer over it.

>>> r = run("xiangshe", seed=1)
>>> r.scene.rite, r.records[1].cite
('xiangshe', 'xiangshe:1')
>>> [(t.round, t.winner) for t in r.tallies]
[(2, 'right'), (3, 'tie')]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

# the verbs of each part of the rites register themselves on import
from sheli.engine import (  # noqa: F401
    verbs_court,
    verbs_dashe,
    verbs_feast,
    verbs_jun,
    verbs_shooting,
)
from sheli.engine.check import check_loaded
from sheli.engine.env import Env, passage_info, section_topic
from sheli.engine.interpreter import Interpreter, build_world
from sheli.engine.options import OptionError, RunOptions
from sheli.engine.paths import load_paths, walk_faults
from sheli.engine.records import (
    Record,
    ResultT,
    RunVisitor,
    Scene,
    Shot,
    Step,
    Tally,
    accept,
)
from sheli.engine.state import World
from sheli.engine.timing import InTime
from sheli.engine.variants import find_variant, variant_assumptions
from sheli.engine.verbs import ENGINE_ASSUMPTIONS, VERBS, VerbError
from sheli.place import load_venue
from sheli.place.bodies import load_bodies
from sheli.place.loader import VENUE_ALIASES as _place_aliases
from sheli.rite import LoadedSpec, load_spec
from sheli.rite.loader import SpecError
from sheli.rite.nodes import Spec
from sheli.scoring import rules
from sheli.scoring.outcomes import SeededOutcomes, load_outcomes
from sheli.text.variants import fold

__all__ = [
    "VENUES",
    "VERBS",
    "Env",
    "OptionError",
    "Run",
    "RunOptions",
    "SpecError",
    "VerbError",
    "default_env",
    "run",
    "venue_plan",
]


#: the venues by their keys and the text's names (豫則鉤楹内, 堂則由楹外 xiangshe:128; 序則物當棟,
#: 堂則物當楣 記 xiangshe:339; the 射宮 of 大射儀 …): read from the place layer's data files
VENUES = _place_aliases


@dataclass
class Run:
    """The result of a run: its records (the typed events), read by visitors, and the event
    log's lines made from them.

    ``records`` are a :class:`~sheli.engine.records.Scene` then :class:`Step`, :class:`Shot`
    and :class:`Tally` records in order; :meth:`accept` walks them with a visitor
    (:class:`~sheli.engine.records.RunVisitor`). Their JSON lines (docs/event-log.md) are
    made by the event log's writer alone (:mod:`sheli.outputs.eventlog`): the run keeps no
    dicts of them.
    """

    rite: str
    title: str | None
    venue: str
    params: dict[str, Any]
    records: list[Record]
    world: World = field(repr=False)
    spec: LoadedSpec = field(repr=False)
    warnings: list[str] = field(default_factory=list)
    #: the venue's plan the run resolved its places on (for the outputs, which do not load
    #: a venue themselves); None with a stand-in environment without one
    plan: Any = field(default=None, repr=False)
    _path_faults: list[str] | None = field(default=None, repr=False, compare=False)
    #: the 階 of each 升 and 降, by seq (the spec's ``by``: the log does not give it)
    stairs: dict[int, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def path_faults(self) -> list[str]:
        """The walks that went through a body (:func:`sheli.engine.paths.walk_faults`: the
        run refuses them, and every other fault of a walk, but beyond the crowd it walks
        round, paths.yaml crowd, where they are its warnings), one line each with its spec
        file, line and passage: found again from the records when first asked for."""
        if self._path_faults is None:
            # beyond the crowd the model walks round, the run searched for ways round past a few
            search = load_paths().walks_round(self.params.get("pairs", 0))
            self._path_faults = walk_faults(
                self.records,
                self.plan,
                self.spec.file,
                load_bodies().footprint,
                self.stairs,
                search,
            )
        return self._path_faults

    def accept(self, visitor: RunVisitor[ResultT]) -> ResultT:
        """Walk the run with ``visitor`` (begin_run, visit_step/shot/tally, end_run) and
        return its ``result()``."""
        return accept(self.records, visitor)

    @property
    def shots(self) -> list[Shot]:
        """The arrows loosed, in order."""
        return [r for r in self.records if type(r) is Shot]

    @property
    def tallies(self) -> list[Tally]:
        """The counts (數獲), in order."""
        return [r for r in self.records if type(r) is Tally]

    @property
    def drank(self) -> dict[int, list[str]]:
        """Who drank the 罰爵 (the archers who drank), by round."""
        return dict(self.world.drank)

    @property
    def drinks(self) -> list[tuple[int, str, str]]:
        """Every drink of the run: (round, who, passage), the 獻 of 獲者 and 釋獲者 included."""
        return list(self.world.drinks)

    @property
    def scene(self) -> Scene:
        """The first record: rite, venue, parameters, fixtures and cast."""
        first = self.records[0]
        assert isinstance(first, Scene)
        return first

    @property
    def assumptions(self) -> dict[str, tuple[str, str]]:
        """The assumptions the run's steps rest on: id → (assumption, reason), in first use."""
        known = {**ENGINE_ASSUMPTIONS, **variant_assumptions()}
        for a in self.spec.spec.assumptions:
            known[a.id] = (a.text, a.reason)
        used: dict[str, tuple[str, str]] = {}
        for e in self.records:
            for aid in e.assumes if isinstance(e, Step) else ():
                if aid not in used and aid in known:
                    used[aid] = known[aid]
        return used


@cache
def _venue(name: str) -> tuple[Any, dict[Any, Any]]:
    """A venue's plan, loaded once, and the cache of places resolved on it."""
    return load_venue(name), {}


def venue_plan(name: str) -> Any:
    """The plan of a venue (by key) the runs resolve their places on, loaded once: outputs
    draw on it rather than loading a venue of their own.

    >>> venue_plan("xie") is venue_plan("xie")
    True
    """
    return _venue(name)[0]


def default_env(venue: str, outcomes: Any, chapter: str = "xiangshe") -> Env:
    """The environment built from the real text, place and scoring layers.

    The plan, the passages and the places resolved against fixtures only are cached across
    runs; places relative to people are resolved afresh each time.
    """
    plan, places = _venue(venue)

    def topic(n: int) -> str:
        return section_topic(chapter, n)

    return Env(
        passage=passage_info,
        fold=_fold(fold),
        section_topic=topic,
        venue=plan,
        _cache=places,
        outcome=outcomes.outcome,
        release=rules.release,
        side_of=rules.side_of,
        announce=rules.announce,
        count_procedure=rules.count_procedure,
        venue_name=venue,
        detail=getattr(outcomes, "detail", None),
    )


@cache
def _fold(fold: Any) -> Any:
    return cache(fold)


def pair_names(params: dict[str, Any], spec: Any = None) -> list[str]:
    """The pairs a run with these parameters has (鄉射禮's: 三耦, 賓耦, 大夫耦N, 衆耦N, or
    those the spec's ``pairs:`` declares).

    >>> pair_names({"guests_shoot": True, "dafu": 1, "pairs": 2, "venue": "xie"})
    ['上耦', '次耦', '下耦', '賓耦', '大夫耦1', '衆耦1', '衆耦2']
    """
    if spec is None:
        spec = Spec(rite="-", chapter="xiangshe", pairs=None)
    w = build_world(spec, params)
    # the pairs a variant forms as it runs (主皮之射: 勝耦1 …), named in advance for a file
    return [*w.pairs, *find_variant(spec.rite).later_pairs(len(w.pairs))]


def outcome_source(seed: int | None, outcomes: Any, pairs: list[str] | None = None) -> Any:
    """The run's outcome source: an object with ``outcome()``, a file, or a seed (default 0).

    A file is read and checked whole before the run; with ``pairs`` it may name only those.
    """
    if outcomes is not None and hasattr(outcomes, "outcome"):
        return outcomes
    if outcomes is not None:
        return load_outcomes(Path(outcomes), pairs=pairs)
    return SeededOutcomes(0 if seed is None else seed)


def run(
    rite: str | Path = "xiangshe",
    venue: str | None = None,
    pairs: int | None = None,
    guests: bool | None = None,
    seed: int | None = None,
    outcomes: Any = None,
    arrows_short: bool | None = None,
    dafu: int | None = None,
    env: Env | None = None,
    readings: list[str] | None = None,
    options: dict[str, Any] | None = None,
    sink: Callable[[Record], object] | None = None,
    walks_apart: bool = False,
) -> Run:
    """Run a rite spec (key, alias or path) and return its :class:`Run`.

    ``venue`` (xie 州序/榭, xiang 鄉庠), ``pairs`` (衆耦 beyond the 三耦), ``guests`` (賓、主人、
    大夫 shoot), ``seed`` or ``outcomes`` (a file or an object with ``outcome(round, pair,
    archer, arrow) -> (hit, on_beat)``), ``arrows_short`` (矢不備), ``dafu`` (number of 大夫),
    ``readings`` (ids of the spec's ``readings:`` to follow instead of their group's default),
    ``options`` (the spec's ``params.options`` to change). Defaults come from the spec's
    ``params:``. The choices are checked before anything runs (:class:`RunOptions`): one the
    rite refuses raises :class:`OptionError` (a venue it is not held in, a reading or an
    option it does not have …, with the nearest names); a broken spec raises
    :class:`SpecError`, of which both are :class:`sheli.errors.SheliError`.

    Every step is put in time (:mod:`sheli.engine.timing`, docs/timeline.md): its ``t``,
    ``dur``, ``path``, ``with`` and ``moment``.

    With ``sink``, each record after the scene is handed to it, and not kept, as soon as
    its time is final (:class:`sheli.engine.timing.InTime`: the schedule holds only the
    last few hundred steps): the :class:`Run`'s records are its scene alone, made at the end
    (it names the cast and fixtures the run used), so the log's records are never held
    whole. A run that fails raises after some records were handed on: their owner drops
    them (as ``sheli run`` does its temporary log).

    With ``walks_apart`` (where :func:`sheli.engine.walks.apart_possible`), the walks are
    checked in a process of their own while the run goes on (:mod:`sheli.engine.walks`):
    the same run, sooner on a machine with a CPU to spare; a walk refused fails it at its
    end, with the same error.

    >>> kept = []
    >>> r = run("xiangshe", sink=kept.append)
    >>> len(r.records), kept == run("xiangshe").records[1:]
    (1, True)
    """
    loaded = load_spec(rite)
    spec = loaded.spec
    params = RunOptions(
        venue=venue,
        pairs=pairs,
        guests=guests,
        arrows_short=arrows_short,
        dafu=dafu,
        readings=tuple(readings or ()),
        options=options,
        seed=seed,
    ).params(loaded)
    source = None
    if env is None:
        source = outcome_source(seed, outcomes, pair_names(params, spec))
        env = default_env(params["venue"], source, spec.chapter)
    result = run_spec(loaded, params, env, sink, walks_apart)
    # the file's own warnings (a round-3 hit with no on_beat is not counted), as `sheli score`
    result.warnings.extend(getattr(source, "warnings", ()))
    unused = getattr(source, "unused", None)
    if callable(unused):
        # recorded outcomes the run never asked for: pairs or arrows it does not have
        result.warnings.extend(unused())
    return result


def run_spec(
    loaded: LoadedSpec,
    params: dict[str, Any],
    env: Env,
    sink: Callable[[Record], object] | None = None,
    walks_apart: bool = False,
) -> Run:
    """Run an already loaded spec with explicit parameters and environment; with ``sink``,
    the records after the scene go to it, not into the :class:`Run`; with ``walks_apart``,
    the walks are checked in a process of their own (see :func:`run`)."""
    spec = loaded.spec
    check_loaded(loaded, env)
    interp = Interpreter(spec, loaded.file, env, params, walks_apart)
    # every step in time (docs/timeline.md) as the run makes it, handed on (to the sink, or
    # kept) once its time is final
    records: list[Record] = []
    timed = InTime(loaded, sink if sink is not None else records.append)
    interp.records = timed
    interp.run()
    timed.close()
    scene = make_scene(loaded, params, env, interp)
    return Run(
        warnings=list(interp.warnings),
        stairs=interp.stairs,
        rite=spec.rite,
        title=spec.title,
        venue=params["venue"],
        params=params,
        # with a sink, the records went to it
        records=[scene, *records],
        world=interp.world,
        spec=loaded,
        plan=env.venue,
    )


def _fixture_line(name: str, p: Any) -> dict[str, Any]:
    line: dict[str, Any] = {"name": name, "x": None, "y": None, "source": None}
    if p is None:
        return line
    if hasattr(p, "x"):
        line["x"], line["y"] = p.x, p.y
    else:
        line["x"], line["y"] = p[0], p[1]
    for attr in ("source", "provenance", "cite"):
        val = getattr(p, attr, None)
        if val:
            line["source"] = val if isinstance(val, str) else str(val)
            break
    assumed = getattr(p, "assumed", "")
    if getattr(p, "assumption", False):
        # part of the position is not fixed by the text: say what is assumed
        line["assumption"] = assumed or True
        if not line["source"]:
            line["source"] = f"assumption: {assumed}" if assumed else "assumption"
    return line


def make_scene(loaded: LoadedSpec, params: dict[str, Any], env: Env, it: Interpreter) -> Scene:
    """The first line of the event log: rite, venue, unit, fixtures used, cast."""
    cast = []
    for p in it.world.people.values():
        entry: dict[str, Any] = {"role": p.role, "actor": p.name}
        if p.pair:
            entry["pair"], entry["seat"] = p.pair, p.seat
        if p.display:
            entry["name"] = p.display
        cast.append(entry)
    return Scene(
        rite=loaded.spec.rite,
        title=loaded.spec.title,
        venue=params["venue"],
        unit="尺",
        params={k: v for k, v in params.items()},
        fixtures=[_fixture_line(n, p) for n, p in env.used_fixtures.items()],
        cast=cast,
    )

"""The engine: world state, verbs, interpreter and event log (DESIGN.md layer 4).

:func:`run` runs a rite spec and returns a :class:`Run` with its events (the event log of
docs/event-log.md), its steps and its tallies. ``sheli run`` is a thin layer over it.

>>> r = run("xiangshe", seed=1)
>>> r.events[0]["type"], r.steps[0]["cite"]
('scene', 'xiangshe:110')
>>> [t["round"] for t in r.tallies]
[2, 3]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from sheli.engine.check import check_spec
from sheli.engine.interpreter import Env, Interpreter, PassageInfo
from sheli.engine.state import World
from sheli.engine.verbs import ENGINE_ASSUMPTIONS, VERBS, VerbError
from sheli.rite import LoadedSpec, load_spec
from sheli.rite.loader import SpecError

__all__ = ["VENUES", "VERBS", "Env", "Run", "SpecError", "VerbError", "default_env", "run"]


#: the venues of 鄉射禮 by their keys and the text's names: 豫則鉤楹内, 堂則由楹外 (xiangshe:128;
#: 注: 今言豫者謂州學也, 庠之制有堂有室); 序則物當棟, 堂則物當楣 (記 xiangshe:339)
VENUES = {
    "xie": "xie",
    "序": "xie",
    "州序": "xie",
    "榭": "xie",
    "豫": "xie",
    "xiang": "xiang",
    "庠": "xiang",
    "鄉庠": "xiang",
}


@dataclass
class Run:
    """The result of a run: the event log and views of it."""

    rite: str
    title: str | None
    venue: str
    params: dict[str, Any]
    events: list[dict[str, Any]]
    world: World = field(repr=False)
    spec: LoadedSpec = field(repr=False)
    warnings: list[str] = field(default_factory=list)

    @property
    def steps(self) -> list[dict[str, Any]]:
        """The step lines of the event log, in order."""
        return [e for e in self.events if e["type"] == "step"]

    @property
    def shots(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == "shot"]

    @property
    def tallies(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == "tally"]

    @property
    def drank(self) -> dict[int, list[str]]:
        """Who drank the 罰爵 (the archers who drank), by round."""
        return dict(self.world.drank)

    @property
    def drinks(self) -> list[tuple[int, str, str]]:
        """Every drink of the run: (round, who, passage), the 獻 of 獲者 and 釋獲者 included."""
        return list(self.world.drinks)

    @property
    def scene(self) -> dict[str, Any]:
        return self.events[0]

    @property
    def assumptions(self) -> dict[str, tuple[str, str]]:
        """The assumptions the run's steps rest on: id → (assumption, reason), in first use."""
        known = dict(ENGINE_ASSUMPTIONS)
        for a in self.spec.spec.assumptions:
            known[a.id] = (a.text, a.reason)
        used: dict[str, tuple[str, str]] = {}
        for e in self.events:
            for a in e.get("assumes", ()):
                if a not in used and a in known:
                    used[a] = known[a]
        return used


@cache
def _text_env() -> tuple[Any, Any, Any]:
    from sheli import text
    from sheli.text.variants import fold

    return text, fold, cache(text.load_chapter)


@cache
def _venue(name: str) -> tuple[Any, dict[Any, Any]]:
    """A venue's plan, loaded once, and the cache of places resolved on it."""
    from sheli.place import load_venue

    return load_venue(name), {}


@cache
def _passage(cite: str) -> PassageInfo | None:
    text, _, _ = _text_env()
    try:
        p = text.get_passage(cite)
    except Exception:
        return None
    return PassageInfo(p.text, p.section, p.kind)


@cache
def _topic(chapter: str, n: int) -> str:
    _, _, load_chapter = _text_env()
    try:
        return load_chapter(chapter).section(n).topic
    except KeyError:
        return ""


def default_env(venue: str, outcomes: Any, chapter: str = "xiangshe") -> Env:
    """The environment built from the real text, place and scoring layers.

    The plan, the passages and the places resolved against fixtures only are cached across
    runs; places relative to people are resolved afresh each time.
    """
    from sheli import scoring

    _, fold, _ = _text_env()
    plan, places = _venue(venue)

    def topic(n: int) -> str:
        return _topic(chapter, n)

    return Env(
        passage=_passage,
        fold=_fold(fold),
        section_topic=topic,
        venue=plan,
        _cache=places,
        outcome=outcomes.outcome,
        release=scoring.release,
        side_of=scoring.side_of,
        announce=scoring.announce,
        count_procedure=scoring.count_procedure,
        venue_name=venue,
    )


@cache
def _fold(fold: Any) -> Any:
    return cache(fold)


def pair_names(params: dict[str, Any]) -> list[str]:
    """The pairs a run with these parameters has (三耦, 賓耦, 大夫耦N, 衆耦N).

    >>> pair_names({"guests_shoot": True, "dafu": 1, "pairs": 2})
    ['上耦', '次耦', '下耦', '賓耦', '大夫耦1', '衆耦1', '衆耦2']
    """
    names = ["上耦", "次耦", "下耦"]
    if params.get("guests_shoot"):
        names.append("賓耦")
        names += [f"大夫耦{i}" for i in range(1, params.get("dafu", 1) + 1)]
    return names + [f"衆耦{i}" for i in range(1, params.get("pairs", 0) + 1)]


def outcome_source(seed: int | None, outcomes: Any, pairs: list[str] | None = None) -> Any:
    """The run's outcome source: an object with ``outcome()``, a file, or a seed (default 0).

    A file is read and checked whole before the run; with ``pairs`` it may name only those.
    """
    from sheli import scoring

    if outcomes is not None and hasattr(outcomes, "outcome"):
        return outcomes
    if outcomes is not None:
        return scoring.load_outcomes(Path(outcomes), pairs=pairs)
    return scoring.SeededOutcomes(0 if seed is None else seed)


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
) -> Run:
    """Run a rite spec (key, alias or path) and return its :class:`Run`.

    ``venue`` (xie 州序/榭, xiang 鄉庠), ``pairs`` (衆耦 beyond the 三耦), ``guests`` (賓、主人、
    大夫 shoot), ``seed`` or ``outcomes`` (a file or an object with ``outcome(round, pair,
    archer, arrow) -> (hit, on_beat)``), ``arrows_short`` (矢不備), ``dafu`` (number of 大夫).
    Defaults come from the spec's ``params:``. A broken spec raises :class:`SpecError`.
    """
    loaded = load_spec(rite)
    spec = loaded.spec
    params = spec.params.model_dump()
    params.pop("line", None)
    for key, val in (
        ("venue", venue),
        ("pairs", pairs),
        ("guests_shoot", guests),
        ("arrows_short", arrows_short),
        ("dafu", dafu),
    ):
        if val is not None:
            params[key] = val
    params["venue"] = VENUES.get(params["venue"], params["venue"])
    if params["venue"] not in ("xie", "xiang"):
        raise SpecError(f"venue is xie (州序/榭) or xiang (鄉庠), not {params['venue']!r}")
    if params["pairs"] < 0:
        raise SpecError("pairs (衆耦) cannot be negative")
    source = None
    if env is None:
        source = outcome_source(seed, outcomes, pair_names(params))
        env = default_env(params["venue"], source, spec.chapter)
    result = run_spec(loaded, params, env)
    unused = getattr(source, "unused", None)
    if callable(unused):
        # recorded outcomes the run never asked for: pairs or arrows it does not have
        result.warnings.extend(unused())
    return result


def run_spec(loaded: LoadedSpec, params: dict[str, Any], env: Env) -> Run:
    """Run an already loaded spec with explicit parameters and environment."""
    spec = loaded.spec
    if not (loaded.checked and env.passage is _passage):
        check_spec(spec, loaded.file, env)
        loaded.checked = env.passage is _passage  # a stand-in text is checked every time
    interp = Interpreter(spec, loaded.file, env, params)
    interp.run()
    scene = make_scene(loaded, params, env, interp)
    return Run(
        warnings=list(interp.warnings),
        rite=spec.rite,
        title=spec.title,
        venue=params["venue"],
        params=params,
        events=[scene, *interp.events],
        world=interp.world,
        spec=loaded,
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


def make_scene(loaded: LoadedSpec, params: dict[str, Any], env: Env, it: Interpreter) -> dict:
    """The first line of the event log: rite, venue, unit, fixtures used, cast."""
    cast = []
    for p in it.world.people.values():
        entry: dict[str, Any] = {"role": p.role, "actor": p.name}
        if p.pair:
            entry["pair"], entry["seat"] = p.pair, p.seat
        if p.display:
            entry["name"] = p.display
        cast.append(entry)
    return {
        "type": "scene",
        "rite": loaded.spec.rite,
        "title": loaded.spec.title,
        "venue": params["venue"],
        "unit": "尺",
        "params": {k: v for k, v in params.items()},
        "fixtures": [_fixture_line(n, p) for n, p in env.used_fixtures.items()],
        "cast": cast,
    }

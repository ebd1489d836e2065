"""Run-of-show: an estimated duration for every step of a run, and the times it adds up to.

The text gives no durations; every number comes from the engine's ``data/durations.yaml``
(:mod:`sheli.engine.durations`, the one table the timeline reads too), where each one
is stated as an assumption with its reason. A step lasts its verb's base time, plus the walk
from where its actor was to where the act leaves him (at the event's floor scale and the
stated pace), plus the time to speak its words. Consecutive steps of one group act (same
passage, words and verb, different people) are done together and last as long as the
longest of them.

>>> from sheli.engine import run
>>> from sheli.engine.records import Step
>>> r = run("xiangshe", seed=1, pairs=0, guests=False)
>>> est = estimate(r)
>>> steps = sum(1 for s in r.records if isinstance(s, Step))
>>> len(est.seconds) == steps and est.total > 3600
True
>>> est.elapsed_before(0), est.remaining_from(steps)
(0.0, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from sheli.engine.durations import DURATIONS_FILE
from sheli.engine.records import BaseVisitor, Step
from sheli.errors import SheliError

#: the venue's 尺 in metres when the run says nothing else (sheli.place: 1 尺 = 0.231 m)
METRE_PER_CHI = 0.231


@dataclass(frozen=True)
class Durations:
    """The table of ``durations.yaml``: base seconds per verb, walking pace, speech rate."""

    verbs: dict[str, tuple[float, str]]
    default: tuple[float, str]
    walk_mps: float
    walk_assumption: str
    walk_max_s: float
    speech_s_per_char: float
    speech_assumption: str

    def base(self, verb: str) -> float:
        return self.verbs.get(verb, self.default)[0]


class DurationsError(SheliError, ValueError):
    """A malformed durations file; names the file and what is wrong."""


@cache
def load_durations(path: Path = DURATIONS_FILE) -> Durations:
    """Read and check the durations table.

    >>> load_durations().base("揖") > 0, load_durations().walk_mps
    (True, 1.0)
    """
    try:
        data = yaml.safe_load(Path(path).read_text("utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise DurationsError(f"{path}: cannot read: {exc}") from None
    try:
        verbs = {}
        for name, (secs, why) in data["verbs"].items():
            if not (isinstance(secs, int | float) and secs >= 0 and isinstance(why, str)):
                raise DurationsError(f"{path}: verbs.{name}: [seconds ≥ 0, assumption]")
            verbs[str(name)] = (float(secs), why)
        return Durations(
            verbs=verbs,
            default=(float(data["default"]["seconds"]), data["default"]["assumption"]),
            walk_mps=float(data["walk"]["metres_per_second"]),
            walk_assumption=data["walk"]["assumption"],
            walk_max_s=float(data["walk"]["max_seconds"]),
            speech_s_per_char=float(data["speech"]["seconds_per_character"]),
            speech_assumption=data["speech"]["assumption"],
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, DurationsError):
            raise
        raise DurationsError(f"{path}: malformed durations table: {exc!r}") from None


@dataclass
class Estimate:
    """Per-step estimated seconds (a group act's time sits on its first step, 0 on the rest)."""

    seconds: list[float]
    walks_m: list[float]

    def __post_init__(self) -> None:
        self._cum = [0.0]
        for s in self.seconds:
            self._cum.append(self._cum[-1] + s)

    @property
    def total(self) -> float:
        return self._cum[-1]

    def elapsed_before(self, index: int) -> float:
        """Estimated seconds from the start to the start of step ``index`` (0-based)."""
        return self._cum[max(0, min(index, len(self.seconds)))]

    def remaining_from(self, index: int) -> float:
        """Estimated seconds from the start of step ``index`` to the end."""
        return self.total - self.elapsed_before(index)


def _says_len(says: str | None) -> int:
    return sum(1 for ch in says or "" if not ch.isspace())


#: acts done one by one even when they follow one another on the same words
ONE_BY_ONE = frozenset(("射", "數獲", "釋獲"))


class Timing(BaseVisitor["Estimate"]):
    """The reader of a run that estimates each step (its result is an :class:`Estimate`);
    ``factor`` scales distances as the event's floor does.

    >>> from sheli.engine import run
    >>> est = run("xiangshe", seed=1, pairs=0, guests=False).accept(Timing())
    >>> est.seconds[0] > 0, est.walks_m[0]
    (True, 0.0)
    """

    def __init__(self, factor: float = 1.0, table: Durations | None = None) -> None:
        self.factor = factor
        self.table = table or load_durations()
        self.last: dict[str, tuple[float, float]] = {}  # where each actor last stood
        self.own: list[float] = []
        self.walks: list[float] = []
        self.keys: list[tuple[Any, ...]] = []  # (cite, jing, verb) of each step
        self.actors: list[str] = []

    def visit_step(self, step: Step) -> None:
        table = self.table
        base = table.base(step.verb)
        walk_m = 0.0
        x, y, who = step.x, step.y, step.actor
        if x is not None and y is not None:
            if who in self.last:
                px, py = self.last[who]
                walk_m = math.hypot(x - px, y - py) * METRE_PER_CHI * self.factor
            self.last[who] = (x, y)
        walk_s = min(walk_m / table.walk_mps, table.walk_max_s) if walk_m else 0.0
        self.own.append(base + walk_s + _says_len(step.says) * table.speech_s_per_char)
        self.walks.append(walk_m)
        self.keys.append((step.cite, step.jing, step.verb))
        self.actors.append(who)

    def result(self) -> Estimate:
        # group acts: one after another in the log, same passage/words/verb, different people
        own, keys, actors = self.own, self.keys, self.actors
        n = len(own)
        seconds = [0.0] * n
        i = 0
        while i < n:
            j = i + 1
            seen = {actors[i]}
            while (
                j < n
                and keys[j] == keys[i]
                and actors[j] not in seen
                and keys[j][2] not in ONE_BY_ONE
            ):
                seen.add(actors[j])
                j += 1
            seconds[i] = max(own[i:j])
            i = j
        return Estimate(seconds, self.walks)


def estimate(run: Any, factor: float = 1.0, table: Durations | None = None) -> Estimate:
    """Estimate every step of ``run`` (a run, read by :class:`Timing`); ``factor`` scales
    distances as the event's floor does.

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1, pairs=0, guests=False)
    >>> est = estimate(r)
    >>> first = r.records[1]
    >>> first.verb, est.seconds[0] == load_durations().base(first.verb)
    ('在', True)
    """
    return run.accept(Timing(factor, table))


def fmt(seconds: float) -> str:
    """``h:mm:ss`` (or ``m:ss``) for a number of seconds.

    >>> fmt(3725), fmt(65.4)
    ('1:02:05', '1:05')
    """
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


class SectionRows(BaseVisitor[list[dict[str, Any]]]):
    """The reader of a run that makes the run-of-show by 賈疏 section (see :func:`sections`)."""

    def __init__(self, est: Estimate) -> None:
        self.est = est
        self.rows: list[dict[str, Any]] = []
        self.i = 0

    def visit_step(self, s: Step) -> None:
        out, i = self.rows, self.i
        key = (s.section, s.round)
        if not out or out[-1]["key"] != key:
            out.append(
                {
                    "key": key,
                    "section": s.section,
                    "round": s.round,
                    "first_seq": s.seq,
                    "first_cite": s.cite,
                    "start_s": self.est.elapsed_before(i),
                    "seconds": 0.0,
                    "steps": 0,
                    "actors": [],
                }
            )
        row = out[-1]
        row["last_seq"] = s.seq
        row["last_cite"] = s.cite
        row["seconds"] += self.est.seconds[i]
        row["steps"] += 1
        if s.actor not in row["actors"]:
            row["actors"].append(s.actor)
        self.i = i + 1

    def result(self) -> list[dict[str, Any]]:
        return self.rows


def sections(run: Any, est: Estimate) -> list[dict[str, Any]]:
    """The run-of-show by 賈疏 section: first/last seq, start time, duration, who acts.

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1, pairs=0, guests=False)
    >>> rows = sections(r, estimate(r))
    >>> rows[0]["start_s"], rows[0]["first_seq"]
    (0.0, 1)
    """
    return run.accept(SectionRows(est))

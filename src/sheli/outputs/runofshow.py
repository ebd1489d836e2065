"""Run-of-show: the rite by the timeline — its length, each section's start, each
performer's waits — and, for the live app's clock, an estimated duration for every step.

**The timeline** (:func:`show`): the engine puts every step of a run in time
(docs/timeline.md: people act at once where the text lets them), and the run-of-show reads
those times: the rite's length (from its first act's start to its last act's end) beside
its acts added up, each 賈疏 section's start and end, and each performer's waits (the time
he stands between two of his acts).

>>> from sheli.engine import run
>>> ros = show(run("xiangshe", seed=1, pairs=0, guests=False))
>>> ros.span < ros.total, ros.sections[0]["start_s"], ros.sections[0]["first_seq"]
(True, 0.0, 1)
>>> ros.waited("司射") > 0
True

**The estimate** (:func:`estimate`): the durations of the acts one after another, at the
event's floor scale, as the live app's director's clock counts them. The text gives no
durations; every number comes from the engine's ``data/durations.yaml``
(:mod:`sheli.engine.durations`, the one table the timeline reads too), where each one is
stated as an assumption with its reason. A step lasts its verb's base time, plus the walk
from where its actor was to where the act leaves him (at the event's floor scale and the
stated pace), plus the time to speak its words. Consecutive steps of one group act (same
passage, words and verb, different people) are done together and last as long as the
longest of them.

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


#: a gap between two acts of one person shorter than this is no wait (the log's times are
#: rounded to the hundredth of a second)
NO_WAIT = 0.005


@dataclass(frozen=True)
class Wait:
    """A performer standing between two of his acts: after the step ``after`` (its seq) and
    before the step ``before``, from ``start`` (seconds from the rite's start) for
    ``seconds``."""

    after: int
    before: int
    start: float
    seconds: float


@dataclass
class RunOfShow:
    """The rite by the timeline: its length ``span``, its acts added up ``total``, its
    ``sections`` (rows as :func:`sections` gives, timed by the timeline: ``start_s``,
    ``end_s``, ``seconds`` from start to end, ``acts_s`` the section's acts added up) and
    each performer's ``waits``, by name (a group's members each by his own), in order."""

    span: float
    total: float
    sections: list[dict[str, Any]]
    waits: dict[str, list[Wait]]
    #: when each performer first acts and when his last act ends
    present: dict[str, tuple[float, float]]

    def waited(self, who: str) -> float:
        """The seconds ``who`` stands between his acts, added up."""
        return sum(w.seconds for w in self.waits.get(who, ()))

    @property
    def ratio(self) -> float:
        """The rite's length over its acts added up: below 1 where people act at once."""
        return self.span / self.total if self.total else 1.0


class ShowRows(BaseVisitor[RunOfShow]):
    """The reader of a run that makes its run-of-show from the steps' times (see
    :func:`show`); a step without a time (a run the engine did not schedule) is refused."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.waits: dict[str, list[Wait]] = {}
        self.last: dict[str, tuple[int, float]] = {}  # each performer's last act: seq, end
        self.first: dict[str, float] = {}
        self.begin = math.inf
        self.end = 0.0
        self.total = 0.0

    def visit_step(self, s: Step) -> None:
        if s.t is None or s.dur is None:
            raise ValueError(f"step {s.seq} has no time: the run was not scheduled")
        t, end = s.t, s.t + s.dur
        self.begin, self.end = min(self.begin, t), max(self.end, end)
        self.total += s.dur
        key = (s.section, s.round)
        if not self.rows or self.rows[-1]["key"] != key:
            self.rows.append(
                {
                    "key": key,
                    "section": s.section,
                    "round": s.round,
                    "first_seq": s.seq,
                    "first_cite": s.cite,
                    "start_s": t,
                    "end_s": end,
                    "acts_s": 0.0,
                    "steps": 0,
                    "actors": [],
                }
            )
        row = self.rows[-1]
        row["last_seq"], row["last_cite"] = s.seq, s.cite
        row["start_s"], row["end_s"] = min(row["start_s"], t), max(row["end_s"], end)
        row["seconds"] = row["end_s"] - row["start_s"]
        row["acts_s"] += s.dur
        row["steps"] += 1
        if s.actor not in row["actors"]:
            row["actors"].append(s.actor)
        for who in [m.name for m in s.members] or [s.actor]:
            before = self.last.get(who)
            if before is None:
                self.first[who] = t
            elif t - before[1] > NO_WAIT:
                self.waits.setdefault(who, []).append(
                    Wait(before[0], s.seq, before[1], round(t - before[1], 2))
                )
            if before is None or end >= before[1]:
                self.last[who] = (s.seq, end)

    def result(self) -> RunOfShow:
        span = self.end - self.begin if self.rows else 0.0
        present = {who: (t, self.last[who][1]) for who, t in self.first.items()}
        return RunOfShow(span, self.total, self.rows, self.waits, present)


def show(run: Any) -> RunOfShow:
    """The run-of-show of ``run`` by the timeline (its steps' ``t`` and ``dur``, which
    :func:`sheli.engine.run` gives): the rite's length against its acts added up, each
    section's start, each performer's waits.

    >>> from sheli.engine import run
    >>> ros = show(run("xiangshe", seed=1, pairs=0, guests=False))
    >>> first, last = ros.present["上耦上射"]
    >>> round(last - first - ros.waited("上耦上射"), 2) > 0  # the rest is his acts
    True
    """
    return run.accept(ShowRows())


def show_text(ros: RunOfShow, title: str = "", topics: dict[int, str] | None = None) -> str:
    """The run-of-show as plain text: the length, a line for each section, the waits.

    >>> from sheli.engine import run
    >>> print(show_text(show(run("xiangshe", seed=1, pairs=0, guests=False)), "鄉射禮"
    ...                 ).splitlines()[0])  # doctest: +ELLIPSIS
    鄉射禮: ... by the timeline; its acts added up ... (0...)
    """
    topics = topics or {}
    lines = [
        f"{title + ': ' if title else ''}{fmt(ros.span)} by the timeline; its acts added up "
        f"{fmt(ros.total)} ({ros.ratio:.2f})",
        "",
        "start    end      round  section",
    ]
    for r in ros.sections:
        topic = topics.get(r["section"], "") if r["section"] is not None else ""
        lines.append(
            f"{fmt(r['start_s']):>8} {fmt(r['end_s']):>8} {r['round']:>5}  "
            f"{r['section']} {topic}".rstrip()
            + f"  ({r['first_cite']}–{r['last_cite']}, {r['steps']} steps)"
        )
    lines += ["", "performer  present  acting  waiting (longest)"]
    for who, (first, last) in ros.present.items():
        waits = ros.waits.get(who, [])
        waited = ros.waited(who)
        longest = max((w.seconds for w in waits), default=0.0)
        lines.append(
            f"{who}  {fmt(last - first)}  {fmt(last - first - waited)}  {fmt(waited)}"
            f" ({fmt(longest)})"
        )
    return "\n".join(lines)

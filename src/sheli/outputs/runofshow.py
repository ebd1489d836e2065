"""Run-of-show: an estimated duration for every step of a run, and the times it adds up to.

The text gives no durations; every number comes from ``data/durations.yaml``, where each one
is stated as an assumption with its reason. A step lasts its verb's base time, plus the walk
from where its actor was to where the act leaves him (at the event's floor scale and the
stated pace), plus the time to speak its words. Consecutive steps of one group act (same
passage, words and verb, different people) are done together and last as long as the
longest of them.

>>> from sheli.engine import run
>>> r = run("xiangshe", seed=1, pairs=0, guests=False)
>>> est = estimate(r.steps)
>>> len(est.seconds) == len(r.steps) and est.total > 3600
True
>>> est.elapsed_before(0), est.remaining_from(len(r.steps))
(0.0, 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

DURATIONS_FILE = Path(__file__).with_name("data") / "durations.yaml"
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


class DurationsError(ValueError):
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


def _says_len(step: dict[str, Any]) -> int:
    says = step.get("says") or ""
    return sum(1 for ch in says if not ch.isspace())


def estimate(
    steps: list[dict[str, Any]], factor: float = 1.0, table: Durations | None = None
) -> Estimate:
    """Estimate every step; ``factor`` scales distances as the event's floor does.

    >>> est = estimate([{"actor": "司射", "verb": "揖", "x": 0, "y": 0, "says": None,
    ...                  "cite": "c:1", "jing": "揖"}])
    >>> est.seconds
    [3.0]
    """
    table = table or load_durations()
    last: dict[str, tuple[float, float]] = {}
    own: list[float] = []
    walks: list[float] = []
    for s in steps:
        base = table.base(s.get("verb", ""))
        walk_m = 0.0
        x, y, who = s.get("x"), s.get("y"), s.get("actor", "")
        if x is not None and y is not None:
            if who in last:
                px, py = last[who]
                walk_m = math.hypot(x - px, y - py) * METRE_PER_CHI * factor
            last[who] = (x, y)
        walk_s = min(walk_m / table.walk_mps, table.walk_max_s) if walk_m else 0.0
        own.append(base + walk_s + _says_len(s) * table.speech_s_per_char)
        walks.append(walk_m)
    # group acts: one after another in the log, same passage/words/verb, different people
    seconds = [0.0] * len(steps)
    i = 0
    while i < len(steps):
        j = i + 1
        actors = {steps[i].get("actor")}
        key = (steps[i].get("cite"), steps[i].get("jing"), steps[i].get("verb"))
        while (
            j < len(steps)
            and (steps[j].get("cite"), steps[j].get("jing"), steps[j].get("verb")) == key
            and steps[j].get("actor") not in actors
            and steps[j].get("verb") not in ("射", "數獲", "釋獲")  # these are one by one
        ):
            actors.add(steps[j].get("actor"))
            j += 1
        seconds[i] = max(own[i:j])
        i = j
    return Estimate(seconds, walks)


def fmt(seconds: float) -> str:
    """``h:mm:ss`` (or ``m:ss``) for a number of seconds.

    >>> fmt(3725), fmt(65.4)
    ('1:02:05', '1:05')
    """
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def sections(steps: list[dict[str, Any]], est: Estimate) -> list[dict[str, Any]]:
    """The run-of-show by 賈疏 section: first/last seq, start time, duration, who acts.

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1, pairs=0, guests=False)
    >>> rows = sections(r.steps, estimate(r.steps))
    >>> rows[0]["start_s"], rows[0]["first_seq"]
    (0.0, 1)
    """
    out: list[dict[str, Any]] = []
    for i, s in enumerate(steps):
        key = (s.get("section"), s.get("round"))
        if not out or out[-1]["key"] != key:
            out.append(
                {
                    "key": key,
                    "section": s.get("section"),
                    "round": s.get("round"),
                    "first_seq": s.get("seq"),
                    "first_cite": s.get("cite"),
                    "start_s": est.elapsed_before(i),
                    "seconds": 0.0,
                    "steps": 0,
                    "actors": [],
                }
            )
        row = out[-1]
        row["last_seq"] = s.get("seq")
        row["last_cite"] = s.get("cite")
        row["seconds"] += est.seconds[i]
        row["steps"] += 1
        if s.get("actor") not in row["actors"]:
            row["actors"].append(s.get("actor"))
    return out

"""The durations of the acts (``data/durations.yaml``): one table, read by the timeline of a
run (:mod:`sheli.engine.timeline`) and by the run-of-show.

The text gives no durations but the music's 節 (xiangshe:248 注); every other number is an
assumption stated with its reason in the file. The file is checked against the schema below
(pydantic): a bad file is refused with one line naming the file and the entry.

>>> d = load_durations()
>>> d.base("揖"), d.base("no such verb") == d.default.seconds
(3.0, True)
>>> round(d.chi_per_second, 2), round(d.chi_per_second * d.hurry.factor, 2)
(4.33, 6.49)
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Annotated

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

DURATIONS_FILE = Path(__file__).with_name("data") / "durations.yaml"
#: the venue's 尺 in metres when the run says nothing else (the place layer's 周尺, xie.yaml)
METRE_PER_CHI = 0.231

__all__ = ["DURATIONS_FILE", "Durations", "DurationsError", "load_durations"]

Seconds = Annotated[float, Field(ge=0)]
Said = Annotated[str, Field(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Walk(_Strict):
    metres_per_second: Annotated[float, Field(gt=0)]
    assumption: Said
    max_seconds: Annotated[float, Field(gt=0)]
    max_assumption: Said


class Hurry(_Strict):
    factor: Annotated[float, Field(ge=1)]
    assumption: Said


class Music(_Strict):
    beat_seconds: Annotated[float, Field(gt=0)]
    source: Said
    assumption: Said


class Speech(_Strict):
    seconds_per_character: Seconds
    assumption: Said


class Default(_Strict):
    seconds: Seconds
    assumption: Said


class Durations(_Strict):
    """The table: a walking pace and a faster 趨, the music's 節, the speech rate, a default
    and the base seconds of each verb, each with its source or assumption."""

    walk: Walk
    hurry: Hurry
    music: Music
    speech: Speech
    default: Default
    verbs: dict[str, tuple[Seconds, Said]]

    def base(self, verb: str) -> float:
        """The base seconds of ``verb`` (the default's for a verb the table does not name)."""
        entry = self.verbs.get(verb)
        return entry[0] if entry is not None else self.default.seconds

    @property
    def chi_per_second(self) -> float:
        """The walking pace in 尺 a second (the table's m/s at the place layer's 周尺)."""
        return self.walk.metres_per_second / METRE_PER_CHI


class DurationsError(ValueError):
    """A bad durations file: one line naming the file and what is wrong."""


@cache
def load_durations(path: Path = DURATIONS_FILE) -> Durations:
    """Read and check the table; a bad one raises :class:`DurationsError` in one line.

    >>> import tempfile, pathlib
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "d.yaml"
    >>> _ = bad.write_text(DURATIONS_FILE.read_text("utf-8").replace("揖: [3,", "揖: [-3,"))
    >>> try:
    ...     load_durations(bad)
    ... except DurationsError as e:
    ...     print(str(e).split(": ", 1)[1])
    verbs.揖.0: Input should be greater than or equal to 0 (got -3)
    """
    try:
        data = yaml.safe_load(Path(path).read_text("utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise DurationsError(f"{path}: cannot read: {' '.join(str(exc).split())}") from None
    try:
        return Durations.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        got = first.get("input")
        shown = f" (got {got!r})" if isinstance(got, int | float | str) and where else ""
        raise DurationsError(f"{path}: {where}: {first['msg']}{shown}") from None

"""The durations of the acts (``data/durations.yaml``): one table, read by the timeline of a
run (:mod:`sheli.engine.timeline`) and by the run-of-show.

The text gives no durations but the music's 節 (xiangshe:248 注); every other number is an
assumption stated with its reason in the file. The file is checked against the schema below
(msgspec, cheap to import on every run): a bad file is refused with one line naming the file
and the entry.

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

import msgspec
import yaml

DURATIONS_FILE = Path(__file__).with_name("data") / "durations.yaml"
#: the venue's 尺 in metres when the run says nothing else (the place layer's 周尺, xie.yaml)
METRE_PER_CHI = 0.231

__all__ = ["DURATIONS_FILE", "Durations", "DurationsError", "load_durations"]

Seconds = Annotated[float, msgspec.Meta(ge=0)]
Said = Annotated[str, msgspec.Meta(min_length=1)]


class Walk(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    metres_per_second: Annotated[float, msgspec.Meta(gt=0)]
    assumption: Said
    max_seconds: Annotated[float, msgspec.Meta(gt=0)]
    max_assumption: Said


class Hurry(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    factor: Annotated[float, msgspec.Meta(ge=1)]
    assumption: Said


class Music(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    beat_seconds: Annotated[float, msgspec.Meta(gt=0)]
    source: Said
    assumption: Said


class Stairs(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    step_seconds: Annotated[float, msgspec.Meta(gt=0)]
    assumption: Said


class Speech(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    seconds_per_character: Seconds
    assumption: Said


class Default(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    seconds: Seconds
    assumption: Said


class Durations(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """The table: a walking pace and a faster 趨, the music's 節, one 等 of a 階, the speech
    rate, a default and the base seconds of each verb, each with its source or assumption."""

    walk: Walk
    hurry: Hurry
    music: Music
    stairs: Stairs
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
    verbs.揖: Expected `float` >= 0.0 - at `$[0]`
    """
    try:
        data = yaml.safe_load(Path(path).read_text("utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise DurationsError(f"{path}: cannot read: {' '.join(str(exc).split())}") from None
    # each verb on its own first: msgspec's path hides a mapping's keys ($.verbs[...])
    verbs = data.get("verbs") if isinstance(data, dict) else None
    for verb, entry in verbs.items() if isinstance(verbs, dict) else ():
        try:
            msgspec.convert(entry, tuple[Seconds, Said])
        except msgspec.ValidationError as exc:
            raise DurationsError(f"{path}: verbs.{verb}: {' '.join(str(exc).split())}") from None
    try:
        return msgspec.convert(data, Durations)
    except msgspec.ValidationError as exc:
        raise DurationsError(f"{path}: {' '.join(str(exc).split())}") from None

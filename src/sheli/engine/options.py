"""The choices of a run, checked once where the run is made: :class:`RunOptions`.

``sheli run`` (and ``render``, ``cues``, ``diff``) and a library caller of
:func:`sheli.engine.run` get the same checks, before anything runs, and the same one-line
errors (:class:`OptionError`, a :class:`~sheli.rite.loader.SpecError`, so a
:class:`sheli.errors.SheliError`): a venue the place layer does not have, or one the rite is
not held in (the spec's ``venues:``); too many 衆耦 or 大夫; a reading or an option the
spec does not have, or an option value of the wrong kind; a reading run on another plan than
the one it measures on. A misspelt venue, reading or option gets the nearest names
(``did you mean``).

>>> from sheli.rite import load_spec
>>> opts = RunOptions(venue="庠", pairs=2)
>>> params = opts.params(load_spec("xiangshe"))
>>> params["venue"], params["pairs"], params["readings"]
('xiang', 2, ['R-zhi-zhongting'])
>>> RunOptions(venue="xei").params(load_spec("xiangshe"))
Traceback (most recent call last):
...
sheli.engine.options.OptionError: xiangshe.yaml: no venue 'xei'; did you mean xie? ...
>>> RunOptions(venue="xie").params(load_spec("dashe"))
Traceback (most recent call last):
...
sheli.engine.options.OptionError: dashe.yaml: 大射儀 is held in the 射宮: --venue shegong ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from sheli.errors import did_you_mean
from sheli.place.loader import VENUE_ALIASES, VENUES
from sheli.rite import LoadedSpec
from sheli.rite.loader import FILE_KEY, LINE_KEY, SpecError
from sheli.rite.nodes import Condition, Node

__all__ = ["MAX_DAFU", "MAX_PAIRS", "OptionError", "RunOptions", "choose_readings"]

# Each 耦 adds some 500 steps and their time to `sheli run`: 1000 衆耦, the largest the
# benchmarks measure and far past any 鄉's 衆賓 (see docs/benchmarks.md, "Rite run"), is the
# bound; more is refused at once rather than left to grow.
MAX_PAIRS = 1000
MAX_DAFU = 50


class OptionError(SpecError):
    """A choice of a run that the rite or the place layer refuses; the message names the
    choice, what is wrong and the choices there are.

    >>> str(OptionError("pairs (衆耦) is a whole number 0 to 1000, not -1"))
    '<spec>: pairs (衆耦) is a whole number 0 to 1000, not -1'
    """


class RunOptions(msgspec.Struct, frozen=True, kw_only=True):
    """What a run is asked for; None (or empty) leaves the spec's ``params:`` as they are.

    ``venue`` (a key or the text's name: xie, 庠, 射宮 …), ``pairs`` (衆耦 beyond the 三耦),
    ``guests`` (賓、主人、大夫 shoot), ``arrows_short`` (矢不備), ``dafu`` (how many 大夫
    shoot), ``readings`` (ids of the spec's ``readings:``), ``options`` (the spec's
    ``params.options`` to change), ``seed`` (of the outcome model: a whole number).
    :meth:`params` checks them against a spec.
    """

    venue: str | None = None
    pairs: int | None = None
    guests: bool | None = None
    arrows_short: bool | None = None
    dafu: int | None = None
    readings: tuple[str, ...] = ()
    options: Mapping[str, Any] | None = None
    seed: int | None = None

    def params(self, loaded: LoadedSpec) -> dict[str, Any]:
        """The run's parameters: the spec's ``params:`` with these choices, each checked;
        ``readings`` the readings followed (:func:`choose_readings`). Raises
        :class:`OptionError` on the first choice refused.

        >>> from sheli.rite import load_spec
        >>> RunOptions(pairs=1001).params(load_spec("xiangshe"))
        Traceback (most recent call last):
        ...
        sheli.engine.options.OptionError: <spec>: pairs (衆耦) is a whole number 0 to 1000, not 1001
        """
        spec: Any = loaded.spec  # a node of the spec: its fields are attributes
        params = spec.params.values()
        _count("pairs (衆耦)", self.pairs, MAX_PAIRS)
        _count("dafu (大夫 who shoot)", self.dafu, MAX_DAFU)
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int)
        ):
            raise OptionError(f"seed (of the outcome model) is a whole number, not {self.seed!r}")
        _flag("guests", self.guests)
        _flag("arrows_short", self.arrows_short)
        for key, val in (
            ("venue", self.venue),
            ("pairs", self.pairs),
            ("guests_shoot", self.guests),
            ("arrows_short", self.arrows_short),
            ("dafu", self.dafu),
        ):
            if val is not None:
                params[key] = val
        params["venue"] = _venue(loaded, params["venue"], explicit=self.venue is not None)
        if self.options:
            _check_options(loaded, self.options)
            params["options"] = {**params["options"], **self.options}
        try:
            params["readings"] = choose_readings(spec, list(self.readings))
        except SpecError as exc:
            raise OptionError(exc.message, file=loaded.file) from None
        _check_reading_venues(loaded, params["readings"], params["venue"])
        return params


def _count(name: str, value: int | None, most: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
        raise OptionError(f"{name} is a whole number 0 to {most}, not {value!r}")


def _flag(name: str, value: bool | None) -> None:
    if value is not None and not isinstance(value, bool):
        raise OptionError(f"{name} is true or false, not {value!r}")


def _place_name(key: str) -> str:
    """The short name of a venue: its title up to the dash (射宮 — 諸侯大射之宮 → 射宮)."""
    return VENUES[key].split(" — ")[0].split("（")[0].strip()


def _venue(loaded: LoadedSpec, value: str, explicit: bool) -> str:
    """The venue's key for ``value`` (a key or an alias), one the spec is held in."""
    spec: Any = loaded.spec
    key = VENUE_ALIASES.get(value, value)
    if key not in VENUES:
        known = ", ".join(f"{k} ({t})" for k, t in VENUES.items())
        hint = did_you_mean(value, VENUE_ALIASES)
        raise OptionError(f"no venue {value!r}{hint} (venues: {known})", file=loaded.file)
    held_in = list(spec.venues or ())
    if held_in and key not in held_in and explicit:
        places = "、".join(dict.fromkeys(_place_name(k) for k in held_in))
        title = (spec.title or spec.rite).split(" — ")[0]
        choices = " or ".join(f"--venue {k}" for k in held_in)
        source = f" ({spec.venues_source})" if spec.venues_source else ""
        raise OptionError(
            f"{title} is held in the {places}: {choices}, not {key}{source}", file=loaded.file
        )
    return key


def _check_options(loaded: LoadedSpec, options: Mapping[str, Any]) -> None:
    """An option the spec has, of its default's kind; a text one a value the spec tests."""
    spec: Any = loaded.spec
    defaults = spec.params.options
    file: str = spec.params.file or loaded.file
    line: int | None = spec.params.line or None
    for name, value in options.items():
        if name not in defaults:
            known = ", ".join(defaults) or "none"
            hint = did_you_mean(name, defaults)
            raise OptionError(
                f"{spec.rite} has no option {name!r}{hint} (options: {known})", file=loaded.file
            )
        default = defaults[name]
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise OptionError(
                    f"--option {name}={value}: {name} is true or false", file=file, line=line
                )
            continue
        if type(value) is not type(default):
            raise OptionError(
                f"--option {name}={value}: {name} is a {type(default).__name__} "
                f"like its default {default!r}",
                file=file,
                line=line,
            )
        if isinstance(default, str):
            known_values = _option_values(spec).get(name, set()) | {default}
            if value not in known_values:
                raise OptionError(
                    f"--option {name}={value}: {name} is one of {', '.join(sorted(known_values))}",
                    file=file,
                    line=line,
                )


def _check_reading_venues(loaded: LoadedSpec, readings: list[str], venue: str) -> None:
    """A reading that measures on a plan of its own (its ``venue:``) runs on that plan."""
    spec: Any = loaded.spec
    by_id = {r.id: r for r in spec.readings}
    for rid in readings:
        r = by_id.get(rid)
        if r is not None and r.venue is not None and r.venue != venue:
            raise OptionError(
                f"reading {rid} needs --venue {r.venue} (the plan it measures on), not {venue}",
                file=r.file or loaded.file,
                line=r.line or None,
            )


def _option_values(spec: Any) -> dict[str, set[Any]]:
    """The values each option is tested for in the spec's ``if: {option: …}`` conditions."""
    found: dict[str, set[Any]] = {}
    todo: list[Any] = [spec]
    while todo:
        x = todo.pop()
        if isinstance(x, Condition) and x.option:
            for k, v in x.option.items():
                if k not in (LINE_KEY, FILE_KEY):
                    found.setdefault(k, set()).add(v)
        if isinstance(x, Node):
            todo.extend(vars(x).values())
        elif isinstance(x, list | tuple):
            todo.extend(x)
        elif isinstance(x, dict):
            todo.extend(x.values())
    return found


def choose_readings(spec: Any, chosen: list[str]) -> list[str]:
    """The readings a run follows: each group's default unless ``chosen`` names another.

    An unknown id (with the nearest ids), or two ids of one group, is a :class:`SpecError`
    naming the known ones.

    >>> from sheli.rite import load_spec
    >>> try:
    ...     choose_readings(load_spec("dashe").spec, ["R-houdao-oa"])
    ... except SpecError as e:
    ...     print(e.message.split(" (")[0])
    dashe has no reading 'R-houdao-oa'; did you mean R-houdao-ao or R-houdao-zheng?
    """
    by_id = {r.id: r for r in spec.readings}
    picked: dict[str, str] = {}
    for rid in chosen:
        r = by_id.get(rid)
        if r is None:
            known = ", ".join(by_id) or "none"
            hint = did_you_mean(rid, by_id)
            raise SpecError(f"{spec.rite} has no reading {rid!r}{hint} (readings: {known})")
        if r.group in picked and picked[r.group] != rid:
            raise SpecError(f"readings {picked[r.group]} and {rid} answer the same question")
        picked[r.group] = rid
    for r in spec.readings:
        if r.default and r.group not in picked:
            picked[r.group] = r.id
    return sorted(picked.values(), key=list(by_id).index)

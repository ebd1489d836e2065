"""Where each arrow's outcome comes from: a seeded model, a recorded file, or Python.

An outcome is ``(hit, on_beat)`` for one arrow, keyed by ``(round, pair, archer, arrow)``:

- ``round``: 1, 2 or 3 (the three 番 of shooting);
- ``pair``: as the event log names it: ``上耦``, ``次耦``, ``下耦`` (the 三耦), ``衆耦1``,
  ``衆耦2`` … (the other pairs), ``賓耦`` (賓 上射, 主人 下射: 「主人與賓爲耦」 xiangshe:162,
  「主人爲下射」 xiangshe:187) and ``大夫耦1`` … (大夫 下射 with a 衆賓 as his 耦: 「大夫爲下射」
  xiangshe:188);
- ``archer``: ``上射`` or ``下射``;
- ``arrow``: 1–4, the four arrows of a 乘矢 in the order shot (拾發以將乘矢, xiangshe:147);
- ``hit``: 貫, the arrow pierced the 侯 (注 xiangshe:184 「貫猶中也」);
- ``on_beat``: the shot fell on the drum's 節 (應鼓, 注 xiangshe:248/250); it matters only in
  round 3 and may be left out elsewhere.

Optional fields (:data:`OPTIONAL_FIELDS`) say more of the arrow, for the counting where the text
makes them count and for the judging of the 五射 (docs/scoring.md):

- ``x``, ``y``: where it struck the face of its 侯, in 尺, from the centre of the 侯中 (the
  centre of the 鵠/正), ``x`` to the archer's right, ``y`` up;
- ``through``: it went through the 侯 (白矢: 見其鏃白, 賈疏 on 周禮 保氏);
- ``loosed_s``: when it was loosed, in seconds from any origin the file keeps for an archer;
- ``struck``: ``人`` (a 過, 矢揚中人: 注 xiangshe:350), ``維綱``, ``揚觸`` or ``梱復``
  (dashe:182), or empty;
- ``flight``: ``剡注`` (a scorer's or judge's mark of the flight), or empty.

>>> src = SeededOutcomes(7)
>>> src.outcome(2, "上耦", "上射", 1) == SeededOutcomes(7).outcome(2, "上耦", "上射", 1)
True
>>> src.outcome(2, "上耦", "上射", 1)[1] is None    # on_beat only in round 3
True
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import msgspec

from sheli.errors import SheliError
from sheli.files import read_at_most

#: the header of an outcomes CSV file, and the fields of a JSON record
FIELDS: tuple[str, ...] = ("round", "pair", "archer", "arrow", "hit", "on_beat")
#: columns a CSV file may add after :data:`FIELDS` (in any order), keys a JSON record may have
OPTIONAL_FIELDS: tuple[str, ...] = ("x", "y", "through", "loosed_s", "struck", "flight")
#: what else an arrow may have struck: a person (a 過, 注 xiangshe:350 矢揚中人) or, in 大射儀,
#: the ropes, a bounce, a rebound (dashe:182 中離維綱揚觸梱復)
STRUCK: tuple[str, ...] = ("人", "維綱", "揚觸", "梱復")
#: the struck values that are not a 貫 but that dashe:182 counts for the 公 (公則釋獲)
STRUCK_AT_HOU: tuple[str, ...] = ("維綱", "揚觸", "梱復")
#: marks of the flight a scorer or judge may give (剡注, 賈疏 on 周禮 保氏: 羽頭高鏃低而去)
FLIGHTS: tuple[str, ...] = ("剡注",)
#: no 侯 reaches this far from its centre (大侯's 綱 span 88 尺): a larger x or y is a typing slip
MAX_OFFSET = 100.0
ARCHER_NAMES: tuple[str, str] = ("上射", "下射")
#: pair names accepted when the run does not say which pairs it has
PAIR_PATTERN = re.compile(r"^(上耦|次耦|下耦|賓耦|衆耦[1-9][0-9]*|大夫耦[1-9][0-9]*)$")
# users who type simplified characters: 众耦1 → 衆耦1, 宾耦 → 賓耦
_TO_TRADITIONAL = str.maketrans({"众": "衆", "眾": "衆", "宾": "賓", "賔": "賓"})
# the struck values typed in simplified characters: 维纲 → 維綱, 扬触 → 揚觸, 梱复 → 梱復
_STRUCK_TO_TRADITIONAL = str.maketrans(
    {"维": "維", "纲": "綱", "扬": "揚", "触": "觸", "复": "復", "捆": "梱"}
)

Key = tuple[int, str, str, int]


def normalise_name(name: str) -> str:
    """A pair or archer name in the project's forms (衆, 賓), spaces removed.

    >>> normalise_name(" 众耦2 ")
    '衆耦2'
    """
    return name.strip().translate(_TO_TRADITIONAL)


class OutcomesError(SheliError, ValueError):
    """A malformed or incomplete outcomes file; names the file and the line.

    >>> str(OutcomesError("a.csv", 3, "arrow must be 1–4, not 5"))
    'a.csv:3: arrow must be 1–4, not 5'
    """

    def __init__(self, path: str | Path | None, line: int | None, message: str) -> None:
        self.path = str(path) if path is not None else None
        self.line = line
        self.message = message
        where = self.path or "<outcomes>"
        super().__init__(f"{where}:{line}: {message}" if line else f"{where}: {message}")


class OutcomeFieldError(SheliError, ValueError):
    """One field of an outcome is wrong (or two fields disagree); ``field`` names it.

    >>> str(OutcomeFieldError("x", "x and y go together", "round 2 上耦上射 arrow 1"))
    'round 2 上耦上射 arrow 1: x and y go together'
    """

    def __init__(self, field: str | None, message: str, where: str = "") -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.field = field
        self.message = message


class ArrowOutcome(msgspec.Struct, frozen=True):
    """What every outcome of an arrow says, given in this order (:class:`Outcome` adds the
    optional fields, by name only).

    The outcomes are msgspec's frozen structs, not frozen dataclasses: a dataclass's methods
    are compiled from source when its module is imported, some 0.9 ms, paid by every run.
    """

    round: int
    pair: str
    archer: str
    arrow: int
    hit: bool
    on_beat: bool | None = None
    line: int | None = None  # where it was read, for messages


class Outcome(ArrowOutcome, frozen=True, kw_only=True):
    """The recorded outcome of one arrow.

    >>> Outcome(3, "上耦", "下射", 2, True, False).key
    (3, '上耦', '下射', 2)
    """

    x: float | None = None
    y: float | None = None
    through: bool | None = None
    loosed_s: float | None = None
    struck: str = ""
    flight: str = ""

    def __post_init__(self) -> None:
        problem = outcome_problem(self)
        if problem is not None:
            raise OutcomeFieldError(problem[0], problem[1], self.describe())

    @property
    def key(self) -> Key:
        return (self.round, self.pair, self.archer, self.arrow)

    @property
    def at(self) -> tuple[float, float] | None:
        """Where it struck the face of the 侯 (x, y in 尺), if recorded.

        >>> Outcome(2, "上耦", "上射", 1, True, x=0.5, y=-1.0).at
        (0.5, -1.0)
        """
        return None if self.x is None or self.y is None else (self.x, self.y)

    def extras(self) -> dict[str, Any]:
        """The optional fields that are set, as a JSON record has them.

        >>> Outcome(2, "上耦", "上射", 1, True, through=True, struck="").extras()
        {'through': True}
        """
        out: dict[str, Any] = {}
        for name in OPTIONAL_FIELDS:
            value = getattr(self, name)
            if value is not None and value != "":
                out[name] = value
        return out

    def describe(self) -> str:
        return f"round {self.round} {self.pair}{self.archer} arrow {self.arrow}"


def outcome_problem(o: Outcome) -> tuple[str, str] | None:
    """What is wrong with an outcome's optional fields taken together: ``(field, message)``.

    >>> o = Outcome(2, "上耦", "上射", 1, False, struck="維綱")
    >>> outcome_problem(o) is None
    True
    >>> Outcome(2, "上耦", "上射", 1, True, struck="人")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sheli.scoring.outcomes.OutcomeFieldError: round 2 上耦上射 arrow 1: struck 人 is an arrow ...
    """
    for name in ("x", "y", "loosed_s"):
        v = getattr(o, name, None)
        if v is not None and not math.isfinite(v):
            return name, f"{name} must be a finite number, not {v}"
    if (o.x is None) != (o.y is None):
        missing = "y" if o.y is None else "x"
        return missing, "x and y go together: where on the face of the 侯 (尺, from its centre)"
    for name in ("x", "y"):
        v = getattr(o, name)
        if v is not None and abs(v) > MAX_OFFSET:
            return name, f"{name} must be within ±{MAX_OFFSET:g} 尺 of the 侯's centre, not {v:g}"
    if o.struck not in ("", *STRUCK):
        return "struck", f"struck must be empty or one of {'、'.join(STRUCK)}, not {o.struck!r}"
    if o.flight not in ("", *FLIGHTS):
        return "flight", f"flight must be empty or {'、'.join(FLIGHTS)}, not {o.flight!r}"
    if o.struck and o.hit:
        why = "矢揚中人, 注 xiangshe:350" if o.struck == "人" else "衆當中鵠而著, 注 dashe:182"
        return (
            "struck",
            f"struck {o.struck} is an arrow that did not 貫 the 侯, so hit is false ({why})",
        )
    if o.struck and o.through:
        return (
            "through",
            f"an arrow that went through the 侯 struck nothing else (struck {o.struck})",
        )
    if o.struck == "人" and o.at is not None:
        return "x", "an arrow that struck a person (struck 人) has no place on the face of the 侯"
    return None


@runtime_checkable
class OutcomeSource(Protocol):
    """Anything that gives the outcome of an arrow: ``(hit, on_beat)``."""

    def outcome(self, round: int, pair: str, archer: str, arrow: int) -> tuple[bool, bool | None]:
        """The outcome of this arrow; ``on_beat`` may be None outside round 3."""
        ...


# ---------------------------------------------------------------- the seeded model

#: Assumption: no source gives how often archers hit. Each archer's chance of 貫 is drawn once
#: per seed, uniformly in this range, so that 右勝, 左勝 and 鈞 all occur across seeds.
DEFAULT_SKILL_RANGE = (0.15, 0.55)
#: Assumption: the chance that a shot in round 3 falls on the drum's 節 (應鼓).
DEFAULT_ON_BEAT = 0.8


def _unit(*parts: object) -> float:
    """A number in [0, 1) fixed by ``parts``: the same parts give the same number, always."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


class SeededOutcomes:
    """A deterministic model of each archer, from a seed.

    Each outcome depends only on ``(seed, round, pair, archer, arrow)``: asking in another order,
    or asking twice, gives the same answer. ``skill`` maps an archer's full name (pair + place,
    ``"上耦上射"``, as in the event log) to the chance of a hit (貫); archers not in it get a
    chance drawn from the seed in :data:`DEFAULT_SKILL_RANGE`. ``on_beat`` is the chance that a
    round-3 shot 應鼓. Both defaults are assumptions (the text gives no rates).

    >>> s = SeededOutcomes(1, skill={"上耦上射": 1.0, "上耦下射": 0.0}, on_beat=1.0)
    >>> s.outcome(3, "上耦", "上射", 4), s.outcome(3, "上耦", "下射", 4)
    ((True, True), (False, True))
    """

    def __init__(
        self,
        seed: int,
        skill: Mapping[str, float] | None = None,
        on_beat: float = DEFAULT_ON_BEAT,
        skill_range: tuple[float, float] = DEFAULT_SKILL_RANGE,
    ) -> None:
        self.seed = seed
        self.skill = {normalise_name(k): float(v) for k, v in (skill or {}).items()}
        for name, p in [*self.skill.items(), ("on_beat", on_beat)]:
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"the chance for {name} must be between 0 and 1, not {p}")
        lo, hi = skill_range
        if not 0.0 <= lo <= hi <= 1.0:
            raise ValueError(f"skill_range must be 0 ≤ low ≤ high ≤ 1, not {skill_range}")
        self.on_beat = on_beat
        self.skill_range = (lo, hi)

    def skill_of(self, pair: str, archer: str) -> float:
        """The chance that this archer's arrow pierces the 侯 (貫).

        >>> 0.15 <= SeededOutcomes(3).skill_of("次耦", "下射") <= 0.55
        True
        """
        name = normalise_name(pair) + normalise_name(archer)
        if name in self.skill:
            return self.skill[name]
        lo, hi = self.skill_range
        return lo + (hi - lo) * _unit(self.seed, "skill", name)

    def outcome(self, round: int, pair: str, archer: str, arrow: int) -> tuple[bool, bool | None]:
        """The outcome of one arrow: ``(hit, on_beat)``; ``on_beat`` is None outside round 3."""
        pair, archer = normalise_name(pair), normalise_name(archer)
        hit = _unit(self.seed, "hit", round, pair, archer, arrow) < self.skill_of(pair, archer)
        if round != 3:
            return hit, None
        return hit, _unit(self.seed, "beat", round, pair, archer, arrow) < self.on_beat

    def direction(self, round: int, pair: str, archer: str, arrow: int) -> str:
        """Where a missed arrow went (留, 揚, 方: dashe:202), fixed by the seed and the arrow."""
        return miss_direction(self.seed, round, pair, archer, arrow)

    def side(self, round: int, pair: str, archer: str, arrow: int) -> str:
        """Which side an arrow that went wide went (左 or 右), fixed by the seed and the arrow."""
        return miss_side(self.seed, round, pair, archer, arrow)


#: Where a missed arrow went, as the 大射正 tells the 公: 下曰留上曰揚左右曰方 (dashe:202; 注
#: 留不至也揚過去也方出旁也).
MISS_DIRECTIONS: tuple[str, str, str] = ("留", "揚", "方")


def miss_direction(seed: object, round: int, pair: str, archer: str, arrow: int) -> str:
    """Where a missed arrow went: 留 (short), 揚 (over) or 方 (to the side), dashe:202.

    Assumption: no source says how often an arrow falls short, flies over or goes wide; the
    three are taken as equally likely, fixed by the arrow's key (and the seed, if any), so a
    run is reproducible.

    >>> miss_direction(0, 2, "公耦", "下射", 1) in MISS_DIRECTIONS
    True
    >>> miss_direction(5, 3, "公耦", "下射", 2) == miss_direction(5, 3, "公耦", "下射", 2)
    True
    """
    u = _unit(seed, "direction", round, normalise_name(pair), normalise_name(archer), arrow)
    return MISS_DIRECTIONS[min(2, int(u * 3))]


def miss_side(seed: object, round: int, pair: str, archer: str, arrow: int) -> str:
    """Which side an arrow that went wide (方) went: 左 or 右, equally likely, fixed as
    :func:`miss_direction` (敖繼公 on dashe:202: 方者左則曰左方右則曰右方也).

    >>> miss_side(0, 2, "公耦", "下射", 1) in ("左", "右")
    True
    """
    u = _unit(seed, "side", round, normalise_name(pair), normalise_name(archer), arrow)
    return "左" if u < 0.5 else "右"


# ---------------------------------------------------------------- recorded outcomes


class RecordedOutcomes:
    """Outcomes given in advance: from a file (:func:`load_outcomes`) or from Python.

    Asking for an arrow that was not recorded raises :class:`OutcomesError`; :meth:`require`
    checks a whole run's arrows before the run starts, and :meth:`unused` lists afterwards the
    entries the run never asked for (pairs or arrows it does not have) as warnings.

    >>> rec = RecordedOutcomes([Outcome(2, "上耦", "上射", 1, True)])
    >>> rec.outcome(2, "上耦", "上射", 1)
    (True, None)
    >>> rec.unused()
    []
    """

    def __init__(
        self,
        outcomes: Iterable[Outcome],
        path: str | Path | None = None,
        warnings: Iterable[str] = (),
    ) -> None:
        self.path = str(path) if path is not None else None
        self.entries: dict[Key, Outcome] = {}
        for o in outcomes:
            if o.key in self.entries:
                first = self.entries[o.key]
                raise OutcomesError(
                    self.path, o.line, f"{o.describe()} is given twice (first on line {first.line})"
                )
            self.entries[o.key] = o
        self.warnings: list[str] = list(warnings)
        self._asked: set[Key] = set()

    def __len__(self) -> int:
        return len(self.entries)

    def outcome(self, round: int, pair: str, archer: str, arrow: int) -> tuple[bool, bool | None]:
        """The recorded ``(hit, on_beat)`` of this arrow."""
        key = (round, normalise_name(pair), normalise_name(archer), arrow)
        self._asked.add(key)
        try:
            found = self.entries[key]
        except KeyError:
            raise OutcomesError(
                self.path,
                None,
                f"no outcome recorded for round {round} {pair}{archer} arrow {arrow}",
            ) from None
        return found.hit, found.on_beat

    def detail(self, round: int, pair: str, archer: str, arrow: int) -> Outcome | None:
        """The whole recorded outcome of this arrow (its place, piercing, time …), if any.

        >>> rec = RecordedOutcomes([Outcome(2, "上耦", "上射", 1, False, struck="人")])
        >>> rec.detail(2, "上耦", "上射", 1).struck, rec.detail(2, "上耦", "上射", 2)
        ('人', None)
        """
        key = (round, normalise_name(pair), normalise_name(archer), arrow)
        return self.entries.get(key)

    def require(self, keys: Iterable[Key]) -> None:
        """Refuse, before anything runs, if any of these arrows has no recorded outcome.

        >>> RecordedOutcomes([]).require([(1, "上耦", "上射", 1)])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        sheli.scoring.outcomes.OutcomesError: <outcomes>: no outcome recorded for 1 arrow(s): ...
        """
        missing = [
            k
            for k in keys
            if (k[0], normalise_name(k[1]), normalise_name(k[2]), k[3]) not in self.entries
        ]
        if missing:
            shown = ", ".join(f"round {r} {p}{a} arrow {n}" for r, p, a, n in missing[:5])
            more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
            raise OutcomesError(
                self.path, None, f"no outcome recorded for {len(missing)} arrow(s): {shown}{more}"
            )

    def unused(self) -> list[str]:
        """Warnings for the entries the run never asked for, with their lines."""
        where = self.path or "<outcomes>"
        out = []
        for key, o in sorted(self.entries.items(), key=lambda kv: (kv[1].line or 0, kv[0])):
            if key not in self._asked:
                at = f"{where}:{o.line}" if o.line else where
                out.append(f"{at}: {o.describe()} was never shot in this run")
        return out


# ---------------------------------------------------------------- reading files


_FieldError = OutcomeFieldError


def _as_int(field: str, value: Any, low: int, high: int, what: str) -> int:
    if isinstance(value, bool):
        raise _FieldError(field, f"{field} must be a number {low}–{high}, not {json.dumps(value)}")
    if isinstance(value, int):
        n = value
    elif isinstance(value, str) and value.strip().isdigit():
        n = int(value.strip())
    else:
        shown = json.dumps(value, ensure_ascii=False) if value is not None else "empty"
        raise _FieldError(field, f"{field} must be a number {low}–{high}, not {shown}")
    if not low <= n <= high:
        raise _FieldError(field, f"{field} must be {low}–{high} ({what}), not {n}")
    return n


def _as_bool(field: str, value: Any, *, optional: bool) -> bool | None:
    if isinstance(value, bool):
        return value
    if value is None or (isinstance(value, str) and not value.strip()):
        if optional:
            return None
        raise _FieldError(field, f"{field} is empty; write true or false")
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    shown = json.dumps(value, ensure_ascii=False)
    raise _FieldError(field, f"{field} must be true or false, not {shown}")


def _as_float(field: str, value: Any) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        raise _FieldError(field, f"{field} must be a number, not {json.dumps(value)}")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            pass
    shown = json.dumps(value, ensure_ascii=False)
    raise _FieldError(field, f"{field} must be a number, not {shown}")


def _as_word(field: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        shown = json.dumps(value, ensure_ascii=False)
        raise _FieldError(
            field, f"{field} must be empty or one of {'、'.join(allowed)}, not {shown}"
        )
    word = value.strip().translate(_STRUCK_TO_TRADITIONAL)
    if word and word not in allowed:
        raise _FieldError(
            field, f"{field} must be empty or one of {'、'.join(allowed)}, not {value.strip()!r}"
        )
    return word


def _as_outcome(
    raw: Mapping[str, Any], line: int, pairs: frozenset[str] | None
) -> tuple[Outcome, str | None]:
    """Check one record's fields; return the outcome and a warning, or raise _FieldError."""
    rnd = _as_int("round", raw.get("round"), 1, 3, "the three 番 of shooting")
    pair_raw = raw.get("pair")
    if not isinstance(pair_raw, str) or not pair_raw.strip():
        raise _FieldError("pair", "pair is empty; name it as the event log does (上耦, 衆耦1 …)")
    pair = normalise_name(pair_raw)
    if pairs is not None:
        if pair not in pairs:
            known = "、".join(sorted(pairs))
            raise _FieldError("pair", f"unknown pair {pair_raw!r}; this run has {known}")
    elif not PAIR_PATTERN.match(pair):
        raise _FieldError(
            "pair",
            f"unknown pair {pair_raw!r}; "
            "pairs are 上耦, 次耦, 下耦, 衆耦1, 衆耦2 …, 賓耦, 大夫耦1 …",
        )
    archer_raw = raw.get("archer")
    archer = normalise_name(archer_raw) if isinstance(archer_raw, str) else archer_raw
    if archer not in ARCHER_NAMES:
        shown = json.dumps(archer_raw, ensure_ascii=False)
        raise _FieldError("archer", f"unknown archer {shown}; an archer is 上射 or 下射")
    arrow = _as_int("arrow", raw.get("arrow"), 1, 4, "the four arrows of a 乘矢")
    hit = _as_bool("hit", raw.get("hit"), optional=False)
    assert hit is not None
    on_beat = _as_bool("on_beat", raw.get("on_beat"), optional=True)
    warning = None
    if rnd == 3 and hit and on_beat is None:
        warning = "a round-3 hit with no on_beat is not counted (不鼓不釋, xiangshe:248)"
    outcome = Outcome(
        rnd,
        pair,
        str(archer),
        arrow,
        hit,
        on_beat,
        line,
        x=_as_float("x", raw.get("x")),
        y=_as_float("y", raw.get("y")),
        through=_as_bool("through", raw.get("through"), optional=True),
        loosed_s=_as_float("loosed_s", raw.get("loosed_s")),
        struck=_as_word("struck", raw.get("struck"), STRUCK),
        flight=_as_word("flight", raw.get("flight"), FLIGHTS),
    )
    return outcome, warning


def parse_outcome(record: Mapping[str, Any], pairs: Iterable[str] | None = None) -> Outcome:
    """One outcome from a record (a JSON object, or a live app's form), checked as a file's
    line is; a bad value raises :class:`OutcomeFieldError` naming the field.

    >>> parse_outcome({"round": 2, "pair": "上耦", "archer": "上射", "arrow": 1, "hit": True,
    ...                "x": "0.5", "y": -1, "through": "true"}).extras()
    {'x': 0.5, 'y': -1.0, 'through': True}
    >>> parse_outcome({"round": 2, "pair": "上耦", "archer": "上射", "arrow": 1, "hit": True,
    ...                "struck": "人"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sheli.scoring.outcomes.OutcomeFieldError: round 2 上耦上射 arrow 1: struck 人 is an arrow ...
    """
    unknown = [k for k in record if k not in FIELDS and k not in OPTIONAL_FIELDS]
    if unknown:
        raise OutcomeFieldError(unknown[0], f"unknown field {unknown[0]!r}")
    allowed = frozenset(normalise_name(p) for p in pairs) if pairs is not None else None
    outcome, _ = _as_outcome(record, 0, allowed)
    return msgspec.structs.replace(outcome, line=None)


# An event's file holds a few thousand rows (3 rounds × 8 arrows a pair): 8 MB is some
# 200,000 rows, read in seconds; past it a file is refused, not read into memory.
OUTCOMES_MAX_BYTES = 8 << 20


def _decode(path: Path) -> str:
    data = read_at_most(path, OUTCOMES_MAX_BYTES)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise OutcomesError(path, line, "not UTF-8 text") from None


def _csv_header(path: Path, line: int, names: list[str]) -> list[str]:
    """The columns of a CSV file: :data:`FIELDS`, then any of :data:`OPTIONAL_FIELDS`."""
    if names[: len(FIELDS)] != list(FIELDS):
        raise OutcomesError(
            path,
            line,
            f"the header is {','.join(names)!r}; an outcomes file begins with "
            f"the header {','.join(FIELDS)}",
        )
    extra = names[len(FIELDS) :]
    for i, name in enumerate(extra):
        if name not in OPTIONAL_FIELDS:
            raise OutcomesError(
                path,
                line,
                f"unknown column {name!r}; after {','.join(FIELDS)} the columns may be "
                f"{', '.join(OPTIONAL_FIELDS)}",
            )
        if name in extra[:i]:
            raise OutcomesError(path, line, f"the column {name!r} is given twice")
    return names


def _read_csv(path: Path, text: str, pairs: frozenset[str] | None) -> RecordedOutcomes:
    reader = csv.reader(io.StringIO(text, newline=""))
    header_seen = False
    columns: list[str] = list(FIELDS)
    outcomes: list[Outcome] = []
    warnings: list[str] = []
    seen: dict[Key, int] = {}
    try:
        for row in reader:
            line = reader.line_num
            if not row or all(not c.strip() for c in row) or row[0].lstrip().startswith("#"):
                continue  # blank lines and # comments
            if not header_seen:
                columns = _csv_header(path, line, [c.strip() for c in row])
                header_seen = True
                continue
            if len(row) != len(columns):
                raise OutcomesError(
                    path, line, f"{len(row)} fields where the header has {len(columns)}"
                )
            try:
                outcome, warning = _as_outcome(dict(zip(columns, row, strict=True)), line, pairs)
            except _FieldError as exc:
                raise OutcomesError(path, line, exc.message) from None
            _keep(outcome, warning, path, line, seen, outcomes, warnings)
    except csv.Error as exc:
        raise OutcomesError(path, reader.line_num, f"not valid CSV: {exc}") from None
    if not header_seen:
        raise OutcomesError(path, 1, f"empty file; expected the header {','.join(FIELDS)}")
    return RecordedOutcomes(outcomes, path, warnings)


#: what a JSON document nested beyond Python's recursion limit is told (a record is one
#: object of plain fields: two deep in its file)
TOO_DEEP = "nested too deep: a record is one object of plain fields"


def _line_at(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _json_records(path: Path, text: str) -> list[tuple[Any, int, int]]:
    """The records of a JSON array or JSON Lines file with their spans in the text."""
    decoder = json.JSONDecoder()
    if path.suffix.lower() == ".jsonl":
        spans = []
        offset = 0
        for raw_line in text.splitlines(keepends=True):
            if raw_line.strip() and not raw_line.lstrip().startswith("#"):
                try:
                    value = json.loads(raw_line)
                except json.JSONDecodeError as exc:
                    raise OutcomesError(
                        path, _line_at(text, offset), f"not JSON: {exc.msg}"
                    ) from None
                except RecursionError:
                    raise OutcomesError(path, _line_at(text, offset), TOO_DEEP) from None
                spans.append((value, offset, offset + len(raw_line)))
            offset += len(raw_line)
        return spans
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OutcomesError(path, exc.lineno, f"not valid JSON: {exc.msg}") from None
    except RecursionError:  # (Python's JSON decoder stops at its recursion limit)
        raise OutcomesError(path, _line_at(text, _skip_ws(text, 0)), TOO_DEEP) from None
    if not isinstance(document, list):
        raise OutcomesError(
            path, _line_at(text, _skip_ws(text, 0)), "a JSON outcomes file is a list of records"
        )
    # the document is valid: walk its elements again to know where each one starts
    spans = []
    i = _skip_ws(text, 0) + 1  # past '['
    for _ in document:
        i = _skip_ws(text, i)
        value, end = decoder.raw_decode(text, i)
        spans.append((value, i, end))
        i = _skip_ws(text, end)
        if i < len(text) and text[i] == ",":
            i += 1
    return spans


def _read_json(path: Path, text: str, pairs: frozenset[str] | None) -> RecordedOutcomes:
    outcomes: list[Outcome] = []
    warnings: list[str] = []
    seen: dict[Key, int] = {}
    for value, start, end in _json_records(path, text):
        line = _line_at(text, start)
        if not isinstance(value, dict):
            raise OutcomesError(
                path, line, f"a record is an object with the fields {', '.join(FIELDS)}"
            )
        unknown = [k for k in value if k not in FIELDS and k not in OPTIONAL_FIELDS]
        if unknown:
            raise OutcomesError(
                path,
                line,
                f"unknown field {unknown[0]!r}; the fields are {', '.join(FIELDS)} "
                f"(and optionally {', '.join(OPTIONAL_FIELDS)})",
            )
        missing = [k for k in FIELDS if k != "on_beat" and k not in value]
        if missing:
            raise OutcomesError(path, line, f"the field {missing[0]!r} is missing")
        try:
            outcome, warning = _as_outcome(value, line, pairs)
        except _FieldError as exc:
            # point at the line of the offending field inside the record
            found = (
                re.compile(rf'"{exc.field}"\s*:').search(text, start, end) if exc.field else None
            )
            at = _line_at(text, found.start()) if found else line
            raise OutcomesError(path, at, exc.message) from None
        _keep(outcome, warning, path, line, seen, outcomes, warnings)
    return RecordedOutcomes(outcomes, path, warnings)


def load_outcomes(path: str | Path, pairs: Iterable[str] | None = None) -> RecordedOutcomes:
    """Read and check a whole outcomes file (CSV, JSON or JSON Lines) before anything uses it.

    The format is chosen by the extension (``.csv``, ``.json``, ``.jsonl``), or for other names
    by the content (a file starting with ``[`` is JSON). ``pairs``, when given, are the pairs of
    the run and the only ones accepted; otherwise the names of :data:`PAIR_PATTERN`. Any fault
    raises :class:`OutcomesError` naming the file and the line.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "o.csv")
    >>> _ = open(p, "w", encoding="utf-8").write(
    ...     "round,pair,archer,arrow,hit,on_beat\\n2,上耦,上射,1,true,\\n2,上耦,上射,5,true,\\n")
    >>> load_outcomes(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sheli.scoring.outcomes.OutcomesError: ...o.csv:3: arrow must be 1–4 (...), not 5
    """
    path = Path(path)
    try:
        text = _decode(path)
    except OSError as exc:
        raise OutcomesError(path, None, f"cannot read: {exc.strerror or exc}") from None
    allowed = frozenset(normalise_name(p) for p in pairs) if pairs is not None else None
    suffix = path.suffix.lower()
    if suffix in (".json", ".jsonl") or (suffix != ".csv" and text.lstrip().startswith("[")):
        return _read_json(path, text, allowed)
    return _read_csv(path, text, allowed)


def _keep(
    outcome: Outcome,
    warning: str | None,
    path: Path,
    line: int,
    seen: dict[Key, int],
    outcomes: list[Outcome],
    warnings: list[str],
) -> None:
    """Keep one outcome read at ``line``, refusing a second of the same arrow (CSV and JSON)."""
    if outcome.key in seen:
        raise OutcomesError(
            path,
            line,
            f"duplicate: {outcome.describe()} is already given on line {seen[outcome.key]}",
        )
    seen[outcome.key] = line
    outcomes.append(outcome)
    if warning:
        warnings.append(f"{path}:{line}: {warning}")

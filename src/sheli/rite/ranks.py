"""The archery by rank and occasion (``data/ranks.yaml``): 耦, 侯, music, 中 and 旌, each value
with its sources, and the readings where the sources disagree.

The table is data a scholar reads and corrects; this module loads it, checks it (every value
has a source, every reading id is declared, each disagreement has one default, the music
leaves four 節 for the four arrows) and picks the values for a rank, an occasion and a choice
of readings.

>>> table = load_ranks()
>>> cell = table.cell("諸侯", "大射")
>>> cell.get("耦").value, [h.名 for h in cell.get("侯").value]
(3, ['大侯', '糝侯', '豻侯'])
>>> ao = table.cell("諸侯", "大射", readings=["dashe-can.ao-jigong"])
>>> [h.名 for h in ao.get("侯").value], ao.get("侯").reading
(['大侯', '參侯', '干侯'], 'dashe-can.ao-jigong')
>>> table.cell("天子", "大射").get("樂").value.聽      # 騶虞九節, 五節先以聽 (xiangshe:248 疏)
5
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from sheli.errors import SheliError
from sheli.rite.loader import FILE_KEY, LINE_KEY, SpecError, load_yaml_with_lines

RANKS_FILE = Path(__file__).parent / "data" / "ranks.yaml"

FIELDS: tuple[str, ...] = ("耦", "侯", "樂", "中", "旌")
ARROWS = 4  # 乘矢: 四節以盡乘矢 (xiangshe:248 疏), so 聽 = 節 − 4

__all__ = [
    "ARROWS",
    "FIELDS",
    "RANKS_FILE",
    "Cell",
    "Citation",
    "Hou",
    "Music",
    "RankError",
    "RankTable",
    "Resolved",
    "load_ranks",
    "parse_citation",
]


class RankError(SheliError):
    """A rank table that cannot be read or a choice that does not exist.

    >>> str(RankError("unknown rank 帝", file="ranks.yaml", line=3))
    'ranks.yaml:3: unknown rank 帝'
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None):
        self.message, self.file, self.line = message, file, line
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.file is None:  # a bad choice (--reading, --rank), not a bad file
            return self.message
        where = self.file
        if self.line:
            where += f":{self.line}"
        return f"{where}: {self.message}"


# ---------------------------------------------------------------- citations

_CHAPTER_RE = re.compile(r"^(xiangshe|dashe|yan):(\d+)(?:\s+(經|注|疏))?$")


@dataclass(frozen=True)
class Citation:
    """One entry of a ``source:`` list: where, and the words quoted from there.

    ``kind`` is ``passage`` (xiangshe:N, dashe:N, yan:N: 經, 注 or 疏 of that passage),
    ``yishu`` (欽定儀禮義疏 on a passage), ``seed`` (seed 001) or ``sheyi`` (禮記 射義).

    >>> c = parse_citation("xiangshe:336 (凡矦天子熊矦白質; 注: 此所謂獸矦也 … 燕射則張之)")
    >>> c.kind, c.chapter, c.passage, c.pieces
    ('passage', 'xiangshe', 336, ('凡矦天子熊矦白質', '此所謂獸矦也', '燕射則張之'))
    >>> parse_citation("seed001 周禮 夏官 射人 (王以六耦)").kind
    'seed'
    """

    text: str
    kind: Literal["passage", "yishu", "seed", "sheyi"]
    where: str
    pieces: tuple[str, ...]
    chapter: str | None = None
    passage: int | None = None


def parse_citation(text: str) -> Citation:
    """Parse ``WHERE (WORDS … WORDS)``; raise :class:`ValueError` if it does not follow the form."""
    m = re.fullmatch(r"\s*([^()]+?)\s*(?:\((.*)\))?\s*", text, flags=re.S)
    if not m or not m.group(2):
        raise ValueError(f"citation {text!r}: no quoted words in (…)")
    where, quoted = m.group(1), m.group(2)
    pieces: list[str] = []
    for piece in re.split(r"\s*…\s*|;\s*", quoted):
        # a label before the words (注: …, 疏: …) says which layer; it is not quoted text
        piece = re.sub(r"^(經|注|疏)\s*:\s*", "", piece.strip())
        if piece:
            pieces.append(piece)
    if not pieces:
        raise ValueError(f"citation {text!r}: no quoted words in (…)")
    if pm := _CHAPTER_RE.match(where):
        return Citation(text, "passage", where, tuple(pieces), pm.group(1), int(pm.group(2)))
    if where.startswith("義疏 "):
        pm = _CHAPTER_RE.match(where.removeprefix("義疏 "))
        if not pm:
            raise ValueError(f"citation {text!r}: 義疏 needs a passage id (義疏 dashe:5)")
        return Citation(text, "yishu", where, tuple(pieces), pm.group(1), int(pm.group(2)))
    if where.startswith("seed001"):
        return Citation(text, "seed", where, tuple(pieces))
    if where == "禮記 射義":
        return Citation(text, "sheyi", where, tuple(pieces))
    raise ValueError(
        f"citation {text!r}: the place must be chapter:N, 義疏 chapter:N, seed001 … or 禮記 射義"
    )


# ---------------------------------------------------------------- values

Mark = Literal["鵠", "五正", "三正", "二正", "畫獸"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Hou(_Strict):
    """One 侯: its name, 侯道 in 弓 (None where the reading does not say), its mark."""

    名: str
    道: int | None = Field(default=None, gt=0)
    的: Mark
    飾: str | None = None
    質: str | None = None


class Music(_Strict):
    """The song, its 節, and how many are heard before the first arrow."""

    詩: str
    節: int = Field(gt=0)
    聽: int = Field(ge=0)

    @model_validator(mode="after")
    def _four_for_the_arrows(self) -> Music:
        # 尊卑樂節雖多少不同四節以盡乗矢則同 (xiangshe:248 疏)
        if self.節 - self.聽 != ARROWS:
            raise ValueError(
                f"{self.詩}: {self.節} 節 with {self.聽} heard first leaves "
                f"{self.節 - self.聽} for the {ARROWS} arrows (xiangshe:248 疏: 四節以盡乗矢)"
            )
        return self


class HuRule(_Strict):
    """The 侯's mark as fractions of the 侯中 (``"1/3"``): the 鵠, and a 正 inside it if any.

    >>> HuRule(鵠="2/5", 正="1/5").fractions()
    (Fraction(2, 5), Fraction(1, 5))
    """

    鵠: str
    正: str | None = None

    @model_validator(mode="after")
    def _fractions(self) -> HuRule:
        hu, zheng = self.fractions()
        if not 0 < hu < 1 or (zheng is not None and not 0 < zheng < hu):
            raise ValueError(f"鵠 {self.鵠} must lie in (0, 1) and 正 {self.正} inside it")
        return self

    def fractions(self) -> tuple[Fraction, Fraction | None]:
        try:
            hu = Fraction(self.鵠)
            zheng = Fraction(self.正) if self.正 is not None else None
        except (ValueError, ZeroDivisionError) as exc:
            raise ValueError(f"not a fraction (write 1/3): {exc}") from None
        return hu, zheng


_VALUE_TYPES: dict[str, Any] = {
    "耦": int, "侯": list[Hou], "樂": Music, "中": str, "旌": str, "鵠": HuRule,
}  # fmt: skip
_ADAPTERS: dict[str, TypeAdapter[Any]] = {k: TypeAdapter(v) for k, v in _VALUE_TYPES.items()}


def _check_sources(sources: list[str]) -> list[str]:
    if not sources:
        raise ValueError("a value needs at least one source")
    for s in sources:
        parse_citation(s)
    return sources


class _Reading(_Strict):
    reading: str
    default: bool = False
    value: Any
    source: list[str]
    note: str | None = None

    @model_validator(mode="after")
    def _sourced(self) -> _Reading:
        _check_sources(self.source)
        return self


class _Value(_Strict):
    value: Any = None
    source: list[str] = []
    note: str | None = None
    readings: list[_Reading] | None = None

    @model_validator(mode="after")
    def _one_form(self) -> _Value:
        if self.readings is None:
            if self.value is None:
                raise ValueError("give `value:` and `source:`, or `readings:`")
            _check_sources(self.source)
        else:
            if self.value is not None or self.source:
                raise ValueError("a value with `readings:` has no `value:`/`source:` of its own")
            if sum(r.default for r in self.readings) != 1:
                raise ValueError("exactly one reading must be `default: true`")
            groups = {r.reading.split(".")[0] for r in self.readings}
            if len(groups) != 1:
                raise ValueError(f"readings of one value come from one disagreement, not {groups}")
        return self


class _Absent(_Strict):
    note: str
    source: list[str]

    @model_validator(mode="after")
    def _sourced(self) -> _Absent:
        _check_sources(self.source)
        return self


class _Cell(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rank: str
    occasion: str
    absent: _Absent | None = None
    耦: _Value | None = None
    侯: _Value | None = None
    樂: _Value | None = None
    中: _Value | None = None
    旌: _Value | None = None

    @model_validator(mode="after")
    def _typed(self) -> _Cell:
        present = [f for f in FIELDS if getattr(self, f) is not None]
        if self.absent is not None and present:
            raise ValueError("an absent cell has no values")
        if self.absent is None and not present:
            raise ValueError("a cell needs values or `absent:`")
        for f in present:
            v: _Value = getattr(self, f)
            for alt in _alternatives(v):
                _coerce(f, alt.value)
        return self


def _coerce(field_name: str, value: Any) -> Any:
    return _ADAPTERS[field_name].validate_python(value)


class _ReadingDecl(_Strict):
    by: str
    default: bool = False
    note: str | None = None


class _Disagreement(_Strict):
    question: str
    readings: dict[str, _ReadingDecl]

    @model_validator(mode="after")
    def _one_default(self) -> _Disagreement:
        if sum(r.default for r in self.readings.values()) != 1:
            raise ValueError("exactly one reading must be `default: true`")
        return self


class _Named(_Strict):
    aliases: list[str] = []
    note: str | None = None
    source: list[str]

    @model_validator(mode="after")
    def _sourced(self) -> _Named:
        _check_sources(self.source)
        return self


def _alternatives(v: _Value) -> Sequence[_Reading | _Value]:
    """A value's readings, or the value itself where it has none (each has value and source)."""
    return v.readings or [v]


class _Target(_Strict):
    鵠: _Value

    @model_validator(mode="after")
    def _typed(self) -> _Target:
        for alt in _alternatives(self.鵠):
            _coerce("鵠", alt.value)
        return self


class _Table(_Strict):
    ranks: dict[str, _Named]
    occasions: dict[str, _Named]
    fields: dict[str, str]
    disagreements: dict[str, _Disagreement]
    target: _Target
    cells: list[_Cell]


# ---------------------------------------------------------------- the loaded table


@dataclass(frozen=True)
class Resolved:
    """One value of a cell under a choice of readings.

    ``reading`` is the reading id it follows (None where the sources agree); ``readings`` the
    ids this value has; ``default`` whether it is the default reading's value.
    """

    field: str
    value: Any
    source: tuple[str, ...]
    note: str | None = None
    reading: str | None = None
    default: bool = True
    readings: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        v = self.value
        if isinstance(v, list):
            v = [h.model_dump(exclude_none=True) for h in v]
        elif isinstance(v, BaseModel):
            v = v.model_dump(exclude_none=True)
        out: dict[str, Any] = {"value": v, "source": list(self.source)}
        if self.note:
            out["note"] = self.note
        if self.readings:
            out["reading"] = self.reading
            out["default"] = self.default
            out["readings"] = list(self.readings)
        return out


@dataclass(frozen=True)
class Cell:
    """A rank at an occasion: its values (field → :class:`Resolved`) or why it does not exist."""

    rank: str
    occasion: str
    values: dict[str, Resolved] = field(default_factory=dict)
    absent: Resolved | None = None

    def get(self, name: str) -> Resolved:
        """The value of one field (耦, 侯, 樂, 中, 旌); KeyError if the text gives none."""
        return self.values[name]

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rank": self.rank, "occasion": self.occasion}
        if self.absent is not None:
            out["absent"] = {"note": self.absent.note, "source": list(self.absent.source)}
        else:
            out["values"] = {k: v.as_dict() for k, v in self.values.items()}
        return out


class RankTable:
    """The loaded, checked table. Build it with :func:`load_ranks`."""

    def __init__(self, data: _Table, path: Path, lines: dict[int, int]):
        self._data = data
        self.path = path
        self._lines = lines  # cell index → line in the file
        self.ranks: dict[str, _Named] = data.ranks
        self.occasions: dict[str, _Named] = data.occasions
        self.fields: dict[str, str] = data.fields
        self.disagreements: dict[str, _Disagreement] = data.disagreements

    # -- names
    def reading_ids(self) -> list[str]:
        """Every reading id, ``disagreement.reading``."""
        return [f"{g}.{r}" for g, d in self.disagreements.items() for r in d.readings]

    def default_readings(self) -> list[str]:
        return [
            f"{g}.{r}"
            for g, d in self.disagreements.items()
            for r, x in d.readings.items()
            if x.default
        ]

    def rank(self, name: str) -> str:
        """The table's name of a rank given by name or alias (天子 → 王)."""
        return self._name(name, self.ranks, "rank")

    def occasion(self, name: str) -> str:
        return self._name(name, self.occasions, "occasion")

    def _name(self, name: str, table: dict[str, _Named], what: str) -> str:
        for key, decl in table.items():
            if name == key or name in decl.aliases:
                return key
        known = ", ".join(
            f"{k} ({'/'.join(d.aliases)})" if d.aliases else k for k, d in table.items()
        )
        raise RankError(f"unknown {what} {name!r}; known: {known}")

    def choose(self, readings: Iterable[str] = ()) -> dict[str, str]:
        """Disagreement → chosen reading id: the defaults, with ``readings`` replacing them.

        >>> load_ranks().choose(["binshe-hou.zheng-e"])["binshe-hou"]
        'binshe-hou.zheng-e'
        """
        chosen = {rid.split(".")[0]: rid for rid in self.default_readings()}
        given: dict[str, str] = {}
        known = self.reading_ids()
        for rid in readings:
            if rid not in known:
                raise RankError(f"unknown reading {rid!r}; known: {', '.join(known)}")
            group = rid.split(".")[0]
            if group in given and given[group] != rid:
                raise RankError(
                    f"readings {given[group]} and {rid} answer the same question; choose one"
                )
            given[group] = rid
        chosen.update(given)
        return chosen

    # -- selection
    def cells(
        self,
        rank: str | None = None,
        occasion: str | None = None,
        readings: Sequence[str] = (),
    ) -> list[Cell]:
        """The cells for a rank and/or an occasion (all if None), under the chosen readings."""
        r = self.rank(rank) if rank else None
        o = self.occasion(occasion) if occasion else None
        chosen = self.choose(readings)
        return [
            self._resolve(c, chosen)
            for c in self._data.cells
            if (r is None or c.rank == r) and (o is None or c.occasion == o)
        ]

    def cell(self, rank: str, occasion: str, readings: Sequence[str] = ()) -> Cell:
        """One cell; RankError if the table has no such rank at that occasion."""
        found = self.cells(rank, occasion, readings)
        if not found:
            raise RankError(f"the table has no {rank} at {occasion}")
        return found[0]

    def _resolve(self, c: _Cell, chosen: dict[str, str]) -> Cell:
        if c.absent is not None:
            gone = Resolved("absent", None, tuple(c.absent.source), c.absent.note)
            return Cell(c.rank, c.occasion, absent=gone)
        values: dict[str, Resolved] = {}
        for f in FIELDS:
            v: _Value | None = getattr(c, f)
            if v is not None:
                values[f] = _pick(f, v, chosen)
        return Cell(c.rank, c.occasion, values)

    def hu_rule(self, readings: Sequence[str] = ()) -> Resolved:
        """The 侯's mark as fractions of the 侯中 under the chosen readings.

        >>> load_ranks().hu_rule().value.fractions()
        (Fraction(1, 3), None)
        """
        return _pick("鵠", self._data.target.鵠, self.choose(readings))

    def all_citations(self) -> list[tuple[str, int | None, Citation]]:
        """Every citation in the file, with where it is used (for the proof-reading test)."""
        out: list[tuple[str, int | None, Citation]] = []
        for name, decl in [*self.ranks.items(), *self.occasions.items()]:
            out += [(name, None, parse_citation(s)) for s in decl.source]
        for alt in _alternatives(self._data.target.鵠):
            out += [("target 鵠", None, parse_citation(s)) for s in alt.source]
        for i, c in enumerate(self._data.cells):
            where = f"{c.rank}/{c.occasion}"
            line = self._lines.get(i)
            if c.absent is not None:
                out += [(where, line, parse_citation(s)) for s in c.absent.source]
            for f in FIELDS:
                v: _Value | None = getattr(c, f)
                for alt in _alternatives(v) if v is not None else []:
                    out += [(f"{where} {f}", line, parse_citation(s)) for s in alt.source]
        return out

    def as_dict(self, rank: str | None = None, occasion: str | None = None,
                readings: Sequence[str] = ()) -> dict[str, Any]:  # fmt: skip
        """The table for machines: chosen readings, disagreements, cells with sources."""
        chosen = self.choose(readings)
        return {
            "file": self.path.name,
            "readings": sorted(chosen.values()),
            "disagreements": {
                g: {
                    "question": d.question,
                    "readings": {
                        f"{g}.{r}": x.model_dump(exclude_none=True) for r, x in d.readings.items()
                    },
                }
                for g, d in self.disagreements.items()
            },
            "ranks": {k: v.model_dump(exclude_none=True) for k, v in self.ranks.items()},
            "occasions": {k: v.model_dump(exclude_none=True) for k, v in self.occasions.items()},
            "fields": dict(self.fields),
            "target": {"鵠": self.hu_rule(readings).as_dict()},
            "cells": [c.as_dict() for c in self.cells(rank, occasion, readings)],
        }


def _pick(f: str, v: _Value, chosen: dict[str, str]) -> Resolved:
    """The value of field ``f`` under the chosen readings (its default where none applies)."""
    if v.readings is None:
        return Resolved(f, _coerce(f, v.value), tuple(v.source), v.note)
    group = v.readings[0].reading.split(".")[0]
    pick = next((x for x in v.readings if x.reading == chosen[group]), None)
    pick = pick or next(x for x in v.readings if x.default)
    return Resolved(
        f,
        _coerce(f, pick.value),
        tuple(pick.source),
        pick.note or v.note,
        reading=pick.reading,
        default=pick.default,
        readings=tuple(x.reading for x in v.readings),
    )


def _strip_lines(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _strip_lines(v) for k, v in obj.items() if k not in (LINE_KEY, FILE_KEY)}
    if isinstance(obj, list):
        return [_strip_lines(v) for v in obj]
    return obj


def load_ranks(path: str | Path | None = None) -> RankTable:
    """Read and check the rank table; RankError naming the file and line of what is wrong."""
    p = Path(path) if path is not None else RANKS_FILE
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise RankError(f"cannot read: {exc.strerror or exc}", file=str(p)) from None
    try:
        raw = load_yaml_with_lines(text, file=str(p))
    except SpecError as exc:  # a YAML syntax error, with its line
        raise RankError(exc.message, file=str(p), line=exc.line) from None
    if not isinstance(raw, dict):
        raise RankError("not a mapping", file=str(p))
    cells_raw = raw.get("cells") or []
    lines = {
        i: c[LINE_KEY] for i, c in enumerate(cells_raw) if isinstance(c, dict) and LINE_KEY in c
    }
    try:
        data = _Table.model_validate(_strip_lines(raw))
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = err["loc"]
        line = None
        node: Any = raw
        for part in loc:  # walk the raw data to the deepest mapping that has a line
            try:
                node = node[part]
            except (KeyError, IndexError, TypeError):
                break
            if isinstance(node, dict) and LINE_KEY in node:
                line = node[LINE_KEY]
        where = ".".join(str(x) for x in loc)
        raise RankError(f"{where}: {err['msg']}", file=str(p), line=line) from None
    table = RankTable(data, p, lines)
    _cross_check(table, raw)
    return table


def _cross_check(table: RankTable, raw: dict[str, Any]) -> None:
    """What pydantic cannot see: names used in cells are declared, no cell twice, and each
    value's default reading is its disagreement's default."""
    known = set(table.reading_ids())
    defaults = set(table.default_readings())
    seen: set[tuple[str, str]] = set()
    target_line = (raw.get("target") or {}).get(LINE_KEY)

    def target_err(m: str) -> RankError:
        return RankError(m, file=str(table.path), line=target_line)

    _check_readings("target 鵠", table._data.target.鵠, known, defaults, target_err)
    for i, c in enumerate(table._data.cells):
        line = table._lines.get(i)

        def err(m: str, line: int | None = line) -> RankError:
            return RankError(m, file=str(table.path), line=line)

        if c.rank not in table.ranks:
            raise err(f"rank {c.rank!r} is not declared under ranks:")
        if c.occasion not in table.occasions:
            raise err(f"occasion {c.occasion!r} is not declared under occasions:")
        if (c.rank, c.occasion) in seen:
            raise err(f"{c.rank}/{c.occasion} appears twice")
        seen.add((c.rank, c.occasion))
        for f in FIELDS:
            v: _Value | None = getattr(c, f)
            if v is None or v.readings is None:
                continue
            _check_readings(f, v, known, defaults, err)


def _check_readings(f: str, v: _Value, known: set[str], defaults: set[str], err: Any) -> None:
    """Each reading of a value is declared, its default is its question's, none given twice."""
    alts = v.readings or []
    for alt in alts:
        if alt.reading not in known:
            raise err(f"{f}: reading {alt.reading!r} is not declared under disagreements:")
        if alt.default and alt.reading not in defaults:
            raise err(f"{f}: the default {alt.reading} is not its disagreement's default")
    if len({a.reading for a in alts}) != len(alts):
        raise err(f"{f}: a reading is given twice")

"""Bodies: the room a person takes and the text's words that place bodies together.

The data is ``sheli/place/bodies.yaml``: a body's footprint, the spacing of rows and of 少, the
offsets the text names (少退, 少南, 少左 …), the formations (竝, rows), the passages that place one
body beside another, and the roles that are several people — each with its source or its
stated assumption. The engine (:mod:`sheli.engine.bodies`) spreads people into them.

>>> m = load_bodies()
>>> m.footprint, m.spacing, m.members_of("xiangshe")["衆賓"]
(2.0, 3.0, 3)
>>> m.offset_vector("少左", "N"), m.offset_vector("少南", "W")
((-3.0, 0.0), (0.0, -3.0))
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from sheli.yamlfile import load_yaml

__all__ = ["FACING_VECTORS", "BodyCase", "BodyModel", "ColumnFold", "load_bodies"]

_D = 0.7071067811865476
#: A facing as a unit vector (x east, y north).
FACING_VECTORS: dict[str, tuple[float, float]] = {
    "N": (0.0, 1.0),
    "S": (0.0, -1.0),
    "E": (1.0, 0.0),
    "W": (-1.0, 0.0),
    "NE": (_D, _D),
    "NW": (-_D, _D),
    "SE": (_D, -_D),
    "SW": (-_D, -_D),
}


def right_of(facing: str | None) -> tuple[float, float]:
    """The unit vector to the right of a facing (north when none is known).

    >>> right_of("N"), right_of("W")
    ((1.0, -0.0), (0.0, 1.0))
    """
    fx, fy = FACING_VECTORS.get(facing or "N", (0.0, 1.0))
    return (fy, -fx)


class BodyCase(msgspec.Struct, frozen=True):
    """The text's placement of a body at one passage (``cases:`` of the data)."""

    cite: str
    source: str
    who: str | None = None
    verb: str | None = None
    pair_upper: str | None = None  # left / right: the 上射's side of the facing
    pair_keep: str | None = None  # 上射: only the 下射 moves to form the pair
    offset: str | None = None
    beside: str | None = None
    side: str | None = None
    row: str | None = None  # 北上, 東上 …: who comes here continues this row (no 竝)
    # where the place named is full: the others stand facing this way (E …) in rows of this
    # kind (北上 …), the first against the wall at their backs (若有東面者則北上, xiangshe:166)
    fold_facing: str | None = None
    fold_row: str | None = None


class ColumnFold(msgspec.Struct, frozen=True):
    """A row the text names that folds into columns beside it (bodies.yaml formations,
    column_fold): the next column one spacing toward ``next`` (W …), the row running short of
    the fixture ``short_of`` (乏) by one spacing, else to the wall of the 門."""

    next: str
    short_of: str | None = None


class BodyModel(msgspec.Struct, frozen=True):
    """The bodies data, read once (see :func:`load_bodies`)."""

    footprint: float
    min_gap: float
    spacing: float
    shao: float
    reach: float
    offsets: dict[str, dict[str, Any]]
    cases: dict[str, list[BodyCase]]
    members: dict[str, dict[str, int]]
    # every value with its source or assumption, for the ledger: (name, value, source)
    ledger: list[tuple[str, str, str]] = msgspec.field(default_factory=list)
    # the rows that fold into columns, by the passage that stands them (xiangshe:179 …)
    column_folds: dict[str, ColumnFold] = msgspec.field(default_factory=dict)

    def members_of(self, rite: str, base: str | None = None) -> dict[str, int]:
        """The roles of a rite that are several people, and how many (a variant's base's
        where it has none of its own)."""
        got = dict(self.members.get(base or "", {}))
        got.update(self.members.get(rite, {}))
        return got

    def offset_vector(self, word: str, facing: str | None) -> tuple[float, float]:
        """The offset a word of the text names (少左 …), in 尺 east and north, for a body
        facing ``facing``."""
        o = self.offsets[word]
        rx, ry = right_of(facing)
        fx, fy = FACING_VECTORS.get(facing or "N", (0.0, 1.0))
        across, along = o.get("across", 0), o.get("along", 0)
        dx = across * rx + along * fx + o.get("east", 0)
        dy = across * ry + along * fy + o.get("north", 0)
        return (round(dx * self.shao, 6) + 0.0, round(dy * self.shao, 6) + 0.0)


def _source(d: dict[str, Any]) -> str:
    """The source of a value, and the assumption made where the text stops (both, if both)."""
    if "source" in d:
        got = str(d["source"]).strip()
        if "assumption" in d:
            got += "; assumption: " + str(d["assumption"]).strip()
        return got
    return "assumption: " + str(d.get("assumption", "")).strip()


@cache
def load_bodies() -> BodyModel:
    """The bodies data of ``sheli/place/bodies.yaml``."""
    data = load_yaml(Path(__file__).with_name("bodies.yaml").read_text("utf-8"))
    ledger: list[tuple[str, str, str]] = []

    def value(section: str, name: str) -> float:
        d = data[section][name]
        ledger.append((f"{section}.{name}", f"{d['value']} 尺", _source(d)))
        return float(d["value"])

    footprint = value("body", "footprint")
    min_gap = value("body", "min_gap")
    spacing = value("spacing", "row")
    shao = value("spacing", "shao")
    reach = value("spacing", "reach")
    offsets = {str(k): dict(v) for k, v in data["offsets"].items()}
    for k, v in offsets.items():
        ledger.append((f"offset {k}", "", str(v.get("source", ""))))
    for k, v in data["rows"].items():
        ledger.append((f"row {k}", "", str(v.get("source", ""))))
    for k, v in data["formations"].items():
        ledger.append((f"formation {k}", str(v.get("rule", "")).strip(), _source(v)))
    column_folds: dict[str, ColumnFold] = {}
    cf = data["formations"].get("column_fold")
    if cf is not None:
        if cf.get("next") not in FACING_VECTORS:
            raise ValueError("bodies.yaml: column_fold needs next: N, E, S or W")
        fold_of = ColumnFold(str(cf["next"]), cf.get("short_of"))
        column_folds = {str(c): fold_of for c in cf.get("cites", ())}
    cases: dict[str, list[BodyCase]] = {}
    for c in data["cases"]:
        pair = c.get("pair") or {}
        fold = c.get("fold") or {}
        case = BodyCase(
            cite=str(c["cite"]),
            source=str(c["source"]).strip(),
            who=c.get("who"),
            verb=c.get("verb"),
            pair_upper=pair.get("upper"),
            pair_keep=pair.get("keep"),
            offset=c.get("offset"),
            beside=c.get("beside"),
            side=c.get("side"),
            row=c.get("row"),
            fold_facing=fold.get("facing"),
            fold_row=fold.get("row"),
        )
        if fold and (case.row is None or fold.get("facing") not in FACING_VECTORS):
            raise ValueError(f"bodies.yaml: case {case.cite}: a fold needs a row and a facing")
        if case.offset is not None and case.offset not in offsets:
            raise ValueError(f"bodies.yaml: case {case.cite}: unknown offset {case.offset}")
        cases.setdefault(case.cite, []).append(case)
        ledger.append((f"case {case.cite}", case.who or "the pair", case.source))
    members: dict[str, dict[str, int]] = {}
    for rite, roles in data["members"].items():
        for role, d in roles.items():
            members.setdefault(str(rite), {})[str(role)] = int(d["count"])
            ledger.append((f"members {rite} {role}", str(d["count"]), _source(d)))
    return BodyModel(
        footprint,
        min_gap,
        spacing,
        shao,
        reach,
        offsets,
        cases,
        members,
        ledger=ledger,
        column_folds=column_folds,
    )

"""Read a venue from its YAML file in ``sheli/place/data``.

A value in the data may be a number or a small arithmetic expression over the parameters
(``50 * 弓``) and over fixtures listed above it (``棟.y``, ``西階.x1``), so that the file
says *why* a coordinate is what it is and the ledger shows the number.

>>> from sheli.place.loader import evaluate
>>> evaluate("50 * 弓", {"弓": 6.0}, {})
300.0
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from sheli import diskcache
from sheli.yamlfile import load_yaml

from .model import Extent, Fixture, Param, PlaceError, Point, Venue

__all__ = ["VENUES", "VENUE_ALIASES", "evaluate", "load_venue", "venue_key"]

# the package's data files, on disk beside this module (importlib.resources costs `sheli
# run` some 13 million instructions of imports for the same paths)
DATA = Path(__file__).parent / "data"


# The files are parsed by libyaml (load_yaml: the data yaml.safe_load gives, in a tenth of the
# time); the data of each, read by _discover for its names, is kept for the first _read of
# that venue (the run's venue), so that it is not parsed twice.
_PARSED: dict[str, Any] = {}


def _files() -> list[tuple[str, bytes]]:
    """The venue files of place/data/, by name, with their bytes."""
    return [
        (entry.name, entry.read_bytes())
        for entry in sorted(DATA.iterdir(), key=str)
        if entry.name.endswith(".yaml")
    ]


# The venues built from these very files by an earlier process (sheli.diskcache): the key is
# every venue file's name and bytes, and this layer's code that builds them; any change and
# they are parsed and built again (then kept for the next process, at the end of this module).
# The entry holds the venues' names and titles; each venue is an entry of its own beside it
# (_venue_entry), read when it is asked for: a run unpickles its own venue, not all five.
_FILES = _files()
_CODE = b"".join((Path(__file__).parent / name).read_bytes() for name in ("loader.py", "model.py"))
_ENTRY = diskcache.cache_dir("venues") / diskcache.key(
    _CODE, *(name.encode() + b"\0" + data for name, data in _FILES)
)


def _is_stored(kept: Any) -> bool:
    """The shape of the venues' entry: their titles, their names, the venues kept.

    >>> _is_stored(({"xie": "州序"}, {"序": "xie"}, frozenset({"xie"}))), _is_stored((1, 2, 3))
    (True, False)
    """
    return (
        isinstance(kept, tuple)
        and len(kept) == 3
        and all(isinstance(d, dict) for d in kept[:2])
        and all(isinstance(k, str) and isinstance(v, str) for d in kept[:2] for k, v in d.items())
        and isinstance(kept[2], frozenset)
        and all(isinstance(k, str) for k in kept[2])
    )


_STORED: Any = diskcache.read(_ENTRY, _is_stored)


# The venues are the data files in place/data/: each names its key, title and aliases (the
# text's names for it), so a new venue is one new file. The default venue of 鄉射禮 is the 州序
# (xiangshe:4 注: 此射於序).
def _discover() -> tuple[dict[str, str], dict[str, str]]:
    titles: dict[str, str] = {}
    aliases: dict[str, str] = {}
    for name, text in _FILES:
        key = name[: -len(".yaml")]
        data = _PARSED[key] = load_yaml(text.decode("utf-8"))
        head = data or {}
        titles[key] = str(head.get("title") or key)
        aliases[key] = key
        for alias in head.get("aliases") or []:
            aliases.setdefault(str(alias), key)
    return titles, aliases


VENUES, VENUE_ALIASES = _discover() if _STORED is None else _STORED[:2]

_BINOPS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_ATTRS = ("x", "y", "x0", "y0", "x1", "y1")


def evaluate(expr: Any, names: Mapping[str, float], fixtures: Mapping[str, Fixture]) -> float:
    """The value of a number or an expression of the data files.

    Allowed: numbers, + − × ÷, brackets, parameter names, and ``fixture.x`` / ``.y`` /
    ``.x0`` / ``.x1`` / ``.y0`` / ``.y1`` (the last four: the fixture's extent).

    >>> evaluate("-(序廣 / 2 + 夾)", {"序廣": 40, "夾": 10}, {})
    -30.0
    """
    if isinstance(expr, bool):
        raise PlaceError(f"not a number: {expr!r}")
    if isinstance(expr, (int, float)):
        return float(expr)
    if not isinstance(expr, str):
        raise PlaceError(f"not a number or expression: {expr!r}")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError as exc:
        raise PlaceError(f"cannot read the expression {expr!r}: {exc.msg}") from None

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.Name):
            if node.id in names:
                return float(names[node.id])
            raise PlaceError(f"unknown parameter '{node.id}' in {expr!r}")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            fname, attr = node.value.id, node.attr
            if fname not in fixtures:
                raise PlaceError(f"'{fname}' in {expr!r} is not a fixture listed above this one")
            if attr not in _ATTRS:
                raise PlaceError(f"'{fname}.{attr}': use one of .{', .'.join(_ATTRS)}")
            f = fixtures[fname]
            if attr in ("x", "y"):
                return float(getattr(f, attr))
            if f.extent is None:
                raise PlaceError(f"'{fname}' has no extent, so '{fname}.{attr}' is undefined")
            return float(getattr(f.extent, attr))
        raise PlaceError(f"not allowed in a data expression: {ast.unparse(node)!r} in {expr!r}")

    return ev(tree)


def venue_key(name: str) -> str:
    """The venue key for a key or one of its names (序, 榭, 州序, 庠, 鄉庠 …).

    >>> venue_key("庠"), venue_key("榭")
    ('xiang', 'xie')
    """
    key = VENUE_ALIASES.get(name.strip()) if isinstance(name, str) else None
    if key is None:
        names = "、".join(VENUE_ALIASES)
        raise PlaceError(f"unknown venue '{name}'; venues: {names}")
    return key


def _read(key: str) -> dict[str, Any]:
    """The data of ``key``.yaml, with the venue it ``extends`` merged in (a new object on
    every call: a caller may change it)."""
    data = _PARSED.pop(key, None)
    if data is None:
        path = DATA / f"{key}.yaml"
        data = load_yaml(path.read_text("utf-8"))
    if not isinstance(data, dict):
        raise PlaceError(f"{key}.yaml: not a mapping")
    base = data.get("extends")
    if base is None:
        return data
    parent = _read(base)
    return _merge(parent, data)


def _merge(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """A venue that ``extends`` another: params/offsets/names merged by name; fixtures
    replaced in place by name, new ones appended, ``remove`` dropped."""
    out = dict(parent)
    for k, v in child.items():
        if k in ("params", "offsets", "names", "ambiguous", "objects"):
            merged = dict(parent.get(k) or {})
            merged.update(v or {})
            out[k] = merged
        elif k == "fixtures":
            by_name = {f["name"]: f for f in v or []}
            fixtures = []
            for f in parent.get("fixtures") or []:
                fixtures.append(by_name.pop(f["name"], f))
            fixtures.extend(f for f in v or [] if f["name"] in by_name)
            out["fixtures"] = fixtures
        elif k == "extends":
            continue
        else:
            out[k] = v
    drop = set(child.get("remove") or [])
    out["fixtures"] = [f for f in out.get("fixtures") or [] if f["name"] not in drop]
    out.pop("remove", None)
    return out


def _param(name: str, spec: Any, names: Mapping[str, float], where: str) -> Param:
    if not isinstance(spec, dict) or "value" not in spec:
        raise PlaceError(f"{where}: parameter '{name}' needs a value and a source or assumption")
    source, assumption = str(spec.get("source") or ""), str(spec.get("assumption") or "")
    if not source and not assumption:
        raise PlaceError(f"{where}: parameter '{name}' has neither source nor assumption")
    try:
        value = evaluate(spec["value"], names, {})
    except PlaceError as exc:
        raise PlaceError(f"{where}: parameter '{name}': {exc}") from None
    rule = spec["value"] if isinstance(spec["value"], str) else ""
    return Param(name, value, source.strip(), " ".join(assumption.split()), rule)


def _rule_text(spec: Mapping[str, Any]) -> str:
    if "at" in spec:
        import yaml  # deferred: a venue built anew (not read back from the cache) needs it

        flow = yaml.safe_dump(spec["at"], allow_unicode=True, default_flow_style=True)
        return "at: " + flow.strip()
    return f"x: {spec.get('x')}; y: {spec.get('y')}"


def _venue_entry(key: str) -> Path:
    """The disk cache's entry of the venue ``key``, beside the entry of the names."""
    return _ENTRY.with_name(f"{_ENTRY.stem}.{key}{_ENTRY.suffix}")


@cache
def load_venue(name: str = "xie") -> Venue:
    """The venue ``name``: ``"xie"`` (州序/榭, the default) or ``"xiang"`` (鄉庠), or one of
    their Chinese names (序, 榭, 州序, 庠, 鄉庠).

    >>> load_venue("庠").key
    'xiang'
    """
    key = venue_key(name)
    if _STORED is not None and key in _STORED[2]:
        venue = diskcache.read(_venue_entry(key), None, (Venue, Fixture, Param, Point, Extent))
        if isinstance(venue, Venue) and venue.key == key:
            return venue
    return _build(key)


def _build(key: str) -> Venue:
    data = _read(key)
    where = f"{key}.yaml"

    params: dict[str, Param] = {}
    values: dict[str, float] = {}
    for pname, spec in (data.get("params") or {}).items():
        params[pname] = _param(pname, spec, values, where)
        values[pname] = params[pname].value
    offsets: dict[str, Param] = {}
    for oname, spec in (data.get("offsets") or {}).items():
        offsets[oname] = _param(oname, spec, values, where)
        values[oname] = offsets[oname].value
    for needed in ("near", "row", "front", "top"):
        if needed not in offsets:
            raise PlaceError(f"{where}: offsets must state '{needed}'")
    mpc = data.get("metre_per_chi") or {}
    metre = _param("metre_per_chi", mpc, values, where)

    venue = Venue(
        key=key,
        title=str(data.get("title", key)),
        fixtures={},
        params=params,
        offsets=offsets,
        # a name set to null in a venue that extends another is dropped there
        aliases={str(k): str(v) for k, v in (data.get("names") or {}).items() if v is not None},
        ambiguous={str(k): [str(x) for x in v] for k, v in (data.get("ambiguous") or {}).items()},
        metre_per_chi=metre,
        description=" ".join(str(data.get("description", "")).split()),
        venue_aliases=tuple(data.get("aliases") or ()),
    )

    for spec in data.get("fixtures") or []:
        fname = spec.get("name")
        if not fname:
            raise PlaceError(f"{where}: a fixture without a name: {spec!r}")
        if fname in venue.fixtures:
            raise PlaceError(f"{where}: fixture '{fname}' is listed twice")
        fwhere = f"{where}: fixture '{fname}'"
        source = " ".join(str(spec.get("source") or "").split())
        assumed = " ".join(str(spec.get("assumption") or "").split())
        if not source and not assumed:
            raise PlaceError(f"{fwhere} has neither a source nor an assumption")
        try:
            if "at" in spec:
                p = venue.resolve(spec["at"])
                x, y = p.x, p.y
            else:
                if "x" not in spec or "y" not in spec:
                    raise PlaceError("needs x and y, or at")
                x = evaluate(spec["x"], values, venue.fixtures)
                y = evaluate(spec["y"], values, venue.fixtures)
            extent = None
            if "extent" in spec:
                e = [evaluate(c, values, venue.fixtures) for c in spec["extent"]]
                if len(e) != 4:
                    raise PlaceError("extent needs four values [x0, y0, x1, y1]")
                extent = Extent(min(e[0], e[2]), min(e[1], e[3]), max(e[0], e[2]), max(e[1], e[3]))
        except PlaceError as exc:
            raise PlaceError(f"{fwhere}: {exc}") from None
        foot = top = None
        if spec.get("kind") == "stair":
            if extent is None:
                raise PlaceError(f"{fwhere}: a 階 needs an extent")
            # 及階: the foot of the 階; 階上: on the 堂 at its head. A 階 rises to the north
            # (the 西階, 阼階 from the 庭), or with ``rises: S`` to the south (the 北階, up from
            # the 北堂下 behind the house, dashe:126–127)
            if spec.get("rises", "N") == "S":
                foot = Point(x, extent.y1)
                top = Point(x, extent.y0 - offsets["top"].value)
            else:
                foot = Point(x, extent.y0)
                top = Point(x, extent.y1 + offsets["top"].value)
        venue.fixtures[fname] = Fixture(
            name=fname,
            x=x,
            y=y,
            source=source,
            kind=str(spec.get("kind", "point")),
            on_tang=bool(spec.get("on_tang", False)),
            note=" ".join(str(spec.get("note") or "").split()),
            assumption=bool(assumed),
            extent=extent,
            foot=foot,
            top=top,
            rule=_rule_text(spec),
            assumed=assumed,
        )
    for needed in ("堂", "庭"):
        if needed not in venue.fixtures:
            raise PlaceError(f"{where}: the plan needs a fixture '{needed}'")
    for alias, target in venue.aliases.items():
        if target not in venue.fixtures:
            raise PlaceError(f"{where}: name '{alias}' points to unknown fixture '{target}'")

    objects: dict[str, dict[str, Any]] = {}
    for oname, spec in (data.get("objects") or {}).items():
        if not spec.get("source"):
            raise PlaceError(f"{where}: object '{oname}' has no source")
        obj: dict[str, Any] = {}
        for k, val in spec.items():
            if k in ("source", "note", "form"):
                obj[k] = " ".join(str(val).split())
            else:
                obj[k] = evaluate(val, values, venue.fixtures)
        objects[oname] = obj
    venue.objects = objects

    hou = dict(data.get("hou") or {})
    if hou:
        bands = []
        for b in hou.get("bands") or []:
            bands.append(
                {
                    "name": b["name"],
                    "width": evaluate(b["width"], values, venue.fixtures),
                    "height": evaluate(b["height"], values, venue.fixtures),
                    "note": b.get("note", ""),
                }
            )
        hou["bands"] = bands
        hou["幅"] = evaluate(hou.get("幅", 2), values, venue.fixtures)
        hou["下綱高"] = evaluate(hou.get("下綱高", 0), values, venue.fixtures)
        hou["source"] = " ".join(str(hou.get("source", "")).split())
    venue.hou = hou
    return venue


def _store() -> None:
    """Build every venue and keep them for the next process (a venue that cannot be built is
    left out: its error is said when it is asked for)."""
    built: list[str] = []
    for key in VENUES:
        try:
            venue = load_venue(key)
        except Exception:
            continue
        diskcache.write(_venue_entry(key), venue)
        built.append(key)
    diskcache.write(_ENTRY, (VENUES, VENUE_ALIASES, frozenset(built)))


if _STORED is None:
    _store()

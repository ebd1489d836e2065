"""Rite specs: declarative data files, one per rite, validated against :mod:`sheli.rite.schema`.

>>> spec = load_spec("鄉射禮")          # by key, alias or path
>>> spec.spec.rite, spec.spec.title
('xiangshe', '鄉射禮')
>>> "xiangshe" in list_specs()
True
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from sheli.errors import did_you_mean
from sheli.rite import cache as disk_cache
from sheli.rite.loader import FILE_KEY, LINE_KEY, SpecError, read_spec_file
from sheli.rite.nodes import Spec, from_models

if TYPE_CHECKING:
    # deferred for start-up time: the schema (pydantic's models, a fifth of a second to build)
    # is imported when a spec is validated, not by what needs only SpecError or the rank table
    from sheli.rite import schema

SPEC_DIR = Path(__file__).parent / "specs"

__all__ = ["SPEC_DIR", "LoadedSpec", "SpecError", "find_spec", "list_specs", "load_spec"]


class LoadedSpec(msgspec.Struct, dict=True):
    """A validated spec (as :mod:`sheli.rite.nodes`) with the file it came from."""

    spec: Spec
    path: Path
    checked: bool = False  # the static checks passed (sheli.engine.check)
    parts: list[Path] = msgspec.field(default_factory=list)  # the files it includes and extends

    @property
    def files(self) -> list[Path]:
        """The spec file and every part and base file it was built from."""
        return [self.path, *self.parts]

    @property
    def file(self) -> str:
        return self.path.name


disk_cache.ENTRY_CLASSES.append(LoadedSpec)  # what the cache may give back


def list_specs() -> dict[str, Path]:
    """The specs shipped with sheli, by rite key."""
    return {p.stem: p for p in sorted(SPEC_DIR.glob("*.yaml"))}


def find_spec(name: str) -> Path:
    """The spec file for a rite key, an alias (鄉射禮, 乡射礼) or a path.

    Aliases are read from each spec's ``aliases:`` list.
    """
    path = Path(name)
    if path.suffix in (".yaml", ".yml") and path.exists():
        return path
    specs = list_specs()
    if name in specs:
        return specs[name]
    for key, p in specs.items():
        try:
            data = read_spec_file(p)
        except SpecError:
            continue
        if isinstance(data, dict) and name in (data.get("aliases") or []):
            return specs[key]
    known = ", ".join(specs) or "none"
    hint = did_you_mean(name, [*specs, *_aliases(specs.values())])
    raise SpecError(f"no rite spec named {name!r}{hint} (known: {known}; or give a .yaml path)")


def _aliases(paths: Iterable[Path]) -> list[str]:
    """The aliases the spec files give (``aliases:``), for the names near a misspelt one."""
    out: list[str] = []
    for p in paths:
        try:
            data = read_spec_file(p)
        except SpecError:
            continue
        if isinstance(data, dict):
            out.extend(str(a) for a in data.get("aliases") or [])
    return out


_TAGS = ("act", "if", "for_each", "call", "round")


def _path(loc: tuple[Any, ...]) -> list[Any]:
    """The error location without the union tags pydantic puts after a list index."""
    out: list[Any] = []
    for i, key in enumerate(loc):
        if key in _TAGS and i > 0 and isinstance(loc[i - 1], int):
            continue
        out.append(key)
    return out


def _line_at(data: Any, loc: tuple[Any, ...]) -> int | None:
    """The line of the innermost mapping along a pydantic error location."""
    line = data.get(LINE_KEY) if isinstance(data, dict) else None
    node = data
    for key in _path(loc):
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, dict) and isinstance(key, str) and key.rstrip("_") in node:
            node = node[key.rstrip("_")]
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
        else:
            continue  # union tags ('act', 'if' …) are not keys of the data
        if isinstance(node, dict) and LINE_KEY in node:
            line = node[LINE_KEY]
    return line


def _cite_at(data: Any, loc: tuple[Any, ...]) -> str | None:
    node, cite = data, None
    for key in _path(loc):
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
            node = node[key]
        else:
            continue
        if isinstance(node, dict) and isinstance(node.get("cite"), str):
            cite = node["cite"]
    return cite


def validate_spec(data: Any, file: str) -> schema.Spec:
    """Validate parsed YAML against the schema; the first error becomes a :class:`SpecError`."""
    # deferred for start-up time (see the TYPE_CHECKING import above)
    from pydantic import ValidationError

    from sheli.rite.schema import Spec  # deferred, as the TYPE_CHECKING import above

    if not isinstance(data, dict):
        raise SpecError("a spec is a mapping (rite:, chapter:, steps: …)", file=file, line=1)
    try:
        return Spec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        field = ".".join(str(k) for k in _path(loc))
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = f"unknown field {loc[-1]!r} (see docs/rite-spec.md for the fields a step takes)"
        elif err["type"] == "missing":
            msg = f"missing field {loc[-1]!r}"
        raise SpecError(
            f"{msg} [at {field}]",
            file=file,
            line=_line_at(data, loc),
            cite=_cite_at(data, loc),
        ) from None


#: What a part file (``- include: xiangshe/feast.yaml`` in ``steps:``) may hold besides steps;
#: they are added to the including spec's.
PART_KEYS = ("assumptions", "readings", "rules", "uncovered", "cast", "objects", "procedures")
#: What a variant (``extends: xiangshe``) takes from its base unless it gives its own;
#: ``rules``, ``uncovered``, ``scope`` and the names are the variant's own.
INHERITED = (
    "params",
    "pairs",
    "assumptions",
    "readings",
    "cast",
    "objects",
    "procedures",
    "steps",
    "excerpt",
)


def _tag_steps(steps: Any, file: str) -> None:
    for st in steps if isinstance(steps, list) else []:
        if isinstance(st, dict):
            st.setdefault(FILE_KEY, file)
            for k in ("do", "then", "else"):
                _tag_steps(st.get(k), file)


def _tag(data: Any, file: str) -> None:
    """Mark the steps and entries of a part or base file with the file they came from, for
    error messages (only those: a place ``{southwest_of: 中}`` stays as written)."""
    if not isinstance(data, dict):
        return
    _tag_steps(data.get("steps"), file)
    for k in ("assumptions", "readings", "rules", "uncovered", "cast", "objects", "pairs"):
        for e in data.get(k) or []:
            if isinstance(e, dict):
                e.setdefault(FILE_KEY, file)
    for name, proc in (data.get("procedures") or {}).items():
        if isinstance(proc, dict) and name not in (LINE_KEY, FILE_KEY):
            proc.setdefault(FILE_KEY, file)
            _tag_steps(proc.get("steps"), file)
        elif isinstance(proc, list):
            _tag_steps(proc, file)


_ROOT: list[Path] = []  # the directory of the spec being expanded (part names are relative to it)


def _rel(path: Path) -> str:
    """A part's name as errors show it: relative to the spec's directory (xiangshe/archery.yaml)."""
    for root in (*_ROOT[-1:], SPEC_DIR):
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            continue
    return path.name


def _merge_list(base: list[Any], own: list[Any], key: str | None) -> list[Any]:
    """``base`` then ``own``; an entry of ``own`` with the same ``key`` replaces base's."""
    if key is None:
        return [*base, *own]
    mine = {e.get(key): e for e in own if isinstance(e, dict)}
    kept = [e for e in base if not (isinstance(e, dict) and e.get(key) in mine)]
    return [*kept, *own]


_MERGE_KEY = {"assumptions": "id", "readings": "id", "cast": "role", "objects": None}


def _origin(e: Any) -> tuple[Any, Any] | None:
    return (e.get(FILE_KEY), e.get(LINE_KEY)) if isinstance(e, dict) else None


def _add_part(data: dict[str, Any], part: dict[str, Any], where: str) -> None:
    """Add a part's entries to the spec's. An entry already there from the same file and line
    (a variant that includes a part its base included) is not added twice."""
    for k in PART_KEYS:
        if k not in part:
            continue
        if k == "procedures":
            procs = data.setdefault("procedures", {LINE_KEY: part.get(LINE_KEY, 0)})
            for name, proc in part[k].items():
                if name in (LINE_KEY, FILE_KEY):
                    continue
                if name in procs:
                    if _origin(procs[name]) == _origin(proc):
                        continue
                    raise SpecError(f"procedure {name!r} is defined twice", file=where)
                procs[name] = proc
        else:
            have = {_origin(e) for e in data.get(k) or []}
            new = [e for e in part[k] or [] if _origin(e) not in have]
            data[k] = [*(data.get(k) or []), *new]


def expand(data: Any, path: Path, deps: list[Path], depth: int = 0) -> Any:
    """Resolve ``extends:`` and ``- include: FILE`` steps into one spec mapping.

    An included file (path relative to the including file) holds ``steps:`` and any of
    :data:`PART_KEYS`; a variant takes :data:`INHERITED` from its base and overrides entries
    by id (assumptions, readings), role (cast) or name (procedures).
    """
    if depth > 8:
        raise SpecError("include/extends nested too deep (a cycle?)", file=_rel(path))
    if not isinstance(data, dict):
        return data
    if "extends" in data:
        base_path = find_spec(str(data["extends"]))
        if base_path.resolve() == path.resolve():
            raise SpecError("a spec cannot extend itself", file=_rel(path), line=1)
        deps.append(base_path)
        base = read_spec_file(base_path)
        _tag(base, _rel(base_path))
        base = expand(base, base_path, deps, depth + 1)
        merged = dict(data)
        for k in INHERITED:
            if k not in base:
                continue
            if k not in data:
                merged[k] = base[k]
            elif k == "params":
                merged[k] = {**base[k], **data[k]}
                if "options" in base[k] and "options" in data[k]:
                    merged[k]["options"] = {**base[k]["options"], **data[k]["options"]}
            elif k == "procedures":
                merged[k] = {**base[k], **data[k]}
            elif k in _MERGE_KEY:
                merged[k] = _merge_list(base[k], data[k], _MERGE_KEY[k])
        data = merged
    steps = data.get("steps")
    if isinstance(steps, list) and _has_include(steps):
        data["steps"] = _include_steps(data, steps, path, deps, depth)
    return data


def _has_include(steps: list[Any]) -> bool:
    """Whether a step list holds an include, at its top or in an ``if``'s branches."""
    for s in steps:
        if isinstance(s, dict):
            if "include" in s:
                return True
            if any(isinstance(s.get(k), list) and _has_include(s[k]) for k in ("then", "else")):
                return True
    return False


def _include_steps(
    data: dict[str, Any], steps: list[Any], path: Path, deps: list[Path], depth: int
) -> list[Any]:
    """``steps`` with each ``- include: FILE`` replaced by the part's steps (its other entries
    join ``data``'s). An include may stand in an ``if``'s ``then``/``else``: the part then runs
    only when the condition holds (燕禮's 若射, yan:124)."""
    out: list[Any] = []
    for s in steps:
        if isinstance(s, dict) and "include" not in s:
            for k in ("then", "else"):
                if isinstance(s.get(k), list) and _has_include(s[k]):
                    s[k] = _include_steps(data, s[k], path, deps, depth)
        if not (isinstance(s, dict) and "include" in s):
            out.append(s)
            continue
        where = s.get(FILE_KEY) or _rel(path)
        extra = set(s) - {"include", LINE_KEY, FILE_KEY}
        if extra:
            raise SpecError(
                f"an include step takes only include: (not {', '.join(sorted(extra))})",
                file=where,
                line=s.get(LINE_KEY),
            )
        part_path = (path.parent / str(s["include"])).resolve()
        if not part_path.is_file():
            raise SpecError(
                f"include: {s['include']} — no such file", file=where, line=s.get(LINE_KEY)
            )
        deps.append(part_path)
        part = read_spec_file(part_path)
        if not isinstance(part, dict):
            raise SpecError("a part file is a mapping (steps: …)", file=_rel(part_path))
        _tag(part, _rel(part_path))
        unknown = set(part) - {*PART_KEYS, "steps", LINE_KEY, FILE_KEY}
        if unknown:
            raise SpecError(
                f"a part file holds steps: and {', '.join(PART_KEYS)}, not "
                f"{', '.join(sorted(unknown))}",
                file=_rel(part_path),
                line=1,
            )
        part = expand(part, part_path, deps, depth + 1)
        _add_part(data, part, _rel(part_path))
        out.extend(part.get("steps") or [])
    return out


def _stamp(paths: list[Path]) -> tuple[tuple[str, int, int], ...]:
    out = []
    for p in paths:
        st = p.stat()
        out.append((str(p.resolve()), st.st_mtime_ns, st.st_size))
    return tuple(out)


_CACHE: dict[tuple[str, int, int], tuple[tuple[tuple[str, int, int], ...], LoadedSpec]] = {}


def load_spec(name: str | Path) -> LoadedSpec:
    """Find, read and validate a spec (by key, alias or path), with its parts and base.

    A validated spec is kept while its files are unchanged (same path, size and mtime): runs
    never modify it, so a process that runs the same rite many times parses it once; and on
    disk (:mod:`sheli.rite.cache`, keyed by the files' content), so that the next process
    does not parse it either.
    """
    path = find_spec(str(name))
    try:
        st = path.stat()
        key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    except OSError:
        key = None
    if key is not None and key in _CACHE:
        stamp, loaded = _CACHE[key]
        try:
            if _stamp([Path(d[0]) for d in stamp]) == stamp:
                return loaded
        except OSError:
            pass
    # parsed by an earlier process from the same bytes (sheli.rite.cache), or parsed here
    loaded = disk_cache.load(path)
    if loaded is None:
        data = read_spec_file(path)
        deps: list[Path] = []
        _ROOT.append(path.parent)
        try:
            data = expand(data, path, deps)
        finally:
            _ROOT.pop()
        spec = from_models(validate_spec(data, path.name))
        loaded = LoadedSpec(spec, path, parts=list(dict.fromkeys(deps)))
        disk_cache.store(loaded)
    deps = loaded.parts
    if key is not None:
        try:
            _CACHE[key] = (_stamp(deps), loaded)
        except OSError:
            pass
    return loaded

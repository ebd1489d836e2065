"""Rite specs: declarative data files, one per rite, validated against :mod:`sheli.rite.schema`.

>>> spec = load_spec("鄉射禮")          # by key, alias or path
>>> spec.spec.rite, spec.spec.title
('xiangshe', '鄉射禮')
>>> "xiangshe" in list_specs()
True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sheli.rite.loader import LINE_KEY, SpecError, read_spec_file
from sheli.rite.schema import Spec

SPEC_DIR = Path(__file__).parent / "specs"

__all__ = ["SPEC_DIR", "LoadedSpec", "SpecError", "find_spec", "list_specs", "load_spec"]


@dataclass
class LoadedSpec:
    """A validated spec with the file it came from."""

    spec: Spec
    path: Path
    checked: bool = False  # the static checks passed (sheli.engine.check)

    @property
    def file(self) -> str:
        return self.path.name


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
    raise SpecError(f"no rite spec named {name!r} (known: {known}; or give a .yaml path)")


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


def validate_spec(data: Any, file: str) -> Spec:
    """Validate parsed YAML against the schema; the first error becomes a :class:`SpecError`."""
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


_CACHE: dict[tuple[str, int, int], LoadedSpec] = {}


def load_spec(name: str | Path) -> LoadedSpec:
    """Find, read and validate a spec (by key, alias or path).

    A validated spec is kept while its file is unchanged (same path, size and mtime): runs
    never modify it, so a process that runs the same rite many times parses it once.
    """
    path = find_spec(str(name))
    try:
        st = path.stat()
        key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    except OSError:
        key = None
    if key is not None and key in _CACHE:
        return _CACHE[key]
    data = read_spec_file(path)
    loaded = LoadedSpec(validate_spec(data, path.name), path)
    if key is not None:
        _CACHE[key] = loaded
    return loaded

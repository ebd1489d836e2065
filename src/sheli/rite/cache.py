"""Validated specs kept on disk between processes, keyed by their files' content.

Parsing a spec's YAML and validating it with pydantic is much of a short command's time
(docs/benchmarks.md), and every process did it again. :func:`load` gives back the spec a
process stored with :func:`store` as long as the bytes of the spec file and of every part
and base file it was built from are the same (and the code that builds it: the rite
package's own modules); any change, or a cache that cannot be read, and the spec is parsed
again. The cache is ``specs/`` in :mod:`sheli.diskcache`'s (``$SHELI_CACHE_DIR`` or the user's).

>>> import tempfile
>>> from sheli.rite import load_spec
>>> loaded = load_spec("xiangshe")
>>> with tempfile.TemporaryDirectory() as d:
...     store(loaded, Path(d)); load(loaded.path, Path(d)).spec == loaded.spec
True
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from sheli import diskcache
from sheli.diskcache import CACHE_ENV
from sheli.rite import nodes

__all__ = ["CACHE_ENV", "cache_dir", "load", "store"]

# a stored spec is the rite package's models and loaders at work: its modules are part of
# the key, so that a changed schema never gives back a spec built by the old one
_CODE = ("__init__.py", "loader.py", "schema.py", "nodes.py", "readings.py", "ranks.py")


def cache_dir() -> Path:
    """``$SHELI_CACHE_DIR/specs`` or the user cache directory's ``specs``.

    >>> cache_dir().name
    'specs'
    """
    return diskcache.cache_dir("specs")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _code() -> bytes:
    here = Path(__file__).parent
    code = []
    for name in _CODE:
        try:
            code.append((here / name).read_bytes())
        except OSError:
            code.append(name.encode())
    return b"\0".join(code)


def _entry(path: Path, where: Path) -> Path:
    """The cache file of the spec at ``path``: its place and content, and the code."""
    place = str(path.resolve()).encode("utf-8", "surrogateescape")
    return where / diskcache.key(_code(), place, path.read_bytes())


def load(path: Path, where: Path | None = None) -> Any:
    """The spec at ``path`` as stored (a :class:`sheli.rite.LoadedSpec`), if every file it
    was built from is unchanged; else (or if the cache cannot be read, or is corrupt) None."""
    try:
        entry = _entry(path, where or cache_dir())
        kept = diskcache.read(entry, _is_entry, (*ENTRY_CLASSES, *_NODES, type(path)))
        if kept is None or type(kept[1]) not in ENTRY_CLASSES:
            return None
        files, loaded = kept
        for name, digest in files:
            if _digest(Path(name).read_bytes()) != digest:
                return None
    except OSError:  # a file gone: parse again
        return None
    loaded.checked = False  # checks are made again by each process that needs them
    return loaded


#: the class of what an entry keeps: sheli.rite.LoadedSpec, named by the package as it
#: defines it (it imports this module first)
ENTRY_CLASSES: list[type] = []
#: the classes a spec's entry holds besides: the spec's nodes
_NODES = tuple(c for c in map(nodes.__dict__.get, nodes.__all__) if isinstance(c, type))


def _is_entry(kept: Any) -> bool:
    """The shape of an entry: (the files as (name, digest) pairs, the spec).

    >>> _is_entry(([("a.yaml", "00")], None)), _is_entry((["a.yaml"], None)), _is_entry(1)
    (True, False, False)
    """
    return (
        isinstance(kept, tuple)
        and len(kept) == 2
        and isinstance(kept[0], list)
        and all(
            isinstance(f, tuple) and len(f) == 2 and all(isinstance(x, str) for x in f)
            for f in kept[0]
        )
    )


def store(loaded: Any, where: Path | None = None) -> None:
    """Keep ``loaded`` for :func:`load`, if the cache can be written (else nothing)."""
    try:
        files = [(str(p.resolve()), _digest(p.read_bytes())) for p in loaded.files]
        entry = _entry(loaded.path, where or cache_dir())
    except Exception:  # a spec file gone since: nothing to keep
        return
    diskcache.write(entry, (files, loaded))

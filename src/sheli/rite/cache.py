"""Validated specs kept on disk between processes, keyed by their files' content.

Parsing a spec's YAML and validating it with pydantic is a quarter of a short command's time
(docs/benchmarks.md), and every process did it again. :func:`load` gives back the spec a
process stored with :func:`store` as long as the bytes of the spec file and of every part
and base file it was built from are the same (and the code that builds it: the rite
package's own modules); any change, or a cache that cannot be read, and the spec is parsed
again. The cache is ``$SHELI_CACHE_DIR`` or the platform's user cache directory
(platformdirs), ``specs/`` in it; each entry is written whole (a temporary file renamed).

>>> import tempfile
>>> from sheli.rite import load_spec
>>> loaded = load_spec("xiangshe")
>>> with tempfile.TemporaryDirectory() as d:
...     store(loaded, Path(d)); load(loaded.path, Path(d)).spec == loaded.spec
True
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

#: the environment variable that puts the cache elsewhere (tests, a read-only home)
CACHE_ENV = "SHELI_CACHE_DIR"

# a stored spec is the rite package's models and loaders at work: its modules are part of
# the key, so that a changed schema never gives back a spec built by the old one
_CODE = ("__init__.py", "loader.py", "schema.py", "readings.py", "ranks.py")


def cache_dir() -> Path:
    """``$SHELI_CACHE_DIR/specs`` or the user cache directory's ``specs``.

    >>> cache_dir().name
    'specs'
    """
    base = os.environ.get(CACHE_ENV) or user_cache_dir("sheli")
    return Path(base) / "specs"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _code_key() -> bytes:
    here = Path(__file__).parent
    # (another pydantic that cannot read an entry makes it unreadable: parsed again)
    h = hashlib.sha256(f"{sys.version}\0{pickle.HIGHEST_PROTOCOL}".encode())
    for name in _CODE:
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(name.encode())
    return h.digest()


def _entry(path: Path, where: Path) -> Path:
    """The cache file of the spec at ``path``: its place and content, and the code."""
    key = hashlib.sha256(_code_key())
    key.update(str(path.resolve()).encode("utf-8", "surrogateescape") + b"\0")
    key.update(path.read_bytes())
    return where / f"{key.hexdigest()}.pickle"


def load(path: Path, where: Path | None = None) -> Any:
    """The spec at ``path`` as stored (a :class:`sheli.rite.LoadedSpec`), if every file it
    was built from is unchanged; else (or if the cache cannot be read, or is corrupt) None."""
    try:
        entry = _entry(path, where or cache_dir())
        with entry.open("rb") as f:
            files, loaded = pickle.load(f)
        for name, digest in files:
            if _digest(Path(name).read_bytes()) != digest:
                return None
    except Exception:  # unreadable, corrupt, or built by other code: parse again
        return None
    loaded.checked = False  # checks are made again by each process that needs them
    return loaded


def store(loaded: Any, where: Path | None = None) -> None:
    """Keep ``loaded`` for :func:`load`, if the cache can be written (else nothing)."""
    where = where or cache_dir()
    tmp: Path | None = None
    try:
        files: list[tuple[str, str]] = [
            (str(p.resolve()), _digest(p.read_bytes())) for p in loaded.files
        ]
        entry = _entry(loaded.path, where)
        data: Any = pickle.dumps((files, loaded), protocol=pickle.HIGHEST_PROTOCOL)
        where.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
        # created with the umask, like any file the user's programs write
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, entry)
        tmp = None
    except Exception:  # a cache that cannot be written only costs the next process time
        pass
    finally:
        if tmp is not None:
            try:
                tmp.unlink()
            except OSError:
                pass

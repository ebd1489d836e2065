"""Data parsed from files and kept on disk between processes, keyed by the files' content.

Specs (:mod:`sheli.rite.cache`) and venues (:mod:`sheli.place.loader`) are parsed from YAML
by every process that needs them; an entry here gives back what an earlier process built
from the same bytes (and the same code). The cache is ``$SHELI_CACHE_DIR`` or the
platform's user cache directory (platformdirs), a folder for each kind of data in it; each
entry is a pickle written whole (a temporary file renamed). Anything that cannot be read or
written only costs the time of parsing again.

The cache trusts only itself (docs/architecture.md, "The cache"): an entry is read only from
a folder that this user owns and that no one else can write (one that others can write is
left alone, said once on stderr); it is unpickled with only the classes its reader names
(a pickle that would call anything else is a miss, and nothing of it runs); and what it
holds must have the shape its reader expects, or it is a miss, parsed and written again.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     entry = Path(d) / key(b"venue file bytes", b"code")
...     write(entry, {"title": "州序"}); read(entry)
{'title': '州序'}
"""

from __future__ import annotations

import datetime
import hashlib
import io
import os
import pickle
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

from sheli import collector

#: the environment variable that puts the cache elsewhere (tests, a read-only home)
CACHE_ENV = "SHELI_CACHE_DIR"

#: what every entry may hold besides the classes its reader names: plain data
_PLAIN = {
    ("datetime", "date"): datetime.date,
    ("datetime", "datetime"): datetime.datetime,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
}


def cache_dir(kind: str) -> Path:
    """``$SHELI_CACHE_DIR/KIND`` or the user cache directory's ``KIND``.

    >>> cache_dir("venues").name
    'venues'
    """
    return Path(os.environ.get(CACHE_ENV) or user_cache_base()) / kind


def user_cache_base() -> str:
    """The user's cache directory for sheli, as platformdirs names it (on Linux
    ``$XDG_CACHE_HOME/sheli`` or ``~/.cache/sheli``).

    >>> user_cache_base().endswith("sheli")
    True
    """
    return user_cache_dir("sheli")


def key(*parts: bytes) -> str:
    """An entry's file name: the digest of ``parts`` (the files' bytes, the code's), of
    Python's version and of the pickle protocol (another Python, another entry).

    >>> key(b"a") == key(b"a") != key(b"b")
    True
    """
    h = hashlib.sha256(f"{sys.version}\0{pickle.HIGHEST_PROTOCOL}".encode())
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return f"{h.hexdigest()}.pickle"


def read(
    entry: Path,
    shape: Callable[[Any], bool] | None = None,
    classes: Iterable[type] = (),
) -> Any:
    """What :func:`write` put in ``entry``; None if there is none, if it cannot be read, if
    its folder is not trusted (:func:`trusted`), if it would need a class other than
    ``classes`` (and plain data), or if ``shape`` says it is not what it must be.

    >>> read(Path("/nonexistent/entry.pickle")) is None
    True
    """
    if not trusted(entry.parent):
        return None
    allowed = {(c.__module__, c.__qualname__): c for c in classes} | _PLAIN
    try:
        with entry.open("rb") as f:
            st = os.fstat(f.fileno())
            if st.st_uid != os.getuid() or not stat.S_ISREG(st.st_mode):
                return None
            data = f.read()
        with collector.paused():  # (thousands of small objects in no cycle: see collector)
            value = _Unpickler(io.BytesIO(data), allowed).load()
        return value if shape is None or shape(value) else None
    except Exception:  # missing, unreadable, corrupt, built by other code, or not allowed
        return None


class _Unpickler(pickle.Unpickler):
    """An unpickler that finds only the classes it is given: a pickle naming anything else
    (a function to call, ``os.system``) fails before anything of it runs."""

    def __init__(self, file: io.BytesIO, allowed: dict[tuple[str, str], type]) -> None:
        super().__init__(file)
        self._allowed = allowed

    def find_class(self, module: str, name: str) -> Any:
        found = self._allowed.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in the cache")
        return found


def write(entry: Path, value: Any) -> None:
    """Keep ``value`` in ``entry`` (its folder made if need be, for this user alone), if it
    can be written and the folder is trusted."""
    tmp: Path | None = None
    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        if not trusted(entry.parent):
            return
        # each made for this user alone (makedirs' mode is not that of the folders above)
        entry.parent.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        entry.parent.mkdir(mode=0o700, exist_ok=True)
        tmp = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
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


#: the folders found untrusted, each said once
_SAID: set[str] = set()


def trusted(folder: Path) -> bool:
    """Whether entries may be read from and written to ``folder``: it and the folder above
    it (the cache's own, for a kind's folder) are this user's, and no one else can write
    them (above it, a sticky folder such as /tmp will do: what is ours stays ours). A folder
    that does not exist yet is trusted (it is made for this user alone); one that others
    could write is said once on stderr.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     ok = trusted(Path(d) / "specs")
    ...     os.chmod(d, 0o777)
    ...     ok, trusted(Path(d) / "specs")  # (said on stderr)
    (True, False)
    """
    for above, where in enumerate((folder, folder.parent)):
        try:
            st = os.stat(where)
        except FileNotFoundError:
            continue
        except OSError:
            return False
        others_write = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        if above and st.st_mode & stat.S_ISVTX:
            continue  # /tmp: others write in it, but cannot move or remove what is ours
        if st.st_uid != os.getuid() or others_write:
            if str(where) not in _SAID:
                _SAID.add(str(where))
                what = (
                    "is not yours"
                    if st.st_uid != os.getuid()
                    else "can be written by others (chmod go-w to use it)"
                )
                print(f"sheli: the cache {where} {what}: not used", file=sys.stderr)
            return False
    return True

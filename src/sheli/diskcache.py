"""Data parsed from files and kept on disk between processes, keyed by the files' content.

Specs (:mod:`sheli.rite.cache`) and venues (:mod:`sheli.place.loader`) are parsed from YAML
by every process that needs them; an entry here gives back what an earlier process built
from the same bytes (and the same code). The cache is ``$SHELI_CACHE_DIR`` or the
platform's user cache directory (:func:`user_cache_base`), a folder for each kind of data
in it; each entry is a pickle written whole (a temporary file renamed). Anything that
cannot be read or written only costs the time of parsing again.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     entry = Path(d) / key(b"venue file bytes", b"code")
...     write(entry, {"title": "州序"}); read(entry)
{'title': '州序'}
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from pathlib import Path
from typing import Any

from sheli import collector

#: the environment variable that puts the cache elsewhere (tests, a read-only home)
CACHE_ENV = "SHELI_CACHE_DIR"


def cache_dir(kind: str) -> Path:
    """``$SHELI_CACHE_DIR/KIND`` or the user cache directory's ``KIND``.

    >>> cache_dir("venues").name
    'venues'
    """
    base = os.environ.get(CACHE_ENV) or user_cache_base()
    return Path(base) / kind


def user_cache_base() -> str:
    """The user's cache directory for sheli, as platformdirs names it: on Linux
    ``$XDG_CACHE_HOME/sheli`` if that is an absolute path, else ``$HOME/.cache/sheli``.
    Those two cases are read here, as platformdirs reads them: importing it (its regular
    expressions) was some 2–3 ms of every ``sheli run`` (docs/benchmarks.md, "The seventh
    sitting"); every other case (another system, no absolute ``$HOME``) is its to answer.

    >>> user_cache_base().endswith("sheli")
    True
    """
    if sys.platform == "linux":
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        if os.path.isabs(xdg):
            return os.path.join(xdg, "sheli")
        home = os.environ.get("HOME", "")
        if os.path.isabs(home):
            return os.path.join(home, ".cache", "sheli")
    # deferred: needed only where the two cases above do not answer (start-up time)
    from platformdirs import user_cache_dir

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


def read(entry: Path) -> Any:
    """What :func:`write` put in ``entry``; None if there is none or it cannot be read.

    >>> read(Path("/nonexistent/entry.pickle")) is None
    True
    """
    # a spec is thousands of small objects, none of them in a cycle: the cyclic collector,
    # which their making would set off again and again, is paused while they are read
    try:
        with entry.open("rb") as f, collector.paused():
            return pickle.load(f)
    except Exception:  # missing, unreadable, corrupt, or built by other code: parse again
        return None


def write(entry: Path, value: Any) -> None:
    """Keep ``value`` in ``entry`` (its folder made if need be), if it can be written."""
    tmp: Path | None = None
    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        entry.parent.mkdir(parents=True, exist_ok=True)
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

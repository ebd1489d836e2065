"""Runs shared by tests that only read them (tests/conftest.py's ``once`` and ``run_once``)."""

from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

import pytest

T = TypeVar("T")


class Once:
    """What a test only reads, made once per session (per xdist worker) for each key, the last
    ``keep`` kept: ``once(key, make)`` calls ``make()`` the first time and gives its result again
    after. Tests of one run in several modules (the spec configurations, the golden logs) share
    it when they run on one worker: their parameters carry ``xdist_group(same_run(key))``.

    >>> once = Once()
    >>> once(("x", 1), lambda: [1]) is once(("x", 1), lambda: [2])
    True
    """

    def __init__(self, keep: int = 16) -> None:
        self.keep = keep
        self.made: OrderedDict[Hashable, Any] = OrderedDict()

    def __call__(self, key: Hashable, make: Callable[[], T]) -> T:
        if key in self.made:
            self.made.move_to_end(key)
        else:
            self.made[key] = make()
            if len(self.made) > self.keep:
                self.made.popitem(last=False)
        result: T = self.made[key]
        return result


def same_run(key: str) -> pytest.MarkDecorator:
    """The xdist group of the tests that read one shared run (:class:`Once`), so that one
    worker makes it for all of them."""
    return pytest.mark.xdist_group(f"run {key}")


class Shelf:
    """What a test only reads, made once for the whole session and kept pickled in ``folder``,
    which the session's xdist workers share: the first worker to ask for a key makes it (the
    others wait for it, not make it again) and each later one reads the pickle, some 30 ms
    for a run that costs 0.5 to 1 s of CPU to make. Keys are salted with ``salt`` (the
    source's hash: an edited file makes new ones). Without a folder (one process, no xdist),
    or for a value that cannot be pickled, ``make()`` is returned as it is.

    >>> import tempfile
    >>> shelf = Shelf(Path(tempfile.mkdtemp()), salt="x")
    >>> shelf("k", lambda: [1])
    [1]
    >>> shelf("k", lambda: [2])  # read back: not made again
    [1]
    >>> Shelf(None, salt="x")("k", lambda: [3])
    [3]
    """

    def __init__(self, folder: Path | None, salt: str) -> None:
        self.folder, self.salt = folder, salt

    def __call__(self, key: str, make: Callable[[], T]) -> T:
        if self.folder is None:
            return make()
        name = hashlib.sha256(f"{self.salt}\0{key}".encode()).hexdigest()[:32]
        kept = self.folder / f"{name}.pickle"
        with open(self.folder / f"{name}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released as the file closes
            if kept.exists():
                made: T = pickle.loads(kept.read_bytes())
                return made
            made = make()
            try:
                data = pickle.dumps(made, protocol=pickle.HIGHEST_PROTOCOL)
            except (pickle.PicklingError, TypeError, AttributeError):
                return made  # (kept in this worker's memory only, by Once)
            part = kept.with_suffix(f".{os.getpid()}")
            part.write_bytes(data)
            part.replace(kept)
            return made


def source_hash(root: Path) -> str:
    """A hash of every file under ``root`` (its paths and bytes), byte code left out: the
    salt of a :class:`Shelf` of what that source makes.

    >>> source_hash(Path(__file__).parent) == source_hash(Path(__file__).parent)
    True
    """
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix != ".pyc":
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()

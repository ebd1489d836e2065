"""The walks of a run checked in a process of their own, beside the run.

Checking a walk (:meth:`sheli.engine.paths.Paths.check`: off a route the 經 names, through
the 序 or a 楹, over the 堂's edge, through another's body where no way round is found) only
reads where everyone stands; it changes nothing the run goes on with. It is a third of the
default run's time and half of a run with 100 衆耦, so on a machine with more than one CPU
:class:`ApartWalks` checks the walks in a forked process while the run goes on: the run sends
each walk (who, his bodies, what the check needs, where it is in the spec) in batches, and at
its end (or at its own failure) waits for the verdict. The run is the same, line for line:
a walk refused fails the run with the same error, raised at the end instead of at its step
(a sink has by then been handed the records after it: its owner drops them, as on every
failure); the walks through a body beyond the crowd the model walks round come back as the
same warnings, in their order (docs/architecture.md, "The walks checked apart").

>>> from sheli.engine.paths import Paths, load_paths
>>> from sheli.place import load_venue
>>> paths = Paths(load_paths(), load_venue("xie"), footprint=2.0)
>>> walks = ApartWalks(paths)
>>> walks.walk("甲", [(0.0, -20.0)], None, ("x.yaml", 1, "xiangshe:1", "進", "甲"))
>>> args = ([(0.0, -20.0)], "進", None, None, [], "甲", True)  # from (0, -20)
>>> walks.walk("甲", [(0.0, -30.0)], args, ("x.yaml", 2, "xiangshe:2", "進", "甲"))
>>> walks.finish()
[]
"""

from __future__ import annotations

import os
import signal
from typing import Any

from sheli.engine.paths import Paths
from sheli.forked import Forked
from sheli.rite.loader import SpecError

#: the walks sent to the checking process at a time (a batch a message: fewer, larger
#: writes; the process is at most this many walks behind the run)
BATCH = 64


def apart_possible() -> bool:
    """Whether walks can be checked apart here: more than one CPU to run on, and fork.

    >>> isinstance(apart_possible(), bool)
    True
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # (no affinity on this system)
        cpus = os.cpu_count() or 1
    return cpus > 1 and hasattr(os, "fork")


def check_walk(paths: Paths, name: str, bodies: list[Any], args: Any, where: Any) -> Any:
    """The check of one walk, as the run makes it in line and as the checking process
    makes it. Stand ``name`` at ``bodies``; with ``args`` (the walk from where he stood:
    ``old, verb, via, stair, routes, role, search``), check it. Returns the walks through a
    body beyond the crowd (``search`` false), as warnings, and the first other fault (what,
    where) or None; ``where`` is (file, line, passage, verb, who)."""
    paths.stand(name, bodies)
    if args is None:
        return [], None
    old, verb, via, stair, routes, role, search = args
    warned = []
    for f in paths.check(name, old, bodies, verb, via, stair, routes, role, search):
        what = f"{f.what} [P-{f.kind}]"
        if f.kind == "body" and not search:
            file, line, cite, verb_, who = where
            warned.append(f"{file}:{line} ({cite}, {verb_} by {who}): {what}")
            continue
        return warned, (what, where)
    return warned, None


def _checking(conn: Any, paths: Paths) -> tuple[list[str], Any]:
    """The checking process: each batch of walks checked in order until the run's None;
    then the warnings and the first walk refused (or None). After a walk refused or a
    failure the rest are read and not checked, so that the run's writes never meet a closed
    pipe; a failure is raised then. An interrupt (^C) is the run's to answer: this process
    ends when the run closes it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warned: list[str] = []
    fault = error = None
    while (batch := conn.recv()) is not None:
        if fault is not None or error is not None:
            continue
        try:
            for name, bodies, args, where in batch:
                more, fault = check_walk(paths, name, bodies, args, where)
                warned += more
                if fault is not None:
                    break
        except Exception as exc:
            error = exc
    if error is not None:
        raise error
    return warned, fault


class ApartWalks:
    """The walks of a run, checked in a forked process (:func:`apart_possible`) begun with
    a copy of ``paths`` as it is; :meth:`walk` for each, :meth:`finish` at the end."""

    def __init__(self, paths: Paths) -> None:
        self._checker = Forked(_checking, paths, talk=True)
        self._batch: list[tuple[Any, ...]] = []
        self._lost = False  # the checking process is gone (finish says so)

    def walk(self, name: str, bodies: list[Any], args: Any, where: Any) -> None:
        """As :func:`check_walk`, in the checking process, in turn."""
        self._batch.append((name, bodies, args, where))
        if len(self._batch) >= BATCH:
            batch, self._batch = self._batch, []
            if not self._lost:
                try:
                    self._checker.conn.send(batch)
                except OSError:
                    self._lost = True

    def finish(self) -> list[str]:
        """Wait for every walk to be checked; the warnings of the walks through a body
        beyond the crowd, in order. A walk refused raises its :class:`SpecError`; a failure
        of the checking process, a RuntimeError with its traceback."""
        if not self._lost:
            try:
                if self._batch:
                    self._checker.conn.send(self._batch)
                self._checker.conn.send(None)
            except OSError:
                pass  # (gone: its result says so)
        warned, fault = self._checker.result()
        if fault is not None:
            what, (file, line, cite, verb, who) = fault
            raise SpecError(what, file=file, line=line, cite=cite, what=f"{verb} by {who}")
        return warned

    def close(self) -> None:
        """End the checking process if it still runs (a run that failed on its own)."""
        self._checker.close()

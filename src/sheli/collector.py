"""Python's cyclic garbage collector, steered from this module alone.

sheli makes many small objects that are in no reference cycle (a spec read back from the
cache, a run's records, a drawing's caches) and keeps them until it is done with them: the
collector, set off again and again by their making, would only scan them to find nothing.
What pays is said where it is used (docs/architecture.md, "The collector"):

- :func:`paused` while a run or a cache entry is made (a run: some 9 % of the CPU time of
  ``sheli run``, 5 % of its wall time);
- :func:`frozen` around a fork, so that a collection in the child does not touch, and so
  copy, every page of memory it inherited and only reads;
- :func:`freeze` what a long-lived process keeps (the server's modules, an event's runs),
  and :func:`sweep` its garbage now and then;
- :func:`relaxed` in a drawing process (collections every 10 000 allocations, not 700).

>>> import gc
>>> with paused():
...     gc.isenabled()
False
>>> gc.isenabled()
True
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the block, and back as it was after it (a caller that had
    paused it keeps it paused).

    >>> with paused():
    ...     with paused():
    ...         pass
    ...     gc.isenabled()
    False
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def frozen() -> Iterator[None]:
    """What exists now out of the collector's sight for the block (a fork: the child
    inherits it frozen), back in sight after it.

    >>> before = gc.get_freeze_count()
    >>> with frozen():
    ...     gc.get_freeze_count() > before
    True
    >>> gc.get_freeze_count() == before
    True
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def freeze() -> None:
    """Move what exists now out of the collector's sight for good: what a long-lived process
    keeps as long as it lives (a full collection then scans only what came after)."""
    gc.freeze()


def sweep() -> None:
    """Collect everything, the frozen objects too, then freeze what is left (a server's
    garbage once in a while).

    >>> sweep(); gc.get_freeze_count() > 0
    True
    >>> gc.unfreeze()
    """
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def relaxed() -> None:
    """Collect the youngest objects every 10 000 allocations, not every 700: a process that
    keeps many objects alive and makes little cyclic garbage (a drawing process) would
    otherwise go through them again and again (about 2 % of its time)."""
    gc.set_threshold(10_000, 10, 10)


def pause_to_the_end() -> None:
    """The collector off for the rest of the process, and what is left at its end frozen,
    out of Python's last collection (it goes through every object to find no cycle: a tenth
    of a ``sheli run``). Its end then frees them as the modules go, without scanning them."""
    gc.disable()
    atexit.unregister(gc.freeze)  # once, whoever calls this again
    atexit.register(gc.freeze)


def resume() -> None:
    """The collector on again (after :func:`pause_to_the_end`, for a caller that goes on)."""
    gc.enable()


def enabled() -> bool:
    """Whether the collector runs.

    >>> enabled()
    True
    """
    return gc.isenabled()

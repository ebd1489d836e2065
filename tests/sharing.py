"""Runs shared by tests that only read them (tests/conftest.py's ``once`` and ``run_once``)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
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

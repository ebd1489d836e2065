"""Watching a run's records as the interpreter makes them, each with the world as it is then.

The run hands each record to its timing (:class:`sheli.engine.timing.InTime`) as it is made,
and the timing hands it on once its time is final (docs/timeline.md): a test that checks the
world after every record watches that first hand-over.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from sheli.engine import interpreter as interp_mod
from sheli.engine import timing as timing_mod

Records = TypeVar("Records", bound=list[Any])


def watch_records(
    monkeypatch: pytest.MonkeyPatch, make: Callable[[Any], Records]
) -> dict[str, Records]:
    """Make each run from now on give every record, as it is made, to a list ``make(world)``
    made when its interpreter is (its ``append`` may check the world); the list of the last
    run so made is ``box["records"]``."""
    real_init = interp_mod.Interpreter.__init__
    real_append = timing_mod.InTime.append
    box: dict[str, Records] = {}

    def init(self: Any, *a: Any, **k: Any) -> None:
        real_init(self, *a, **k)
        box["records"] = make(self.world)

    def append(self: Any, record: Any) -> None:
        box["records"].append(record)
        real_append(self, record)

    monkeypatch.setattr(interp_mod.Interpreter, "__init__", init)
    monkeypatch.setattr(timing_mod.InTime, "append", append)
    return box

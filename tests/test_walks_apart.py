"""The walks checked in a process of their own (sheli.engine.walks): the same run, line for
line, with the same warnings; a walk refused fails the run with the same error, before an
error of the run's own that comes after it; a failure of the checking process is raised,
and no process is left behind."""

from __future__ import annotations

import multiprocessing
import os
from typing import Any

import msgspec
import pytest
from fixtures.standin import FixedOutcomes
from loglines import log_lines
from test_world_rules import SPECS

import sheli.engine.bodies as bodies_mod
import sheli.engine.interpreter as interpreter
import sheli.engine.paths as paths_mod
import sheli.forked as forked
from sheli.engine import run
from sheli.engine.paths import Fault
from sheli.engine.walks import apart_possible
from sheli.rite.loader import SpecError

pytestmark = pytest.mark.skipif(not apart_possible(), reason="one CPU, or no fork")


def _error(**kw: Any) -> SpecError:
    with pytest.raises(SpecError) as info:
        run(**kw)
    return info.value


def _same_error(a: SpecError, b: SpecError) -> None:
    assert (a.file, a.line, a.cite, a.what, str(a)) == (b.file, b.line, b.cite, b.what, str(b))


@pytest.fixture()
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The processes forked during the test (the checking processes), by their pids."""
    pids: list[int] = []
    real = os.fork

    def fork() -> int:
        pid = real()
        if pid:
            pids.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", fork)  # (multiprocessing forks with it)
    return pids


def _none_left(pids: list[int]) -> None:
    """Every process forked is gone, reaped: those that answered once this process ends
    (what multiprocessing's exit does, done here), those ended early at once."""
    assert pids
    for process in multiprocessing.active_children():
        process.join()
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # no such child left, not even a zombie


@pytest.mark.parametrize(
    ("rite", "kw"),
    [
        ("xiangshe", {}),
        ("xiangshe", {"venue": "xiang", "readings": ["R-zhi-zuojie"]}),
        ("xiangshe", {"pairs": 3, "guests": False, "arrows_short": True}),
        ("dashe", {"readings": ["R-dafu-gan", "R-she-fang-ao"]}),
        ("yanshe", {}),
    ],
)
@pytest.mark.slow
def test_the_same_run_line_for_line(rite: str, kw: dict[str, Any], forks: list[int]) -> None:
    inline = run(rite, **kw)
    apart = run(rite, **kw, walks_apart=True)
    assert log_lines(apart) == log_lines(inline)
    assert apart.warnings == inline.warnings
    _none_left(forks)


@pytest.mark.slow
def test_beyond_the_crowd_the_same_warnings_in_their_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # as test_paths: no way round anyone, and a crowd of no 衆耦, so that every walk through
    # a body is a warning (the checking process is forked with these stand-ins)
    model = msgspec.structs.replace(paths_mod.load_paths(), crowd_pairs=0)
    monkeypatch.setattr(interpreter, "load_paths", lambda: model)
    monkeypatch.setattr(paths_mod.Paths, "_go_round", lambda self, *a: [])
    monkeypatch.setattr(paths_mod.Paths, "_round_groups", lambda self, *a: False)
    inline = run("xiangshe", seed=1, pairs=1)
    apart = run("xiangshe", seed=1, pairs=1, walks_apart=True)
    walks = [w for w in apart.warnings if w.endswith("[P-body]")]
    assert len(walks) > 10
    assert apart.warnings == inline.warnings and log_lines(apart) == log_lines(inline)


@pytest.mark.parametrize(
    "fixture", ["bad_walk_pillar.yaml", "bad_walk_edge.yaml", "bad_walk_body.yaml"]
)
def test_a_walk_refused_is_the_same_error(fixture: str, forks: list[int]) -> None:
    spec = SPECS / fixture
    inline = _error(rite=spec, outcomes=FixedOutcomes())
    apart = _error(rite=spec, outcomes=FixedOutcomes(), walks_apart=True)
    _same_error(apart, inline)
    _none_left(forks)


@pytest.mark.slow
def test_a_walk_refused_comes_before_a_later_error_of_the_run(
    monkeypatch: pytest.MonkeyPatch, forks: list[int]
) -> None:
    # the first walk of a step whose 經 names a route (xiangshe:102) refused, as in
    # test_paths; and, long after it, a body the run cannot place: inline the run stops at
    # the walk; apart it goes on to the later error and then raises the walk's
    def check(self: paths_mod.Paths, *a: Any, **k: Any) -> list[Fault]:
        return [Fault("route", "由楹内: passes south of the 東楹")] if a[6] else []

    place = bodies_mod.Bodies.place
    calls = [0]

    def failing_place(self: Any, *a: Any, **k: Any) -> Any:
        calls[0] += 1
        if calls[0] > 3000:
            raise ValueError("no room")
        return place(self, *a, **k)

    monkeypatch.setattr(paths_mod.Paths, "check", check)
    inline = _error(rite="xiangshe")
    assert "xiangshe:102" in str(inline) and "[P-route]" in str(inline)
    monkeypatch.setattr(bodies_mod.Bodies, "place", failing_place)
    apart = _error(rite="xiangshe", walks_apart=True)
    assert calls[0] > 3000  # the run went on past the walk to its own error
    _same_error(apart, inline)
    # with no walk refused, the run's own error stands
    monkeypatch.setattr(paths_mod.Paths, "check", lambda self, *a, **k: [])
    calls[0] = 0
    with pytest.raises(ValueError, match="no room"):
        run("xiangshe", walks_apart=True)
    _none_left(forks)


def test_a_failure_of_the_checking_process_is_raised(
    monkeypatch: pytest.MonkeyPatch, forks: list[int]
) -> None:
    def check(self: paths_mod.Paths, *a: Any, **k: Any) -> list[Fault]:
        raise ZeroDivisionError("a fault of the checker")

    monkeypatch.setattr(paths_mod.Paths, "check", check)
    with pytest.raises(RuntimeError, match="ZeroDivisionError: a fault of the checker"):
        run("xiangshe", walks_apart=True)
    _none_left(forks)


def test_a_process_that_answered_is_reaped() -> None:
    # not waited for when it answers (it is still giving its memory back), but reaped: by a
    # later call, or as this process ends (multiprocessing joins its children then)
    f = forked.Forked(sum, [1, 2])
    pid = f._process.pid
    assert pid is not None
    assert f.result() == 3
    for process in multiprocessing.active_children():  # what the end of this process does
        process.join()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # no such child left, not even a zombie

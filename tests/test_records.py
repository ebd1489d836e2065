"""The run as typed records: their JSON lines are the event log, their snapshots the world's.

The objects' snapshot of a step is rebuilt only after a verb changed an object; taken afresh
after every act instead, it must be the same at every step (nothing changed unseen).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from loglines import log_lines

from sheli.engine import run
from sheli.engine import state as state_mod
from sheli.engine.records import BaseVisitor, Scene, Shot, Step, Tally
from sheli.scoring.rules import announce, release

CASES = [
    {"rite": "xiangshe", "seed": 1},
    {"rite": "xiangshe", "pairs": 2, "seed": 2, "arrows_short": True},
    {"rite": "dashe"},
    {"rite": "yanshe"},
]


@pytest.mark.parametrize("kw", CASES)
@pytest.mark.slow
def test_snapshots_equal_a_fresh_look_at_every_step(
    monkeypatch: pytest.MonkeyPatch, kw: dict[str, Any]
) -> None:
    shared = [r.objects for r in run(**kw).records if type(r) is Step]
    real = state_mod.World.objects

    def fresh(self: Any) -> Any:
        self.moved()
        return real(self)

    monkeypatch.setattr(state_mod.World, "objects", fresh)
    every = [r.objects for r in run(**kw).records if type(r) is Step]
    assert len(shared) == len(every)
    diff = next((i for i, (a, b) in enumerate(zip(shared, every, strict=True)) if a != b), None)
    assert diff is None, (diff, shared[diff], every[diff])
    # and they are shared: far fewer values than steps
    assert len({id(o) for o in shared}) < len(shared) / 3


@pytest.mark.slow
def test_records_are_the_log_and_carry_numbers(run_once: Callable[..., Any]) -> None:
    r = run_once("xiangshe", seed=1)
    assert [x.to_json() for x in r.records] == log_lines(r)
    assert isinstance(r.records[0], Scene)
    steps = [x for x in r.records if type(x) is Step]
    # the 筭 of the count in his left hand are numbers; the log's words are made from them
    counting = [s for s in steps if s.holding.counting]
    assert counting and all(s.holds[-1].startswith("筭") for s in counting)
    tally = next(x for x in r.records if type(x) is Tally)
    assert tally.right + tally.left > 0 or tally.winner == "tie"
    # the 筭 on the ground at the count are those the tally counts
    before = max((s for s in steps if s.seq < tally.seq and s.verb == "數獲"), key=lambda s: s.seq)
    assert (before.objects.rods_right, before.objects.rods_left) == (tally.right, tally.left)


@pytest.mark.slow
def test_a_visitor_reads_the_run_in_order(run_once: Callable[..., Any]) -> None:
    class Order(BaseVisitor):
        def __init__(self) -> None:
            self.seen: list[str] = []

        def begin_run(self, scene: Scene) -> None:
            self.seen.append("begin")

        def visit_step(self, step: Step) -> None:
            self.seen.append("step")

        def visit_shot(self, shot: Shot) -> None:
            self.seen.append("shot")

        def visit_tally(self, tally: Tally) -> None:
            self.seen.append("tally")

        def end_run(self) -> None:
            self.seen.append("end")

        def result(self) -> list[str]:
            return self.seen

    r = run_once("xiangshe", seed=1)
    seen = r.accept(Order())
    assert seen[0] == "begin" and seen[-1] == "end"
    assert seen[1:-1] == [e["type"] for e in log_lines(r)[1:]]


@pytest.fixture(scope="module", params=[1, 2], ids=lambda seed: f"seed{seed}")
def seeded(request: pytest.FixtureRequest, run_once: Callable[..., Any]) -> Any:
    """鄉射禮 of seeds 1 and 2 (shared, only read), made before the tests that read them."""
    return run_once("xiangshe", seed=request.param)


def test_shot_lines_carry_the_release_decision(seeded: Any) -> None:
    r = seeded
    shots = [x for x in r.records if type(x) is Shot and x.pair != "誘射"]
    assert shots
    for s in shots:
        assert (s.counted, s.reason) == release(s.round, s.hit, s.on_beat)
        line = s.to_json()
        assert ("on_beat" in line) == (s.on_beat is not None)
    tallies = [x for x in r.records if type(x) is Tally]
    for t in tallies:
        assert t.to_json() == {
            "type": "tally", "round": t.round, "right": t.right, "left": t.left,
            "winner": t.winner, "announcement": announce(t.right, t.left), "seq": t.seq,
        }  # fmt: skip


@pytest.mark.slow
def test_steps_share_their_optional_fields_by_value() -> None:
    steps = [r for r in run("xiangshe", pairs=20).records if type(r) is Step]
    # the optional fields the engine gives, not the time each step has of its own
    first, time = Step._fields.index("source_file"), Step._fields.index("t")
    kept: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for s in steps:
        fields = s[first:time]
        seen = kept.setdefault(fields, fields)
        # one object for each distinct value, not one a step
        assert all(a is b for a, b in zip(fields, seen, strict=True))
    assert len(kept) < len(steps) / 5


@pytest.mark.slow
def test_a_sink_takes_the_records_and_the_run_keeps_the_scene() -> None:
    taken: list[Any] = []
    r = run("xiangshe", pairs=1, sink=taken.append)
    whole = run("xiangshe", pairs=1)
    assert r.records == whole.records[:1]
    assert taken == whole.records[1:]

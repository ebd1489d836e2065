"""The event log carries time (docs/event-log.md, docs/timeline.md): every step line has its
``t``, ``dur`` and ``moment``, a walk its ``path``, a joint act the other party in ``with``.

Read from the lines the writer makes, as a reader of the log gets them: the crossings of
xiangshe:146 and 153 have both parties there at once, the last pair meets nobody, the log
is the same from run to run, and reading it back gives the run's typed records.
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

import pytest

from sheli.engine import run
from sheli.engine.records import LogReader, Step
from sheli.outputs.eventlog import record_lines

RITES = ["xiangshe", "dashe", "yanli"]
#: the sampling step of the tests' look at two walkers, in seconds
SAMPLE = 0.02


#: every test runs or reads whole rites (README: the quick loop)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def logs() -> dict[str, list[dict[str, Any]]]:
    """Each rite's log (seed 1), its lines parsed."""
    return {
        rite: [json.loads(line) for line in record_lines(run(rite, seed=1).records)]
        for rite in RITES
    }


def _steps(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in lines if e["type"] == "step"]


def _where(step: dict[str, Any], t: float) -> tuple[float, float]:
    """Where the actor of a step line is at time ``t``: along its path, else at its x, y."""
    path = step.get("path")
    if not path:
        return step["x"], step["y"]
    if t <= path[0][2]:
        return path[0][0], path[0][1]
    for a, b in itertools.pairwise(path):
        if t <= b[2]:
            f = 0.0 if b[2] == a[2] else (t - a[2]) / (b[2] - a[2])
            return a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])
    return path[-1][0], path[-1][1]


def _meetings(steps: list[dict[str, Any]], cite: str) -> list[tuple[dict, dict, list[float]]]:
    """Each step of ``cite`` naming others in ``with``, with each other party's step that
    names him back, and the distances between the two over the time both act (sampled)."""
    out = []
    for s in steps:
        if s["cite"] != cite or "with" not in s:
            continue
        for other in s["with"]:
            partner = [
                q
                for q in steps
                if q["actor"] == other
                and s["actor"] in q.get("with", ())
                and q["t"] <= s["t"] + s["dur"]
                and s["t"] <= q["t"] + q["dur"]
            ]
            assert len(partner) == 1, (s["seq"], other, [q["seq"] for q in partner])
            q = partner[0]
            lo, hi = max(s["t"], q["t"]), min(s["t"] + s["dur"], q["t"] + q["dur"])
            times = [lo + k * SAMPLE for k in range(int((hi - lo) / SAMPLE) + 1)]
            times += [p[2] for p in (s.get("path") or []) + (q.get("path") or [])]
            seen = [math.dist(_where(s, t), _where(q, t)) for t in sorted(times) if lo <= t <= hi]
            out.append((s, q, seen))
    return out


@pytest.mark.parametrize("rite", RITES)
def test_every_step_line_has_its_time(logs: dict[str, list[dict[str, Any]]], rite: str) -> None:
    steps = _steps(logs[rite])
    assert steps
    for s in steps:
        assert isinstance(s["t"], float) and s["t"] >= 0, s
        assert isinstance(s["dur"], float) and s["dur"] >= 0, s
        assert isinstance(s["moment"], int) and s["moment"] >= 1, s
        for x, y, t in s.get("path", ()):
            # a walk's points are in the act's time, each a hundredth of a second or a 尺
            assert s["t"] - 0.005 <= t <= s["t"] + s["dur"] + 0.005, s
            assert all(round(v, 2) == v for v in (x, y, t)), s
    # the lines stay in seq order; the moments never go back
    assert [s["seq"] for s in steps] == sorted(s["seq"] for s in steps)
    assert all(a["moment"] <= b["moment"] for a, b in itertools.pairwise(steps))
    # some walk and some act jointly, and people act at once
    assert sum("path" in s for s in steps) > len(steps) / 10
    assert any("with" in s for s in steps)
    span = max(s["t"] + s["dur"] for s in steps) - min(s["t"] for s in steps)
    assert span < 0.98 * sum(s["dur"] for s in steps)


def test_the_crossing_of_146_has_both_on_their_paths(
    logs: dict[str, list[dict[str, Any]]],
) -> None:
    met = _meetings(_steps(logs["xiangshe"]), "xiangshe:146")
    assert met and {(s["actor"], q["actor"]) for s, q, _ in met} == {("司射", "司馬")}
    for s, q, seen in met:
        # both walk, at the same time: 司射進與司馬交于階前相左
        assert len(s["path"]) >= 2 and len(q["path"]) >= 2, (s["seq"], q["seq"])
        assert seen and min(seen) <= 10.0 and min(seen) >= 1.5, (s["seq"], min(seen))


def test_the_pairs_cross_at_153_and_the_last_meets_nobody(
    logs: dict[str, list[dict[str, Any]]],
) -> None:
    steps = _steps(logs["xiangshe"])
    met = _meetings(steps, "xiangshe:153")
    # every pair coming down but the last bows to the pair going up, seat to seat
    for s, q, seen in met:
        assert s["actor"].endswith(q["actor"][-2:]), (s["actor"], q["actor"])
        assert q.get("path"), q["seq"]  # the one going up walks as they meet
        assert seen and 1.5 <= min(seen) <= 10.0, (s["seq"], q["seq"], min(seen))
    for rnd in (1, 2, 3):
        bows = [s for s in steps if s["cite"] == "xiangshe:153" and s["verb"] == "揖"]
        bows = [s for s in bows if s["round"] == rnd]
        pairs = list(dict.fromkeys(s["actor"][:-2] for s in bows))
        # 下耦無與升射者相左相揖之事 (敖繼公, the 義疏 agreeing): the last of the 三耦, after
        # whom nobody goes up (the 賓, 主人 and 大夫 come down only then, xiangshe:187), does
        # not bow at all; every bow that is made meets the pair going up
        assert pairs == ["上耦", "次耦"], (rnd, pairs)
        assert all("with" in s for s in bows), [s["seq"] for s in bows if "with" not in s]
        assert {s["seq"] for s, _, _ in met} >= {
            s["seq"] for s in bows if not s["actor"].startswith(pairs[-1])
        }


def test_two_runs_give_the_same_log() -> None:
    a = b"".join(record_lines(run("xiangshe", pairs=1).records))
    b = b"".join(record_lines(run("xiangshe", pairs=1).records))
    assert b'"t":' in a and a == b


def test_reading_the_log_back_gives_the_typed_records() -> None:
    records = run("dashe", seed=1).records
    lines = [json.loads(line) for line in record_lines(records)]
    read = LogReader().read(lines)
    assert [r.to_json() for r in read] == lines
    steps = [(a, b) for a, b in zip(records, read, strict=True) if type(a) is Step]
    assert len(steps) == sum(e["type"] == "step" for e in lines)
    for a, b in steps:
        assert isinstance(b, Step)
        assert (b.t, b.dur, b.path, b.joined_with, b.moment) == (
            a.t,
            a.dur,
            a.path,
            a.joined_with,
            a.moment,
        )
        assert b.written == a.written and b.members == a.members and b.shot == a.shot
        assert b.holds == a.holds
        # the arrows and the bow as numbers again (執 along the string apart from 挾)
        arrows = ("bow", "hand", "belt", "fingers", "side", "discipline_rod")
        assert [getattr(b.holding, k) for k in arrows] == [getattr(a.holding, k) for k in arrows]
        if b.path is not None:
            assert all(type(v) is float for p in b.path for v in p)
    # the other records as they were
    assert [r for r in read if type(r) is not Step] == [r for r in records if type(r) is not Step]

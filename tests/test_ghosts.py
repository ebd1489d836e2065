"""The other run's bodies as ghosts (sheli.outputs.ghosts) and the diff viewer's data."""

from __future__ import annotations

import pytest
from loglines import step_lines

from sheli.engine import run
from sheli.outputs.frames import build_frames
from sheli.outputs.ghosts import ghost_data


def _expand(runs: list[list[int]], n: int) -> list[int]:
    out: list[int] = []
    for k, (at, v) in enumerate(runs):
        end = runs[k + 1][0] if k + 1 < len(runs) else n
        out += [v] * (end - at)
    return out


@pytest.fixture(scope="module")
def zhi() -> tuple[object, object, dict]:
    a, b = run("xiangshe"), run("xiangshe", readings=["R-zhi-zuojie"])
    return a, b, ghost_data(a, b)


@pytest.mark.slow
def test_a_run_against_itself_has_no_ghosts() -> None:
    r = run("yanshe")
    g = ghost_data(r, r)
    n = len(step_lines(r))
    assert g["items"] == [] and g["G"] == [] and g["readings"] == []
    assert _expand(g["g"], n) == [-1] * n and _expand(g["at"], n) == [0] * n


@pytest.mark.slow
def test_ghosts_stand_where_run_a_has_them(zhi: tuple) -> None:
    a, b, g = zhi
    n = len(step_lines(b))
    per_step, at = _expand(g["g"], n), _expand(g["at"], n)
    fa = {f.seq: f for f in build_frames(a)}
    fb = build_frames(b)
    shown = [j for j in range(n) if per_step[j] >= 0]
    assert shown, "R-zhi-zuojie moves the 司正: some step has a ghost"
    for j in shown:
        frame_a = fa[fb[j].seq + at[j]]
        for actor, x, y, facing in g["G"][per_step[j]]:
            p = frame_a.people[actor]
            assert (x, y, facing) == (round(p.x, 2), round(p.y, 2), p.facing or "")
            q = fb[j].people.get(actor)
            assert q is None or (q.x, q.y, q.facing) != (p.x, p.y, p.facing)


@pytest.mark.slow
def test_every_difference_is_listed_at_a_step_of_b(zhi: tuple) -> None:
    _a, b, g = zhi
    steps = step_lines(b)
    assert len(g["items"]) == 27  # docs/readings.md: R-zhi-zuojie, 27 steps
    for j, kind, cite, _what in g["items"]:
        assert 0 <= j < len(steps)
        if kind == "position":
            assert steps[j]["cite"] == cite
    assert [r["id"] for r in g["readings"][0]["runs"]] == ["R-zhi-zuojie", "R-zhi-zhongting"]
    assert g["readings"][0]["runs"][0]["sources"]

"""The viewer's data for playing the rite (docs/viewer.md, "Playing the rite"): each step's
start and duration and each walker's walks, read against the event log's own lines."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from loglines import step_lines

from sheli.outputs.render import viewer_data


@pytest.fixture(scope="module")
def logged(run_once: Callable[..., Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    r = run_once("xiangshe")
    return step_lines(r), viewer_data(r)


def test_each_step_has_its_start_and_duration(
    logged: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    steps, data = logged
    time = data["time"]
    # the viewer keeps tenths: within half of one of the log's hundredths (and a float's error)
    assert len(time["t"]) == len(time["d"]) == len(steps) == len(data["steps"])
    for st, t, d in zip(steps, time["t"], time["d"], strict=True):
        assert abs(t - st["t"]) <= 0.051 and abs(d - st["dur"]) <= 0.051, (st["seq"], t, d)
    # people act at once: some steps begin before a step earlier in the log
    assert any(b < a for a, b in zip(time["t"], time["t"][1:], strict=False))


def test_the_tracks_are_the_logs_paths(
    logged: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    steps, data = logged
    names = data["T"]
    walked = {i for i, st in enumerate(steps) if "path" in st}
    seen: set[int] = set()
    for actor, walks in data["time"]["w"]:
        last = -1
        for w in walks:
            i, points = w[0], w[1:]
            assert i > last, "a walker's walks in the order of the log"
            last = i
            st = steps[i]
            assert names[actor] == st["actor"]
            path = st["path"]
            assert len(points) == 3 * len(path)
            for k, (x, y, t) in enumerate(path):
                got = points[3 * k : 3 * k + 3]
                assert all(abs(a - b) <= 0.051 for a, b in zip(got, (x, y, t), strict=True)), (
                    st["seq"],
                    got,
                    (x, y, t),
                )
            seen.add(i)
    assert seen == walked  # every walk of the log, once


def test_two_walk_at_once_at_xiangshe_146(
    logged: tuple[list[dict[str, Any]], dict[str, Any]],
) -> None:
    # 司射進與司馬交于階前相左: in the viewer's tracks the 司射 and the 司馬 walk at one instant
    steps, data = logged
    names = data["T"]
    i = next(k for k, s in enumerate(steps) if s["cite"] == "xiangshe:146" and s["actor"] == "司射")
    tracks = {names[a]: walks for a, walks in data["time"]["w"]}
    mine = next(w for w in tracks["司射"] if w[0] == i)
    start, end = mine[3], mine[-1]
    theirs = [w for w in tracks["司馬"] if w[3] < end and w[-1] > start]
    assert theirs, "the 司馬 walks while the 司射 comes forward"

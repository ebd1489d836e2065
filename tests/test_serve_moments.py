"""The director moves by moments and jumps (docs/serve.md, "Moments, jumps, the counter").

An event of 鄉射禮 with its feast is created through the API; the director presses "next
moment" (``{moment: 1}``) and lands each time on the first step of the next moment (the log's
``moment``); he jumps to a round, a 賈疏 section or a passage and lands on its first step; a bad
move is one 400 that says why and appends nothing. The audience state carries the acts a
moment passed over, timed by the timeline.
"""

from __future__ import annotations

import json
from itertools import pairwise

import pytest
from test_serve_helpers import Live, inputs_count, make_client, new_event

pytestmark = pytest.mark.slow  # each event is an engine run of the whole rite


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Live:
    client = make_client(tmp_path_factory.mktemp("moments"))
    return new_event(client, feast=True)


@pytest.fixture(scope="module")
def log_steps(live: Live) -> list[dict]:
    """The event's steps as its export writes them (the whole run: nothing is recorded)."""
    r = live.client.get("/api/export.jsonl", headers={"Authorization": f"Bearer {live.director}"})
    assert r.status_code == 200
    return [e for e in map(json.loads, r.text.splitlines()) if e["type"] == "step"]


def move(live: Live, body: dict) -> dict:
    """The director's move, answered 200; the step it lands on."""
    r = live.post("/api/advance", live.director, body)
    assert r.status_code == 200, r.text
    return r.json()["step"]


def refused(live: Live, body: dict, words: str) -> None:
    """A 400 whose one message says ``words``; nothing appended, the rite where it was."""
    before, state = inputs_count(live.client), live.state()
    r = live.post("/api/advance", live.director, body)
    assert r.status_code == 400, r.text
    assert words in r.json()["error"], r.json()
    assert inputs_count(live.client) == before
    after = live.state()
    assert (after["version"], after["step"]["index"]) == (state["version"], state["step"]["index"])


def moment_starts(steps: list[dict]) -> list[int]:
    """The index of each moment's first step."""
    return [i for i, s in enumerate(steps) if i == 0 or s["moment"] != steps[i - 1]["moment"]]


def first(steps: list[dict], **where: object) -> int:
    return next(i for i, s in enumerate(steps) if all(s.get(k) == v for k, v in where.items()))


def test_next_moment_lands_on_each_moments_first_step(live: Live, log_steps: list[dict]) -> None:
    move(live, {"to": 0})
    starts = moment_starts(log_steps)
    shot = first(log_steps, round=1, verb="射")
    presses = 0
    at = 0
    while at < shot:
        step = move(live, {"moment": 1})
        presses += 1
        assert step["index"] == starts[presses]  # no moment skipped, none entered part way
        at = step["index"]
    assert at == shot  # the first 射 begins a moment of its own
    # from the rite's very start the first shot is the moment after the feast's 36 and the
    # round's opening: as many presses as moments begin before it
    assert presses == len([i for i in starts if i < shot]) == log_steps[shot]["moment"] - 1
    # a handful from the round's start (a jump, then next moment)
    move(live, {"round": 1})
    handful = 1
    while live.state()["step"]["index"] < shot:
        move(live, {"moment": 1})
        handful += 1
    assert handful <= 10, handful
    # the first pair's first shot (after the 司射's 誘射) is a handful more
    pair_shot = first(log_steps, round=1, verb="射", actor="上耦上射")
    while live.state()["step"]["index"] < pair_shot:
        move(live, {"moment": 1})
        handful += 1
    assert live.state()["step"]["index"] == pair_shot and handful <= 10, handful


def test_the_archery_alone_reaches_its_first_shot_in_a_handful(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Without the feast (飲酒之禮 unchecked) the rite begins with the archery: from its very
    start, a handful of next moments reach the first 射 of round 1."""
    alone = new_event(make_client(tmp_path_factory.mktemp("alone")), feast=False)
    r = alone.client.get("/api/export.jsonl", headers={"Authorization": f"Bearer {alone.director}"})
    steps = [e for e in map(json.loads, r.text.splitlines()) if e["type"] == "step"]
    shot = first(steps, round=1, verb="射")
    presses = 0
    while alone.state()["step"]["index"] < shot:
        move(alone, {"moment": 1})
        presses += 1
    assert alone.state()["step"]["index"] == shot
    assert presses <= 10 and presses == steps[shot]["moment"] - 1, presses


def test_the_whole_rite_is_20_to_200_moments(live: Live, log_steps: list[dict]) -> None:
    move(live, {"to": 0})
    state = live.state()
    assert state["step"]["moment"] == 1
    presses = 0
    while True:
        r = live.post("/api/advance", live.director, {"moment": 1})
        if r.status_code == 400:
            assert "no moment beyond the last" in r.json()["error"]
            break
        assert r.status_code == 200, r.text
        presses += 1
    moments = presses + 1
    assert 20 <= moments <= 200, moments
    assert moments == live.state()["step"]["moments"] == log_steps[-1]["moment"]
    assert live.state()["step"]["moment"] == moments
    # back by moments: to the previous moment's first step, and to the start of one's own
    last_start = live.state()["step"]["index"]
    step = move(live, {"moment": -1})
    assert log_steps[step["index"]]["moment"] == moments - 1
    assert log_steps[step["index"] - 1]["moment"] == moments - 2
    move(live, {"to": last_start + 1})
    assert move(live, {"moment": -1})["index"] == last_start


def test_jumps_land_on_the_first_step(live: Live, log_steps: list[dict]) -> None:
    for body, where in (
        ({"round": 2}, {"round": 2}),
        ({"round": 0}, {"round": 0}),
        ({"section": 20}, {"section": 20}),
        ({"cite": "xiangshe:139"}, {"cite": "xiangshe:139"}),
        ({"cite": " xiangshe:153 "}, {"cite": "xiangshe:153"}),
    ):
        step = move(live, body)
        assert step["index"] == first(log_steps, **where), body
        assert live.state()["step"]["index"] == step["index"]
        assert step["seq"] == log_steps[step["index"]]["seq"]


def test_a_bad_move_is_one_clear_400(live: Live) -> None:
    move(live, {"round": 1})
    refused(live, {"round": 7}, "round 7 is not in this rite")
    refused(live, {"round": "二"}, "round must be a whole number")
    refused(live, {"section": 0}, "section must be 1–999")
    refused(live, {"section": 998}, "section 998 is not in this rite")
    refused(live, {"cite": "xiangshe:9999"}, "no step of this rite enacts xiangshe:9999")
    refused(live, {"cite": "射" * 5000}, "cite must be a passage id like xiangshe:139")
    refused(live, {"cite": ["xiangshe:139"]}, "cite must be a passage id")
    refused(live, {"moment": 2}, "moment must be 1 (the next) or -1 (back)")
    refused(live, {"moment": True}, "moment must be 1")
    refused(live, {"round": 2, "cite": "xiangshe:139"}, "not both round and cite")
    refused(live, {}, "give one of delta")
    move(live, {"to": 0})
    refused(live, {"moment": -1}, "no moment beyond the first")


def test_the_audience_gets_the_acts_between_at_the_timelines_pace(
    live: Live, log_steps: list[dict]
) -> None:
    move(live, {"to": 0})
    assert live.state(live.audience)["play"] is None  # a step-wise move plays nothing
    step = move(live, {"moment": 1})
    play = live.state(live.audience)["play"]
    between = log_steps[1 : step["index"]]
    assert [f["seq"] for f in play["frames"]] == [s["seq"] for s in between]
    span = log_steps[step["index"]]["t"] - log_steps[0]["t"]
    assert play["span_s"] == pytest.approx(span, abs=0.01)
    assert play["seconds"] <= 20
    assert [f["at"] for f in play["frames"]] == sorted(f["at"] for f in play["frames"])
    for f, s in zip(play["frames"], between, strict=True):
        assert f["at"] == pytest.approx((s["t"] - log_steps[0]["t"]) / play["speed"], abs=0.01)
    # the longest moment is played faster, in the cap, with at most 30 acts shown
    starts = moment_starts(log_steps)
    longest = max(
        pairwise(starts),
        key=lambda ab: log_steps[ab[1]]["t"] - log_steps[ab[0]]["t"],
    )
    move(live, {"to": longest[0]})
    move(live, {"moment": 1})
    play = live.state(live.audience)["play"]
    assert play["speed"] > 1 and play["seconds"] == pytest.approx(20, abs=0.01)
    assert len(play["frames"]) == min(30, longest[1] - longest[0] - 1)
    assert max(f["at"] for f in play["frames"]) <= 20

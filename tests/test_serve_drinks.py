"""Who drinks, as the audience screen lists it (飲不勝者): the state's ``drinks`` are the 罰爵
drunk so far, the losers' of rounds 2 and 3 (xiangshe:205–220), and nothing before anyone has
lost: not the feast's drinks (round 0, before and after the archery), nor the 獻 of the 獲者
and the 釋獲者, which are no losers' drinks (the engine's ``Run.drank``)."""

from __future__ import annotations

import pytest
from test_serve_helpers import Live, make_client, new_event

from sheli.serve.live import LiveOutcomes, engine_run


@pytest.fixture()
def live(tmp_path):
    with make_client(tmp_path) as c:
        yield new_event(c, feast=True)


def at(live: Live, index: int, token: str | None = None) -> dict:
    r = live.post("/api/advance", live.director, {"to": index})
    assert r.status_code == 200, r.text
    return live.state(token)


@pytest.mark.slow
def test_only_the_losers_drinks_and_only_once_drunk(live: Live) -> None:
    # a hit of the 上射 in rounds 2 and 3: each round has a count, and the 下射 lose
    for rnd in (2, 3):
        beat = {"on_beat": True} if rnd == 3 else {}
        assert live.arrow(rnd, "上耦", "上射", 1, True, **beat).status_code == 201
    ev = live.client.app.state.server.live[live.event_id]
    d = ev.derived()
    run, stopped = engine_run(ev.config, LiveOutcomes(ev.outcomes()))
    assert stopped is None and set(run.drank) == {2, 3}  # the engine's 罰爵, by round
    steps = d.steps
    first_shot = next(i for i, s in enumerate(steps) if s.round == 1)
    feast = [seq for r, _, _, seq in d.drink_seq if r == 0 and seq < steps[first_shot].seq]
    assert feast, "the feast's drinks come before the archery: the test must see them left out"

    # round 1, and round 2 up to its first 罰爵: the feast's drinks are behind, none listed
    first_penalty = min(seq for r, who, _, seq in d.drink_seq if who in run.drank.get(r, ()))
    before = max(i for i, s in enumerate(steps) if s.seq < first_penalty)
    for i in (first_shot, before):
        for token in (None, live.audience):
            assert at(live, i, token)["drinks"] == []

    # after round 2's drinking: its losers, each once, in the order they drank
    last_of_2 = max(seq for r, who, _, seq in d.drink_seq if r == 2 and who in run.drank[2])
    i2 = next(i for i, s in enumerate(steps) if s.seq >= last_of_2)
    shown = at(live, i2, live.audience)["drinks"]
    assert [(x["round"], x["who"]) for x in shown] == [(2, who) for who in run.drank[2]]

    # at the end, the feast's drinks after the archery reached too: rounds 2 and 3 only
    end = at(live, len(steps) - 1, live.audience)["drinks"]
    expected = [(r, who) for r in (2, 3) for who in run.drank[r]]
    assert [(x["round"], x["who"]) for x in end] == expected
    assert all(x["cite"].startswith("xiangshe:") for x in end)
    # each named in English for the screen in English, the text's name after it in brackets
    # (上耦下射: lower archer of the upper pair (上耦下射)), none in brackets alone
    for x in end:
        assert x["en"].endswith(f" ({x['who']})") and x["en"][0].isascii(), x

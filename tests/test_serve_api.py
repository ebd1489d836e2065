"""The JSON API of ``sheli serve``: a whole short event (三耦, three rounds), idempotent
retries, conflicts, corrections, the drum and release taps, tokens, exports.

The expected announcements are worked out by hand from the recorded arrows with the rule of
xiangshe:203 (二筭爲純, 一筭爲奇; 右賢於左 / 左賢於右 以純數告, 若有奇者亦曰奇) and the
counting rules of xiangshe:184 (不貫不釋) and xiangshe:248 (不鼓不釋).
"""

from __future__ import annotations

import json

import pytest
from loglines import log_lines
from test_serve_helpers import (
    Live,
    inputs_count,
    make_client,
    new_event,
    prime_event_runs,
    share_event_runs,
)

from sheli.engine import run
from sheli.scoring.outcomes import Outcome, RecordedOutcomes

PAIRS = ("上耦", "次耦", "下耦")
SEATS = ("上射", "下射")

# round 2: right (上射) hits 5, left (下射) hits 2 → 右賢於左一純一奇 (3 = 一純一奇)
R2_HITS = {
    ("上耦", "上射", 1),
    ("上耦", "上射", 2),
    ("上耦", "上射", 3),
    ("次耦", "上射", 1),
    ("下耦", "上射", 4),
    ("上耦", "下射", 2),
    ("下耦", "下射", 3),
}
# round 3: hits with their on_beat marks; only hits on the drum count (不鼓不釋):
# right counts 2 (one off the drum, one unmarked), left counts 3 → 左賢於右一奇
R3_HITS = {
    ("上耦", "上射", 1): True,
    ("上耦", "上射", 2): False,
    ("次耦", "上射", 3): True,
    ("下耦", "上射", 4): None,
    ("上耦", "下射", 1): True,
    ("次耦", "下射", 2): True,
    ("下耦", "下射", 3): True,
}
# round 1: every arrow of the 上耦 hits; nothing is counted in round 1 (xiangshe:150)
R1_HITS = {("上耦", s, n) for s in SEATS for n in range(1, 5)}


def outcome_of(rnd: int, pair: str, seat: str, n: int) -> tuple[bool, bool | None]:
    if rnd == 1:
        return (pair, seat, n) in R1_HITS, None
    if rnd == 2:
        return (pair, seat, n) in R2_HITS, None
    if (pair, seat, n) in R3_HITS:
        return True, R3_HITS[(pair, seat, n)]
    return False, True


#: The cast of the event of ``live``.
CAST = [{"role": "司射", "name": "王小明"}]


@pytest.fixture(scope="module")
def event_runs(once) -> None:
    prime_event_runs(once)
    prime_event_runs(once, cast=CAST)


@pytest.fixture()
def client(tmp_path, monkeypatch, once, event_runs):
    share_event_runs(monkeypatch, once)
    with make_client(tmp_path) as c:
        yield c


@pytest.fixture()
def live(client) -> Live:
    return new_event(client, cast=CAST)


def record_all(live: Live) -> None:
    for rnd in (1, 2, 3):
        for pair in PAIRS:
            for n in range(1, 5):
                for seat in SEATS:
                    hit, on_beat = outcome_of(rnd, pair, seat, n)
                    r = live.arrow(rnd, pair, seat, n, hit, on_beat=on_beat)
                    assert r.status_code == 201, r.text


def steps_of(live: Live) -> list[dict]:
    r = live.client.get("/api/export.jsonl", headers={"Authorization": f"Bearer {live.director}"})
    assert r.status_code == 200
    return [json.loads(line) for line in r.text.splitlines()]


def advance_to(live: Live, index: int) -> dict:
    r = live.post("/api/advance", live.director, {"to": index})
    assert r.status_code == 200, r.text
    assert r.json()["step"]["index"] == index
    return live.state()


@pytest.mark.slow
def test_full_short_event(live: Live) -> None:
    s0 = live.state()
    assert s0["step"]["index"] == 0 and s0["step"]["cite"] == "xiangshe:110"
    assert s0["event"]["pairs"] == 0 and s0["event"]["guests_shoot"] is False
    assert s0["shots"] == [] and s0["round"] == 0
    record_all(live)
    events = steps_of(live)
    steps = [e for e in events if e["type"] == "step"]
    tallies = {e["round"]: e for e in events if e["type"] == "tally"}
    index_of = {s["seq"]: i for i, s in enumerate(steps)}
    t2, t3 = index_of[tallies[2]["seq"]], index_of[tallies[3]["seq"]]

    # round 1 under way: shots listed, nothing counted
    first_shot = next(e for e in events if e["type"] == "shot" and e["round"] == 1)
    s = advance_to(live, index_of[first_shot["seq"]])
    assert s["round"] == 1
    assert {(x["pair"], x["seat"], x["arrow"]) for x in s["shots"]} == {
        (p, seat, n) for p in PAIRS for seat in SEATS for n in range(1, 5)
    }
    assert all(x["recorded"] for x in s["shots"])
    assert (s["tally"]["right"], s["tally"]["left"]) == (0, 0)

    # round 2, just before the count is announced: the 筭 fallen so far, no announcement
    s = advance_to(live, t2 - 1)
    assert s["round"] == 2
    assert (s["tally"]["right"], s["tally"]["left"]) == (5, 2)
    assert s["tally"]["announcement"] is None and s["announcements"] == []
    s = advance_to(live, t2)
    assert s["tally"]["announcement"] == "右賢於左一純一奇"
    assert [a["text"] for a in s["announcements"]] == ["右賢於左一純一奇"]

    # round 3: 不鼓不釋 from the on_beat marks
    s = advance_to(live, t3)
    assert s["round"] == 3
    assert (s["tally"]["right"], s["tally"]["left"]) == (2, 3)
    assert s["tally"]["announcement"] == "左賢於右一奇"
    r3 = {(x["pair"], x["seat"], x["arrow"]): x for x in s["shots"]}
    assert r3[("下耦", "上射", 4)]["hit"] is True and r3[("下耦", "上射", 4)]["counted"] is False
    assert r3[("上耦", "上射", 2)]["counted"] is False
    assert r3[("上耦", "下射", 1)]["counted"] is True

    # the end: who drank — the losing side of each round (xiangshe:211 不勝者…卒觶)
    s = advance_to(live, len(steps) - 1)
    assert s["last_step"] is True and s["stopped"] is None
    drank = {(d["round"], d["who"]) for d in s["drinks"]}
    assert {(2, f"{p}下射") for p in PAIRS} <= drank
    assert {(3, f"{p}上射") for p in PAIRS} <= drank
    assert not any(r == 2 and who.endswith("上射") for r, who in drank)
    # the audience sees the same count and words
    a = live.state(live.audience)
    assert a["role"] == "audience" and a["announcements"] == s["announcements"]


@pytest.mark.slow
def test_a_round_without_a_hit_is_announced_and_passed(live: Live) -> None:
    """Every arrow of round 2 recorded as a miss: the 釋獲者 announces 左右鈞 holding one 筭
    of each side (xiangshe:204 若左右鈞則左右皆執一算以告曰左右鈞), nobody drinks for the
    round (docs/scoring.md, the assumption on 鈞), and the director goes on past the count to
    the end of the rite."""
    for pair in PAIRS:
        for n in range(1, 5):
            for seat in SEATS:
                assert live.arrow(2, pair, seat, n, False).status_code == 201
    events = steps_of(live)
    steps = [e for e in events if e["type"] == "step"]
    index_of = {s["seq"]: i for i, s in enumerate(steps)}
    tally = next(e for e in events if e["type"] == "tally" and e["round"] == 2)
    assert (tally["right"], tally["left"], tally["announcement"]) == (0, 0, "左右鈞")

    s = advance_to(live, index_of[tally["seq"]])
    assert s["stopped"] is None and s["round"] == 2
    assert s["tally"]["announcement"] == "左右鈞" and s["tally"]["winner"] == "tie"
    (announced,) = s["announcements"]
    assert announced["text"] == "左右鈞" and announced["en"] == "Left and right are equal (左右鈞)."
    # the steps after the count are the rite's, not the end of what could be derived
    s = advance_to(live, index_of[tally["seq"]] + 1)
    assert s["last_step"] is False and s["stopped"] is None
    s = advance_to(live, len(steps) - 1)
    assert s["last_step"] is True and s["stopped"] is None
    assert not [d for d in s["drinks"] if d["round"] == 2]


@pytest.mark.slow
def test_export_is_the_run_log_with_times(live: Live, tmp_path) -> None:
    """The export is `sheli run`'s log for the recorded outcomes, plus performed_at, pending …"""
    record_all(live)
    live.post("/api/advance", live.director, {"delta": 1})
    live.post("/api/advance", live.director, {"delta": 1})
    exported = steps_of(live)
    outcomes = RecordedOutcomes(
        Outcome(r, p, s, n, *outcome_of(r, p, s, n))
        for r in (1, 2, 3)
        for p in PAIRS
        for s in SEATS
        for n in range(1, 5)
    )
    expected = log_lines(
        run("xiangshe", pairs=0, guests=False, outcomes=outcomes, options={"feast": False})
    )
    added = {"performed_at", "pending", "corrections", "live", "name"}
    strip = [{k: v for k, v in e.items() if k not in added} for e in exported]
    scene = dict(expected[0])
    scene["cast"] = [{k: v for k, v in c.items() if k != "name"} for c in scene["cast"]]
    strip[0]["cast"] = [{k: v for k, v in c.items() if k != "name"} for c in strip[0]["cast"]]
    assert strip[0] == scene
    # names: the spec's (司馬 is the 司正) and the cast's are both added fields
    assert strip[1:] == [{k: v for k, v in e.items() if k != "name"} for e in expected[1:]]
    steps = [e for e in exported if e["type"] == "step"]
    assert [("performed_at" in s) for s in steps[:4]] == [True, True, True, False]
    assert steps[0]["performed_at"] <= steps[1]["performed_at"] <= steps[2]["performed_at"]
    assert next(s for s in steps if s["actor"] == "司射")["name"] == "王小明"
    shots = [e for e in exported if e["type"] == "shot" and e["pair"] != "誘射"]
    assert shots and all("performed_at" in e and not e.get("pending") for e in shots)
    assert exported[0]["live"]["event_id"] == live.event_id
    # the outcomes file: `sheli run`/`sheli render --outcomes` give the same event again
    from sheli.scoring import load_outcomes

    r = live.client.get("/api/outcomes.csv", headers={"Authorization": f"Bearer {live.director}"})
    assert r.status_code == 200
    assert r.text.startswith(
        "# sheli render xiangshe --venue xie --pairs 0 --no-guests --option feast=false"
    )
    path = tmp_path / "outcomes.csv"
    path.write_text(r.text, "utf-8")
    again = log_lines(
        run(
            "xiangshe",
            pairs=0,
            guests=False,
            outcomes=load_outcomes(path),
            options={"feast": False},
        )
    )
    assert again == expected


@pytest.mark.slow
def test_unrecorded_arrows_are_pending_misses(live: Live, tmp_path) -> None:
    r = live.arrow(2, "上耦", "上射", 1, True)
    assert r.status_code == 201
    exported = steps_of(live)
    shots = {
        (e["round"], e["pair"], e["archer"], e["arrow"]): e
        for e in exported
        if e["type"] == "shot" and e["pair"] != "誘射"
    }
    assert shots[(2, "上耦", "上射", 1)]["hit"] is True
    assert "pending" not in shots[(2, "上耦", "上射", 1)]
    other = shots[(2, "上耦", "下射", 1)]
    assert other["pending"] is True and other["hit"] is False
    # in the outcomes file a pending arrow is a miss, said so in a comment
    from sheli.scoring import load_outcomes

    text = live.client.get(
        "/api/outcomes.csv", headers={"Authorization": f"Bearer {live.director}"}
    ).text
    assert "# not recorded (a miss): round 2 上耦下射 arrow 1" in text
    path = tmp_path / "o.csv"
    path.write_text(text, "utf-8")
    rec = load_outcomes(path)
    assert rec.outcome(2, "上耦", "上射", 1) == (True, None)
    assert rec.outcome(2, "上耦", "下射", 1) == (False, None)
    assert len(rec) == 3 * 2 * 4 * 3


@pytest.mark.slow
def test_idempotent_retry(live: Live, client) -> None:
    body = {"round": 2, "pair": "次耦", "seat": "下射", "arrow": 1, "hit": True}
    tok = live.scorer("下射")
    first = live.post("/api/arrows", tok, body, key="retry-1")
    assert first.status_code == 201
    n = inputs_count(client)
    version = live.state()["version"]
    again = live.post("/api/arrows", tok, body, key="retry-1")
    assert again.status_code == 200 and again.json() == first.json()
    assert inputs_count(client) == n and live.state()["version"] == version
    # the same key for another request is refused, not applied
    other = live.post("/api/arrows", tok, {**body, "arrow": 2}, key="retry-1")
    assert other.status_code == 409 and "already used" in other.json()["error"]
    assert inputs_count(client) == n
    # an advance retried does not move twice
    a1 = live.post("/api/advance", live.director, {"delta": 1}, key="adv-1")
    a2 = live.post("/api/advance", live.director, {"delta": 1}, key="adv-1")
    assert a1.json() == a2.json() and live.state()["step"]["index"] == 1


@pytest.mark.slow
def test_conflict_and_correction(live: Live, client) -> None:
    tok = live.scorer("上射")
    body = {"round": 2, "pair": "上耦", "seat": "上射", "arrow": 3, "hit": True}
    assert live.post("/api/arrows", tok, body, key="a").status_code == 201
    both = client.post(  # a second scorer (a 'both' link) enters the same arrow
        "/api/tokens/new",
        json={"role": "scorer", "seat": "both", "key": "t1"},
        headers=live.headers(live.director),
    )
    assert both.status_code == 201
    tok2 = Live.token(both.json()["link"])
    n = inputs_count(client)
    r = live.post("/api/arrows", tok2, {**body, "hit": False}, key="b")
    assert r.status_code == 409
    assert r.json()["existing"]["hit"] is True and "correct" in r.json()["error"]
    assert inputs_count(client) == n
    s = live.state()
    assert s["version"] == n
    # a correction is a new, logged input
    c = live.post("/api/arrows/correct", tok, {**body, "hit": False, "reason": "mis-tapped"})
    assert c.status_code == 201
    assert c.json()["arrow"]["was"]["hit"] is True and c.json()["arrow"]["hit"] is False
    assert inputs_count(client) == n + 1
    shots = [e for e in steps_of(live) if e["type"] == "shot" and e["round"] == 2]
    mine = next(e for e in shots if (e["pair"], e["archer"], e["arrow"]) == ("上耦", "上射", 3))
    assert mine["hit"] is False and mine["corrections"] == 1
    # a correction needs a reason, and something to correct
    assert live.post("/api/arrows/correct", tok, {**body, "hit": True}).status_code == 400
    other = {**body, "arrow": 4, "reason": "x"}
    assert live.post("/api/arrows/correct", tok, other).status_code == 409


@pytest.mark.slow
def test_drum_and_taps(live: Live) -> None:
    sc = live.scorer("上射")
    tap = {"round": 3, "pair": "上耦", "seat": "上射", "arrow": 1}
    assert live.post("/api/taps", sc, {**tap, "t_ms": 1}).status_code == 409  # no drum yet
    d = live.post("/api/drum", live.director, {"interval_ms": 1000, "running": True})
    assert d.status_code == 200
    t0 = d.json()["drum"]["t0_ms"]
    assert live.state()["drum"] == {"interval_ms": 1000, "t0_ms": t0, "running": True}
    on = live.post("/api/taps", sc, {**tap, "t_ms": t0 + 5000 + 40})
    assert on.status_code == 201 and on.json()["tap"]["on_beat"] is True
    assert on.json()["tap"]["offset_ms"] == 40
    off = live.post("/api/taps", sc, {**tap, "arrow": 2, "t_ms": t0 + 5000 + 450})
    assert off.json()["tap"]["on_beat"] is False
    # hits recorded without a mark take the tap's judgment: only arrow 1 counts
    for n in (1, 2):
        assert live.arrow(3, "上耦", "上射", n, True).status_code == 201
    # (a round without a hit stops the engine at its count, xiangshe:204: give round 2 one)
    assert live.arrow(2, "上耦", "上射", 1, True).status_code == 201
    shots = [e for e in steps_of(live) if e["type"] == "shot" and e["round"] == 3]
    by = {(e["pair"], e["archer"], e["arrow"]): e for e in shots}
    assert by[("上耦", "上射", 1)]["counted"] is True
    assert by[("上耦", "上射", 2)]["counted"] is False
    assert (
        live.post("/api/drum", live.director, {"interval_ms": 10, "running": True}).status_code
        == 400
    )
    stop = live.post("/api/drum", live.director, {"interval_ms": 1000, "running": False})
    assert stop.json()["drum"]["t0_ms"] is None


def test_tokens_new_list_revoke(live: Live, client) -> None:
    r = client.get("/api/tokens", headers={"Authorization": f"Bearer {live.director}"})
    assert r.status_code == 200
    rows = r.json()["tokens"]
    assert {t["role"] for t in rows} == {"director", "audience", "scorer", "performer"}
    assert all("link" not in t and "hash" not in t for t in rows)
    aud = next(t for t in rows if t["role"] == "audience")
    rv = live.post("/api/tokens/revoke", live.director, {"token_id": aud["token_id"]})
    assert rv.status_code == 200 and rv.json()["token"]["revoked"] is True
    gone = client.get("/api/state", headers={"Authorization": f"Bearer {live.audience}"})
    assert gone.status_code == 403
    assert client.get(live.links["audience"]).status_code == 404
    new = live.post("/api/tokens/new", live.director, {"role": "audience"})
    assert new.status_code == 201
    assert live.state(Live.token(new.json()["link"]))["role"] == "audience"
    # the last director link cannot be revoked (the event would have no director)
    me = next(t for t in rows if t["role"] == "director")
    assert (
        live.post("/api/tokens/revoke", live.director, {"token_id": me["token_id"]}).status_code
        == 409
    )


@pytest.mark.slow
def test_views_and_outputs(live: Live, client) -> None:
    perf = live.state(live.performer("司射"))
    assert perf["role"] == "performer" and perf["performer_role"] == "司射"
    assert perf["cues"] and all(c["actor"] == "司射" or c["addressed"] for c in perf["cues"])
    sc = live.state(live.scorer("下射"))
    assert sc["seat"] == "下射" and sc["cues"] == []
    s = live.state()
    assert s["passage"]["cite"] == s["step"]["cite"] and s["passage"]["text"]
    assert len(s["next"]) == 5 and s["next"][0]["seq"] > s["step"]["seq"]
    assert s["timing"]["estimated_total_s"] > 0 and s["timing"]["elapsed_s"] == 0
    svg = client.get(
        f"/api/diagram/{s['step']['seq']}.svg", headers={"Authorization": f"Bearer {live.audience}"}
    )
    assert svg.status_code == 200 and svg.text.startswith("<svg")
    # the audience screen asks for the range when an arrow flies; another view is refused
    auth = {"Authorization": f"Bearer {live.audience}"}
    seq = s["step"]["seq"]
    rng = client.get(f"/api/diagram/{seq}.svg?view=range", headers=auth)
    assert rng.status_code == 200 and 'data-view="range"' in rng.text
    assert client.get(f"/api/diagram/{seq}.svg?view=near", headers=auth).status_code == 400
    assert (
        client.get(
            "/api/diagram/999999.svg", headers={"Authorization": f"Bearer {live.audience}"}
        ).status_code
        == 404
    )
    csv_text = client.get(
        "/api/results.csv", headers={"Authorization": f"Bearer {live.director}"}
    ).text
    assert csv_text.splitlines()[0].startswith("round,pair,seat,archer,name,arrow,hit")
    assert len(csv_text.splitlines()) == 1 + 3 * 2 * 4 * 3
    pack = client.get(live.links["director"] + "/pack")
    assert pack.status_code == 200 and "run-of-show" in pack.text and "王小明" in pack.text
    assert client.get(live.links["audience"] + "/pack").status_code == 403
    for role in ("director", "audience"):
        page = client.get(live.links[role])
        assert page.status_code == 200 and page.headers["referrer-policy"] == "no-referrer"


@pytest.mark.slow
def test_runs_computed_ahead_are_the_runs_needed() -> None:
    """The run computed ahead for the likely next hit is used when that hit is recorded, and
    is the run the engine gives for those outcomes; an unlikely input is computed afresh."""
    from sheli.serve.live import LiveEvent, compute_derived

    config = {"id": "e", "created_ms": 0, "rite": "xiangshe", "venue": "xie", "pairs": 0}
    config |= {"guests_shoot": False, "dafu": 1, "cast": [], "options": {"feast": False}}
    ev = LiveEvent(config)
    seq = iter(range(1, 100))

    def record(k, hit, on_beat=None):
        body = {"round": k[0], "pair": k[1], "seat": k[2], "arrow": k[3], "hit": hit}
        ev.apply(
            {"kind": "arrow", "body": body | {"on_beat": on_beat}, "t_ms": 0, "seq": next(seq)}
        )

    record((2, "上耦", "上射", 1), True)
    ev.derived()
    likely = dict(ev.next_arrows())
    # after 上耦上射's first arrow of round 2: the 上射's next is his second, the 下射's his first
    assert set(likely) == {(2, "上耦", "上射", 2), (2, "上耦", "下射", 1)}
    jobs = ev.speculation_jobs()
    # only the likeliest is computed ahead: the partner's arrow (拾發, they shoot in turn)
    assert [o[(2, "上耦", "下射", 1)] for _, o in jobs] == [(True, None)]
    for key, outcomes in jobs:
        ev.store_ahead(key, compute_derived(ev.config, ev.factor, ev.names, outcomes))
    ahead = dict(ev.ahead_runs)
    record((2, "上耦", "下射", 1), True)
    d = ev.derived()
    assert d is ahead[ev.run_key(ev.outcomes())]
    fresh = ev.compute(ev.outcomes())
    assert d.steps == fresh.steps and d.run.tallies == fresh.run.tallies
    record((2, "次耦", "下射", 4), True)  # not foreseen: run now
    assert ev.derived() is not ahead.get(ev.run_key(ev.outcomes()))


@pytest.mark.slow
def test_before_the_first_arrow_each_round_first_arrow_is_foreseen() -> None:
    """With nothing recorded, the runs computed ahead are the first arrow of each round as a
    hit (scorers may leave the first round, 不釋獲, unrecorded), and they are kept when the
    event's first run is made meanwhile, then used by whichever round begins."""
    from sheli.serve.live import LiveEvent, compute_derived

    config = {"id": "e", "created_ms": 0, "rite": "xiangshe", "venue": "xie", "pairs": 0}
    config |= {"guests_shoot": False, "dafu": 1, "cast": [], "options": {"feast": False}}
    ev = LiveEvent(config)
    jobs = ev.speculation_jobs()
    firsts = [next(iter(o)) for _, o in jobs]
    assert [k[0] for k in firsts] == [1, 2, 3]
    assert all(k[1] == "上耦" and k[2] == "上射" and k[3] == 1 for k in firsts)
    assert [o[k] for (_, o), k in zip(jobs, firsts, strict=True)][2] == (True, True)
    for key, outcomes in jobs:
        ev.store_ahead(key, compute_derived(ev.config, ev.factor, ev.names, outcomes))
    ev.derived()  # the first run, made after the runs ahead were stored
    assert len(ev.ahead_runs) == 3
    ahead = ev.ahead_runs[jobs[1][0]]
    body = {"round": 2, "pair": "上耦", "seat": "上射", "arrow": 1, "hit": True, "on_beat": None}
    ev.apply({"kind": "arrow", "body": body, "t_ms": 0, "seq": 1})
    assert ev.derived() is ahead
    assert not ev.ahead_runs  # the other rounds' firsts no longer hold what was recorded


def test_timing_elapsed_late_remaining() -> None:
    """Elapsed time runs from the first advance; late = arrival behind the estimate plus the
    current step's overrun; remaining = the rest of this step and all after it."""
    from sheli.serve.live import LiveEvent

    config = {"id": "e", "created_ms": 0, "rite": "xiangshe", "venue": "xie", "pairs": 0}
    ev = LiveEvent(
        config | {"guests_shoot": False, "dafu": 1, "cast": [], "options": {"feast": False}}
    )
    d = ev.derived()
    est = d.estimate
    t0 = 1_000_000

    def advance(index: int, t: int) -> None:
        body = {"index": index, "anchor": list(d.anchors[index])}
        body["from_anchor"] = list(d.anchors[ev.current(d)])
        ev.apply({"kind": "advance", "body": body, "t_ms": t, "seq": 0})

    s = ev.state(now=t0)
    assert s["timing"]["elapsed_s"] == 0 and s["event"]["started_at"] is None
    advance(0, t0)  # the clock starts on the first step
    planned_3 = est.elapsed_before(3)
    arrive = t0 + round(planned_3 * 1000) + 60_000  # a minute behind the estimate
    advance(3, arrive)
    s = ev.state(now=arrive + 1000)
    assert s["step"]["index"] == 3
    assert s["timing"]["elapsed_s"] == round(planned_3 + 61, 1)
    overrun = max(0.0, 1 - est.seconds[3])
    assert s["timing"]["late_s"] == round(60 + overrun, 1)
    # with no hit recorded the rite still runs to its end (a round without a hit is 左右鈞,
    # xiangshe:204, A-jun-ling): the rest is this run's own estimate
    assert d.stopped is None
    left = est.remaining_from(4) + max(0.0, est.seconds[3] - 1)
    assert s["timing"]["estimated_remaining_s"] == round(left, 1)
    assert s["timing"]["estimated_total_s"] == round(est.total, 1)


def test_keepalive_reaches_every_stream(tmp_path) -> None:
    import asyncio

    from sheli.serve.server import Server
    from sheli.serve.streams import KEEPALIVE, Subscriber

    srv = Server(tmp_path / "db.sqlite3", keepalive_s=0.01)

    async def go() -> list[bytes | None]:
        subs = [Subscriber({"id": i}) for i in range(3)]
        srv.subs["e"] = set(subs)
        timer = asyncio.create_task(srv.keepalive())
        await asyncio.sleep(0.05)
        timer.cancel()
        return [await s.next() for s in subs]

    # in a thread of its own: Playwright's sync API (the browser tests of the same session)
    # may leave an event loop running in this one
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        got = pool.submit(asyncio.run, go()).result()
    assert got == [KEEPALIVE] * 3


@pytest.mark.slow
def test_floor_size_scales_the_metres(client) -> None:
    """hou_dao_m: the 侯道 of 300 尺 (xiangshe:374) is that many metres on this floor."""
    full = new_event(client)
    half = new_event(client, hou_dao_m=34.65)
    a, b = full.state()["step"], half.state()["step"]
    assert (a["x"], a["y"]) == (b["x"], b["y"])  # the log stays in 尺
    assert a["x_m"] == round(a["x"] * 0.231, 2)
    assert b["x_m"] == round(a["x"] * 0.231 * 0.5, 2) and b["y_m"] == round(a["y"] * 0.1155, 2)
    assert half.state()["timing"]["estimated_total_s"] < full.state()["timing"]["estimated_total_s"]

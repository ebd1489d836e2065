"""The live app's 侯 and 五物: where an arrow struck (the scorer's tap), the audience's marks,
the director's questions and the audience's answers (docs/serve.md)."""

from __future__ import annotations

import sqlite3

import pytest
from test_serve_helpers import (
    Live,
    inputs_count,
    make_client,
    new_event,
    prime_event_runs,
    share_event_runs,
)

from sheli.serve.limits import RateLimit
from sheli.serve.store import SCHEMA_1, SCHEMA_2, SCHEMA_VERSION, Store
from sheli.serve.views.wuwu import VOTER_COOKIE

ARROW = {"round": 2, "pair": "上耦", "seat": "上射", "arrow": 1}


@pytest.fixture(scope="module")
def event_runs(once) -> None:
    prime_event_runs(once)


@pytest.fixture()
def client(tmp_path, monkeypatch, once, event_runs):
    share_event_runs(monkeypatch, once)
    with make_client(tmp_path) as c:
        yield c


@pytest.fixture()
def live(client) -> Live:
    return new_event(client)


def refused(live: Live, r, status: int, words: str) -> None:
    assert r.status_code == status, r.text
    assert words in r.json()["error"], r.json()
    assert inputs_count(live.client) == live.before  # type: ignore[attr-defined]


def step_of(live: Live, rnd: int, actor: str, last: bool = False) -> int:
    """The index of the archer's first (or last) act in a round, from the live app's run."""
    ev = live.client.app.state.server.event(live.event_id)
    steps = ev.derived().steps
    found = [i for i, s in enumerate(steps) if s.round == rnd and s.actor == actor]
    return found[-1] if last else found[0]


def go(live: Live, index: int) -> None:
    r = live.post("/api/advance", live.director, {"to": index})
    assert r.status_code == 200, r.text


# ---------------------------------------------------------------- where the arrow struck


def test_an_arrow_keeps_where_it_struck_and_the_audience_sees_it(live: Live) -> None:
    r = live.arrow(2, "上耦", "上射", 1, True, x=1.25, y=-0.5, through=True)
    assert r.status_code == 201, r.text
    assert r.json()["arrow"].items() >= {"x": 1.25, "y": -0.5, "through": True}.items()
    r = live.arrow(2, "上耦", "下射", 1, False, x=18.0, y=8.0)
    assert r.status_code == 201, r.text
    go(live, step_of(live, 2, "上耦上射", last=True) + 1)
    shots = {(s["seat"], s["arrow"]): s for s in live.state()["shots"] if s["pair"] == "上耦"}
    assert shots[("上射", 1)]["x"] == 1.25 and shots[("上射", 1)]["through"] is True
    assert shots[("上射", 1)]["hou"] == "采侯"
    marks = live.state(live.audience)["marks"]
    assert [(m["seat"], m["x"], m["y"], m["through"], m["hit"]) for m in marks] == [
        ("上射", 1.25, -0.5, True, True),
        ("下射", 18.0, 8.0, False, False),
    ]
    # a correction moves the mark, and says what it replaced
    body = {**ARROW, "hit": True, "x": 0.0, "y": 0.0, "reason": "the 獲者 pointed to the 正"}
    r = live.post("/api/arrows/correct", live.scorer("上射"), body)
    assert r.status_code == 201, r.text
    assert r.json()["arrow"]["was"]["x"] == 1.25
    marks = live.state(live.audience)["marks"]
    assert (marks[0]["x"], marks[0]["y"], marks[0]["through"]) == (0.0, 0.0, False)
    # the export's shot lines and the results stay as they were: the engine counts hits
    assert live.state()["shots"][0]["counted"] in (True, False)


def test_the_fields_of_an_arrow_are_checked(live: Live) -> None:
    live.before = inputs_count(live.client)  # type: ignore[attr-defined]
    sc = live.scorer("上射")
    bad = [
        ({"hit": True, "x": 1.0}, "x and y go together"),
        ({"hit": True, "x": 1.0, "y": 500}, "within ±100"),
        ({"hit": True, "x": "1", "y": 0}, "x must be a number"),
        ({"hit": True, "struck": "人"}, "hit is false"),
        ({"hit": False, "struck": "馬"}, "struck must be empty or one of"),
        ({"hit": False, "through": True}, "hit is true"),
        ({"hit": False, "struck": "人", "x": 1, "y": 1}, "no place on the face"),
        ({"hit": True, "flight": "高"}, "flight must be"),
        ({"hit": True, "through": "yes"}, "through must be true or false"),
    ]
    for extra, words in bad:
        refused(live, live.post("/api/arrows", sc, {**ARROW, **extra}), 400, words)
    r = live.arrow(2, "上耦", "上射", 1, False, struck="人")
    assert r.status_code == 201 and r.json()["arrow"]["struck"] == "人"


def test_the_hou_is_drawn_to_scale(live: Live) -> None:
    r = live.client.get(f"/api/hou.svg?token={live.scorer('上射')}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert 'data-part="中" data-chi="10"' in r.text and "采侯" in r.text
    assert live.client.get("/api/hou.svg").status_code == 401


# ---------------------------------------------------------------- the 五物


def test_only_the_director_asks_and_in_yi_s_order(live: Live) -> None:
    live.before = inputs_count(live.client)  # type: ignore[attr-defined]
    ask = {"action": "open", "item": "和", "archer": "上耦上射"}
    for tok in (live.scorer("上射"), live.audience, live.performer("司射")):
        refused(live, live.post("/api/questions", tok, ask), 403, "cannot do this")
    d = live.director
    refused(live, live.post("/api/questions", d, {**ask, "item": "主皮"}), 400, "主皮")
    refused(live, live.post("/api/questions", d, {**ask, "archer": "某"}), 400, "archer")
    refused(live, live.post("/api/questions", d, {"action": "close"}), 409, "no question")
    go(live, step_of(live, 2, "上耦上射"))
    live.before = inputs_count(live.client)  # type: ignore[attr-defined]
    # 和容 is seen while he shoots, 興舞 after: not before his first arrow of the round
    for item in ("和容", "興舞"):
        r = live.post("/api/questions", live.director, {**ask, "item": item})
        refused(live, r, 409, "易氏's order")
    r = live.post("/api/questions", live.director, ask)
    assert r.status_code == 200, r.text
    assert r.json()["question"].items() >= {"id": 1, "item": "和", "moment": "before"}.items()
    r = live.post("/api/questions", live.director, {**ask, "item": "容"})
    assert r.status_code == 409 and "close it first" in r.json()["error"]
    assert live.post("/api/questions", live.director, {"action": "close"}).status_code == 200
    go(live, step_of(live, 2, "上耦上射", last=True) + 1)
    assert live.state()["wuwu"]["archers"][0]["moment"] in ("while", "after")


def vote(live: Live, question: int, answer: bool, screen: str | None = None):
    if screen is not None:
        live.client.cookies.set(VOTER_COOKIE, screen)
    return live.post("/api/votes", live.audience, {"question": question, "answer": answer})


@pytest.mark.slow
def test_one_voice_per_screen_and_the_director_sees_the_totals(live: Live) -> None:
    go(live, step_of(live, 2, "上耦上射"))
    ask = {"action": "open", "item": "和", "archer": "上耦上射"}
    assert live.post("/api/questions", live.director, ask).status_code == 200
    q = live.state(live.audience)["question"]
    assert (q["id"], q["item"], q["archer"], q["answers"]) == (1, "和", "上耦上射", ["是", "否"])
    assert "wuwu" not in live.state(live.audience)  # the totals are the director's
    before = inputs_count(live.client)
    live.csrf(live.audience)  # the audience page gives this screen its voice
    assert live.client.cookies.get(VOTER_COOKIE)
    assert vote(live, 1, True).status_code == 201
    again = vote(live, 1, False)  # the same screen: its first answer stands
    assert again.status_code == 200 and again.json() == {
        "vote": {"question": 1, "answer": True},
        "already": True,
    }
    assert vote(live, 1, False, screen="b" * 24).status_code == 201
    assert vote(live, 1, True, screen="c" * 24).status_code == 201
    assert inputs_count(live.client) == before  # answers are not inputs of the rite
    r = live.post("/api/votes", live.director, {"question": 1, "answer": True})
    assert r.status_code == 403
    live.client.cookies.delete(VOTER_COOKIE)
    r = live.post("/api/votes", live.audience, {"question": 1, "answer": True})
    assert r.status_code == 400 and "open the audience page" in r.json()["error"]
    assert vote(live, 2, True, screen="d" * 24).status_code == 409
    assert live.post("/api/questions", live.director, {"action": "close"}).status_code == 200
    assert vote(live, 1, True, screen="e" * 24).status_code == 409  # closed
    live.arrow(2, "上耦", "上射", 1, True)
    live.arrow(2, "上耦", "上射", 2, False)
    w = live.state()["wuwu"]
    assert [i["name"] for i in w["items"]] == ["和", "容", "主皮", "和容", "興舞"]
    first = next(a for a in w["archers"] if a["archer"] == "上耦上射")
    assert first["asked"]["和"]["yes"] == 2 and first["asked"]["和"]["no"] == 1
    assert first["主皮"] == {"hits": 1, "recorded": 2, "arrows": 12}
    # a restart replays the questions and recounts the answers from the store
    srv = live.client.app.state.server
    srv.live.clear()
    again = next(a for a in live.state()["wuwu"]["archers"] if a["archer"] == "上耦上射")
    assert again["asked"] == first["asked"]


def test_answers_are_rate_limited(live: Live) -> None:
    go(live, step_of(live, 2, "上耦上射"))
    ask = {"action": "open", "item": "容", "archer": "上耦下射"}
    assert live.post("/api/questions", live.director, ask).status_code == 200
    live.client.app.state.server.voting = RateLimit(burst=1, every_s=100.0)
    assert vote(live, 1, True, screen="a" * 24).status_code == 201
    r = vote(live, 1, True, screen="b" * 24)
    assert r.status_code == 429 and "Retry-After" in r.headers


# ---------------------------------------------------------------- the schema


@pytest.mark.parametrize("version", [1, 2])
def test_every_earlier_schema_is_migrated(tmp_path, version: int) -> None:
    path = tmp_path / f"v{version}.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_1)
    if version == 2:
        db.executescript(SCHEMA_2)
        db.execute("PRAGMA application_id=1936223337")
        db.execute("PRAGMA user_version=2")
    db.execute("INSERT INTO meta VALUES ('secret', ?)", ("ab" * 32,))
    db.execute("INSERT INTO events VALUES ('e1', 0, '{\"rite\": \"xiangshe\"}')")
    db.commit()
    db.close()
    s = Store(path)
    assert s.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    assert s.vote("e1", 1, "screen", True) and not s.vote("e1", 1, "screen", False)
    assert s.votes("e1") == [(1, "screen", True)]
    s.close()


@pytest.mark.slow
def test_the_exports_carry_where_the_arrows_struck(live: Live, tmp_path) -> None:
    from sheli.scoring.outcomes import load_outcomes

    assert live.arrow(2, "上耦", "上射", 1, True, x=2.0, y=-1.5, through=True).status_code == 201
    assert live.arrow(2, "上耦", "下射", 1, False, struck="人").status_code == 201
    get = {"Authorization": f"Bearer {live.director}"}
    text = live.client.get("/api/outcomes.csv", headers=get).text
    assert "round,pair,archer,arrow,hit,on_beat,x,y,through,struck" in text
    path = tmp_path / "o.csv"
    path.write_text(text, "utf-8")
    rec = load_outcomes(path)  # the file `sheli run --outcomes` reads
    o = rec.detail(2, "上耦", "上射", 1)
    assert (o.x, o.y, o.through) == (2.0, -1.5, True)
    assert rec.detail(2, "上耦", "下射", 1).struck == "人"
    rows = live.client.get("/api/results.csv", headers=get).text.splitlines()
    assert rows[0].endswith(",x,y,through,loosed_s,struck,flight")
    lines = [ln for ln in live.client.get("/api/export.jsonl", headers=get).text.splitlines()]
    assert any('"x":2.0' in ln and '"through":true' in ln for ln in lines)


@pytest.mark.slow
def test_an_arrow_that_struck_a_person_is_punished_in_the_live_run(live: Live) -> None:
    ev = live.client.app.state.server.event(live.event_id)
    assert not any(s.verb == "撻" for s in ev.derived().steps)
    assert live.arrow(2, "上耦", "下射", 1, False, struck="人").status_code == 201
    ta = [s for s in ev.derived().steps if s.verb == "撻"]
    assert ta and ta[0].cite == "xiangshe:350"
    # the export and `sheli run` with the outcomes file agree on it
    get = {"Authorization": f"Bearer {live.director}"}
    assert '"verb":"撻"' in live.client.get("/api/export.jsonl", headers=get).text


@pytest.mark.slow
def test_the_five_she_and_the_votes_file(live: Live, tmp_path) -> None:
    from sheli.scoring.five import load_votes, tally_wuwu

    # 上耦上射: four arrows at the corners of a square, pierced; the second went through
    corners = [(-1.0, 1.0), (1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)]
    for n, (x, y) in enumerate(corners, 1):
        r = live.arrow(2, "上耦", "上射", n, True, x=x, y=y, through=n == 2)
        assert r.status_code == 201, r.text
    go(live, step_of(live, 2, "上耦下射"))
    ask = {"action": "open", "item": "和", "archer": "上耦下射"}
    assert live.post("/api/questions", live.director, ask).status_code == 200
    assert vote(live, 1, True, screen="a" * 24).status_code == 201
    assert vote(live, 1, False, screen="b" * 24).status_code == 201
    get = {"Authorization": f"Bearer {live.director}"}
    five = live.client.get("/api/five.json", headers=get).json()
    mine = {v["name"]: v for v in five["五射"] if (v["pair"], v["archer"]) == ("上耦", "上射")}
    assert mine["井儀"]["kept"] is True and mine["白矢"]["kept"] is True
    assert all(v["source"] for v in five["五射"])
    wuwu = {(r["archer"], r["name"]): (r["yes"], r["of"]) for r in five["五物"]}
    assert wuwu[("下射", "和")] == (1, 2) and wuwu[("上射", "主皮")] == (4, 4)
    # the votes file reads back in `sheli score --votes` to the same totals
    path = tmp_path / "votes.csv"
    path.write_text(live.client.get("/api/votes.csv", headers=get).text, "utf-8")
    again = tally_wuwu(load_votes(path))
    assert [(r.archer, r.name, r.yes, r.of) for r in again if r.of] == [("下射", "和", 1, 2)]
    assert (
        live.client.get(
            "/api/five.json", headers={"Authorization": f"Bearer {live.audience}"}
        ).status_code
        == 403
    )
    sheet = live.client.get(live.links["director"] + "/results").text
    assert "五射" in sheet and "井儀" in sheet and "五物" in sheet

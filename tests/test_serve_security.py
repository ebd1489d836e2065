"""Every refusal of ``sheli serve``: a clear 4xx ``{"error": …}`` and nothing
changed (the input log and the state's version are as before)."""

from __future__ import annotations

import json

import pytest
from test_serve_helpers import (
    Live,
    home_csrf,
    inputs_count,
    make_client,
    new_event,
    prime_event_runs,
    share_event_runs,
)

ARROW = {"round": 2, "pair": "上耦", "seat": "上射", "arrow": 1, "hit": True}


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
    """The response is the refusal expected, and nothing was appended."""
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) >= {"error"} and words in body["error"], body
    assert inputs_count(live.client) == live.before
    assert live.state()["version"] == live.before


@pytest.fixture()
def counted(live: Live) -> Live:
    live.before = inputs_count(live.client)  # type: ignore[attr-defined]
    return live


def test_wrong_role(counted: Live) -> None:
    live = counted
    sc = live.scorer("上射")
    refused(live, live.post("/api/advance", sc, {"delta": 1}), 403, "scorer link cannot")
    refused(live, live.post("/api/arrows", live.director, ARROW), 403, "director link cannot")
    refused(live, live.post("/api/arrows", live.audience, ARROW), 403, "audience")
    perf = live.performer("司射")
    refused(live, live.post("/api/arrows", perf, ARROW), 403, "performer")
    body = {"interval_ms": 1000, "running": True}
    refused(live, live.post("/api/drum", sc, body), 403, "scorer")
    refused(live, live.post("/api/tokens/new", sc, {"role": "director"}), 403, "scorer")
    refused(live, live.post("/api/tokens/revoke", live.audience, {"token_id": 1}), 403, "audience")
    # a scorer of the 上射's 物 cannot record the 下射's arrows
    refused(live, live.post("/api/arrows", sc, {**ARROW, "seat": "下射"}), 403, "上射 only")
    tap = {**ARROW, "seat": "下射", "t_ms": 5}
    refused(live, live.post("/api/taps", sc, tap), 403, "上射 only")
    for path in ("/api/tokens", "/api/export.jsonl", "/api/results.csv"):
        r = live.client.get(path, headers={"Authorization": f"Bearer {live.audience}"})
        assert r.status_code == 403, path
    assert live.client.get(live.links["scorers"]["上射"] + "/pack").status_code == 403


@pytest.mark.slow
def test_missing_unknown_and_revoked_tokens(counted: Live) -> None:
    live = counted
    c = live.client
    r = c.get("/api/state")
    assert r.status_code == 401 and "missing token" in r.json()["error"]
    r = c.get("/api/state", headers={"Authorization": "Bearer not-a-token"})
    assert r.status_code == 401 and "unknown token" in r.json()["error"]
    # ?token= is accepted for GET (EventSource) but never for a POST
    assert c.get(f"/api/state?token={live.audience}").status_code == 200
    r = c.post(
        f"/api/arrows?token={live.scorer('上射')}",
        json={**ARROW, "key": "q"},
        headers={"X-CSRF-Token": live.csrf(live.scorer("上射"))},
    )
    refused(live, r, 401, "missing token")
    # revoke the 上射 scorer: every use of the link is refused from then on
    sc = live.scorer("上射")
    csrf = live.csrf(sc)
    rows = c.get("/api/tokens", headers={"Authorization": f"Bearer {live.director}"}).json()
    tid = next(t["token_id"] for t in rows["tokens"] if t["seat"] == "上射")
    assert live.post("/api/tokens/revoke", live.director, {"token_id": tid}).status_code == 200
    live.before += 1  # type: ignore[attr-defined]
    r = c.post(
        "/api/arrows",
        json={**ARROW, "key": "k"},
        headers={"Authorization": f"Bearer {sc}", "X-CSRF-Token": csrf},
    )
    refused(live, r, 403, "revoked")
    assert c.get("/api/state", headers={"Authorization": f"Bearer {sc}"}).status_code == 403
    assert c.get(f"/api/stream?token={sc}").status_code == 403
    assert c.get(f"/v/{sc}").status_code == 404
    # a token of another event does not reach this one's tokens
    other = new_event(c)
    refused(
        live, live.post("/api/tokens/revoke", other.director, {"token_id": tid}), 404, "no token"
    )


@pytest.mark.slow
def test_every_get_takes_its_token_in_the_query(live: Live) -> None:
    """``?token=`` on a GET, for every GET route (a download link cannot set a header), with
    the same roles as the header: the director's exports, never the audience's."""
    c = live.client
    director = ["/api/export.jsonl", "/api/results.csv", "/api/outcomes.csv", "/api/five.json"]
    director += ["/api/votes.csv", "/api/tokens"]
    for path in [*director, "/api/state", "/api/hou.svg"]:
        r = c.get(path, params={"token": live.director})
        assert r.status_code == 200, (path, r.text)
    for path in director:
        r = c.get(path, params={"token": live.audience})
        assert r.status_code == 403 and "audience link cannot" in r.json()["error"], path
    export = c.get("/api/export.jsonl", params={"token": live.director})
    assert json.loads(export.text.splitlines()[0])["type"] == "scene"


@pytest.mark.slow
def test_no_store_on_every_answer_but_the_static_files(live: Live) -> None:
    """A screen's state, a step's diagram, a link's page or QR code is never kept by a cache
    (it holds a token's view); the static files may be."""
    c = live.client
    seq = live.state()["step"]["seq"]
    auth = {"token": live.audience}
    answers = {
        "stream": c.head("/api/stream", params=auth),
        "state": c.get("/api/state", params=auth),
        "diagram": c.get(f"/api/diagram/{seq}.svg", params=auth),
        "hou": c.get("/api/hou.svg", params=auth),
        "qr": c.get(f"/qr/{live.audience}.svg"),
        "page": c.get(f"/v/{live.audience}"),
        "export": c.get("/api/export.jsonl", params={"token": live.director}),
        "refusal": c.get("/api/state"),
    }
    for what, r in answers.items():
        assert r.headers.get_list("cache-control") == ["no-store"], (what, r.headers)
    assert "no-store" not in c.get("/static/live.css").headers.get("cache-control", "")


def test_csrf(counted: Live) -> None:
    live = counted
    c = live.client
    sc = live.scorer("上射")
    auth = {"Authorization": f"Bearer {sc}"}
    body = json.dumps({**ARROW, "key": "c1"})
    ctype = {"Content-Type": "application/json"}
    refused(live, c.post("/api/arrows", content=body, headers={**auth, **ctype}), 403, "CSRF")
    bad = {**auth, **ctype, "X-CSRF-Token": "0" * 64}
    refused(live, c.post("/api/arrows", content=body, headers=bad), 403, "CSRF")
    # another link's CSRF value does not do for this one
    other = {**auth, **ctype, "X-CSRF-Token": live.csrf(live.scorer("下射"))}
    refused(live, c.post("/api/arrows", content=body, headers=other), 403, "CSRF")
    # creating an event needs the home page's value and its cookie
    r = c.post("/api/events", json={"rite": "xiangshe"})
    assert r.status_code == 403 and "CSRF" in r.json()["error"]
    csrf = home_csrf(c)
    c.cookies.clear()
    r = c.post("/api/events", json={"rite": "xiangshe"}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 403
    assert inputs_count(c) == live.before


def test_foreign_origin(counted: Live) -> None:
    live = counted
    sc = live.scorer("上射")
    h = {**live.headers(sc), "Origin": "http://evil.example"}
    r = live.client.post("/api/arrows", json={**ARROW, "key": "o1"}, headers=h)
    refused(live, r, 403, "cross-origin")
    h = {"X-CSRF-Token": home_csrf(live.client), "Origin": "http://evil.example"}
    r = live.client.post("/api/events", json={"rite": "xiangshe"}, headers=h)
    assert r.status_code == 403 and "cross-origin" in r.json()["error"]
    # the page's own origin is fine
    h = {**live.headers(sc), "Origin": "http://testserver"}
    assert (
        live.client.post("/api/arrows", json={**ARROW, "key": "o2"}, headers=h).status_code == 201
    )


@pytest.mark.slow
def test_bad_bodies(counted: Live) -> None:
    live = counted
    c = live.client
    sc = live.scorer("上射")
    h = live.headers(sc)
    r = c.post(
        "/api/arrows", content="{not json", headers={**h, "Content-Type": "application/json"}
    )
    refused(live, r, 400, "not valid JSON")
    r = c.post("/api/arrows", content="[1, 2]", headers={**h, "Content-Type": "application/json"})
    refused(live, r, 400, "JSON object")
    r = c.post(
        "/api/arrows",
        content=json.dumps({**ARROW, "key": "f"}),
        headers={**h, "Content-Type": "text/plain"},
    )
    refused(live, r, 415, "application/json")
    big = json.dumps({**ARROW, "key": "b", "pad": "x" * 1_100_000})
    r = c.post("/api/arrows", content=big, headers={**h, "Content-Type": "application/json"})
    refused(live, r, 413, "larger than")
    r = c.post("/api/arrows", json=ARROW, headers=h)  # no key
    refused(live, r, 400, "key")
    cases = [
        ({**ARROW, "arrow": 5}, "arrow must be 1–4"),
        ({**ARROW, "arrow": 0}, "arrow must be 1–4"),
        ({**ARROW, "arrow": "1"}, "arrow must be a whole number"),
        ({**ARROW, "round": 4}, "round must be 1–3"),
        ({**ARROW, "seat": "中射"}, "seat must be"),
        ({**ARROW, "pair": "衆耦9"}, "no arrow 1 of 衆耦9上射"),
        ({**ARROW, "hit": "yes"}, "hit must be true or false"),
        ({**ARROW, "on_beat": 1}, "on_beat must be"),
    ]
    for body, words in cases:
        refused(live, live.post("/api/arrows", sc, body), 400, words)
    d = live.director
    refused(live, live.post("/api/advance", d, {"delta": -1}), 400, "no step beyond the first")
    refused(live, live.post("/api/advance", d, {"to": 10**6}), 400, "to must be")
    refused(live, live.post("/api/advance", d, {"delta": 1, "to": 3}), 400, "not both")
    refused(live, live.post("/api/drum", d, {"interval_ms": 1000}), 400, "running")
    refused(live, live.post("/api/tokens/new", d, {"role": "king"}), 400, "role must be")
    refused(live, live.post("/api/tokens/new", d, {"role": "scorer", "seat": "x"}), 400, "seat")


@pytest.mark.slow
def test_event_creation_refusals(client) -> None:
    csrf = home_csrf(client)

    def create(**body):
        return client.post(
            "/api/events", json={"rite": "xiangshe", **body}, headers={"X-CSRF-Token": csrf}
        )

    r = create(cast_csv="role,name\n司射,王小明\n上耦上射,李,華\n")
    assert r.status_code == 400 and "line 3" in r.json()["error"]
    r = create(cast_csv="司射,王小明\n無此人,張三\n")
    assert r.status_code == 400 and "line 2" in r.json()["error"]
    r = create(cast=[{"role": "司射", "name": "甲"}], cast_csv="司射,乙\n")
    assert r.status_code == 400 and "already cast" in r.json()["error"]
    assert create(pairs=-1).status_code == 400
    assert create(pairs=True).status_code == 400
    assert create(venue="moon").status_code == 400
    assert create(rite="dashe-not").status_code == 400
    assert create(hou_dao_m=0).status_code == 400
    assert create(feast="yes").status_code == 400
    r = create(rite="dashe", feast=False)  # 大射儀 has no such switch
    assert r.status_code == 400 and "feast" in r.json()["error"]
    assert (
        client.app.state.server.store.db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
    )


NASTY = '<script>alert("x")</script>'


@pytest.mark.slow
def test_names_are_escaped(client) -> None:
    live = new_event(
        client,
        cast=[{"role": "司射", "name": NASTY}],
        cast_csv='role,name\n釋獲者,"<img src=x onerror=alert(1)>"\n',
        guests_shoot=False,
    )
    pages = [
        client.get(live.links["director"]).text,
        client.get(live.links["audience"]).text,
        client.get(live.links["performers"]["司射"]).text,
        client.get(live.links["scorers"]["上射"]).text,
        client.get(live.links["director"] + "/pack").text,
        client.get(live.links["director"] + "/results").text,
    ]
    for page in pages:
        assert NASTY not in page
        assert "<img src=x onerror" not in page
    assert any("&lt;script&gt;" in p or "\\u003cscript\\u003e" in p for p in pages)
    # the JSON carries the name as it was given (the pages set it as text, never as HTML)
    assert live.state()["event"]["cast"][0]["name"] == NASTY
    perf = live.state(live.performer("司射"))
    assert perf["step"] is not None and perf["event"]["cast"][0]["name"] == NASTY


def test_a_field_of_a_megabyte_is_not_said_back_whole(counted: Live) -> None:
    """An error that quotes what was sent (a pair's name, a rite) says its start only."""
    live = counted
    big = "衆" * 300_000  # some 900 KB of UTF-8, under the body's megabyte
    r = live.post("/api/arrows", live.scorer("上射"), {**ARROW, "pair": big})
    refused(live, r, 400, "round 2 has no arrow 1 of 衆衆")
    assert len(r.content) < 4000 and "(cut: " in r.json()["error"]
    r = live.client.post(
        "/api/events", json={"rite": big}, headers={"X-CSRF-Token": home_csrf(live.client)}
    )
    assert r.status_code == 400 and len(r.content) < 4000, r.status_code

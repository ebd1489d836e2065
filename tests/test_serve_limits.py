"""The live app under sleeping phones, floods and bad input (docs/serve.md, "Limits"):
streams that cannot grow, bodies bounded while read, JSON errors for every bad input,
idempotent creation, the Host allow-list, the database checked at start."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import pickle
import sqlite3
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest
from test_serve_helpers import (
    home_csrf,
    inputs_count,
    make_client,
    new_event,
    prime_event_runs,
    share_event_runs,
)

from sheli.serve.limits import MAX_BODY, read_body
from sheli.serve.live import compute_derived_pickled
from sheli.serve.server import Server
from sheli.serve.store import SCHEMA_1, SCHEMA_VERSION, Store, StoreError
from sheli.serve.streams import Subscriber


@pytest.fixture(scope="module")
def event_runs(once) -> None:
    prime_event_runs(once)


@pytest.fixture()
def client(tmp_path, monkeypatch, once, event_runs):
    share_event_runs(monkeypatch, once)
    with make_client(tmp_path) as c:
        yield c


def _in_thread(coro):
    # Playwright's sync API may leave an event loop running in this thread
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def test_a_stream_not_read_holds_one_state(client) -> None:
    live = new_event(client)
    srv: Server = client.app.state.server
    ev = srv.event(live.event_id)
    toks = {r: srv.store.token(t) for r, t in (("a", live.audience), ("p", live.performer("司射")))}

    async def go():
        subs = [Subscriber(toks["a"]), Subscriber(toks["p"])]
        for s in subs:
            srv.subscribe(ev, s)
        for _ in range(50):  # fifty states, nobody reading
            ev.version += 1
            srv.send(ev, srv.subs[ev.id])
        held = [s.latest for s in subs]
        firsts = [await s.next() for s in subs]
        return held, firsts, [s.latest for s in subs]

    held, firsts, after = _in_thread(go())
    assert firsts == held and after == [None, None]  # one message each, the newest
    audience, performer = (json.loads(m.split(b"data: ", 1)[1]) for m in held)
    assert audience["version"] == performer["version"] == ev.version
    # each role gets its own slice: no arrows for the audience, no cues on a performer's stream
    assert "shots" not in audience and "cues" not in audience
    assert "cues" not in performer and "cues_rev" in performer and "passage" not in performer


def test_performer_fetches_cues(client) -> None:
    live = new_event(client)
    tok = live.performer("司射")
    r = client.get("/api/cues", headers={"Authorization": f"Bearer {tok}"})
    assert r.status_code == 200 and r.json()["cues"] and r.json()["cues_rev"] >= 1
    r = client.get("/api/cues", headers={"Authorization": f"Bearer {live.audience}"})
    assert r.status_code == 403 and "error" in r.json()


def test_a_chunked_body_is_refused_without_being_held() -> None:
    read = []

    async def chunks():
        for _ in range(32):  # 2 MB in 64 KB chunks
            read.append(1)
            yield b"x" * 65536

    from sheli.serve.errors import ApiError

    with pytest.raises(ApiError) as e:
        _in_thread(read_body(chunks(), None))
    assert e.value.status == 413
    assert len(read) * 65536 <= MAX_BODY + 65536  # stopped at the limit, not at the end


def test_a_chunked_body_over_the_limit_is_413(client) -> None:
    csrf = home_csrf(client)

    def body():
        for _ in range(32):
            yield b" " * 65536

    r = client.post(
        "/api/events",
        content=body(),
        headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"},
    )
    assert r.status_code == 413 and "larger than" in r.json()["error"]


@pytest.mark.parametrize(
    "raw, says",
    [
        ('{"round": 2, "pair": "上耦", "seat": "上射", "arrow": 1, "hit": true, "key": "\\ud800"}',
         "lone surrogate"),
        ('{"round": 2, "pair": "\\udfff", "seat": "上射", "arrow": 1, "hit": true, "key": "k"}',
         "lone surrogate"),
        ("[" * 100_000 + "]" * 100_000, "nested deeper"),
        ('{"key": "k", "a": NaN}', "NaN"),
        ('{"key": "k", "a": 1e400}', "not finite"),
    ],
)  # fmt: skip
def test_bad_json_is_a_json_400(client, raw, says) -> None:
    live = new_event(client)
    before = inputs_count(client)
    r = client.post(
        "/api/arrows",
        content=raw.encode(),
        headers=live.headers(live.scorer("上射"), **{"Content-Type": "application/json"}),
    )
    assert r.status_code == 400, r.text
    assert says in r.json()["error"]
    assert inputs_count(client) == before


def test_tap_times_that_are_not_numbers_of_ms(client) -> None:
    live = new_event(client)
    live.post("/api/drum", live.director, {"interval_ms": 1000, "running": True})
    tap = {"round": 2, "pair": "上耦", "seat": "上射", "arrow": 1}
    for t in ("1e400", "-1", "1e300"):
        raw = json.dumps({**tap, "key": f"t{t}"}, ensure_ascii=False).replace('"T"', t)
        raw = raw[:-1] + f', "t_ms": {t}}}'
        r = client.post(
            "/api/taps",
            content=raw.encode(),
            headers=live.headers(live.scorer("上射"), **{"Content-Type": "application/json"}),
        )
        assert r.status_code == 400 and "error" in r.json(), (t, r.text)


def test_bad_paths_are_json_errors(client) -> None:
    live = new_event(client)
    auth = {"Authorization": f"Bearer {live.audience}"}
    r = client.get("/api/diagram/%C2%B2.svg", headers=auth)
    assert r.status_code == 400 and "seq" in r.json()["error"]
    r = client.get("/api/nowhere", headers=auth)
    assert r.status_code == 404 and r.json() == {"error": "Not Found"}
    r = client.get("/api/events")
    assert r.status_code == 405 and "error" in r.json()


@pytest.mark.slow
def test_creation_is_idempotent_with_its_key(client) -> None:
    csrf = home_csrf(client)
    body = {"rite": "xiangshe", "pairs": 0, "guests_shoot": False, "key": "k-" + "7" * 30}
    a = client.post("/api/events", json=body, headers={"X-CSRF-Token": csrf})
    b = client.post("/api/events", json=body, headers={"X-CSRF-Token": csrf})
    assert (a.status_code, b.status_code) == (201, 200)
    assert a.json() == b.json()  # the same event and the same links
    token = a.json()["links"]["director"].rsplit("/", 1)[1]
    assert client.get("/api/state", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    c = client.post("/api/events", json={**body, "pairs": 1}, headers={"X-CSRF-Token": csrf})
    assert c.status_code == 409
    db = client.app.state.server.store.db
    assert db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 1


@pytest.mark.slow
def test_creation_is_rate_limited_per_client(client) -> None:
    csrf = home_csrf(client)
    got = [
        client.post(
            "/api/events",
            json={"rite": "xiangshe", "guests_shoot": False, "feast": False},
            headers={"X-CSRF-Token": csrf},
        )
        for _ in range(6)
    ]
    assert [r.status_code for r in got] == [201] * 5 + [429]
    assert int(got[-1].headers["retry-after"]) >= 1 and "error" in got[-1].json()


@pytest.mark.slow  # the run that checks a 大射儀 event, its own
def test_dashe_from_the_home_page_defaults(client) -> None:
    """The home form's 大射儀 with nothing else changed: its own venue, the 射宮."""
    csrf = home_csrf(client)
    page = client.get("/").text
    assert 'value="shegong" data-rites="dashe"' in page
    body = {"rite": "dashe", "pairs": 0, "guests_shoot": False, "cast": []}
    r = client.post("/api/events", json=body, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.text


def test_advance_from_a_step_moves_once(client) -> None:
    live = new_event(client)
    i = live.state()["step"]["index"]
    a = live.post("/api/advance", live.director, {"delta": 1, "from": i}, key="page1")
    b = live.post("/api/advance", live.director, {"delta": 1, "from": i}, key="page2")
    assert a.status_code == 200 and b.status_code == 200 and b.json()["already"]
    assert live.state()["step"]["index"] == i + 1
    c = live.post("/api/advance", live.director, {"delta": 1, "from": i + 5}, key="page3")
    assert c.status_code == 409 and c.json()["step"]["index"] == i + 1


def test_results_csv_escapes_formulas(client) -> None:
    live = new_event(client, cast=[{"role": "上耦上射", "name": '=HYPERLINK("http://x","y")'}])
    r = client.get("/api/results.csv", headers={"Authorization": f"Bearer {live.director}"})
    assert "'=HYPERLINK" in r.text
    assert not any(line.split(",")[4].startswith("=") for line in r.text.splitlines()[1:])


def test_host_allow_list_and_csp(tmp_path) -> None:
    from starlette.testclient import TestClient

    from sheli.serve import create_app

    with TestClient(create_app(tmp_path / "db.sqlite3"), base_url="http://127.0.0.1:8000") as c:
        ok = c.get("/")
        assert ok.status_code == 200
        assert "script-src 'self'" in ok.headers["content-security-policy"]
        r = c.get("/", headers={"Host": "rebind.evil.example:8000"})
        assert r.status_code == 421 and "host" in r.json()["error"]


def test_a_link_and_its_log_entry_are_one_transaction(
    tmp_path, monkeypatch, once, event_runs
) -> None:
    from starlette.testclient import TestClient

    from sheli.serve import create_app

    share_event_runs(monkeypatch, once)
    app = create_app(tmp_path / "db.sqlite3", hosts=["testserver"])
    client = TestClient(app, raise_server_exceptions=False)
    live = new_event(client)
    store = client.app.state.server.store
    n = len(store.tokens(live.event_id))

    def fail(*a, **k):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "append", fail)
    r = live.post("/api/tokens/new", live.director, {"role": "audience"})
    assert r.status_code == 507 and "disk is full" in r.json()["error"]
    assert len(store.tokens(live.event_id)) == n  # the link was not made without its entry


def test_first_schema_is_migrated(tmp_path) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_1)
    db.execute("INSERT INTO meta VALUES ('secret', ?)", ("ab" * 32,))
    db.execute("INSERT INTO events VALUES ('e1', 0, '{\"rite\": \"xiangshe\"}')")
    db.commit()
    db.close()
    s = Store(path)
    assert s.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert s.event("e1")["rite"] == "xiangshe" and s.secret == bytes.fromhex("ab" * 32)
    s.close()


def test_other_databases_are_refused(tmp_path) -> None:
    other = tmp_path / "other.sqlite3"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE meta (name TEXT, data BLOB)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="not a sheli serve database"):
        Store(other)
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 300)
    with pytest.raises(StoreError, match="not a SQLite database"):
        Store(junk)
    newer = tmp_path / "newer.sqlite3"
    Store(newer).close()
    db = sqlite3.connect(newer)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer sheli"):
        Store(newer)


def _serve(db: Path, *pre: str) -> subprocess.CompletedProcess:
    cmd = [*pre, sys.executable, "-m", "sheli", "serve", "--port", "1", "--db", str(db)]
    env = {**os.environ, "SHELI_SERVE_AHEAD": "0"}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.slow
def test_a_corrupt_database_is_refused_at_start(tmp_path) -> None:
    db = tmp_path / "corrupt.sqlite3"
    s = Store(db)
    s.create_event({"rite": "xiangshe"}, [("director", None, None)])
    s.close()
    data = bytearray(db.read_bytes())
    for i in range(4096 + 100, min(len(data), 4 * 4096)):  # past the header: the pages
        data[i] = 0xA5
    db.write_bytes(bytes(data))
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    p = _serve(db)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_read_only_database_is_refused_at_start(tmp_path) -> None:
    db = tmp_path / "ro.sqlite3"
    Store(db).close()
    db.chmod(0o444)
    pre: tuple[str, ...] = ()
    if os.geteuid() == 0:  # root writes whatever the mode: drop the capabilities that allow it
        caps = "-dac_override,-dac_read_search,-fowner"
        pre = ("setpriv", "--bounding-set", caps, "--inh-caps", caps, "--")
    p = _serve(db, *pre)
    assert p.returncode == 2, p.stderr
    assert "cannot be written" in p.stderr and "Traceback" not in p.stderr


def test_head_of_the_stream_holds_nothing_open(client) -> None:
    live = new_event(client)
    r = client.head(f"/api/stream?token={live.audience}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert client.app.state.server.subs == {}  # its stream is gone with the answer


def test_a_full_disk_is_a_507_and_the_server_writes_again_after(
    tmp_path, monkeypatch, once, event_runs
) -> None:
    from starlette.testclient import TestClient

    from sheli.serve import create_app

    share_event_runs(monkeypatch, once)
    path = tmp_path / "db.sqlite3"
    client = TestClient(create_app(path, hosts=["testserver"]), raise_server_exceptions=False)
    live = new_event(client)
    store = client.app.state.server.store
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count={pages}")  # the disk is full: not a page more
    codes = []
    for i in range(40):
        r = live.post("/api/advance", live.director, {"to": i + 1}, key=f"full{i}")
        codes.append(r.status_code)
        if r.status_code == 507:
            assert "disk is full" in r.json()["error"]
            break
    assert codes[-1] == 507
    store.db.execute("PRAGMA max_page_count=1073741823")  # space again
    r = live.post("/api/advance", live.director, {"to": 50}, key="after")
    assert r.status_code == 200
    # committed (another connection sees it), not held in a transaction left open
    other = sqlite3.connect(path)
    assert other.execute("SELECT COUNT(*) FROM inputs WHERE key='after'").fetchone()[0] == 1
    other.close()


@pytest.mark.slow  # a run of its own, pickled
def test_a_run_from_the_worker_holds_no_reference_cycle() -> None:
    """unpickle_derived freezes a run out of the collector's sight on the ground that its
    reference counts free it when it is dropped: with a cycle anywhere in it, each run the
    server dropped would stay in memory until the next sweep."""
    data = compute_derived_pickled(
        {"rite": "xiangshe", "pairs": 0, "guests_shoot": False, "feast": False}, 1.0, {}, {}
    )
    gc.collect()
    gc.disable()
    try:
        d = pickle.loads(data)
        assert len(d.run.records) > 1000
        del d
        assert gc.collect() == 0  # nothing of it was left for the collector to find
    finally:
        gc.enable()


@pytest.mark.slow
def test_the_server_sweeps_only_when_no_state_went_out_since() -> None:
    srv = Server(":memory:")
    try:
        gc.collect()
        cyclic = [[]]
        cyclic[0].append(cyclic)  # garbage only a collection finds
        ref = weakref.ref(weak_holder := _Holder(cyclic))
        del cyclic, weak_holder
        gc.freeze()  # as unpickle_derived does: the cycle is now out of sight
        gc.collect()
        assert ref() is not None
        srv.last_sent = time.monotonic()
        assert not srv.sweep(since=srv.last_sent - 1)
        assert ref() is not None
        assert srv.sweep(since=srv.last_sent)
        assert ref() is None
    finally:
        gc.unfreeze()
        srv.close()


class _Holder:
    def __init__(self, cycle: list) -> None:
        self.cycle = cycle
        cycle.append(self)

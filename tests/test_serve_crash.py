"""Kill -9 and restart: a real ``sheli serve`` (uvicorn) in a subprocess, arrows
posted one after another from a thread, SIGKILL while they are being posted, restart on the
same database: the event resumes at the same step and every acknowledged arrow is there.
A request in flight at the kill, sent again with its key, is counted once."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from sheli.serve.process import free_port, wait_until_serving

PAIRS = ("上耦", "次耦", "下耦")


def start(db: Path, port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "sheli", "serve", "--port", str(port), "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    wait_until_serving(proc, f"http://127.0.0.1:{port}/", 90)
    return proc


def csrf(client: httpx.Client, link: str) -> str:
    page = client.get(link).text
    return re.search(r'data-csrf="([^"]*)"', page).group(1)


@pytest.fixture()
def server(tmp_path):
    db = tmp_path / "serve.sqlite3"
    port = free_port()
    procs: list[subprocess.Popen] = [start(db, port)]
    yield db, port, procs
    for p in procs:
        if p.poll() is None:
            p.kill()
        p.wait()
        for stream in (p.stdout, p.stderr):
            stream.close()


@pytest.mark.slow
def test_kill_9_and_restart(server) -> None:
    db, port, procs = server
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base, timeout=30) as c:
        home = c.get("/").text
        form_csrf = re.search(r'data-csrf="([^"]*)"', home).group(1)
        r = c.post(
            "/api/events",
            json={
                "rite": "xiangshe",
                "venue": "xie",
                "pairs": 0,
                "guests_shoot": False,
                "feast": False,
            },
            headers={"X-CSRF-Token": form_csrf},
        )
        assert r.status_code == 201, r.text
        links = r.json()["links"]
        director = links["director"].rsplit("/", 1)[-1]
        dh = {"Authorization": f"Bearer {director}", "X-CSRF-Token": csrf(c, links["director"])}
        for i in range(7):
            r = c.post("/api/advance", json={"delta": 1, "key": f"adv{i}"}, headers=dh)
            assert r.status_code == 200
        scorers = {}
        for seat in ("上射", "下射"):
            tok = links["scorers"][seat].rsplit("/", 1)[-1]
            scorers[seat] = {
                "Authorization": f"Bearer {tok}",
                "X-CSRF-Token": csrf(c, links["scorers"][seat]),
            }

    arrows = [
        (rnd, pair, seat, n, (rnd + n + len(pair)) % 2 == 0)
        for rnd in (1, 2, 3)
        for pair in PAIRS
        for n in range(1, 5)
        for seat in ("上射", "下射")
    ]
    acked: list[tuple] = []
    in_flight: list[tuple] = []
    stop = threading.Event()

    def post_arrows() -> None:
        with httpx.Client(base_url=base, timeout=10) as c:
            for rnd, pair, seat, n, hit in arrows:
                if stop.is_set():
                    return
                body = {"round": rnd, "pair": pair, "seat": seat, "arrow": n, "hit": hit}
                body["on_beat"] = True if rnd == 3 else None
                key = f"{rnd}-{pair}-{seat}-{n}"
                in_flight[:] = [(key, body)]
                try:
                    r = c.post("/api/arrows", json={**body, "key": key}, headers=scorers[seat])
                except httpx.HTTPError:
                    return  # the server died under us: this one was not acknowledged
                assert r.status_code == 201, r.text
                acked.append((key, body, r.json()))
                in_flight.clear()

    t = threading.Thread(target=post_arrows)
    t.start()
    deadline = time.monotonic() + 120
    while len(acked) < 20 and t.is_alive() and time.monotonic() < deadline:
        time.sleep(0.005)
    procs[0].send_signal(signal.SIGKILL)
    procs[0].wait()
    stop.set()
    t.join()
    assert 20 <= len(acked) < len(arrows), "the kill should fall while arrows are posted"

    procs.append(start(db, port))
    with httpx.Client(base_url=base, timeout=30) as c:
        r = c.get("/api/state", headers={"Authorization": f"Bearer {director}"})
        if r.status_code != 200:
            procs[-1].kill()
            raise AssertionError(procs[-1].stderr.read()[-3000:])
        state = r.json()
        assert state["step"]["index"] == 7
        log = c.get("/api/export.jsonl", headers={"Authorization": f"Bearer {director}"})
        shots = {
            (e["round"], e["pair"], e["archer"], e["arrow"]): e
            for e in map(json.loads, log.text.splitlines())
            if e["type"] == "shot" and e["pair"] != "誘射"
        }
        for key, body, response in acked:
            k = (body["round"], body["pair"], body["seat"], body["arrow"])
            assert k in shots and not shots[k].get("pending"), key
            assert shots[k]["hit"] is body["hit"], key
            # a retry after the restart gets the first answer again
            again = c.post("/api/arrows", json={**body, "key": key}, headers=scorers[body["seat"]])
            assert again.status_code == 200 and again.json() == response
        # the request in flight at the kill: sent again with its key, it counts once
        for key, body in in_flight:
            r = c.post("/api/arrows", json={**body, "key": key}, headers=scorers[body["seat"]])
            assert r.status_code in (200, 201), r.text
            r2 = c.post("/api/arrows", json={**body, "key": key}, headers=scorers[body["seat"]])
            assert r2.status_code == 200 and r2.json() == r.json()
        n_inputs = 7 + len(acked) + len(in_flight)
        state = c.get("/api/state", headers={"Authorization": f"Bearer {director}"}).json()
        assert state["version"] == n_inputs
        # the event stream starts with the same state
        with c.stream("GET", f"/api/stream?token={director}") as s:
            lines = []
            for line in s.iter_lines():
                lines.append(line)
                if line.startswith("data: "):
                    break
        first = json.loads(lines[-1][len("data: ") :])
        assert first["version"] == n_inputs and first["step"]["index"] == 7


@pytest.mark.slow
def test_port_taken_and_bad_db(server, tmp_path, monkeypatch) -> None:
    _, port, procs = server
    assert f"http://127.0.0.1:{port}/" in procs[0].stdout.readline()  # the address, printed
    from sheli.cli.serve import default_db

    monkeypatch.setenv("SHELI_DATA_DIR", str(tmp_path / "data"))
    assert default_db() == tmp_path / "data" / "serve.sqlite3"
    cmd = [sys.executable, "-m", "sheli", "serve", "--port", str(port)]
    r = subprocess.run(
        [*cmd, "--db", str(tmp_path / "other.sqlite3")], capture_output=True, text=True
    )
    assert r.returncode == 2 and "already in use" in r.stderr
    bad = tmp_path / "not-a-db.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    r = subprocess.run(
        [*cmd[:-1], str(free_port()), "--db", str(bad)], capture_output=True, text=True
    )
    assert r.returncode == 2 and "not-a-db.sqlite3" in r.stderr


@pytest.mark.slow
def test_stream_pushes_every_change(server) -> None:
    """Each acknowledged input reaches an open event stream as a new state (its version)."""
    _, port, _ = server
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as c:
        form_csrf = re.search(r'data-csrf="([^"]*)"', c.get("/").text).group(1)
        r = c.post("/api/events", json={"pairs": 0}, headers={"X-CSRF-Token": form_csrf})
        links = r.json()["links"]
        audience = links["audience"].rsplit("/", 1)[-1]
        director = links["director"].rsplit("/", 1)[-1]
        dh = {"Authorization": f"Bearer {director}", "X-CSRF-Token": csrf(c, links["director"])}
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as s_client:
            with s_client.stream("GET", f"/api/stream?token={audience}") as s:
                assert s.headers["content-type"].startswith("text/event-stream")
                seen = []
                for line in s.iter_lines():
                    if not line.startswith("data: "):
                        continue
                    state = json.loads(line[6:])
                    seen.append((state["version"], state["step"]["index"], state["role"]))
                    if len(seen) == 3:
                        break
                    r = c.post(
                        "/api/advance", json={"delta": 1, "key": f"k{len(seen)}"}, headers=dh
                    )
                    assert r.status_code == 200
        assert seen == [(0, 0, "audience"), (1, 1, "audience"), (2, 2, "audience")]


@pytest.mark.slow
def test_revoking_closes_the_stream(server) -> None:
    _, port, _ = server
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as c:
        form_csrf = re.search(r'data-csrf="([^"]*)"', c.get("/").text).group(1)
        links = c.post(
            "/api/events", json={"pairs": 0}, headers={"X-CSRF-Token": form_csrf}
        ).json()["links"]
        audience = links["audience"].rsplit("/", 1)[-1]
        director = links["director"].rsplit("/", 1)[-1]
        dh = {"Authorization": f"Bearer {director}", "X-CSRF-Token": csrf(c, links["director"])}
        rows = c.get("/api/tokens", headers={"Authorization": f"Bearer {director}"}).json()
        tid = next(t["token_id"] for t in rows["tokens"] if t["role"] == "audience")
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as s_client:
            with s_client.stream("GET", f"/api/stream?token={audience}") as s:
                states = 0
                for line in s.iter_lines():  # ends when the server closes the stream
                    if line.startswith("data: "):
                        states += 1
                        if states == 1:
                            r = c.post(
                                "/api/tokens/revoke",
                                json={"token_id": tid, "key": "rv"},
                                headers=dh,
                            )
                            assert r.status_code == 200
        assert states == 1  # the state of the revocation itself is not sent to the revoked
        r = c.get(f"/api/stream?token={audience}")
        assert r.status_code == 403

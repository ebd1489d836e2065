"""Stopping ``sheli serve`` and sharing its database: real server processes on 127.0.0.1.

- One server per database: a second ``sheli serve`` on a database a live server holds exits
  2 with one line naming the holder's process; a lock file left by a process that is gone
  blocks nothing.
- SIGTERM, or Ctrl-C (SIGINT to the whole process group, as a terminal sends it), while a
  screen's stream is open: the stream ends cleanly, the server and its workers exit with no
  traceback, with 143 or 130, and a hit recorded and answered before the signal is there
  after a restart (docs/serve.md, "Stopping").
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_serve_helpers import Live, new_event

from sheli.serve.process import free_port, wait_until_serving
from sheli.serve.store import lock_path

#: a generous bound on a stopping server (it stops in well under a second here): past it the
#: test fails rather than hangs
STOP_TIMEOUT_S = 60
TEXT: dict[str, Any] = {"capture_output": True, "text": True, "check": True}


def start(db: Path, port: int) -> subprocess.Popen:
    """``sheli serve`` on ``db``, with its workers, in a process group of its own (so a
    signal can reach the group, as a terminal's Ctrl-C does); returns once it answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sheli", "serve", "--port", str(port), "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True,
    )
    wait_until_serving(proc, f"http://127.0.0.1:{port}/", 90)
    return proc


@pytest.fixture()
def procs():
    started: list[subprocess.Popen] = []
    yield started
    for p in started:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        for stream in (p.stdout, p.stderr):
            if stream is not None:
                stream.close()


def serve_once(db: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "sheli", "serve", "--port", str(free_port()), "--db", str(db)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=STOP_TIMEOUT_S)


@pytest.mark.slow
def test_a_second_server_on_the_same_database_is_refused(tmp_path, procs) -> None:
    db = tmp_path / "hall.sqlite3"
    port = free_port()
    procs.append(start(db, port))
    first = procs[0]
    second = serve_once(db)
    assert second.returncode == 2, second.stderr
    lines = second.stderr.strip().splitlines()
    assert len(lines) == 1 and f"process {first.pid}" in lines[0] and str(db) in lines[0], lines
    # a symbolic link to the database is the same database
    link = tmp_path / "link.sqlite3"
    link.symlink_to(db)
    assert serve_once(link).returncode == 2
    # the first goes on serving
    assert httpx.get(f"http://127.0.0.1:{port}/", timeout=30).status_code == 200
    # once it is gone (kill -9: no chance to tidy up), its lock file, still there and
    # naming it, blocks nothing
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert lock_path(db).read_text().strip() == str(first.pid)
    procs.append(start(db, free_port()))
    assert lock_path(db).read_text().strip() == str(procs[-1].pid)


@pytest.mark.slow
def test_a_lock_file_of_a_process_long_gone_blocks_nothing(tmp_path, procs) -> None:
    db = tmp_path / "hall.sqlite3"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], **TEXT)
    lock_path(db).write_text(gone.stdout)  # a pid nobody holds a lock for now
    procs.append(start(db, free_port()))
    assert lock_path(db).read_text().strip() == str(procs[0].pid)


class StreamReader(threading.Thread):
    """An audience screen: reads ``/api/stream`` until it ends; ``states`` counts the
    states it got, ``ended`` says how the stream ended ("clean": the server finished the
    body; else the error)."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.states = 0
        self.ended: str | None = None

    def run(self) -> None:
        try:
            with httpx.Client(timeout=httpx.Timeout(30, read=None)) as c:
                with c.stream("GET", self.url) as s:
                    for line in s.iter_lines():
                        self.states += line.startswith("event: state")
            self.ended = "clean"
        except httpx.HTTPError as exc:
            self.ended = repr(exc)


def wait_for(what: Any, timeout: float = STOP_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.05)


@pytest.mark.parametrize(
    ("sig", "group", "status"),
    [(signal.SIGTERM, False, 143), (signal.SIGINT, True, 130)],
    ids=["SIGTERM", "Ctrl-C to the group"],
)
@pytest.mark.slow
def test_a_signal_stops_the_server_with_streams_open(
    tmp_path, procs, sig: int, group: bool, status: int
) -> None:
    db = tmp_path / "hall.sqlite3"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    procs.append(start(db, port))
    with httpx.Client(base_url=base, timeout=60) as c:
        live: Live = new_event(c)
        for _ in range(7):
            assert live.post("/api/advance", live.director, {"delta": 1}).status_code == 200
        hit = live.arrow(2, "上耦", "上射", 1, True)
        assert hit.status_code == 201, hit.text  # answered: it must survive the stop
        screen = StreamReader(f"{base}/api/stream?token={live.audience}")
        screen.start()
        wait_for(lambda: screen.states >= 1)
        if group:
            os.killpg(procs[0].pid, sig)  # as Ctrl-C at a terminal: the workers get it too
        else:
            procs[0].send_signal(sig)
        # its workers share its stderr: this reads until they too are gone
        _, err = procs[0].communicate(timeout=STOP_TIMEOUT_S)
        assert procs[0].returncode == status, err
        assert "Traceback" not in err, err
        assert err.strip().splitlines() == [f"sheli serve: stopped ({signal.Signals(sig).name})"]
        screen.join(STOP_TIMEOUT_S)
        assert screen.ended == "clean", screen.ended
        assert lock_path(db).read_text() == ""  # the lock file names no holder now

    procs.append(start(db, port))
    with httpx.Client(base_url=base, timeout=60) as c:
        live.client = c
        state = live.state()
        assert state["version"] == 8 and state["step"]["index"] == 7
        export = c.get("/api/export.jsonl", headers={"Authorization": f"Bearer {live.director}"})
        shot = next(
            e
            for e in map(json.loads, export.text.splitlines())
            if e["type"] == "shot"
            and (e["round"], e["pair"], e["archer"], e["arrow"]) == (2, "上耦", "上射", 1)
        )
        assert shot["hit"] is True and not shot.get("pending")


@pytest.mark.slow
def test_screens_that_do_not_read_do_not_hold_the_stop(tmp_path, procs) -> None:
    """Phones asleep on open streams (they read nothing: the states pile up in their sockets
    until the server must wait for them) are dropped at the stop, not waited for."""
    db = tmp_path / "hall.sqlite3"
    port = free_port()
    procs.append(start(db, port))
    asleep: list[socket.socket] = []
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as c:
            live: Live = new_event(c, feast=True)
            for _ in range(4):  # the director's link holds four streams at most
                s = socket.create_connection(("127.0.0.1", port))
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                request = (
                    f"GET /api/stream?token={live.director} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                )
                s.sendall(request.encode())
                asleep.append(s)
            for _ in range(600):  # each a state of some kilobytes on every stream
                assert live.post("/api/advance", live.director, {"delta": 1}).status_code == 200
        procs[0].send_signal(signal.SIGTERM)
        _, err = procs[0].communicate(timeout=STOP_TIMEOUT_S)
        assert procs[0].returncode == 143, err
        assert "Traceback" not in err and "timeout graceful shutdown" not in err, err
    finally:
        for s in asleep:
            s.close()

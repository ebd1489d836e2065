"""The HTTP server's limits on a real ``sheli serve`` (docs/serve.md, "Limits"): idle and
half-sent connections are closed, a full house sheds its oldest idle connection, and says
so in the log. The timeouts and the cap are made small for the test (the same code, other
numbers); each check waits for the server to act, not for a time."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request

import pytest

from sheli.serve.process import free_port, wait_until_serving

BOOT = (
    "import sys; import sheli.serve.http as h; h.IDLE_S = 0.5; h.HEADERS_S = 0.5; "
    "h.RESERVED_FILES = 20; "
    "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (40, 40)); "
    "from sheli.cli import main; sys.argv = ['sheli', *sys.argv[1:]]; main()"
)


@pytest.fixture
def server(tmp_path):
    port = free_port()
    log = open(tmp_path / "serve.log", "w+")
    proc = subprocess.Popen(
        [sys.executable, "-c", BOOT, "serve", "--port", str(port), "--db", str(tmp_path / "db")],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "SHELI_SERVE_AHEAD": "0"},
    )
    try:
        wait_until_serving(proc, f"http://127.0.0.1:{port}/", 60)
        yield port, log
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


def closed_by_server(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (10 s at most)."""
    s.settimeout(10)
    got = b""
    while chunk := s.recv(4096):
        got += chunk
    return got


@pytest.mark.slow
def test_idle_and_half_sent_connections_are_closed(server) -> None:
    port, _ = server
    idle = socket.create_connection(("127.0.0.1", port))
    half = socket.create_connection(("127.0.0.1", port))
    half.sendall(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
    assert closed_by_server(idle) == b""
    answer = closed_by_server(half)
    assert answer.startswith(b"HTTP/1.1 408") and b'"error"' in answer
    idle.close()
    half.close()


@pytest.mark.slow
def test_a_full_house_sheds_its_oldest_idle_connection(server) -> None:
    port, log = server
    # the cap is the file limit (40) less 20 kept for the server itself: 20 connections
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(25)]
    assert closed_by_server(held[0]) == b""  # the oldest idle one made room
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as r:
        assert r.status == 200  # a request still gets through
    for s in held:
        s.close()
    log.flush()
    log.seek(0)
    assert "shedding load" in log.read()

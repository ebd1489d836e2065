"""The HTTP server of ``sheli serve``: uvicorn (httptools, uvloop) with the limits of a
public hall (docs/serve.md, "Limits").

- **Idle connections** (no byte of a request since the connection opened or since its last
  answer) are closed after :data:`IDLE_S` seconds.
- **A request sent slowly** (its headers not all arrived :data:`HEADERS_S` seconds after its
  first byte, or its body :data:`BODY_S` seconds after its headers) is answered 408 and
  closed.
- **At most** :func:`max_connections` **connections**: past it the oldest idle connection
  is closed to make room; if none is idle the new one is answered 503 and closed. Streams
  stay open: each is a connection, and the audience's screens are most of them.
- **The file limit** is raised to its hard limit at start (:func:`raise_file_limit`): each
  connection is a file.

Each time load is shed the server says so in its log (at most once every 10 s).

**Stopping** (SIGINT, Ctrl-C, or SIGTERM: :class:`HttpServer`): the server stops listening,
ends the open streams, lets the requests under way finish (each answered one is already
committed), waits at most :data:`STOP_GRACE_S` seconds for them, and returns the signal
that stopped it, which ``sheli serve`` turns into its exit status (128 + the signal).

>>> max_connections(1024)
960
>>> max_connections(1_048_576)
8192
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, ClassVar

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("sheli.serve")

IDLE_S = 10.0
HEADERS_S = 8.0
BODY_S = 20.0
#: connections kept whatever the file limit (the server's own files, the database, the
#: workers' pipes)
RESERVED_FILES = 64
MAX_CONNECTIONS = 8192
#: the request's scope extension (ASGI: a name and a dict) whose "transport" is the
#: connection's transport
TRANSPORT = "sheli.transport"
#: seconds a stopping server waits for the requests under way (an engine run takes about a
#: third of a second at the largest event) before it cancels what is left
STOP_GRACE_S = 5
#: the signals that stop the server gracefully
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def max_connections(file_limit: int) -> int:
    """The connection cap under a file limit."""
    return max(16, min(MAX_CONNECTIONS, file_limit - RESERVED_FILES))


def raise_file_limit() -> int:
    """Raise the soft limit on open files to the hard limit; returns the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = max(soft, 1 << 20)
    if soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


_shed_logged = 0.0


def shed(what: str) -> None:
    global _shed_logged
    t = time.monotonic()
    if t - _shed_logged >= 10:
        _shed_logged = t
        log.warning("sheli serve: shedding load: %s", what)


def _raw(status: str, message: str, extra: str = "") -> bytes:
    body = ('{"error":"' + message + '"}').encode()
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n{extra}"
        f"connection: close\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


_RESPONSES = {
    503: _raw("503 Service Unavailable", "too many connections: try again", "retry-after: 2\r\n"),
    408: _raw("408 Request Timeout", "the request came too slowly"),
}


class Protocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the idle and request timeouts and the cap."""

    cap: ClassVar[int] = MAX_CONNECTIONS
    idle: ClassVar[dict[Protocol, float]] = {}  # connections with no request under way → since when

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._timer: asyncio.TimerHandle | None = None
        if len(self.connections) > self.cap:
            victim = min(self.idle, key=self.idle.__getitem__, default=None)
            if victim is not None:
                shed(f"{len(self.connections)} connections: the oldest idle one closed")
                victim._close()
            else:
                shed(f"{len(self.connections)} connections, none idle: a new one refused")
                transport.write(_RESPONSES[503])
                transport.close()
                return
        self._wait(IDLE_S, idle=True)

    def _wait(self, seconds: float, idle: bool = False) -> None:
        """Close the connection in ``seconds`` unless something happens first; ``idle``:
        no request is under way (such a connection is the first to go when the house is
        full)."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_later(seconds, self._expired)
        if idle:
            self.idle[self] = time.monotonic()
        else:
            self.idle.pop(self, None)

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.idle.pop(self, None)

    def _close(self) -> None:
        self._stop()
        if not self.transport.is_closing():
            self.transport.close()

    def _expired(self) -> None:
        self._timer = None
        if self in self.idle:
            self._close()  # idle: nothing to say
            return
        self.idle.pop(self, None)
        if not self.transport.is_closing():
            if self.cycle is None or not self.cycle.response_started:
                self.transport.write(_RESPONSES[408])
            self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        # the event stream writes its states straight to the socket (docs/serve.md, "The
        # streams"): the handler finds the connection's transport here
        self.scope["extensions"] = {TRANSPORT: {"transport": self.transport}}
        self._wait(HEADERS_S)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        if self._timer is not None:  # the body (if any) has its own time
            self._wait(BODY_S)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._stop()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and not self.pipeline:
            self._wait(IDLE_S, idle=True)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        super().connection_lost(exc)


class HttpServer(uvicorn.Server):
    """uvicorn's server, stopped as docs/serve.md ("Stopping") says. On SIGINT or SIGTERM it
    stops listening, calls ``before_stop`` (the app ends its open streams: a stream is an
    answer that never finishes, and uvicorn would wait for it for ever), lets the requests
    under way finish, waits at most :data:`STOP_GRACE_S` for them, and returns; a second
    Ctrl-C stops it at once. ``stopped_by`` is the signal that stopped it (None: none did).
    Unlike uvicorn's own, it does not raise the signal again once stopped: the command ends
    with its own status and without a traceback.
    """

    def __init__(self, config: uvicorn.Config, before_stop: Callable[[], object]) -> None:
        super().__init__(config)
        self.before_stop = before_stop
        self.stopped_by: int | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        originals = {sig: signal.signal(sig, self.handle_exit) for sig in STOP_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in originals.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.stopped_by is None:
            self.stopped_by = sig
        if self.should_exit and sig == signal.SIGINT:
            self.force_exit = True
        else:
            self.should_exit = True

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()  # first: a screen whose stream ends must not reconnect here
        self.before_stop()
        await super().shutdown(sockets)

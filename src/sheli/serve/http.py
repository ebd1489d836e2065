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

>>> max_connections(1024)
960
>>> max_connections(1_048_576)
8192
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger("sheli.serve")

IDLE_S = 10.0
HEADERS_S = 8.0
BODY_S = 20.0
#: connections kept whatever the file limit (the server's own files, the database, the
#: workers' pipes)
RESERVED_FILES = 64
MAX_CONNECTIONS = 8192
#: the key of a request's scope extensions under which the connection's transport is found
TRANSPORT = "sheli.transport"


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

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
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
        self.scope["extensions"] = {TRANSPORT: self.transport}
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

"""The live state: as one GET (``/api/state``), a performer's cues (``/api/cues``), and the
event stream (``/api/stream``), a plain ASGI handler.

A stream writes at most the newest state for its view (:class:`~sheli.serve.streams.
Subscriber`); while a client does not read, the server holds one message for it and the
socket's buffers, no more. A client that reconnects with ``Last-Event-ID`` (the browser's
EventSource does it by itself) gets the state at once if it has changed since that id, and
the page fetches ``/api/state`` on every reconnection as well.

>>> from sheli.serve.streams import KEEPALIVE
>>> KEEPALIVE
b'event: ping\\ndata: {}\\n\\n'
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from sheli.serve import checks
from sheli.serve.errors import ApiError, json_response
from sheli.serve.headers import SECURITY_HEADERS
from sheli.serve.http import TRANSPORT
from sheli.serve.server import Server
from sheli.serve.store import now_ms
from sheli.serve.streams import Subscriber


async def state(srv: Server, request: Request) -> Response:
    tok = checks.token(srv, request, "read")
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    return json_response(srv.view(ev, tok, ev.state(now_ms())))


async def cues(srv: Server, request: Request) -> Response:
    """A performer's cues and their revision (``cues_rev`` on the stream says when to fetch
    them again)."""
    tok = checks.token(srv, request, "read")
    if tok["role"] != "performer":
        raise ApiError(403, "cues are a performer's")
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    return json_response({"cues_rev": ev.run_rev, "cues": ev.cues(tok["performer_role"])})


async def stream(srv: Server, scope: Any, receive: Any, send: Any) -> None:
    """The event stream: one ``send`` per message; a task per stream notices the client
    leaving. Keepalives come from one timer for all streams (:meth:`Server.keepalive`)."""
    request = Request(scope, receive)
    try:
        tok = checks.token(srv, request, "read")
        ev = srv.event(tok["event_id"])
        await srv.ready(ev)
    except ApiError as exc:
        await exc.response()(scope, receive, send)
        return
    sub = Subscriber(tok)
    srv.subscribe(ev, sub)
    last = request.headers.get("last-event-id", "")
    if not (last.isdigit() and int(last) == ev.version):
        sub.offer(srv.message(ev, tok, ev.state(now_ms())))

    async def watch() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass
        sub.close()

    watcher = asyncio.create_task(watch())
    try:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/event-stream; charset=utf-8"),
                    (b"x-accel-buffering", b"no"),
                    # cache-control: no-store among them, as on every answer
                    *((k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()),
                ],
            }
        )
        if scope["method"] == "HEAD":  # the headers only: a HEAD holds no stream open
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        await send({"type": "http.response.body", "body": b"retry: 2000\n\n", "more_body": True})
        # from now on the body is chunks: the server may write them straight to the socket
        sub.transport = scope.get("extensions", {}).get(TRANSPORT, {}).get("transport")
        while (msg := await sub.next()) is not None:
            sub.sending = True
            try:
                await send({"type": "http.response.body", "body": msg, "more_body": True})
            finally:
                sub.sending = False
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except OSError:
        pass  # the client went away mid-write
    finally:
        watcher.cancel()
        srv.unsubscribe(ev, sub)

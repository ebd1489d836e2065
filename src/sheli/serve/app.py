"""The ASGI app of ``sheli serve``: its routes in one table (:data:`ROUTES`), each handler
in a module of :mod:`sheli.serve.views` by concern, and the layers in front of them.

Handlers are ``async``; a handler's checks, its append to the log and its change of the
state follow one another without an ``await``, so no other request interleaves with them
(the store is one SQLite connection). What takes long (an engine run, creating an event)
is awaited in a worker process *before* those steps (:meth:`Server.ready`).

>>> import tempfile, os
>>> from starlette.testclient import TestClient
>>> app = create_app(os.path.join(tempfile.mkdtemp(), "db.sqlite3"), hosts=["testserver"])
>>> with TestClient(app) as c:
...     c.get("/api/state").json(), c.get("/api/nothing").json()
({'error': 'missing token: send Authorization: Bearer TOKEN'}, {'error': 'Not Found'})
"""

from __future__ import annotations

import asyncio
import functools
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sheli import collector
from sheli.serve.errors import ApiError
from sheli.serve.headers import Guard, allowed_hosts
from sheli.serve.http import TRANSPORT
from sheli.serve.server import HERE, Server, log
from sheli.serve.views import create, downloads, inputs, links, live, pages, wuwu

STATIC = HERE / "static"
Handler = Callable[[Server, Request], Awaitable[Response]]

#: every route of the app: (method, path, handler). The event stream is not here: it is a
#: plain ASGI handler taken before the router (:class:`LiveApp`), ``GET /api/stream``.
ROUTES: list[tuple[str, str, Handler]] = [
    ("GET", "/", pages.home),
    ("GET", "/english.json", pages.english),
    ("GET", "/v/{token}", pages.view),
    ("GET", "/v/{token}/pack", pages.pack),
    ("GET", "/v/{token}/results", pages.results),
    ("GET", "/qr/{token}.svg", downloads.qr),
    ("POST", "/api/events", create.create),
    ("GET", "/api/state", live.state),
    ("GET", "/api/cues", live.cues),
    ("POST", "/api/advance", inputs.advance),
    ("POST", "/api/arrows", inputs.arrow),
    ("POST", "/api/arrows/correct", inputs.correct),
    ("POST", "/api/taps", inputs.tap),
    ("POST", "/api/drum", inputs.drum),
    ("POST", "/api/questions", wuwu.question),
    ("POST", "/api/votes", wuwu.vote),
    ("GET", "/api/tokens", links.tokens),
    ("POST", "/api/tokens/new", links.new),
    ("POST", "/api/tokens/revoke", links.revoke),
    ("GET", "/api/export.jsonl", downloads.export_jsonl),
    ("GET", "/api/results.csv", downloads.results_csv),
    ("GET", "/api/outcomes.csv", downloads.outcomes_csv),
    ("GET", "/api/five.json", downloads.five_json),
    ("GET", "/api/votes.csv", downloads.votes_csv),
    ("GET", "/api/diagram/{seq}.svg", downloads.diagram),
    ("GET", "/api/hou.svg", downloads.hou),
]


def routes(srv: Server) -> list[Any]:
    """:data:`ROUTES` as Starlette routes bound to the server, and the static files."""

    def bind(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        @functools.wraps(handler)
        async def endpoint(request: Request) -> Response:
            return await handler(srv, request)

        return endpoint

    out: list[Any] = [Route(path, bind(h), methods=[m]) for m, path, h in ROUTES]
    out.append(Mount("/static", app=StaticFiles(directory=str(STATIC), check_dir=False)))
    return out


def _failure(exc: BaseException) -> ApiError:
    """A failure as the client should hear of it."""
    msg = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and "full" in msg:
        return ApiError(507, "the server's disk is full: nothing was stored; try again later")
    if isinstance(exc, sqlite3.OperationalError) and "readonly" in msg:
        return ApiError(503, "the server's database cannot be written: nothing was stored")
    if isinstance(exc, sqlite3.OperationalError) and "locked" in msg:
        return ApiError(503, "the database is busy: try again")
    return ApiError(500, f"the server failed ({type(exc).__name__}); nothing was stored")


def create_app(
    db_path: str | Path,
    keepalive_s: float = 15.0,
    ahead: bool = False,
    hosts: Iterable[str] = ("127.0.0.1",),
) -> LiveApp:
    """The app on the database at ``db_path`` (created if missing). ``ahead``: run the engine
    and create events in worker processes (``sheli serve`` does). ``hosts``: the addresses
    the server answers for besides the loopback names (see :mod:`sheli.serve.headers`)."""
    srv = Server(db_path, keepalive_s, ahead)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        timer = asyncio.create_task(srv.keepalive())
        # what is loaded by now (modules, specs, the venue) lives as long as the server: out
        # of the collector's sight, a full collection costs the streams less
        collector.freeze()
        yield
        timer.cancel()
        srv.close()

    async def on_error(request: Request, exc: Exception) -> Response:
        err = exc if isinstance(exc, ApiError) else None
        if isinstance(exc, HTTPException):
            headers = dict(exc.headers) if exc.headers else None
            err = ApiError(exc.status_code, str(exc.detail), headers=headers)
        if err is None:
            err = _failure(exc)
            log.error("sheli serve: %s %s failed: %r", request.method, request.url.path, exc)
        if request.url.path.startswith("/v/"):
            return HTMLResponse(
                srv.jinja.from_string(
                    "<!doctype html><meta charset=utf-8><title>sheli</title><p>{{ m }}</p>"
                ).render(m=err.message),
                status_code=err.status,
            )
        return err.response()

    app = Starlette(
        routes=routes(srv),
        exception_handlers={ApiError: on_error, HTTPException: on_error, Exception: on_error},
        lifespan=lifespan,
    )
    app.state.server = srv
    return LiveApp(app, srv, allowed_hosts(*hosts))


class LiveApp:
    """The Starlette app behind the :class:`~sheli.serve.headers.Guard`, with the event
    stream taken before the router: each of the hundreds of streams' messages then goes
    straight to the server's ``send`` (the stream adds the security headers itself)."""

    def __init__(self, app: Starlette, srv: Server, hosts: frozenset[str] | None) -> None:
        self.app = app
        self.srv = srv
        self.state = app.state
        self.guarded = Guard(self._route, hosts)

    async def _route(self, scope: Any, receive: Any, send: Any) -> None:
        if (
            scope["type"] == "http"
            and scope["path"] == "/api/stream"
            and scope["method"] in ("GET", "HEAD")
        ):
            await live.stream(self.srv, scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.guarded(scope, receive, send)
            return
        started = False

        async def tracked(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.guarded(scope, receive, tracked)
        except asyncio.CancelledError:
            if not self.srv.stopping:
                raise
            # the server is stopping and this request outlived its grace (STOP_GRACE_S):
            # nothing it would have stored was stored; its client hears so, or is dropped
            # (docs/serve.md, "Stopping"), without a traceback in the log
            if not started:
                await ApiError(
                    503,
                    "the server is stopping: nothing was stored; send it again",
                    headers={"Retry-After": "5"},
                ).response()(scope, receive, send)
            else:
                transport = scope.get("extensions", {}).get(TRANSPORT, {}).get("transport")
                if transport is not None:
                    transport.abort()
                    await asyncio.sleep(0)  # uvicorn hears of it before the handler returns

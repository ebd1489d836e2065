"""The ASGI app of ``sheli serve``: HTML pages by role, the JSON API and the live stream.

Every handler is ``async`` and does its database work inline: requests are handled one at a
time on the event loop, so "check the key, check for a conflict, append, commit" is never
interleaved with another request (the store is one SQLite connection).

>>> import tempfile, os
>>> from starlette.testclient import TestClient
>>> app = create_app(os.path.join(tempfile.mkdtemp(), "db.sqlite3"))
>>> with TestClient(app) as c:
...     c.get("/api/state").json()
{'error': 'missing token: send Authorization: Bearer TOKEN'}
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sheli.serve import auth
from sheli.serve.live import (
    INTERVAL_RANGE_MS,
    LiveEvent,
    compute_derived,
    iso,
    judge_tap,
    tap_tolerance_ms,
)
from sheli.serve.store import Store, now_ms

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
HOME_COOKIE = "sheli_home"
MAX_BODY = 1_000_000  # bytes: a cast CSV of thousands of names fits
MAX_PAIRS = 100
SEATS = ("上射", "下射")
TEMPLATE_OF = {
    "director": "director.html",
    "scorer": "scorer.html",
    "performer": "performer.html",
    "audience": "audience.html",
}


class ApiError(Exception):
    """A refused request: its status and ``{"error": message, **extra}``."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra

    def response(self) -> JSONResponse:
        return JSONResponse({"error": self.message, **self.extra}, status_code=self.status)


def _json(body: Any, status: int = 200) -> Response:
    return Response(
        json.dumps(body, ensure_ascii=False, separators=(",", ":")),
        status_code=status,
        media_type="application/json",
    )


@dataclass(eq=False)  # hashed by identity: one per open stream
class Subscriber:
    """One open event stream: its token and the queue of encoded messages for it."""

    token: dict[str, Any]
    queue: asyncio.Queue[bytes | None] = field(default_factory=asyncio.Queue)


def _worker_init(parent: int) -> None:
    """In the worker: leave as soon as the server process is gone. (It keeps the server's
    priority: a lower one starves it on a busy machine, and the server then waits for it.)"""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _warm() -> None:
    """In the worker: one run of the default rite, so the first real job starts warm."""
    from sheli.engine import run

    try:
        run("xiangshe", seed=0)
    except Exception:  # a broken spec is reported when an event runs it
        pass


class Server:
    """The app's state: the store, the live events in memory and the open streams."""

    def __init__(self, db_path: str | Path, keepalive_s: float = 15.0, ahead: bool = False) -> None:
        # a worker process computes engine runs ahead of the inputs likely to come next; it is
        # forked now, before the database is opened and before the server listens, so it holds
        # neither (and it exits when this process dies, even by kill -9)
        self.ahead_enabled = ahead and os.environ.get("SHELI_SERVE_AHEAD", "1") != "0"
        self.worker: ProcessPoolExecutor | None = None
        if self.ahead_enabled:
            import multiprocessing

            self.worker = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("fork"),
                initializer=_worker_init,
                initargs=(os.getpid(),),
            )
            self.worker.submit(int).result()  # start it now
            self.worker.submit(_warm)  # and warm its caches meanwhile (text, plan, spec)
        self.store = Store(db_path)
        self.keepalive_s = keepalive_s
        self.live: dict[str, LiveEvent] = {}
        self.subs: dict[str, set[Subscriber]] = {}
        self.stream_app: Any = None  # the event stream's ASGI handler (set with the routes)
        self.jinja = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(TEMPLATES)),
            autoescape=True,  # every page escapes user-entered names (issue 6 §6)
        )

    # ------------------------------------------------------------------ helpers
    def event(self, event_id: str) -> LiveEvent:
        ev = self.live.get(event_id)
        if ev is None:
            config = self.store.event(event_id)
            if config is None:
                raise ApiError(404, f"no event {event_id!r}")
            ev = LiveEvent(config, self.store.inputs(event_id))
            self.live[event_id] = ev
            self.ahead(ev)
        return ev

    def view(self, ev: LiveEvent, tok: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
        """The state as one token's view sees it (role fields and a performer's cues)."""
        out = dict(base)
        out["role"] = tok["role"]
        out["seat"] = tok.get("seat")
        out["performer_role"] = tok.get("performer_role")
        out["now_ms"] = base["server_ms"]
        out["cues"] = ev.cues(tok.get("performer_role")) if tok["role"] == "performer" else []
        return out

    def publish(self, ev: LiveEvent) -> None:
        """Send the new state to every open stream of the event (encoded once per view)."""
        subs = self.subs.get(ev.id)
        if subs:
            self._send(ev, subs)
        self.ahead(ev)

    def _send(self, ev: LiveEvent, subs: set[Subscriber]) -> None:
        base = ev.state(now_ms())
        encoded: dict[tuple[Any, ...], bytes] = {}
        for sub in list(subs):
            t = sub.token
            vk = (t["role"], t.get("seat"), t.get("performer_role"))
            msg = encoded.get(vk)
            if msg is None:
                data = json.dumps(self.view(ev, t, base), ensure_ascii=False, separators=(",", ":"))
                msg = f"id: {ev.version}\nevent: state\ndata: {data}\n\n".encode()
                encoded[vk] = msg
            sub.queue.put_nowait(msg)

    def ahead(self, ev: LiveEvent) -> None:
        """Start computing, in the worker process, the runs the next likely inputs need.

        A worker *process* (forked, so it starts warm): a thread would hold the GIL for the
        whole run and stall the event loop's writes to every stream."""
        if not self.ahead_enabled:
            return
        for key, fut in list(ev._pending.items()):
            if fut.cancel():  # not started: its base is out of date
                ev._pending.pop(key, None)
        for key, outcomes in ev.speculation_jobs():
            assert self.worker is not None
            fut = self.worker.submit(compute_derived, ev.config, ev.factor, ev.names, outcomes)
            ev._pending[key] = fut

            def done(f: Any, key: Any = key) -> None:
                ev._pending.pop(key, None)
                if not f.cancelled() and f.exception() is None:
                    ev.store_ahead(key, f.result())

            fut.add_done_callback(done)

    async def keepalive(self) -> None:
        """A comment line on every open stream every ``keepalive_s`` (one timer for all)."""
        while True:
            await asyncio.sleep(self.keepalive_s)
            for subs in self.subs.values():
                for sub in subs:
                    sub.queue.put_nowait(b": keepalive\n\n")

    def close_token(self, event_id: str, token_id: int) -> None:
        for sub in list(self.subs.get(event_id, ())):
            if sub.token["id"] == token_id:
                sub.queue.put_nowait(None)

    def render(self, name: str, **context: Any) -> str:
        return self.jinja.get_template(name).render(**context)


# ---------------------------------------------------------------------- request checks
def _bearer(request: Request, allow_query: bool) -> str | None:
    h = request.headers.get("authorization", "")
    if h[:7].lower() == "bearer ":
        return h[7:].strip() or None
    if allow_query:
        return request.query_params.get("token") or None
    return None


def _token(srv: Server, request: Request, action: str, allow_query: bool = False) -> dict[str, Any]:
    raw = _bearer(request, allow_query)
    if raw is None:
        raise ApiError(401, "missing token: send Authorization: Bearer TOKEN")
    tok = srv.store.token(raw)
    if tok is None:
        raise ApiError(401, "unknown token")
    if tok["revoked_ms"] is not None:
        raise ApiError(403, "this link has been revoked")
    if not auth.may(tok["role"], action):
        allowed = " or ".join(auth.PERMISSIONS.get(action, ())) or "nobody"
        raise ApiError(403, f"a {tok['role']} link cannot do this ({action}: {allowed} only)")
    return tok


def _origin_ok(request: Request) -> None:
    if not auth.same_origin(
        request.headers.get("origin"), request.url.scheme, request.headers.get("host")
    ):
        raise ApiError(403, f"cross-origin request refused (Origin {request.headers['origin']})")


async def _body(request: Request) -> dict[str, Any]:
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise ApiError(415, "send the body as JSON (Content-Type: application/json)")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:  # refused before it is read
        raise ApiError(413, f"the body is larger than {MAX_BODY} bytes")
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise ApiError(413, f"the body is larger than {MAX_BODY} bytes")
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApiError(400, f"the body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object")
    return body


async def _post(
    srv: Server, request: Request, action: str
) -> tuple[dict[str, Any], dict[str, Any], LiveEvent]:
    """The checks every token POST passes, in order: Origin, JSON, token, role, CSRF, key."""
    _origin_ok(request)
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != (
        "application/json"
    ):
        raise ApiError(415, "send the body as JSON (Content-Type: application/json)")
    tok = _token(srv, request, "read")
    if not auth.check_csrf(srv.store.secret, tok["hash"], request.headers.get("x-csrf-token")):
        raise ApiError(403, "missing or wrong X-CSRF-Token")
    if not auth.may(tok["role"], action):
        allowed = " or ".join(auth.PERMISSIONS.get(action, ()))
        raise ApiError(403, f"a {tok['role']} link cannot do this ({action}: {allowed} only)")
    body = await _body(request)
    key = body.pop("key", None)
    if not isinstance(key, str) or not 1 <= len(key) <= 200:
        raise ApiError(400, "every POST carries a key: a string of 1–200 characters")
    body["_key"] = key
    return tok, body, srv.event(tok["event_id"])


def _replay(srv: Server, ev: LiveEvent, kind: str, body: dict[str, Any]) -> Response | None:
    """The first response again if this key was already used for the same request."""
    prior = srv.store.by_key(ev.id, body["_key"])
    if prior is None:
        return None
    request = {k: v for k, v in body.items() if k != "_key"}
    if prior["kind"] != kind or prior["body"].get("request") != request:
        raise ApiError(409, f"the key {body['_key']!r} was already used for a different request")
    status = prior["status"]
    return _json(prior["response"], 200 if status == 201 else status)


def _int(body: dict[str, Any], name: str, lo: int, hi: int) -> int:
    v = body.get(name)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ApiError(400, f"{name} must be a whole number {lo}–{hi}, not {json.dumps(v)}")
    if not lo <= v <= hi:
        raise ApiError(400, f"{name} must be {lo}–{hi}, not {v}")
    return v


def _bool(body: dict[str, Any], name: str, optional: bool = False) -> bool | None:
    v = body.get(name)
    if v is None and optional:
        return None
    if not isinstance(v, bool):
        raise ApiError(400, f"{name} must be true or false{' or null' if optional else ''}")
    return v


def _arrow_fields(ev: LiveEvent, tok: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    rnd = _int(body, "round", 1, 3)
    pair = body.get("pair")
    if not isinstance(pair, str) or not pair:
        raise ApiError(400, "pair must be the pair's name as the event log has it (上耦 …)")
    seat = body.get("seat")
    if seat not in SEATS:
        raise ApiError(
            400, f"seat must be 上射 or 下射, not {json.dumps(seat, ensure_ascii=False)}"
        )
    arrow = _int(body, "arrow", 1, 4)
    if not auth.seat_allows(tok.get("seat"), seat):
        raise ApiError(403, f"this scorer's link records for {tok.get('seat')} only, not {seat}")
    key = (rnd, pair, seat, arrow)
    if key not in ev.expected_shots():
        pairs = sorted({p for r, p, _, _ in ev.expected_shots() if r == rnd})
        raise ApiError(
            400,
            f"round {rnd} has no arrow {arrow} of {pair}{seat}; "
            f"the pairs shooting in round {rnd} are {'、'.join(pairs)}",
        )
    return {"round": rnd, "pair": pair, "seat": seat, "arrow": arrow}


class _Asgi:
    """Marks a coroutine ``(scope, receive, send)`` as an ASGI app for a Route."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.fn(scope, receive, send)


# ---------------------------------------------------------------------- the API
def _make_routes(srv: Server) -> list[Any]:
    async def api_state(request: Request) -> Response:
        tok = _token(srv, request, "read", allow_query=True)
        ev = srv.event(tok["event_id"])
        return _json(srv.view(ev, tok, ev.state(now_ms())))

    async def api_stream(scope: Any, receive: Any, send: Any) -> None:
        """The event stream, as a plain ASGI app: one ``send`` per message and stream, the
        message encoded once for all streams of a view; a task per stream notices the
        client leaving. Keepalives come from one timer for all streams (:meth:`keepalive`)."""
        request = Request(scope, receive)
        try:
            tok = _token(srv, request, "read", allow_query=True)
            ev = srv.event(tok["event_id"])
        except ApiError as exc:
            await exc.response()(scope, receive, send)
            return
        sub = Subscriber(tok)
        srv.subs.setdefault(ev.id, set()).add(sub)
        first = json.dumps(srv.view(ev, tok, ev.state(now_ms())), ensure_ascii=False)
        first_msg = f"retry: 2000\nid: {ev.version}\nevent: state\ndata: {first}\n\n"

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            sub.queue.put_nowait(None)

        watcher = asyncio.create_task(watch())
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"text/event-stream; charset=utf-8"),
                        (b"cache-control", b"no-cache"),
                        (b"x-accel-buffering", b"no"),
                        *(
                            (k.encode(), v.encode())
                            for k, v in SECURITY_HEADERS.items()
                            if k != "cache-control"
                        ),
                    ],
                }
            )
            await send(
                {"type": "http.response.body", "body": first_msg.encode(), "more_body": True}
            )
            while True:
                msg = await sub.queue.get()
                if msg is None:  # revoked, or the client left, or the server stops
                    break
                await send({"type": "http.response.body", "body": msg, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client went away mid-write
        finally:
            watcher.cancel()
            srv.subs.get(ev.id, set()).discard(sub)

    async def api_advance(request: Request) -> Response:
        tok, body, ev = await _post(srv, request, "advance")
        if (r := _replay(srv, ev, "advance", body)) is not None:
            return r
        d = ev.derived()
        cur = ev.current(d)
        total = len(d.steps)
        if ("delta" in body) == ("to" in body):
            raise ApiError(400, "give either delta (1 or -1) or to (a step index), not both")
        if "delta" in body:
            delta = _int(body, "delta", -total, total)
            new = cur + delta
            if not 0 <= new < total:
                where = "first" if new < 0 else "last"
                raise ApiError(400, f"there is no step beyond the {where} (step {cur} of {total})")
        else:
            new = _int(body, "to", 0, total - 1)
        request_ = {k: v for k, v in body.items() if k != "_key"}
        stored = {
            "request": request_,
            "index": new,
            "anchor": list(d.anchors[new]),
            "from_anchor": list(d.anchors[cur]),
        }
        s = d.steps[new]
        response = {
            "version": ev.version + 1,
            "step": {"index": new, "total": total, "seq": s["seq"], "cite": s["cite"]},
        }
        inp = srv.store.append(ev.id, "advance", body["_key"], tok["id"], stored, 200, response)
        ev.apply(inp)
        srv.publish(ev)
        return _json(response)

    async def _record(request: Request, kind: str) -> Response:
        tok, body, ev = await _post(srv, request, kind)
        if (r := _replay(srv, ev, kind, body)) is not None:
            return r
        f = _arrow_fields(ev, tok, body)
        f["hit"] = _bool(body, "hit")
        f["on_beat"] = _bool(body, "on_beat", optional=True)
        k = (f["round"], f["pair"], f["seat"], f["arrow"])
        existing = ev.arrows.get(k)
        if kind == "arrow" and existing is not None:
            raise ApiError(
                409,
                f"round {k[0]} {k[1]}{k[2]} arrow {k[3]} is already recorded; "
                "change it with /api/arrows/correct",
                existing=existing.to_dict(),
            )
        if kind == "correct":
            if existing is None:
                raise ApiError(
                    409,
                    f"round {k[0]} {k[1]}{k[2]} arrow {k[3]} has no record to correct; "
                    "record it with /api/arrows",
                )
            reason = body.get("reason")
            if not isinstance(reason, str) or not reason.strip() or len(reason) > 500:
                raise ApiError(400, "a correction needs a reason (1–500 characters)")
            f["reason"] = reason.strip()
            f["was"] = existing.to_dict()
        f["request"] = {k2: v for k2, v in body.items() if k2 != "_key"}
        t = now_ms()
        record = {key: f[key] for key in ("round", "pair", "seat", "arrow", "hit", "on_beat")} | {
            "t": iso(t),
            "by": tok["id"],
        }
        if kind == "correct":
            record |= {"reason": f["reason"], "was": f["was"]}
        response = {"arrow": record, "version": ev.version + 1}
        inp = srv.store.append(ev.id, kind, body["_key"], tok["id"], f, 201, response, t)
        ev.apply(inp)
        srv.publish(ev)
        return _json(response, 201)

    async def api_arrows(request: Request) -> Response:
        return await _record(request, "arrow")

    async def api_correct(request: Request) -> Response:
        return await _record(request, "correct")

    async def api_taps(request: Request) -> Response:
        tok, body, ev = await _post(srv, request, "tap")
        if (r := _replay(srv, ev, "tap", body)) is not None:
            return r
        f = _arrow_fields(ev, tok, body)
        t = body.get("t_ms")
        if isinstance(t, bool) or not isinstance(t, int | float) or t < 0:
            raise ApiError(400, "t_ms must be the release time in server-epoch milliseconds")
        drum = ev.drum
        if not drum["running"] or drum["t0_ms"] is None:
            raise ApiError(409, "the drum is not running: no beat to judge the tap against")
        on_beat, offset = judge_tap(int(t), drum["t0_ms"], drum["interval_ms"])
        f |= {
            "t_ms": int(t),
            "on_beat": on_beat,
            "offset_ms": offset,
            "tolerance_ms": tap_tolerance_ms(drum["interval_ms"]),
            "interval_ms": drum["interval_ms"],
            "request": {k: v for k, v in body.items() if k != "_key"},
        }
        tap = {k: v for k, v in f.items() if k != "request"}
        response = {"tap": tap, "version": ev.version + 1}
        inp = srv.store.append(ev.id, "tap", body["_key"], tok["id"], f, 201, response)
        ev.apply(inp)
        srv.publish(ev)
        return _json(response, 201)

    async def api_drum(request: Request) -> Response:
        tok, body, ev = await _post(srv, request, "drum")
        if (r := _replay(srv, ev, "drum", body)) is not None:
            return r
        lo, hi = INTERVAL_RANGE_MS
        interval = _int(body, "interval_ms", lo, hi)
        running = _bool(body, "running")
        t0 = now_ms() if running else None
        stored = {
            "interval_ms": interval,
            "running": running,
            "t0_ms": t0,
            "request": {k: v for k, v in body.items() if k != "_key"},
        }
        drum = {"interval_ms": interval, "running": running, "t0_ms": t0}
        response = {"drum": drum, "version": ev.version + 1}
        inp = srv.store.append(ev.id, "drum", body["_key"], tok["id"], stored, 200, response)
        ev.apply(inp)
        srv.publish(ev)
        return _json(response)

    def _token_row(t: dict[str, Any]) -> dict[str, Any]:
        return {
            "token_id": t["id"],
            "role": t["role"],
            "seat": t["seat"],
            "performer_role": t["performer_role"],
            "created_at": iso(t["created_ms"]),
            "revoked": t["revoked_ms"] is not None,
            "revoked_at": iso(t["revoked_ms"]),
        }

    async def api_tokens(request: Request) -> Response:
        tok = _token(srv, request, "tokens")
        rows = srv.store.tokens(tok["event_id"])
        return _json({"tokens": [_token_row(t) for t in rows], "stored": "sha256"})

    async def api_revoke(request: Request) -> Response:
        tok, body, ev = await _post(srv, request, "tokens")
        if (r := _replay(srv, ev, "revoke", body)) is not None:
            return r
        tid = _int(body, "token_id", 1, 2**62)
        rows = {t["id"]: t for t in srv.store.tokens(ev.id)}
        if tid not in rows:
            raise ApiError(404, f"this event has no token {tid}")
        active_directors = [
            t for t in rows.values() if t["role"] == "director" and t["revoked_ms"] is None
        ]
        if rows[tid]["role"] == "director" and active_directors == [rows[tid]]:
            raise ApiError(409, "this is the event's last director link; make another first")
        srv.store.revoke(ev.id, tid)
        row = next(t for t in srv.store.tokens(ev.id) if t["id"] == tid)
        response = {"token": _token_row(row), "version": ev.version + 1}
        stored = {"token_id": tid, "request": {"token_id": tid}}
        inp = srv.store.append(ev.id, "revoke", body["_key"], tok["id"], stored, 200, response)
        ev.apply(inp)
        srv.close_token(ev.id, tid)
        srv.publish(ev)
        return _json(response)

    async def api_token_new(request: Request) -> Response:
        tok, body, ev = await _post(srv, request, "tokens")
        if (r := _replay(srv, ev, "token", body)) is not None:
            return r
        role = body.get("role")
        if role not in auth.ROLES:
            raise ApiError(400, f"role must be one of {', '.join(auth.ROLES)}")
        seat = body.get("seat")
        performer = body.get("performer_role")
        if role == "scorer":
            if seat not in auth.SEATS:
                raise ApiError(400, "a scorer's seat is 上射, 下射 or both")
        else:
            seat = None
        if role == "performer":
            if performer not in ev.derived().roles():
                known = "、".join(ev.derived().roles())
                raise ApiError(400, f"performer_role must be a role of this run: {known}")
        else:
            performer = None
        tid, raw = srv.store.add_token(ev.id, role, seat, performer)
        row = next(t for t in srv.store.tokens(ev.id) if t["id"] == tid)
        response = {"token": _token_row(row), "version": ev.version + 1}
        # the link is shown once: a replay of this key gets the record without it
        stored = {"token_id": tid, "request": {k: v for k, v in body.items() if k != "_key"}}
        inp = srv.store.append(ev.id, "token", body["_key"], tok["id"], stored, 201, response)
        ev.apply(inp)
        srv.publish(ev)
        return _json({**response, "link": f"/v/{raw}"}, 201)

    def download(what: str, media: str, suffix: str) -> Callable[[Request], Awaitable[Response]]:
        """A director's download: ``what`` names the function of sheli.serve.export that
        writes it (export_jsonl, results_csv, outcomes_csv)."""

        async def handler(request: Request) -> Response:
            tok = _token(srv, request, "export")
            from sheli.serve import export

            ev = srv.event(tok["event_id"])
            return Response(
                getattr(export, what)(ev),
                media_type=media,
                headers={"Content-Disposition": f'attachment; filename="sheli-{ev.id}{suffix}"'},
            )

        return handler

    api_export = download("export_jsonl", "application/x-ndjson; charset=utf-8", ".jsonl")
    api_results = download("results_csv", "text/csv; charset=utf-8", "-results.csv")
    api_outcomes = download("outcomes_csv", "text/csv; charset=utf-8", "-outcomes.csv")

    async def api_diagram(request: Request) -> Response:
        tok = _token(srv, request, "read", allow_query=True)
        ev = srv.event(tok["event_id"])
        raw = request.path_params["seq"]
        if not raw.isdigit():
            raise ApiError(400, f"a step's seq is a number, not {raw!r}")
        from sheli.serve.export import diagram_svg

        svg = diagram_svg(ev, int(raw))
        if svg is None:
            raise ApiError(404, f"no step {raw} in this event")
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})

    async def api_events(request: Request) -> Response:
        _origin_ok(request)
        cookie = request.cookies.get(HOME_COOKIE)
        if request.headers.get("content-type", "").split(";")[0].strip().lower() != (
            "application/json"
        ):
            raise ApiError(415, "send the body as JSON (Content-Type: application/json)")
        if not cookie or not auth.check_csrf(
            srv.store.secret, "home:" + cookie, request.headers.get("x-csrf-token")
        ):
            raise ApiError(403, "missing or wrong X-CSRF-Token (reload the home page)")
        body = await _body(request)
        from sheli.serve.events import create_event

        return _json(create_event(srv.store, body), 201)

    # ------------------------------------------------------------------ HTML
    async def home(request: Request) -> Response:
        from sheli.serve.events import rites, venues

        cookie = request.cookies.get(HOME_COOKIE) or secrets.token_urlsafe(24)
        csrf = auth.csrf_for(srv.store.secret, "home:" + cookie)
        ctx = {"csrf": csrf, "rites": rites(), "venues": venues()}
        try:
            html = srv.render("home.html", **ctx)
        except jinja2.TemplateNotFound:
            html = "<!doctype html><title>sheli</title><p>sheli serve: home.html is missing</p>"
        resp = HTMLResponse(html)
        resp.set_cookie(HOME_COOKIE, cookie, httponly=True, samesite="strict", path="/")
        return resp

    def _page_token(request: Request) -> dict[str, Any]:
        tok = srv.store.token(request.path_params["token"])
        if tok is None or tok["revoked_ms"] is not None:
            raise ApiError(404, "unknown or revoked link")
        return tok

    async def view(request: Request) -> Response:
        tok = _page_token(request)
        ev = srv.event(tok["event_id"])
        ctx = {
            "event": ev.event_dict(),
            "role": tok["role"],
            "token": request.path_params["token"],
            "csrf": auth.csrf_for(srv.store.secret, tok["hash"]),
            "seat": tok["seat"],
            "performer_role": tok["performer_role"],
        }
        try:
            html = srv.render(TEMPLATE_OF[tok["role"]], **ctx)
        except jinja2.TemplateNotFound:
            html = srv.jinja.from_string(
                "<!doctype html><meta charset=utf-8><title>{{ event.title }}</title>"
                "<p>{{ role }} view of {{ event.title }} (template missing)</p>"
            ).render(**ctx)
        return HTMLResponse(html)

    async def pack(request: Request) -> Response:
        tok = _page_token(request)
        if tok["role"] != "director":
            raise ApiError(403, "the printable pack is the director's")
        from sheli.serve.export import pack_html

        return HTMLResponse(pack_html(srv, srv.event(tok["event_id"])))

    async def results_page(request: Request) -> Response:
        tok = _page_token(request)
        if tok["role"] != "director":
            raise ApiError(403, "the results sheet is the director's")
        from sheli.serve.export import results_html

        return HTMLResponse(results_html(srv.event(tok["event_id"])))

    srv.stream_app = api_stream
    return [
        Route("/", home),
        Route("/v/{token}", view),
        Route("/v/{token}/pack", pack),
        Route("/v/{token}/results", results_page),
        Route("/api/events", api_events, methods=["POST"]),
        Route("/api/state", api_state),
        Route("/api/stream", _Asgi(api_stream), methods=["GET"]),  # (LiveApp takes it first)
        Route("/api/advance", api_advance, methods=["POST"]),
        Route("/api/arrows", api_arrows, methods=["POST"]),
        Route("/api/arrows/correct", api_correct, methods=["POST"]),
        Route("/api/taps", api_taps, methods=["POST"]),
        Route("/api/drum", api_drum, methods=["POST"]),
        Route("/api/tokens", api_tokens),
        Route("/api/tokens/revoke", api_revoke, methods=["POST"]),
        Route("/api/tokens/new", api_token_new, methods=["POST"]),
        Route("/api/export.jsonl", api_export),
        Route("/api/results.csv", api_results),
        Route("/api/outcomes.csv", api_outcomes),
        Route("/api/diagram/{seq}.svg", api_diagram),
        Mount("/static", app=StaticFiles(directory=str(STATIC), check_dir=False), name="static"),
    ]


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every response (static files may be cached)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = scope["path"].startswith("/static/")

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                hs = list(message.get("headers", []))
                have = {k.lower() for k, _ in hs}
                for k, v in SECURITY_HEADERS.items():
                    if k.encode() not in have and not (k == "cache-control" and static):
                        hs.append((k.encode(), v.encode()))
                message = {**message, "headers": hs}
            await send(message)

        await self.app(scope, receive, send_with_headers)


SECURITY_HEADERS = {
    # tokens are in the page addresses: never send them on as a Referer
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}


def create_app(db_path: str | Path, keepalive_s: float = 15.0, ahead: bool = False) -> LiveApp:
    """The app on the database at ``db_path`` (created if missing). ``ahead``: compute the
    engine runs of the likely next hits in a worker process (``sheli serve`` does)."""
    srv = Server(db_path, keepalive_s, ahead)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        timer = asyncio.create_task(srv.keepalive())
        yield
        timer.cancel()
        for subs in srv.subs.values():
            for sub in subs:
                sub.queue.put_nowait(None)
        if srv.worker is not None:
            srv.worker.shutdown(wait=True, cancel_futures=True)
        srv.store.close()

    async def on_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        if request.url.path.startswith("/v/"):
            return HTMLResponse(
                srv.jinja.from_string(
                    "<!doctype html><meta charset=utf-8><title>sheli</title><p>{{ m }}</p>"
                ).render(m=exc.message),
                status_code=exc.status,
            )
        return exc.response()

    app = Starlette(
        routes=_make_routes(srv),
        exception_handlers={ApiError: on_error},
        lifespan=lifespan,
        middleware=[Middleware(SecurityHeaders)],
    )
    app.state.server = srv
    return LiveApp(app, srv)


class LiveApp:
    """The Starlette app, with the event stream taken before its middleware and router:
    each of the hundreds of streams' messages then goes straight to the server's ``send``
    (the stream adds the security headers itself and answers its own refusals)."""

    def __init__(self, app: Starlette, srv: Server) -> None:
        self.app = app
        self.srv = srv
        self.state = app.state

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if (
            scope["type"] == "http"
            and scope["path"] == "/api/stream"
            and scope["method"] in ("GET", "HEAD")
        ):
            await self.srv.stream_app(scope, receive, send)
        else:
            await self.app(scope, receive, send)

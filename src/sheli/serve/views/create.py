"""Creating an event from the home page (``POST /api/events``).

The form is checked and the rite run once in the creation worker, a process at a lower
priority than the server's, so that creating events, even many, never holds up an event
under way; a client may create :data:`~sheli.serve.limits.CREATE_BURST` events at once,
then one every :data:`~sheli.serve.limits.CREATE_EVERY_S` seconds (429 with Retry-After).

With its ``key`` (the home page sends one, and the same one again when it retries) a
creation is idempotent: the same key from the same browser gives the same event and links
(200), a different request under it 409.

>>> canonical({"b": 1, "a": "名"})
'{"a":"名","b":1}'
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from sheli.serve import auth, checks
from sheli.serve.errors import ApiError, json_response
from sheli.serve.events import check_form, links_of, prepare_event, store_event
from sheli.serve.server import Server
from sheli.serve.views.pages import HOME_COOKIE


def canonical(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _again(srv: Server, key: str, request: str) -> Response | None:
    made = srv.store.creation(key)
    if made is None:
        return None
    eid, toks, prior = made
    if prior != request:
        raise ApiError(409, "this key was already used to create a different event")
    performers = [t["performer_role"] for t in srv.store.tokens(eid)[4 : len(toks)]]
    return json_response(links_of(eid, toks, performers), 200)


async def create(srv: Server, request: Request) -> Response:
    checks.same_origin(request)
    checks.json_type(request)
    cookie = request.cookies.get(HOME_COOKIE)
    if not cookie or not auth.check_csrf(
        srv.store.secret, "home:" + cookie, request.headers.get("x-csrf-token")
    ):
        raise ApiError(403, "missing or wrong X-CSRF-Token (reload the home page)")
    body = await checks.body(request)
    key = body.pop("key", None)
    if key is not None and (not isinstance(key, str) or not 1 <= len(key) <= 200):
        raise ApiError(400, "key is a string of 1–200 characters")
    # the key is the browser's: the same key from another browser is another creation
    scoped = None if key is None else f"{cookie}:{key}"
    request_ = canonical(body)
    if scoped is not None and (r := _again(srv, scoped, request_)) is not None:
        return r
    check_form(body)  # a bad form is refused before it counts against the client's rate
    srv.creation_slot(request.client.host if request.client else "")
    srv.creating += 1
    try:
        try:
            config, performers = await srv.in_worker(srv.maker, prepare_event, body)
        except BrokenProcessPool:
            # the worker died: creations go on in a thread (the loop keeps serving)
            srv.maker = None
            config, performers = await asyncio.to_thread(prepare_event, body)
    finally:
        srv.creating -= 1
    # the same key may have been used meanwhile (a retry while this one was in the worker)
    if scoped is not None and (r := _again(srv, scoped, request_)) is not None:
        return r
    return json_response(store_event(srv.store, config, performers, scoped, request_), 201)

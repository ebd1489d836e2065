"""The director's links: the list, a new one, a revocation. A link and its entry in the
event's log are committed in one transaction: both or neither.

>>> token_row({"id": 3, "role": "audience", "seat": None, "performer_role": None,
...            "created_ms": 0, "revoked_ms": None})["created_at"]
'1970-01-01T00:00:00.000Z'
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from sheli.serve import auth, checks
from sheli.serve.errors import ApiError, json_response
from sheli.serve.live import iso
from sheli.serve.server import Server


def token_row(t: dict[str, Any]) -> dict[str, Any]:
    return {
        "token_id": t["id"],
        "role": t["role"],
        "seat": t["seat"],
        "performer_role": t["performer_role"],
        "created_at": iso(t["created_ms"]),
        "revoked": t["revoked_ms"] is not None,
        "revoked_at": iso(t["revoked_ms"]),
    }


async def tokens(srv: Server, request: Request) -> Response:
    tok = checks.token(srv, request, "tokens")
    rows = srv.store.tokens(tok["event_id"])
    return json_response({"tokens": [token_row(t) for t in rows], "stored": "sha256"})


async def revoke(srv: Server, request: Request) -> Response:
    tok, body, ev = await checks.post(srv, request, "tokens")
    if (r := checks.replay(srv, ev, "revoke", body)) is not None:
        return r
    tid = checks.as_int(body, "token_id", 1, 2**62)
    rows = {t["id"]: t for t in srv.store.tokens(ev.id)}
    if tid not in rows:
        raise ApiError(404, f"this event has no token {tid}")
    active_directors = [
        t for t in rows.values() if t["role"] == "director" and t["revoked_ms"] is None
    ]
    if rows[tid]["role"] == "director" and active_directors == [rows[tid]]:
        raise ApiError(409, "this is the event's last director link; make another first")
    stored = {"token_id": tid, "request": {"token_id": tid}}
    with srv.store.transaction():
        srv.store.revoke(ev.id, tid)
        row = next(t for t in srv.store.tokens(ev.id) if t["id"] == tid)
        response = {"token": token_row(row), "version": ev.version + 1}
        inp = srv.store.append(ev.id, "revoke", body["_key"], tok["id"], stored, 200, response)
    ev.apply(inp)
    srv.close_token(ev.id, tid)
    srv.publish(ev)
    return json_response(response)


async def new(srv: Server, request: Request) -> Response:
    tok, body, ev = await checks.post(srv, request, "tokens")
    if (r := checks.replay(srv, ev, "token", body)) is not None:
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
    # the link is shown once: a replay of this key gets the record without it
    stored = {"token_id": 0, "request": {k: v for k, v in body.items() if k != "_key"}}
    with srv.store.transaction():
        tid, raw = srv.store.add_token(ev.id, role, seat, performer)
        stored["token_id"] = tid
        row = next(t for t in srv.store.tokens(ev.id) if t["id"] == tid)
        response = {"token": token_row(row), "version": ev.version + 1}
        inp = srv.store.append(ev.id, "token", body["_key"], tok["id"], stored, 201, response)
    ev.apply(inp)
    srv.publish(ev)
    return json_response({**response, "link": f"/v/{raw}"}, 201)

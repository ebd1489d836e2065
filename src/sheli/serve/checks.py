"""The checks a request passes before a handler acts: its token and role, its origin, its
CSRF value, its JSON body (read within the limits), its idempotency key, and its fields.

>>> as_int({"round": 2}, "round", 1, 3)
2
>>> as_int({"round": True}, "round", 1, 3)
Traceback (most recent call last):
...
sheli.serve.errors.ApiError: round must be a whole number 1–3, not true
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from sheli.scoring.outcomes import FLIGHTS, MAX_OFFSET, STRUCK, Outcome, OutcomeFieldError
from sheli.serve import auth
from sheli.serve.errors import ApiError, json_response
from sheli.serve.limits import parse_json, read_body
from sheli.serve.live import LiveEvent
from sheli.serve.server import Server

SEATS = ("上射", "下射")


#: the methods whose token may come in the address (``?token=``): a browser's EventSource, an
#: ``<img>`` or a download link cannot set a header; a POST never (docs/serve.md, "The API")
QUERY_TOKEN_METHODS = ("GET", "HEAD")


def bearer(request: Request) -> str | None:
    """The request's token: ``Authorization: Bearer``, else on a GET ``?token=``."""
    h = request.headers.get("authorization", "")
    if h[:7].lower() == "bearer ":
        return h[7:].strip() or None
    if request.method in QUERY_TOKEN_METHODS:
        return request.query_params.get("token") or None
    return None


def token(srv: Server, request: Request, action: str) -> dict[str, Any]:
    raw = bearer(request)
    if raw is None:
        raise ApiError(401, "missing token: send Authorization: Bearer TOKEN")
    if not raw.isascii():
        raise ApiError(401, "unknown token")
    tok = srv.store.token(raw)
    if tok is None:
        raise ApiError(401, "unknown token")
    if tok["revoked_ms"] is not None:
        raise ApiError(403, "this link has been revoked")
    if not auth.may(tok["role"], action):
        allowed = " or ".join(auth.PERMISSIONS.get(action, ())) or "nobody"
        raise ApiError(403, f"a {tok['role']} link cannot do this ({action}: {allowed} only)")
    return tok


def page_token(srv: Server, request: Request) -> dict[str, Any]:
    raw = request.path_params["token"]
    tok = srv.store.token(raw) if raw.isascii() else None
    if tok is None or tok["revoked_ms"] is not None:
        raise ApiError(404, "unknown or revoked link")
    return tok


def same_origin(request: Request) -> None:
    if not auth.same_origin(
        request.headers.get("origin"), request.url.scheme, request.headers.get("host")
    ):
        raise ApiError(403, f"cross-origin request refused (Origin {request.headers['origin']})")


def json_type(request: Request) -> None:
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != (
        "application/json"
    ):
        raise ApiError(415, "send the body as JSON (Content-Type: application/json)")


async def body(request: Request) -> dict[str, Any]:
    """The request's JSON object, read within :data:`~sheli.serve.limits.MAX_BODY`."""
    json_type(request)
    raw = await read_body(request.stream(), request.headers.get("content-length"))
    value = parse_json(raw)
    if not isinstance(value, dict):
        raise ApiError(400, "the body must be a JSON object")
    return value


async def post(
    srv: Server, request: Request, action: str
) -> tuple[dict[str, Any], dict[str, Any], LiveEvent]:
    """The checks every token POST passes, in order: Origin, JSON, token, role, CSRF, key;
    then the event's run is made ready (see :meth:`Server.ready`)."""
    same_origin(request)
    json_type(request)
    tok = token(srv, request, "read")
    if not auth.check_csrf(srv.store.secret, tok["hash"], request.headers.get("x-csrf-token")):
        raise ApiError(403, "missing or wrong X-CSRF-Token")
    if not auth.may(tok["role"], action):
        allowed = " or ".join(auth.PERMISSIONS.get(action, ()))
        raise ApiError(403, f"a {tok['role']} link cannot do this ({action}: {allowed} only)")
    data = await body(request)
    key = data.pop("key", None)
    if not isinstance(key, str) or not 1 <= len(key) <= 200:
        raise ApiError(400, "every POST carries a key: a string of 1–200 characters")
    data["_key"] = key
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    return tok, data, ev


def replay(srv: Server, ev: LiveEvent, kind: str, data: dict[str, Any]) -> Response | None:
    """The first response again if this key was already used for the same request."""
    prior = srv.store.by_key(ev.id, data["_key"])
    if prior is None:
        return None
    request = {k: v for k, v in data.items() if k != "_key"}
    if prior["kind"] != kind or prior["body"].get("request") != request:
        raise ApiError(409, f"the key {data['_key']!r} was already used for a different request")
    status = prior["status"]
    return json_response(prior["response"], 200 if status == 201 else status)


def as_int(data: dict[str, Any], name: str, lo: int, hi: int) -> int:
    v = data.get(name)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ApiError(400, f"{name} must be a whole number {lo}–{hi}, not {json.dumps(v)}")
    if not lo <= v <= hi:
        raise ApiError(400, f"{name} must be {lo}–{hi}, not {v}")
    return v


def as_bool(data: dict[str, Any], name: str, optional: bool = False) -> bool | None:
    v = data.get(name)
    if v is None and optional:
        return None
    if not isinstance(v, bool):
        raise ApiError(400, f"{name} must be true or false{' or null' if optional else ''}")
    return v


def arrow_fields(ev: LiveEvent, tok: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    rnd = as_int(data, "round", 1, 3)
    pair = data.get("pair")
    if not isinstance(pair, str) or not pair:
        raise ApiError(400, "pair must be the pair's name as the event log has it (上耦 …)")
    seat = data.get("seat")
    if seat not in SEATS:
        raise ApiError(
            400, f"seat must be 上射 or 下射, not {json.dumps(seat, ensure_ascii=False)}"
        )
    arrow = as_int(data, "arrow", 1, 4)
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


#: the latest release time an arrow may give, in seconds (a day: an event is shorter)
MAX_LOOSED_S = 86_400.0


def _number(data: dict[str, Any], name: str, bound: float) -> float | None:
    v = data.get(name)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not -bound <= v <= bound:
        raise ApiError(400, f"{name} must be a number within ±{bound:g}, or null")
    return float(v)


def arrow_detail(data: dict[str, Any]) -> dict[str, Any]:
    """The optional fields of an arrow (where it struck, whether it went through, what else it
    struck, its flight, when it was loosed), checked; only those given.

    >>> arrow_detail({"x": 1.5, "y": -2, "through": True, "hit": True})
    {'x': 1.5, 'y': -2.0, 'through': True}
    >>> arrow_detail({"x": 1.5})
    Traceback (most recent call last):
    ...
    sheli.serve.errors.ApiError: x and y go together (尺 from the centre of the 侯)
    >>> arrow_detail({"struck": "人", "hit": True})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sheli.serve.errors.ApiError: struck 人 is an arrow that did not 貫 the 侯, so hit is false ...
    """
    out: dict[str, Any] = {}
    x = _number(data, "x", MAX_OFFSET)
    y = _number(data, "y", MAX_OFFSET)
    if (x is None) != (y is None):
        raise ApiError(400, "x and y go together (尺 from the centre of the 侯)")
    if x is not None and y is not None:  # both or neither (above)
        out |= {"x": round(x, 3), "y": round(y, 3)}
    through = as_bool(data, "through", optional=True)
    if through is not None:
        out["through"] = through
    loosed = _number(data, "loosed_s", MAX_LOOSED_S)
    if loosed is not None:
        out["loosed_s"] = loosed
    for name, allowed in (("struck", STRUCK), ("flight", FLIGHTS)):
        v = data.get(name)
        if v in (None, ""):
            continue
        if v not in allowed:
            shown = json.dumps(v, ensure_ascii=False)
            raise ApiError(400, f"{name} must be empty or one of {'、'.join(allowed)}, not {shown}")
        out[name] = v
    if out.get("through") and data.get("hit") is False:
        raise ApiError(400, "an arrow that went through the 侯 (白矢) pierced it: hit is true")
    try:  # the fields taken together, as an outcomes file's are (docs/scoring.md)
        Outcome(0, "", "", 0, data.get("hit") is True, **out)
    except OutcomeFieldError as exc:
        raise ApiError(400, exc.message) from None
    return out

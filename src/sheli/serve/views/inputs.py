"""What moves the rite: the director's advance and drum, the scorers' arrows, corrections
and release taps. Each is appended to the log (with its idempotency key) and committed before
it is answered; the check, the append and the state change happen without an ``await``
between them, so no other request interleaves.

The drum's interval a director may set, in milliseconds:

>>> INTERVAL_RANGE_MS
(250, 10000)
"""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from sheli.serve import checks
from sheli.serve.errors import ApiError, json_response
from sheli.serve.limits import MAX_CITE, MAX_ROUND, MAX_SECTION
from sheli.serve.live import DETAIL, INTERVAL_RANGE_MS, iso, judge_tap, tap_tolerance_ms
from sheli.serve.server import Server
from sheli.serve.store import now_ms

#: a passage id as the project writes it: the rite's file, a colon, the passage's number
CITE = re.compile(r"[a-z_]+:[0-9]+")


#: the ways the director moves the rite (docs/serve.md, "Moments, jumps, the counter"):
#: by acts, by moments, to a step index, or to the first step of a round, section or passage
MOVES = ("delta", "to", "moment", "round", "section", "cite")


def move_target(d: Any, cur: int, body: dict[str, Any], origin: int | None) -> int:
    """The step index a move asks for, or a 400 saying why there is none (nothing changes)."""
    total = len(d.steps)
    here = cur if origin is None else origin
    if "delta" in body:
        delta = checks.as_int(body, "delta", -total, total)
        if delta == 0:
            raise ApiError(400, "delta 0 moves nothing: give 1 or -1 (or to: a step index)")
        new = here + delta
        if not 0 <= new < total:
            where = "first" if new < 0 else "last"
            raise ApiError(400, f"there is no step beyond the {where} (step {cur + 1} of {total})")
        return new
    if "to" in body:
        return checks.as_int(body, "to", 0, total - 1)
    if "moment" in body:
        direction = body["moment"]
        if direction not in (1, -1) or isinstance(direction, bool):
            raise ApiError(400, f"moment must be 1 (the next) or -1 (back), not {direction!r}")
        j = d.moment_start(here, direction)
        if j is None:
            where = "last" if direction > 0 else "first"
            m = d.steps[here].moment
            raise ApiError(
                400, f"there is no moment beyond the {where} (moment {m} of {d.moments})"
            )
        return int(j)
    if "round" in body:
        rounds = sorted({s.round for s in d.steps})
        rnd = checks.as_int(body, "round", 0, MAX_ROUND)
        j = d.first_where("round", rnd)
        if j is None:
            raise ApiError(400, f"round {rnd} is not in this rite (its rounds: {rounds})")
        return int(j)
    if "section" in body:
        sections = sorted({s.section for s in d.steps if s.section is not None})
        sec = checks.as_int(body, "section", 1, MAX_SECTION)
        j = d.first_where("section", sec)
        if j is None:
            raise ApiError(
                400,
                f"section {sec} is not in this rite (its sections: {sections[0]}–{sections[-1]})",
            )
        return int(j)
    cite = body["cite"]
    if not isinstance(cite, str) or len(cite) > MAX_CITE or not CITE.fullmatch(cite.strip()):
        shown = cite[:MAX_CITE] if isinstance(cite, str) else cite
        raise ApiError(400, f"cite must be a passage id like xiangshe:139, not {shown!r}")
    j = d.first_where("cite", cite.strip())
    if j is None:
        raise ApiError(400, f"no step of this rite enacts {cite.strip()}")
    return int(j)


async def advance(srv: Server, request: Request) -> Response:
    """One of :data:`MOVES`: ``{delta: ±1}`` (an act), ``{moment: ±1}`` (to the first step of
    the next moment, or back), ``{to: index}``, or a jump to the first step of ``{round: n}``,
    ``{section: n}`` or ``{cite: "xiangshe:139"}``; a bad one is a 400 and moves nothing.
    With ``from`` (the index the page shows), an advance already made (a page reloaded while
    its advance was on the way, and sent again under a new key) moves nothing: the answer is
    the step the rite is on."""
    tok, body, ev = await checks.post(srv, request, "advance")
    if (r := checks.replay(srv, ev, "advance", body)) is not None:
        return r
    d = ev.derived()
    cur = ev.current(d)
    total = len(d.steps)
    given = [k for k in MOVES if k in body]
    if len(given) != 1:
        said = f"not both {given[0]} and {given[1]}" if len(given) == 2 else "one only"
        raise ApiError(
            400,
            "give one of delta (1 or -1), moment (1 or -1), to (a step index), round, section "
            f"or cite (a passage id), {said}",
        )
    origin = body.get("from")
    if origin is not None:
        origin = checks.as_int(body, "from", 0, total - 1)
    new = move_target(d, cur, body, origin)
    s = d.steps[cur if origin is not None and cur == new else new]
    if origin is not None and cur != origin:
        if cur == new:  # already done: say where the rite is, change nothing
            step = {"index": cur, "total": total, "seq": s.seq, "cite": s.cite}
            return json_response({"version": ev.version, "step": step, "already": True})
        raise ApiError(
            409,
            f"the rite is at step {cur + 1}, not {origin + 1}: reload to see where it is",
            step={"index": cur, "total": total},
        )
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
        "step": {
            "index": new,
            "total": total,
            "seq": s.seq,
            "cite": s.cite,
            "moment": s.moment,
            "moments": d.moments,
        },
    }
    inp = srv.store.append(ev.id, "advance", body["_key"], tok["id"], stored, 200, response)
    ev.apply(inp)
    srv.publish(ev)
    return json_response(response)


async def _record(srv: Server, request: Request, kind: str) -> Response:
    tok, body, ev = await checks.post(srv, request, kind)
    if (r := checks.replay(srv, ev, kind, body)) is not None:
        return r
    f = checks.arrow_fields(ev, tok, body)
    f["hit"] = checks.as_bool(body, "hit")
    f["on_beat"] = checks.as_bool(body, "on_beat", optional=True)
    f |= checks.arrow_detail(body)
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
    record: dict[str, Any] = (
        {key: f[key] for key in ("round", "pair", "seat", "arrow", "hit", "on_beat")}
        | {key: f[key] for key in DETAIL if key in f}
        | {"t": iso(t), "by": tok["id"]}
    )
    if kind == "correct":
        record |= {"reason": f["reason"], "was": f["was"]}
    response = {"arrow": record, "version": ev.version + 1}
    inp = srv.store.append(ev.id, kind, body["_key"], tok["id"], f, 201, response, t)
    ev.apply(inp)
    srv.publish(ev)
    return json_response(response, 201)


async def arrow(srv: Server, request: Request) -> Response:
    return await _record(srv, request, "arrow")


async def correct(srv: Server, request: Request) -> Response:
    return await _record(srv, request, "correct")


async def tap(srv: Server, request: Request) -> Response:
    tok, body, ev = await checks.post(srv, request, "tap")
    if (r := checks.replay(srv, ev, "tap", body)) is not None:
        return r
    f = checks.arrow_fields(ev, tok, body)
    t = body.get("t_ms")
    # an epoch in milliseconds: beyond 2**53 a float is no longer a whole number of them
    if isinstance(t, bool) or not isinstance(t, int | float) or not 0 <= t < 2**53:
        raise ApiError(400, "t_ms must be the release time in server-epoch milliseconds")
    drum = ev.drum
    t0, interval = drum["t0_ms"], drum["interval_ms"]
    if not drum["running"] or t0 is None or interval is None:
        raise ApiError(409, "the drum is not running: no beat to judge the tap against")
    on_beat, offset = judge_tap(int(t), t0, interval)
    f |= {
        "t_ms": int(t),
        "on_beat": on_beat,
        "offset_ms": offset,
        "tolerance_ms": tap_tolerance_ms(interval),
        "interval_ms": interval,
        "request": {k: v for k, v in body.items() if k != "_key"},
    }
    tap_ = {k: v for k, v in f.items() if k != "request"}
    response = {"tap": tap_, "version": ev.version + 1}
    inp = srv.store.append(ev.id, "tap", body["_key"], tok["id"], f, 201, response)
    ev.apply(inp)
    srv.publish(ev)
    return json_response(response, 201)


async def drum(srv: Server, request: Request) -> Response:
    tok, body, ev = await checks.post(srv, request, "drum")
    if (r := checks.replay(srv, ev, "drum", body)) is not None:
        return r
    lo, hi = INTERVAL_RANGE_MS
    interval = checks.as_int(body, "interval_ms", lo, hi)
    running = checks.as_bool(body, "running")
    t0 = now_ms() if running else None
    stored = {
        "interval_ms": interval,
        "running": running,
        "t0_ms": t0,
        "request": {k: v for k, v in body.items() if k != "_key"},
    }
    state = {"interval_ms": interval, "running": running, "t0_ms": t0}
    response = {"drum": state, "version": ev.version + 1}
    inp = srv.store.append(ev.id, "drum", body["_key"], tok["id"], stored, 200, response)
    ev.apply(inp)
    srv.publish(ev)
    return json_response(response)

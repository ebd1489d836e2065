"""The 五物 asked of the audience (docs/serve.md, "The 五物"): the director opens and closes a
question about an archer (an input of the log, like an advance), and every audience screen
answers it once.

A screen's voice is a random cookie the audience page gives it (``sheli_voter``, HttpOnly,
SameSite=Strict); the store keeps an HMAC of it under the server's secret, with the event, and
a UNIQUE constraint on (event, question, voice): a screen's first answer stands.

>>> voice(b"k" * 32, "e1", "abc") == voice(b"k" * 32, "e1", "abc") != voice(b"k" * 32, "e2", "abc")
True
"""

from __future__ import annotations

import hashlib
import hmac

from starlette.requests import Request
from starlette.responses import Response

from sheli.serve import checks, wuwu
from sheli.serve.errors import ApiError, json_response
from sheli.serve.server import Server

VOTER_COOKIE = "sheli_voter"


def voice(secret: bytes, event_id: str, cookie: str) -> str:
    """What the store keeps of a screen's cookie: an HMAC, so the database holds no cookie."""
    mac = hmac.new(secret, f"voter:{event_id}:{cookie}".encode(), hashlib.sha256)
    return mac.hexdigest()[:32]


async def question(srv: Server, request: Request) -> Response:
    """``{action: "open", item, archer}`` or ``{action: "close"}`` (the director)."""
    tok, body, ev = await checks.post(srv, request, "question")
    if (r := checks.replay(srv, ev, "question", body)) is not None:
        return r
    if ev.config.get("rite", wuwu.RITE) != wuwu.RITE:
        raise ApiError(409, "the 五物 are asked at a 鄉射禮 (周禮 鄉大夫: 以鄉射之禮五物詢衆庶)")
    d = ev.derived()
    i = ev.current(d)
    action = body.get("action")
    now_open = ev.questions.open_one()
    request_ = {k: v for k, v in body.items() if k != "_key"}
    if action == "open":
        name = body.get("item")
        it = wuwu.item(name) if isinstance(name, str) else None
        if it is None or not it["asked"]:
            asked = "、".join(i["name"] for i in wuwu.items() if i["asked"])
            raise ApiError(400, f"item must be one of {asked} (主皮 is counted from the hits)")
        archer = body.get("archer")
        archers = ev.archers(d)
        if not isinstance(archer, str) or archer not in archers:
            raise ApiError(400, f"archer must be one of {'、'.join(archers)}")
        if now_open is not None:
            raise ApiError(
                409,
                f"question {now_open['id']} ({now_open['item']}, {now_open['archer']}) is open: "
                "close it first",
            )
        moment = ev.moment(d, archer, i)
        if it["moment"] != moment:
            raise ApiError(
                409,
                f"{it['name']} is seen {wuwu.MOMENTS[it['moment']]} (易氏's order); "
                f"{archer} is now {wuwu.MOMENTS[moment]}",
                moment=moment,
            )
        stored = {
            "action": "open",
            "id": ev.questions.next_id(),
            "item": it["name"],
            "archer": archer,
            "round": d.steps[i].round,
            "moment": moment,
            "request": request_,
        }
    elif action == "close":
        if now_open is None:
            raise ApiError(409, "no question is open")
        stored = {"action": "close", "id": now_open["id"], "request": request_}
    else:
        raise ApiError(400, 'action must be "open" or "close"')
    shown = {k: v for k, v in stored.items() if k != "request"}
    response = {"question": shown, "version": ev.version + 1}
    inp = srv.store.append(ev.id, "question", body["_key"], tok["id"], stored, 200, response)
    ev.apply(inp)
    srv.publish(ev)
    return json_response(response)


async def vote(srv: Server, request: Request) -> Response:
    """``{question, answer: true | false}`` (an audience screen): 201, or 200 with the first
    answer when this screen has answered already."""
    _, body, ev = await checks.post(srv, request, "vote")
    client = request.client.host if request.client else ""
    wait = srv.voting.take(client)
    if wait:
        raise ApiError(
            429,
            f"too many answers from this address: try again in {wait:g} s",
            headers={"Retry-After": str(max(1, round(wait)))},
        )
    cookie = request.cookies.get(VOTER_COOKIE, "")
    if not 16 <= len(cookie) <= 64 or not cookie.isascii():
        raise ApiError(400, "this screen has no voice yet: open the audience page first")
    qid = checks.as_int(body, "question", 1, 1_000_000)
    answer = checks.as_bool(body, "answer")
    q = ev.questions.asked.get(qid)
    if q is None or not q["open"]:
        raise ApiError(409, f"question {qid} is not open")
    if ev.questions.answers(qid) >= wuwu.MAX_ANSWERS:
        raise ApiError(409, f"question {qid} has had its {wuwu.MAX_ANSWERS} answers")
    who = voice(srv.store.secret, ev.id, cookie)
    if not srv.store.vote(ev.id, qid, who, bool(answer)):
        first = srv.store.vote_of(ev.id, qid, who)
        return json_response({"vote": {"question": qid, "answer": first}, "already": True})
    ev.questions.count(qid, bool(answer))
    srv.tally(ev)
    return json_response({"vote": {"question": qid, "answer": answer}}, 201)

"""The HTML pages: the home page's form, a link's view by its role, the director's
printable pack and results sheet.

>>> TEMPLATE_OF["scorer"]
'scorer.html'
"""

from __future__ import annotations

import asyncio
import secrets

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from sheli.serve import auth, checks, export, live
from sheli.serve.english import page_english
from sheli.serve.errors import ApiError
from sheli.serve.events import rite_options, rites, venues
from sheli.serve.limits import MAX_PAIRS
from sheli.serve.server import Server
from sheli.serve.views import wuwu

HOME_COOKIE = "sheli_home"
TEMPLATE_OF = {
    "director": "director.html",
    "scorer": "scorer.html",
    "performer": "performer.html",
    "audience": "audience.html",
}


async def home(srv: Server, request: Request) -> Response:
    cookie = request.cookies.get(HOME_COOKIE) or secrets.token_urlsafe(24)
    csrf = auth.csrf_for(srv.store.secret, "home:" + cookie)
    options = {r["key"]: rite_options(r["key"]) for r in rites()}
    ctx = {
        "csrf": csrf,
        "rites": [{**r, "options": options[r["key"]]} for r in rites()],
        "venues": venues(),
        "max_pairs": MAX_PAIRS,
    }
    try:
        html = srv.render("home.html", **ctx)
    except jinja2.TemplateNotFound:
        html = "<!doctype html><title>sheli</title><p>sheli serve: home.html is missing</p>"
    resp = HTMLResponse(html)
    resp.set_cookie(HOME_COOKIE, cookie, httponly=True, samesite="strict", path="/")
    return resp


async def english(srv: Server, request: Request) -> Response:
    """The live pages' English (``static/english.js``): the same for every page and event,
    kept by the browser for a day."""
    return JSONResponse(page_english(), headers={"Cache-Control": "public, max-age=86400"})


async def view(srv: Server, request: Request) -> Response:
    tok = checks.page_token(srv, request)
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    ctx = {
        "event": ev.event_dict(),
        "role": tok["role"],
        "token": request.path_params["token"],
        "csrf": auth.csrf_for(srv.store.secret, tok["hash"]),
        "seat": tok["seat"],
        "performer_role": tok["performer_role"],
        # the audience screen's words in English, for its language switch (docs/serve.md)
        "english": live.audience_english() if tok["role"] == "audience" else None,
    }
    try:
        html = srv.render(TEMPLATE_OF[tok["role"]], **ctx)
    except jinja2.TemplateNotFound:
        html = srv.jinja.from_string(
            "<!doctype html><meta charset=utf-8><title>{{ event.title }}</title>"
            "<p>{{ role }} view of {{ event.title }} (template missing)</p>"
        ).render(**ctx)
    resp = HTMLResponse(html)
    if tok["role"] == "audience" and not request.cookies.get(wuwu.VOTER_COOKIE):
        # this screen's voice for the 五物: one answer per screen per question
        resp.set_cookie(
            wuwu.VOTER_COOKIE, secrets.token_urlsafe(24), httponly=True, samesite="strict", path="/"
        )
    return resp


async def pack(srv: Server, request: Request) -> Response:
    tok = checks.page_token(srv, request)
    if tok["role"] != "director":
        raise ApiError(403, "the printable pack is the director's")
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    # the cue book of the whole rite takes a second or more: in a thread (the loop serves on)
    return HTMLResponse(await asyncio.to_thread(export.pack_html, srv, ev))


async def results(srv: Server, request: Request) -> Response:
    tok = checks.page_token(srv, request)
    if tok["role"] != "director":
        raise ApiError(403, "the results sheet is the director's")
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    return HTMLResponse(await asyncio.to_thread(export.results_html, ev))

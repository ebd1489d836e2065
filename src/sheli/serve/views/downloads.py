"""What a director takes away (the export, the results, the outcomes file), a step's
diagram, and a link's QR code. What takes long to write is written in a thread: the event
loop goes on serving the event meanwhile.

A QR code is drawn for a link by whoever holds it (``/qr/TOKEN.svg``: the token in the path
is the permission, as for the link itself): the home page shows one beside each new link,
the director's page beside each link it makes, and the pack prints them, so performers open
their links by pointing a phone at paper.

>>> svg = qr_svg("http://127.0.0.1:8000/v/abc")
>>> svg.startswith("<svg") and "</svg>" in svg
True
"""

from __future__ import annotations

import asyncio
import re

import segno
from starlette.requests import Request
from starlette.responses import Response

from sheli.serve import checks, export
from sheli.serve.errors import ApiError
from sheli.serve.server import Server

_SEQ = re.compile(r"[0-9]{1,9}")


def _attachment(ev_id: str, body: str, media: str, suffix: str) -> Response:
    return Response(
        body,
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="sheli-{ev_id}{suffix}"'},
    )


async def export_jsonl(srv: Server, request: Request) -> Response:
    tok = checks.token(srv, request, "export")
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    body = await asyncio.to_thread(export.export_jsonl, ev)
    return _attachment(ev.id, body, "application/x-ndjson; charset=utf-8", ".jsonl")


async def results_csv(srv: Server, request: Request) -> Response:
    tok = checks.token(srv, request, "export")
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    body = await asyncio.to_thread(export.results_csv, ev)
    return _attachment(ev.id, body, "text/csv; charset=utf-8", "-results.csv")


async def outcomes_csv(srv: Server, request: Request) -> Response:
    tok = checks.token(srv, request, "export")
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    return _attachment(ev.id, export.outcomes_csv(ev), "text/csv; charset=utf-8", "-outcomes.csv")


async def diagram(srv: Server, request: Request) -> Response:
    tok = checks.token(srv, request, "read", allow_query=True)
    ev = srv.event(tok["event_id"])
    raw = request.path_params["seq"]
    if not _SEQ.fullmatch(raw):
        raise ApiError(400, "a step's seq is a number (0–999999999)")
    # the view: auto (the hall when the actor is in it, else the range), hall or range (the
    # audience screen asks for the range when an arrow flies)
    view = request.query_params.get("view", "auto")
    if view not in ("auto", "hall", "range"):
        raise ApiError(400, "view: auto, hall or range")
    await srv.ready(ev)
    # the first diagram of a run builds the frames of the whole run: in a thread, so that the
    # loop goes on serving meanwhile
    svg = await asyncio.to_thread(export.diagram_svg, ev, int(raw), view)
    if svg is None:
        raise ApiError(404, f"no step {raw} in this event")
    return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})


def qr_svg(url: str) -> str:
    """The QR code of ``url`` as SVG (error correction M: a printed page may get a crease)."""
    return str(segno.make(url, error="m").svg_inline(scale=4, border=2))


async def qr(srv: Server, request: Request) -> Response:
    tok = checks.page_token(srv, request)
    del tok
    url = f"{str(request.base_url).rstrip('/')}/v/{request.path_params['token']}"
    return Response(qr_svg(url), media_type="image/svg+xml")

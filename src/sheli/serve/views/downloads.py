"""What a director takes away (the export, the results, the outcomes file), a step's
diagram, and a link's QR code. What takes long to write is written in a thread: the event
loop goes on serving the event meanwhile.

A QR code is drawn for a link by whoever holds it (``/qr/TOKEN.svg``: the token in the path
is the permission, as for the link itself): the home page shows one beside each new link,
the director's page beside each link it makes, and the pack prints them, so performers open
their links by pointing a phone at paper.

The code is a standalone SVG document, served as ``image/svg+xml``: it names the SVG
namespace, or a browser draws an ``<img>`` of it empty; and it has a view box, so it scales
to the size the page gives it.

>>> svg = qr_svg("http://127.0.0.1:8000/v/abc")
>>> svg[:75]
'<svg xmlns="http://www.w3.org/2000/svg" width="148" height="148" viewBox="0'
"""

from __future__ import annotations

import asyncio
import io
import itertools
import re

import segno
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from sheli.outputs.runofshow import METRE_PER_CHI
from sheli.serve import checks, export
from sheli.serve.errors import ApiError, json_response
from sheli.serve.hou import hou_svg
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
    # written a line at a time, never as one string: the first line is made here, in a
    # thread, which reads the run as performed now (a snapshot of the arrows); the rest
    # follow from it as the client reads them (starlette iterates in a thread)
    lines = export.export_jsonl_lines(ev)
    first = await asyncio.to_thread(next, lines)
    return StreamingResponse(
        itertools.chain((first,), lines),
        media_type="application/x-ndjson; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="sheli-{ev.id}.jsonl"'},
    )


async def results_csv(srv: Server, request: Request) -> Response:
    tok = checks.token(srv, request, "export")
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    body = await asyncio.to_thread(export.results_csv, ev)
    return _attachment(ev.id, body, "text/csv; charset=utf-8", "-results.csv")


async def five_json(srv: Server, request: Request) -> Response:
    """The 五射 of every archer and round as recorded, and at a 鄉射禮 the 五物 (the
    audience's answers, 主皮 from the hits), each with its definition and source."""
    tok = checks.token(srv, request, "export")
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    answers = srv.store.votes(ev.id)
    body = {
        "五射": [v.to_json() for v in export.five_verdicts(ev)],
        "五物": (
            [r.to_json() for r in export.wuwu_results(ev, answers)]
            if export.is_xiangshe(ev)
            else None
        ),
    }
    return json_response(body)


async def votes_csv(srv: Server, request: Request) -> Response:
    """The audience's answers as a votes file (``sheli score --votes FILE``)."""
    tok = checks.token(srv, request, "export")
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    body = export.votes_csv(ev, srv.store.votes(ev.id))
    return _attachment(ev.id, body, "text/csv; charset=utf-8", "-votes.csv")


async def outcomes_csv(srv: Server, request: Request) -> Response:
    tok = checks.token(srv, request, "export")
    ev = srv.event(tok["event_id"])
    await srv.ready(ev)
    return _attachment(ev.id, export.outcomes_csv(ev), "text/csv; charset=utf-8", "-outcomes.csv")


async def diagram(srv: Server, request: Request) -> Response:
    tok = checks.token(srv, request, "read")
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
    return Response(svg, media_type="image/svg+xml")  # no-store, as every answer (headers.py)


async def hou(srv: Server, request: Request) -> Response:
    """The event's 侯 drawn to scale (``?hou=NAME``: the one a shot line names; else the
    rite's first): the scorer taps it, the audience sees the arrows on it."""
    tok = checks.token(srv, request, "read")
    ev = srv.event(tok["event_id"])
    name = request.query_params.get("hou") or None
    if name is not None and len(name) > 20:
        raise ApiError(400, "hou is the name of a 侯 (大侯, 參侯, 干侯 …)")
    metre = METRE_PER_CHI * ev.factor
    svg = hou_svg(ev.config.get("rite", "xiangshe"), name, round(metre, 4))
    return Response(svg, media_type="image/svg+xml")  # no-store, as every answer (headers.py)


#: pixels a module of the code is drawn (the pages scale the image to their own size)
QR_SCALE = 4
#: the light margin around the code, in modules: the four the QR standard asks for
QR_BORDER = 4


def qr_svg(url: str) -> str:
    """The QR code of ``url`` as an SVG document (error correction M: a printed page may get a
    crease), dark on white, the margin included (a page of any colour around it leaves it
    readable)."""
    code = segno.make(url, error="m")
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        scale=QR_SCALE,
        border=QR_BORDER,
        dark="#000",
        light="#fff",
        xmldecl=False,  # the document's own declaration is not needed: it is UTF-8
        svgns=True,
        nl=False,
        omitsize=True,  # the view box, to which the size is added below
    )
    width, height = code.symbol_size(scale=QR_SCALE, border=QR_BORDER)
    return (
        out.getvalue()
        .decode()
        .replace(" viewBox=", f' width="{width}" height="{height}" viewBox=', 1)
    )


async def qr(srv: Server, request: Request) -> Response:
    tok = checks.page_token(srv, request)
    del tok
    url = f"{str(request.base_url).rstrip('/')}/v/{request.path_params['token']}"
    return Response(qr_svg(url), media_type="image/svg+xml")

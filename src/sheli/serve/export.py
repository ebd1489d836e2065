"""What an event gives after (and during) the day: the event log as performed, the results,
the step diagrams and the printable pack.

The export is the event-log contract of ``sheli run --format jsonl`` (docs/event-log.md)
with fields added, never renamed: ``t`` (ISO 8601, UTC) on each step the director reached
(when it first became the current step) and on each recorded arrow's shot line (when it was
recorded or last corrected), ``pending: true`` on a shot nobody recorded (counted as a
miss), ``corrections`` on a corrected one, and ``live`` on the scene line.

>>> from sheli.serve.live import LiveEvent
>>> ev = LiveEvent({"id": "e1", "created_ms": 0, "rite": "xiangshe", "venue": "xie",
...                 "pairs": 0, "guests_shoot": False, "dafu": 1, "cast": []})
>>> lines = export_jsonl(ev).splitlines()
>>> import json; json.loads(lines[0])["type"], json.loads(lines[0])["live"]["event_id"]
('scene', 'e1')
"""

from __future__ import annotations

import csv
import io
from typing import Any

import jinja2
from markupsafe import Markup

from sheli.outputs.cues import (
    build_book,
    render_html,
    section_topics,
    venue_scale,
)
from sheli.outputs.diagram import render_svg
from sheli.outputs.eventlog import to_jsonl
from sheli.outputs.frames import build_frames
from sheli.outputs.runofshow import fmt, load_durations, sections
from sheli.place import load_venue
from sheli.serve.live import LiveEvent, iso, plan_run

#: a spreadsheet takes a cell that starts with one of these for a formula (=HYPERLINK(…))
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a leading ``'`` before a formula's sign.

    >>> cell("=HYPERLINK(1)"), cell("@SUM(A1)"), cell("王小明"), cell(3)
    ("'=HYPERLINK(1)", "'@SUM(A1)", '王小明', 3)
    """
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def performed_events(ev: LiveEvent) -> list[dict[str, Any]]:
    """The run's events with the live event's timestamps, names and pending marks."""
    d = ev.derived()
    reached = ev.reached_at(d)
    t_of_seq = {d.steps[i]["seq"]: t for i, t in reached.items()}
    out: list[dict[str, Any]] = []
    for e in d.run.events:
        e = dict(e)
        if e["type"] == "scene":
            e["cast"] = [
                {**c, "name": ev.names[c["actor"]]} if c["actor"] in ev.names else c
                for c in e.get("cast", ())
            ]
            e["live"] = {
                "event_id": ev.id,
                "created_at": iso(ev.config.get("created_ms")),
                "started_at": iso(ev.started_ms),
                "hou_dao_m": ev.config.get("hou_dao_m"),
                "inputs": ev.version,
            }
        elif e["type"] == "step":
            if e["actor"] in ev.names:
                e["name"] = ev.names[e["actor"]]
            if e["seq"] in t_of_seq:
                e["t"] = iso(t_of_seq[e["seq"]])
        elif e["type"] == "shot":
            if e["pair"] != "誘射":
                rec = ev.arrows.get((e["round"], e["pair"], e["archer"], e["arrow"]))
                if rec is None:
                    e["pending"] = True
                else:
                    e["t"] = iso(rec.t_ms)
                    # the run is shared by every set of outcomes that differ only in misses'
                    # marks: the mark is the record's (as `sheli run` would write it)
                    on_beat = ev.shot_on_beat((e["round"], e["pair"], e["archer"], e["arrow"]))
                    if not e["hit"]:
                        e.pop("on_beat", None)
                        if on_beat is not None:
                            e["on_beat"] = on_beat
                    if rec.corrections:
                        e["corrections"] = rec.corrections
        elif e["type"] == "tally" and e["seq"] in t_of_seq:
            e["t"] = iso(t_of_seq[e["seq"]])
        out.append(e)
    return out


def export_jsonl(ev: LiveEvent) -> str:
    return to_jsonl(performed_events(ev))


RESULT_FIELDS = (
    "round", "pair", "seat", "archer", "name", "arrow", "hit", "on_beat", "counted",
    "recorded", "t", "corrections",
)  # fmt: skip


def _row(ev: LiveEvent, e: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A results row for the shot line ``e``; ``fields`` give the recorded columns."""
    return {
        "round": e["round"],
        "pair": e["pair"],
        "seat": e["archer"],
        "archer": e["person"],
        "name": ev.names.get(e["person"], ""),
        "arrow": e["arrow"],
        **fields,
    }


def results_rows(ev: LiveEvent) -> list[dict[str, Any]]:
    """One row per arrow of the three rounds (the 誘射 left out: it is never recorded)."""
    rows = []
    for e in performed_events(ev):
        if e["type"] != "shot" or e["pair"] == "誘射":
            continue
        pending = e.get("pending")
        rows.append(
            _row(
                ev,
                e,
                hit="" if pending else str(e["hit"]).lower(),
                on_beat="" if e.get("on_beat") is None else str(e["on_beat"]).lower(),
                counted="" if pending else str(e["counted"]).lower(),
                recorded=str(not pending).lower(),
                t=e.get("t", ""),
                corrections=e.get("corrections", 0),
            )
        )
    d = ev.derived()
    if d.stopped:
        # the engine stopped early: the arrows of the rest, as recorded (not yet counted)
        plan = plan_run(ev.config)
        seen = {(r["round"], r["pair"], r["seat"], r["arrow"]) for r in rows}
        for e in plan.shots if plan is not None else ():
            k = (e["round"], e["pair"], e["archer"], e["arrow"])
            if e["pair"] == "誘射" or k in seen:
                continue
            rec = ev.arrows.get(k)
            rows.append(
                _row(
                    ev,
                    e,
                    hit=str(rec.hit).lower() if rec else "",
                    on_beat="" if not rec or rec.on_beat is None else str(rec.on_beat).lower(),
                    counted="",
                    recorded=str(rec is not None).lower(),
                    t=iso(rec.t_ms) if rec else "",
                    corrections=rec.corrections if rec else 0,
                )
            )
    return rows


def results_csv(ev: LiveEvent) -> str:
    """The arrows as CSV, one row each (header: :data:`RESULT_FIELDS`)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=RESULT_FIELDS, lineterminator="\n")
    w.writeheader()
    w.writerows({k: cell(v) for k, v in row.items()} for row in results_rows(ev))
    return buf.getvalue()


def outcomes_csv(ev: LiveEvent) -> str:
    """The arrows as an outcomes file (docs/scoring.md): ``sheli run`` / ``sheli render``
    with ``--outcomes`` and the event's parameters give the event as performed (the command
    is in the file's first comment). Arrows nobody recorded are written as misses, each with
    a comment, since the live app counted them so."""
    c = ev.config
    p = ev.derived().run.params
    args = [f"--venue {p.get('venue')}", f"--pairs {p.get('pairs', 0)}"]
    if not p.get("guests_shoot"):
        args.append("--no-guests")
    else:
        args.append(f"--dafu {p.get('dafu', 1)}")
    for name, value in (c.get("options") or {}).items():
        args.append(f"--option {name}={str(value).lower() if isinstance(value, bool) else value}")
    out = [
        f"# sheli render {c.get('rite', 'xiangshe')} {' '.join(args)} "
        f"--outcomes sheli-{ev.id}-outcomes.csv -o viewer",
        "round,pair,archer,arrow,hit,on_beat",
    ]
    for k in ev.shot_order():
        rec = ev.arrows.get(k)
        if rec is None:
            out.append(f"# not recorded (a miss): round {k[0]} {k[1]}{k[2]} arrow {k[3]}")
            out.append(f"{k[0]},{k[1]},{k[2]},{k[3]},false,")
            continue
        on_beat = ev.shot_on_beat(k)
        mark = "" if on_beat is None else str(on_beat).lower()
        out.append(f"{k[0]},{k[1]},{k[2]},{k[3]},{str(rec.hit).lower()},{mark}")
    return "\n".join(out) + "\n"


def diagram_svg(ev: LiveEvent, seq: int, view: str = "auto") -> str | None:
    """The diagram of the step with this seq in the event's current run (None if none), in
    ``view`` (auto, hall or range: :func:`sheli.outputs.diagram.render_svg`)."""
    d = ev.derived()
    cache = d.__dict__.setdefault("_svg", {})
    if (seq, view) in cache:
        return cache[(seq, view)]
    frames = d.__dict__.get("_frames")
    if frames is None:
        frames = d.__dict__["_frames"] = build_frames(d.run)
    idx = next((i for i, s in enumerate(d.steps) if s["seq"] == seq), None)
    if idx is None:
        return None
    svg = render_svg(frames[idx], d.run.events[0], view=view)
    if len(cache) > 200:
        cache.clear()
    cache[(seq, view)] = svg
    return svg


_ENV = jinja2.Environment(autoescape=True)

RUN_OF_SHOW = _ENV.from_string(
    """<section class="run-of-show" style="page-break-after: always">
<h1>{{ title }} · run-of-show</h1>
<p>Estimated total {{ total }} ({{ steps }} steps). Each duration is an estimate: the verb's
base time, the walk at {{ pace }} m/s at this floor's scale (侯道 {{ hou }}), and the words at
{{ speech }} s a character. The assumptions behind each number are listed below the table.</p>
<table border="1" cellspacing="0" cellpadding="3">
<thead><tr><th>start</th><th>duration</th><th>round</th><th>賈疏 section</th><th>passages</th>
<th>steps (seq)</th><th>who</th></tr></thead>
<tbody>
{% for r in rows %}<tr><td>{{ r.start }}</td><td>{{ r.dur }}</td><td>{{ r.round }}</td>
<td>{{ r.section }} {{ r.topic }}</td><td>{{ r.first_cite }}–{{ r.last_cite }}</td>
<td>{{ r.first_seq }}–{{ r.last_seq }}</td><td>{{ r.actors }}</td></tr>
{% endfor %}</tbody></table>
<h2>Assumptions of the durations</h2>
<ul>
<li>Walking: {{ walk }}</li>
<li>Speech: {{ speech_why }}</li>
<li>Other acts: {{ default_why }}</li>
{% for verb, secs, why in verbs %}<li>{{ verb }} {{ secs }} s: {{ why }}</li>
{% endfor %}</ul>
</section>"""
)


def run_of_show_html(ev: LiveEvent) -> str:
    """The run-of-show table by 賈疏 section, with the assumptions of every number."""
    d = ev.derived()
    table = load_durations()
    try:
        topics = section_topics(d.run.spec.spec.chapter)
    except Exception:
        topics = {}
    used = sorted({s["verb"] for s in d.steps})
    rows = [
        {
            "start": fmt(r["start_s"]),
            "dur": fmt(r["seconds"]),
            "round": r["round"],
            "section": r["section"],
            "topic": (topics.get(r["section"]) or ("",))[0],
            "first_cite": r["first_cite"],
            "last_cite": r["last_cite"],
            "first_seq": r["first_seq"],
            "last_seq": r["last_seq"],
            "actors": "、".join(
                f"{a}（{ev.names[a]}）" if a in ev.names else a for a in r["actors"][:8]
            )
            + (" …" if len(r["actors"]) > 8 else ""),
        }
        for r in sections(d.steps, d.estimate)
    ]
    hou = ev.config.get("hou_dao_m")
    return RUN_OF_SHOW.render(
        title=ev.config.get("title") or d.run.title,
        total=fmt(d.estimate.total),
        steps=len(d.steps),
        pace=table.walk_mps,
        hou=f"{hou:g} m" if hou else "300 尺 = 69.3 m, full size",
        speech=table.speech_s_per_char,
        rows=rows,
        walk=table.walk_assumption,
        speech_why=table.speech_assumption,
        default_why=table.default[1],
        verbs=[(v, table.verbs[v][0], table.verbs[v][1]) for v in used if v in table.verbs],
    )


def pack_html(srv: Any, ev: LiveEvent) -> str:
    """The printable pack: run-of-show, floor plan with taping measurements, a cue sheet per
    person (sheli.outputs.cues at the event's scale). If the frontend provides
    ``templates/pack.html`` it is rendered with ``{event, run_of_show, cues_html}``."""
    d = ev.derived()
    cache = d.__dict__.setdefault("_pack", {})
    if "html" in cache:
        return cache["html"]
    hou = ev.config.get("hou_dao_m")
    scale = venue_scale(load_venue(d.run.venue), hou_dao=float(hou) if hou else None)
    book = build_book(d.run, scale=scale, diagrams="plan")
    for sheet in book.sheets:  # the cast's names on their sheets
        if sheet.role in ev.names and hasattr(sheet, "name"):
            sheet.name = ev.names[sheet.role]
    cues_html = render_html(book)
    ros = run_of_show_html(ev)
    try:
        html = srv.render(
            "pack.html",
            event=ev.event_dict(),
            run_of_show=Markup(ros),
            cues_html=Markup(cues_html),
        )
    except jinja2.TemplateNotFound:
        # the cue book is a whole page: the run-of-show goes in at the start of its body
        at = cues_html.find(">", cues_html.find("<body")) + 1
        cast = _ENV.from_string(
            "<section><h1>{{ t }} · cast</h1><ul>{% for c in cast %}<li>{{ c.actor }}"
            " — {{ c.name }}</li>{% endfor %}</ul></section>"
        ).render(t=ev.config.get("title") or d.run.title, cast=ev.config.get("cast", ()))
        html = cues_html[:at] + cast + ros + cues_html[at:] if at > 0 else ros + cues_html
    # the links as QR codes, from the address's fragment (see static/pack.js)
    script = '<script type="module" src="/static/pack.js"></script>'
    at = html.rfind("</body>")
    html = html[:at] + script + html[at:] if at >= 0 else html + script
    cache["html"] = html
    return html


RESULTS = _ENV.from_string(
    """<!doctype html><html lang="zh-Hant"><head><meta charset="utf-8">
<meta name="referrer" content="no-referrer"><title>{{ title }} · results</title>
<style>body{font-family:serif} table{border-collapse:collapse} td,th{border:1px solid #999;
padding:2px 6px} .hit{font-weight:bold}</style></head><body>
<h1>{{ title }} · results</h1>
<p>Event {{ id }}{% if started %}, started {{ started }}{% endif %}.</p>
{% for a in announcements %}<h2>第{{ a.round }}番: {{ a.announcement }} (右 {{ a.right }} 筭,
左 {{ a.left }} 筭)</h2>{% endfor %}
{% for r in drinks %}<p>Round {{ r[0] }}: {{ r[1] }}{% if r[2] %}（{{ r[2] }}）{% endif %}
drinks ({{ r[3] }})</p>{% endfor %}
<table><thead><tr>{% for f in fields %}<th>{{ f }}</th>{% endfor %}</tr></thead><tbody>
{% for row in rows %}<tr>{% for f in fields %}<td{% if f == 'hit' and row[f] == 'true' %}
 class="hit"{% endif %}>{{ row[f] }}</td>{% endfor %}</tr>{% endfor %}
</tbody></table></body></html>"""
)


def results_html(ev: LiveEvent) -> str:
    """The printable results sheet: the announcements, who drank, every arrow."""
    d = ev.derived()
    return RESULTS.render(
        title=ev.config.get("title") or d.run.title,
        id=ev.id,
        started=iso(ev.started_ms),
        announcements=d.tallies,
        drinks=[(r, who, ev.names.get(who), cite) for r, who, cite in d.run.drinks],
        fields=RESULT_FIELDS,
        rows=results_rows(ev),
    )

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
from collections.abc import Callable, Iterator
from typing import Any

import jinja2
from markupsafe import Markup

from sheli.engine.records import BaseVisitor, Scene, Shot, Step, Tally
from sheli.outputs.cues import (
    build_book,
    render_html,
    section_topics,
    venue_scale,
)
from sheli.outputs.diagram import render_svg
from sheli.outputs.eventlog import line_of
from sheli.outputs.frames import build_frames
from sheli.outputs.runofshow import fmt, load_durations, sections
from sheli.outputs.xiangchi import xiangchi_places
from sheli.scoring.five import (
    VOTE_FIELDS,
    Verdict,
    Vote,
    judge_five,
    tally_wuwu,
)
from sheli.scoring.outcomes import OPTIONAL_FIELDS, Outcome
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


class PerformedLog(BaseVisitor["PerformedLog"]):
    """The reader of an event's run that writes its log as performed: each record's line
    (its ``to_json()``, the contract) with the live event's fields added; ``shots`` keeps
    each shot with its line, for the results. ``scene_line`` … ``tally_line`` make one line
    each (:func:`export_jsonl_lines` writes them one at a time); as a visitor it keeps them
    in ``lines``."""

    def __init__(self, ev: LiveEvent, t_of_seq: dict[int, int]) -> None:
        self.ev = ev
        self.t_of_seq = t_of_seq
        self.lines: list[dict[str, Any]] = []
        self.shots: list[tuple[Shot, dict[str, Any]]] = []

    def scene_line(self, scene: Scene) -> dict[str, Any]:
        ev = self.ev
        e = scene.to_json()
        e["cast"] = [
            {**c, "name": ev.names[c["actor"]]} if c["actor"] in ev.names else c for c in scene.cast
        ]
        e["live"] = {
            "event_id": ev.id,
            "created_at": iso(ev.config.get("created_ms")),
            "started_at": iso(ev.started_ms),
            "hou_dao_m": ev.config.get("hou_dao_m"),
            "inputs": ev.version,
        }
        return e

    def step_line(self, step: Step) -> dict[str, Any]:
        e = step.to_json()
        if step.actor in self.ev.names:
            e["name"] = self.ev.names[step.actor]
        if step.seq in self.t_of_seq:
            e["performed_at"] = iso(self.t_of_seq[step.seq])
        return e

    def shot_line(self, shot: Shot) -> dict[str, Any]:
        e = shot.to_json()
        if shot.pair != "誘射":
            key = (shot.round, shot.pair, shot.archer, shot.arrow)
            rec = self.ev.arrows.get(key)
            if rec is None:
                e["pending"] = True
            else:
                e["performed_at"] = iso(rec.t_ms)
                # the run is shared by every set of outcomes that differ only in misses'
                # marks: the mark is the record's (as `sheli run` would write it)
                on_beat = self.ev.shot_on_beat(key)
                if not shot.hit:
                    e.pop("on_beat", None)
                    if on_beat is not None:
                        e["on_beat"] = on_beat
                if rec.corrections:
                    e["corrections"] = rec.corrections
                # where it struck, 白矢, its release …, as the scorer gave them
                for name, value in self.ev.detail(rec.key).items():
                    e.setdefault(name, value)
        return e

    def tally_line(self, tally: Tally) -> dict[str, Any]:
        e = tally.to_json()
        if tally.seq in self.t_of_seq:
            e["performed_at"] = iso(self.t_of_seq[tally.seq])
        return e

    def begin_run(self, scene: Scene) -> None:
        self.lines.append(self.scene_line(scene))

    def visit_step(self, step: Step) -> None:
        self.lines.append(self.step_line(step))

    def visit_shot(self, shot: Shot) -> None:
        e = self.shot_line(shot)
        self.lines.append(e)
        self.shots.append((shot, e))

    def visit_tally(self, tally: Tally) -> None:
        self.lines.append(self.tally_line(tally))

    def result(self) -> PerformedLog:
        return self


def _performed(ev: LiveEvent) -> tuple[PerformedLog, Any]:
    """A reader of the event's run as performed, not yet run, and the run."""
    d = ev.derived()
    reached = ev.reached_at(d)
    t_of_seq = {d.steps[i].seq: t for i, t in reached.items()}
    return PerformedLog(ev, t_of_seq), d.run


def performed_log(ev: LiveEvent) -> PerformedLog:
    """The event's run read as performed (see :class:`PerformedLog`)."""
    log, run = _performed(ev)
    return run.accept(log)


def performed_events(ev: LiveEvent) -> list[dict[str, Any]]:
    """The run's events with the live event's timestamps, names and pending marks."""
    return performed_log(ev).lines


def export_jsonl_lines(ev: LiveEvent) -> Iterator[bytes]:
    """The event log as performed (:class:`PerformedLog`), each line in UTF-8 with its
    newline, made and given one at a time: the export is never one string.

    >>> from sheli.serve.live import LiveEvent
    >>> ev = LiveEvent({"id": "e1", "created_ms": 0, "rite": "xiangshe", "venue": "xie",
    ...                 "pairs": 0, "guests_shoot": False, "dafu": 1, "cast": []})
    >>> next(export_jsonl_lines(ev))[:16]
    b'{"type":"scene",'
    """
    log, run = _performed(ev)
    # each kind of record, its reader (each reader takes its own kind)
    line: dict[type, Callable[[Any], dict[str, Any]]] = {
        Step: log.step_line,
        Shot: log.shot_line,
        Tally: log.tally_line,
    }
    it = iter(run.records)
    yield line_of(log.scene_line(next(it)))
    for r in it:
        yield line_of(line[type(r)](r))


def export_jsonl(ev: LiveEvent) -> str:
    """The event log as performed as one string, for a test or a small event; the download
    writes :func:`export_jsonl_lines` a line at a time."""
    return b"".join(export_jsonl_lines(ev)).decode("utf-8")


RESULT_FIELDS = (
    "round", "pair", "seat", "archer", "name", "arrow", "hit", "on_beat", "counted",
    "recorded", "t", "corrections", *OPTIONAL_FIELDS,
)  # fmt: skip


def _row(ev: LiveEvent, shot: Shot, **fields: Any) -> dict[str, Any]:
    """A results row for ``shot``; ``fields`` give the recorded columns."""
    return {
        "round": shot.round,
        "pair": shot.pair,
        "seat": shot.archer,
        "archer": shot.person,
        "name": ev.names.get(shot.person, ""),
        "arrow": shot.arrow,
        **fields,
    }


def _detail(e: dict[str, Any]) -> dict[str, Any]:
    """The optional outcome fields of a shot line or record as CSV cells ('' when absent)."""
    out = {}
    for name in OPTIONAL_FIELDS:
        v = e.get(name)
        out[name] = "" if v is None else str(v).lower() if isinstance(v, bool) else v
    return out


def results_rows(ev: LiveEvent) -> list[dict[str, Any]]:
    """One row per arrow of the three rounds (the 誘射 left out: it is never recorded)."""
    rows = []
    for shot, e in performed_log(ev).shots:
        if shot.pair == "誘射":
            continue
        pending = e.get("pending")
        rows.append(
            _row(
                ev,
                shot,
                hit="" if pending else str(shot.hit).lower(),
                on_beat="" if e.get("on_beat") is None else str(e["on_beat"]).lower(),
                counted="" if pending else str(shot.counted).lower(),
                recorded=str(not pending).lower(),
                t=e.get("performed_at", ""),
                corrections=e.get("corrections", 0),
                **_detail(e),
            )
        )
    d = ev.derived()
    if d.stopped:
        # the engine stopped early: the arrows of the rest, as recorded (not yet counted)
        plan = plan_run(ev.config)
        seen = {(r["round"], r["pair"], r["seat"], r["arrow"]) for r in rows}
        for shot in plan.records if plan is not None else ():
            if type(shot) is not Shot:
                continue
            k = (shot.round, shot.pair, shot.archer, shot.arrow)
            if shot.pair == "誘射" or k in seen:
                continue
            rec = ev.arrows.get(k)
            rows.append(
                _row(
                    ev,
                    shot,
                    hit=str(rec.hit).lower() if rec else "",
                    on_beat="" if not rec or rec.on_beat is None else str(rec.on_beat).lower(),
                    counted="",
                    recorded=str(rec is not None).lower(),
                    t=iso(rec.t_ms) if rec else "",
                    corrections=rec.corrections if rec else 0,
                    **_detail(ev.detail(k)),
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
    # the optional columns only when an arrow has one of them: a file as before otherwise
    extra = [f for f in OPTIONAL_FIELDS if any(f in ev.detail(k) for k in ev.arrows)]
    out = [
        f"# sheli render {c.get('rite', 'xiangshe')} {' '.join(args)} "
        f"--outcomes sheli-{ev.id}-outcomes.csv -o viewer",
        ",".join(("round", "pair", "archer", "arrow", "hit", "on_beat", *extra)),
    ]
    blank = "," * len(extra)
    for k in ev.shot_order():
        rec = ev.arrows.get(k)
        if rec is None:
            out.append(f"# not recorded (a miss): round {k[0]} {k[1]}{k[2]} arrow {k[3]}")
            out.append(f"{k[0]},{k[1]},{k[2]},{k[3]},false,{blank}")
            continue
        on_beat = ev.shot_on_beat(k)
        mark = "" if on_beat is None else str(on_beat).lower()
        cells = _detail(ev.detail(k))
        more = "".join(f",{cells[f]}" for f in extra)
        out.append(f"{k[0]},{k[1]},{k[2]},{k[3]},{str(rec.hit).lower()},{mark}{more}")
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
    idx = next((i for i, s in enumerate(d.steps) if s.seq == seq), None)
    if idx is None:
        return None
    svg = render_svg(frames[idx], d.run.scene, view=view)
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
    used = sorted({s.verb for s in d.steps})
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
        for r in sections(d.run, d.estimate)
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
    scale = venue_scale(d.run.plan, hou_dao=float(hou) if hou else None)
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
</tbody></table>
<h2>五射 (周禮 保氏)</h2>
<table id="wushe"><thead><tr><th>round</th><th>pair</th><th>archer</th><th>射</th><th>kept</th>
<th>why</th><th>definition · source</th></tr></thead><tbody>
{% for v in wushe %}<tr><td>{{ v.round }}</td><td>{{ v.pair }}</td><td>{{ v.archer }}</td>
<td>{{ v.name }}</td><td{% if v.kept %} class="hit"{% endif %}>{% if v.kept %}是{% elif
v.kept is sameas false %}否{% else %}—{% endif %}</td>
<td>{{ v.why }}</td><td>{{ v.definition }} · {{ v.source }}</td></tr>{% endfor %}
</tbody></table>
{% if wuwu %}<h2>五物 (周禮 鄉大夫: 以鄉射之禮五物詢衆庶)</h2>
<table id="wuwu"><thead><tr><th>pair</th><th>archer</th><th>物</th><th>是</th><th>of</th>
<th>when (易氏)</th><th>鄭 · 易氏</th></tr></thead><tbody>
{% for r in wuwu %}<tr><td>{{ r.pair }}</td><td>{{ r.archer }}</td><td>{{ r.name }}</td>
<td>{{ r.yes }}</td><td>{{ r.of }}</td><td>{{ r.when }}</td><td>{{ r.zheng }} · {{ r.yi }}</td>
</tr>{% endfor %}</tbody></table>{% endif %}
</body></html>"""
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
        wushe=[v.to_json() for v in five_verdicts(ev)],
        wuwu=[r.to_json() for r in wuwu_results(ev)] if is_xiangshe(ev) else [],
    )


def recorded_outcomes(ev: LiveEvent) -> list[Outcome]:
    """The recorded arrows as outcomes (with where they struck, 白矢, their release …), in
    the order of shooting: what ``sheli score --five`` reads from the outcomes file."""
    out = []
    for k in ev.shot_order():
        a = ev.arrows.get(k)
        if a is not None:
            out.append(Outcome(*k, a.hit, ev.shot_on_beat(k), **ev.detail(k)))
    return out


def five_verdicts(ev: LiveEvent) -> list[Verdict]:
    """The 五射 of every archer and round with arrows recorded (scoring.five: 白矢 from
    through-shots, 參連 from the release times, 井儀 from the places, 剡注 from the flight,
    襄尺 from where the run has the 臣 stand)."""
    places = xiangchi_places(ev.derived().run.records)
    return judge_five(recorded_outcomes(ev), places)


def is_xiangshe(ev: LiveEvent) -> bool:
    return ev.config.get("rite", "xiangshe") == "xiangshe"


def votes(ev: LiveEvent, answers: list[tuple[int, str, bool]]) -> list[Vote]:
    """The audience's answers (the store's: question, voice, answer) as the voices of a votes
    file: each question's archer by his pair and seat (上射 / 下射)."""
    seat_of = {s.person: (s.pair, s.archer) for s in ev.derived().shots}
    out = []
    for qid, voter, answer in answers:
        q = ev.questions.asked.get(qid)
        if q is None or q["archer"] not in seat_of:
            continue
        pair, seat = seat_of[q["archer"]]
        out.append(Vote(pair, seat, q["item"], voter, answer))
    return out


def votes_csv(ev: LiveEvent, answers: list[tuple[int, str, bool]]) -> str:
    """The answers as a votes file (``sheli score --votes``): one row a voice and question.
    A screen that answered the same item of an archer in two questions has one voice there:
    its first answer (one voice per voter per question, as the file has it)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(VOTE_FIELDS)
    seen = set()
    for v in votes(ev, answers):
        if (v.pair, v.archer, v.question, v.voter) in seen:
            continue
        seen.add((v.pair, v.archer, v.question, v.voter))
        w.writerow([cell(v.pair), cell(v.archer), v.question, v.voter, str(v.answer).lower()])
    return buf.getvalue()


def wuwu_results(ev: LiveEvent, answers: list[tuple[int, str, bool]] | None = None) -> list[Any]:
    """The 五物 per archer (scoring.five.tally_wuwu): the audience's answers, and 主皮 from his
    recorded arrows. Without ``answers``, the totals the event holds (one per voice)."""
    if answers is None:
        answers = [
            (qid, f"{qid}:{i}", i < yes)
            for qid, (yes, no) in ev.questions.totals.items()
            for i in range(yes + no)
        ]
    return tally_wuwu(votes(ev, answers), recorded_outcomes(ev))

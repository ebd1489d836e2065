"""Two runs of one rite compared step by step: what a reading, a venue or an option moves.

The step lines of both event logs are aligned on (cite, actor, verb) with difflib's
:class:`~difflib.SequenceMatcher`. Steps matched one to one are compared for where the actor
stands, which way he faces, what he holds, acts on and says; steps the alignment cannot match
are reported as done by another actor (same passage and verb), moved (the same act at another
point of the rite), or found in one run only. The tallies and the drinkers of each round are
compared last. Each difference carries both steps; the report names the readings, venue and
options that set the two runs apart, with the readings' sources from the spec.

>>> from sheli.engine import run
>>> same = diff_runs(run("yanshe"), run("yanshe"))
>>> same.items
[]
>>> d = diff_runs(run("yanshe"), run("yanshe", readings=["R-jun-xianfa"]))
>>> len(d.items) > 0, d.readings[0]["id"]
(True, 'R-jun-xianfa')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from sheli.engine.records import Step, Tally

#: The kinds of difference, in the order the report counts them.
#: ``says`` is not on the floor: a reading that changes only the words is a finding of its own.
KINDS = (
    "position",
    "facing",
    "holds",
    "actor",
    "order",
    "only_a",
    "only_b",
    "tally",
    "object",
    "says",
)

#: Two positions closer than this (尺) are the same place.
TOLERANCE = 0.05


def _key(e: Step) -> tuple[str, str, str]:
    return (e.cite, e.actor, e.verb)


def _brief_key(d: dict[str, Any]) -> tuple[str, str, str]:
    return (d["cite"], d["actor"], d["verb"])


def _brief(e: Step) -> dict[str, Any]:
    """What a difference shows of one step (the data of the diff's own output)."""
    out: dict[str, Any] = {
        "seq": e.seq,
        "cite": e.cite,
        "actor": e.actor,
        "verb": e.verb,
        "place": e.place,
        "x": e.x,
        "y": e.y,
        "facing": e.facing,
        "holds": list(e.holds),
    }
    for k, v in (("obj", e.obj), ("to", e.to), ("says", e.says), ("line", e.line)):
        if v is not None:
            out[k] = v
    if e.source_file is not None:
        out["file"] = e.source_file
    return out


@dataclass
class Difference:
    """One step (or one round's tally) where the two runs part."""

    kind: str
    cite: str
    a: dict[str, Any] | None
    b: dict[str, Any] | None
    what: str = ""
    round: int | None = None  # a tally's difference: its round (its cite is "round N")

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "cite": self.cite, "what": self.what, "a": self.a, "b": self.b}


@dataclass
class RunDiff:
    """The differences between run A and run B of one rite, and what set them apart."""

    rite: str
    a: dict[str, Any]
    b: dict[str, Any]
    readings: list[dict[str, Any]] = field(default_factory=list)
    items: list[Difference] = field(default_factory=list)
    steps: tuple[int, int] = (0, 0)

    def counts(self) -> dict[str, int]:
        c = Counter(d.kind for d in self.items)
        return {k: c[k] for k in KINDS if c[k]}

    def cites(self) -> list[str]:
        """The passages where the runs differ, in the order of the rite (each once)."""
        return list(dict.fromkeys(d.cite for d in self.items))

    def as_dict(self) -> dict[str, Any]:
        return {
            "rite": self.rite,
            "a": self.a,
            "b": self.b,
            "readings": self.readings,
            "steps": {"a": self.steps[0], "b": self.steps[1]},
            "counts": self.counts(),
            "differences": [d.as_dict() for d in self.items],
        }


def _setting(r: Any) -> dict[str, Any]:
    p = r.params
    return {
        "venue": r.venue,
        "readings": sorted(p.get("readings") or []),
        "options": dict(p.get("options") or {}),
        **{k: p.get(k) for k in ("pairs", "guests_shoot", "dafu", "arrows_short")},
    }


def _compare_pair(ea: Step, eb: Step) -> list[Difference]:
    out: list[Difference] = []
    pa, pb = (ea.x, ea.y), (eb.x, eb.y)
    moved = (
        ea.x is not None
        and ea.y is not None
        and eb.x is not None
        and eb.y is not None
        and (abs(ea.x - eb.x) > TOLERANCE or abs(ea.y - eb.y) > TOLERANCE)
    )
    if moved or (None in pa) != (None in pb):
        where_a, where_b = ea.place, eb.place
        if where_a == where_b:  # the same name, another point (a row, a plan of another size)
            where_a = f"{where_a} ({pa[0]:.1f}, {pa[1]:.1f})"
            where_b = f"{where_b} ({pb[0]:.1f}, {pb[1]:.1f})"
        what = f"{ea.actor} {ea.verb}: {where_a} → {where_b}"
        out.append(Difference("position", ea.cite, _brief(ea), _brief(eb), what))
    if ea.facing != eb.facing:
        what = f"{ea.actor} {ea.verb}: faces {ea.facing} → {eb.facing}"
        out.append(Difference("facing", ea.cite, _brief(ea), _brief(eb), what))
    if ea.holding != eb.holding and sorted(ea.holds) != sorted(eb.holds):
        what = f"{ea.actor} {ea.verb}: holds {ea.holds} → {eb.holds}"
        out.append(Difference("holds", ea.cite, _brief(ea), _brief(eb), what))
    if ea.obj != eb.obj:
        what = f"{ea.actor} {ea.verb}: {ea.obj or '—'} → {eb.obj or '—'}"
        out.append(Difference("object", ea.cite, _brief(ea), _brief(eb), what))
    if ea.says != eb.says:
        what = f"{ea.actor} {ea.verb}: 「{ea.says or '—'}」 → 「{eb.says or '—'}」"
        out.append(Difference("says", ea.cite, _brief(ea), _brief(eb), what))
    return out


def _unmatched(sa: list[Step], sb: list[Step]) -> list[Difference]:
    """Steps of a replaced, deleted or inserted block: another actor for the same act, or
    steps of one run only (those found unmatched in the other run too are 'order')."""
    out: list[Difference] = []
    i = j = 0
    while i < len(sa) and j < len(sb):
        ea, eb = sa[i], sb[j]
        if ea.cite == eb.cite and ea.verb == eb.verb:
            what = f"{ea.verb} at {ea.cite}: {ea.actor} → {eb.actor}"
            out.append(Difference("actor", ea.cite, _brief(ea), _brief(eb), what))
            i, j = i + 1, j + 1
            continue
        break
    out += [Difference("only_a", e.cite, _brief(e), None, _what(_brief(e))) for e in sa[i:]]
    out += [Difference("only_b", e.cite, None, _brief(e), _what(_brief(e))) for e in sb[j:]]
    return out


def _what(d: dict[str, Any]) -> str:
    """A step of a difference in words (its brief: actor, verb, object)."""
    return f"{d['actor']} {d['verb']}" + (f" {d['obj']}" if d.get("obj") else "")


def _mark_moves(items: list[Difference]) -> list[Difference]:
    """An act found only in A and, the same (cite, actor, verb), only in B is one act done at
    another point: one 'order' difference with both steps."""
    only_b: dict[tuple[str, str, str], list[int]] = {}
    for i, d in enumerate(items):
        if d.kind == "only_b" and d.b is not None:
            only_b.setdefault(_brief_key(d.b), []).append(i)
    drop: set[int] = set()
    for d in items:
        if d.kind == "only_a" and d.a is not None and only_b.get(_brief_key(d.a)):
            k = only_b[_brief_key(d.a)].pop(0)
            d.kind, d.b = "order", items[k].b
            d.what = f"{_what(d.a)}: step {d.a['seq']} → {d.b['seq'] if d.b else '?'}"
            drop.add(k)
    return [d for i, d in enumerate(items) if i not in drop]


def _tallies(a: Any, b: Any) -> list[Difference]:
    out: list[Difference] = []
    ta: dict[int, Tally] = {t.round: t for t in a.tallies}
    tb: dict[int, Tally] = {t.round: t for t in b.tallies}
    for rnd in sorted(set(ta) | set(tb)):
        x, y = ta.get(rnd), tb.get(rnd)
        bx = None if x is None else _tally_brief(x)
        by = None if y is None else _tally_brief(y)
        if bx != by:
            what = f"round {rnd}: {bx and bx['announcement']} → {by and by['announcement']}"
            out.append(Difference("tally", f"round {rnd}", bx, by, what, rnd))
    da, db = a.drank, b.drank
    for rnd in sorted(set(da) | set(db)):
        if da.get(rnd) != db.get(rnd):
            what = f"round {rnd} drinkers: {da.get(rnd)} → {db.get(rnd)}"
            drank_a, drank_b = {"drank": da.get(rnd)}, {"drank": db.get(rnd)}
            out.append(Difference("tally", f"round {rnd}", drank_a, drank_b, what, rnd))
    return out


def _tally_brief(t: Tally) -> dict[str, Any]:
    return {"right": t.right, "left": t.left, "winner": t.winner, "announcement": t.announcement}


def _reading_sources(a: Any, b: Any) -> list[dict[str, Any]]:
    """The readings one run follows and the other does not, with the spec's text and sources."""
    ra = set(a.params.get("readings") or [])
    rb = set(b.params.get("readings") or [])
    out = []
    for r in b.spec.spec.readings:
        if r.id in ra ^ rb:
            out.append(
                {
                    "id": r.id,
                    "run": "b" if r.id in rb else "a",
                    "group": r.group,
                    "default": r.default,
                    "text": r.text,
                    "sources": list(r.sources),
                }
            )
    out.sort(key=lambda d: (d["run"] != "b", d["group"]))
    return out


def alignment(sa: list[Step], sb: list[Step]) -> list[tuple[str, int, int, int, int]]:
    """The step lines of two runs aligned on (cite, actor, verb): difflib's opcodes
    (``equal``, ``replace``, ``delete``, ``insert``, with the index ranges in A and in B).

    >>> from types import SimpleNamespace as Act  # what is read of a step
    >>> s = lambda *vs: [Act(cite="x:1", actor="司射", verb=v) for v in vs]
    >>> alignment(s("升", "命", "降"), s("升", "降"))
    [('equal', 0, 1, 0, 1), ('delete', 1, 2, 1, 1), ('equal', 2, 3, 1, 2)]
    """
    ka, kb = [_key(e) for e in sa], [_key(e) for e in sb]
    return list(SequenceMatcher(None, ka, kb, autojunk=False).get_opcodes())


def step_map(sa: list[Step], sb: list[Step]) -> list[int]:
    """For each step of B (by index), the index of the step of A it stands against: its
    aligned step; in a block the alignment could not match, A's step at the same offset in
    A's block (its last, if A's block is shorter); for steps only B has, A's step before.

    >>> from types import SimpleNamespace as Act  # what is read of a step
    >>> s = lambda *vs: [Act(cite="x:1", actor="司射", verb=v) for v in vs]
    >>> step_map(s("升", "命", "降"), s("升", "降", "退"))
    [0, 2, 2]
    """
    out: list[int] = []
    for _op, i1, i2, j1, j2 in alignment(sa, sb):
        for k in range(j2 - j1):
            out.append(i1 + min(k, i2 - i1 - 1) if i2 > i1 else max(i1 - 1, 0))
    return out


def diff_runs(a: Any, b: Any) -> RunDiff:
    """Compare two :class:`sheli.engine.Run` of one rite (A the reference, B the other)."""
    sa = [e for e in a.records if type(e) is Step]
    sb = [e for e in b.records if type(e) is Step]
    items: list[Difference] = []
    for op, i1, i2, j1, j2 in alignment(sa, sb):
        if op == "equal":
            for ea, eb in zip(sa[i1:i2], sb[j1:j2], strict=True):
                items += _compare_pair(ea, eb)
        else:
            items += _unmatched(sa[i1:i2], sb[j1:j2])
    items = _mark_moves(items)
    items += _tallies(a, b)
    return RunDiff(
        rite=a.rite,
        a=_setting(a),
        b=_setting(b),
        readings=_reading_sources(a, b),
        items=items,
        steps=(len(sa), len(sb)),
    )

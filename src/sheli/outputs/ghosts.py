"""The other run's bodies as ghosts: what the viewer draws of run A on run B's diagrams.

``sheli render RITE --reading R --diff`` renders run B (the options given) and compares it
with run A (the same rite and outcomes on the spec's own readings, as ``sheli diff`` does;
``--a``/``--b`` give both explicitly). For each step of B, the step of A it stands against
(:func:`sheli.outputs.diff.step_map`) is found, and everyone A has there who stands
elsewhere (farther than :data:`sheli.outputs.diff.TOLERANCE`) or faces otherwise in B, or
is not in B's diagram at all, is a ghost: his name, his point in 尺 and his facing. The
viewer draws them faint and dashed over B's diagram (docs/viewer.md, "Two readings").

The differences of :func:`sheli.outputs.diff.diff_runs` are listed by the step of B where
each is seen, so that the viewer can jump from one to the next; each reading that sets the
runs apart is given as each run takes it, with its text and sources.

>>> from sheli.engine import run
>>> a, b = run("xiangshe"), run("xiangshe", readings=["R-zhi-zuojie"])
>>> g = ghost_data(a, b)
>>> g["readings"][0]["group"], [r["id"] for r in g["readings"][0]["runs"]]
('司正之觶', ['R-zhi-zuojie', 'R-zhi-zhongting'])
>>> i = g["items"][0][0]
>>> k = next(v for at, v in reversed(g["g"]) if at <= i)
>>> [n[0] for n in g["G"][k]]
['司馬']
"""

from __future__ import annotations

import math
from typing import Any

from sheli.engine.records import Step
from sheli.outputs.diff import TOLERANCE, diff_runs, step_map
from sheli.outputs.frames import build_frames


def _effective(r: Any) -> dict[str, Any]:
    """The reading a run follows in each group of its spec: the chosen one, else the default."""
    chosen = set(r.params.get("readings") or [])
    out: dict[str, Any] = {}
    for rd in r.spec.spec.readings:
        if rd.id in chosen or (rd.default and rd.group not in out):
            out[rd.group] = rd
    for rd in r.spec.spec.readings:  # a chosen one wins over a default seen first
        if rd.id in chosen:
            out[rd.group] = rd
    return out


def reading_pairs(a: Any, b: Any) -> list[dict[str, Any]]:
    """The questions the two runs read differently: for each, B's reading then A's (id,
    text, sources; None where a run follows none of the group's).

    >>> from sheli.engine import run
    >>> p = reading_pairs(run("yanshe"), run("yanshe", readings=["R-jun-xianfa"]))
    >>> [(r["run"], r["id"]) for r in p[0]["runs"]]
    [('b', 'R-jun-xianfa'), ('a', 'R-jun-shangshe-xian')]
    """
    ea, eb = _effective(a), _effective(b)
    out = []
    for group in dict.fromkeys([*eb, *ea]):
        ra, rb = ea.get(group), eb.get(group)
        if (ra and ra.id) == (rb and rb.id):
            continue
        runs = [
            {
                "run": which,
                "id": rd.id,
                "default": rd.default,
                "text": " ".join(rd.text.split()),
                "sources": list(rd.sources),
            }
            for which, rd in (("b", rb), ("a", ra))
            if rd is not None
        ]
        out.append({"group": group, "runs": runs})
    return out


def _ghosts(fa: Any, fb: Any) -> list[list[Any]]:
    """Everyone in A's frame who stands or faces otherwise in B's (or is not there)."""
    pb = fb.people
    out: list[list[Any]] = []
    for actor, p in fa.people.items():
        q = pb.get(actor)
        if q is not None and math.hypot(p.x - q.x, p.y - q.y) <= TOLERANCE and p.facing == q.facing:
            continue
        out.append([actor, round(p.x, 2), round(p.y, 2), p.facing or ""])
    return out


def runs_of(values: list[int]) -> list[list[int]]:
    """A list as its runs of equal values, ``[first index, value]`` each.

    >>> runs_of([-1, -1, 0, 0, -1])
    [[0, -1], [2, 0], [4, -1]]
    """
    out: list[list[int]] = []
    for k, v in enumerate(values):
        if not out or out[-1][1] != v:
            out.append([k, v])
    return out


def ghost_data(a: Any, b: Any) -> dict[str, Any]:
    """What the viewer of run B needs to show run A's ghosts and the differences (JSON-able):

    - ``a``, ``b``: each run's setting (venue, readings, options); ``readings``: see
      :func:`reading_pairs`; ``counts``: the differences by kind;
    - ``G``: the distinct ghost lists, each a list of ``[actor, x, y, facing]`` (尺, plan
      coordinates, y north); ``g``: for each step of B, its list's number (-1: no ghost);
      ``at``: for each step of B, the seq of the step of A it stands against, less its own
      seq; both run-length coded (:func:`runs_of`);
    - ``items``: ``[step of B (index), kind, passage, what]``, in the order of B's steps
      (a round's tally at the step that announces it in B).
    """
    sa = [e for e in a.records if type(e) is Step]
    sb = [e for e in b.records if type(e) is Step]
    smap = step_map(sa, sb)
    fa, fb = build_frames(a), build_frames(b)
    lists: dict[str, int] = {}
    glist: list[list[list[Any]]] = []
    per_step: list[int] = []
    for j, i in enumerate(smap):
        gh = _ghosts(fa[i], fb[j]) if sa else []
        if not gh:
            per_step.append(-1)
            continue
        key = repr(gh)
        k = lists.get(key)
        if k is None:
            k = lists[key] = len(glist)
            glist.append(gh)
        per_step.append(k)

    # where each difference is seen in B: its B step, else B's step against its A step
    b_index = {e.seq: j for j, e in enumerate(sb)}
    a_to_b: dict[int, int] = {}
    for j, i in enumerate(smap):
        a_to_b.setdefault(i, j)
    a_index = {e.seq: i for i, e in enumerate(sa)}
    tally_at = {t.round: b_index.get(t.seq, len(sb) - 1) for t in b.tallies}
    report = diff_runs(a, b)
    items: list[list[Any]] = []
    for d in report.items:
        if d.b is not None and d.b.get("seq") in b_index:
            j = b_index[d.b["seq"]]
        elif d.a is not None and d.a.get("seq") in a_index:
            i = a_index[d.a["seq"]]
            j = next((a_to_b[k] for k in range(i, len(sa)) if k in a_to_b), len(sb) - 1)
        else:  # a round's tally or drinkers
            j = tally_at.get(d.round or 0, len(sb) - 1)
        items.append([j, d.kind, d.cite, d.what])
    items.sort(key=lambda it: it[0])
    return {
        "a": report.a,
        "b": report.b,
        "readings": reading_pairs(a, b),
        "counts": report.counts(),
        "G": glist,
        "g": runs_of(per_step),
        "at": runs_of([sa[i].seq - e.seq if sa else 0 for i, e in zip(smap, sb, strict=True)]),
        "items": items,
    }

"""``sheli render``: one self-contained HTML viewer of a run, and an SVG per step.

The viewer (``index.html``) carries everything it needs inline — CSS, JavaScript, the text
and commentary of every passage the run enacts, the tally after every step, and the diagram
of every step — so it opens from ``file://`` with the network off. The diagrams are drawn by
:func:`sheli.outputs.diagram.render_svg` from the frames of
:func:`sheli.outputs.frames.build_frames`; each is also written as ``svg/step-NNNN.svg``.

Size is kept down in two ways:

* text is stored once: a string table holds every distinct string (a 經 passage, a 疏, an
  actor's name) in traditional and simplified form, and steps refer to it by number; notes
  are stored once per passage, not once per step;
* the diagrams are stored as differences: an SVG is split into lines (the diagram writes one
  element per line), every distinct line is stored once, and each step keeps only the lines
  that differ from the step before (a full list every :data:`KEYFRAME` steps, so a jump
  replays at most that many differences).

>>> from sheli.engine import run
>>> data = viewer_data(run("xiangshe"))
>>> data["steps"][0]["q"], data["meta"]["titleText"]
(1, '鄉射禮')
"""

from __future__ import annotations

import base64
import gc
import gzip
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from string import Template
from typing import Any

from sheli.outputs.viewer import asset

#: a full list of SVG lines every this many steps; the others are differences.
KEYFRAME = 64

#: round numbers as the viewer names them (round 0 is everything outside the three rounds)
ROUND_NAMES = {0: "射外", 1: "第一番射", 2: "第二番射", 3: "第三番射"}

Progress = Callable[[int, int], None]


# --------------------------------------------------------------------------------------
# strings in both scripts


class Strings:
    """A table of distinct strings, each kept once in traditional and simplified form.

    >>> t = Strings()
    >>> t.id("不貫不釋"), t.id("不貫不釋"), t.id(None)
    (0, 0, -1)
    >>> t.tables()
    (['不貫不釋'], ['不贯不释'])
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._list: list[str] = []

    def id(self, s: str | None) -> int:
        """The number of ``s`` in the table (added if new); -1 for ``None``."""
        if s is None:
            return -1
        n = self._ids.get(s)
        if n is None:
            n = self._ids[s] = len(self._list)
            self._list.append(s)
        return n

    def tables(self) -> tuple[list[str], list[str]]:
        """The traditional table and its simplified twin (OpenCC t2s, one call for all).

        Converting everything in one call is much faster than one call per string; the
        strings are joined with a separator that OpenCC leaves alone.
        """
        from sheli.text.variants import to_simplified

        sep = "\n\x1e\n"
        if not self._list:
            return [], []
        simp = to_simplified(sep.join(self._list)).split(sep)
        if len(simp) != len(self._list):  # the separator was touched: convert one by one
            simp = [to_simplified(s) for s in self._list]
        return list(self._list), simp


# --------------------------------------------------------------------------------------
# the tally after every step


def tally_states(events: Sequence[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The tally after each step, by seq: 筭 released by side and hits, per round, and
    every count announced so far.

    Shot lines carry the seq of their 射 step, tally lines the seq of the last counting step,
    so a state keyed by seq holds everything up to and including that step. The 上射 is the
    right, the 下射 the left (xiangshe:186); the 司射's 誘射 is not a side.

    >>> ev = [{"type": "step", "seq": 1},
    ...       {"type": "shot", "seq": 1, "round": 2, "archer": "上射", "hit": True,
    ...        "counted": True},
    ...       {"type": "step", "seq": 2}]
    >>> tally_states(ev)[2]["rounds"]["2"]
    {'right': 1, 'left': 0, 'hits': 1, 'shots': 1}
    """
    rounds: dict[str, dict[str, int]] = {}
    done: list[dict[str, Any]] = []
    out: dict[int, dict[str, Any]] = {}
    last_seq: int | None = None

    def snapshot() -> dict[str, Any]:
        return {
            "rounds": {r: dict(v) for r, v in sorted(rounds.items())},
            "done": list(done),
        }

    for e in events:
        kind = e.get("type")
        if kind == "step":
            if last_seq is not None:
                out[last_seq] = snapshot()
            last_seq = e["seq"]
        elif kind == "shot":
            if e.get("archer") not in ("上射", "下射"):
                continue
            r = rounds.setdefault(str(e["round"]), {"right": 0, "left": 0, "hits": 0, "shots": 0})
            r["shots"] += 1
            r["hits"] += bool(e.get("hit"))
            if e.get("counted"):
                r["right" if e["archer"] == "上射" else "left"] += 1
        elif kind == "tally":
            done.append(
                {
                    "round": e["round"],
                    "right": e["right"],
                    "left": e["left"],
                    "winner": e.get("winner"),
                    "announcement": e["announcement"],
                }
            )
    if last_seq is not None:
        out[last_seq] = snapshot()
    return out


# --------------------------------------------------------------------------------------
# the diagrams: frames and SVG from the diagram layer


# the frames of the run being rendered, shared with the worker processes (they are forked
# after it is set, so each inherits it without pickling)
_FRAMES: list[Any] = []
_SCENE: dict[str, Any] = {}
_SVG_DIR: list[Any] = [None, 4]  # where each worker writes its SVG files, and seq digits


def svg_name(seq: int, digits: int = 4) -> str:
    """The file name of a step's SVG.

    >>> svg_name(815)
    'step-0815.svg'
    """
    return f"step-{seq:0{digits}d}.svg"


def _draw_chunk(bounds: tuple[int, int]) -> list[str]:
    from sheli.outputs.diagram import render_svg

    out = []
    d, digits = _SVG_DIR
    for f in _FRAMES[bounds[0] : bounds[1]]:
        svg = render_svg(f, _SCENE, highlight=f.actor)
        if d is not None:  # written here, by the worker, to spare the main process
            (d / svg_name(f.seq, digits)).write_text(svg, encoding="utf-8")
        out.append(svg)
    return out


def iter_svgs(
    events: Sequence[dict[str, Any]],
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
    svg_dir: Path | None = None,
) -> Iterator[str]:
    """The SVG of every step, in order, drawn by :func:`sheli.outputs.diagram.render_svg`
    (the step's actor highlighted), on ``jobs`` processes (default: every CPU). With
    ``svg_dir``, each is also written there as :func:`svg_name` of its seq.

    Drawing a step takes milliseconds and a run has thousands, so the work is shared out in
    chunks; the results come back in order and are yielded one by one, never all held.

    >>> from sheli.engine import run
    >>> svgs = list(iter_svgs(run("xiangshe").events, jobs=1))
    >>> svgs[0].startswith("<svg"), 'data-actor="上耦上射"' in svgs[0]
    (True, True)
    """
    global _FRAMES, _SCENE
    from sheli.outputs.frames import build_frames

    frames = build_frames(list(events))
    total = len(frames)
    jobs = jobs or os.cpu_count() or 1
    chunk = 64
    bounds = [(i, min(i + chunk, total)) for i in range(0, total, chunk)]
    _FRAMES, _SCENE = frames, events[0]
    last_seq = frames[-1].seq if frames else 0
    _SVG_DIR[:] = [svg_dir, max(4, len(str(last_seq)))]
    done = 0
    pool = None
    try:
        if jobs <= 1 or total < 2 * chunk:
            results: Iterator[list[str]] = map(_draw_chunk, bounds)
        else:
            import multiprocessing

            pool = multiprocessing.get_context("fork").Pool(jobs)
            results = pool.imap(_draw_chunk, bounds)
        for svgs in results:
            yield from svgs
            done += len(svgs)
            if progress is not None:
                progress(done, total)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        _FRAMES, _SCENE = [], {}
        _SVG_DIR[:] = [None, 4]


class SvgPacker:
    r"""The SVGs of all steps as a line table and per-step differences, built one by one.

    Each step is ``[p, s, ids]``: keep the first ``p`` and last ``s`` lines of the step
    before, and put the lines ``ids`` between them; every ``keyframe``-th step is the full
    list of line ids. :func:`unpack_svgs` (and the viewer's JavaScript) undo it.

    >>> pk = SvgPacker()
    >>> pk.add("<svg>\n<a/>\n</svg>"); pk.add("<svg>\n<b/>\n</svg>")
    >>> packed = pk.packed()
    >>> packed["lines"], packed["steps"]
    (['<svg>', '<a/>', '</svg>', '<b/>'], [[0, 1, 2], [1, 1, [3]]])
    >>> unpack_svgs(packed) == ["<svg>\n<a/>\n</svg>", "<svg>\n<b/>\n</svg>"]
    True
    """

    def __init__(self, keyframe: int = KEYFRAME) -> None:
        self.keyframe = keyframe
        self._table: dict[str, int] = {}
        self.lines: list[str] = []
        self.steps: list[Any] = []
        self._prev: list[int] = []

    def add(self, svg: str) -> None:
        """Add the next step's SVG."""
        table, lines = self._table, self.lines
        parts = svg.split("\n")
        get = table.get
        ids = [get(line) for line in parts]
        if None in ids:  # new lines, numbered in order (a line twice in one SVG: once)
            for k, n in enumerate(ids):
                if n is None:
                    line = parts[k]
                    n = get(line)
                    if n is None:
                        n = table[line] = len(lines)
                        lines.append(line)
                    ids[k] = n
        prev = self._prev
        if len(self.steps) % self.keyframe == 0:
            self.steps.append(ids)
        else:
            # the common head and tail with the step before (a cheap diff: a real one costs
            # more time than it saves bytes once the whole is gzipped)
            p, s = _common_ends(ids, prev)
            self.steps.append([p, s, ids[p : len(ids) - s]])
        self._prev = ids

    def packed(self) -> dict[str, Any]:
        """The line table, the steps and the keyframe interval."""
        return {"lines": self.lines, "steps": self.steps, "keyframe": self.keyframe}


def _common_ends(a: list[int], b: list[int]) -> tuple[int, int]:
    """The lengths of the longest common head of ``a`` and ``b``, and of the longest common
    tail of what is left after it (found by halving, comparing slices).

    >>> _common_ends([1, 2, 3, 4, 5], [1, 2, 9, 4, 5]), _common_ends([1, 1], [1, 1, 1])
    ((2, 2), (2, 0))
    """
    m = min(len(a), len(b))
    lo, hi = 0, m  # a[:lo] == b[:lo]; the head is shorter than hi + 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    p = lo
    la, lb = len(a), len(b)
    lo, hi = 0, m - p  # the tail, within what is left after the head
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return p, lo


def pack_svgs(svgs: Iterable[str], keyframe: int = KEYFRAME) -> dict[str, Any]:
    """:class:`SvgPacker` over a sequence of SVGs."""
    pk = SvgPacker(keyframe)
    for svg in svgs:
        pk.add(svg)
    return pk.packed()


def unpack_svgs(packed: dict[str, Any]) -> list[str]:
    """The SVGs back from :func:`pack_svgs` (the viewer does the same in JavaScript)."""
    lines = packed["lines"]
    out = []
    prev: list[int] = []
    for i, st in enumerate(packed["steps"]):
        if i % packed["keyframe"] == 0:
            ids = list(st)
        else:
            p, s, mid = st
            ids = prev[:p] + list(mid) + (prev[len(prev) - s :] if s else [])
        out.append("\n".join(lines[n] for n in ids))
        prev = ids
    return out


class _Merger:
    r"""The packed diagrams of consecutive ranges of steps, each packed on its own (by a
    drawing process: its own line table, a keyframe at each multiple of ``keyframe``),
    merged into one :class:`SvgPacker`-like whole: one line table, the steps in order.

    >>> a, b = SvgPacker(2), SvgPacker(2)
    >>> for s in ("<a>", "<a>\n<b>"): a.add(s)
    >>> for s in ("<b>\n<c>", "<c>"): b.add(s)
    >>> m = _Merger(2)
    >>> m.add(a.lines, a.steps); m.add(b.lines, b.steps)
    >>> unpack_svgs(m.packed())
    ['<a>', '<a>\n<b>', '<b>\n<c>', '<c>']
    """

    def __init__(self, keyframe: int = KEYFRAME) -> None:
        self.keyframe = keyframe
        self._table: dict[str, int] = {}
        self.lines: list[str] = []
        self.steps: list[Any] = []

    def remap(self, lines: list[str], into: list[int]) -> None:
        """Extend ``into`` (a range's line ids → merged ids) with ``lines``, its next lines."""
        table, out = self._table, self.lines
        for line in lines:
            n = table.get(line)
            if n is None:
                n = table[line] = len(out)
                out.append(line)
            into.append(n)

    def add(self, lines: list[str], steps: list[Any], ids: list[int] | None = None) -> None:
        """Add a range's steps (its first a keyframe), with its new ``lines``; ``ids`` is
        the range's map of line ids, kept between calls for the same range."""
        ids = [] if ids is None else ids
        self.remap(lines, ids)
        for st in steps:
            if len(self.steps) % self.keyframe == 0:
                self.steps.append([ids[n] for n in st])
            else:
                p, s, mid = st
                self.steps.append([p, s, [ids[n] for n in mid]])

    def packed(self) -> dict[str, Any]:
        """The line table, the steps and the keyframe interval (as :meth:`SvgPacker.packed`)."""
        return {"lines": self.lines, "steps": self.steps, "keyframe": self.keyframe}


def _draw_range(lo: int, hi: int, send: Callable[[Any], None]) -> None:
    """Draw steps ``lo``..``hi`` of ``_FRAMES`` (``lo`` a multiple of :data:`KEYFRAME`),
    write their SVG files if asked, pack them, and ``send`` each chunk's packing as it is
    done: ``(start, new lines, steps, svg bytes)``."""
    from sheli.outputs.diagram import render_svg

    d, digits = _SVG_DIR
    pk = SvgPacker()
    sent = 0
    for c in range(lo, hi, KEYFRAME):
        nbytes = 0
        n0 = len(pk.steps)
        for f in _FRAMES[c : min(c + KEYFRAME, hi)]:
            svg = render_svg(f, _SCENE, highlight=f.actor)
            if d is not None:
                data = svg.encode("utf-8")
                nbytes += len(data)
                (d / svg_name(f.seq, digits)).write_bytes(data)
            pk.add(svg)
        send((c, pk.lines[sent:], pk.steps[n0:], nbytes))
        sent = len(pk.lines)


def _worker(lo: int, hi: int, conn: Any) -> None:
    """A drawing process: :func:`_draw_range` through ``conn``; an error is sent too."""
    import traceback

    try:
        _draw_range(lo, hi, conn.send)
    except BaseException:
        conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


def draw_packed(
    frames: Sequence[Any],
    scene: dict[str, Any],
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
    svg_dir: Path | None = None,
    meanwhile: Callable[[], Any] | None = None,
) -> tuple[dict[str, Any], int, Any]:
    """Draw every frame (:func:`sheli.outputs.diagram.render_svg`, the step's actor
    highlighted), pack the diagrams (as :class:`SvgPacker`) and, with ``svg_dir``, write
    each as :func:`svg_name` of its seq. Returns the packing, the bytes of SVG written and
    what ``meanwhile()`` returned (it is called in this process while the others draw).

    The frames are cut into ``jobs`` consecutive ranges (default: every CPU), one per
    process, so that each draws steps one after another and what the drawing remembers
    between steps (docs/diagrams.md) serves it; each process packs its own range and sends
    back only its new lines and line numbers, merged here in order.

    >>> from sheli.engine import run
    >>> from sheli.outputs.diagram import render_svg
    >>> from sheli.outputs.frames import build_frames
    >>> r = run("xiangshe")
    >>> fr = build_frames(r.events)[:70]
    >>> packed, _, _ = draw_packed(fr, r.events[0], jobs=1)
    >>> unpack_svgs(packed) == [render_svg(f, r.events[0], highlight=f.actor) for f in fr]
    True
    """
    global _FRAMES, _SCENE
    total = len(frames)
    jobs = max(1, jobs or os.cpu_count() or 1)
    per = -(-total // jobs)
    per = -(-per // KEYFRAME) * KEYFRAME  # each range starts on a keyframe
    ranges = [(lo, min(lo + per, total)) for lo in range(0, total, per)] if total else []
    last_seq = frames[-1].seq if frames else 0
    _FRAMES, _SCENE = list(frames), scene
    _SVG_DIR[:] = [svg_dir, max(4, len(str(last_seq)))]
    merger = _Merger()
    got: dict[int, tuple[int, Any]] = {}  # chunk start → (range, its message)
    ids: list[list[int]] = [[] for _ in ranges]
    nbytes = 0
    done = 0
    nxt = 0
    extra: Any = None
    procs: list[Any] = []

    def take(k: int, msg: Any) -> None:
        nonlocal nbytes, done, nxt
        if msg[0] == "error":
            raise RuntimeError(f"a drawing process failed:\n{msg[1]}")
        got[msg[0]] = (k, msg)
        while nxt in got:  # merged in order: each range's chunks come in order
            k2, (c, lines, steps, b) = got.pop(nxt)
            merger.add(lines, steps, ids[k2])
            nbytes += b
            done += len(steps)
            nxt = c + len(steps)
            if progress is not None:
                progress(done, total)

    try:
        if len(ranges) <= 1:
            if meanwhile is not None:
                extra = meanwhile()
            for lo, hi in ranges:
                _draw_range(lo, hi, lambda m: take(0, m))
        else:
            import multiprocessing
            from multiprocessing.connection import wait

            ctx = multiprocessing.get_context("fork")
            conns = {}
            # what exists now (the run, its frames) is moved out of the collector's sight
            # before forking: a collection in a drawing process would otherwise touch every
            # object it inherited, copying page after page of memory it only reads
            gc.freeze()
            try:
                for k, (lo, hi) in enumerate(ranges):
                    r, w = ctx.Pipe(duplex=False)
                    p = ctx.Process(target=_worker, args=(lo, hi, w), daemon=True)
                    p.start()
                    w.close()
                    procs.append(p)
                    conns[r] = k
            finally:
                gc.unfreeze()
            if meanwhile is not None:
                extra = meanwhile()
            while conns:
                for r in wait(list(conns)):
                    try:
                        msg = r.recv()
                    except EOFError:
                        del conns[r]
                        continue
                    take(conns[r], msg)
            if nxt != total:
                raise RuntimeError(f"the drawing processes drew {nxt} of {total} steps")
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
            p.join()
        _FRAMES, _SCENE = [], {}
        _SVG_DIR[:] = [None, 4]
    return merger.packed(), nbytes, extra


# --------------------------------------------------------------------------------------
# the viewer's data


def viewer_data(result: Any) -> dict[str, Any]:
    """Everything the viewer shows but the diagrams, as one JSON-able dict (docs/viewer.md).

    ``result`` is a run (:func:`sheli.engine.run`).
    """
    from sheli.text import get_passage, load_chapter
    from sheli.text.commentary import notes_for

    events = result.events
    scene = events[0]
    steps = [e for e in events if e.get("type") == "step"]
    strings = Strings()
    sid = strings.id

    announcements = {t["seq"]: t["announcement"] for t in result.tallies}
    announced = set(announcements.values())

    # tally states, stored once each; steps point at them
    states = tally_states(events)
    state_ids: dict[str, int] = {}
    state_list: list[dict[str, Any]] = []

    passages: dict[str, dict[str, Any]] = {}

    def add_passage(pid: str) -> None:
        if pid in passages:
            return
        p = get_passage(pid)
        passages[pid] = {
            "t": sid(p.text),
            "k": p.kind,
            "s": p.section,
            "n": [[sid(n.edition), sid(n.kind), sid(n.text)] for n in notes_for(pid)],
        }

    out_steps = []
    for st in steps:
        add_passage(st["cite"])
        state = states.get(st["seq"], {"rounds": {}, "done": []})
        key = json.dumps(state, ensure_ascii=False, sort_keys=True)
        k = state_ids.get(key)
        if k is None:
            k = state_ids[key] = len(state_list)
            state_list.append(state)
        rec: dict[str, Any] = {
            "q": st["seq"],
            "r": st["round"],
            "s": st["section"],
            "c": st["cite"],
            "j": sid(st["jing"]),
            "a": sid(st["actor"]),
            "v": sid(st["verb"]),
            "y": sid(st.get("says")),
            "p": sid(st.get("place")),
            "h": sid("、".join(st.get("holds") or []) or None),
            "d": sid("、".join(st.get("dress") or []) or None),
            "n": sid(st.get("note")),
            "t": k,
        }
        if st.get("says") is not None and st["says"] in announced and st["verb"] == "告":
            rec["an"] = 1  # the 釋獲者's announcement (xiangshe:203)
        call = st.get("as")
        if call:
            add_passage(call["cite"])
            rec["as"] = [call["cite"], sid(call.get("jing")), sid(call.get("procedure"))]
        out_steps.append(rec)

    chapter = load_chapter(result.spec.spec.chapter)
    sections = {}
    for n in sorted({st["section"] for st in steps if st["section"] is not None}):
        try:
            sec = chapter.section(n)
        except KeyError:
            continue
        sections[str(n)] = {"t": sid(sec.topic), "f": sec.first, "l": sec.last}

    # segments for the menus: contiguous runs of a section, and of a round
    def segments(key: str) -> list[list[int]]:
        segs: list[list[int]] = []
        for i, rec in enumerate(out_steps):
            if not segs or out_steps[segs[-1][1]][key] != rec[key]:
                segs.append([rec[key], i])
        return segs

    cast = [
        {
            "a": sid(c["actor"]),
            "r": sid(c.get("role", c["actor"])),
            "n": sid(c.get("name")),
            "p": sid(c.get("pair")),
        }
        for c in scene.get("cast", [])
    ]
    for rec in out_steps:  # anyone acting who is not in the cast still gets a menu entry
        if all(c["a"] != rec["a"] for c in cast):
            cast.append({"a": rec["a"], "r": rec["a"], "n": -1, "p": -1})

    rounds = {str(k): sid(v) for k, v in ROUND_NAMES.items()}
    params = scene.get("params", {})
    meta = {
        "rite": scene.get("rite"),
        "title": sid(scene.get("title") or scene.get("rite")),
        "titleText": scene.get("title") or scene.get("rite"),
        "venue": scene.get("venue"),
        "params": params,
        "seed": getattr(result, "params", {}).get("seed")
        if isinstance(getattr(result, "params", None), dict)
        else None,
        "steps": len(out_steps),
    }
    t, s = strings.tables()
    data: dict[str, Any] = {
        "meta": meta,
        "T": t,
        "S": [b if b != a else None for a, b in zip(t, s, strict=True)],
        "steps": out_steps,
        "tallies": state_list,
        "passages": passages,
        "sections": sections,
        "sectionSegs": segments("s"),
        "roundSegs": segments("r"),
        "rounds": rounds,
        "cast": cast,
    }
    return data


def _script_json(data: dict[str, Any]) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``</`` can close it."""
    s = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return s.replace("</", "<\\/").replace("<!--", "\\u003c!--")


def pack_blob(packed: dict[str, Any]) -> str:
    """The packed diagrams as gzip in base64 (the viewer inflates it with the browser's own
    ``DecompressionStream``): SVG lines compress about tenfold.

    >>> import base64, gzip, json
    >>> blob = pack_blob({"lines": ["<svg>"], "steps": [[0]], "keyframe": 64})
    >>> json.loads(gzip.decompress(base64.b64decode(blob)))["lines"]
    ['<svg>']
    """
    raw = json.dumps(packed, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def viewer_html(data: dict[str, Any], packed: dict[str, Any] | None = None) -> str:
    """The whole ``index.html``: template, CSS, JavaScript, data and diagrams in one file.

    >>> html = viewer_html({"meta": {"titleText": "鄉射禮 <x>"}, "steps": []})
    >>> "鄉射禮 &lt;x&gt;" in html and "<script" in html
    True
    """
    title = str(data.get("meta", {}).get("titleText") or "sheli")
    return Template(asset("index.html.tmpl")).substitute(
        title=escape(title),
        css=asset("viewer.css"),
        js=asset("viewer.js"),
        data=_script_json(data),
        svgdata="" if packed is None else pack_blob(packed),
    )


# --------------------------------------------------------------------------------------
# writing it all


@dataclass
class RenderReport:
    """What :func:`render` wrote: the directory, the number of steps and of SVG files,
    and the bytes of ``index.html`` and of the SVG files together."""

    out: Path
    steps: int
    svg_files: int
    html_bytes: int
    svg_bytes: int


def check_out_dir(out: Path) -> None:
    """Refuse an output directory that exists and holds something other than a render.

    >>> check_out_dir(Path("/nonexistent/sheli-out"))
    """
    if out.exists():
        if not out.is_dir():
            raise FileExistsError(f"{out} exists and is not a directory")
        if any(out.iterdir()) and not (out / "index.html").exists():
            raise FileExistsError(f"{out} is not empty and holds no earlier render")


def render(
    result: Any,
    out: Path | str,
    *,
    svg_files: bool = True,
    jobs: int | None = None,
    progress: Progress | None = None,
) -> RenderReport:
    """Write the viewer of ``result`` (a run) to ``out/index.html`` and each step's SVG to
    ``out/svg/step-NNNN.svg`` (NNNN the step's seq).

    Everything is written into a temporary directory beside ``out`` and moved into place
    at the end, so an interrupted render leaves ``out`` as it was. An existing ``out`` is
    replaced only if it is empty or holds an earlier render (has ``index.html``).
    ``progress(done, total)`` is called as the diagrams are drawn.

    >>> import tempfile, pathlib
    >>> from sheli.engine import run
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> rep = render(run("xiangshe"), d, svg_files=False)
    >>> (d / "index.html").exists(), rep.steps > 1000, rep.svg_files
    (True, True, 0)
    """
    out = Path(out)
    check_out_dir(out)
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=parent))
    os.chmod(tmp, 0o755)  # mkdtemp makes it private; a viewer is for sharing
    try:
        from sheli.outputs.frames import build_frames

        sd = tmp / "svg"
        if svg_files:
            sd.mkdir()
        packed, svg_bytes, data = draw_packed(
            build_frames(result.events),
            result.events[0],
            jobs=jobs,
            progress=progress,
            svg_dir=sd if svg_files else None,
            meanwhile=lambda: viewer_data(result),  # the text pane's, while others draw
        )
        n_files = len(packed["steps"]) if svg_files else 0
        seqs = [st["q"] for st in data["steps"]]
        if len(packed["steps"]) != len(seqs):
            raise RuntimeError(f"{len(packed['steps'])} diagrams for {len(seqs)} steps")
        html = viewer_html(data, packed)
        (tmp / "index.html").write_text(html, encoding="utf-8")
        # into place: an earlier render is moved aside first, then removed
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=parent))
            os.replace(out, old / "render")
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return RenderReport(out, len(seqs), n_files, len(html.encode("utf-8")), svg_bytes)

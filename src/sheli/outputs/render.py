"""``sheli render``: one self-contained HTML viewer of a run, and an SVG per step.

The viewer (``index.html``) carries everything it needs inline — CSS, JavaScript, the text
and commentary of every passage the run enacts, the tally after every step, and the diagram
of every step — so it opens from ``file://`` with the network off. The diagrams are drawn by
:func:`sheli.outputs.diagram.render_svg_parts` from the frames of
:func:`sheli.outputs.frames.build_frames`, in runs of a few chunks of :data:`KEYFRAME` steps
(:func:`label_run`), each run in order with its labels kept from step to step
(:func:`chunk_svgs`); each is also written as ``svg/step-NNNN.svg``, byte for byte what the
viewer shows.

Size is kept down in two ways:

* text is stored once: a string table holds every distinct string (a 經 passage, a 疏, an
  actor's name) in traditional and simplified form, and steps refer to it by number; notes
  are stored once per passage, not once per step;
* the diagrams are stored as differences: every distinct part of an SVG (a line or a few,
  as the drawing gives them) is stored once, and each step keeps only the parts that differ
  from the step before (a full list every :data:`KEYFRAME` steps, so a jump replays at most
  that many differences); see :class:`PartPacker`.

Time is kept down by sharing the work out (:func:`render`): the text pane's data is built in
a process of its own while this one folds the run into frames; then each drawing process
draws, writes, packs and compresses the runs of steps it takes (:func:`draw_packed`), and
this one only puts the page together from what they send.

>>> from sheli.engine import run
>>> data = viewer_data(run("xiangshe"))
>>> data["steps"][0]["q"], data["meta"]["titleText"]
(1, '鄉射禮')
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import itertools
import json
import operator
import os
import re
import shutil
import tempfile
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from html import escape
from multiprocessing.connection import Connection, wait
from pathlib import Path
from string import Template
from typing import Any

import msgspec
from zlib_ng import zlib_ng

from sheli import collector
from sheli.engine import venue_plan
from sheli.engine.records import BaseVisitor, Scene, Shot, Step, Tally
from sheli.engine.state import holds_words
from sheli.files import temp_dir_beside
from sheli.forked import FORK, Forked, as_child, signals_held
from sheli.glossary import glossary
from sheli.i18n import DEFAULT
from sheli.outputs.cues import known_assumptions, split_assumptions
from sheli.outputs.diagram import render_svg, render_svg_parts
from sheli.outputs.english import (
    ROUNDS_EN,
    announcement_en,
    assumption_english,
    gloss,
    label,
    title_words,
)
from sheli.outputs.frames import build_frames
from sheli.outputs.ghosts import ghost_data
from sheli.outputs.labels import LabelMemory
from sheli.outputs.viewer import asset, distinct_notes, words_span
from sheli.outputs.viewer_english import (
    DiagramWords,
    EnglishTable,
    bracket_terms,
    dress_english,
    holds_english,
    pack_english,
    reading_english,
    viewer_labels,
)
from sheli.text import get_passage, load_chapter
from sheli.text.commentary import notes_for
from sheli.text.english import english as passage_english
from sheli.text.english import section_english
from sheli.text.variants import to_simplified

#: a full list of SVG lines every this many steps; the others are differences.
KEYFRAME = 64

#: the labels of the diagrams begin afresh (a new :class:`sheli.outputs.labels.LabelMemory`) at
#: the first step of a run of at most this many chunks, drawn in order by one process
#: (:func:`label_run`): placing every label anew costs some 3 ms, five steps' drawing, and at
#: 100 衆耦 runs of eight chunks spare some 7 % of the drawing (docs/viewer.md)
LABEL_RUN_CHUNKS = 8
#: a run holds more than one chunk only where the steps make at least this many runs: the
#: processes take a run at a time, and end together only if they are many
LABEL_RUNS = 64

#: a drawing process begins a new packing after this many steps: the viewer inflates only
#: the packings of the steps it shows, so a packing holds a few chunks (each packing's table
#: holds again the parts it shares with the others: a packing a chunk made the 100 衆耦
#: viewer half as big again)
BLOB_STEPS = 4 * KEYFRAME

#: how hard the packed diagrams are compressed, by zlib-ng (docs/viewer.md, "The diagrams
#: inside")
PACK_LEVEL = 5

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

    def text(self, n: int) -> str:
        """The string numbered ``n``.

        >>> t = Strings(); t.text(t.id("射"))
        '射'
        """
        return self._list[n]

    def tables(self) -> tuple[list[str], list[str]]:
        """The traditional table and its simplified twin (OpenCC t2s, one call for all).

        Converting everything in one call is much faster than one call per string; the
        strings are joined with a separator that OpenCC leaves alone.
        """
        sep = "\n\x1e\n"
        if not self._list:
            return [], []
        simp = to_simplified(sep.join(self._list)).split(sep)
        if len(simp) != len(self._list):  # the separator was touched: convert one by one
            simp = [to_simplified(s) for s in self._list]
        return list(self._list), simp


# --------------------------------------------------------------------------------------
# the tally after every step


class TallyStates(BaseVisitor[dict[int, dict[str, Any]]]):
    """The reader of a run that keeps the tally after each step, by seq: 筭 released by side
    and hits, per round, and every count announced so far (see :func:`tally_states`)."""

    def __init__(self) -> None:
        self.rounds: dict[str, dict[str, int]] = {}
        self.done: list[dict[str, Any]] = []
        self.states: dict[int, dict[str, Any]] = {}
        self._last_seq: int | None = None

    def snapshot(self) -> dict[str, Any]:
        """The tally now: released, hits and shots by round, and the counts done."""
        return {
            "rounds": {r: dict(v) for r, v in sorted(self.rounds.items())},
            "done": list(self.done),
        }

    def visit_step(self, step: Step) -> None:
        if self._last_seq is not None:
            self.states[self._last_seq] = self.snapshot()
        self._last_seq = step.seq

    def visit_shot(self, shot: Shot) -> None:
        if shot.archer not in ("上射", "下射"):
            return
        r = self.rounds.setdefault(str(shot.round), {"right": 0, "left": 0, "hits": 0, "shots": 0})
        r["shots"] += 1
        r["hits"] += bool(shot.hit)
        if shot.counted:
            r["right" if shot.archer == "上射" else "left"] += 1

    def visit_tally(self, tally: Tally) -> None:
        self.done.append(
            {
                "round": tally.round,
                "right": tally.right,
                "left": tally.left,
                "winner": tally.winner,
                "announcement": tally.announcement,
            }
        )

    def end_run(self) -> None:
        if self._last_seq is not None:
            self.states[self._last_seq] = self.snapshot()

    def result(self) -> dict[int, dict[str, Any]]:
        return self.states


def tally_states(run: Any) -> dict[int, dict[str, Any]]:
    """The tally after each step of ``run``, by seq: 筭 released by side and hits, per round,
    and every count announced so far.

    Shots follow the step that loosed them and a tally the last counting step, so a state
    keyed by seq holds everything up to and including that step. The 上射 is the right, the
    下射 the left (xiangshe:186); the 司射's 誘射 is not a side.

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1)
    >>> last = max(t.seq for t in r.records if type(t) is Tally)
    >>> state = tally_states(r)[last]
    >>> [(d["right"], d["left"]) for d in state["done"]], state["rounds"]["2"]["right"]
    ([(6, 4), (2, 2)], 6)
    """
    return run.accept(TallyStates())


# --------------------------------------------------------------------------------------
# the diagrams: frames and SVG from the diagram layer


# the frames of the run being rendered, shared with the worker processes (they are forked
# after it is set, so each inherits it without pickling)
_FRAMES: list[Any] = []
_SCENE: Any = None  # the run's Scene
_SVG_DIR: list[Any] = [None, 4]  # where each worker writes its SVG files, and seq digits


def svg_name(seq: int, digits: int = 4) -> str:
    """The file name of a step's SVG.

    >>> svg_name(815)
    'step-0815.svg'
    """
    return f"step-{seq:0{digits}d}.svg"


def label_run(steps: int) -> int:
    """How many steps of a render of ``steps`` are drawn in order, their labels kept from
    step to step, before the labels begin afresh: a chunk (:data:`KEYFRAME`) while the
    steps make fewer than :data:`LABEL_RUNS` runs of two, else as many chunks as they hold
    :data:`LABEL_RUNS` times, at most :data:`LABEL_RUN_CHUNKS` (the default run, 3 衆耦,
    20 衆耦, 100 衆耦):

    >>> label_run(4458), label_run(6012), label_run(14703), label_run(55610)
    (64, 64, 192, 512)
    """
    return KEYFRAME * max(1, min(LABEL_RUN_CHUNKS, steps // (KEYFRAME * LABEL_RUNS)))


def chunk_svgs(frames: Sequence[Any], scene: Scene, run: int | None = None) -> list[str]:
    """The diagrams of ``frames`` as a render draws them: cut into runs of ``run`` steps
    (default :func:`label_run` of their number) from the first, each run drawn in order,
    its first step's labels placed by the plain greedy and each label of the next steps
    kept where it was if its thing did not move and its place is free (``label_memory`` of
    :func:`sheli.outputs.diagram.render_svg_parts`). So a step's diagram is the same
    however many processes draw, and in whatever order they take the runs.

    >>> from sheli.engine import run
    >>> from sheli.outputs.frames import build_frames
    >>> r = run("xiangshe")
    >>> fr = build_frames(r)[:3]
    >>> chunk_svgs(fr, r.scene)[0] == render_svg(fr[0], r.scene, highlight=fr[0].actor)
    True
    """
    run = run or label_run(len(frames))
    out = []
    memory = LabelMemory()
    for i, f in enumerate(frames):
        if i % run == 0:
            memory = LabelMemory()
        out.append(render_svg(f, scene, highlight=f.actor, label_memory=memory))
    return out


def _draw_chunk(bounds: tuple[int, int]) -> list[str]:
    out = []
    d, digits = _SVG_DIR
    memory = LabelMemory()
    for f in _FRAMES[bounds[0] : bounds[1]]:
        svg = render_svg(f, _SCENE, highlight=f.actor, label_memory=memory)
        if d is not None:  # written here, by the worker, to spare the main process
            (d / svg_name(f.seq, digits)).write_text(svg, encoding="utf-8")
        out.append(svg)
    return out


def iter_svgs(
    run: Any,
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
    >>> svgs = list(iter_svgs(run("xiangshe"), jobs=1))
    >>> svgs[0].startswith("<svg"), 'data-actor="上耦上射"' in svgs[0]
    (True, True)
    """
    global _FRAMES, _SCENE
    frames = build_frames(run)
    total = len(frames)
    jobs = jobs or os.cpu_count() or 1
    chunk = label_run(total)  # as the render's runs, so the same diagrams (chunk_svgs)
    bounds = [(i, min(i + chunk, total)) for i in range(0, total, chunk)]
    _FRAMES, _SCENE = frames, run.scene
    last_seq = frames[-1].seq if frames else 0
    _SVG_DIR[:] = [svg_dir, max(4, len(str(last_seq)))]
    done = 0
    pool = None
    try:
        if jobs <= 1 or total < 2 * chunk:
            results: Iterator[list[str]] = map(_draw_chunk, bounds)
        else:
            with signals_held():
                pool = FORK.Pool(jobs, initializer=as_child)
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
        _FRAMES, _SCENE = [], None
        _SVG_DIR[:] = [None, 4]


class PartPacker:
    r"""The diagrams of some steps, packed: every distinct part of them (the parts of
    :func:`sheli.outputs.diagram.render_svg_parts`) once in a table, and for each step only
    the parts that differ from the step before; also each step's document in UTF-8, for its
    file.

    Steps come in chunks of consecutive steps (:meth:`chunk`, then :meth:`add` for each
    step), the chunks in any order. The first step of a chunk is the list of its parts'
    numbers; each other step is ``[p, s, ids]``: keep the first ``p`` and the last ``s``
    numbers of the step before, and put ``ids`` between them. A part the drawing gives again
    is most often the very same string object, whose hash Python keeps, so looking it up in
    the table reads none of its text; and most often in the same place as in the step
    before, so that only the parts that are not the step before's objects are looked up.

    :meth:`blob` gives the whole as two gzip streams (see docs/viewer.md, "The diagrams
    inside"): the table, each part in UTF-8 ended by a NUL (which no XML document holds),
    and the chunks, each a line of JSON ``[start, steps]`` (``start`` the number of its
    first step, counted from 0); before them, in 4 bytes each, the first stream's length,
    the number of chunks and each chunk's first step and number of steps, so that a reader
    knows which steps a blob holds without inflating it. (Kept
    apart, each compresses better: the chunks' numbers between the parts cost a quarter
    more.) Each chunk is compressed as the next begins, so that the end has only the last
    one's left. :func:`unpack_svgs` (and the viewer's JavaScript) undo it.

    >>> pk = PartPacker()
    >>> pk.chunk(0)
    >>> pk.add(["<svg>", "<a/>\n<b/>", "</svg>"])
    b'<svg>\n<a/>\n<b/>\n</svg>'
    >>> _ = pk.add(["<svg>", "<c/>", "</svg>"])
    >>> pk.parts, pk.steps
    (['<svg>', '<a/>\n<b/>', '</svg>', '<c/>'], 2)
    >>> import gzip; gzip.decompress(pk.blob()[16 + int.from_bytes(pk.blob()[:4], "big") :])
    b'[0,[[0,1,2],[1,1,[3]]]]\n'
    >>> pk.blob()[4:16].hex(" ", 4)
    '00000001 00000000 00000002'
    >>> unpack_svgs([pk.blob()])
    ['<svg>\n<a/>\n<b/>\n</svg>', '<svg>\n<c/>\n</svg>']
    """

    def __init__(self, level: int | None = None, *, docs: bool = True) -> None:
        self._table: dict[str, int] = {}
        self.parts: list[str] = []
        # each part in UTF-8, to make each step's document (kept only with ``docs``), and
        # those not yet compressed
        self._docs = docs
        self._data: list[bytes] = []
        self._new: list[bytes] = []
        self.steps = 0
        self.chars = 0  # of the parts in the table
        self._start = -1  # the chunk being added, its first step and its steps
        self._steps: list[Any] = []
        self._prev: list[int] = []
        self._prev_parts: Sequence[str] = ()  # the step before's parts (objects)
        self._chunks: list[tuple[int, int]] = []  # each chunk's first step and steps
        level = PACK_LEVEL if level is None else level
        # the table and the chunks, compressed apart
        self._z = [zlib_ng.compressobj(level, zlib_ng.DEFLATED, 31) for _ in range(2)]
        self._out: list[list[bytes]] = [[], []]
        self._blob: bytes | None = None

    def chunk(self, start: int) -> None:
        """Begin a chunk: the next step added is step ``start`` (counted from 0)."""
        if self._blob is not None:
            raise ValueError("the packing is closed")
        self._end_chunk()
        self._start = start

    def add(self, parts: Sequence[str]) -> bytes | None:
        """Add the next step's diagram, as its parts; its whole document in UTF-8 (None
        unless the packer keeps ``docs``)."""
        if self._start < 0:
            raise ValueError("add before chunk")
        get = self._table.get
        steps = self._steps
        prev, last = self._prev, self._prev_parts
        if steps and len(parts) == len(last):
            # most parts are the very objects of the step before, in the same places (the
            # drawing keeps them): only the others are looked up, and the head and tail in
            # common end at the first and last of those whose number differs
            ids = list(prev)
            diff = []
            for k in itertools.compress(range(len(parts)), map(operator.is_not, last, parts)):
                n = get(parts[k])
                ids[k] = self._new_part(parts[k]) if n is None else n
                if ids[k] != prev[k]:
                    diff.append(k)
            p, s = (diff[0], len(ids) - 1 - diff[-1]) if diff else (len(ids), 0)
            steps.append([p, s, ids[p : len(ids) - s]])
        else:
            # new parts (a few a step; all of a new packing's first), numbered in order; a
            # part twice in one step: once
            ids = []
            for part in parts:
                n = get(part)
                ids.append(self._new_part(part) if n is None else n)
            if not steps:
                steps.append(ids)
            else:
                # the common head and tail with the step before (a cheap diff: a real one
                # costs more time than it saves bytes once the whole is gzipped)
                p, s = _common_ends(ids, prev)
                steps.append([p, s, ids[p : len(ids) - s]])
        self._prev_parts = parts
        self._prev = ids
        self.steps += 1
        if not self._docs:
            return None
        data = self._data
        return b"\n".join([data[n] for n in ids])

    def _new_part(self, p: str) -> int:
        """Put a part not yet in the table into it; its number."""
        b = p.encode("utf-8")
        if b"\0" in b:
            raise ValueError(f"a NUL in a part of step {self.steps}: {p[:80]!r}")
        n = self._table[p] = len(self.parts)
        self.parts.append(p)
        self.chars += len(p)
        self._new.append(b)
        if self._docs:
            self._data.append(b)
        return n

    def _end_chunk(self) -> None:
        if self._start < 0:
            return
        if self._new:
            self._out[0].append(self._z[0].compress(b"\0".join([*self._new, b""])))
            self._new = []
        # (msgspec: the same bytes as json.dumps with no spaces, for lists of numbers, at a
        # twentieth of its time, which was some 8 % of drawing a step of a big event)
        rec = _CHUNK_JSON.encode([self._start, self._steps]) + b"\n"
        self._out[1].append(self._z[1].compress(rec))
        self._chunks.append((self._start, len(self._steps)))
        self._start, self._steps = -1, []

    def blob(self) -> bytes:
        """The packing as gzip; nothing can be added after."""
        if self._blob is None:
            self._end_chunk()
            table, chunks = (
                b"".join([*out, z.flush()]) for out, z in zip(self._out, self._z, strict=True)
            )
            head = [len(table), len(self._chunks), *(n for c in self._chunks for n in c)]
            self._blob = b"".join([*(n.to_bytes(4, "big") for n in head), table, chunks])
            self._out = [[], []]
        return self._blob


#: the chunks' lines of JSON (:meth:`PartPacker._end_chunk`)
_CHUNK_JSON = msgspec.json.Encoder()


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


def pack_parts(
    docs: Iterable[Sequence[str]], chunk: int = KEYFRAME, *, order: Iterable[int] | None = None
) -> bytes:
    """:class:`PartPacker` over every step's parts, cut into chunks of ``chunk`` steps,
    added in the order of ``order`` (chunk numbers; default: in order). For tests and
    scripts.

    >>> unpack_svgs([pack_parts([["<a>"], ["<a>", "<b>"], ["<b>"]], 2, order=[1, 0])])
    ['<a>', '<a>\\n<b>', '<b>']
    """
    docs = list(docs)
    pk = PartPacker()
    n = -(-len(docs) // chunk)
    for c in range(n) if order is None else order:
        pk.chunk(c * chunk)
        for parts in docs[c * chunk : (c + 1) * chunk]:
            pk.add(parts)
    return pk.blob()


def unpack_svgs(blobs: Iterable[bytes]) -> list[str]:
    """Every step's SVG back from the blobs of :class:`PartPacker` (one per chunk, or any
    number of chunks each, in any order; the viewer does the same in JavaScript). The blobs
    must hold each step from the first to the last exactly once.

    >>> unpack_svgs([pack_parts([["<a>", "<b>"]])])
    ['<a>\\n<b>']
    """
    out: dict[int, str] = {}
    for blob in blobs:
        for i, svg in _unpack(blob):
            if i in out:
                raise ValueError(f"step {i} is packed twice")
            out[i] = svg
    if sorted(out) != list(range(len(out))):
        raise ValueError(f"the packed steps are not 0..{len(out) - 1}")
    return [out[i] for i in range(len(out))]


def _unpack(blob: bytes) -> Iterator[tuple[int, str]]:
    """Each step of one blob of :class:`PartPacker`, with its number: ``(i, svg)``."""
    n = int.from_bytes(blob[:4], "big")
    at = 8 + 8 * int.from_bytes(blob[4:8], "big")  # past the chunks' steps
    *parts, end = gzip.decompress(blob[at : at + n]).decode("utf-8").split("\0")
    *chunks, end2 = gzip.decompress(blob[at + n :]).decode("ascii").split("\n")
    if end or end2:
        raise ValueError("a packing that does not end with a NUL and a newline")
    for chunk in chunks:
        start, steps = json.loads(chunk)
        ids: list[int] = []
        for j, st in enumerate(steps):
            if j == 0:
                ids = list(st)
            else:
                p, s, mid = st
                ids = ids[:p] + list(mid) + (ids[len(ids) - s :] if s else [])
            yield start + j, "\n".join([parts[k] for k in ids])


def first_svg(blobs: Sequence[bytes]) -> str:
    """The first step's SVG, from the one blob that holds it ("" if none), without its XML
    declaration: the page shows it inline before its script has run (docs/viewer.md).

    >>> first_svg([pack_parts([["<?xml version='1.0'?>", "<svg>", "</svg>"]])])
    '<svg>\\n</svg>'
    """
    for blob in blobs:
        k = int.from_bytes(blob[4:8], "big")
        if any(int.from_bytes(blob[8 + 8 * c : 12 + 8 * c], "big") == 0 for c in range(k)):
            for i, svg in _unpack(blob):
                if i == 0:
                    return re.sub(r"^\s*<\?xml[^>]*\?>\s*", "", svg)
    return ""


class _Claims:
    """Which runs of steps (:func:`label_run`) are left to draw, shared by the drawing
    processes. Each process has a segment of consecutive runs and takes them from its
    front; when its own are gone it takes the last run of the segment with most left, and
    so on backwards, so that the processes end together however fast each goes.

    >>> c = _Claims(5, 2)
    >>> [c.take(0), c.take(0), c.take(0), c.take(0), c.take(1), c.take(1)]
    [0, 1, 2, 4, 3, None]
    """

    def __init__(self, chunks: int, segments: int, ctx: Any = None) -> None:
        per = -(-chunks // segments)
        bounds = []
        for s in range(segments):
            bounds += [min(s * per, chunks), min((s + 1) * per, chunks)]
        self.segments = segments
        if ctx is None:
            self._left: Any = bounds
            self._lock: Any = contextlib.nullcontext()
        else:  # in shared memory, for forked processes
            self._left = ctx.RawArray("i", bounds)
            self._lock = ctx.Lock()

    def take(self, k: int) -> int | None:
        """The next run for process ``k`` to draw, or None: all are taken."""
        with self._lock:
            a = self._left
            if a[2 * k] < a[2 * k + 1]:
                a[2 * k] += 1
                return a[2 * k] - 1
            s = max(range(self.segments), key=lambda s: a[2 * s + 1] - a[2 * s])
            if a[2 * s] >= a[2 * s + 1]:
                return None
            a[2 * s + 1] -= 1
            return a[2 * s + 1]


def _write(dfd: int, name: str, data: bytes) -> None:
    """Write ``data`` to the file ``name`` in the directory open as ``dfd``."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666, dir_fd=dfd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _draw_chunks(
    claim: Callable[[], int | None], done: Callable[[int], None]
) -> tuple[list[bytes], int]:
    """Draw the runs (:func:`label_run`) of ``_FRAMES`` that ``claim()`` gives, until it
    gives None; write their SVG files if asked; call ``done(steps)`` after each chunk of
    :data:`KEYFRAME` steps. Returns the packings (:meth:`PartPacker.blob`, one per
    :data:`BLOB_STEPS` steps, so that the viewer inflates only the packings it shows and a
    process's memory stays bounded on a long run) and the bytes written."""
    d, digits = _SVG_DIR
    run = label_run(len(_FRAMES))
    dfd = None if d is None else os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    try:
        blobs = []
        pk = PartPacker(docs=dfd is not None)  # with no files, no documents to make
        nbytes = 0
        while (c := claim()) is not None:
            memory = LabelMemory()  # each run's labels begin afresh (chunk_svgs)
            for start in range(c * run, min((c + 1) * run, len(_FRAMES)), KEYFRAME):
                frames = _FRAMES[start : start + KEYFRAME]
                # a run's last chunk may be short, and the runs come in any order: the
                # packing is full when the next chunk would not fit, not when it is at the mark
                if pk.steps and pk.steps + len(frames) > BLOB_STEPS:
                    blobs.append(pk.blob())
                    pk = PartPacker(docs=dfd is not None)
                pk.chunk(start)
                for f in frames:
                    doc = pk.add(
                        render_svg_parts(f, _SCENE, highlight=f.actor, label_memory=memory)
                    )
                    if dfd is not None and doc is not None:
                        _write(dfd, svg_name(f.seq, digits), doc)
                        nbytes += len(doc)
                done(len(frames))
        if pk.steps:
            blobs.append(pk.blob())
        return blobs, nbytes
    finally:
        if dfd is not None:
            os.close(dfd)


def _worker(k: int, claims: _Claims, conn: Any, theirs: Sequence[Any] = ()) -> None:
    """A drawing process: :func:`_draw_chunks` of the runs it claims, sending ``("n",
    steps)`` after each chunk and ``("blobs", blobs, bytes written)`` at the end through ``conn``;
    an error is sent too. ``theirs``: the render's reading ends, inherited with the fork."""
    # the drawing keeps many objects alive (its caches, the table of parts) and makes little
    # cyclic garbage; a drawing process lives for one render
    collector.relaxed()
    as_child()  # ^C and SIGTERM are the render's to answer: it ends us
    # the reading ends are the render's alone: a process that kept its own would wait for
    # ever on a full pipe once the render is gone, instead of ending (EPIPE)
    for reading in theirs:
        reading.close()
    try:
        blobs, nbytes = _draw_chunks(lambda: claims.take(k), lambda n: conn.send(("n", n)))
        conn.send(("blobs", blobs, nbytes))
    except BrokenPipeError:
        pass  # the render has ended (an interrupt): there is nobody to tell
    except BaseException:
        with contextlib.suppress(BrokenPipeError):
            conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


def draw_packed(
    frames: Sequence[Any],
    scene: Scene,
    *,
    jobs: int | None = None,
    progress: Progress | None = None,
    svg_dir: Path | None = None,
) -> tuple[list[bytes], int]:
    """Draw every frame (:func:`sheli.outputs.diagram.render_svg_parts`, the step's actor
    highlighted), pack the diagrams (:class:`PartPacker`) and, with ``svg_dir``, write each
    as :func:`svg_name` of its seq. Returns the packings (one per
    :data:`BLOB_STEPS` steps drawn by a process), and the bytes of SVG written.

    The frames are cut into runs of a few chunks of :data:`KEYFRAME` steps
    (:func:`label_run`), shared out among ``jobs`` processes (default: every CPU) by
    :class:`_Claims`: each draws a segment of consecutive runs, so that what the drawing
    remembers between steps (docs/diagrams.md) serves it, and then helps the others from
    the end of theirs. Each process writes its steps' files
    and packs and compresses its own diagrams, sending only the compressed packing at the
    end: this process merely waits, reporting ``progress(done, total)`` as chunks are done.

    >>> from sheli.engine import run
    >>> from sheli.outputs.diagram import render_svg
    >>> from sheli.outputs.frames import build_frames
    >>> r = run("xiangshe")
    >>> fr = build_frames(r)[:70]
    >>> blobs, _ = draw_packed(fr, r.scene, jobs=1)
    >>> unpack_svgs(blobs) == chunk_svgs(fr, r.scene)
    True
    """
    global _FRAMES, _SCENE
    total = len(frames)
    nruns = -(-total // label_run(total))
    jobs = max(1, min(jobs or os.cpu_count() or 1, nruns))
    last_seq = frames[-1].seq if frames else 0
    _FRAMES, _SCENE = list(frames), scene
    _SVG_DIR[:] = [svg_dir, max(4, len(str(last_seq)))]
    blobs: list[bytes] = []
    nbytes = 0
    done = 0
    procs: list[Any] = []

    def step_done(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total)

    try:
        if jobs <= 1:
            claims = _Claims(nruns, 1)
            blobs, nbytes = _draw_chunks(lambda: claims.take(0), step_done)
        else:
            ctx = FORK
            claims = _Claims(nruns, jobs, ctx)
            conns: dict[Connection, int] = {}
            # what exists now (the run, its frames) is moved out of the collector's sight
            # before forking: a collection in a drawing process would otherwise touch every
            # object it inherited, copying page after page of memory it only reads
            with collector.frozen(), signals_held():
                for k in range(jobs):
                    r, w = ctx.Pipe(duplex=False)
                    p = ctx.Process(target=_worker, args=(k, claims, w, (r, *conns)), daemon=True)
                    p.start()
                    w.close()
                    procs.append(p)
                    conns[r] = k
            got: dict[int, list[bytes]] = {}
            ended = 0
            while conns:
                for ready in wait(list(conns)):
                    # wait gives back what it was given: the pipes' read ends
                    assert isinstance(ready, Connection)
                    r = ready
                    try:
                        msg = r.recv()
                    except EOFError:
                        del conns[r]
                        continue
                    if msg[0] == "error":
                        raise RuntimeError(f"a drawing process failed:\n{msg[1]}")
                    if msg[0] == "n":
                        step_done(msg[1])
                    else:
                        ended += 1
                        got[conns[r]] = msg[1]
                        nbytes += msg[2]
            if ended != jobs:
                raise RuntimeError(f"{jobs - ended} of {jobs} drawing processes ended early")
            blobs = [b for k in sorted(got) for b in got[k]]
        if done != total:
            raise RuntimeError(f"the drawing processes drew {done} of {total} steps")
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
            p.join()
        _FRAMES, _SCENE = [], None
        _SVG_DIR[:] = [None, 4]
    return blobs, nbytes


# --------------------------------------------------------------------------------------
# the viewer's data


def time_number(v: float, places: int = 1) -> float:
    """A time or a length as the viewer's data keeps it: rounded to ``places`` decimals
    (a tenth of a second, of a 尺), a whole number without its ``.0`` (one JSON character
    fewer, a few in every step).

    >>> time_number(7510.64), time_number(12.0), time_number(-22.125, 2)
    (7510.6, 12, -22.12)
    """
    r = round(v, places)
    return int(r) if r == int(r) else r


def walk_track(step: int, path: Sequence[Sequence[float]]) -> list[float]:
    """One walk as the viewer plays it: the step's index, then each point of its ``path``
    (docs/event-log.md: ``[x, y, t]``, 尺 and seconds) flattened, rounded by
    :func:`time_number`.

    >>> walk_track(1030, [(-22.12, -34.12, 7510.6), (-12.0, -4.0, 7517.94)])
    [1030, -22.1, -34.1, 7510.6, -12, -4, 7517.9]
    """
    out: list[float] = [step]
    for x, y, t in path:
        out += [time_number(x), time_number(y), time_number(t)]
    return out


class ViewerData(BaseVisitor[dict[str, Any]]):
    """The reader of a run that makes the viewer's data (see :func:`viewer_data`): each
    step's record as it goes (its strings numbered in the order the viewer has always had
    them), its tally state once the shots that follow it are read, the rest at the end."""

    def __init__(
        self, chapter: str, seed: Any = None, known: dict[str, tuple[str, str]] | None = None
    ) -> None:
        self.chapter = chapter
        self.seed = seed
        # the assumptions the steps may name (id → what, why), and those named, in order
        self.known = known or {}
        self.assumed: dict[str, int] = {}
        self.strings = Strings()
        self.scene: Scene | None = None
        self.tally = TallyStates()
        self.passages: dict[str, dict[str, Any]] = {}
        self.out_steps: list[dict[str, Any]] = []
        self.sections_used: set[int] = set()
        self.state_ids: dict[str, int] = {}
        self.state_list: list[dict[str, Any]] = []
        self._last: tuple[Any, int] = (None, -1)  # the step before's state and its number
        # 告 steps and what they say, and each step's 如初 call: placed at the end
        self._said: list[int] = []
        self._calls: dict[int, list[Any]] = {}
        # the English (docs/viewer.md, "In English"): each step's sentence, and the English
        # of the table's strings that have one (actors, places, what is held, dress …)
        self.en = EnglishTable()
        self.en_steps: list[int] = []
        self.en_of: dict[int, str] = {}
        self.diagram_words = DiagramWords()
        # the rite in time (docs/viewer.md, "Playing the rite"): each step's start and
        # duration, and each walker's walks, by the actor's string
        self.starts: list[float] = []
        self.durations: list[float] = []
        self.walks: dict[int, list[list[float]]] = {}

    def add_passage(self, pid: str) -> None:
        if pid in self.passages:
            return
        sid = self.strings.id
        p = get_passage(pid)
        self.passages[pid] = {
            "t": sid(p.text),
            "k": p.kind,
            "s": p.section,
            "n": [[sid(e), sid(k), sid(t)] for e, k, t in distinct_notes(notes_for(pid))],
        }

    def begin_run(self, scene: Scene) -> None:
        self.scene = scene
        words = self.diagram_words
        words.things(venue_plan(scene.venue).fixtures)
        words.things(t for k in ("places", "objects", "dress") for t in glossary()[k])
        for c in scene.cast:
            words.person(c["actor"], c.get("name"))
            words.person(c["actor"])

    def _close_step(self) -> None:
        """The tally state of the last step, now that the shots after it are read."""
        state = self.tally.snapshot()
        if state == self._last[0]:  # most steps shoot nothing: the same state, not again
            k = self._last[1]
        else:
            key = json.dumps(state, ensure_ascii=False, sort_keys=True)
            k = self.state_ids.get(key, -1)
            if k < 0:
                k = self.state_ids[key] = len(self.state_list)
                self.state_list.append(state)
            self._last = (state, k)
        self.out_steps[-1]["t"] = k

    def visit_step(self, st: Step) -> None:
        if self.out_steps:
            self._close_step()
        sid = self.strings.id
        self.add_passage(st.cite)
        if st.section is not None:
            self.sections_used.add(st.section)
        dress = st.dress
        rec: dict[str, Any] = {
            "q": st.seq,
            "r": st.round,
            "s": st.section,
            "c": st.cite,
            "j": sid(st.jing),
            "a": sid(st.actor),
            "v": sid(st.verb),
            "y": sid(st.says),
            "p": sid(st.place),
            "h": sid("、".join(holds_words(st.holding)) or None),
            "d": sid("、".join(dress or []) or None),
            "n": -1,
            "t": -1,
        }
        # the note without the ids of the assumptions it names; they, and the step's own,
        # are shown by what they say (docs/viewer.md, "Notes and assumptions")
        note, named = split_assumptions(st.note or "", self.known)
        rec["n"] = sid(note or None)
        ids = [a for a in dict.fromkeys([*st.assumes, *named]) if a in self.known]
        if ids:
            rec["u"] = [self.assumed.setdefault(a, len(self.assumed)) for a in ids]
        span = words_span(get_passage(st.cite).text, st.jing)
        if span is not None:  # the words in another form (矦/侯): where to mark them
            rec["m"] = span
        self.out_steps.append(rec)
        self.en_steps.append(self.en.sentence(st))
        self.diagram_words.act(st.actor, st.verb, st.to)
        self.diagram_words.held(st.holding)
        en_of = self.en_of
        if rec["h"] >= 0 and rec["h"] not in en_of:
            en_of[rec["h"]] = holds_english(st.holding) or ""
        if rec["d"] >= 0 and rec["d"] not in en_of:
            en_of[rec["d"]] = dress_english(dress) or ""
        if rec["n"] >= 0 and rec["n"] not in en_of:
            en_of[rec["n"]] = gloss(note)
        if rec["p"] >= 0 and rec["p"] not in en_of:
            en_of[rec["p"]] = label(st.place or "", "places", "objects")
        i = len(self.out_steps) - 1
        self.starts.append(time_number(st.t or 0.0))
        self.durations.append(time_number(st.dur or 0.0))
        if st.path:
            self.walks.setdefault(rec["a"], []).append(walk_track(i, st.path))
        if st.announces is not None and st.verb == "告":
            self._said.append(i)
        call = st.acting_as
        if call:
            self.add_passage(call.cite)
            self._calls[i] = [call.cite, sid(call.jing), sid(call.procedure)]

    def visit_shot(self, shot: Shot) -> None:
        self.tally.visit_shot(shot)

    def visit_tally(self, tally: Tally) -> None:
        self.tally.visit_tally(tally)

    def end_run(self) -> None:
        if self.out_steps:
            self._close_step()
        # the 釋獲者's announcement (xiangshe:203): the 告 of the words of a count of the run
        out = self.out_steps
        said = set(self._said)
        for d in self.tally.done:  # the announcement in English, by its words
            self.en_of[self.strings.id(d["announcement"])] = announcement_en(d["right"], d["left"])
        for i in sorted(said | set(self._calls)):
            if i in said:
                out[i]["an"] = 1
            if i in self._calls:
                out[i]["as"] = self._calls[i]

    def result(self) -> dict[str, Any]:
        sid = self.strings.id
        out_steps = self.out_steps
        chapter = load_chapter(self.chapter)
        sections = {}
        for n in sorted(self.sections_used):
            try:
                sec = chapter.section(n)
            except KeyError:
                continue
            sections[str(n)] = {"t": sid(sec.topic), "f": sec.first, "l": sec.last}
            topic_en = section_english(self.chapter, n)
            if topic_en:
                self.en_of[sid(sec.topic)] = topic_en

        # segments for the menus: contiguous runs of a section, and of a round
        def segments(key: str) -> list[list[int]]:
            segs: list[list[int]] = []
            for i, rec in enumerate(out_steps):
                if not segs or out_steps[segs[-1][1]][key] != rec[key]:
                    segs.append([rec[key], i])
            return segs

        scene = self.scene
        assert scene is not None  # every run begins with its scene
        cast = [
            {
                "a": sid(c["actor"]),
                "r": sid(c.get("role", c["actor"])),
                "n": sid(c.get("name")),
                "p": sid(c.get("pair")),
            }
            for c in scene.cast
        ]
        in_cast = {c["a"] for c in cast}
        for rec in out_steps:  # anyone acting who is not in the cast still gets a menu entry
            if rec["a"] not in in_cast:
                in_cast.add(rec["a"])
                cast.append({"a": rec["a"], "r": rec["a"], "n": -1, "p": -1})

        rounds = {str(k): sid(v) for k, v in ROUND_NAMES.items()}
        en_of = self.en_of
        for c in cast:
            for field in ("a", "r", "n"):
                if c[field] >= 0 and c[field] not in en_of:
                    en_of[c[field]] = label(self.strings.text(c[field]), "roles")
        for k, v in ROUND_NAMES.items():
            en_of[sid(v)] = f"{ROUNDS_EN[k]} ({v})"
        title = scene.title or scene.rite
        en_of[sid(title)] = title_words(title)  # the rite's name, as Steele gives it
        meta = {
            "rite": scene.rite,
            "title": sid(scene.title or scene.rite),
            "titleText": scene.title or scene.rite,
            "venue": scene.venue,
            "params": scene.params,
            "seed": self.seed,
            "steps": len(out_steps),
            "lang": DEFAULT,  # the language the viewer opens in (see _page)
        }
        english = {
            "L": viewer_labels(),
            "t": self.en.strings,
            "s": self.en_steps,
            "x": {str(k): v for k, v in sorted(en_of.items()) if v},
            "p": {pid: _passage_english(pid) for pid in self.passages},
            "a": [list(assumption_english(a, *self.known[a])) for a in self.assumed],
            "g": self.diagram_words.words,
            "f": self.diagram_words.formats,
        }
        # the assumptions' words are strings of the table too: taken before the table is read
        assumed = [[sid(self.known[a][0]), sid(self.known[a][1])] for a in self.assumed]
        t, s = self.strings.tables()
        return {
            "meta": meta,
            "T": t,
            "S": [b if b != a else None for a, b in zip(t, s, strict=True)],
            "steps": out_steps,
            "tallies": self.state_list,
            "passages": self.passages,
            "sections": sections,
            "sectionSegs": segments("s"),
            "roundSegs": segments("r"),
            "rounds": rounds,
            "cast": cast,
            "A": assumed,
            "E": pack_english(english),
            "time": {
                "t": self.starts,
                "d": self.durations,
                "w": [[a, walks] for a, walks in self.walks.items()],
            },
        }


def _passage_english(pid: str) -> list[str]:
    """A passage's English and the reading it follows, for the viewer ([] where none)."""
    t = passage_english(pid)
    if t is None:
        return []
    text = bracket_terms(t.text)
    return [text, reading_english(t.reading)] if t.reading else [text]


def viewer_data(result: Any) -> dict[str, Any]:
    """Everything the viewer shows but the diagrams, as one JSON-able dict (docs/viewer.md).

    ``result`` is a run (:func:`sheli.engine.run`), read by :class:`ViewerData`.
    """
    params = getattr(result, "params", None)
    seed = params.get("seed") if isinstance(params, dict) else None
    return result.accept(ViewerData(result.spec.spec.chapter, seed, known_assumptions(result)))


def _script_json(data: dict[str, Any]) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``</`` can close it."""
    s = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return s.replace("</", "<\\/").replace("<!--", "\\u003c!--")


def viewer_page(data: dict[str, Any]) -> tuple[str, str, str]:
    """``index.html`` but its diagrams: the template (filled with CSS, JavaScript and the
    data) before the first diagram (:func:`first_svg`, inline in the stage so that the page
    shows it while the rest loads), between it and the packed diagrams (:func:`blob_text`),
    and after them.

    >>> head, mid, tail = viewer_page({"meta": {"titleText": "鄉射禮 <x>"}, "steps": []})
    >>> "鄉射禮 &lt;x&gt;" in head and head.endswith('aria-label="plan" tabindex="0">')
    True
    >>> mid.endswith('id="sheli-svg">'), tail.startswith("</script>")
    (True, True)
    """
    title = str(data.get("meta", {}).get("titleText") or "sheli")
    fill = {
        "title": escape(title),
        "css": asset("viewer.css"),
        "js": asset("viewer.js"),
        "data": _script_json(data),
    }
    head, rest = asset("index.html.tmpl").split("$first")
    mid, tail = rest.split("$svgdata")
    sub = Template
    return sub(head).substitute(fill), sub(mid).substitute(fill), sub(tail).substitute(fill)


def blob_text(blobs: Iterable[bytes]) -> str:
    """The packed diagrams as they stand in the page: each blob (gzip, from
    :class:`PartPacker`) in base64, one a line; the viewer inflates each with the browser's
    own ``DecompressionStream``.

    >>> blob_text([b"ab", b"c"])
    'YWI=\\nYw=='
    """
    return "\n".join(base64.b64encode(b).decode("ascii") for b in blobs)


def viewer_html(data: dict[str, Any], blobs: Iterable[bytes] = ()) -> str:
    """The whole ``index.html``: template, CSS, JavaScript, data and diagrams in one file.

    >>> html = viewer_html({"meta": {"titleText": "鄉射禮 <x>"}, "steps": []})
    >>> "鄉射禮 &lt;x&gt;" in html and "<script" in html
    True
    """
    blobs = list(blobs)
    head, mid, tail = viewer_page(data)
    return head + first_svg(blobs) + mid + blob_text(blobs) + tail


def _page(result: Any, against: Any = None, lang: str = DEFAULT) -> tuple[tuple[bytes, ...], int]:
    """:func:`viewer_page` of ``result``'s :func:`viewer_data`, in UTF-8, and its steps;
    with ``against`` (another run of the rite), its ghosts and the differences as ``diff``
    (:func:`sheli.outputs.ghosts.ghost_data`, ``against`` as run A); the viewer opens in
    ``lang`` (``zh-Hant``, ``zh-Hans`` or ``en``)."""
    data = viewer_data(result)
    data["meta"]["lang"] = lang
    if against is not None:
        data["diff"] = ghost_data(against, result)
    return tuple(t.encode("utf-8") for t in viewer_page(data)), len(data["steps"])


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
    against: Any = None,
    lang: str = DEFAULT,
) -> RenderReport:
    """Write the viewer of ``result`` (a run) to ``out/index.html`` and each step's SVG to
    ``out/svg/step-NNNN.svg`` (NNNN the step's seq). With ``against``, another run of the
    rite (a reading, a venue or an option apart), the viewer also draws its bodies as ghosts
    and lists the steps where the runs differ (docs/viewer.md, "Two readings"). The viewer
    opens in ``lang`` (``zh-Hant``, ``zh-Hans`` or ``en``); a reader switches at will.

    Everything is written into a temporary directory beside ``out`` and moved into place
    at the end, so an interrupted render leaves ``out`` as it was. An existing ``out`` is
    replaced only if it is empty or holds an earlier render (has ``index.html``).
    ``progress(done, total)`` is called as the diagrams are drawn. ``jobs`` is the number
    of drawing processes (default: every CPU); with more than one, the text pane's data is
    built in a process of its own, begun first, while this one folds the run into frames.

    >>> import tempfile, pathlib
    >>> from sheli.engine import run
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "out"
    >>> rep = render(run("xiangshe"), d, svg_files=False)
    >>> (d / "index.html").exists(), rep.steps > 1000, rep.svg_files
    (True, True, 0)
    """
    out = Path(os.path.realpath(out))  # a symlink stays a link: its target is rendered into
    check_out_dir(out)
    parent = out.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_dir_beside(out)  # with the umask's mode (mkdtemp's is private)
    text = None
    try:
        if (jobs or os.cpu_count() or 1) > 1:
            # the text pane's data, JSON and page: on the core that would otherwise wait
            # while the frames are folded here (that cannot be shared out)
            text = Forked(_page, result, against, lang)
        sd = tmp / "svg"
        if svg_files:
            sd.mkdir()
        frames = build_frames(result)
        blobs, svg_bytes = draw_packed(
            frames,
            result.scene,
            jobs=jobs,
            progress=progress,
            svg_dir=sd if svg_files else None,
        )
        (head, mid, tail), n_steps = _page(result, against, lang) if text is None else text.result()
        if len(frames) != n_steps:
            raise RuntimeError(f"{len(frames)} diagrams for {n_steps} steps")
        first = first_svg(blobs).encode("utf-8")
        html = b"".join([head, first, mid, blob_text(blobs).encode("ascii"), tail])
        (tmp / "index.html").write_bytes(html)
        # into place: an earlier render is moved aside first, then removed
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=parent))
            os.replace(out, old / "render")
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        if text is not None:
            text.close()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    n_files = len(frames) if svg_files else 0
    return RenderReport(out, n_steps, n_files, len(html), svg_bytes)

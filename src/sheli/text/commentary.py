"""Commentary attached to passages: the seeds' 鄭注 and 賈疏, and every imported edition.

The bundled commentary is in ``sheli/text/data/commentary/``, one TSV per seed, made by
``tools/extract_commentary.py``: columns ``passage, kind, status, text``. ``status`` is
``clean`` (the seed's words, pinyin stripped), ``repaired`` (a garbled stretch of the seed
replaced by the corpus's reading of the same note, found by aligning the clean text on
both sides of it) or ``dropped`` (the note could not be repaired; its text is a marker,
never a guess).

Imported editions (``sheli text import``, :mod:`sheli.text.editions`) are read from their store
(:mod:`sheli.text.store`).

>>> [(n.edition, n.kind) for n in notes_for("xiangshe:123", ["seed:000"])]
[('seed:000', '注'), ('seed:000', '疏')]
>>> notes_for("xiangshe:123", ["seed:000"])[0].text
'猶,有故之辭。拾,更也。'
"""

from __future__ import annotations

import functools
from importlib import resources

from sheli.text.model import Note
from sheli.text.store import all_editions

# Display order of kinds: 注 before 音義 before 疏, then the later commentators.
KIND_ORDER = {
    "注": 0,
    "音義": 1,
    "疏": 2,
    "集釋": 3,
    "圖": 4,
    "正義": 5,
    "通論": 6,
    "辨正": 7,
    "存疑": 8,
    "餘論": 9,
    "總論": 10,
    "案": 11,
    "章": 12,
    "本文": 13,
}

SEED_FILES = {
    "seed:000": "seed-000-xiangshe.tsv",
    "seed:002": "seed-002-yan.tsv",
    "seed:004": "seed-004-xiangshe-jishi.tsv",
}


@functools.cache
def seed_notes() -> tuple[Note, ...]:
    """Every note of the bundled seed commentary, in file order.

    >>> any(n.kind == "注" and n.passage == "xiangshe:1" for n in seed_notes())
    True
    >>> sorted({n.edition for n in seed_notes()}) == sorted(SEED_FILES)
    True
    """
    out: list[Note] = []
    base = resources.files("sheli.text").joinpath("data", "commentary")
    for edition, name in SEED_FILES.items():
        f = base.joinpath(name)
        if not f.is_file():
            continue
        for line in f.read_text(encoding="utf-8").splitlines():
            if not line or line.startswith("#") or line.startswith("passage\t"):
                continue
            pid, kind, status, text = line.split("\t", 3)
            if status == "dropped":
                continue  # a marker row: the note could not be repaired
            source = f"{name}" + (" (repaired from the corpus)" if status == "repaired" else "")
            out.append(Note(pid, edition, kind, text, source))
    return tuple(out)


@functools.cache
def _seed_index() -> dict[str, list[Note]]:
    idx: dict[str, list[Note]] = {}
    for n in seed_notes():
        idx.setdefault(n.passage, []).append(n)
    return idx


def imported_notes(pid: str) -> list[Note]:
    """The notes every imported edition holds for ``pid``.

    >>> imported_notes("nochapter:1")
    []
    """
    chapter = pid.split(":", 1)[0]
    out: list[Note] = []
    for data in all_editions():
        rec = data.get("chapters", {}).get(chapter)
        if not rec:
            continue
        src = f"{data.get('title', '')} {data.get('kanripo_id', '')}".strip()
        for n in rec["notes"].get(pid, []):
            extra = f"; {n['placed']}" if "placed" in n else ""
            out.append(Note(pid, data["edition"], n["kind"], n["text"], src + extra))
    return out


def notes_for(pid: str, editions: list[str] | None = None) -> list[Note]:
    """The commentary of one passage, 注 before 音義 before 疏, then the later works.

    Within a kind the seeds come first, then imported editions in name order. Each note
    carries its edition (``seed:000``, ``注疏`` …) and its source. ``editions`` keeps only
    the named editions (``seed`` keeps every seed).

    >>> [n.kind for n in notes_for("xiangshe:123", ["seed:000"])]
    ['注', '疏']
    """
    notes = list(_seed_index().get(pid, [])) + imported_notes(pid)
    if editions is not None:
        want = set(editions)
        notes = [
            n
            for n in notes
            if n.edition in want or ("seed" in want and n.edition.startswith("seed:"))
        ]
    ranked = sorted(
        (KIND_ORDER.get(n.kind, 50), 0 if n.edition.startswith("seed:") else 1, n.edition, i)
        for i, n in enumerate(notes)
    )
    return [notes[r[-1]] for r in ranked]

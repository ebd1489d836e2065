"""Import a user's copy of a Kanripo edition: align it, cut its commentary, store it.

``sheli text import FILE`` calls :func:`import_edition`. The file is parsed
(:mod:`sheli.text.kanripo`), its chapter detected, our passages anchored in it
(:mod:`sheli.text.align`), and what lies between one passage and the next is cut into
notes by the edition's own conventions (docs/commentary.md, the formats):

- 注疏 (WYG): 注 after the inline marker ``注``; ``音義(…)``; ``疏(…)``.
- 鄭注 (SBCK): every small-character block is 注.
- 單疏: no 經; each ``X至Y　釋曰…`` paragraph is placed by its 標起止 (:func:`align_shu`).
- 集釋: indented lines; a block opening ``鄭注`` is 注, any other is 李如圭's own.
- 儀禮圖: the bracketed excerpts, cut at ``○``: ``疏曰…`` is 疏, ``今案…`` is 楊復's.
- 義疏: indented lines, each note headed by its category (正義, 通論, 存疑, 辨正 …).

One JSON file per edition in the data directory (``$SHELI_DATA_DIR`` or the platform's
user data dir), chapters inside it, written whole to a temporary file and moved into
place, so a failed import leaves the store as it was.

>>> store_dir().name
'editions'
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sheli.errors import SheliError
from sheli.files import write_text
from sheli.text.align import (
    Alignment,
    Anchor,
    Target,
    align_doc,
    chapter_targets,
    fold_text,
    heaviest_chain,
)
from sheli.text.commentary import seed_notes
from sheli.text.kanripo import FORMAT_NAMES, Char, KanripoDoc, KanripoError, read_kanripo
from sheli.text.store import all_editions, edition_path, load_edition
from sheli.text.store import data_dir as data_dir  # re-exported: the CLI's data directory
from sheli.text.store import store_dir as store_dir  # re-exported: the CLI's report

CHAPTERS = ("xiangshe", "yan", "dashe")
CHAPTER_TITLES = {"xiangshe": "鄉射禮", "yan": "燕禮", "dashe": "大射儀"}
# Below this share of passages found, the file is not that chapter (one 卷 file of a
# chapter that spans three 卷 holds about a third).
MIN_SHARE = 0.15

# 義疏's categories of commentary, each heading a note.
YISHU_LABELS = ("正義", "通論", "存疑", "辨正", "餘論", "總論", "案")
_LETTER = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\U00020000-\U0003ffff〓]")
_COUNT_NOTE = re.compile(r"^經[一二三四五六七八九十百千]+字")  # SBCK's 卷末 character count


class ImportFailed(SheliError):
    """An import that cannot go on; the message names the file and what is wrong."""


# --------------------------------------------------------------------------- notes


@dataclass
class _Note:
    kind: str
    parts: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(self.parts).strip()


def _runs(chars: Sequence[Char], idxs: Sequence[int]) -> list[tuple[bool, list[int]]]:
    """Group doc indices into runs: small blocks (merged across printed lines), and large
    stretches broken wherever characters are skipped or a ○ stands."""
    runs: list[tuple[bool, list[int]]] = []
    for i in idxs:
        c = chars[i]
        if runs and runs[-1][0] == c.small:
            if c.small or (runs[-1][1][-1] + 1 == i and not c.ring):
                runs[-1][1].append(i)
                continue
        runs.append((c.small, [i]))
    return runs


def _own(doc: KanripoDoc, a: Anchor) -> set[int]:
    """The doc indices of the passage itself (its large characters in its span)."""
    strict = doc.format in ("jishi", "yishu", "tu")
    pieces = a.pieces or ((a.start, a.end),)
    out: set[int] = set()
    for s, e in pieces:
        for i in range(s, e):
            c = doc.chars[i]
            if not c.small and (not strict or not c.indented or len(pieces) == 1):
                out.add(i)
    return out


def _cut_zhushu(doc: KanripoDoc, idxs: list[int]) -> list[_Note]:
    notes: list[_Note] = []
    label = ""
    large_kind = ""
    zhu, yin, shu = fold_text("注"), fold_text("音義"), fold_text("疏")
    for small, run in _runs(doc.chars, idxs):
        text = "".join(doc.chars[i].out for i in run)
        if small:
            kind = label or "音義"
            if notes and notes[-1].kind == kind and not label:
                notes[-1].parts.append(text)
            else:
                notes.append(_Note(kind, [text]))
            label = ""
            continue
        key = fold_text(text)
        label = ""
        if key.endswith(yin):
            label, text, key = "音義", text[:-2], key[:-2]
        elif key.endswith(shu):
            label, text, key = "疏", text[:-1], key[:-1]
        elif key.endswith(zhu) and len(key) > 1:
            # WYG 006-15a writes 注( for 疏( (docs/commentary.md): a 注 never stands in brackets
            label, text, key = "疏", text[:-1], key[:-1]
        if not text:
            continue
        lead = key.find(zhu, 0, 4)
        if lead > 0 and not notes:
            # a word or two of 經 that this edition has and ours has not (WYG 「賓揖乃升」)
            notes.append(_Note("本文", [text[:lead]]))
            text, key = text[lead:], key[lead:]
        elif not notes and key.startswith(shu) and len(key) > 1:
            # WYG 005-14a: a bare 疏 stands for the 注 marker (docs/commentary.md)
            text, key = zhu + text[1:], zhu + key[1:]
        if key.startswith(zhu):
            large_kind = "注"
            notes.append(_Note("注", [text[1:]]))
        elif large_kind == "注" and notes and notes[-1].kind in ("注", "音義"):
            # 注 resumes after an 音義 block set inside it
            last = next(n for n in reversed(notes) if n.kind == "注")
            last.parts.append(text)
        else:
            notes.append(_Note("本文", [text]))
    return notes


def _line_notes(
    doc: KanripoDoc, idxs: list[int], classify: Callable[[str], str | None]
) -> list[_Note]:
    """Notes made of whole lines: ``classify(line_text)`` names a kind when a line opens one."""
    notes: list[_Note] = []
    prev_line = -1
    in_small = False
    for i in idxs:
        c = doc.chars[i]
        if c.line != prev_line and not c.small:
            rest = "".join(doc.chars[j].ch for j in idxs if doc.chars[j].line == c.line)[:8]
            kind = classify(rest)
            if kind or not notes:
                notes.append(_Note(kind or "本文"))
        elif not notes:
            notes.append(_Note("本文"))
        if c.small and not in_small:
            notes[-1].parts.append("(")
        if not c.small and in_small:
            notes[-1].parts.append(")")
        in_small = c.small
        notes[-1].parts.append(c.out)
        prev_line = c.line
    if in_small and notes:
        notes[-1].parts.append(")")
    return notes


def _strip_label(notes: list[_Note], labels: dict[str, str]) -> list[_Note]:
    for n in notes:
        text = n.text()
        for lab in labels:
            if text.startswith(lab):
                n.parts = [text[len(lab) :]]
                break
    return notes


def _cut_jishi(doc: KanripoDoc, idxs: list[int]) -> list[_Note]:
    def classify(line: str) -> str | None:
        if line.startswith("鄭注"):
            return "注"
        if line.startswith("鄭目"):
            return "目錄"
        if line.startswith("釋曰"):
            return "集釋"  # 李如圭's own explanation, after the 注 (燕禮)
        if line.startswith("右"):
            return "章"
        return None

    notes = _line_notes(doc, idxs, classify)
    for n in notes:
        if n.kind == "本文" and doc.chars[idxs[0]].indented:
            n.kind = "集釋"
    return _strip_label(notes, {"鄭注": ""})


def _cut_yishu(doc: KanripoDoc, idxs: list[int]) -> list[_Note]:
    def classify(line: str) -> str | None:
        for lab in YISHU_LABELS:
            if line.startswith(lab) and not (lab == "案" and line.startswith("案今")):
                return lab
        if line.startswith("右"):
            return "章"
        return None

    notes = _line_notes(doc, idxs, classify)
    for n in notes:
        text = n.text()
        if n.kind in YISHU_LABELS and n.kind != "案":
            n.parts = [text[len(n.kind) :]]
        elif n.kind == "本文" and text.startswith("("):
            # the bracketed readings and 今古文 notes printed on the 經 line itself
            n.kind, n.parts = "音義", [text[1:].removesuffix(")")]
    return notes


_YIN = re.compile(r"^[^○]{1,3}(音[^○]{1,2}|[^○]{2}反)")


def _cut_tu(doc: KanripoDoc, idxs: list[int]) -> list[_Note]:
    notes: list[_Note] = []
    for small, run in _runs(doc.chars, idxs):
        if not small:
            text = "".join(doc.chars[i].out for i in run)
            if text == "記":
                continue  # the 「○記」 that introduces a moved 記 passage
            notes.append(_Note("章" if text.startswith("右") else "本文", [text]))
            continue
        pieces: list[list[str]] = [[]]
        for i in run:
            if doc.chars[i].ring and pieces[-1]:
                pieces.append([])
            pieces[-1].append(doc.chars[i].out)
        for piece in pieces:
            text = "".join(piece)
            if text.startswith("疏曰"):
                notes.append(_Note("疏", [text[2:]]))
            elif text.startswith(("今案", "今按", "愚案", "愚按")):
                notes.append(_Note("圖", [text]))
            elif len(text) <= 24 and _YIN.match(text):
                notes.append(_Note("音義", [text]))
            else:
                notes.append(_Note("注", [text]))
    return notes


def _cut_zhengzhu(doc: KanripoDoc, idxs: list[int]) -> list[_Note]:
    notes: list[_Note] = []
    for small, run in _runs(doc.chars, idxs):
        text = "".join(doc.chars[i].out for i in run)
        if small and _COUNT_NOTE.match(text):
            continue
        kind = "注" if small else "本文"
        if notes and notes[-1].kind == kind == "注":
            notes[-1].parts.append(text)
        else:
            notes.append(_Note(kind, [text]))
    return notes


_CUTTERS = {
    "zhushu": _cut_zhushu,
    "zhengzhu": _cut_zhengzhu,
    "jishi": _cut_jishi,
    "yishu": _cut_yishu,
    "tu": _cut_tu,
}


def build_notes(doc: KanripoDoc, al: Alignment) -> dict[str, list[dict[str, str]]]:
    """Cut the commentary after each anchored passage into notes ``{kind, text}``.

    A passage's commentary is what stands between it and the next anchored passage in the
    edition's own order (which for 儀禮圖's moved 記 is not ours).
    """
    order = sorted(al.anchors, key=lambda a: a.start)
    out: dict[str, list[dict[str, str]]] = {}
    cut = _CUTTERS[doc.format]
    for k, a in enumerate(order):
        hi = order[k + 1].start if k + 1 < len(order) else len(doc.chars)
        own = _own(doc, a)
        idxs = [i for i in range(a.start, hi) if i not in own]
        if not idxs:
            continue
        notes = [n for n in cut(doc, idxs) if n.text()]
        if notes:
            out.setdefault(a.pid, []).extend({"kind": n.kind, "text": n.text()} for n in notes)
    return out


# --------------------------------------------------------------------------- 單疏


@dataclass
class ShuParagraph:
    head: str  # the 標起止 as printed
    body: str  # 釋曰…
    pid: str | None  # where it was placed
    how: str  # 經, 注, 注(ref), unplaced


def _shu_paragraphs(doc: KanripoDoc) -> list[tuple[str, str]]:
    pieces: list[list[str]] = []
    for c in doc.chars:
        if c.gap_before or not pieces:
            pieces.append([])
        pieces[-1].append(c.out)
    texts: list[str] = []
    for p in pieces:
        t = "".join(p)
        cut = t.find("釋曰", 1, 40)
        if cut > 0 and not t.startswith("釋曰"):
            texts += [t[:cut], t[cut:]]  # a head printed without the space before 釋曰
        else:
            texts.append(t)
    heads = [
        k
        for k in range(len(texts) - 1)
        if texts[k + 1].startswith("釋曰") and not texts[k].startswith("釋曰")
    ]
    out = []
    for n, k in enumerate(heads):
        end = heads[n + 1] if n + 1 < len(heads) else len(texts)
        out.append((texts[k], "　".join(texts[k + 1 : end])))
    return out


def _splits(head: str) -> list[tuple[str, str]]:
    """「X至Y」 read every way the 至 allows, whole head first."""
    out = [(head, "")]
    out += [
        (head[:i], head[i + 1 :])
        for i, ch in enumerate(head)
        if ch == "至" and 0 < i < len(head) - 1
    ]
    return out


def align_shu(
    doc: KanripoDoc,
    chapter: str,
    targets: Sequence[Target],
    zhu_ref: dict[str, list[str]] | None = None,
) -> tuple[Alignment, list[ShuParagraph]]:
    """Place the 單疏's paragraphs by their 標起止, in order.

    A 經 head 「X至Y」 covers the passages from one beginning X to one ending Y; its 疏
    goes to the last of them, where 注疏 prints it. A 注 head 「注X至Y」 belongs to the
    passage whose 注 begins X and ends Y; that needs the 注 of another edition
    (``zhu_ref``: passage id → 注, from the seeds and imported editions). Every head
    usually fits several passages, so the placement is the heaviest chain of candidates
    in the paragraphs' order (passages never go back), as for the other editions. A
    paragraph without a candidate in the chain goes with the one before it and is
    reported as placed by order only.
    """
    keys = [fold_text(t.text) for t in targets]
    # 注 as letters only: the seeds punctuate, the editions do not
    ref = [
        [fold_text("".join(_LETTER.findall(z))) for z in (zhu_ref or {}).get(t.pid, [])]
        for t in targets
    ]
    zhu_mark = fold_text("注")
    paras = _shu_paragraphs(doc)

    def jing_cands(h: str) -> list[tuple[int, int]]:
        out: set[tuple[int, int]] = set()
        for x, y in _splits(h):
            for j, key in enumerate(keys):
                if not key.startswith(x):
                    continue
                if not y:
                    if key == x or len(x) >= 2:
                        out.add((j, j))
                    continue
                for k in range(j, min(j + 30, len(keys))):
                    if keys[k].endswith(y) or (k == j and y in key[len(x) :]):
                        out.add((j, k))
                        break
        return sorted(out)

    def zhu_cands(h: str) -> list[tuple[int, int]]:
        out: dict[int, int] = {}
        for x, y in _splits(h):
            for m, alternatives in enumerate(ref):
                for z in alternatives:
                    if not z.startswith(x):
                        continue
                    if z.endswith(y) if y else z == x:
                        out[m] = 2
                    elif (y and y in z[len(x) :]) or not y:
                        out.setdefault(m, 1)
        return sorted(out.items())

    # candidates: (paragraph, position, last passage covered, weight)
    cands: list[tuple[int, int, int, int]] = []
    kinds: dict[int, str] = {}
    ranges: dict[tuple[int, int], int] = {}
    for n, (head, _body) in enumerate(paras):
        h = fold_text(head)
        if h.startswith(zhu_mark):
            kinds[n] = "注"
            cands += [(n, m, m, w) for m, w in zhu_cands(h[1:])]
            continue
        kinds[n] = "經"
        jc = jing_cands(h)
        if not jc and zhu_mark in h[1:]:
            cut = h.index(zhu_mark, 1)  # 「X至Y注Z至W」: a 經 head and a 注 head in one
            jc = jing_cands(h[:cut])
        cands += [(n, j, j, 3) for j, _k in jc]
        ranges.update({(n, j): k for j, k in jc})
    # A paragraph's place is the first passage it covers: places never go back.
    chain = heaviest_chain(cands, len(keys))
    placed = {n: (j, ranges.get((n, j), j)) for n, j, _e, _w in chain}

    covered: dict[int, str] = {}
    out: list[ShuParagraph] = []
    last: int | None = None
    for n, (head, body) in enumerate(paras):
        if n in placed:
            j, k = placed[n]
            for m in range(j, k + 1):
                covered.setdefault(m, "標起止" if kinds[n] == "經" else "標起止(注)")
            last = k
            out.append(ShuParagraph(head, body, targets[k].pid, kinds[n]))
        elif last is not None and n > 0:
            out.append(ShuParagraph(head, body, targets[last].pid, f"{kinds[n]}(order)"))
        else:
            out.append(ShuParagraph(head, body, None, "unplaced"))
    al = Alignment(chapter)
    al.anchors = [Anchor(targets[i].pid, i, -1, -1, covered[i]) for i in sorted(covered)]
    al.unanchored = [t.pid for i, t in enumerate(targets) if i not in covered]
    return al, out


# --------------------------------------------------------------------------- import


@dataclass
class ImportReport:
    """What an import did, for the CLI's report and for ``--json``."""

    file: str
    edition: str
    format: str
    chapter: str
    passages: int
    anchored: int
    unanchored: list[str]
    notes: int
    methods: dict[str, int]
    seconds: float
    placed_by_order: int = 0  # 單疏 paragraphs whose 標起止 was not found: after the one before
    unplaced: int = 0  # 單疏 paragraphs whose 標起止 was not found

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def _zhu_reference(chapter: str) -> dict[str, list[str]]:
    """Every 注 known for each passage of ``chapter``: imported editions, then the seeds."""
    ref: dict[str, list[str]] = {}
    for data in all_editions():
        notes = data.get("chapters", {}).get(chapter, {}).get("notes", {})
        for pid, ns in notes.items():
            ref.setdefault(pid, []).extend(n["text"] for n in ns if n["kind"] == "注")
    for n in seed_notes():
        if n.kind == "注" and n.passage.startswith(chapter + ":"):
            ref.setdefault(n.passage, []).append(n.text)
    return ref


def _align(doc: KanripoDoc, chapter: str, targets: Sequence[Target]) -> Alignment:
    if doc.format == "shu":
        return align_shu(doc, chapter, targets, _zhu_reference(chapter))[0]
    return align_doc(doc, chapter, targets)


# The 儀禮's own numbering of our chapters, as the headings of the editions give it.
CHAPTER_NUMBERS = {"五": "xiangshe", "六": "yan", "七": "dashe"}


def _headed_chapter(doc: KanripoDoc) -> str | None:
    """The chapter a heading of the file names (鄉射禮第五 …), or None if it names none.

    Raises :class:`ImportFailed` when the headings name only other chapters of the 儀禮.
    """
    ours = {CHAPTER_NUMBERS[t[-1]] for t, _ in doc.headings if t[-1] in CHAPTER_NUMBERS}
    if len(ours) == 1:
        return ours.pop()
    if doc.headings and not ours:
        title, line = doc.headings[0]
        raise ImportFailed(f"{doc.path}:{line}: the file is {title}, not 鄉射禮, 燕禮 or 大射儀")
    return None


def detect_chapter(
    doc: KanripoDoc, targets_for: Callable[[str], Sequence[Target]] = chapter_targets
) -> tuple[str, Alignment]:
    """The chapter of ``doc``: the one its heading names, else the one most of whose
    passages are found in it (a 卷 file from the middle of a chapter has no heading)."""
    headed = _headed_chapter(doc)
    best: tuple[float, str, Alignment] | None = None
    for ch in (headed,) if headed else CHAPTERS:
        targets = targets_for(ch)
        al = _align(doc, ch, targets)
        share = al.anchored / max(1, len(targets))
        if best is None or share > best[0]:
            best = (share, ch, al)
    assert best is not None
    if best[0] < MIN_SHARE:
        raise ImportFailed(
            f"{doc.path}: a Kanripo {doc.title} file, but not 鄉射禮, 燕禮 or 大射儀: at best "
            f"{best[2].anchored} passages of {CHAPTER_TITLES[best[1]]} were found in it"
        )
    return best[1], best[2]


def import_edition(
    path: str | Path,
    edition: str | None = None,
    chapter: str | None = None,
    *,
    targets_for: Callable[[str], Sequence[Target]] = chapter_targets,
    force: bool = False,
) -> ImportReport:
    """Import one chapter of a Kanripo edition into the store and report on it.

    A file that anchors fewer passages than the edition already holds for its chapter (a part
    of it: one 卷 of several) is refused unless ``force``: it would replace the whole.

    Raises :class:`ImportFailed` (with file, line and reason) and then writes nothing.
    """
    t0 = time.perf_counter()
    try:
        doc = read_kanripo(path)
    except KanripoError as exc:
        raise ImportFailed(str(exc)) from None
    if chapter is not None and chapter not in CHAPTERS:
        raise ImportFailed(f"unknown chapter {chapter!r}: use one of {', '.join(CHAPTERS)}")
    found, al = detect_chapter(doc, targets_for)
    if chapter is not None and found != chapter:
        # 燕禮 and 大射儀 share much wording: the heading, or the chapter that matches
        # best, is the file's.
        raise ImportFailed(
            f"{doc.path}: this is {CHAPTER_TITLES[found]} ({found}), not "
            f"{CHAPTER_TITLES[chapter]}: it is another chapter than --chapter {chapter}"
        )
    chapter = found
    targets = targets_for(chapter)
    placed_by_order = unplaced = 0
    if doc.format == "shu":
        al, paras = align_shu(doc, chapter, targets, _zhu_reference(chapter))
        notes: dict[str, list[dict[str, str]]] = {}
        for p in paras:
            if p.pid is None:
                unplaced += 1
                continue
            placed_by_order += p.how.endswith("(order)")
            note = {"kind": "疏", "text": f"{p.head}　{p.body}"}
            if p.how.endswith("(order)"):
                note["placed"] = "by order only: its 標起止 was not found"
            notes.setdefault(p.pid, []).append(note)
    else:
        notes = build_notes(doc, al)
    name = edition or doc.default_edition
    record = {
        "source_file": str(Path(path).resolve()),
        "imported": datetime.now(UTC).isoformat(timespec="seconds"),
        "passages": len(targets),
        "anchored": al.anchored,
        "unanchored": al.unanchored,
        "methods": dict(Counter(a.method for a in al.anchors)),
        "notes": notes,
    }
    try:
        data = load_edition(name) or {}
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        raise ImportFailed(
            f"{edition_path(name)}: the stored edition {name!r} cannot be read ({exc}); "
            f"remove it with `sheli text import --remove {name}`"
        ) from None
    if data and data.get("format") not in (None, doc.format):
        raise ImportFailed(
            f"{doc.path}: edition {name!r} already holds a {data['format']} text; "
            "give this one another name with --edition"
        )
    old = (data.get("chapters") or {}).get(chapter) or {}
    if not force and al.anchored < old.get("anchored", 0):
        # a part of a chapter (one 卷 of three) must not silently replace the whole
        raise ImportFailed(
            f"{doc.path}: edition {name!r} holds {CHAPTER_TITLES[chapter]} with "
            f"{old['anchored']}/{old.get('passages', len(targets))} passages anchored, this file "
            f"{al.anchored}/{len(targets)}: give --force to replace it, or --edition NAME"
        )
    data.update(
        {
            "edition": name,
            "title": doc.title,
            "kanripo_id": doc.kid,
            "format": doc.format,
            "format_name": FORMAT_NAMES[doc.format],
        }
    )
    data.setdefault("chapters", {})[chapter] = record
    try:
        _write_atomic(edition_path(name), data)
    except OSError as exc:  # a read-only store, a full disk: the store is left as it was
        raise ImportFailed(store_unwritable(exc, edition_path(name))) from None
    return ImportReport(
        file=str(path),
        edition=name,
        format=doc.format,
        chapter=chapter,
        passages=len(targets),
        anchored=al.anchored,
        unanchored=list(al.unanchored),
        notes=sum(len(v) for v in notes.values()),
        methods=record["methods"],  # type: ignore[arg-type]
        seconds=round(time.perf_counter() - t0, 3),
        placed_by_order=placed_by_order,
        unplaced=unplaced,
    )


def _write_atomic(path: Path, data: dict[str, object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, json.dumps(data, ensure_ascii=False, indent=1))


def list_editions() -> list[dict[str, object]]:
    """A summary of every imported edition: name, format, chapters with counts."""
    return [
        {
            "edition": d.get("edition"),
            "format": d.get("format"),
            "title": d.get("title"),
            "chapters": {
                ch: {
                    "anchored": r.get("anchored"),
                    "passages": r.get("passages"),
                    "notes": sum(len(v) for v in (r.get("notes") or {}).values()),
                }
                for ch, r in d.get("chapters", {}).items()
                if isinstance(r, dict)
            },
        }
        for d in all_editions()
    ]


def store_unwritable(exc: OSError, path: Path) -> str:
    """What a failed write to the store means, in one line naming the file.

    >>> store_unwritable(PermissionError(13, "Permission denied"), Path("/data/editions/x.json"))
    '/data/editions/x.json: the store of editions cannot be written (Permission denied)'
    """
    return f"{path}: the store of editions cannot be written ({exc.strerror or exc})"


def remove_edition(name: str) -> bool:
    """Delete an imported edition; False if there was none of that name. Raises
    :class:`ImportFailed` if the store cannot be written."""
    p = edition_path(name)
    if not p.is_file():
        return False
    try:
        p.unlink()
    except OSError as exc:
        raise ImportFailed(store_unwritable(exc, p)) from None
    return True

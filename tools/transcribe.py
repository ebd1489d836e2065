"""Build sheli's canonical text (src/sheli/text/data/<chapter>.tsv) from the seeds.

A reproducible dev-time script, not part of the package. It documents how the committed
data files were made; tests/test_text_proofread.py proof-reads the result.

Usage (from the repository root, with ../shared beside it)::

    .venv/bin/python tools/transcribe.py            # write the data files, print a report
    .venv/bin/python tools/transcribe.py --check    # only report; write nothing

Method
------
1. Each seed is reduced to a stream of its Han characters. Everything else goes: pinyin
   (``設(shè)``), punctuation, note numbers ``(2)``, site chrome. A seed's garbled runs and
   003's modern notes and translations stay in the stream but match no passage, and a
   difference never reaches the text (step 4).
2. The corpus (``yili-jing-<chapter>.txt``, WYG 儀禮注疏) gives the passage division. For
   each corpus passage, every seed that can carry it is searched for it: folded with
   ``sheli.text.variants.fold`` (simplified, variant and graphic forms agree), exactly
   first, then approximately (trigram votes, then an edit-distance alignment). Seeds
   004 and 000 are read in order; 003 is scrambled and repeated, so it is searched
   whole for every passage.
3. The best match wins (fewest differences; ties go to the seed listed first). A
   match with more than max(2, 10%) differing characters is refused: such a passage
   is transcribed from the corpus reading and marked ``corpus:WYG``.
4. Character by character along the alignment:
   - where seed and corpus agree after folding, the text takes the corpus form,
     normalised by normalise.tsv. The seeds are web copies that went through
     simplified/traditional conversion, so their forms cannot decide 于/於, 后/後, 云/雲,
     个/個 …; the corpus edition can. Each such decision is counted.
   - where they differ, the difference is kept only if known-differences.tsv lists it
     (id, ours, corpus, reason); otherwise it is a seed defect (typo, garbling) and the
     corpus reading is taken, noted in the passage's ``note`` column.
5. For a ``corpus:WYG`` passage, a known difference whose reason begins ``emend`` is
   applied: the corpus reading is a WYG copy error and the other witnesses agree.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sheli.text.variants import fold, normalise, to_traditional  # noqa: E402

SHARED = ROOT.parent / "shared"
SEEDS = SHARED / "seeds"
CORPUS = SHARED / "corpus"
DATA = ROOT / "src" / "sheli" / "text" / "data"

SEED_FILES = {
    "000": "000_0ac73181f61583c2.txt",
    "002": "002_7ee0d6e89c856fd3.txt",
    "003": "003_c4633f1a85a239be.txt",
    "004": "004_e265843fcb22f799.txt",
}
# Seeds searched per chapter, in order of preference; True = read in order.
CHAPTER_SEEDS: dict[str, list[tuple[str, bool]]] = {
    "xiangshe": [("004", True), ("000", True), ("003", False)],
    "yan": [("002", True), ("003", False)],
    "dashe": [("003", False)],
}
SIMPLIFIED = {"003"}
TITLES = {"xiangshe": "鄉射禮第五", "yan": "燕禮第六", "dashe": "大射儀第七"}
JI_STARTS = {"xiangshe": 310, "yan": 158}  # first passage of the 記 (corpus README)


def is_han(c: str) -> bool:
    """True for a Han character (category Lo in the CJK blocks)."""
    return unicodedata.category(c) == "Lo" and ord(c) >= 0x3400


@dataclass
class Stream:
    """A seed's Han characters, raw and folded, position for position."""

    name: str
    raw: str  # traditional: 003 after OpenCC s2t
    folded: str  # folded from the seed's own characters
    orig: str = ""  # the seed's own characters (simplified for 003)
    index: dict[str, list[int]] = field(default_factory=dict)
    cursor: int = 0  # ordered seeds: where the last long passage ended
    last_n: int = 0  # the last passage this seed carried, and where it ended
    last_end: int = 0

    @classmethod
    def from_text(cls, name: str, text: str) -> Stream:
        # 004 carries 四庫 editors' notes in brackets: not the text.
        text = re.sub(r"\(案[^)]*\)", "", text)
        orig = "".join(c for c in text if is_han(c))
        raw = orig
        if name in SIMPLIFIED:
            # Phrase-aware OpenCC s2t; the corpus then decides where s2t had to guess.
            conv = to_traditional(orig)
            raw = conv if len(conv) == len(orig) else "".join(to_traditional(c) for c in orig)
        s = cls(name, raw, fold(orig), orig)
        for i in range(len(raw) - 2):
            s.index.setdefault(s.folded[i : i + 3], []).append(i)
        return s


def align(p: str, w: str) -> tuple[int, int, int, list[tuple[str, int, int, int, int]]]:
    """Semi-global alignment of all of ``p`` to a substring of ``w`` (unit costs).

    Returns (edits, start, end, ops) with ops as (tag, p0, p1, w0, w1), tags
    ``equal``/``replace``/``delete`` (in p only)/``insert`` (in w only).
    """
    m, n = len(p), len(w)
    inf = 10**9
    # d[i][j]: cost of aligning p[:i] to a substring of w ending at j.
    d = [[0] * (n + 1)] + [[inf] * (n + 1) for _ in range(m)]
    for i in range(1, m + 1):
        d[i][0] = i
        pi = p[i - 1]
        prev, cur = d[i - 1], d[i]
        for j in range(1, n + 1):
            cur[j] = min(prev[j - 1] + (pi != w[j - 1]), prev[j] + 1, cur[j - 1] + 1)
    end = min(range(n + 1), key=lambda j: d[m][j])
    edits = d[m][end]
    # Trace back.
    steps: list[tuple[str, int, int]] = []
    i, j = m, end
    while i > 0:
        if j > 0 and d[i][j] == d[i - 1][j - 1] + (p[i - 1] != w[j - 1]):
            steps.append(("equal" if p[i - 1] == w[j - 1] else "replace", i - 1, j - 1))
            i, j = i - 1, j - 1
        elif d[i][j] == d[i - 1][j] + 1:
            steps.append(("delete", i - 1, j))
            i -= 1
        else:
            steps.append(("insert", i, j - 1))
            j -= 1
    start = j
    steps.reverse()
    ops: list[tuple[str, int, int, int, int]] = []
    for tag, pi, wj in steps:
        dp, dw = (0 if tag == "insert" else 1), (0 if tag == "delete" else 1)
        if ops and ops[-1][0] == tag and ops[-1][2] == pi and ops[-1][4] == wj:
            t, p0, _, w0, _ = ops[-1]
            ops[-1] = (t, p0, pi + dp, w0, wj + dw)
        else:
            ops.append((tag, pi, pi + dp, wj, wj + dw))
    # Merge adjacent non-equal ops into one difference.
    merged: list[tuple[str, int, int, int, int]] = []
    for op in ops:
        if merged and op[0] != "equal" and merged[-1][0] != "equal":
            t, p0, _, w0, _ = merged[-1]
            merged[-1] = ("replace", p0, op[2], w0, op[4])
        else:
            merged.append(op)
    return edits, start, end, merged


@dataclass
class Match:
    seed: str
    edits: int
    start: int
    end: int
    ops: list[tuple[str, int, int, int, int]]


SHORT = 6  # a passage shorter than this (揖退, 卒, 無介 …) occurs all over a seed


def find(stream: Stream, pf: str, ordered: bool, n: int | None = None) -> Match | None:
    """Locate the folded passage ``pf`` (passage ``n``) in a seed stream.

    A short passage is taken from a seed only right after the seed carried the passage
    before it (within 60 characters; 1000 in an ordered seed, whose 疏 runs long), so that
    揖退 or 卒 is not found in a 疏 quotation or another chapter. An ordered seed is
    searched for a long passage up to 6000 characters past the last long one.
    """
    lo, hi = 0, len(stream.folded)
    if n is not None and len(pf) < SHORT:
        if stream.last_n != n - 1:
            return None
        lo = stream.last_end
        hi = lo + (1000 if ordered else 60)
    elif ordered:
        lo = stream.cursor
        hi = lo + 6000
    k = stream.folded.find(pf, lo, hi)
    if k >= 0:
        return Match(stream.name, 0, k, k + len(pf), [("equal", 0, len(pf), k, k + len(pf))])
    if len(pf) < 4:
        return None
    votes: collections.Counter[int] = collections.Counter()
    for i in range(len(pf) - 2):
        hits = stream.index.get(pf[i : i + 3], [])
        if len(hits) > 60:  # a common trigram says nothing
            continue
        for h in hits:
            if lo <= h < hi:
                votes[h - i] += 1
    if not votes:
        return None
    best: Match | None = None
    for off, v in votes.most_common(3):
        if v < max(2, (len(pf) - 2) // 4):
            continue
        w0 = max(0, off - 8)
        w = stream.folded[w0 : off + len(pf) + 8]
        edits, a, b, ops = align(pf, w)
        ops = [(t, p0, p1, x0 + w0, x1 + w0) for t, p0, p1, x0, x1 in ops]
        m = Match(stream.name, edits, a + w0, b + w0, ops)
        if best is None or m.edits < best.edits:
            best = m
    return best


@dataclass
class KnownDiff:
    """A reviewed difference between sheli's text and the corpus (known-differences.tsv)."""

    pid: str
    ours: str
    corpus: str
    reason: str


def read_tsv(path: Path) -> list[list[str]]:
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln and ln[0] != "#"]
    return [ln.split("\t") for ln in lines[1:]]


def load_known() -> dict[str, list[KnownDiff]]:
    out: dict[str, list[KnownDiff]] = collections.defaultdict(list)
    path = DATA / "known-differences.tsv"
    if path.exists():
        for r in read_tsv(path):
            out[r[0]].append(KnownDiff(r[0], r[1], r[2], r[3]))
    return out


def apply_known(line: str, diffs: list[KnownDiff]) -> str:
    """The corpus reading with the reviewed differences applied (fragments carry context)."""
    for kd in diffs:
        i = fold(line).find(fold(kd.corpus))
        if i < 0 or fold(line).count(fold(kd.corpus)) != 1:
            raise SystemExit(f"known-differences.tsv: {kd.pid}: {kd.corpus!r} not found once")
        line = line[:i] + kd.ours + line[i + len(kd.corpus) :]
    return line


@dataclass
class Row:
    n: int
    kind: str
    source: str
    text: str
    note: str


def transcribe(
    chapter: str,
    streams: dict[str, Stream],
    known: dict[str, list[KnownDiff]],
    stats: collections.Counter[str],
    others: list[Stream],
) -> list[Row]:
    """Transcribe one chapter, passage by passage (see the module docstring)."""
    corpus_lines = (CORPUS / f"yili-jing-{chapter}.txt").read_text(encoding="utf-8").splitlines()
    rows = []
    for n, line in enumerate(corpus_lines, 1):
        pid = f"{chapter}:{n}"
        kind = "記" if n >= JI_STARTS.get(chapter, 10**9) else "經"
        target = apply_known(line, known.get(pid, []))
        differs = " (differs from WYG: known-differences.tsv)" if known.get(pid) else ""
        pf = fold(target)
        cands = []
        for rank, (name, ordered) in enumerate(CHAPTER_SEEDS[chapter]):
            m = find(streams[name], pf, ordered, n)
            if m is None:
                continue
            span = streams[name].folded[m.start : m.end]
            if m.edits and any(
                (o := find(other, span, False)) is not None and o.edits < m.edits
                for other in others
            ):
                # 003 interleaves the chapters: the seed's paragraph is another chapter's
                # parallel passage (燕禮 and 大射 share much), closer to that one than to this.
                stats["rejected:other-chapter-parallel"] += 1
                continue
            cands.append((m.edits, rank, m))
        cands.sort(key=lambda c: (c[0], c[1]))
        # Every seed that carries this passage moves on past it, winner or not.
        for edits, rank, c in cands:
            if edits <= max(2, len(pf) // 10):
                st = streams[c.seed]
                st.last_n, st.last_end = n, c.end
                if CHAPTER_SEEDS[chapter][rank][1] and len(pf) >= SHORT:
                    st.cursor = c.end
        if not cands or cands[0][0] > max(2, len(pf) // 10):
            stats["source:corpus:WYG"] += 1
            note = "emended, see known-differences.tsv" if differs else ""
            rows.append(Row(n, kind, "corpus:WYG", normalise(target), note))
            continue
        m = cands[0][2]
        st = streams[m.seed]
        out: list[str] = []
        notes = []
        for tag, p0, p1, w0, w1 in m.ops:
            ref, seed_raw = target[p0:p1], st.raw[w0:w1]
            seed_own = st.orig[w0:w1]
            if tag == "equal":
                for c_c, c_s in zip(ref, seed_raw, strict=True):
                    if c_c == c_s:
                        stats["chars:identical"] += 1
                    elif normalise(c_c) == normalise(c_s):
                        stats["chars:graphic-variant"] += 1
                    elif m.seed in SIMPLIFIED:
                        stats["chars:s2t-ambiguity-decided-by-corpus"] += 1
                        stats[f"pair:{m.seed}:{c_s}→{c_c}"] += 1
                    else:
                        stats["chars:form-decided-by-corpus"] += 1
                        stats[f"pair:{m.seed}:{c_s}→{c_c}"] += 1
                out.append(normalise(ref))
                continue
            # A seed defect (typo, garbling, another edition's reading): the proof-read
            # reading stands, and the note says what the seed had.
            out.append(normalise(ref))
            notes.append(f"seed:{m.seed} {seed_own or '∅'}→{ref or '∅'}")
            stats["diff:corrected-from-corpus"] += 1
        stats[f"source:seed:{m.seed}"] += 1
        note = "; ".join(notes) + (differs if not notes else "; " + differs.strip(" ()"))
        rows.append(Row(n, kind, f"seed:{m.seed}", "".join(out), note.strip("; ")))
    return rows


HEADER = """\
# {title} ({key}): sheli's canonical text, one passage per line.
# n = passage number = line of ../shared/corpus/yili-jing-{key}.txt, so {key}:n is the same
#   passage everywhere. kind = 經 or 記.
# source = where the reading was transcribed from: seed:NNN = ../shared/seeds/NNN_*.txt,
#   located and proof-read against the corpus; corpus:WYG = no seed carries the passage:
#   transcribed from the corpus reading (WYG 儀禮注疏), normalised, emended only per
#   known-differences.tsv.
# text = standard traditional characters (normalise.tsv). Textual forms (于/於, 个, 算 …)
#   follow the corpus edition where the seeds' conversions cannot decide (docs/text.md).
# note = seed readings corrected from the corpus (seed defects), and emendations.
# Made by tools/transcribe.py; proof-read by tests/test_text_proofread.py.
n\tkind\tsource\ttext\tnote
"""


def render_chapter(chapter: str, rows: list[Row]) -> str:
    """The data file of one chapter, as committed."""
    body = "".join(f"{r.n}\t{r.kind}\t{r.source}\t{r.text}\t{r.note}\n" for r in rows)
    return HEADER.format(title=TITLES[chapter], key=chapter) + body


SECTIONS_HEADER = """\
# sections.tsv — 賈公彥's divisions of the three chapters (「自此至…論…之事」), from his 疏.
# chapter, n (賈's order), first and last passage (ids chapter:n), topic (the words after 論),
# form (how 賈 opens the sentence), sentence (賈's sentence as the 單疏本 writes it), note.
# last is empty for an open-ended 「此巳下」 subdivision; it then ends where its parent ends.
# Made by tools/transcribe.py from ../shared/corpus/jia-sections.tsv (located there by hand
# and machine against the WYG and 單疏 texts; see that file's README); characters normalised.
chapter\tn\tfirst\tlast\ttopic\tform\tsentence\tnote
"""


def render_sections() -> str:
    """sections.tsv, as committed."""
    rows = read_tsv(CORPUS / "jia-sections.tsv")
    out = []
    for r in rows:
        chapter, seq, topic, form = r[0], r[1], r[4], r[5]
        first, last = r[6], r[8]
        sentence = r[11] or r[12]
        out.append(
            f"{chapter}\t{seq}\t{first}\t{last}\t{normalise(topic)}\t{form}\t"
            f"{normalise(sentence)}\t{r[15] if len(r) > 15 else ''}\n"
        )
    return SECTIONS_HEADER + "".join(out)


def build() -> tuple[dict[str, str], dict[str, collections.Counter[str]], dict[str, list[Row]]]:
    """Every data file this script makes (name → content), with per-chapter statistics."""
    streams = {
        name: Stream.from_text(name, (SEEDS / f).read_text(encoding="utf-8"))
        for name, f in SEED_FILES.items()
    }
    known = load_known()
    joined = {
        c: Stream.from_text(c, (CORPUS / f"yili-jing-{c}.txt").read_text(encoding="utf-8"))
        for c in TITLES
    }
    files, all_stats, all_rows = {}, {}, {}
    for chapter in ("xiangshe", "yan", "dashe"):
        stats: collections.Counter[str] = collections.Counter()
        others = [t for c, t in joined.items() if c != chapter]
        rows = transcribe(chapter, streams, known, stats, others)
        files[f"{chapter}.tsv"] = render_chapter(chapter, rows)
        all_stats[chapter], all_rows[chapter] = stats, rows
    files["sections.tsv"] = render_sections()
    return files, all_stats, all_rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="report only; write nothing")
    args = ap.parse_args()
    files, stats, rows = build()
    for chapter, st in stats.items():
        print(chapter, len(rows[chapter]), dict(sorted(st.items())))
        for r in rows[chapter]:
            if r.note:
                print(f"  {chapter}:{r.n}\t{r.source}\t{r.note}")
    if not args.check:
        for name, content in files.items():
            (DATA / name).write_text(content, encoding="utf-8")


if __name__ == "__main__":
    main()

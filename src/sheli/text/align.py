"""Anchor the project's passages in the text of another edition, exactly and fast.

The edition's characters (markup removed by :mod:`sheli.text.kanripo`) are folded with
:func:`sheli.text.variants.fold`, which keeps the length, so an index in the folded text is
an index in the edition. Then:

1. **Whole passages.** Every occurrence of every passage's folded text in the edition's
   main text (the large characters; in 集釋 and 義疏 only the unindented lines) is a
   candidate. A candidate that sits on a break of the edition (a small-character block,
   a ``○``, an indented line, or in 注疏 the ``注`` that opens the 注) weighs more. The
   heaviest chain of candidates in passage order (a weighted longest increasing
   subsequence, O(m log n)) gives the anchors.
2. **The rest**, passage by passage, inside the gap that their anchored neighbours leave:
   the whole passage in all large characters (集釋 indents some 經 lines by mistake), then
   its head and tail (the edition reads a word differently, adds or lacks one).

Nothing is anchored by position alone: a passage whose words are not found is reported.
楊復's 儀禮圖 moves 記 passages into the body (``○記…``); with ``free_ji`` the 記 passages
get a chain of their own and may fall anywhere the 經 chain leaves free.

>>> from sheli.text.kanripo import parse_kanripo
>>> doc = parse_kanripo("#+PROPERTY: ID KR1d0026\\n無介(雖先飮酒)乃席賔南面東上(不言)¶\\n")
>>> al = align_doc(doc, "xiangshe", [Target("xiangshe:3", "無介", "經"),
...                                  Target("xiangshe:4", "乃席賓南面東上", "經")])
>>> [(a.pid, a.start, a.end, a.method) for a in al.anchors], al.unanchored
([('xiangshe:3', 0, 2, 'exact'), ('xiangshe:4', 6, 13, 'exact')], [])
"""

from __future__ import annotations

import bisect
import difflib
import heapq
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from sheli.text.corpus import load_chapter
from sheli.text.kanripo import KanripoDoc
from sheli.text.variants import fold


@dataclass(frozen=True)
class Target:
    """A passage to anchor: its id, its canonical text and its kind (經 or 記)."""

    pid: str
    text: str
    kind: str = "經"


@dataclass(frozen=True)
class Anchor:
    """Where a passage stands in the edition: doc character indices, end exclusive."""

    pid: str
    index: int  # position of the passage in the chapter, 0-based
    start: int
    end: int
    method: str  # exact, exact-indented, split, head-tail, near, fuzzy, partial, 標起止
    pieces: tuple[tuple[int, int], ...] = ()  # for ``split``: the two exact pieces


@dataclass
class Alignment:
    """The anchors of one chapter in one edition, and the passages that were not found."""

    chapter: str
    anchors: list[Anchor] = field(default_factory=list)
    unanchored: list[str] = field(default_factory=list)

    @property
    def anchored(self) -> int:
        return len({a.pid for a in self.anchors})


def chapter_targets(chapter: str) -> list[Target]:
    """The passages of one of our chapters, from the canonical text.

    >>> chapter_targets("xiangshe")[0].pid
    'xiangshe:1'
    """
    return [Target(p.id, p.text, p.kind) for p in load_chapter(chapter).passages]


class _Stream:
    """A selection of the doc's characters as one folded string, with a map back."""

    def __init__(self, doc: KanripoDoc, folded: str, keep: Sequence[bool]) -> None:
        self.idx = [i for i, k in enumerate(keep) if k]
        self.s = "".join(folded[i] for i in self.idx)
        chars = doc.chars
        n = len(self.idx)
        # brk[k]: a break of the edition lies just before stream position k (k == n: the end).
        self.brk = bytearray(n + 1)
        self.brk[0] = self.brk[n] = 1
        for k in range(1, n):
            i = self.idx[k]
            if i != self.idx[k - 1] + 1 or chars[i].gap_before:
                self.brk[k] = 1

    def span(self, a: int, b: int) -> tuple[int, int]:
        """Stream positions [a, b) → doc indices [start, end)."""
        return self.idx[a], self.idx[b - 1] + 1

    def window(self, doc_lo: int, doc_hi: int) -> tuple[int, int]:
        """Doc range [doc_lo, doc_hi) → stream range."""
        return bisect.bisect_left(self.idx, doc_lo), bisect.bisect_left(self.idx, doc_hi)


def _occurrences(s: str, p: str) -> list[int]:
    out: list[int] = []
    if not p:
        return out
    i = s.find(p)
    while i != -1:
        out.append(i)
        i = s.find(p, i + 1)
    return out


def heaviest_chain(
    cands: list[tuple[int, int, int, int]], n: int
) -> list[tuple[int, int, int, int]]:
    """Heaviest chain of (passage, start, end, weight): passages and spans increasing.

    A Fenwick tree over end positions gives, for each candidate, the best chain ending at
    or before its start; candidates of one passage are scored before any is inserted, so a
    chain takes at most one candidate per passage.
    """
    size = n + 2
    tree_v = [0] * size
    tree_c = [-1] * size
    val = [0] * len(cands)
    back = [-1] * len(cands)

    def query(pos: int) -> tuple[int, int]:
        best, who = 0, -1
        pos += 1
        while pos > 0:
            if tree_v[pos] > best:
                best, who = tree_v[pos], tree_c[pos]
            pos -= pos & -pos
        return best, who

    def update(pos: int, v: int, c: int) -> None:
        pos += 1
        while pos < size:
            if v > tree_v[pos]:
                tree_v[pos], tree_c[pos] = v, c
            pos += pos & -pos

    order = sorted(range(len(cands)), key=lambda c: (cands[c][0], cands[c][1]))
    j = 0
    while j < len(order):
        k = j
        while k < len(order) and cands[order[k]][0] == cands[order[j]][0]:
            k += 1
        for c in order[j:k]:
            best, who = query(cands[c][1])
            val[c], back[c] = best + cands[c][3], who
        for c in order[j:k]:
            update(cands[c][2], val[c], c)
        j = k
    if not cands:
        return []
    c = max(range(len(cands)), key=lambda x: (val[x], -x))
    out = []
    while c != -1:
        out.append(cands[c])
        c = back[c]
    return out[::-1]


def _weight(st: _Stream, s: int, e: int, fmt: str) -> int:
    length = e - s
    end_b = st.brk[e] or (fmt == "zhushu" and e < len(st.s) and st.s[e] == _ZHU)
    return 4 * length + 3 * bool(end_b) + 2 * bool(st.brk[s])


_ZHU = fold("注")

# Graphic forms of the Kanripo files that :func:`fold` does not (yet) know, found by
# aligning the six corpus editions: each pair is one character written two ways.
# Textual variants (唯/惟, 扑/朴, 辯/辨 …) are deliberately not here.
EDITION_FORMS: dict[str, str] = {
    "靣": "面", "飮": "飲", "吿": "告", "賛": "贊", "虗": "虛", "𫉬": "獲", "庻": "庶",
    "壷": "壺", "毎": "每", "隷": "隸", "闗": "關", "羮": "羹", "徴": "徵", "㝷": "尋",
    "葢": "蓋", "㬰": "臾", "緫": "總", "䟽": "疏", "夲": "本", "𤼵": "發", "丄": "上",
    "虵": "蛇", "冝": "宜",
}  # fmt: skip
_FORMS = str.maketrans(EDITION_FORMS)


def fold_text(s: str) -> str:
    """:func:`sheli.text.variants.fold` after the edition forms above; keeps the length.

    >>> fold_text("北靣") == fold_text("北面")
    True
    """
    return fold(s.translate(_FORMS))


def _head_tail(s: str, p: str, lo: int, hi: int) -> tuple[int, int] | None:
    """Find ``p`` in s[lo:hi] by a head and a tail of it, allowing a few differing words.

    The stretch between may be a third longer or shorter than the passage, no more, so
    that a tail is not taken from the passage after.
    """
    n = len(p)
    if n < 4:
        return None
    slack = max(3, n // 3)
    for h in range(min(8, n // 2), 1, -1):
        a = s.find(p[:h], lo, hi)
        while a != -1:
            b = s.find(p[-h:], a + max(h, n - slack - h), min(hi, a + n + slack))
            if b != -1:
                return a, b + h
            a = s.find(p[:h], a + 1, hi)
    return None


def _longest_prefix(s: str, p: str, lo: int, hi: int) -> tuple[int, int]:
    """The longest k such that p[:k] occurs in s[lo:hi], and where (k, position)."""
    a, b, at = 0, len(p), -1
    while a < b:  # occurrence of a prefix is monotone in its length: binary search
        m = (a + b + 1) // 2
        x = s.find(p[:m], lo, hi)
        if x == -1:
            b = m - 1
        else:
            a, at = m, x
    return a, at


def _split(s: str, p: str, lo: int, hi: int) -> tuple[int, int] | None:
    """``p`` in two exact pieces with commentary between (義疏 breaks a passage so)."""
    n = len(p)
    if n < 6:
        return None
    k, at = _longest_prefix(s, p, lo, hi)
    if k < 3 or k >= n or n - k < 2:
        return None
    b = s.find(p[k:], at + k, hi)
    if b == -1:
        return None
    return at, b + n - k


def _hits(s: str, piece: str, at: int, lo: int, last: int) -> Iterator[int]:
    """The places x, from ``lo`` to ``last``, where ``piece`` stands at ``x + at`` in s."""
    i = s.find(piece, lo + at)
    while i != -1 and i - at <= last:
        yield i - at
        i = s.find(piece, i + 1)


def _near(s: str, p: str, lo: int, hi: int) -> tuple[int, int] | None:
    """``p`` with one differing character in six (at least one), same length.

    A passage of three characters or fewer is taken only when it is all the gap holds,
    so that 「末旅」 for 「未旅」 anchors and a stray pair of characters does not.
    """
    n = len(p)
    if n < 2:
        return None
    if n <= 3:
        if hi - lo == n and sum(x != y for x, y in zip(p, s[lo:hi], strict=True)) <= 1:
            return lo, hi
        return None
    allowed = max(1, n // 6)
    # Only where one of allowed + 1 pieces of p stands exactly is p compared: a copy with at
    # most `allowed` differing characters holds one of them whole (the pigeonhole). The
    # places are taken in order, merged from each piece's str.find, so the first copy found
    # is the same as a scan of every place would find, at the cost of the pieces' hits, not
    # of the gap times the passage (which made an import of random text hours long).
    size = n // (allowed + 1)
    cuts = [j * size for j in range(allowed + 1)] + [n]
    hits = heapq.merge(*(_hits(s, p[a:b], a, lo, hi - n) for a, b in itertools.pairwise(cuts)))
    last = -1
    for x in hits:
        if x == last:
            continue
        last = x
        miss = 0
        for y in range(n):
            if s[x + y] != p[y]:
                miss += 1
                if miss > allowed:
                    break
        else:
            # A differing first or last character is not claimed: the edition may lack it
            # and have its own next word there (WYG 「…坐乘之」 then 注, for 「…坐乘之卒」).
            a = x + (s[x] != p[0])
            b = x + n - (s[x + n - 1] != p[-1])
            return a, b
    return None


def _partial(s: str, p: str, lo: int, hi: int) -> tuple[int, int] | None:
    """Half or more of ``p``, exact, at an edge of the gap: the rest is lost in a lacuna."""
    n = len(p)
    need = max(4, (n + 1) // 2)
    k, at = _longest_prefix(s, p, lo, hi)
    if k >= need and at + k == hi:
        return at, at + k
    for k in range(n - 1, need - 1, -1):
        if s.startswith(p[n - k :], lo):
            return lo, lo + k
    return None


def _fuzzy(s: str, p: str, lo: int, hi: int) -> tuple[int, int] | None:
    """Find the stretch of s[lo:hi] that shares most of ``p``'s words (difflib blocks).

    Used last, for a passage the edition reads with several differing characters. The
    stretch must share at least 60% of the passage in runs of two or more characters and
    be at most half as long again.
    """
    n = len(p)
    if n < 3 or hi <= lo:
        return None
    hi = min(hi, lo + 40 * n + 400)  # the gap between two anchored neighbours is short
    sm = difflib.SequenceMatcher(None, p, s[lo:hi], autojunk=False)
    blocks = sorted((b.b, b.size) for b in sm.get_matching_blocks() if b.size >= 2)
    best: tuple[int, int, int] | None = None
    for x in range(len(blocks)):
        total = 0
        for y in range(x, len(blocks)):
            end = blocks[y][0] + blocks[y][1]
            if end - blocks[x][0] > n * 3 // 2 + 4:
                break
            total += blocks[y][1]
            if best is None or total > best[0]:
                best = (total, blocks[x][0], end)
    if best is None or best[0] * 10 < n * 6:
        return None
    return lo + best[1], lo + best[2]


def align_doc(
    doc: KanripoDoc,
    chapter: str,
    targets: Sequence[Target],
    *,
    free_ji: bool | None = None,
) -> Alignment:
    """Anchor ``targets`` (one chapter's passages, in order) in ``doc``.

    ``free_ji`` lets 記 passages stand out of order (default: only for 儀禮圖).
    The doctest of the module shows a small case.
    """
    if free_ji is None:
        free_ji = doc.format == "tu"
    folded = fold_text(doc.text)
    chars = doc.chars
    strict_lines = doc.format in ("jishi", "yishu", "tu")
    main = _Stream(doc, folded, [not c.small and not (strict_lines and c.indented) for c in chars])
    large = _Stream(doc, folded, [not c.small for c in chars])
    keys = [fold_text(t.text) for t in targets]

    def candidates(which: list[int]) -> list[tuple[int, int, int, int]]:
        out = []
        for i in which:
            p = keys[i]
            for s in _occurrences(main.s, p):
                out.append((i, s, s + len(p), _weight(main, s, s + len(p), doc.format)))
        return out

    groups: list[list[int]]
    if free_ji:
        groups = [
            [i for i, t in enumerate(targets) if t.kind != "記"],
            [i for i, t in enumerate(targets) if t.kind == "記"],
        ]
    else:
        groups = [list(range(len(targets)))]

    found: dict[int, Anchor] = {}
    taken: list[tuple[int, int]] = []  # doc spans already anchored (sorted later)
    for group in groups:
        for i, s, e, _w in heaviest_chain(candidates(group), len(main.s)):
            a, b = main.span(s, e)
            if any(a < y and x < b for x, y in taken):
                continue  # a 記 chain candidate that overlaps an anchored 經 passage
            found[i] = Anchor(targets[i].pid, i, a, b, "exact")
            taken.append((a, b))

    # Second pass: each passage still missing, inside the gap its neighbours leave.
    for i in range(len(targets)):
        if i in found:
            continue
        p = keys[i]
        if free_ji and targets[i].kind == "記":
            lo, hi = 0, len(chars)
        else:
            prev = [found[j].end for j in range(i - 1, -1, -1) if j in found][:1]
            nxt = [found[j].start for j in range(i + 1, len(targets)) if j in found][:1]
            lo = prev[0] if prev else 0
            hi = nxt[0] if nxt else len(chars)
        lo_s, hi_s = large.window(lo, hi)
        hit: tuple[int, int, str] | None = None
        s = large.s.find(p, lo_s, hi_s) if p else -1
        while s != -1:
            a, b = large.span(s, s + len(p))
            if not any(a < y and x < b for x, y in taken):
                hit = (s, s + len(p), "exact-indented" if chars[a].indented else "exact")
                break
            s = large.s.find(p, s + 1, hi_s)
        if hit is None:
            mlo, mhi = main.window(lo, hi)
            for method, finder, st, wlo, whi in (
                ("split", _split, main, mlo, mhi),
                ("head-tail", _head_tail, large, lo_s, hi_s),
                ("near", _near, main, mlo, mhi),
                ("fuzzy", _fuzzy, main, mlo, mhi),
                ("partial", _partial, main, mlo, mhi),
            ):
                if free_ji and targets[i].kind == "記" and method in ("near", "partial"):
                    continue  # without neighbours these would be guesses
                got = finder(st.s, p, wlo, whi)
                if got is None:
                    continue
                a, b = st.span(*got)
                pieces: tuple[tuple[int, int], ...] = ()
                if method == "split":
                    k = _longest_prefix(st.s, p, wlo, whi)[0]
                    pieces = (st.span(got[0], got[0] + k), st.span(got[1] - (len(p) - k), got[1]))
                if not any(a < y and x < b for x, y in taken):
                    found[i] = Anchor(targets[i].pid, i, a, b, method, pieces)
                    taken.append((a, b))
                    break
            continue
        if hit is not None:
            a, b = large.span(hit[0], hit[1])
            found[i] = Anchor(targets[i].pid, i, a, b, hit[2])
            taken.append((a, b))

    al = Alignment(chapter)
    al.anchors = [found[i] for i in sorted(found)]
    al.unanchored = [t.pid for i, t in enumerate(targets) if i not in found]
    return al

"""Extract 鄭注 and 賈疏 from seeds 000, 002 and 004 into src/sheli/text/data/commentary/.

Run from the repository root, with ../shared beside it:

    .venv/bin/python tools/extract_commentary.py

What it does (docs/commentary.md tells why):

- strips the pinyin the web copy of seed 000 inserts after characters: 設(shè) → 設;
- separates 經 from 注 and 疏 (000: 注 in parentheses, 疏 after [疏]; 002: 經 and 注 on
  one line, 疏 after [疏]; 004: 注 lines beginning 鄭注) and places each note on the
  passage whose 經 it follows, by the canonical text (``sheli.text.load_chapter``);
- compares every note with the corpus's reading of the same 注/疏 (``yili-zhushu-*.tsv``,
  the passage and its neighbours) and repairs only garbled stretches: a run of mojibake
  (three or more characters in a row that the corpus reads otherwise, or any with ``?``/``!``),
  a character the web copy lost (楅, 筭, 搢, 適, 弣 …, seed README), and 雲 written for
  云. Such a note is marked ``repaired``; a garbled note the corpus cannot match is written
  as ``dropped`` with a marker text. Genuine readings of the seed (one character against
  one, punctuation) are kept as the seed has them.
"""

from __future__ import annotations

import csv
import difflib
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sheli.text import load_chapter  # noqa: E402
from sheli.text.align import (  # noqa: E402
    Anchor,
    Target,
    _fuzzy,
    _head_tail,
    align_doc,
    fold_text,
)
from sheli.text.kanripo import ENTITIES, Char, KanripoDoc  # noqa: E402

SHARED = ROOT.parent / "shared"
OUT = ROOT / "src" / "sheli" / "text" / "data" / "commentary"

PINYIN = re.compile(r"\([a-zāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜüń]+\)")
PUNCT = set(" \u3000,，.。:：;；、?？!！“”‘’\"'《》〈〉()（）[]【】-—…·○")
LOST = set("楅筭搢適弣扑揖")  # characters the web copy of seed 000 lost or garbled
# Private-use codes seen against one corpus character (pass one), and the table of those
# always seen against the same character at least twice (used in pass two).
PUA_SEEN: dict[str, Counter[str]] = {}
PUA_TABLE: dict[str, str] = {}
UNREAD = "〓"  # the conventional sign for a character that cannot be read
DROPPED = "〔此注/疏於種子本中亂碼, 語料亦無可對, 從闕〕"


def bare(s: str) -> str:
    return "".join(c for c in s if c not in PUNCT)


def corpus_rows(chapter: str) -> dict[int, dict[str, str]]:
    path = SHARED / "corpus" / f"yili-zhushu-{chapter}.tsv"
    with path.open(encoding="utf-8") as fh:
        return {int(r["line"]): r for r in csv.DictReader(fh, delimiter="\t")}


def _is_junk(c: str) -> bool:
    """A character no 注 or 疏 contains: debris of the seed's mis-decoded stretches."""
    return c in "?!@<>" or (c.isascii() and c.isalpha()) or "\u2150" <= c <= "\u218f"


def repair(text: str, ref: str, junk: bool = True) -> tuple[str, str]:
    """(new text, status): the seed note with its garbled stretches read from ``ref``.

    A garbled stretch (around debris such as ``?!`` or ``br>``) is replaced by the corpus
    text between the last six characters before it and the first six after it that the
    corpus note also has, in that order. Characters the web copy lost (LOST) are put back
    where the corpus has them between two agreeing characters. Anything else is the seed's.
    """
    spelt = "亻并" in text  # 併 spelt out by its parts in the web copy
    text = text.replace("亻并", "併")
    ends = getattr(ref, "ends", (len(ref),))
    ref = str(ref)
    rkey = fold_text(ref)
    idx = [i for i, c in enumerate(text) if c not in PUNCT or (junk and c in "?!")]
    key = "".join(fold_text(text[i]) for i in idx)
    bad = [k for k, i in enumerate(idx) if junk and _is_junk(text[i])]
    if bad and not ref:
        return DROPPED, "dropped"
    groups: list[list[int]] = []
    for k in bad:
        if groups and k - groups[-1][1] <= 8:
            groups[-1][1] = k
        else:
            groups.append([k, k])
    out: list[str] = []
    done = 0  # seed index copied so far
    rpos = 0
    changed = False
    consumed = 0  # key index up to which the seed has been replaced
    for g0, g1 in groups:
        if g0 < consumed:
            continue  # debris inside a stretch already read from the corpus
        e = g0
        while e >= 6 and rkey.find(key[e - 6 : e], rpos) == -1:
            e -= 1
        head = False
        if e < 6 or g0 - e > 40:
            if g0 > 40 or consumed:
                return DROPPED, "dropped"
            # In the 標起止 (which the WYG 疏 lacks): keep the clean head, then read the
            # corpus from the 釋曰 that opens its paragraph.
            e, head = g0, True
            if not text.lstrip().startswith("“"):
                e = 0
        left = rkey.find(key[e - 6 : e], rpos) + 6 if not head else rpos
        st = g1 + 1
        while st + 6 <= len(key) and rkey.find(key[st : st + 6], left) == -1:
            st += 1
        if st + 6 > len(key) and not head:
            # Garbled to the end (the debris of the next 經 line): the corpus's note goes
            # on to the end of its own paragraph.
            end = min(x for x in (*ends, len(ref)) if x >= left)
            if end - left > 4 * (len(key) - e) + 40:
                return DROPPED, "dropped"
            keep = idx[e - 1] + 1
            out.append(text[done:keep])
            out.append(ref[left:end])
            done = len(text)
            changed = True
            break
        if st + 6 > len(key) or st - g1 > 40:
            return DROPPED, "dropped"
        right = rkey.find(key[st : st + 6], left)
        if head:
            opening = rkey.rfind(fold_text("釋曰"), max(0, right - 40), right + 2)
            if text.lstrip().startswith("“") and opening != -1:
                if opening >= 1 and rkey[opening - 1] == fold_text("注"):
                    opening -= 1
            elif not text.lstrip().startswith("“"):
                # a 注 garbled at its start: the corpus's 注 from its beginning
                opening = max([0, *[x for x in ends if x <= right]])
            else:
                return DROPPED, "dropped"
            left = opening
        if right - left > 4 * (st - e) + 40:
            return DROPPED, "dropped"
        keep = idx[e - 1] + 1 if e else 0
        while e and keep < len(text) and text[keep] in "”’」』":
            keep += 1  # the closing quote of the 標起止 belongs to the clean part
        out.append(text[done:keep])
        out.append("。○" if head and text.lstrip().startswith("“") else "")
        out.append(ref[left:right])
        done = idx[st]
        consumed = st
        rpos = right
        changed = True
    out.append(text[done:])
    new = "".join(out)
    # Lost characters: put back where the corpus has them between agreeing neighbours.
    nidx = [i for i, c in enumerate(new) if c not in PUNCT]
    nkey = "".join(fold_text(new[i]) for i in nidx)
    sm = difflib.SequenceMatcher(None, nkey, rkey, autojunk=False)
    inserts: list[tuple[int, str]] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            # 云 turned into 雲 by a simplified→traditional conversion (both fold alike)
            for k in range(i2 - i1):
                if new[nidx[i1 + k]] == "雲" and ref[j1 + k] == "云":
                    inserts.append((-nidx[i1 + k] - 1, "云"))
        if (
            op == "insert"
            and 0 < i1 < len(nkey)
            and j2 - j1 <= 2
            and all(c in LOST for c in ref[j1:j2])
        ):
            if nkey[i1 - 1] == rkey[j1 - 1] and nkey[i1] == rkey[j2]:
                inserts.append((nidx[i1 - 1] + 1, ref[j1:j2]))
        if (
            op == "replace"
            and 0 < j2 - j1 <= i2 - i1 <= 2 * (j2 - j1)
            and (
                all(_pua(new[nidx[i]]) for i in range(i1, i2))
                # or a radical as a private-use code and a component: 〓付 for 弣
                or (i2 - i1 == 2 and j2 - j1 == 1 and _pua(new[nidx[i1]]))
            )
        ):
            # characters the web copy turned into private-use code points, one or two
            # code points for each (楅 is two); read them from the corpus
            for k in range(i2 - i1):
                inserts.append((-nidx[i1 + k] - 1, ref[j1:j2] if k == 0 else ""))
            if j2 - j1 == 1:
                seq = "".join(new[nidx[i]] for i in range(i1, i2))
                PUA_SEEN.setdefault(seq, Counter())[ref[j1]] += 1
        if (
            op == "delete"
            and i2 < len(nkey)
            and j1 < len(ref)
            and all(_pua(new[nidx[i]]) for i in range(i1, i2))
            and new[nidx[i2]] != ref[j1]
        ):
            # a radical as a private-use code before a component the fold takes for the
            # whole character (〓付 for 弣, and 付 folds with 弣): the corpus's character
            for i in range(i1, i2):
                inserts.append((-nidx[i] - 1, ""))
            inserts.append((-nidx[i2] - 1, ref[j1]))
        if op == "replace" and j2 - j1 == 1 and i2 - i1 == 2 and new[nidx[i1]] == "亻":
            # 「亻并」: a character spelt out by its parts (亻 + 并 = 併)
            inserts.append((-nidx[i1] - 1, ref[j1]))
            inserts.append((-nidx[i1 + 1] - 1, ""))
        if (
            op == "replace"
            and i2 - i1 == 1 == j2 - j1
            and new[nidx[i1]] == "雲"
            and ref[j1] == "云"
        ):
            inserts.append((-nidx[i1] - 1, "云"))
    for at, chars in sorted(inserts, key=lambda x: abs(x[0]), reverse=True):
        if at < 0:
            new = new[: -at - 1] + chars + new[-at:]
        else:
            new = new[:at] + chars + new[at:]
        changed = True
    if any(_pua(c) for c in new):
        # The same garbled code stands for the same character wherever the corpus
        # showed it unambiguously (PUA_TABLE); any other is marked, never guessed.
        for seq in sorted(PUA_TABLE, key=len, reverse=True):
            new = new.replace(seq, PUA_TABLE[seq])
        new = "".join(UNREAD if _pua(c) else c for c in new)
        changed = True
    return new, ("repaired" if changed or spelt else "clean")


def _pua(c: str) -> bool:
    return "\ue000" <= c <= "\uf8ff"


class Placer:
    """Places a seed's 經 words on the canonical passages, in order."""

    def __init__(self, chapter: str, start: int = 1) -> None:
        self.chapter = load_chapter(chapter)
        self.keys = [fold_text(p.text) for p in self.chapter.passages]
        self.cursor = start - 1

    def place(self, jing: str) -> int | None:
        """The passage number where ``jing`` ends, or None."""
        k = fold_text(bare(jing))
        if not k:
            return None
        for j in range(self.cursor, min(self.cursor + 12, len(self.keys))):
            if self.keys[j].startswith(k[:4]) or k.startswith(self.keys[j][:4]):
                total = 0
                for m in range(j, len(self.keys)):
                    total += len(self.keys[m])
                    if total >= len(k) - 2:
                        self.cursor = m + 1
                        return m + 1
        return None

    def starts(self, line: str) -> bool:
        k = fold_text(bare(line))
        return any(
            k and self.keys[j].startswith(k[: min(len(k), 5)])
            for j in range(self.cursor, min(self.cursor + 3, len(self.keys)))
        )


def neighbours(rows: dict[int, dict[str, str]], n: int, col: str, span: int = 2) -> Ref:
    """The corpus's 注 or 疏 of passage ``n`` and its neighbours, with where each ends."""
    parts = [rows[m][col].replace(" ‖ ", "") for m in range(n - span, n + span + 1) if m in rows]
    ends, total = [], 0
    for part in parts:
        total += len(part)
        ends.append(total)
    return Ref("".join(parts), tuple(ends))


class Ref(str):
    """A reference text that knows where each passage's note in it ends."""

    ends: tuple[int, ...]

    def __new__(cls, text: str, ends: tuple[int, ...] = ()) -> Ref:
        obj = super().__new__(cls, text)
        obj.ends = ends or (len(text),)
        return obj


def _seed_doc(text: str) -> KanripoDoc:
    """The seed as a document for :func:`align_doc`: 經 and 注 large, [疏] lines small.

    Punctuation is dropped (it marks a break); the map back to the seed is ``Char.line``,
    which here holds the character's offset in ``text``.
    """
    chars: list[Char] = []
    in_shu = False
    gap = True
    for i, c in enumerate(text):
        if text.startswith("[疏]", i):
            in_shu = True
        elif c == "\n" or (c.isspace() and text[i + 1 : i + 2].isspace()):
            # a line break, or the double space left where a garbled stretch ate one
            in_shu = False
        if c in PUNCT or c.isspace() or c in "[]":
            gap = True
            continue
        chars.append(Char(c, in_shu, False, gap, i))
        gap = False
    return KanripoDoc("seed:000", "儀禮注疏", "", "zhengzhu", [], chars)


def _shu_target(shu: str, n: int, keys: list[str]) -> int:
    """The passage a [疏] comments on, from its 標起止 「“X”至“Y”」: the last of X…Y."""
    m = re.match(r"\s*“([^”“]{1,12})”(?:至“([^”“]{1,12})”)?", shu)
    if not m:
        return n
    x, y = fold_text(m.group(1)), fold_text(m.group(2) or "")
    best: tuple[int, int] | None = None
    for j in range(max(0, n - 5), min(len(keys), n + 4)):
        if not keys[j].startswith(x):
            continue
        for k in range(j, min(len(keys), j + 6)):
            if (keys[k].endswith(y) if y else k == j) and (
                best is None or abs(k + 1 - n) < abs(best[1] - n)
            ):
                best = (j, k + 1)
    return best[1] if best else n


def seed_000() -> list[tuple[str, str, str, str]]:
    raw = next((SHARED / "seeds").glob("000_*.txt")).read_text(encoding="utf-8")
    text = PINYIN.sub("", raw)
    text = text[text.index("司射猶挾乘矢") :]
    rows = corpus_rows("xiangshe")
    chapter = load_chapter("xiangshe")
    first, last = 123, 248  # 「司射猶挾乘矢」 … 「不鼓不釋」
    passages = chapter.passages[first - 1 : last]
    targets = [Target(p.id, p.text, p.kind) for p in passages]
    keys = [fold_text(p.text) for p in chapter.passages]
    doc = _seed_doc(text)
    al = align_doc(doc, "xiangshe", targets)
    # 經 lines swallowed by a garbled stretch into a [疏] line: look for them there too.
    found = {a.index: a for a in al.anchors}
    whole = fold_text(doc.text)
    for i in range(len(targets)):
        if i in found:
            continue
        lo = max([found[j].end for j in found if j < i], default=0)
        hi = min([found[j].start for j in found if j > i], default=len(doc.chars))
        key = fold_text(targets[i].text)
        at = whole.rfind(key, lo, hi)  # the 經 follows the commentary quoting it
        got = (at, at + len(key)) if at != -1 else None
        got = got or _head_tail(whole, key, lo, hi) or _fuzzy(whole, key, lo, hi)
        if got:
            found[i] = Anchor(targets[i].pid, i, got[0], got[1], "seed")
    order = sorted(found.values(), key=lambda a: a.start)
    out: list[tuple[str, str, str, str]] = []
    for k, a in enumerate(order):
        n = first + a.index
        lo = doc.chars[a.end - 1].line + 1
        hi = doc.chars[order[k + 1].start].line if k + 1 < len(order) else len(text)
        region = text[lo:hi]
        pieces = region.split("[疏]")
        zhu = re.sub(r"\s+", "", pieces[0]).strip("。,:;").lstrip("”’」。,:;")
        if "(" in zhu[:6]:
            # the passage's last words, garbled, were not anchored: the 注 opens at (
            zhu = zhu[zhu.index("(") + 1 :]
        if zhu.endswith(")"):
            zhu = zhu[:-1]
        if len(bare(zhu)) > 1:  # a lone character is a stray of the 經, not a 注
            fixed, status = repair(zhu, neighbours(rows, n, "zhu", 1))
            out.append((f"xiangshe:{n}", "注", status, fixed))
        for shu in pieces[1:]:
            shu = re.split(r"\s\s+", shu.strip())[0]  # what follows a double space is not 疏
            shu = re.sub(r"\s+", "", shu)
            if not bare(shu):
                continue
            m = _shu_target(shu, n, keys)
            m = m if first <= m <= last else n  # the seed covers first…last only
            fixed, status = repair(shu, neighbours(rows, m, "shu"))
            out.append((f"xiangshe:{m}", "疏", status, fixed))
    missing = [first + i for i in range(len(targets)) if i not in found]
    print(f"seed 000: passages {first}-{last}, not found in the seed: {missing}")
    return sorted(out, key=lambda r: (int(r[0].split(":")[1]), r[1] != "注"))


def _match(folded: str, pos: int, key: str) -> int | None:
    """How much of ``folded`` from ``pos`` is passage ``key``: exactly, or with one
    differing character in eight, or lacking its first character (a 卒 the seed sets at
    the end of the line before)."""
    if folded.startswith(key, pos):
        return len(key)
    seg = folded[pos : pos + len(key)]
    if len(seg) == len(key) and sum(a != b for a, b in zip(seg, key, strict=True)) <= max(
        1, len(key) // 8
    ):
        return len(key)
    if len(key) > 4 and folded.startswith(key[1:], pos):
        return len(key) - 1
    return None


def seed_002() -> list[tuple[str, str, str, str]]:
    raw = next((SHARED / "seeds").glob("002_*.txt")).read_text(encoding="utf-8")
    rows = corpus_rows("yan")
    ch = load_chapter("yan")
    keys = [fold_text(p.text) for p in ch.passages]
    out = []
    cursor = 123
    last = None
    for line in raw.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("[疏]"):
            if last is not None:
                shu = line[len("[疏]") :]
                fixed, status = repair(shu, neighbours(rows, last, "shu"), junk=False)
                out.append((f"yan:{last}", "疏", status, fixed))
            continue
        # 經 then 注 on one line: take passages while the line goes on with them.
        pos = 0
        n = None
        chars = [(i, c) for i, c in enumerate(line) if c not in PUNCT]
        folded = "".join(fold_text(c) for _, c in chars)
        j = cursor
        while j < len(keys):
            got = _match(folded, pos, keys[j])
            if got is None:
                break
            pos += got
            n = j + 1
            j += 1
        if n is None:
            continue
        cursor = j
        last = n
        cut = chars[pos][0] if pos < len(chars) else len(line)
        zhu = line[cut:].strip()
        if zhu:
            fixed, status = repair(zhu, neighbours(rows, n, "zhu", 1), junk=False)
            out.append((f"yan:{n}", "注", status, fixed))
    return out


def seed_004() -> list[tuple[str, str, str, str]]:
    """集釋: 經 lines, then 注 lines beginning 鄭注 (wrapped lines carry no mark)."""
    raw = next((SHARED / "seeds").glob("004_*.txt")).read_text(encoding="utf-8")
    for ent, ch in ENTITIES.items():  # identified in the corpus README §3.1
        raw = raw.replace(f"&{ent};", ch)
    text = raw[min(raw.index(x) for x in ("鄕射之禮", "鄉射之禮") if x in raw) :]
    chars: list[Char] = []
    small = False
    gap = True
    for i, c in enumerate(text):
        if c == "\n":
            small = text.startswith("鄭注", i + 1)  # a 注 line never holds a passage
            gap = True
            continue
        if c in PUNCT or c.isspace():
            gap = True
            continue
        chars.append(Char(c, small, False, gap, i))
        gap = False
    doc = KanripoDoc("seed:004", "儀禮集釋", "", "zhengzhu", [], chars)
    chapter = load_chapter("xiangshe")
    targets = [Target(p.id, p.text, p.kind) for p in chapter.passages[:309]]  # no 記
    al = align_doc(doc, "xiangshe", targets)
    last_line = max(a.end for a in al.anchors)
    # 集釋 ends mid-chapter: keep the passages up to the last one it holds.
    order = sorted(al.anchors, key=lambda a: a.start)
    order = [a for a in order if a.end <= last_line]
    out: list[tuple[str, str, str, str]] = []
    for k, a in enumerate(order):
        lo = doc.chars[a.end - 1].line + 1
        hi = doc.chars[order[k + 1].start].line if k + 1 < len(order) else len(text)
        lines = text[lo:hi].strip().split("\n")
        if k + 1 == len(order) and a.index + 1 < len(targets):
            # the seed breaks off inside the next passage: its 經 line is not 注
            head = fold_text(targets[a.index + 1].text)[:4]
            cut = [j for j, ln in enumerate(lines) if fold_text(bare(ln)).startswith(head)]
            lines = lines[: cut[0]] if cut else lines
        note = "".join(ln[2:] if ln.startswith("鄭注") else ln for ln in lines).strip()
        if not note:
            continue
        # The seed's 集釋 is clean text (its bracketed 四庫 collation notes are kept).
        out.append((f"xiangshe:{a.index + 1}", "注", "clean", note))
    print(f"seed 004: passages 1-{order[-1].index + 1}, anchored {len(order)}")
    return out


HEADER = """# Commentary extracted from seed {seed} by tools/extract_commentary.py; do not edit.
# {what}
# Columns: passage (chapter:line of yili-jing), kind (注 or 疏), status, text.
# status: clean = the seed's words (pinyin stripped); repaired = garbled stretches read from
# the corpus's 儀禮注疏 (WYG) for the same note; dropped = garbled beyond repair, left out.
passage\tkind\tstatus\ttext
"""


def write(name: str, seed: str, what: str, rows: list[tuple[str, str, str, str]]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    with (OUT / name).open("w", encoding="utf-8") as fh:
        fh.write(HEADER.format(seed=seed, what=what))
        for r in rows:
            fh.write("\t".join(x.replace("\t", " ").replace("\n", " ") for x in r) + "\n")
    counts: dict[str, int] = {}
    for r in rows:
        counts[r[2]] = counts.get(r[2], 0) + 1
    print(f"{name}: {len(rows)} notes", counts)


def learn_private_use() -> dict[str, str]:
    """Pass one over seed 000: which corpus character each private-use code stands for."""
    PUA_SEEN.clear()
    PUA_TABLE.clear()
    seed_000()
    table = {
        seq: next(iter(c)) for seq, c in PUA_SEEN.items() if len(c) == 1 and sum(c.values()) >= 2
    }
    PUA_TABLE.update(table)
    return table


def main() -> None:
    table = learn_private_use()
    print(
        "private-use codes read from the corpus:",
        {k.encode("unicode_escape").decode(): v for k, v in sorted(table.items())},
    )
    write(
        "seed-000-xiangshe.tsv",
        "000",
        "儀禮注疏 鄉射禮, 「司射猶挾乘矢」 to 「不鼓不釋」: 鄭注 and 賈疏.",
        seed_000(),
    )
    write(
        "seed-002-yan.tsv",
        "002",
        "儀禮注疏 燕禮, 「若射則大射正為司射」 to the 無筭爵: 鄭注 and 賈疏.",
        seed_002(),
    )
    write(
        "seed-004-xiangshe-jishi.tsv",
        "004",
        "李如圭 儀禮集釋 鄉射禮, beginning to the music: 鄭注 as 集釋 gives it.",
        seed_004(),
    )


if __name__ == "__main__":
    main()

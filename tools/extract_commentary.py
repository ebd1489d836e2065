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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sheli.text import load_chapter  # noqa: E402
from sheli.text.align import fold_text  # noqa: E402

SHARED = ROOT.parent / "shared"
OUT = ROOT / "src" / "sheli" / "text" / "data" / "commentary"

PINYIN = re.compile(r"\([a-zāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜüń]+\)")
PUNCT = set(" \u3000,，.。:：;；、?？!！“”‘’\"'《》〈〉()（）[]【】-—…·○")
LOST = set("楅筭搢適弣扑揖")  # characters the web copy of seed 000 lost or garbled
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
    ref = ref.replace(" ‖ ", "")
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
    for g0, g1 in groups:
        e = g0
        while e >= 6 and rkey.find(key[e - 6 : e], rpos) == -1:
            e -= 1
        head = False
        if e < 6 or g0 - e > 40:
            if g0 > 40 or done:
                return DROPPED, "dropped"
            # In the 標起止 (which the WYG 疏 lacks): keep the clean head, then read the
            # corpus from the 釋曰 that opens its paragraph.
            e, head = g0, True
        left = rkey.find(key[e - 6 : e], rpos) + 6 if not head else rpos
        st = g1 + 1
        while st + 6 <= len(key) and rkey.find(key[st : st + 6], left) == -1:
            st += 1
        if st + 6 > len(key) or st - g1 > 40:
            return DROPPED, "dropped"
        right = rkey.find(key[st : st + 6], left)
        if head:
            opening = rkey.rfind(fold_text("釋曰"), max(0, right - 40), right)
            if opening == -1:
                return DROPPED, "dropped"
            if opening >= 1 and rkey[opening - 1] == fold_text("注"):
                opening -= 1
            left = opening
        if right - left > 4 * (st - e) + 40:
            return DROPPED, "dropped"
        out.append(text[done : idx[e - 1] + 1] if e else "")
        out.append("。○" if head else "")
        out.append(ref[left:right])
        done = idx[st]
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
    return new, ("repaired" if changed else "clean")


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


def neighbours(rows: dict[int, dict[str, str]], n: int, col: str, span: int = 2) -> str:
    return "".join(rows[m][col] for m in range(n - span, n + span + 1) if m in rows)


def seed_000() -> list[tuple[str, str, str, str]]:
    raw = next((SHARED / "seeds").glob("000_*.txt")).read_text(encoding="utf-8")
    text = PINYIN.sub("", raw)
    rows = corpus_rows("xiangshe")
    placer = Placer("xiangshe", 120)
    out = []
    last: int | None = None
    body = text[text.index("司射猶挾乘矢") :]
    # [疏] paragraphs run to the next 經 line; 經 lines carry their 注 in parentheses.
    for para in re.split(r"\n\s*\n|\n(?=\s*\[疏\])|(?<=\))\s\s+(?=\[疏\])", body):
        para = para.strip()
        if not para:
            continue
        if para.startswith("[疏]"):
            if last is None:
                continue
            shu = para[len("[疏]") :].strip()
            fixed, status = repair(shu, neighbours(rows, last, "shu"))
            out.append((f"xiangshe:{last}", "疏", status, fixed))
            continue
        m = re.match(r"^([^()]*?)\((.*)\)\s*$", para, re.S)
        if m:
            n = placer.place(m.group(1))
            if n is None:
                continue
            last = n
            zhu = re.sub(r"\s+", "", m.group(2))
            fixed, status = repair(zhu, neighbours(rows, n, "zhu", 1))
            out.append((f"xiangshe:{n}", "注", status, fixed))
        elif not re.search(r"[a-z]", para):
            n = placer.place(para)
            if n is not None:
                last = n
    return out


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
        while j < len(keys) and folded.startswith(keys[j], pos):
            pos += len(keys[j])
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
    raw = next((SHARED / "seeds").glob("004_*.txt")).read_text(encoding="utf-8")
    rows = corpus_rows("xiangshe")
    placer = Placer("xiangshe", 1)
    out: list[tuple[str, str, str, str]] = []
    jing: list[str] = []
    zhu: list[str] | None = None
    last: int | None = None

    def flush() -> None:
        nonlocal zhu
        if zhu is not None and last is not None:
            note = "".join(zhu)
            ref = neighbours(rows, last, "zhu", 1)
            # 集釋's own 四庫 collation notes in brackets are not 鄭注: keep them, unrepaired.
            plain = re.sub(r"\([^)]*\)", "", note)
            _, status = repair(plain, ref, junk=False)
            out.append((f"xiangshe:{last}", "注", "clean" if status == "clean" else status, note))
        zhu = None

    started = False
    for line in raw.splitlines():
        line = line.strip()
        if not line:
            continue
        if not started:
            started = line.startswith(("鄕射之禮", "鄉射之禮"))
            if not started:
                continue
        if line.startswith("鄭注"):
            flush()
            n = placer.place("".join(jing))
            jing = []
            if n is not None:
                last = n
            zhu = [line[2:]]
        elif zhu is not None and not placer.starts(line):
            zhu.append(line)
        else:
            flush()
            jing.append(line)
    flush()
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


def main() -> None:
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

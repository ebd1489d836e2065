"""Benchmark: anchoring our passages in each whole Kanripo chapter edition of the corpus.

    .venv/bin/python bench/bench_align.py [--runs 7]

For every edition file of every chapter it times, over several runs, parsing the Kanripo
file and aligning the chapter's passages to it (:func:`sheli.text.align.align_doc`;
:func:`sheli.text.editions.align_shu` for the 單疏), and prints the median as a Markdown
table with the machine it ran on, ready for docs/benchmarks.md ``## Text alignment``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from _common import machine  # noqa: E402

from sheli.text.align import align_doc, chapter_targets  # noqa: E402
from sheli.text.commentary import seed_notes  # noqa: E402
from sheli.text.editions import align_shu, build_notes  # noqa: E402
from sheli.text.kanripo import KanripoDoc, read_kanripo  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
EDITIONS = ("zhushu", "zhengzhu", "shu", "jishi", "tu", "yishu")
CHAPTERS = ("xiangshe", "yan", "dashe")


def zhu_reference(chapter: str) -> dict[str, list[str]]:
    """The 注 the 單疏's 注 heads are placed by: 注疏's (aligned here) and the seeds'."""
    doc = read_kanripo(CORPUS / f"yili-zhushu-{chapter}.txt")
    notes = build_notes(doc, align_doc(doc, chapter, chapter_targets(chapter)))
    ref = {pid: [n["text"] for n in ns if n["kind"] == "注"] for pid, ns in notes.items()}
    for n in seed_notes():
        if n.kind == "注" and n.passage.startswith(chapter + ":"):
            ref.setdefault(n.passage, []).append(n.text)
    return ref


def collatex_case(runs: int) -> str:
    """CollateX's reported case: about 2,000 characters of 經 against 4,400 of 集釋."""
    targets, total = [], 0
    for t in chapter_targets("xiangshe"):
        if total + len(t.text) > 2000:
            break
        targets.append(t)
        total += len(t.text)
    full = read_kanripo(CORPUS / "yili-jishi-xiangshe.txt")
    last_line = full.chars[4400].line
    doc = KanripoDoc(
        full.path,
        full.title,
        full.kid,
        full.format,
        full.juan,
        [c for c in full.chars if c.line <= last_line],
    )
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        al = align_doc(doc, "xiangshe", targets)
        times.append(time.perf_counter() - t0)
    return (
        f"| 經 xiangshe:1–{len(targets)} ({total} characters) against the first "
        f"{len(doc.chars)} characters of yili-jishi-xiangshe.txt | {al.anchored} of "
        f"{len(targets)} anchored | {statistics.median(times):.4f} s |"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    print(f"Machine: {machine()}; median of {args.runs} runs.\n")
    refs = {ch: zhu_reference(ch) for ch in CHAPTERS}
    print("| edition file | characters | passages | anchored | parse s | align s | total s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for ed in EDITIONS:
        for ch in CHAPTERS:
            path = CORPUS / f"yili-{ed}-{ch}.txt"
            if not path.is_file():
                continue
            targets = chapter_targets(ch)
            parse_t, align_t = [], []
            for _ in range(args.runs):
                t0 = time.perf_counter()
                doc = read_kanripo(path)
                t1 = time.perf_counter()
                if doc.format == "shu":
                    al = align_shu(doc, ch, targets, refs[ch])[0]
                else:
                    al = align_doc(doc, ch, targets)
                t2 = time.perf_counter()
                parse_t.append(t1 - t0)
                align_t.append(t2 - t1)
            p, a = statistics.median(parse_t), statistics.median(align_t)
            print(
                f"| {path.name} | {len(doc.chars)} | {len(targets)} | {al.anchored} "
                f"| {p:.3f} | {a:.3f} | {p + a:.3f} |"
            )
    print("\n| CollateX's case | result | sheli align |")
    print("|---|---|---:|")
    print(collatex_case(args.runs))


if __name__ == "__main__":
    main()

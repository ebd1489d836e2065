"""Benchmark: anchoring our passages in each whole Kanripo chapter edition of the corpus.

    .venv/bin/python bench/bench_align.py [--runs 7]

For every edition file of every chapter it times, over several runs, parsing the Kanripo
file and aligning the chapter's passages to it (:func:`sheli.text.align.align_doc`;
:func:`sheli.text.editions.align_shu` for the 單疏), and prints the median as a Markdown
table with the machine it ran on, ready for docs/benchmarks.md ``## Text alignment``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from sheli.text.align import align_doc, chapter_targets  # noqa: E402
from sheli.text.editions import align_shu  # noqa: E402
from sheli.text.kanripo import read_kanripo  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
EDITIONS = ("zhushu", "zhengzhu", "shu", "jishi", "tu", "yishu")
CHAPTERS = ("xiangshe", "yan", "dashe")


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, nproc {os.cpu_count()}, Python {platform.python_version()}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    print(f"Machine: {machine()}; median of {args.runs} runs.\n")
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
                    al = align_shu(doc, ch, targets)[0]
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


if __name__ == "__main__":
    main()

"""Benchmark of the rite in time: the schedule's cost by number of 衆耦, and the run with
its walks checked, this checkout against another.

    .venv/bin/python bench/bench_timeline.py [--pairs 0,10,30,100] [--write]
    .venv/bin/python bench/bench_timeline.py --vs OTHER --runs 3 [--big 100,1000] [--write]

The first form times ``sheli.engine.timeline.schedule`` alone (CPU, in this process) for
each number of 衆耦 of 鄉射禮 (seed 1), with what it did (acts placed, placed again after
going back to a partner, pairs of walks measured exactly: the counts the tests hold to).

The second runs ``/usr/bin/time -v sheli run xiangshe --pairs N --format jsonl`` (to
/dev/null) in this checkout and in ``OTHER`` (a checkout with its own ``.venv``), alternated
A B A B, ``--runs`` times each, and gives the medians of user+system CPU and of the peak
resident set (the largest process: the run, or the process that checks its walks apart).
Run each once before, to warm the caches. ``--write`` puts the table, with the machine and
the load, under ``## The rite in time`` in docs/benchmarks.md (other sections are kept).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from _common import machine, write_section  # noqa: E402

HEADING = "The rite in time"


def schedule_rows(pairs: list[int]) -> list[str]:
    from sheli.engine import run
    from sheli.engine.timeline import schedule

    rows = []
    for p in pairs:
        r = run("xiangshe", seed=1, pairs=p)
        t = time.process_time()
        tl = schedule(r)
        cpu = time.process_time() - t
        w = tl.work
        per = cpu * 1e6 / len(tl.steps)
        rows.append(
            f"| {p} | {len(tl.steps):,} | {cpu * 1000:,.0f} ms | {per:.0f} µs "
            f"| {w['placed']:,} | {w['undone']:,} | {w['measured']:,} "
            f"| {tl.span / 60:,.0f} min | {tl.total / 60:,.0f} min |"
        )
        print(rows[-1], flush=True)
    return rows


def timed(checkout: Path, pairs: int) -> tuple[float, float]:
    """CPU seconds (user + system) and peak MiB of one ``sheli run``."""
    cmd = [
        "/usr/bin/time",
        "-v",
        str(checkout / ".venv/bin/sheli"),
        "run",
        "xiangshe",
        "--pairs",
        str(pairs),
        "--format",
        "jsonl",
    ]
    with open(os.devnull, "wb") as sink:
        p = subprocess.run(cmd, stdout=sink, stderr=subprocess.PIPE, text=True, check=False)

    def field(name: str) -> float:
        m = re.search(rf"{re.escape(name)}: ([\d.]+)", p.stderr)
        return float(m.group(1)) if m else float("nan")

    cpu = field("User time (seconds)") + field("System time (seconds)")
    return cpu, field("Maximum resident set size (kbytes)") / 1024


def command_rows(other: Path, big: list[int], runs: int) -> list[str]:
    rows = []
    for pairs in big:
        got: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
        for _ in range(runs):
            got["A"].append(timed(ROOT, pairs))
            got["B"].append(timed(other, pairs))
            print(pairs, got["A"][-1], got["B"][-1], flush=True)
        a_cpu = statistics.median(c for c, _ in got["A"])
        b_cpu = statistics.median(c for c, _ in got["B"])
        a_mem = statistics.median(m for _, m in got["A"])
        b_mem = statistics.median(m for _, m in got["B"])
        rows.append(
            f"| `--pairs {pairs}` | {a_cpu:.2f} s | {b_cpu:.2f} s | {a_cpu / b_cpu:.2f} "
            f"| {a_mem:.1f} MiB | {b_mem:.1f} MiB | {runs} + {runs} |"
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", default="0,10,30,100")
    ap.add_argument("--vs", type=Path, help="another checkout with its own .venv")
    ap.add_argument("--big", default="100,1000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    load = os.getloadavg()[0]
    lines = [f"## {HEADING}", ""]
    if a.vs is None:
        rows = schedule_rows([int(x) for x in a.pairs.split(",")])
        lines += [
            f'`bench/bench_timeline.py --pairs {a.pairs}`: `schedule(run("xiangshe", seed=1, '
            "pairs=N))` alone, CPU. Machine: "
            f"{machine()}; load {load:.1f} at the start.",
            "",
            "| 衆耦 | steps | schedule CPU | a step | acts placed | undone | pairs measured "
            "| by the timeline | acts added up |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            *rows,
        ]
    else:
        rows = command_rows(a.vs, [int(x) for x in a.big.split(",")], a.runs)
        lines += [
            f"`bench/bench_timeline.py --vs {a.vs} --runs {a.runs}`: `/usr/bin/time -v sheli run "
            "xiangshe --pairs N --format jsonl`, this checkout (A) against the other (B), "
            f"alternated, medians. Machine: {machine()}; load {load:.1f} at the start.",
            "",
            "| command | A CPU | B CPU | A/B | A peak | B peak | runs |",
            "|---|---:|---:|---:|---:|---:|---:|",
            *rows,
        ]
    print("\n".join(lines))
    if a.write:
        write_section(ROOT / "docs" / "benchmarks.md", HEADING, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

"""Benchmark of ``sheli render``: the whole viewer of the default 鄉射禮 and of 100 衆耦.

    .venv/bin/python bench/bench_render.py [--repeat 3] [--repeat-big 1] [--jobs N] [--write]
        [--cli 5] [--cli-no-svg 5] [--skip-big]
    .venv/bin/python bench/bench_render.py --sample 12 [--sample-steps 32] [--src DIR]
        [--profile 30]

For each case, ``--repeat`` times (``--repeat-big`` for 100 衆耦, which takes minutes): the
run (:func:`sheli.engine.run`) and then :func:`sheli.outputs.render.render` into a fresh
temporary directory (frames, every step's diagram on ``--jobs`` processes, the text and
commentary in both scripts, packing, writing). Medians are reported with the sizes written,
wall time and CPU time (user + system, this process and its drawing processes). ``--cli N``
also times the command itself, ``sheli render xiangshe -o DIR`` in a new process, N times
(its wall time includes starting Python and the run): the issue's target is that command;
``--cli-no-svg N`` the same with ``--no-svg`` (the viewer alone: it holds every diagram), which
tells the drawing from the writing of some 170 MB of SVG files.
The 100 衆耦 case is rendered without the per-step SVG files (``--no-svg``): at about
0.2 MB a step they would be some 10 GB; the diagrams are drawn all the same and packed into
the viewer. ``--write`` puts the table, with the machine, under ``## Render`` in
docs/benchmarks.md (other sections are kept).

``--sample K`` measures the drawing alone where a whole 100 衆耦 render takes too long for a
loaded machine: K runs of ``--sample-steps`` consecutive steps, spread evenly over the 100
衆耦 run, each drawn in order in this process (as a drawing process draws its chunks, the
first step of each with nothing remembered, the labels kept from step to step and placed
afresh at each run's first step (``label_run``); an older checkout given by ``--src`` places
every step afresh), CPU ms a step; the mean times the steps is
the drawing's CPU for the whole run. ``--src DIR`` imports sheli from DIR (another
checkout's ``src``), to compare two versions side by side.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_src = sys.argv[sys.argv.index("--src") + 1] if "--src" in sys.argv else str(ROOT / "src")
sys.path.insert(0, _src)

from _common import machine, write_section  # noqa: E402

from sheli.engine import run  # noqa: E402
from sheli.outputs.render import render  # noqa: E402

try:  # the walks checked apart, as the command checks them
    from sheli.engine.walks import apart_possible

    RUN_KW = {"walks_apart": apart_possible()}
except ImportError:  # (an older checkout, with --src)
    RUN_KW = {}


def once(pairs: int, svg_files: bool, jobs: int | None) -> dict[str, float]:
    """One run and one render; times in seconds, sizes in MB."""
    d = Path(tempfile.mkdtemp(prefix="sheli-bench-"))
    try:
        t0 = time.perf_counter()
        r = run("xiangshe", pairs=pairs, **RUN_KW)
        t1 = time.perf_counter()
        c1 = _cpu()
        rep = render(r, d / "out", svg_files=svg_files, jobs=jobs)
        t2 = time.perf_counter()
        c2 = _cpu()
        return {
            "cpu": c2 - c1,
            "steps": rep.steps,
            "run": t1 - t0,
            "render": t2 - t1,
            "total": t2 - t0,
            "per_step_ms": (t2 - t1) / rep.steps * 1000,
            "html_mb": rep.html_bytes / 1e6,
            "svg_mb": rep.svg_bytes / 1e6,
            "svg_files": rep.svg_files,
        }
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _cpu() -> float:
    """CPU seconds so far, user and system, of this process and its ended children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def cli_once(*extra: str) -> dict[str, float]:
    """``sheli render xiangshe -o DIR`` in a new process: wall and CPU seconds."""
    d = Path(tempfile.mkdtemp(prefix="sheli-bench-"))
    exe = Path(sys.executable).with_name("sheli")
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(
            [str(exe), "render", "xiangshe", "-o", str(d / "out"), *extra],
            check=True,
            capture_output=True,
        )
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return {"wall": wall, "cpu": cpu, "load": os.getloadavg()[0]}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def sample(k: int, n: int, profile: int = 0) -> None:
    """Draw ``k`` runs of ``n`` steps of the 100 衆耦 run; print CPU ms a step (with
    ``profile``, also that many of the functions with the most time of their own, by
    cProfile, which slows the drawing about twofold)."""
    from sheli.outputs.diagram import clear_caches, render_svg_parts
    from sheli.outputs.frames import build_frames

    r = run("xiangshe", pairs=100)
    frames = build_frames(r)
    try:  # as the render draws: each run of steps in order, its labels kept
        from sheli.outputs.labels import restart_kept
        from sheli.outputs.render import KEYFRAME

        kw = {"keep_labels": True}
        try:
            from sheli.outputs.render import label_run

            span = label_run(len(frames))
        except ImportError:  # (an older checkout, with --src: a chunk a run)
            span = KEYFRAME
    except ImportError:  # (an older checkout still, with --src)
        restart_kept, span, kw = (lambda: None), 1 << 30, {}
    scene = r.events[0]
    per = []
    prof = cProfile.Profile() if profile else None
    for s in range(k):
        a = (len(frames) - n) * s // max(k - 1, 1)
        clear_caches()
        c0 = time.process_time()
        if prof is not None:
            prof.enable()
        for i in range(a, a + n):
            if i == a or i % span == 0:
                restart_kept()
            f = frames[i]
            render_svg_parts(f, scene, highlight=f.actor, **kw)
        if prof is not None:
            prof.disable()
        per.append((time.process_time() - c0) / n * 1000)
        print(f"steps {a}–{a + n - 1}: {per[-1]:.1f} ms a step (CPU)", flush=True)
    if prof is not None:
        pstats.Stats(prof).sort_stats("tottime").print_stats(profile)
    mean = statistics.fmean(per)
    print(
        f"{_src}: {len(frames)} steps; CPU ms a step: median {statistics.median(per):.1f}, "
        f"mean {mean:.1f}, min {min(per):.1f}, max {max(per):.1f}; the whole run's drawing "
        f"≈ {mean * len(frames) / 1000:.0f} s of CPU; load {os.getloadavg()[0]:.1f}"
    )


def median(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="renders of the default run")
    ap.add_argument("--repeat-big", type=int, default=1, help="renders of the 100 衆耦 run")
    ap.add_argument("--jobs", type=int, default=None, help="drawing processes (default: all)")
    ap.add_argument("--skip-big", action="store_true", help="only the default run")
    ap.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    ap.add_argument("--cli", type=int, default=0, help="times to run the command itself")
    ap.add_argument("--cli-no-svg", type=int, default=0, help="times to run it with --no-svg")
    ap.add_argument("--sample", type=int, default=0, help="only sample the 100 衆耦 drawing")
    ap.add_argument("--sample-steps", type=int, default=32, help="steps in each sample")
    ap.add_argument("--profile", type=int, default=0, help="with --sample: top N by cProfile")
    ap.add_argument("--src", help="import sheli from this directory")
    args = ap.parse_args()
    if args.sample:
        sample(args.sample, args.sample_steps, args.profile)
        return

    cli_rows: list[dict[str, float]] = []
    nosvg_rows: list[dict[str, float]] = []
    # alternated, so that a change in the machine's load falls alike on both
    for k in range(max(args.cli, args.cli_no_svg)):
        if k < args.cli:
            cli_rows.append(cli_once())
            print(f"sheli render xiangshe #{k + 1}: {cli_rows[-1]}", flush=True)
        if k < args.cli_no_svg:
            nosvg_rows.append(cli_once("--no-svg"))
            print(f"sheli render xiangshe --no-svg #{k + 1}: {nosvg_rows[-1]}", flush=True)

    cases = [("default (三耦, 賓主人大夫)", 0, True, args.repeat)]
    if not args.skip_big:
        cases.append(("100 衆耦 (`--pairs 100`, `--no-svg`)", 100, False, args.repeat_big))
    results = []
    for name, pairs, svg, n in cases:
        rows = []
        for k in range(n):
            rows.append(once(pairs, svg, args.jobs))
            print(f"{name} #{k + 1}: {rows[-1]}", flush=True)
        results.append((name, n, median(rows)))

    jobs = args.jobs or os.cpu_count()
    lines = [
        "## Render",
        "",
        "`sheli render xiangshe -o DIR` (`bench/bench_render.py`; run it with "
        "`.venv/bin/python bench/bench_render.py --write`): the run, then the viewer — frames, "
        f"every step's diagram (`sheli.outputs.diagram.render_svg`, on {jobs} processes), the "
        "text and commentary in both scripts, the packed diagrams, `index.html` and the SVG "
        "files. Medians of the runs shown; the load average (1 min) is given with the "
        "commands' times.",
        "",
        f"Machine: {machine()}.",
        "",
        "| case | runs | steps | run s | render s (wall) | render s (CPU) | total s "
        "| ms / step | index.html MB | SVG files MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, n, m in results:
        svg = f"{m['svg_mb']:.0f} ({int(m['svg_files'])} files)" if m["svg_files"] else "–"
        lines.append(
            f"| {name} | {n} | {int(m['steps'])} | {m['run']:.2f} | {m['render']:.1f} | "
            f"{m['cpu']:.1f} | {m['total']:.1f} | {m['per_step_ms']:.1f} | "
            f"{m['html_mb']:.1f} | {svg} |"
        )
    for rows, cmd in (
        (cli_rows, "`sheli render xiangshe -o DIR`"),
        (nosvg_rows, "`sheli render xiangshe -o DIR --no-svg`"),
    ):
        if not rows:
            continue
        walls = sorted(r["wall"] for r in rows)
        cpus = sorted(r["cpu"] for r in rows)
        loads = sorted(r["load"] for r in rows)
        lines += [
            "",
            f"{cmd} as a command, {len(rows)} runs: wall median "
            f"**{statistics.median(walls):.2f} s** (min {walls[0]:.2f}, max {walls[-1]:.2f}), "
            f"CPU median {statistics.median(cpus):.2f} s; load (1 min) "
            f"{loads[0]:.1f}–{loads[-1]:.1f}.",
        ]
    lines += [
        "",
        "The drawing (`render_svg`) keeps what it has drawn, keyed on everything drawn, and "
        "places labels against its last placement (docs/diagrams.md); each drawing process "
        "draws, writes and packs its own range of steps. The target for the default run's "
        "whole viewer is 5 s. Besides drawing: writing the SVG files (about 170 MB; its "
        "system time varies most from run to run), the HTML (JSON, gzip). `index.html` "
        "stays small because each process stores the distinct parts of its diagrams once "
        "and each step as the numbers of its parts, gzipped (docs/viewer.md).",
        "",
    ]
    print("\n".join(lines))
    if args.write:
        write_section(ROOT / "docs" / "benchmarks.md", "Render", "\n".join(lines))


if __name__ == "__main__":
    main()

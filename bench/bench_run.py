"""Benchmark of ``sheli run``: time, steps per second and peak memory by number of 衆耦.

    .venv/bin/python bench/bench_run.py [--rite xiangshe] [--repeat 5] [--write]
    .venv/bin/python bench/bench_run.py --phases 5 [--vs OTHER/.venv/bin/python]

Times the run through the Python API (median of ``--repeat`` runs) and once through the CLI
(``sheli run RITE --pairs N --format jsonl``, a fresh process, so it includes start-up and
imports) for 0, 10, 100 and 1000 衆耦, and that command's peak memory (its resident set, the
kernel's account of the finished process: the figure a user sees, and the one the 400 MiB
target of 1000 衆耦 is about). The runs of 1000 衆耦 are ``--repeat-big`` (default 1: each
takes minutes). ``--write`` puts the table, with the machine, under ``## Rite run`` in
docs/benchmarks.md (other sections of that file are kept).

``--phases N`` instead takes apart the start of ``sheli run RITE --format jsonl`` in N fresh
processes, the CPU milliseconds of each part as the command meets them: Python's own
start, click, the rite layer, the rest of the engine's imports (and whether pydantic came
with them), the spec from the cache, the spec's checks, the run (with its lines made as
the command makes them, ``SpooledLog``), and the event log written out; with ``--vs
PYTHON`` the same in another interpreter (another checkout's venv runs that checkout's
code), the two alternated. Each pauses the cyclic collector from its start
where its checkout's ``sheli run`` does (``sheli.cli.PAUSE_GC``). Byte code is written and
read as on a user's machine (``PYTHONDONTWRITEBYTECODE`` unset); run it once before, to warm
the caches.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from _common import machine, write_section  # noqa: E402

from sheli.engine import run  # noqa: E402

PAIRS = (0, 10, 100, 1000)


def time_api(rite: str, pairs: int, repeat: int) -> tuple[float, float, int]:
    """Median wall time and median CPU time of the run (CPU time is what the run itself
    costs; wall time also counts waiting for a CPU on a shared machine)."""
    walls, cpus, steps = [], [], 0
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        r = run(rite, pairs=pairs, seed=1)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        steps = len(r.steps)
        del r
    return statistics.median(walls), statistics.median(cpus), steps


# Runs a command (stdout and stderr to /dev/null) and prints its wall seconds and its peak
# resident KiB. Linux carries the high-water mark of a process's memory across exec, so a
# command started straight from this process, which holds the runs it timed, would report
# this process's peak; started from this small one, it reports its own.
LAUNCH_SCRIPT = """
import os, subprocess, sys, time
t0 = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(p.pid, 0)
print(time.perf_counter() - t0, usage.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def time_cli(rite: str, pairs: int) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of ``sheli run RITE --pairs N --format jsonl`` in a
    new process (its own resource usage, from ``os.wait4``)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    cmd = [sys.executable, "-m", "sheli", "run", rite, "--pairs", str(pairs), "--format", "jsonl"]
    got = subprocess.run(
        [sys.executable, "-c", LAUNCH_SCRIPT, *cmd],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    if got.returncode:
        raise SystemExit(f"{' '.join(cmd)}: exit {got.returncode}")
    wall, kib = got.stdout.split()
    return float(wall), int(kib) / 1024  # KiB on Linux


# The start of `sheli run RITE --format jsonl`, part by part, in a fresh process: prints one
# JSON object of CPU milliseconds. A checkout without the checks' disk cache (check_loaded)
# checks the spec as its run_spec would.
PHASES_SCRIPT = """
import gc, json, sys, time
cpu = time.process_time
marks = [("python", cpu())]
if sys.argv[2:] == ["pause-gc"]:
    gc.disable()  # as that checkout's `sheli run` does (sheli.cli.PAUSE_GC)
import click
marks.append(("click", cpu()))
import sheli.rite
marks.append(("rite layer", cpu()))
import sheli.engine as E
from sheli.engine import check
from sheli.scoring.outcomes import SeededOutcomes
from sheli.outputs import eventlog
marks.append(("engine imports", cpu()))
from sheli.rite import load_spec
loaded = load_spec(sys.argv[1])
marks.append(("spec (cache)", cpu()))
spec = loaded.spec
env = E.default_env(E.VENUES.get(spec.params.venue, spec.params.venue), SeededOutcomes(0),
                    spec.chapter)
if hasattr(check, "check_loaded"):
    check.check_loaded(loaded, env)
else:
    check.check_spec(spec, loaded.file, env)
    loaded.checked = True
marks.append(("checks", cpu()))
if hasattr(eventlog, "SpooledLog"):  # as the command: each line made as the run goes
    log = eventlog.SpooledLog()
    r = E.run(sys.argv[1], sink=log.add)
    marks.append(("run", cpu()))
    lines = log.lines(r.records[0].to_json())
else:
    r = E.run(sys.argv[1])
    marks.append(("run", cpu()))
    lines = eventlog.jsonl_lines(r.events)
with open("/dev/null", "wb") as out:
    for line in lines:
        out.write(line)
marks.append(("log", cpu()))
got = {k: (t - marks[i - 1][1] if i else t) * 1000 for i, (k, t) in enumerate(marks)}
got["pydantic imported"] = 1000.0 * ("pydantic" in sys.modules)
print(json.dumps(got))
"""


def phases(pythons: list[str], rite: str, n: int) -> list[dict[str, list[float]]]:
    """The CPU ms of each part of the start, in ``n`` fresh processes of each of ``pythons``
    (taken in turn)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    got: list[dict[str, list[float]]] = [{} for _ in pythons]
    # whether each checkout's `sheli run` pauses the cyclic collector for its whole process
    probe = "import sheli.cli as c; print('run' in getattr(c, 'PAUSE_GC', ()))"
    pause = [
        subprocess.run([p, "-c", probe], check=True, capture_output=True, env=env).stdout.strip()
        == b"True"
        for p in pythons
    ]
    for _ in range(n):
        for python, parts, paused in zip(pythons, got, pause, strict=True):
            args = [python, "-c", PHASES_SCRIPT, rite, *(["pause-gc"] if paused else [])]
            out = subprocess.run(args, check=True, capture_output=True, env=env).stdout
            for k, v in json.loads(out).items():
                parts.setdefault(k, []).append(v)
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rite", default="xiangshe")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--repeat-big", type=int, default=1, help="runs of 1000 衆耦 (API)")
    ap.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    ap.add_argument("--phases", type=int, default=0, metavar="N", help="the start, part by part")
    ap.add_argument("--vs", metavar="PYTHON", help="--phases: also in this interpreter")
    args = ap.parse_args()
    if args.phases:
        pythons = [sys.executable, *([args.vs] if args.vs else [])]
        load = os.getloadavg()[0]
        got = phases(pythons, args.rite, args.phases)
        print(
            f"load average {load:.2f} → {os.getloadavg()[0]:.2f}; CPU ms, median (min–max) of "
            f"{args.phases}; {' | '.join(pythons)}"
        )
        for k in got[0]:
            if k == "pydantic imported":
                print(f"{k:>15}: {' | '.join(str(bool(g[k][0])) for g in got)}")
                continue
            cells = [
                f"{statistics.median(g[k]):6.1f} ({min(g[k]):.1f}–{max(g[k]):.1f})" for g in got
            ]
            print(f"{k:>15}: {' | '.join(cells)}")
        for g in got:
            g.pop("pydantic imported", None)
        totals = [[sum(x) for x in zip(*g.values(), strict=True)] for g in got]
        print(f"{'total':>15}: {' | '.join(f'{statistics.median(t):6.1f}' for t in totals)}")
        return

    run(args.rite, seed=1)  # warm the caches (text, plan) once, as a long-lived process would
    rows = []
    for n in PAIRS:
        rep = args.repeat_big if n >= 1000 else args.repeat
        med, cpu, steps = time_api(args.rite, n, rep)
        cli, mem = time_cli(args.rite, n)
        rows.append((n, steps, med, cpu, steps / cpu, mem, cli, rep))
        print(
            f"衆耦 {n:>4}: {steps:>7} steps, API median {med * 1000:8.1f} ms wall, "
            f"{cpu * 1000:8.1f} ms CPU ({steps / cpu:,.0f} steps/s, n={rep}), "
            f"CLI {cli:6.2f} s, peak {mem:6.1f} MiB",
            flush=True,
        )
    # linearity: the CPU cost of each added pair, from 0 to 100 and from 100 to 1000 pairs
    (n0, _, _, t0, *_), (n1, s1, _, t1, *_) = rows[0], rows[2]
    n2, s2, t2 = rows[3][0], rows[3][1], rows[3][3]
    per_pair_lo = (t1 - t0) / (n1 - n0) * 1000
    per_pair_hi = (t2 - t1) / (n2 - n1) * 1000
    steps_per_pair = (s2 - s1) / (n2 - n1)
    print(f"per 衆耦: {per_pair_lo:.2f} ms (0→100), {per_pair_hi:.2f} ms (100→1000)")

    lines = [
        "## Rite run",
        "",
        f"`{' '.join(['bench/bench_run.py', *sys.argv[1:]])}` — `sheli run {args.rite} "
        "--pairs N --seed 1` (the whole run: spec loading and checks, interpretation, event log).",
        "",
        f"Machine: {machine()}; load average at the start {os.getloadavg()[0]:.2f} (the "
        "machine was shared with other work: wall times vary, CPU times much less).",
        "",
        "| 衆耦 | steps | API median, wall | API median, CPU | steps/s (CPU) "
        "| CLI, one run (new process) | CLI peak memory (resident) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, steps, med, cpu, sps, mem, cli, rep in rows:
        lines.append(
            f"| {n} | {steps:,} | {med * 1000:,.1f} ms (n={rep}) | {cpu * 1000:,.1f} ms "
            f"| {sps:,.0f} | {cli:.2f} s | {mem:.1f} MiB |"
        )
    lines += [
        "",
        f"Each 衆耦 adds {steps_per_pair:.0f} steps (varying a little with the count: the 數獲 "
        "lays the 筭 純 by 純, xiangshe:194–200) and "
        f"{per_pair_lo:.2f} ms of CPU between 0 and 100 衆耦, {per_pair_hi:.2f} ms between 100 "
        f"and 1000 ({per_pair_hi / per_pair_lo:.1f} times as much: "
        + (
            "within the noise of a shared machine, the cost linear in pairs"
            if per_pair_hi / per_pair_lo < 1.3
            else "each walk is checked for the bodies near it, and past the crowd the model "
            "walks round (docs/place.md, Walks) the crowd is looked at for every walk"
        )
        + "). Target: 100 衆耦 in under one second: "
        f"{rows[2][3] * 1000:.0f} ms of CPU ({'met' if rows[2][3] < 1 else 'NOT met'}), "
        f"{rows[2][2] * 1000:.0f} ms wall ({'met' if rows[2][2] < 1 else 'not met'} on the "
        "machine as loaded then; on an idle machine wall ≈ CPU). The CLI columns include "
        "interpreter start-up, imports, the spec from its cache and writing the JSON Lines "
        "to /dev/null, with the walks checked in a process of their own beside the run "
        'where there is a CPU to spare, as the command does (docs/architecture.md, "The '
        "walks checked apart\"; the API columns check them in line, the library's default); "
        "the peak memory is the larger process's resident set at its largest: the "
        "interpreter and the code (some 35 MiB), then what the run holds, which grows with "
        "the 衆耦 (the command writes each line as it is made and keeps none of them).",
        "",
    ]
    print("\n".join(lines))
    if args.write:
        write_section(ROOT / "docs" / "benchmarks.md", "Rite run", "\n".join(lines))


if __name__ == "__main__":
    main()

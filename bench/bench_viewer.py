"""The viewer (``sheli render``'s index.html) in Debian's chromium: time to the first
diagram, the browser's memory, and the step handler's time to the next frame against a
floor (an empty requestAnimationFrame loop), for rendered directories given on the command
line, their runs alternated so that the machine's load falls on each alike.

    python bench/bench_viewer.py old=/tmp/base-default new=/tmp/out --runs 3 --steps 200

Each run launches a fresh browser (``/usr/bin/chromium``; no browser is downloaded) and
opens ``index.html`` from ``file://``. Measured:

- **first diagram**: ms from the start of navigation to the first ``svg`` put into
  ``#stage`` (a MutationObserver set before the page's own script runs), by the page's
  parser or by its script; **first frame**: to the next animation frame after it (the
  diagram painted); **ready**: to the viewer's ``data-ready`` (its script has run, the
  keys step);
- **JS heap**: ``Runtime.getHeapUsage`` (used, plus the embedder's and the backing stores'
  where the browser reports them: ArrayBuffers and external strings), after the viewer is
  ready and a garbage collection (``HeapProfiler.collectGarbage``);
- **renderer RSS**: the anonymous resident memory (RssAnon, ``/proc``) of the page's renderer, the
  browser's memory that the page costs: JS heap, external strings, DOM, the page's source;
- **step p95**: from the start of a frame, a step (→, as the keyboard sends it) and the
  wait for the next frame, ``--steps`` times; the **floor** is the same loop with no step.

Prints a Markdown table of medians (with ``--write``, into docs/benchmarks.md, section
"The viewer in the browser"), with the load (``os.getloadavg``) before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

from _common import machine, write_section

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--enable-precise-memory-info",
]
ROOT = Path(__file__).resolve().parents[1]

# set before the page's script: when the first diagram goes into #stage
FIRST_SVG = """
window.__firstSvg = null;
window.__firstFrame = null;
window.__ready = null;
new MutationObserver((_, obs) => {
  const st = document.getElementById("stage");
  if (st && st.querySelector("svg") && window.__firstSvg == null) {
    window.__firstSvg = performance.now();
    requestAnimationFrame(() => (window.__firstFrame = performance.now()));
  }
  if (document.body && document.body.dataset.ready === "1" && window.__ready == null) {
    window.__ready = performance.now();
  }
  if (window.__firstSvg != null && window.__ready != null) obs.disconnect();
}).observe(document, { childList: true, subtree: true, attributes: true });
"""

# ms from the start of a frame to the next, n times, stepping (→) in each or not
FRAMES = """
async ([n, step]) => {
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const out = [];
  await frame();
  for (let k = 0; k < n; k++) {
    const t0 = await frame();
    if (step) document.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight" }));
    const t1 = await frame();
    out.push(t1 - t0);
  }
  return out;
}
"""


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(d.name))
    return kids


def renderer_rss() -> int:
    """Bytes resident in the renderer processes launched under this one (this benchmark
    opens one page at a time, so they are its page's)."""
    kids = _children()
    todo, total = [os.getpid()], 0
    while todo:
        pid = todo.pop()
        todo.extend(kids.get(pid, []))
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            if b"--type=renderer" not in cmd:
                continue
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("RssAnon:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def p95(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=20)[-1] if len(xs) > 1 else xs[0]


def one_run(pw: Any, index: Path, steps: int) -> dict[str, float]:
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
    try:
        ctx = browser.new_context(viewport={"width": 1280, "height": 860})
        ctx.route(
            "**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort()
        )
        ctx.add_init_script(FIRST_SVG)
        page = ctx.new_page()
        page.goto(index.as_uri(), timeout=180_000)
        page.wait_for_selector("body[data-ready='1']", timeout=180_000)
        page.wait_for_function(
            "window.__firstSvg != null && window.__firstFrame != null && window.__ready != null",
            timeout=180_000,
        )
        first, frame, ready = page.evaluate(
            "[window.__firstSvg, window.__firstFrame, window.__ready]"
        )
        cdp = ctx.new_cdp_session(page)
        cdp.send("HeapProfiler.collectGarbage")
        time.sleep(0.5)
        heap = cdp.send("Runtime.getHeapUsage")
        js = sum(heap.get(k, 0) for k in ("usedSize", "embedderHeapUsedSize", "backingStorageSize"))
        rss = renderer_rss()
        floor = page.evaluate(FRAMES, [steps, False])
        stepped = page.evaluate(FRAMES, [steps, True])
        return {
            "first": first,
            "frame": frame,
            "ready": ready,
            "js": js / 2**20,
            "rss": rss / 2**20,
            "floor": p95(floor),
            "step": p95(stepped),
        }
    finally:
        browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "dirs",
        nargs="*",
        help="NAME=DIR, DIR a `sheli render` output (none: the default run, rendered here)",
    )
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--write", action="store_true", help="write docs/benchmarks.md")
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright

    if not a.dirs:
        import subprocess
        import tempfile

        out = Path(tempfile.mkdtemp(prefix="bench-viewer-")) / "default"
        subprocess.run(["sheli", "render", "xiangshe", "--no-svg", "-o", str(out)], check=True)
        a.dirs = [f"default={out}"]
    named = [(d.split("=", 1) if "=" in d else (Path(d).name, d)) for d in a.dirs]
    got: dict[str, list[dict[str, float]]] = {n: [] for n, _ in named}
    load0 = os.getloadavg()
    with sync_playwright() as pw:
        for r in range(a.runs):
            for name, d in named:
                m = one_run(pw, Path(d) / "index.html", a.steps)
                print(f"run {r + 1} {name}: " + ", ".join(f"{k} {v:.1f}" for k, v in m.items()))
                got[name].append(m)
    load1 = os.getloadavg()
    rows = [
        "| viewer | index.html | first diagram (ms) | first frame (ms) | ready (ms) "
        "| JS heap (MB) | renderer RSS (MB) | step p95 (ms) | floor p95 (ms) "
        "| step − floor (ms) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, d in named:
        med = {k: statistics.median(m[k] for m in got[name]) for k in got[name][0]}
        size = (Path(d) / "index.html").stat().st_size / 1e6
        rows.append(
            f"| {name} | {size:.1f} MB | {med['first']:.0f} | {med['frame']:.0f} "
            f"| {med['ready']:.0f} | {med['js']:.0f} | {med['rss']:.0f} "
            f"| {med['step']:.1f} | {med['floor']:.1f} | {med['step'] - med['floor']:+.1f} |"
        )
    table = "\n".join(rows)
    print(table)
    if a.write:
        section = (
            "## The viewer in the browser\n\n"
            f"`bench/bench_viewer.py`, medians of {a.runs} runs alternated, {a.steps} steps "
            f"each; {machine()}, Debian's chromium headless; load {load0[0]:.1f} before, "
            f"{load1[0]:.1f} after (the machine is shared with other work).\n\n{table}\n"
        )
        write_section(ROOT / "docs" / "benchmarks.md", "The viewer in the browser", section)


if __name__ == "__main__":
    main()

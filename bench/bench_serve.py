"""Load benchmark of ``sheli serve``: 200 audience screens and scorers recording arrows.

    .venv/bin/python bench/bench_serve.py [--clients 200] [--arrows 50] [--runs 3] [--write]

Loopback only and bounded: each run starts ``sheli serve`` in a subprocess on a free port of
127.0.0.1 with a fresh database, creates an event (三耦, no guests), opens ``--clients``
event streams (``/api/stream``, asyncio + httpx), then the two scorers post ``--arrows``
arrows one after another. For each arrow it measures the time from the moment the POST is
sent to the moment the last of the streams has received the state with the version the POST
was acknowledged with. Arrows alternate hits and misses in a fixed pattern (about one in
three hits): a hit changes the run, so the server re-runs the engine before publishing; a
miss does not (an unrecorded arrow is already a miss), and only the shots' marks change.
Reports the median and p99 per run, and the median of the runs; ``--write`` puts them under
``## Live app`` in docs/benchmarks.md (other sections are kept).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from _common import machine, write_section  # noqa: E402

from sheli.serve.process import free_port, wait_until_serving  # noqa: E402

VERSION = re.compile(rb'"version":\s*(\d+)')
PAIRS = ("上耦", "次耦", "下耦")


def start_server(db: Path, port: int, ahead: bool = True) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), SHELI_SERVE_AHEAD="1" if ahead else "0")
    cmd = [sys.executable, "-m", "sheli", "serve", "--port", str(port), "--db", str(db)]
    if os.environ.get("BENCH_PROFILE"):  # the server under cProfile, stopped by SIGINT
        cmd[1:1] = ["-m", "cProfile", "-o", os.environ["BENCH_PROFILE"]]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        wait_until_serving(proc, f"http://127.0.0.1:{port}/", 120)
    except RuntimeError as exc:
        raise SystemExit(str(exc)) from None
    return proc


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by a process, from /proc (0 if unreadable)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, IndexError, ValueError):
                continue
    return out


def csrf_of(page: str) -> str:
    return re.search(r'data-csrf="([^"]*)"', page).group(1)


class Screens:
    """The open streams and, per state version, how many have it and when the last got it."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.have: dict[int, int] = {}
        self.first_at: dict[int, float] = {}
        self.last_at: dict[int, float] = {}
        self.connected = 0
        self.events: dict[int, asyncio.Event] = {}

    def got(self, version: int) -> None:
        c = self.have.get(version, 0) + 1
        self.have[version] = c
        if c == 1:
            self.first_at[version] = time.perf_counter()
        if c == self.n:
            self.last_at[version] = time.perf_counter()
            ev = self.events.get(version)
            if ev is not None:
                ev.set()

    def wait_for(self, version: int) -> asyncio.Event:
        ev = self.events.setdefault(version, asyncio.Event())
        if self.have.get(version, 0) >= self.n:
            ev.set()
        return ev


class Screen(asyncio.Protocol):
    """One audience screen: a minimal HTTP/1.1 client reading the event stream, as an
    asyncio protocol (a browser parses the stream natively; a task per screen, or httpx's
    per-chunk parsing, would cost the screens' process more than the server's own writes,
    on the same 2 CPUs). The chunked framing is skipped over: only the states' versions are
    looked for."""

    def __init__(self, port: int, token: str, screens: Screens, done: asyncio.Future) -> None:
        self.request = (
            f"GET /api/stream?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Accept: text/event-stream\r\n\r\n"
        ).encode()
        self.screens = screens
        self.done = done
        self.buf = b""
        self.head = True
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        buf = self.buf + data
        if self.head:
            i = buf.find(b"\r\n\r\n")
            if i < 0:
                self.buf = buf
                return
            if b" 200 " not in buf.split(b"\r\n", 1)[0]:
                if not self.done.done():
                    self.done.set_exception(RuntimeError(buf[:i].decode(errors="replace")))
                return
            self.head = False
            self.screens.connected += 1
            buf = buf[i + 4 :]
        while True:
            i = buf.find(b"\nevent: state\ndata: ")
            if i < 0:
                break
            end = buf.find(b"\n\n", i + 20)
            if end < 0:
                break
            m = VERSION.search(buf, i + 20, i + 60)
            if m:
                self.screens.got(int(m.group(1)))
            buf = buf[end + 2 :]
        self.buf = buf

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def screen(port: int, token: str, screens: Screens) -> None:
    """One audience screen, open until the task is cancelled or the server closes it."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future = loop.create_future()
    transport, _ = await loop.create_connection(
        lambda: Screen(port, token, screens, done), "127.0.0.1", port
    )
    try:
        await done
    finally:
        transport.close()


def arrow_plan(n: int, hits: bool = True) -> list[tuple[int, str, str, int, bool]]:
    """The arrows posted: rounds 2, 3, 1 in order; every third a hit (none if not ``hits``)."""
    out = []
    k = 0
    for rnd in (2, 3, 1):
        for pair in PAIRS:
            for a in range(1, 5):
                for seat in ("上射", "下射"):
                    out.append((rnd, pair, seat, a, hits and k % 3 == 0))
                    k += 1
    return out[:n]


async def sleeper(port: int, token: str) -> socket.socket:
    """A performer's phone asleep: its stream open, nothing read (a small receive buffer)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.setblocking(False)
    await asyncio.get_running_loop().sock_connect(s, ("127.0.0.1", port))
    req = f"GET /api/stream?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n"
    await asyncio.get_running_loop().sock_sendall(s, req.encode())
    return s


async def flood(base: str, counts: dict[str, int]) -> None:
    """The home page used as a weapon: 30-pair events created in a loop from one client."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as c:
        form = csrf_of((await c.get("/")).text)
        body = {"rite": "xiangshe", "pairs": 30, "guests_shoot": True, "feast": True}
        while True:
            r = await c.post("/api/events", json=body, headers={"X-CSRF-Token": form})
            counts[str(r.status_code)] = counts.get(str(r.status_code), 0) + 1
            if r.status_code == 429:
                await asyncio.sleep(0.05)


async def one_run(
    clients: int,
    arrows: int,
    interval: float,
    ahead: bool = True,
    hits: bool = True,
    sleepers: int = 0,
    flooding: bool = False,
) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        proc = start_server(Path(tmp) / "bench.sqlite3", port, ahead)
        base = f"http://127.0.0.1:{port}"
        try:
            async with httpx.AsyncClient(base_url=base, timeout=60) as c:
                form = csrf_of((await c.get("/")).text)
                r = await c.post(
                    "/api/events",
                    json={"rite": "xiangshe", "pairs": 0, "guests_shoot": False, "feast": False},
                    headers={"X-CSRF-Token": form},
                )
                links = r.json()["links"]
                audience = links["audience"].rsplit("/", 1)[-1]
                perf = [u.rsplit("/", 1)[-1] for u in links["performers"].values()]
                scorer = {}
                for seat, link in links["scorers"].items():
                    page = (await c.get(link)).text
                    scorer[seat] = {
                        "Authorization": f"Bearer {link.rsplit('/', 1)[-1]}",
                        "X-CSRF-Token": csrf_of(page),
                    }
            screens = Screens(clients)
            if True:
                tasks = [
                    asyncio.create_task(screen(port, audience, screens)) for _ in range(clients)
                ]
                await asyncio.wait_for(screens.wait_for(0).wait(), 120)  # all have the state
                asleep = [await sleeper(port, perf[k % len(perf)]) for k in range(sleepers)]
                counts: dict[str, int] = {}
                flooder = asyncio.create_task(flood(base, counts)) if flooding else None
                await asyncio.sleep(3)  # as before a real event's first arrow: the worker warms
                # this one process stands for 1000 screens, which in a hall do not pause for a
                # garbage collection all at once: its collector stays out of the measurement
                gc.collect()
                gc.freeze()
                gc.disable()
                workers = children(proc.pid)
                cpu0 = (cpu_s(proc.pid), sum(map(cpu_s, workers)), time.process_time())
                out: dict[str, list[float]] = {
                    "hit": [],
                    "miss": [],
                    "ack": [],
                    "first": [],
                    "all": [],
                    "kind": [],
                }
                async with httpx.AsyncClient(base_url=base, timeout=60) as poster:
                    for i, (rnd, pair, seat, a, hit) in enumerate(arrow_plan(arrows, hits)):
                        await asyncio.sleep(interval)
                        body = {"round": rnd, "pair": pair, "seat": seat, "arrow": a, "hit": hit}
                        body["on_beat"] = True if rnd == 3 else None
                        t0 = time.perf_counter()
                        r = await poster.post(
                            "/api/arrows", json={**body, "key": f"b{i}"}, headers=scorer[seat]
                        )
                        t_ack = time.perf_counter()
                        assert r.status_code == 201, r.text
                        v = r.json()["version"]
                        await asyncio.wait_for(screens.wait_for(v).wait(), 60)
                        out["hit" if hit else "miss"].append(screens.last_at[v] - t0)
                        out["ack"].append(t_ack - t0)
                        out["all"].append(screens.last_at[v] - t0)
                        out["first"].append(screens.first_at[v] - t0)
                        out["kind"].append(float(hit))
                cpu1 = (cpu_s(proc.pid), sum(map(cpu_s, workers)), time.process_time())
                gc.enable()
                gc.unfreeze()
                if flooder is not None:
                    flooder.cancel()
                    await asyncio.gather(flooder, return_exceptions=True)
                    print(f"  creation flood: {counts}", file=sys.stderr)
                    out["flood"] = [float(counts.get("201", 0)), float(sum(counts.values()))]
                for s_ in asleep:
                    s_.close()
                n = len(out["all"])
                out["cpu_server"] = [(cpu1[0] - cpu0[0]) / n]
                out["cpu_worker"] = [(cpu1[1] - cpu0[1]) / n]
                out["cpu_client"] = [(cpu1[2] - cpu0[2]) / n]
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            return out
        finally:
            if os.environ.get("BENCH_PROFILE"):
                proc.send_signal(signal.SIGINT)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
            proc.kill()
            proc.wait()


def p99(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(0.99 * len(xs)) - 1))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=200)
    ap.add_argument("--arrows", type=int, default=50)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument(
        "--interval",
        type=float,
        default=1.0,
        help="seconds between one arrow's update reaching every screen and the next POST",
    )
    ap.add_argument("--no-ahead", action="store_true", help="SHELI_SERVE_AHEAD=0 (no runs ahead)")
    ap.add_argument(
        "--sleepers", type=int, default=0, help="performers' streams open and never read (0–100)"
    )
    ap.add_argument(
        "--flood", action="store_true", help="a client creating 30-pair events in a loop"
    )
    ap.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = ap.parse_args()
    if not 1 <= args.clients <= 1000 or not 1 <= args.arrows <= 72 or not 1 <= args.runs <= 10:
        raise SystemExit("bounded: --clients 1–1000, --arrows 1–72, --runs 1–10")
    load0 = os.getloadavg()[0]
    runs = []
    for k in range(args.runs):
        res = asyncio.run(
            one_run(
                args.clients,
                args.arrows,
                args.interval,
                not args.no_ahead,
                sleepers=min(100, max(0, args.sleepers)),
                flooding=args.flood,
            )
        )
        every = res["hit"] + res["miss"]
        if os.environ.get("BENCH_VERBOSE"):
            print("all (ms):", [round(x * 1000) for x in res["all"]])
        row = {
            "median": statistics.median(every) * 1000,
            "p99": p99(every) * 1000,
            "hit_median": statistics.median(res["hit"]) * 1000 if res["hit"] else float("nan"),
            "miss_median": statistics.median(res["miss"]) * 1000 if res["miss"] else float("nan"),
            "max": max(every) * 1000,
            "n": len(every),
            "ack": statistics.median(res["ack"]) * 1000,
            "cpu_server": res["cpu_server"][0] * 1000,
            "cpu_worker": res["cpu_worker"][0] * 1000,
            "cpu_client": res["cpu_client"][0] * 1000,
            "first": statistics.median(res["first"]) * 1000,
            "hits": len(res["hit"]),
        }
        if "flood" in res:
            row["flood_ok"], row["flood_all"] = res["flood"]
        runs.append(row)
        print(
            f"run {k + 1}: {row['n']} arrows ({row['hits']} hits) to {args.clients} screens: "
            f"median {row['median']:.1f} ms, p99 {row['p99']:.1f} ms, max {row['max']:.1f} ms; "
            f"hits {row['hit_median']:.1f} ms, misses {row['miss_median']:.1f} ms (medians); "
            f"acknowledged {row['ack']:.1f} ms, first screen {row['first']:.1f} ms (medians); "
            f"CPU per arrow: server {row['cpu_server']:.1f} ms, worker {row['cpu_worker']:.1f} ms, "
            f"screens {row['cpu_client']:.1f} ms",
            flush=True,
        )
        order = res["all"]  # in the order sent, unlike every
        slow = max(range(len(order)), key=order.__getitem__)
        print(
            f"  slowest: arrow {slow + 1} ({'hit' if res['kind'][slow] else 'miss'}), "
            f"acknowledged {res['ack'][slow] * 1000:.1f} ms, first screen "
            f"{res['first'][slow] * 1000:.1f} ms, last {order[slow] * 1000:.1f} ms",
            file=sys.stderr,
            flush=True,
        )
    loaded = bool(args.sleepers or args.flood)
    # where the time goes: misses only (no engine run anywhere), to 1 screen and to all
    parts = {}
    for n in () if loaded else (1, args.clients):
        res = asyncio.run(one_run(n, 30, 0.3, ahead=False, hits=False))
        parts[n] = (
            statistics.median(res["all"]) * 1000,
            res["cpu_server"][0] * 1000,
            res["cpu_client"][0] * 1000,
        )
        print(
            f"misses only, {n} screens: median {parts[n][0]:.1f} ms, CPU/arrow server "
            f"{parts[n][1]:.1f} ms, screens {parts[n][2]:.1f} ms",
            flush=True,
        )
    load1 = os.getloadavg()[0]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    ok = med["p99"] < 100
    title = "Live app beside sleeping phones and a creation flood" if loaded else "Live app"
    beside = []
    if args.sleepers:
        beside.append(
            f"{args.sleepers} performers' streams open and never read (a 4 KB receive buffer: "
            "phones asleep on their connections)"
        )
    if args.flood:
        beside.append(
            "one client creating 30-pair events (鄉射禮 with the feast, guests shooting) from the "
            "home page in a loop, whatever the answer (429 past its rate)"
        )
    lines = [
        f"## {title}",
        "",
        f"`{' '.join(['bench/bench_serve.py', *sys.argv[1:]])}` — `sheli serve` in a "
        f"subprocess on 127.0.0.1 (uvicorn with httptools and uvloop, one process; its two "
        "worker processes: the engine's runs and event creation), "
        f"{args.clients} audience screens on the event stream (`/api/stream`: minimal "
        "HTTP/1.1 clients on asyncio streams, all in one client process), the two scorers "
        f"posting {runs[0]['n']} arrows one after another (httpx), about one in three a hit, "
        f"{args.interval:g} s between one arrow's update reaching every screen and the next "
        "POST (a real event has some 10 s between arrows). Latency: from sending the POST to "
        "the last of the screens having the state with the version the POST was acknowledged "
        "with (the write is committed and synced to disk before that: WAL, "
        "synchronous=FULL). The screens' process keeps its garbage collector paused while the "
        "arrows are measured: it stands for 1000 devices, which do not pause together."
        + (f" Beside them: {'; '.join(beside)}." if beside else ""),
        "",
        f"Machine: {machine()}; load average {load0:.2f} at the start, {load1:.2f} at the end "
        + (
            "(nothing else ran: the load is the benchmark's own server, worker and screens)."
            if load0 < 1.0
            else "(**the machine was shared with other sessions' tests and builds while this "
            "ran**: with a load above its 2 CPUs, the server, its worker and the screens' "
            "process wait for a CPU, and the latencies below are mostly that wait; the CPU "
            "columns are what each arrow cost, which the load does not change much)."
        ),
        "",
        "| run | arrows (hits) | median | p99 | max | median, hits | median, misses "
        "| CPU/arrow: server | worker | screens |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k, r in enumerate(runs, 1):
        lines.append(
            f"| {k} | {r['n']} ({r['hits']}) | {r['median']:.1f} ms | {r['p99']:.1f} ms "
            f"| {r['max']:.1f} ms | {r['hit_median']:.1f} ms | {r['miss_median']:.1f} ms "
            f"| {r['cpu_server']:.1f} ms | {r['cpu_worker']:.1f} ms | {r['cpu_client']:.1f} ms |"
        )
    lines += [
        f"| **median of {len(runs)}** | | **{med['median']:.1f} ms** | **{med['p99']:.1f} ms** "
        f"| {med['max']:.1f} ms | {med['hit_median']:.1f} ms | {med['miss_median']:.1f} ms "
        f"| {med['cpu_server']:.1f} ms | {med['cpu_worker']:.1f} ms "
        f"| {med['cpu_client']:.1f} ms |",
        "",
        f"Target p99 < 100 ms: **{'met' if ok else 'NOT met'}** (median of the runs' p99) "
        "on the machine as it was loaded then. What an update costs: a hit needs a new run of "
        "the engine (the whole rite, about 2,000 steps for the 三耦); the worker computes it "
        "ahead, while the previous arrow is being looked at, for the likeliest next arrow "
        "(the partner's, 拾發), so the server only takes the finished run; a miss, an "
        "advance, a tap need none. Each run computed ahead comes back to the server as a "
        "whole run (a few ms to unpickle, in a background thread), frozen out of the "
        "server's garbage collector (a run holds no reference cycle: its reference counts "
        "free it), so that a full collection no longer scans the runs held (50–140 ms each "
        "time before); the whole heap is swept 0.5 s after a state is sent, at most every "
        "30 s (docs/serve.md). The server then encodes "
        f"the state once per view and offers it to each of the {args.clients} streams (a "
        "stream not yet written gets the newer state instead).",
        "",
    ]
    if "flood_ok" in runs[0]:
        lines += [
            "Creations during the runs (201 of all sent): "
            + ", ".join(f"{int(r['flood_ok'])} of {int(r['flood_all'])}" for r in runs)
            + ".",
            "",
        ]
    if parts:
        lines += [
            "Where the time goes (30 misses, no engine run anywhere, 0.3 s apart): to 1 screen "
            f"median {parts[1][0]:.1f} ms with {parts[1][1]:.1f} ms of server CPU per arrow (the "
            "POST: checks, the append synced to disk, the state); to "
            f"{args.clients} screens median {parts[args.clients][0]:.1f} ms, "
            f"{parts[args.clients][1]:.1f} ms of server CPU per arrow and "
            f"{parts[args.clients][2]:.1f} ms in the screens' process: the writes to and reads "
            "of the streams, both in Python, on the same 2 CPUs.",
            "",
        ]
    print("\n".join(lines))
    if args.write:
        write_section(ROOT / "docs" / "benchmarks.md", title, "\n".join(lines))


if __name__ == "__main__":
    main()

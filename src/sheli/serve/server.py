"""The live app's server in memory: the store, the events being served, the worker processes
that run the engine off the event loop, and the publishing of each new state to the event's
streams (:mod:`sheli.serve.streams`, the fan-out, is the server's base).

After an input the state is published once the run for it is ready (:meth:`Server.ready`: from
the runs computed ahead in the worker, else computed there now); the worker then starts the
runs the next likely inputs need (:meth:`Server.ahead`), and the heap is swept between arrows.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from pathlib import Path
from typing import Any

import jinja2

from sheli import collector
from sheli.engine import run as engine_run
from sheli.forked import FORK
from sheli.serve.errors import ApiError
from sheli.serve.limits import CREATE_QUEUE, VOTE_BURST, VOTE_EVERY_S, RateLimit
from sheli.serve.live import (
    Derived,
    LiveEvent,
    compute_derived_pickled,
    plan_shots,
    unpickle_derived,
)
from sheli.serve.store import DatabaseLock, Store
from sheli.serve.streams import Streams

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
log = logging.getLogger("sheli.serve")

#: seconds after a state is written to its streams before the worker starts the runs for the
#: next likely inputs: the screens take the state first, the worker's run (about 0.1 s of a
#: CPU) comes after, long before the next arrow (some 10 s away at an event)
AHEAD_AFTER_S = 0.1
#: seconds after a state is sent, with no other sent meanwhile, before the whole heap is swept
#: (a full collection, some 60 ms): past the screens' update and the runs ahead, well before
#: the next arrow; at most once every SWEEP_EVERY_S
SWEEP_QUIET_S = 0.5
SWEEP_EVERY_S = 30.0


def _worker_init(parent: int, nice: int, lock_fd: int | None) -> None:
    """In a worker: leave as soon as the server process is gone; take the given niceness;
    hear no Ctrl-C nor SIGTERM (the server stops its workers itself, when it has finished
    what it acknowledged: a Ctrl-C at a terminal reaches the whole process group, and a
    worker interrupted would print a traceback); let go of the database's lock, which the
    server alone holds (docs/serve.md, "Stopping")."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if lock_fd is not None:
        os.close(lock_fd)  # the lock stays the server's: it is dropped with its last holder
    if nice:
        os.nice(nice)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _warm() -> None:
    """In a worker: one run of the default rite, so the first real job starts warm."""
    try:
        engine_run("xiangshe", seed=0)
    except Exception:  # a broken spec is reported when an event runs it
        pass


def _forget(pending: dict[Any, Future[bytes]], key: Any, _done: Future[bytes]) -> None:
    """A run computed (or cancelled) in the worker is no longer pending."""
    pending.pop(key, None)


def _pool(nice: int, lock: DatabaseLock | None) -> ProcessPoolExecutor:
    pool = ProcessPoolExecutor(
        max_workers=1,
        mp_context=FORK,
        initializer=_worker_init,
        initargs=(os.getpid(), nice, lock.fd if lock is not None else None),
    )
    pool.submit(int).result()  # start it now
    pool.submit(_warm)  # and warm its caches meanwhile (text, plan, spec)
    return pool


class Server(Streams):
    """The app's state: the store, the live events in memory, the workers and the open
    streams (:class:`~sheli.serve.streams.Streams`)."""

    def __init__(self, db_path: str | Path, keepalive_s: float = 15.0, ahead: bool = False) -> None:
        # one server per database: the lock first, so a second server is refused before it
        # starts anything (docs/serve.md, "Running it")
        self.lock = DatabaseLock(db_path) if str(db_path) != ":memory:" else None
        # the workers are forked now, before the database is opened and before the server
        # listens, so they hold neither (and they exit when this process dies, even by
        # kill -9). `runs` computes the engine runs of the event (at the server's priority: a
        # lower one starves it on a busy machine, and the server then waits for it); `maker`
        # creates events, at a lower one: the events under way come first.
        self.workers = ahead and os.environ.get("SHELI_SERVE_AHEAD", "1") != "0"
        self.runs: ProcessPoolExecutor | None = None
        self.maker: ProcessPoolExecutor | None = None
        try:
            if self.workers:
                self.runs = _pool(0, self.lock)
                self.maker = _pool(10, self.lock)
            self.store = Store(db_path)
        except BaseException:
            self._stop_workers(wait=False)
            if self.lock is not None:
                self.lock.release()
            raise
        super().__init__(keepalive_s)
        self.live: dict[str, LiveEvent] = {}
        self.publishing: dict[str, asyncio.Task[None]] = {}
        self.creations = RateLimit()
        self.voting = RateLimit(VOTE_BURST, VOTE_EVERY_S)
        self.creating = 0
        self.last_sent = 0.0  # when a state was last sent (time.monotonic)
        self.swept = 0.0  # when the heap was last swept
        self.jinja = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(TEMPLATES)),
            autoescape=True,  # every page escapes user-entered names
        )

    def close(self) -> None:
        self.close_streams()
        self._stop_workers(wait=True)
        self.store.close()
        if self.lock is not None:
            self.lock.release()

    def _stop_workers(self, wait: bool) -> None:
        pools, self.runs, self.maker = (self.runs, self.maker), None, None  # none after this
        for pool in pools:
            if pool is not None:
                pool.shutdown(wait=wait, cancel_futures=True)

    # ------------------------------------------------------------------ events
    def event(self, event_id: str) -> LiveEvent:
        ev = self.live.get(event_id)
        if ev is None:
            config = self.store.event(event_id)
            if config is None:
                raise ApiError(404, f"no event {event_id!r}")
            ev = LiveEvent(config, self.store.inputs(event_id))
            for question, _, answer in self.store.votes(event_id):
                ev.questions.count(question, answer)
            self.live[event_id] = ev
            self.ahead(ev)
        return ev

    async def in_worker(self, pool: ProcessPoolExecutor | None, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` in the worker ``pool`` (here, at once, when the app has none)."""
        if pool is None:
            return fn(*args)
        return await asyncio.wrap_future(pool.submit(fn, *args))

    async def ready(self, ev: LiveEvent) -> Derived:
        """The engine run for the event's recorded outcomes, computed in the worker (or
        taken from those computed ahead). After it returns the run is the event's current
        one until the next input: the caller's checks and writes that follow, without an
        ``await``, see one consistent state."""
        if not ev.has_plan():
            try:
                shots = await self.in_worker(self.runs, plan_shots, ev.config)
            except BrokenProcessPool:
                self.lost_worker()
                shots = plan_shots(ev.config)
            ev.set_plan(shots)
            self.ahead(ev)
        while True:
            outcomes = ev.outcomes()
            key = ev.run_key(outcomes)
            current = ev.run_for(key)
            if current is not None:
                return current
            if self.runs is None:
                return ev.derived()
            d = ev.ahead_runs.pop(key, None)
            if d is None:
                fut: Future[bytes] | None = ev.pending.get(key)
                if fut is None or fut.cancelled():
                    fut = self.runs.submit(
                        compute_derived_pickled, ev.config, ev.factor, ev.names, outcomes
                    )
                    ev.pending[key] = fut
                    fut.add_done_callback(partial(_forget, ev.pending, key))
                ev.wanted.add(key)
                try:
                    d = unpickle_derived(await asyncio.wrap_future(fut))
                except BrokenProcessPool:
                    self.lost_worker()
                    continue
                finally:
                    ev.wanted.discard(key)
            if ev.run_key(ev.outcomes()) == key:  # an input may have come meanwhile
                ev.use(key, d)
                return d
            ev.store_ahead(key, d)

    def lost_worker(self) -> None:
        """The run worker died (killed, out of memory): runs are computed here from now on,
        as with no worker, and the log says so."""
        log.error("sheli serve: the engine's worker process died; runs go on in the server")
        self.runs = None

    def ahead(self, ev: LiveEvent) -> None:
        """Start computing, in the worker, the runs the next likely inputs need. A worker
        *process*: a thread would hold the GIL for the whole run and stall the event loop's
        writes to every stream."""
        if self.runs is None or not ev.has_plan():
            return
        for key, fut in list(ev.pending.items()):
            if key not in ev.wanted and fut.cancel():  # not started: its base is out of date
                ev.pending.pop(key, None)
        for key, outcomes in ev.speculation_jobs():
            fut = self.runs.submit(
                compute_derived_pickled, ev.config, ev.factor, ev.names, outcomes
            )
            ev.pending[key] = fut

            def done(f: Any, key: Any = key) -> None:
                ev.pending.pop(key, None)
                if not f.cancelled() and f.exception() is None:
                    ev.store_ahead(key, unpickle_derived(f.result()))

            fut.add_done_callback(done)

    def publish(self, ev: LiveEvent) -> None:
        """After an input: send the new state to the event's streams, once the run for it is
        ready (one publisher per event; inputs that come meanwhile are sent together)."""
        ev.dirty = True
        task = self.publishing.get(ev.id)
        if task is None or task.done():
            self.publishing[ev.id] = asyncio.get_running_loop().create_task(self._publish(ev))

    async def _publish(self, ev: LiveEvent) -> None:
        try:
            while ev.dirty:
                ev.dirty = False
                await self.ready(ev)
                if ev.dirty:
                    continue
                subs = self.subs.get(ev.id)
                if subs:
                    self.send(ev, subs)
                self.last_sent = now = time.monotonic()
                loop = asyncio.get_running_loop()
                if now - self.swept >= SWEEP_EVERY_S:
                    loop.call_later(SWEEP_QUIET_S, self.sweep, now)
                loop.call_later(AHEAD_AFTER_S, self.ahead, ev)
        except Exception:  # a run that failed: the streams keep the last state they had
            log.exception("sheli serve: the state of event %s could not be derived", ev.id)

    def sweep(self, since: float) -> bool:
        """A full collection over everything, runs included, if no state has been sent since
        ``since`` (time.monotonic): what :func:`sheli.serve.live.unpickle_derived` froze
        beside a run and has since become cyclic garbage is given back here, between arrows,
        not while an arrow's state is on its way. Returns whether it swept.

        >>> srv = Server(":memory:")
        >>> srv.sweep(since=time.monotonic())
        True
        >>> srv.last_sent = time.monotonic()
        >>> srv.sweep(since=srv.last_sent - 1)
        False
        >>> srv.close()
        """
        if self.last_sent > since:
            return False  # another state went out meanwhile: its own sweep comes later
        collector.sweep()
        self.swept = time.monotonic()
        return True

    def render(self, name: str, **context: Any) -> str:
        return self.jinja.get_template(name).render(**context)

    def creation_slot(self, client: str) -> None:
        """Refuse a creation past the client's rate (429) or the worker's queue (503)."""
        wait = self.creations.take(client)
        if wait:
            raise ApiError(
                429,
                f"too many events created from this address: try again in {wait:g} s",
                headers={"Retry-After": str(max(1, round(wait)))},
            )
        if self.creating >= CREATE_QUEUE:
            self.shed(f"{self.creating} event creations waiting: refused with 503")
            raise ApiError(
                503, "the server is creating other events: try again", headers={"Retry-After": "5"}
            )

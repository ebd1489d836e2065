"""The live app's state in memory: the store, the events being served, their open streams,
and the worker processes that run the engine off the event loop.

A stream holds at most one message: the newest state for its view (:class:`Subscriber`).
A screen needs only the latest, so a newer state replaces one not yet written, and a phone
asleep on an open connection costs one message, whatever happens meanwhile. The messages
are per role (:data:`VIEW_FIELDS`): the audience and the performers get the few fields
their pages draw; a performer's cues are fetched from ``/api/cues`` when they change
(``cues_rev``), not sent with every state.

>>> sub = Subscriber({"id": 1, "role": "audience"})
>>> sub.offer(b"one"); sub.offer(b"two"); sub.keepalive()
>>> sub.latest  # the newest only: "one" was never written, and is gone
b'two'

Most states go straight onto the stream's socket (:meth:`Subscriber.write`), without waking
the stream's task: with a thousand screens open, waking a thousand tasks per state cost more
than the writes themselves. A socket whose client does not keep up (more than
:data:`WRITE_BUFFER` bytes not yet taken by the kernel) gets its states through the task, one
at a time, the newest only, as above.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
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
from sheli.serve.store import DatabaseLock, Store, now_ms

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
log = logging.getLogger("sheli.serve")

#: the fields of the state each role's stream carries (None: all but the cues)
VIEW_FIELDS: dict[str, tuple[str, ...] | None] = {
    "director": None,
    "scorer": None,
    "audience": (
        "version", "server_ms", "event", "step", "round", "tally", "announcements", "drinks",
        "drum", "passage", "stopped", "last_step", "marks", "question",
    ),
    "performer": ("version", "server_ms", "event", "step", "round", "drum", "last_step"),
}  # fmt: skip
#: open streams one link may hold: a phone that reconnects leaves its old stream behind until
#: the server notices; past the cap the oldest is closed. The audience link is one for every
#: screen of the hall, so it has no cap of its own (the connection cap holds).
STREAMS_PER_LINK = 4
KEEPALIVE = b"event: ping\ndata: {}\n\n"
#: bytes a stream's socket may hold unsent before its states go through its task (which
#: waits for the client) instead of straight onto the socket: a few states, far below the
#: transport's own pause mark (64 KiB), so the two paths never both hold a state
WRITE_BUFFER = 16 * 1024
#: seconds after a state is written to its streams before the worker starts the runs for the
#: next likely inputs: the screens take the state first, the worker's run (about 0.1 s of a
#: CPU) comes after, long before the next arrow (some 10 s away at an event)
AHEAD_AFTER_S = 0.1
#: seconds after a state is sent, with no other sent meanwhile, before the whole heap is swept
#: (a full collection, some 60 ms): past the screens' update and the runs ahead, well before
#: the next arrow; at most once every SWEEP_EVERY_S
SWEEP_QUIET_S = 0.5
SWEEP_EVERY_S = 30.0


def chunk(msg: bytes) -> bytes:
    """``msg`` as one chunk of a chunked HTTP/1.1 body (how the server frames a stream).

    >>> chunk(b"data: 1\\n\\n")
    b'9\\r\\ndata: 1\\n\\n\\r\\n'
    """
    return b"%x\r\n%s\r\n" % (len(msg), msg)


@dataclass(eq=False)  # hashed by identity: one per open stream
class Subscriber:
    """One open event stream: its token and the newest message not yet written to it."""

    token: dict[str, Any]
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    latest: bytes | None = None
    ping: bool = False
    closed: bool = False
    opened: float = field(default_factory=time.monotonic)
    #: the connection's socket, once the stream's headers are written (None: the task only)
    transport: Any = None
    #: the task is writing a message (it may be waiting for the client to read)
    sending: bool = False

    def write(self, msg: bytes, framed: bytes) -> None:
        """The newest state, onto the socket at once if nothing is before it there and the
        client keeps up, else through the task (:meth:`offer`). ``framed``: ``msg`` as a
        chunk (:func:`chunk`), made once for every stream of one view."""
        t = self.transport
        if (
            t is None
            or self.sending
            or self.latest is not None
            or self.closed
            or t.is_closing()
            or t.get_write_buffer_size() > WRITE_BUFFER
        ):
            self.offer(msg)
        else:
            t.write(framed)

    def offer(self, msg: bytes) -> None:
        """The newest state for this stream (it replaces one not yet written)."""
        self.latest = msg
        self.wake.set()

    def keepalive(self) -> None:
        self.ping = True
        self.wake.set()

    def close(self) -> None:
        self.closed = True
        self.wake.set()

    async def next(self) -> bytes | None:
        """The next message to write (None: the stream ends)."""
        while True:
            if self.closed:
                return None
            if self.latest is not None:
                msg, self.latest, self.ping = self.latest, None, False
                return msg
            if self.ping:
                self.ping = False
                return KEEPALIVE
            self.wake.clear()
            await self.wake.wait()


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


class Server:
    """The app's state: the store, the live events in memory and the open streams."""

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
        self.keepalive_s = keepalive_s
        self.live: dict[str, LiveEvent] = {}
        self.subs: dict[str, set[Subscriber]] = {}
        self.publishing: dict[str, asyncio.Task[None]] = {}
        self.creations = RateLimit()
        self.voting = RateLimit(VOTE_BURST, VOTE_EVERY_S)
        # events whose director has new answers to be sent: the task that will send them
        self.tallying: dict[str, asyncio.Task[None]] = {}
        self.creating = 0
        self.stopping = False  # the server is stopping (SIGINT, SIGTERM): see close_streams
        self.shed_logged = 0.0
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

    def close_streams(self) -> int:
        """The server is stopping: end every open stream; returns how many were open. A
        stream whose screen is not reading (a phone asleep: its socket holds states not yet
        taken) could not take its end either, and would hold the stop up: its connection is
        dropped at once (a state is a view, not an input: nothing acknowledged is lost)."""
        self.stopping = True
        n = 0
        for subs in self.subs.values():
            for sub in subs:
                n += not sub.closed
                t = sub.transport
                if t is not None and (sub.sending or t.get_write_buffer_size() > 0):
                    t.abort()
                sub.close()
        return n

    def _stop_workers(self, wait: bool) -> None:
        pools, self.runs, self.maker = (self.runs, self.maker), None, None  # none after this
        for pool in pools:
            if pool is not None:
                pool.shutdown(wait=wait, cancel_futures=True)

    def shed(self, what: str) -> None:
        """Say in the log that load is being shed (at most once every 10 s)."""
        t = time.monotonic()
        if t - self.shed_logged >= 10:
            self.shed_logged = t
            log.warning("sheli serve: shedding load: %s", what)

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

    # ------------------------------------------------------------------ views and streams
    def view(
        self, ev: LiveEvent, tok: dict[str, Any], base: dict[str, Any], stream: bool = False
    ) -> dict[str, Any]:
        """The state as one token's view sees it: the role's fields (on a stream) and for a
        performer his cues (on a GET) or their revision (on a stream)."""
        fields = VIEW_FIELDS.get(tok["role"]) if stream else None
        out = dict(base) if fields is None else {k: base[k] for k in fields if k in base}
        out["role"] = tok["role"]
        out["seat"] = tok.get("seat")
        out["performer_role"] = tok.get("performer_role")
        out["now_ms"] = base["server_ms"]
        if tok["role"] in ("audience", "performer"):
            out.pop("wuwu", None)  # the totals are the director's: a screen answers unswayed
        if tok["role"] == "performer":
            out["cues_rev"] = ev.run_rev
        if not stream:
            out["cues"] = ev.cues(tok.get("performer_role")) if tok["role"] == "performer" else []
        return out

    def message(self, ev: LiveEvent, tok: dict[str, Any], base: dict[str, Any]) -> bytes:
        data = json.dumps(self.view(ev, tok, base, stream=True), ensure_ascii=False)
        return f"id: {ev.version}\nevent: state\ndata: {data}\n\n".encode()

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

    def send(self, ev: LiveEvent, subs: set[Subscriber]) -> None:
        base = ev.state(now_ms())
        encoded: dict[tuple[Any, ...], tuple[bytes, bytes]] = {}
        for sub in list(subs):
            t = sub.token
            vk = (t["role"], t.get("seat"), t.get("performer_role"))
            pair = encoded.get(vk)
            if pair is None:
                msg = self.message(ev, t, base)
                pair = encoded[vk] = (msg, chunk(msg))
            sub.write(*pair)

    def tally(self, ev: LiveEvent, delay_s: float = 0.5) -> None:
        """After an answer of the audience: send the director's streams the totals, at most
        once every ``delay_s`` (a hall answering at once costs one state, not hundreds). The
        audience's streams are not sent anything: their view has no totals."""
        if ev.id in self.tallying:
            return

        async def later() -> None:
            try:
                await asyncio.sleep(delay_s)
            finally:
                self.tallying.pop(ev.id, None)
            subs = {s for s in self.subs.get(ev.id, ()) if s.token["role"] == "director"}
            if subs:
                self.send(ev, subs)

        self.tallying[ev.id] = asyncio.get_running_loop().create_task(later())

    def subscribe(self, ev: LiveEvent, sub: Subscriber) -> None:
        """Add a stream; past :data:`STREAMS_PER_LINK` for its link the oldest is closed."""
        subs = self.subs.setdefault(ev.id, set())
        if sub.token["role"] != "audience":
            mine = sorted(
                (s for s in subs if s.token["id"] == sub.token["id"] and not s.closed),
                key=lambda s: s.opened,
            )
            for old in mine[: max(0, len(mine) - STREAMS_PER_LINK + 1)]:
                old.close()
                self.shed(f"more than {STREAMS_PER_LINK} streams on one link: the oldest closed")
        subs.add(sub)

    def unsubscribe(self, ev: LiveEvent, sub: Subscriber) -> None:
        subs = self.subs.get(ev.id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                self.subs.pop(ev.id, None)

    async def keepalive(self) -> None:
        """A ping on every open stream every ``keepalive_s`` (one timer for all): a page that
        hears nothing for long knows its connection is dead and opens another."""
        while True:
            await asyncio.sleep(self.keepalive_s)
            for subs in list(self.subs.values()):
                for sub in subs:
                    sub.keepalive()

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

    def close_token(self, event_id: str, token_id: int) -> None:
        for sub in list(self.subs.get(event_id, ())):
            if sub.token["id"] == token_id:
                sub.close()

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

"""The live app's fan-out: the open event streams of the screens and what each is sent.

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

The bounds of the fan-out are here too: the streams one link may hold
(:data:`STREAMS_PER_LINK`), the director's totals sent at most twice a second
(:meth:`Streams.tally`), and the log's word when load is shed (:meth:`Streams.shed`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from sheli.serve.live import LiveEvent
from sheli.serve.store import now_ms

log = logging.getLogger("sheli.serve")

#: the fields of the state each role's stream carries (None: all but the cues)
VIEW_FIELDS: dict[str, tuple[str, ...] | None] = {
    "director": None,
    "scorer": None,
    "audience": (
        "version", "server_ms", "event", "step", "round", "tally", "announcements", "drinks",
        "drum", "passage", "stopped", "last_step", "marks", "question", "play",
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


class Streams:
    """The open streams of every event, and the state each is sent (the server's base)."""

    def __init__(self, keepalive_s: float = 15.0) -> None:
        self.keepalive_s = keepalive_s
        self.subs: dict[str, set[Subscriber]] = {}
        # events whose director has new answers to be sent: the task that will send them
        self.tallying: dict[str, asyncio.Task[None]] = {}
        self.stopping = False  # the server is stopping (SIGINT, SIGTERM): see close_streams
        self.shed_logged = 0.0

    def shed(self, what: str) -> None:
        """Say in the log that load is being shed (at most once every 10 s)."""
        t = time.monotonic()
        if t - self.shed_logged >= 10:
            self.shed_logged = t
            log.warning("sheli serve: shedding load: %s", what)

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

    def close_token(self, event_id: str, token_id: int) -> None:
        for sub in list(self.subs.get(event_id, ())):
            if sub.token["id"] == token_id:
                sub.close()

"""The live app's durable store: one SQLite file (WAL, ``synchronous=FULL``).

Tables:

- ``meta``: the server secret (random, made once; the CSRF values are HMACs under it);
- ``events``: one row per staged event, its configuration as JSON;
- ``tokens``: the links' secrets, **stored as SHA-256 hashes** (the database alone does not
  give anyone a working link), each with its role, seat or performer role, and revocation;
- ``inputs``: the append-only log of everything done during an event (arrows, corrections,
  advances, taps, drum settings), each with the idempotency key it came with and the response
  it was acknowledged with. Rows are never updated or deleted.

Every write is committed (and, with ``synchronous=FULL``, on disk) before the server answers.

>>> import tempfile, os
>>> s = Store(os.path.join(tempfile.mkdtemp(), "t.sqlite3"))
>>> eid, _ = s.create_event({"rite": "xiangshe"})
>>> tid, tok = s.add_token(eid, "director")
>>> s.token(tok)["role"], s.token("nonsense")
('director', None)
>>> s.append(eid, "advance", "k1", tid, {"to": 1}, 200, {"version": 1})["seq"] >= 1
True
>>> [r["kind"] for r in s.inputs(eid)]
['advance']
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import secrets
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
  id TEXT PRIMARY KEY,
  created_ms INTEGER NOT NULL,
  config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL REFERENCES events(id),
  hash TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL,
  seat TEXT,
  performer_role TEXT,
  created_ms INTEGER NOT NULL,
  revoked_ms INTEGER
);
CREATE TABLE IF NOT EXISTS inputs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id TEXT NOT NULL REFERENCES events(id),
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  token_id INTEGER NOT NULL REFERENCES tokens(id),
  body TEXT NOT NULL,
  status INTEGER NOT NULL,
  response TEXT NOT NULL,
  t_ms INTEGER NOT NULL,
  UNIQUE (event_id, key)
);
CREATE INDEX IF NOT EXISTS inputs_event ON inputs(event_id, seq);
CREATE INDEX IF NOT EXISTS tokens_event ON tokens(event_id);
-- the log is append-only: the database itself refuses to change or remove an input
CREATE TRIGGER IF NOT EXISTS inputs_no_update BEFORE UPDATE ON inputs
  BEGIN SELECT RAISE(ABORT, 'inputs are append-only'); END;
CREATE TRIGGER IF NOT EXISTS inputs_no_delete BEFORE DELETE ON inputs
  BEGIN SELECT RAISE(ABORT, 'inputs are append-only'); END;
"""


class StoreError(RuntimeError):
    """The database cannot be opened or is not a sheli database; names the file."""


def now_ms() -> int:
    """Server time in milliseconds since the Unix epoch (the drum's timeline)."""
    return time.time_ns() // 1_000_000


def token_hash(token: str) -> str:
    """The stored form of a token: its SHA-256, hex.

    >>> len(token_hash("abc"))
    64
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Store:
    """The SQLite database of ``sheli serve`` (one connection, used from one thread)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA journal_mode=WAL")
            # FULL: the WAL is synced at every commit, so an acknowledged input survives a
            # power cut as well as a kill -9
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.execute("PRAGMA busy_timeout=5000")
            self.db.executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{self.path}: cannot open the database: {exc}") from None
        self.secret = self._secret()

    def close(self) -> None:
        self.db.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT (ROLLBACK on any error: nothing half-written)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _secret(self) -> bytes:
        row = self.db.execute("SELECT value FROM meta WHERE key='secret'").fetchone()
        if row is None:
            with self.transaction() as db:
                db.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('secret', ?)",
                    (secrets.token_hex(32),),
                )
            row = self.db.execute("SELECT value FROM meta WHERE key='secret'").fetchone()
        return bytes.fromhex(row["value"])

    # ------------------------------------------------------------------ events
    def create_event(
        self,
        config: dict[str, Any],
        tokens: list[tuple[str, str | None, str | None]] = (),  # type: ignore[assignment]
    ) -> tuple[str, list[str]]:
        """Store a new event and its first tokens ``(role, seat, performer_role)`` in one
        transaction (all or nothing); returns the event id and the tokens, in order.

        >>> import tempfile, os
        >>> s = Store(os.path.join(tempfile.mkdtemp(), "t.sqlite3"))
        >>> eid, toks = s.create_event({}, [("director", None, None)])
        >>> s.token(toks[0])["event_id"] == eid
        True
        """
        eid = secrets.token_hex(6)
        made = []
        t = now_ms()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO events(id, created_ms, config) VALUES (?, ?, ?)",
                (eid, t, _dumps(config)),
            )
            for role, seat, performer in tokens:
                token = secrets.token_urlsafe(24)
                db.execute(
                    "INSERT INTO tokens(event_id, hash, role, seat, performer_role, created_ms) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (eid, token_hash(token), role, seat, performer, t),
                )
                made.append(token)
        return eid, made

    def event(self, event_id: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT * FROM events WHERE id=?", (event_id,)).fetchone()
        if row is None:
            return None
        return {"id": row["id"], "created_ms": row["created_ms"], **json.loads(row["config"])}

    # ------------------------------------------------------------------ tokens
    def add_token(
        self,
        event_id: str,
        role: str,
        seat: str | None = None,
        performer_role: str | None = None,
    ) -> tuple[int, str]:
        """A new token for the event; returns (token_id, the token itself, shown only now)."""
        token = secrets.token_urlsafe(24)
        with self.transaction() as db:
            cur = db.execute(
                "INSERT INTO tokens(event_id, hash, role, seat, performer_role, created_ms) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (event_id, token_hash(token), role, seat, performer_role, now_ms()),
            )
        return int(cur.lastrowid or 0), token

    def token(self, token: str) -> dict[str, Any] | None:
        """The token's row (revoked or not), or None if no such token exists."""
        row = self.db.execute("SELECT * FROM tokens WHERE hash=?", (token_hash(token),)).fetchone()
        return dict(row) if row is not None else None

    def tokens(self, event_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT id, role, seat, performer_role, created_ms, revoked_ms FROM tokens "
            "WHERE event_id=? ORDER BY id",
            (event_id,),
        ).fetchall()
        return [dict(r) for r in rows]

    def revoke(self, event_id: str, token_id: int) -> bool:
        """Revoke a token of this event; False if it is not one of the event's."""
        with self.transaction() as db:
            cur = db.execute(
                "UPDATE tokens SET revoked_ms=COALESCE(revoked_ms, ?) WHERE id=? AND event_id=?",
                (now_ms(), token_id, event_id),
            )
        return cur.rowcount == 1

    # ------------------------------------------------------------------ inputs
    def by_key(self, event_id: str, key: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT * FROM inputs WHERE event_id=? AND key=?", (event_id, key)
        ).fetchone()
        return self._input(row) if row is not None else None

    def append(
        self,
        event_id: str,
        kind: str,
        key: str,
        token_id: int,
        body: dict[str, Any],
        status: int,
        response: dict[str, Any],
        t_ms: int | None = None,
    ) -> dict[str, Any]:
        """Append one input and commit it (synced to disk) before returning it."""
        t = now_ms() if t_ms is None else t_ms
        with self.transaction() as db:
            cur = db.execute(
                "INSERT INTO inputs(event_id, kind, key, token_id, body, status, response, t_ms)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (event_id, kind, key, token_id, _dumps(body), status, _dumps(response), t),
            )
        return {
            "seq": int(cur.lastrowid or 0),
            "kind": kind,
            "key": key,
            "token_id": token_id,
            "body": body,
            "status": status,
            "response": response,
            "t_ms": t,
        }

    def inputs(self, event_id: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT * FROM inputs WHERE event_id=? ORDER BY seq", (event_id,)
        ).fetchall()
        return [self._input(r) for r in rows]

    @staticmethod
    def _input(row: sqlite3.Row) -> dict[str, Any]:
        return {
            "seq": row["seq"],
            "kind": row["kind"],
            "key": row["key"],
            "token_id": row["token_id"],
            "body": json.loads(row["body"]),
            "status": row["status"],
            "response": json.loads(row["response"]),
            "t_ms": row["t_ms"],
        }

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

import base64
import contextlib
import errno
import fcntl
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sheli.errors import SheliError

#: the schema's version (``PRAGMA user_version``); every earlier one is migrated at start
SCHEMA_VERSION = 3
#: ``PRAGMA application_id``: the file is a sheli serve database ("shli")
APPLICATION_ID = 0x73686C69

#: version 1, the first schema (written with user_version 0, and recognised by its tables)
SCHEMA_1 = """
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
FIRST_SCHEMA = {
    "meta": {"key", "value"},
    "events": {"id", "created_ms", "config"},
    "tokens": {"id", "event_id", "hash", "role", "seat", "performer_role", "created_ms"},
    "inputs": {"seq", "event_id", "kind", "key", "token_id", "body", "status", "response"},
}
#: version 2: the events created with an idempotency key (its hash), so that a creation sent
#: again gives the same event
SCHEMA_2 = """
CREATE TABLE IF NOT EXISTS creations (
  key_hash TEXT PRIMARY KEY,
  event_id TEXT NOT NULL REFERENCES events(id),
  request TEXT NOT NULL,
  links INTEGER NOT NULL
);
"""
#: version 3: the audience's answers to the 五物 questions (docs/serve.md, "The 五物"): one
#: voice per screen per question, which the UNIQUE constraint keeps even if two requests race
SCHEMA_3 = """
CREATE TABLE IF NOT EXISTS votes (
  event_id TEXT NOT NULL REFERENCES events(id),
  question INTEGER NOT NULL,
  voter TEXT NOT NULL,
  answer INTEGER NOT NULL,
  t_ms INTEGER NOT NULL,
  UNIQUE (event_id, question, voter)
);
"""


def _statements(script: str) -> list[str]:
    """The statements of a schema script (a trigger's body keeps its own semicolons)."""
    out, cur = [], []
    for line in script.strip().splitlines():
        if line.startswith("--"):
            continue
        cur.append(line)
        if line.rstrip().endswith(";"):
            out.append("\n".join(cur))
            cur = []
    return out


def _why(exc: BaseException) -> str:
    """What a database error means for the person running the server."""
    msg = str(exc)
    if "readonly" in msg or "read-only" in msg or "attempt to write" in msg:
        return "the database cannot be written (read-only file or folder?)"
    if "disk is full" in msg or "disk I/O" in msg:
        return f"the disk is full or failing ({msg})"
    return f"cannot use the database: {msg}"


class StoreError(SheliError, RuntimeError):
    """The database cannot be opened or is not a sheli database; names the file."""


def lock_path(db_path: str | Path) -> Path:
    """The file beside the database that says which server holds it: its path (symbolic
    links resolved, so two names of one database share one lock) with ``-lock`` added, as
    SQLite adds ``-wal`` and ``-shm``.

    >>> lock_path("/srv/hall/serve.sqlite3").name
    'serve.sqlite3-lock'
    """
    return Path(f"{Path(db_path).resolve()}-lock")


def _holder(fd: int) -> int | None:
    """The process id a lock file holds, if it holds one."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


class DatabaseLock:
    """One server per database: an OS lock (``flock``) on :func:`lock_path`, which holds the
    holder's process id. The kernel drops the lock when its holder's process ends, however
    it ends (``kill -9`` too), so a lock file left by a process that is gone blocks nothing:
    the file stays, and the next server locks it and writes its own id.

    >>> import tempfile, os
    >>> db = os.path.join(tempfile.mkdtemp(), "serve.sqlite3")
    >>> first = DatabaseLock(db)
    >>> DatabaseLock(db)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    sheli.serve.store.StoreError: .../serve.sqlite3 is served by another sheli serve (process ...
    >>> first.release()
    >>> DatabaseLock(db).release()  # free again
    """

    def __init__(self, db_path: str | Path) -> None:
        self.db_path = Path(db_path)
        self.path = lock_path(db_path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # O_CLOEXEC: a program the server runs does not hold the lock after it
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except PermissionError:  # a lock file of another user's: it locks all the same
            fd = self._read_only()
        except OSError as exc:
            raise StoreError(
                f"{self.db_path}: the database cannot be written (read-only file or folder?): "
                f"{self.path}: {exc.strerror or exc}"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _holder(fd)
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise StoreError(f"{self.db_path}: cannot lock {self.path}: {exc}") from None
            who = f"process {holder}" if holder else "a process that has not written its id yet"
            raise StoreError(
                f"{self.db_path} is served by another sheli serve ({who}): stop it, or give "
                "another --db"
            ) from None
        with contextlib.suppress(OSError):  # a read-only lock file names no holder
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd: int | None = fd

    def _read_only(self) -> int:
        try:
            return os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            raise StoreError(
                f"{self.db_path}: the database cannot be written (read-only file or folder?): "
                f"{self.path}: {exc.strerror or exc}"
            ) from None

    def release(self) -> None:
        """Let the database go (emptied first: the file then names no holder)."""
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            os.ftruncate(self.fd, 0)
        os.close(self.fd)  # the lock goes with the last descriptor of it
        self.fd = None


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
        self._depth = 0  # transactions open (nested ones are part of the outermost)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{self.path}: cannot open the database: {exc}") from None
        try:
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA busy_timeout=5000")
            self._check()
            self.db.execute("PRAGMA journal_mode=WAL")
            # FULL: the WAL is synced at every commit, so an acknowledged input survives a
            # power cut as well as a kill -9
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
            self.secret = self._secret()
        except StoreError:
            self.db.close()
            raise
        except (sqlite3.Error, OSError) as exc:
            self.db.close()
            raise StoreError(f"{self.path}: {_why(exc)}") from None

    def _check(self) -> None:
        """Refuse a file that is not a healthy sheli database of a schema this sheli knows."""
        try:
            rows = self.db.execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as exc:
            if "readonly" in str(exc) or "attempt to write" in str(exc):
                # a WAL database in a folder that cannot be written: no -shm can be made
                raise StoreError(f"{self.path}: {_why(exc)}") from None
            if "unable to open" in str(exc):
                raise StoreError(
                    f"{self.path}: cannot open the database ({exc}): a read-only file system, "
                    "or a folder that cannot be written?"
                ) from None
            raise StoreError(f"{self.path}: not a SQLite database ({exc})") from None
        problems = [r[0] for r in rows if r[0] != "ok"]
        if problems:
            raise StoreError(
                f"{self.path}: the database is damaged (PRAGMA quick_check: {problems[0]}); "
                "restore it from a copy or start a new one with --db"
            )
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        app_id = self.db.execute("PRAGMA application_id").fetchone()[0]
        tables = {
            r[0]: {c[1] for c in self.db.execute(f"PRAGMA table_info('{r[0]}')")}
            for r in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
            )
        }
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path}: the database has schema {version}, made by a newer sheli "
                f"(this one knows 1–{SCHEMA_VERSION})"
            )
        if app_id not in (0, APPLICATION_ID) or (app_id == 0 and tables and version != 0):
            raise StoreError(f"{self.path}: not a sheli serve database (another application's)")
        if version == 0 and tables:
            # the first schema wrote no version: it is recognised by its tables
            for name, cols in FIRST_SCHEMA.items():
                if not cols <= tables.get(name, set()):
                    raise StoreError(
                        f"{self.path}: not a sheli serve database (its tables are "
                        f"{', '.join(sorted(tables))})"
                    )

    def _migrate(self) -> None:
        """Bring the schema to :data:`SCHEMA_VERSION`, one version at a time, each in one
        transaction; the write is also the check that the file can be written."""
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        with self.transaction() as db:
            if version == 0:
                for statement in _statements(SCHEMA_1):
                    db.execute(statement)
                version = 1
            if version == 1:
                for statement in _statements(SCHEMA_2):
                    db.execute(statement)
                version = 2
            if version == 2:
                for statement in _statements(SCHEMA_3):
                    db.execute(statement)
                version = 3
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            db.execute(f"PRAGMA user_version={version}")

    def close(self) -> None:
        self.db.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT (ROLLBACK on any error, the COMMIT's own included: nothing
        half-written, and no transaction left open). Inside another transaction it is part
        of that one: a link and its log entry, say, are committed together or not at all."""
        if self._depth:
            self._depth += 1
            try:
                yield self.db
            finally:
                self._depth -= 1
            return
        self.db.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield self.db
            self.db.execute("COMMIT")  # a full disk fails here: rolled back below
        except BaseException:
            if self.db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
            raise
        finally:
            self._depth = 0

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
        tokens: Sequence[tuple[str, str | None, str | None]] = (),
        key: str | None = None,
        request: str = "",
    ) -> tuple[str, list[str]]:
        """Store a new event and its first tokens ``(role, seat, performer_role)`` in one
        transaction (all or nothing); returns the event id and the tokens, in order.

        With an idempotency ``key`` the id and the tokens are HMACs of the key under the
        server's secret, and the key's hash is kept with the ``request``: the same key again
        gives the same event and links (:meth:`creation`), without the links being stored.

        >>> import tempfile, os
        >>> s = Store(os.path.join(tempfile.mkdtemp(), "t.sqlite3"))
        >>> eid, toks = s.create_event({}, [("director", None, None)])
        >>> s.token(toks[0])["event_id"] == eid
        True
        >>> made = s.create_event({}, [("director", None, None)], key="k" * 20, request="{}")
        >>> s.creation("k" * 20) == (made[0], made[1][:1], "{}")
        True
        """
        if key is None:
            eid = secrets.token_hex(6)
            raw = [secrets.token_urlsafe(24) for _ in tokens]
        else:
            eid = self._derived("event", key)[:12]
            raw = [self._derived(f"token:{i}", key) for i in range(len(tokens))]
        t = now_ms()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO events(id, created_ms, config) VALUES (?, ?, ?)",
                (eid, t, _dumps(config)),
            )
            for (role, seat, performer), token in zip(tokens, raw, strict=True):
                db.execute(
                    "INSERT INTO tokens(event_id, hash, role, seat, performer_role, created_ms) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (eid, token_hash(token), role, seat, performer, t),
                )
            if key is not None:
                db.execute(
                    "INSERT INTO creations(key_hash, event_id, request, links) VALUES (?, ?, ?, ?)",
                    (token_hash(key), eid, request, len(raw)),
                )
        return eid, raw

    def _derived(self, what: str, key: str) -> str:
        mac = hmac.new(self.secret, f"{what}:{key}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac[:24]).decode() if what != "event" else mac.hex()

    def creation(self, key: str) -> tuple[str, list[str], str] | None:
        """The event made with this idempotency key: (its id, its first links again, the
        request it was made for), or None."""
        row = self.db.execute(
            "SELECT event_id, request, links FROM creations WHERE key_hash=?", (token_hash(key),)
        ).fetchone()
        if row is None:
            return None
        raw = [self._derived(f"token:{i}", key) for i in range(row["links"])]
        return row["event_id"], raw, row["request"]

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

    # ------------------------------------------------------------------ votes
    def vote(self, event_id: str, question: int, voter: str, answer: bool) -> bool:
        """Store one screen's answer to a question; False if that screen has answered it
        already (the first answer stands: one voice per screen per question).

        >>> import tempfile, os
        >>> s = Store(os.path.join(tempfile.mkdtemp(), "t.sqlite3"))
        >>> eid, _ = s.create_event({})
        >>> s.vote(eid, 1, "screen-a", True), s.vote(eid, 1, "screen-a", False)
        (True, False)
        >>> s.votes(eid)
        [(1, 'screen-a', True)]
        """
        with self.transaction() as db:
            cur = db.execute(
                "INSERT OR IGNORE INTO votes(event_id, question, voter, answer, t_ms) "
                "VALUES (?, ?, ?, ?, ?)",
                (event_id, question, voter, int(answer), now_ms()),
            )
        return cur.rowcount == 1

    def vote_of(self, event_id: str, question: int, voter: str) -> bool | None:
        """The answer this voice gave to the question, if any."""
        row = self.db.execute(
            "SELECT answer FROM votes WHERE event_id=? AND question=? AND voter=?",
            (event_id, question, voter),
        ).fetchone()
        return None if row is None else bool(row["answer"])

    def votes(self, event_id: str) -> list[tuple[int, str, bool]]:
        """Every answer of the event: (question, voter, answer), in the order given."""
        rows = self.db.execute(
            "SELECT question, voter, answer FROM votes WHERE event_id=? ORDER BY rowid",
            (event_id,),
        ).fetchall()
        return [(r["question"], r["voter"], bool(r["answer"])) for r in rows]

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

"""The event log as JSON Lines (docs/event-log.md, a public contract).

One JSON object per line: the ``scene`` first, then ``step``, ``shot`` and ``tally`` lines in
the order they happen. Text is written as UTF-8, not escaped.

>>> import io
>>> buf = io.StringIO()
>>> write_jsonl([{"type": "scene", "rite": "xiangshe"}, {"type": "step", "seq": 1}], buf)
>>> buf.getvalue().splitlines()[0]
'{"type":"scene","rite":"xiangshe"}'
"""

from __future__ import annotations

import json
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

import msgspec

from sheli.engine.records import Record, Step

# msgspec writes the same JSON as the standard library's (dumps), ten times faster
_encode = msgspec.json.Encoder().encode


def dumps(event: dict[str, Any]) -> str:
    """One event as one line of JSON (compact, UTF-8 text kept as is)."""
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def write_jsonl(events: Iterable[dict[str, Any]], out: TextIO) -> None:
    """Write events to an open text stream, one line each."""
    for e in events:
        out.write(dumps(e))
        out.write("\n")


def jsonl_lines(events: Iterable[dict[str, Any]]) -> Iterator[bytes]:
    """Each event as one line of JSON in UTF-8, its newline included, one after another (the
    bytes of :func:`dumps`, made by msgspec): a log of any length is written a line at a
    time, never held whole.

    >>> list(jsonl_lines([{"type": "step", "actor": "司射"}]))[0].decode("utf-8")
    '{"type":"step","actor":"司射"}\\n'
    """
    encode = _encode
    for e in events:
        yield encode(e) + b"\n"


def record_lines(records: Iterable[Record]) -> Iterator[bytes]:
    """Each record of a run as its line of the log in UTF-8, newline included: the bytes
    ``sheli run --format jsonl`` writes (a step's line made by :meth:`Step.json_line`, its
    optional fields' JSON made once for each value of them).

    >>> from sheli.engine import run
    >>> lines = list(record_lines(run("xiangshe").records))
    >>> lines[0][:30], lines[1][:24]
    (b'{"type":"scene","rite":"xiangs', b'{"type":"step","seq":1,"')
    """
    tails: dict[tuple[Any, ...], bytes] = {}
    for r in records:
        if type(r) is Step:
            yield r.json_line(tails)
        else:
            yield _encode(r.to_json()) + b"\n"


def line_of(event: dict[str, Any]) -> bytes:
    """One event as its line of the log in UTF-8, newline included (as :func:`jsonl_lines`).

    >>> line_of({"type": "tally", "winner": "tie"})
    b'{"type":"tally","winner":"tie"}\\n'
    """
    return _encode(event) + b"\n"


class SpooledLog:
    """The lines of a log kept as a run makes them, then read back after a first line that
    is known only at the end (the scene names the cast and fixtures the run used). A log
    up to ``MEMORY`` bytes (the default 鄉射禮's is under 2 MB) stays in memory as it is;
    past that it all goes to a temporary file on disk, compressed (a log's JSON shrinks some
    eighteen times: 230 MB with 1,000 衆耦 take 13 MB), so that a log of any length is
    never held whole. A run that fails leaves nothing: the temporary file is gone on close.

    ``add`` takes a record (anything with ``to_json()``); ``steps`` counts the step lines.

    >>> from sheli.engine.records import Tally
    >>> with SpooledLog() as log:
    ...     log.add(Tally(2, 1, 0, "right", "右勝"))
    ...     b"".join(log.lines({"type": "scene"})).decode("utf-8").splitlines()[1][:23]
    '{"type":"tally","round"'
    >>> with SpooledLog() as log:  # past MEMORY: on disk, compressed, the same lines
    ...     log.MEMORY = 100
    ...     for n in range(50):
    ...         log.add(Tally(n, 1, 0, "right", "右勝"))
    ...     lines = b"".join(log.lines({"type": "scene"})).splitlines()
    ...     len(lines), lines[-1][:21], log.spilled
    (51, b'{"type":"tally","roun', True)
    """

    #: the bytes of lines gathered into one piece (small: pieces of a megabyte, made and
    #: freed over and over, left the process 8 MiB larger at its peak)
    CHUNK = 1 << 16
    #: the bytes of lines kept in memory as they are; a longer log goes to disk, compressed
    #: (compressing and reading back the default run's 1.8 MB took some 10 ms of its start)
    MEMORY = 1 << 22

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()
        self._zip: Any = None  # zlib's compressor, once the log has gone past MEMORY
        self._pieces: list[bytes] = []  # the pieces kept in memory until then
        self._kept = 0
        self._buf: list[bytes] = []
        self._size = 0
        # the JSON of the steps' optional fields, made once for each value (Step.json_line)
        self._tails: dict[tuple[Any, ...], bytes] = {}
        self.steps = 0
        #: the error that stopped a write (a full disk), if one did
        self.failed: OSError | None = None

    @property
    def spilled(self) -> bool:
        """Whether the log went past ``MEMORY`` and is on disk."""
        return self._zip is not None

    def add(self, record: Any) -> None:
        if type(record) is Step:
            self.steps += 1
            line = record.json_line(self._tails)  # its newline included
        else:
            line = _encode(record.to_json()) + b"\n"
        self._buf.append(line)
        self._size += len(line)
        if self._size >= self.CHUNK:
            self._piece(b"".join(self._buf))
            self._buf, self._size = [], 0

    def _piece(self, piece: bytes) -> None:
        if self._zip is not None:
            self._put(self._zip.compress(piece))
            return
        self._pieces.append(piece)
        self._kept += len(piece)
        if self._kept > self.MEMORY:
            self._zip = zlib.compressobj(1)  # the fastest level: the log is read back at once
            pieces, self._pieces = self._pieces, []
            for p in pieces:
                self._put(self._zip.compress(p))

    def _put(self, data: bytes) -> None:
        try:
            self._file.write(data)
        except OSError as exc:
            self.failed = exc
            raise

    def lines(self, first: dict[str, Any]) -> Iterator[bytes]:
        """``first``'s line, then the lines added, in order, in pieces of bytes (a piece may
        end inside a line). What is still in memory is written first, here, for a log on
        disk (an OSError, as from ``add``, is raised by this call, not while reading)."""
        self._piece(b"".join(self._buf))
        self._buf, self._size = [], 0
        if self._zip is None:
            return iter([line_of(first), *self._pieces])
        self._put(self._zip.flush())
        f = self._file
        f.flush()
        f.seek(0)
        return self._read(line_of(first))

    def _read(self, first: bytes) -> Iterator[bytes]:
        yield first
        unzip = zlib.decompressobj()
        while chunk := self._file.read(self.CHUNK // 4):  # some 300 KB of lines
            yield unzip.decompress(chunk)
        yield unzip.flush()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> SpooledLog:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read an event log back (for tests and tools)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]

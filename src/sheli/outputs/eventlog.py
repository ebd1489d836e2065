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


def line_of(event: dict[str, Any]) -> bytes:
    """One event as its line of the log in UTF-8, newline included (as :func:`jsonl_lines`).

    >>> line_of({"type": "tally", "winner": "tie"})
    b'{"type":"tally","winner":"tie"}\\n'
    """
    return _encode(event) + b"\n"


class SpooledLog:
    """The lines of a log kept on disk as a run makes them, not in memory, compressed (a
    log's JSON shrinks some eighteen times: 230 MB with 1,000 衆耦 take 13 MB); then read
    back after a first line that is known only at the end (the scene names the cast and
    fixtures the run used). A run that fails leaves nothing: the temporary file is gone on
    close.

    ``add`` takes a record (anything with ``to_json()``); ``steps`` counts the step lines.

    >>> from sheli.engine.records import Tally
    >>> with SpooledLog() as log:
    ...     log.add(Tally(2, 1, 0, "right", "右勝"))
    ...     b"".join(log.lines({"type": "scene"})).decode("utf-8").splitlines()[1][:23]
    '{"type":"tally","round"'
    """

    #: the bytes of lines gathered before they are compressed and written (small: pieces of a
    #: megabyte, made and freed over and over, left the process 8 MiB larger at its peak)
    CHUNK = 1 << 16

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()
        self._zip = zlib.compressobj(1)  # the fastest level: the log is read back at once
        self._buf: list[bytes] = []
        self._size = 0
        self.steps = 0
        #: the error that stopped a write (a full disk), if one did
        self.failed: OSError | None = None

    def add(self, record: Any) -> None:
        e = record.to_json()
        if e["type"] == "step":
            self.steps += 1
        line = line_of(e)
        self._buf.append(line)
        self._size += len(line)
        if self._size >= self.CHUNK:
            self._put(self._zip.compress(b"".join(self._buf)))
            self._buf, self._size = [], 0

    def _put(self, data: bytes) -> None:
        try:
            self._file.write(data)
        except OSError as exc:
            self.failed = exc
            raise

    def lines(self, first: dict[str, Any]) -> Iterator[bytes]:
        """``first``'s line, then the lines added, in order, read back in pieces of bytes (a
        piece may end inside a line). What is still in memory is written first, here (an
        OSError, as from ``add``, is raised by this call, not while reading)."""
        self._put(self._zip.compress(b"".join(self._buf)) + self._zip.flush())
        self._buf, self._size = [], 0
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

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
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

try:  # msgspec, when installed, writes the same JSON ten times faster
    import msgspec as _msgspec

    _encode = _msgspec.json.Encoder().encode
except ImportError:  # pragma: no cover - the standard library is enough
    _encode = None


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
    same bytes with or without msgspec): a log of any length is written a line at a time,
    never held whole.

    >>> list(jsonl_lines([{"type": "step", "actor": "司射"}]))[0].decode("utf-8")
    '{"type":"step","actor":"司射"}\\n'
    """
    if _encode is not None:
        for e in events:
            yield _encode(e) + b"\n"
    else:
        for e in events:
            yield (dumps(e) + "\n").encode("utf-8")


def to_jsonl(events: Iterable[dict[str, Any]]) -> str:
    """The whole log as one string (the same text with or without msgspec): for a small log
    only; a log of a run is written by :func:`jsonl_lines`."""
    return b"".join(jsonl_lines(events)).decode("utf-8")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read an event log back (for tests and tools)."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]

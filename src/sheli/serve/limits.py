"""The live app's limits (docs/serve.md, "Limits"), and the reading of a request's body
within them.

A body is read piece by piece and refused (413) as soon as it passes :data:`MAX_BODY`,
whether its length was declared or it comes chunked; its JSON is then checked for what
Python's parser lets through and the rest of the app cannot store or compare: nesting
deeper than :data:`MAX_DEPTH`, a lone surrogate (``"\\ud800"``: not UTF-8), ``NaN``,
``Infinity`` and numbers too large for a float (``1e400``).

>>> parse_json('{"a": [1, 2.5, "名"]}'.encode())
{'a': [1, 2.5, '名']}
>>> parse_json(b'{"key": "\\\\ud800"}')
Traceback (most recent call last):
...
sheli.serve.errors.ApiError: the body holds a lone surrogate (\\ud800), which is not text
>>> parse_json(b'{"t_ms": 1e400}')
Traceback (most recent call last):
...
sheli.serve.errors.ApiError: the body holds a number that is not finite (1e400)
>>> parse_json(b"[" * 100 + b"]" * 100)
Traceback (most recent call last):
...
sheli.serve.errors.ApiError: the body is nested deeper than 32 levels
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import AsyncIterator
from typing import Any

from sheli.serve.errors import ApiError

MAX_BODY = 1_000_000  # bytes: a cast CSV of thousands of names fits
MAX_DEPTH = 32  # a request of the app is at most three levels deep
#: the largest event a home page may create: 30 衆耦 beyond the 三耦 (about 20,000 event-log
#: lines). An input's engine run then takes about a third of a second; the cost of an input
#: grows with the pairs (a 100-pair run takes about a second).
MAX_PAIRS = 30
#: event creations a client (an address) may start: a burst of this many, then one every
#: CREATE_EVERY_S seconds; more are refused with 429 and Retry-After
CREATE_BURST = 5
CREATE_EVERY_S = 6.0
#: answers to the 五物 a client (an address) may send: a burst of this many, then one every
#: VOTE_EVERY_S seconds (an assumption: a phone answers a question in some seconds; a hall
#: behind one address, a proxy or a NAT, still gets five answers a second)
VOTE_BURST = 30
VOTE_EVERY_S = 0.2
#: the director's jumps (docs/serve.md, "Moments, jumps, the counter"): a passage id is at
#: most this long (xiangshe:139 is 12), a round and a 賈疏 section at most these
MAX_CITE = 40
MAX_ROUND = 9
MAX_SECTION = 999
#: event creations waiting for the worker at once (all clients): more are refused with 503
CREATE_QUEUE = 8


async def read_body(chunks: AsyncIterator[bytes], declared: str | None) -> bytes:
    """The body, refused with 413 as soon as it is longer than :data:`MAX_BODY` (declared or
    read so far: a chunked body is never held past the limit)."""
    if declared is not None and declared.strip().isdigit() and int(declared) > MAX_BODY:
        raise ApiError(413, f"the body is larger than {MAX_BODY} bytes")
    buf = bytearray()
    async for chunk in chunks:
        buf += chunk
        if len(buf) > MAX_BODY:
            raise ApiError(413, f"the body is larger than {MAX_BODY} bytes")
    return bytes(buf)


def _constant(name: str) -> Any:
    raise ApiError(400, f"the body holds {name}, which is not a number JSON allows")


def _check(value: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ApiError(400, f"the body is nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            bad = value[exc.start].encode("unicode_escape").decode()
            raise ApiError(
                400, f"the body holds a lone surrogate ({bad}), which is not text"
            ) from None
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ApiError(400, f"the body holds a number that is not finite ({value!r})")
    elif isinstance(value, dict):
        for k, v in value.items():
            _check(k, depth + 1)
            _check(v, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _check(v, depth + 1)


def _float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise ApiError(400, f"the body holds a number that is not finite ({text})")
    return v


def parse_json(raw: bytes) -> Any:
    """The JSON of a body, or a 400 saying what is wrong with it."""
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_constant, parse_float=_float)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ApiError(400, f"the body is not valid JSON: {exc}") from None
    except RecursionError:
        raise ApiError(400, f"the body is nested deeper than {MAX_DEPTH} levels") from None
    _check(value, 0)
    return value


class RateLimit:
    """A token bucket per client: ``burst`` at once, then one every ``every_s`` seconds.

    >>> r = RateLimit(burst=2, every_s=10.0)
    >>> r.take("a", now=0.0), r.take("a", now=0.0), r.take("a", now=0.0)
    (0.0, 0.0, 10.0)
    >>> r.take("a", now=10.0), r.take("b", now=10.0)
    (0.0, 0.0)
    """

    def __init__(self, burst: int = CREATE_BURST, every_s: float = CREATE_EVERY_S) -> None:
        self.burst = burst
        self.every_s = every_s
        self.buckets: dict[str, tuple[float, float]] = {}  # client → (tokens, when)

    def take(self, client: str, now: float | None = None) -> float:
        """0 if the client may go on (one token taken), else the seconds until it may."""
        now = time.monotonic() if now is None else now
        tokens, when = self.buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - when) / self.every_s)
        if tokens < 1.0:
            self.buckets[client] = (tokens, now)
            return round((1.0 - tokens) * self.every_s, 1)
        self.buckets[client] = (tokens - 1.0, now)
        if len(self.buckets) > 10_000:  # forget the full buckets: they hold nothing
            full = [k for k, (t, _) in self.buckets.items() if t >= self.burst - 1]
            for k in full:
                self.buckets.pop(k, None)
        return 0.0

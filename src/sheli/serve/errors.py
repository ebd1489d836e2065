"""Refusals of the live app: every error is JSON ``{"error": …}`` with its status.

>>> e = ApiError(404, "no event 'x'")
>>> e.response().status_code, e.response().body
(404, b'{"error":"no event \\'x\\'"}')
>>> json_response({"名": 1}).body.decode()
'{"名":1}'
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import Response


def json_response(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON answer, compact, with the text's characters as they are (not ``\\u`` escapes)."""
    return Response(
        json.dumps(body, ensure_ascii=False, separators=(",", ":")),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


#: characters of an error's message: one that quotes what was sent (a pair's name, a
#: field's value: up to a megabyte of body) says the start of it, not all of it back
MAX_MESSAGE = 1000


def bounded(message: str) -> str:
    """The message, cut at :data:`MAX_MESSAGE` characters, saying how long it was.

    >>> bounded("pair 上耦 is not shooting")
    'pair 上耦 is not shooting'
    >>> cut = bounded("round 2 has no arrow 1 of " + "x" * 1_000_000)
    >>> len(cut) < 1100, cut[-40:]
    (True, 'xxxxxxxxxxxxx… (cut: 1000026 characters)')
    """
    if len(message) <= MAX_MESSAGE:
        return message
    return f"{message[:MAX_MESSAGE]}… (cut: {len(message)} characters)"


class ApiError(Exception):
    """A refused request: its status and ``{"error": message, **extra}`` (the message
    :func:`bounded`)."""

    def __init__(
        self, status: int, message: str, headers: dict[str, str] | None = None, **extra: Any
    ) -> None:
        message = bounded(message)
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers
        self.extra = extra

    def response(self) -> Response:
        return json_response({"error": self.message, **self.extra}, self.status, self.headers)


def _rebuild(status: int, message: str, headers: Any, extra: dict[str, Any]) -> ApiError:
    return ApiError(status, message, headers, **extra)


def _reduce(self: ApiError) -> tuple[Any, ...]:
    # raised in a worker process (a refused creation): sent back to the server whole
    return (_rebuild, (self.status, self.message, self.headers, self.extra))


ApiError.__reduce__ = _reduce  # type: ignore[method-assign,assignment]

"""Who may do what in the live app: tokens, roles, CSRF values and the checks of a request.

- A link's token (``secrets.token_urlsafe(24)``, 192 random bits) is its bearer's identity:
  sent as ``Authorization: Bearer TOKEN`` (or, for GET only, ``?token=`` since a browser's
  EventSource cannot set headers). The database keeps only its SHA-256.
- Every POST also carries ``X-CSRF-Token``: HMAC-SHA256 of the token's hash under the
  server's secret (kept in the database), given to the page in its template context. The
  home page's form gets an HMAC of a random cookie (double submit, ``SameSite=Strict``).
- A POST must be ``Content-Type: application/json``; an ``Origin`` header that is not this
  server's own origin is refused.

>>> secret = b"k" * 32
>>> c = csrf_for(secret, "token-hash")
>>> check_csrf(secret, "token-hash", c), check_csrf(secret, "token-hash", "x" * len(c))
(True, False)
"""

from __future__ import annotations

import hashlib
import hmac

ROLES = ("director", "scorer", "performer", "audience")
SEATS = ("上射", "下射", "both")
#: what each action needs: the roles allowed
PERMISSIONS: dict[str, tuple[str, ...]] = {
    "advance": ("director",),
    "drum": ("director",),
    "tokens": ("director",),
    "export": ("director",),
    "pack": ("director",),
    "arrow": ("scorer",),
    "correct": ("scorer",),
    "tap": ("scorer",),
    "question": ("director",),
    "vote": ("audience",),
    "read": ROLES,
}


def csrf_for(secret: bytes, subject: str) -> str:
    """The CSRF value for a token (by its hash) or for a home-page cookie (``home:…``)."""
    return hmac.new(secret, ("csrf:" + subject).encode("utf-8"), hashlib.sha256).hexdigest()


def check_csrf(secret: bytes, subject: str, given: str | None) -> bool:
    """Constant-time comparison of the given value with the expected one."""
    if not given:
        return False
    return hmac.compare_digest(csrf_for(secret, subject), given)


def may(role: str, action: str) -> bool:
    """Whether a token of ``role`` may perform ``action``.

    >>> may("scorer", "arrow"), may("director", "arrow"), may("audience", "read")
    (True, False, True)
    """
    return role in PERMISSIONS.get(action, ())


def seat_allows(token_seat: str | None, seat: str) -> bool:
    """A scorer records only for his own 物 (上射's or 下射's) unless his token is for both.

    >>> seat_allows("上射", "上射"), seat_allows("上射", "下射"), seat_allows("both", "下射")
    (True, False, True)
    """
    return token_seat == "both" or token_seat == seat


def same_origin(origin: str | None, scheme: str, host: str | None) -> bool:
    """No Origin header (same-origin GETs, curl, tests) or an Origin equal to our own.

    >>> same_origin(None, "http", "127.0.0.1:8000")
    True
    >>> same_origin("http://127.0.0.1:8000", "http", "127.0.0.1:8000")
    True
    >>> same_origin("http://evil.example", "http", "127.0.0.1:8000")
    False
    """
    if origin is None:
        return True
    if not host:
        return False
    return origin.rstrip("/").lower() == f"{scheme}://{host}".lower()

"""What every answer carries and every request must name: the security headers (a
Content-Security-Policy among them), the Host allow-list, and the JSON form of the errors
Starlette raises itself (404, 405) and of failures.

The Host allow-list defeats DNS rebinding (a page of another site whose name is made to
point at this server): by default only the loopback names are accepted; ``--host`` adds
its own address, and a wildcard address (``0.0.0.0``, ``::``) any address given as
numbers and this machine's name.

>>> ok = allowed_hosts("127.0.0.1")
>>> host_ok("127.0.0.1:8000", ok), host_ok("localhost", ok), host_ok("evil.example", ok)
(True, True, False)
>>> wide = allowed_hosts("0.0.0.0")
>>> host_ok("192.168.1.20:8000", wide), host_ok("rebind.evil.example:8000", wide)
(True, False)
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from typing import Any

from sheli.serve.errors import ApiError

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "localhost.localdomain"})
ANY_ADDRESS = "*numeric*"

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    # tokens are in the page addresses: never send them on as a Referer
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
    "content-security-policy": CSP,
}


def allowed_hosts(*hosts: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The names a request's Host may give: the loopback names, the addresses listened on,
    and for a wildcard address any numeric address and this machine's name."""
    out = set(LOOPBACK)
    for h in (*hosts, *extra):
        h = h.strip("[]").lower()
        if h in ("0.0.0.0", "::", ""):
            out |= {ANY_ADDRESS, socket.gethostname().lower(), socket.getfqdn().lower()}
        else:
            out.add(h)
    return frozenset(out)


def host_ok(host: str | None, allowed: frozenset[str]) -> bool:
    if not host:
        return False
    name = host.lower()
    if name.startswith("["):  # [::1]:8000
        name = name[1 : name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.split(":", 1)[0]
    if name in allowed:
        return True
    if ANY_ADDRESS in allowed:
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return False
    return False


class Guard:
    """The ASGI layer in front of the app: the Host allow-list (a refusal is a JSON 421)
    and the security headers on every answer (static files may be cached)."""

    def __init__(self, app: Any, hosts: frozenset[str] | None) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.hosts is not None:
            host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), None)
            if not host_ok(host, self.hosts):
                err = ApiError(421, f"this server does not answer for the host {host!r}")
                await err.response()(scope, receive, send)
                return
        if scope["path"] == "/api/stream":  # it sends its own headers
            await self.app(scope, receive, send)
            return
        static = scope["path"].startswith("/static/")

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                hs = list(message.get("headers", []))
                have = {k.lower() for k, _ in hs}
                for k, v in SECURITY_HEADERS.items():
                    if k.encode() not in have and not (k == "cache-control" and static):
                        hs.append((k.encode(), v.encode()))
                message = {**message, "headers": hs}
            await send(message)

        await self.app(scope, receive, send_with_headers)

"""Helpers the tests of ``sheli serve`` share (no tests here).

An event is created through the API as a browser would (GET / for the form's CSRF value and
cookie, then POST /api/events); each link's CSRF value is read from the page the server
renders for it, as the browser reads it.
"""

from __future__ import annotations

import re
import uuid
import warnings
from dataclasses import dataclass, field
from typing import Any

with warnings.catch_warnings():  # starlette 1.x suggests httpx2; httpx is what we have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from sheli.serve import create_app


def csrf_of(page: str) -> str:
    m = re.search(r'data-csrf="([^"]*)"', page)
    assert m, "the page gives no CSRF value"
    return m.group(1)


def home_csrf(client: Any) -> str:
    r = client.get("/")
    assert r.status_code == 200
    return csrf_of(r.text)


@dataclass
class Live:
    """A client and an event: its links, and POST/GET helpers per link."""

    client: Any
    links: dict[str, Any]
    event_id: str
    _csrf: dict[str, str] = field(default_factory=dict)

    @staticmethod
    def token(link: str) -> str:
        return link.rsplit("/", 1)[-1]

    @property
    def director(self) -> str:
        return self.token(self.links["director"])

    @property
    def audience(self) -> str:
        return self.token(self.links["audience"])

    def scorer(self, seat: str) -> str:
        return self.token(self.links["scorers"][seat])

    def performer(self, role: str) -> str:
        return self.token(self.links["performers"][role])

    def csrf(self, token: str) -> str:
        if token not in self._csrf:
            r = self.client.get(f"/v/{token}")
            assert r.status_code == 200, r.text
            self._csrf[token] = csrf_of(r.text)
        return self._csrf[token]

    def headers(self, token: str, **extra: str) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {token}",
            "X-CSRF-Token": self.csrf(token),
            **extra,
        }

    def post(self, path: str, token: str, body: dict[str, Any], key: str | None = None) -> Any:
        payload = {**body, "key": key or uuid.uuid4().hex}
        return self.client.post(path, json=payload, headers=self.headers(token))

    def state(self, token: str | None = None) -> dict[str, Any]:
        r = self.client.get(
            "/api/state", headers={"Authorization": f"Bearer {token or self.director}"}
        )
        assert r.status_code == 200, r.text
        return r.json()

    def arrow(self, rnd: int, pair: str, seat: str, n: int, hit: bool, **kw: Any) -> Any:
        return self.post(
            "/api/arrows",
            self.scorer(seat),
            {"round": rnd, "pair": pair, "seat": seat, "arrow": n, "hit": hit, **kw},
        )


def new_event(client: Any, **body: Any) -> Live:
    payload = {
        "rite": "xiangshe",
        "venue": "xie",
        "pairs": 0,
        "guests_shoot": False,
        "feast": False,
        **body,
    }
    r = client.post("/api/events", json=payload, headers={"X-CSRF-Token": home_csrf(client)})
    assert r.status_code == 201, r.text
    data = r.json()
    return Live(client, data["links"], data["event_id"])


def make_client(tmp_path: Any) -> TestClient:
    return TestClient(create_app(tmp_path / "serve.sqlite3", hosts=["testserver"]))


def inputs_count(client: Any) -> int:
    store = client.app.state.server.store
    return store.db.execute("SELECT COUNT(*) FROM inputs").fetchone()[0]

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

import pytest

with warnings.catch_warnings():  # starlette 1.x suggests httpx2; httpx is what we have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from sharing import Once

from sheli.serve import create_app, events
from sheli.serve.events import prepare_event
from sheli.serve.live import LiveEvent, plan_run, state
from sheli.serve.live.run import _run_args, compute_derived

#: The form of the event :func:`new_event` creates unless told otherwise.
EVENT_FORM: dict[str, Any] = {
    "rite": "xiangshe",
    "venue": "xie",
    "pairs": 0,
    "guests_shoot": False,
    "feast": False,
}


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
    payload = {**EVENT_FORM, **body}
    r = client.post("/api/events", json=payload, headers={"X-CSRF-Token": home_csrf(client)})
    assert r.status_code == 201, r.text
    data = r.json()
    return Live(client, data["links"], data["event_id"])


def make_client(tmp_path: Any) -> TestClient:
    return TestClient(create_app(tmp_path / "serve.sqlite3", hosts=["testserver"]))


def inputs_count(client: Any) -> int:
    store = client.app.state.server.store
    return store.db.execute("SELECT COUNT(*) FROM inputs").fetchone()[0]


def share_event_runs(monkeypatch: pytest.MonkeyPatch, once: Once) -> None:
    """The runs of the live app made once per session for each set of what they depend on
    (tests/conftest.py's ``once``), for tests that create many alike events: the run with
    which the app checks a new event (:func:`prepare_event`, which reads only its roles), and
    each run for the outcomes recorded (``compute_derived``: the rite and its arguments, the
    factor of the distance, the cast's names and the outcomes; the views only read it)."""

    def check_run(rite: str, **kw: Any) -> Any:
        return once(("run", rite, repr(sorted(kw.items()))), lambda: events_run(rite, **kw))

    def derived(config: dict[str, Any], factor: float, names: dict[str, str], outcomes: Any) -> Any:
        key = (
            "derived",
            config.get("rite"),
            repr(sorted(_run_args(config).items())),
            factor,
            repr(sorted(names.items())),
            repr(sorted(outcomes.items())),
        )
        return once(key, lambda: compute_derived(config, factor, names, outcomes))

    events_run = events.run
    monkeypatch.setattr(events, "run", check_run)
    monkeypatch.setattr(state, "compute_derived", derived)


def prime_event_runs(once: Once, **body: Any) -> None:
    """The runs that every event of :data:`EVENT_FORM` (with ``body``, as :func:`new_event`
    takes it) needs, made now (from a module's fixture: made for all its tests, not by the
    first): the run that checks it and its first run, before any arrow (with
    :func:`share_event_runs`), and the whole run the app estimates its times from
    (``plan_run``, which the app keeps)."""
    with pytest.MonkeyPatch.context() as mp:
        share_event_runs(mp, once)
        config, _ = prepare_event({**EVENT_FORM, **body})
        LiveEvent({"id": "primed", **config}).derived()
    plan_run(config)

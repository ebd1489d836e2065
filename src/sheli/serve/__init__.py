"""``sheli serve``: the live event app (docs/serve.md).

A director, two scorers, the performers and an audience screen run a staged 鄉射禮 from
their browsers. Every input is appended durably to SQLite before it is acknowledged; the
state every screen shows is derived from those inputs by re-running the engine.

- :mod:`sheli.serve.store`: the SQLite store (append-only inputs, hashed tokens);
- :mod:`sheli.serve.live`: the state derived from the inputs (the run, the replayed inputs,
  the views);
- :mod:`sheli.serve.auth`: roles, CSRF values and request checks;
- :mod:`sheli.serve.app`: the Starlette app (pages, JSON API, event stream);
- :mod:`sheli.serve.events`, :mod:`sheli.serve.export`: creating an event; exports, pack.

>>> from sheli.serve import create_app
>>> callable(create_app)
True
"""

from __future__ import annotations

from sheli.serve.app import create_app

__all__ = ["create_app"]

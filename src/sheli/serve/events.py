"""Creating an event: its configuration checked, its cast read, its links made.

:func:`prepare_event` checks the form and runs the rite once (in the creation worker: it
takes a good part of a second); :func:`store_event` stores the event and its links.

>>> parse_cast_csv("role,name\\n司射,王小明\\n")
[{'role': '司射', 'name': '王小明', 'line': 2}]
>>> parse_cast_csv("司射,王小明,extra\\n")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
sheli.serve.errors.ApiError: cast CSV line 1: 3 fields; a line is role,name
>>> [v["key"] for v in venues() if "dashe" in v["rites"]]
['shegong']
"""

from __future__ import annotations

import csv
import io
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from sheli import place
from sheli.engine import VENUES, SpecError, run
from sheli.outputs.cues import CuesError, resolve_role, roles
from sheli.rite import list_specs, load_spec
from sheli.serve.errors import ApiError
from sheli.serve.limits import MAX_PAIRS
from sheli.serve.store import Store

MAX_NAME = 80


_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.M)


def _title_of(path: Path, default: str) -> str:
    """A spec's or a venue's ``title:`` read from its file's top level, without parsing the
    whole YAML (the home page lists them; running one checks it whole)."""
    try:
        m = _TITLE.search(path.read_text("utf-8"))
    except OSError:
        return default
    return m.group(1).strip("'\"") if m else default


#: specs not offered live: the 主皮之射 makes its pairs as it goes (勝者又射: the winners paired
#: again), and a live event's scorer links are made for the pairs it starts with
NOT_LIVE = frozenset({"zhupi"})


@cache
def rites() -> list[dict[str, str]]:
    """The rites a director can stage: the specs shipped with sheli (鄉射禮 first).

    >>> rites()[0]
    {'key': 'xiangshe', 'title': '鄉射禮'}
    """
    out = [
        {"key": k, "title": _title_of(p, k)} for k, p in list_specs().items() if k not in NOT_LIVE
    ]
    return sorted(out, key=lambda r: r["key"] != "xiangshe")


@cache
def venues() -> list[dict[str, Any]]:
    """The venues a director can choose, each with the rites it can stage: each rite's own
    (its spec's ``venue``: 大射儀 in the 射宮, 燕射 in the 寢), and for 鄉射禮 both the 州序
    (xie) and the 鄉庠 (xiang), xiangshe:128, 339.

    >>> [(v["key"], v["rites"]) for v in venues()][:2]
    [('xie', ['xiangshe']), ('xiang', ['xiangshe'])]
    """
    data = Path(place.__file__).with_name("data")
    of_rite: dict[str, list[str]] = {"xie": [], "xiang": []}
    for r in rites():
        own = load_spec(r["key"]).spec.params.venue
        for key in ("xie", "xiang") if r["key"] == "xiangshe" else (own,):
            of_rite.setdefault(VENUES.get(key, key), []).append(r["key"])
    return [
        {"key": k, "title": _title_of(data / f"{k}.yaml", k), "rites": rs}
        for k, rs in of_rite.items()
        if rs
    ]


def rite_options(rite: str) -> list[str]:
    """The switches a rite's spec declares (``feast`` for 鄉射禮 and 燕射, not for 大射儀).

    >>> rite_options("xiangshe"), "feast" in rite_options("dashe")
    (['feast'], False)
    """
    return list(load_spec(rite).spec.params.options)


def parse_cast_csv(text: str) -> list[dict[str, Any]]:
    """Rows ``role,name`` (a header line ``role,name`` is optional; blank lines skipped)."""
    out: list[dict[str, Any]] = []
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        for row in reader:
            line = reader.line_num
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != 2:
                raise ApiError(400, f"cast CSV line {line}: {len(row)} fields; a line is role,name")
            role, name = row[0].strip().lstrip("\ufeff"), row[1].strip()
            if (role.lower(), name.lower()) == ("role", "name"):
                continue
            if not role or not name:
                raise ApiError(400, f"cast CSV line {line}: the role and the name are both needed")
            out.append({"role": role, "name": name, "line": line})
    except csv.Error as exc:
        raise ApiError(400, f"cast CSV line {reader.line_num}: not valid CSV: {exc}") from None
    return out


def _check_name(name: Any, where: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise ApiError(400, f"{where}: a name is text")
    name = name.strip()
    if len(name) > MAX_NAME:
        raise ApiError(400, f"{where}: a name is at most {MAX_NAME} characters")
    if any(ord(ch) < 32 for ch in name):
        raise ApiError(400, f"{where}: a name has no control characters")
    return name


def check_form(body: dict[str, Any]) -> dict[str, Any]:
    """The form's fields checked, without running the rite (quick: the server does it before
    it counts a creation against the client's rate): rite, venue, hou_dao_m, guests_shoot,
    pairs, dafu, title, options.

    >>> check_form({"rite": "dashe"})["venue"]
    'shegong'
    >>> check_form({"pairs": 1000})
    Traceback (most recent call last):
    ...
    sheli.serve.errors.ApiError: pairs (衆耦) must be a whole number 0–30
    """
    rite = body.get("rite", "xiangshe")
    if rite not in {r["key"] for r in rites()}:
        known = ", ".join(r["key"] for r in rites())
        raise ApiError(400, f"rite must be one of {known}, not {json.dumps(rite)}")
    # no venue: the rite's own (the one its spec names)
    venue_key = body.get("venue") or load_spec(rite).spec.params.venue
    venue = VENUES.get(venue_key) if isinstance(venue_key, str) else None
    if venue is None:
        raise ApiError(400, f"venue must be one of {', '.join(sorted(set(VENUES.values())))}")
    hou = body.get("hou_dao_m")
    if hou is not None and (
        isinstance(hou, bool) or not isinstance(hou, int | float) or not 1 <= hou <= 200
    ):
        raise ApiError(400, "hou_dao_m must be the 侯道 in metres on your floor (1–200) or null")
    guests = body.get("guests_shoot", False)
    if not isinstance(guests, bool):
        raise ApiError(400, "guests_shoot must be true or false")
    pairs = body.get("pairs", 0)
    if isinstance(pairs, bool) or not isinstance(pairs, int) or not 0 <= pairs <= MAX_PAIRS:
        raise ApiError(400, f"pairs (衆耦) must be a whole number 0–{MAX_PAIRS}")
    dafu = body.get("dafu", 1)
    if isinstance(dafu, bool) or not isinstance(dafu, int) or not 0 <= dafu <= 20:
        raise ApiError(400, "dafu must be a whole number 0–20")
    title = body.get("title")
    if title is not None and (not isinstance(title, str) or len(title) > 120):
        raise ApiError(400, "title is text of at most 120 characters")
    # the rite's own switches: for 鄉射禮 whether the feast around the archery is staged
    feast = body.get("feast")
    options: dict[str, Any] = {}
    if feast is not None:
        if not isinstance(feast, bool):
            raise ApiError(400, "feast must be true or false")
        if "feast" not in rite_options(rite):
            raise ApiError(400, f"{rite} has no feast to stage or leave out")
        options["feast"] = feast
    return {
        "rite": rite,
        "venue": venue,
        "hou_dao_m": hou,
        "guests_shoot": guests,
        "pairs": pairs,
        "dafu": dafu,
        "title": title,
        "options": options,
    }


def prepare_event(body: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Check the form and run the rite once (a broken combination is refused): the event's
    configuration and its performers' roles. Runs in the creation worker."""
    form = check_form(body)
    rite, venue, pairs, guests, dafu = (
        form[k] for k in ("rite", "venue", "pairs", "guests_shoot", "dafu")
    )
    options = form["options"]
    try:
        r = run(rite, venue=venue, pairs=pairs, guests=guests, dafu=dafu, seed=0, options=options)
    except SpecError as exc:
        raise ApiError(400, f"this event cannot be run: {exc}") from None
    entries: list[tuple[str, Any, Any]] = []
    cast = body.get("cast") or []
    if not isinstance(cast, list):
        raise ApiError(400, "cast is a list of {role, name}")
    for i, c in enumerate(cast, 1):
        if not isinstance(c, dict):
            raise ApiError(400, f"cast entry {i}: an object {{role, name}}")
        entries.append((f"cast entry {i}", c.get("role"), c.get("name")))
    csv_text = body.get("cast_csv")
    if csv_text is not None:
        if not isinstance(csv_text, str):
            raise ApiError(400, "cast_csv is the text of a CSV file (role,name) or null")
        for row in parse_cast_csv(csv_text):
            entries.append((f"cast CSV line {row['line']}", row["role"], row["name"]))
    resolved: list[dict[str, str]] = []
    taken: dict[str, str] = {}
    for where, role, name in entries:
        if not isinstance(role, str) or not role.strip():
            raise ApiError(400, f"{where}: the role is missing")
        name = _check_name(name, where)
        try:
            actor = resolve_role(r, role)
        except CuesError as exc:
            raise ApiError(400, f"{where}: {exc}") from None
        if actor in taken:
            raise ApiError(400, f"{where}: {actor} is already cast ({taken[actor]})")
        taken[actor] = where
        resolved.append({"role": role.strip(), "actor": actor, "name": name})
    config = {
        "rite": rite,
        "title": form["title"],
        "venue": venue,
        "hou_dao_m": form["hou_dao_m"],
        "guests_shoot": guests,
        "pairs": pairs,
        "dafu": dafu,
        "options": options,
        "cast": resolved,
    }
    return config, roles(r)


def store_event(
    store: Store,
    config: dict[str, Any],
    performers: list[str],
    key: str | None = None,
    request: str = "",
) -> dict[str, Any]:
    """Store the event and make its links: director, audience, a scorer for each 物, a
    performer for each role. With an idempotency ``key`` the event and its links are made
    from it (see :meth:`Store.create_event`)."""
    wanted: list[tuple[str, str | None, str | None]] = [
        ("director", None, None),
        ("audience", None, None),
        ("scorer", "上射", None),
        ("scorer", "下射", None),
    ]
    wanted += [("performer", None, role) for role in performers]
    eid, toks = store.create_event(config, wanted, key=key, request=request)
    return links_of(eid, toks, performers)


def links_of(eid: str, toks: list[str], performers: list[str]) -> dict[str, Any]:
    """The answer to a creation: the event's id and its links, in the order they were made."""
    return {
        "event_id": eid,
        "links": {
            "director": f"/v/{toks[0]}",
            "audience": f"/v/{toks[1]}",
            "scorers": {"上射": f"/v/{toks[2]}", "下射": f"/v/{toks[3]}"},
            "performers": {role: f"/v/{t}" for role, t in zip(performers, toks[4:], strict=True)},
        },
    }


def create_event(store: Store, body: dict[str, Any]) -> dict[str, Any]:
    """:func:`prepare_event` and :func:`store_event` at once, in this process."""
    config, performers = prepare_event(body)
    return store_event(store, config, performers)

"""Every role, verb, place, object and garment of the specs and venues has its English.

The terms are collected from the spec schema's fields (actor, verb, obj, state, at/to/from/via,
cast, objects, pairs, the procedures' bindings) and from the loaded venues (fixtures, their
other names, their objects), never by searching the YAML text.
"""

from __future__ import annotations

import re
from collections import defaultdict
from importlib import resources
from typing import Any

import pytest

from sheli.glossary import GLOSSARY, KINDS, SECTIONS, english, glossary, parts, title_english
from sheli.place import load_venue
from sheli.place.loader import VENUES, venue_key
from sheli.rite import list_specs, load_spec
from sheli.rite.nodes import ActStep, CallStep, ForEachStep, IfStep, Spec

# Where a term of each kind may find its English: a place may be named by a person or an
# object (at: 司射, to: 楅), a thing held may be a garment.
SEARCH = {
    "role": ("roles",),
    "verb": ("verbs",),
    "state": ("states",),
    "place": ("places", "roles", "objects"),
    "object": ("objects", "dress", "places"),  # 侯, 乏, 尊 are things set up and places
    "dress": ("dress",),
    "binding": ("roles", "places", "objects"),
}
_COUNT = re.compile(r"^(.*?)(?::\d+)?$")  # 矢:4 is 矢, four of them
_FLAGS = {"是", "否"}  # a procedure's yes/no parameter, not a term


def _places(ref: Any, out: dict[str, set[str]], where: str) -> None:
    if ref is None:
        return
    if isinstance(ref, str):
        out[ref].add(where)
    elif isinstance(ref, dict):
        for k, v in ref.items():
            if not k.startswith("__"):  # the relation (southwest_of …) is English already
                _places(v, out, where)
    elif isinstance(ref, list):
        for v in ref:
            _places(v, out, where)


def _spec_terms(spec: Spec, kinds: dict[str, dict[str, set[str]]]) -> None:
    name = spec.rite

    def steps(ss: list[Any]) -> None:
        for s in ss:
            if isinstance(s, ActStep):
                for a in s.acts():
                    w = f"{name}:{a.line}"
                    kinds["role"][a.actor].add(w)
                    kinds["verb"][a.verb].add(w)
                    if a.by:  # the stair one goes up or down by (by: 阼階)
                        kinds["place"][a.by].add(w)
                    if a.obj:
                        kinds["object"][a.obj].add(w)
                    if a.state:
                        kinds["state"][a.state].add(w)
                    for ref in (a.to, a.at, a.from_, a.via):
                        _places(ref, kinds["place"], w)
            elif isinstance(s, IfStep):
                steps(s.then)
                steps(s.else_)
            elif isinstance(s, ForEachStep):
                for v in s.in_ if isinstance(s.in_, list) else [s.in_]:
                    if isinstance(v, str) and not v.isdigit():
                        kinds["binding"][v].add(f"{name}:{s.line}")
                steps(s.do)
            elif isinstance(s, CallStep):
                for k, v in s.with_.items():
                    if not k.startswith("__") and isinstance(v, str) and v not in _FLAGS:
                        kinds["binding"][v].add(f"{name}:{s.line}")

    steps(spec.steps)
    for p in spec.procedures.values():
        steps(p.steps)
    for c in spec.cast:
        kinds["role"][c.role].add(f"{name} cast")
        _places(c.at, kinds["place"], f"{name} cast")
        for d in c.dress:
            kinds["dress"][d].add(f"{name} cast")
        for h in c.holds:
            kinds["object"][_COUNT.match(h)[1]].add(f"{name} cast")  # type: ignore[index]
    for o in spec.objects:
        kinds["object"][o.obj].add(f"{name} objects")
        _places(o.at, kinds["place"], f"{name} objects")
    for pd in spec.pairs or []:
        for r in (pd.kind, pd.name, pd.upper, pd.lower, pd.upper_role, pd.lower_role):
            kinds["role"][r].add(f"{name} pairs")


def collect() -> dict[str, dict[str, set[str]]]:
    """kind → term → where it is used (spec:line, or the venue)."""
    kinds: dict[str, dict[str, set[str]]] = {k: defaultdict(set) for k in SEARCH}
    for key in list_specs():
        _spec_terms(load_spec(key).spec, kinds)
    venues = {venue_key(p.stem) for p in _venue_files()}
    for key in sorted(venues):
        v = load_venue(key)
        for f in v.fixtures:
            kinds["place"][f].add(f"venue {key}")
        for a in v.aliases:
            kinds["place"][a].add(f"venue {key}")
        for o in v.objects:
            kinds["object"][o].add(f"venue {key}")
    return kinds


def _venue_files() -> list[Any]:
    base = resources.files("sheli.place").joinpath("data")
    return [p for p in base.iterdir() if p.name.endswith(".yaml")]  # type: ignore[misc]


@pytest.fixture(scope="module")
def terms() -> dict[str, dict[str, set[str]]]:
    return collect()


@pytest.mark.parametrize("kind", sorted(SEARCH))
def test_every_term_has_english(kind: str, terms: dict[str, dict[str, set[str]]]) -> None:
    missing = {t: sorted(w)[:3] for t, w in terms[kind].items() if parts(t, *SEARCH[kind]) is None}
    assert not missing, f"{kind}s without English in sheli/data/glossary.yaml: {missing}"


def test_the_collection_is_not_empty(terms: dict[str, dict[str, set[str]]]) -> None:
    # The test above must see the specs' and venues' terms, not pass on an empty harvest.
    assert {"司射", "賓", "釋獲者"} <= set(terms["role"])
    assert {"揖", "拜", "袒", "挾"} <= set(terms["verb"])
    assert {"西階", "楅", "右物"} <= set(terms["place"])
    assert {"扑", "觶", "中"} <= set(terms["object"])


def test_a_term_without_english_is_caught() -> None:
    assert parts("飛", "verbs") is None
    assert parts("{耦}上射", "roles") == ["上射"]


def test_code_names_are_readers_terms_too() -> None:
    # Every term code names has a reader's English as well (the code's may add a hint).
    assert [t for t in GLOSSARY if english(t) is None] == []
    assert GLOSSARY["司射"] == english("司射", "roles") == "director of archery"


def test_sections_and_entries() -> None:
    g = glossary()
    assert set(g) == set(SECTIONS)
    assert set(g) == {
        "code", "short", "texts", "titles", "holds", "directions", "sets", "words", *KINDS
    }  # fmt: skip
    for kind, entries in g.items():
        for term, en in entries.items():
            assert en.strip() and term.strip(), (kind, term)


def test_every_rite_and_venue_has_an_english_name() -> None:
    # the names a reader of English sees in every title bar: the rites as Steele's
    # translation of the 儀禮 names them (the data file says where), the venues sheli's
    titles = {load_spec(name).spec.title for name in list_specs()} | {
        str(t) for t in VENUES.values()
    }
    assert None not in titles and len(titles) >= 10
    assert [t for t in titles if title_english(t) is None] == []
    assert title_english("鄉射禮") == "The District Archery Meeting"
    assert title_english("大射儀") == "The Observances of the Great Archery Meeting"
    assert title_english("燕禮") == "The Banquet"

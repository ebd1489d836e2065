"""Every role, place, object and held thing a run of each rite meets has English in the one
table of terms (sheli/data/glossary.yaml), read as the English 儀注, the cue sheets, the viewer
and the live app read it; the few that have none are listed here, so that a new gap fails.

tests/test_glossary.py checks the terms of the specs and the venues as written; a run adds
the names the engine makes from them: a place beside another (中之西南), a member of a role
(衆賓2), a thing held with its count (搢矢三).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest
from sharing import same_run

from sheli.engine.records import Step
from sheli.engine.state import holds_words
from sheli.glossary import held_english
from sheli.outputs.english import term
from sheli.rite import list_specs

# every rite shipped: 鄉射禮, 大射儀, 燕射, 燕禮 and the 主皮之射
RITES = tuple(sorted(list_specs()))
# the run of each rite made once (tests/conftest.py, run_once), on one worker, for these tests
pytestmark = same_run("glossary")

# The kinds each field of a step is read with, as outputs/english.py reads it.
FIELDS = {
    "actor": ("roles",),
    "to": ("roles", "places"),
    "place": ("places", "objects"),
    "obj": ("objects", "dress", "places", "roles"),
}

# Names the runs use that the table gives no English for; a reader shows them in brackets.
# None now: a person's own place (賓之位) reads as "the place of the guest", the top step
# (西階盡階) and the places between two lines (當西階、當楣) are in the table.
WITHOUT_ENGLISH: dict[str, set[str]] = {"place": set()}


def _without_english(run_once: Callable[..., Any], rite: str) -> dict[str, set[str]]:
    missing: dict[str, set[str]] = defaultdict(set)
    for rec in run_once(rite).records:
        if not isinstance(rec, Step):
            continue
        for field, kinds in FIELDS.items():
            name = getattr(rec, field)
            if name and term(name, *kinds).startswith("("):
                missing["place" if field == "place" else field].add(name)
        for word in holds_words(rec.holding):
            if held_english(word) is None:
                missing["held"].add(word)
    return dict(missing)


@pytest.mark.parametrize("rite", RITES)
@pytest.mark.slow
def test_every_term_of_a_run_has_english(rite: str, run_once: Callable[..., Any]) -> None:
    missing = _without_english(run_once, rite)
    new = {k: sorted(v - WITHOUT_ENGLISH.get(k, set())) for k, v in missing.items()}
    assert not any(new.values()), f"{rite}: terms without English in glossary.yaml: {new}"


@pytest.mark.slow
def test_the_listed_gaps_are_still_gaps(run_once: Callable[..., Any]) -> None:
    # The list above is what the runs meet without English, no more: a name given English
    # leaves it.
    seen: set[str] = set()
    for rite in RITES:
        seen |= _without_english(run_once, rite).get("place", set())
    assert seen == WITHOUT_ENGLISH["place"]


def test_a_name_without_english_is_caught() -> None:
    assert term("飛鳥之位", "places", "objects").startswith("(")
    assert held_english("飛鳥二") is None
    assert held_english("搢矢三") == "arrows in the belt"

"""The English 儀注 says each step by its verb's frame (sheli/data/verb_frames.yaml), with
place phrases composed from the place's parts and numbers in agreement: the plain errors a
native reader found in the patched English ("goes to (適) at …", "south of the west of",
"3 × arrow", "The other guests be at", a place left as "at (西階盡階)") never come back.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest
from sharing import same_run

from sheli.engine.records import Step
from sheli.engine.state import Holding, Objects
from sheli.outputs.english import (
    english_lines,
    place_phrase,
    plural_noun,
    step_sentence,
    verb_frames,
)
from sheli.rite import list_specs

RITES = ("xiangshe", "dashe", "yanli")
# the run of each rite made once (tests/conftest.py, run_once), on the worker that reads them
# for tests/test_glossary_runs.py too
pytestmark = same_run("glossary")
SLOTS = {"object", "whom", "at", "place", "count", "side", "words"}

# The patterns of the patched English, each with what it was.
BAD = {
    "goes to (": "a verb's preposition cut off from its place by the term",
    "of the west of": "a place named from a place read as two directions",
    " × ": "a count written as a multiplication",
    ") be ": "a verb left in its plain form after its actor",
}
# a preposition, then a term alone in brackets: a place or a thing with no English at all
BARE = re.compile(r"\b(?:at|to|from|in|on|by|into) \(([^a-zA-Z()]+)\)")
DOUBLE_DIRECTION = re.compile(r"\b(?:north|south|east|west) of the (?:north|south|east|west) of")


@pytest.fixture(scope="module")
def runs(run_once: Callable[..., Any]) -> dict[str, Any]:
    """Every rite shipped, run with its defaults (shared, only read)."""
    return {rite: run_once(rite) for rite in sorted(list_specs())}


@pytest.fixture(scope="module")
def step_lines(runs: dict[str, Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for rite in RITES:
        lines = english_lines(runs[rite].records, None, defaultdict(list), [])
        out[rite] = [ln for ln in lines if re.match(r"\s*\d+ ", ln)]
    return out


def _step(
    actor: str,
    verb: str,
    place: str | None = None,
    obj: str | None = None,
    number: int | None = None,
) -> Step:
    return Step(
        1, 0, 1, "xiangshe:1", None, actor, verb, None, None, "N", Holding(), None, place, [], 0,
        Objects(), obj=obj, number=number,
    )  # fmt: skip


@pytest.mark.parametrize("rite", RITES)
def test_no_patched_english_in_a_run(rite: str, step_lines: dict[str, list[str]]) -> None:
    lines = step_lines[rite]
    assert len(lines) > 1000
    for pattern, what in BAD.items():
        hits = [ln for ln in lines if pattern in ln]
        assert not hits, f"{rite}: {what}: {len(hits)} lines, e.g. {hits[0]}"
    doubled = [ln for ln in lines if DOUBLE_DIRECTION.search(ln)]
    assert not doubled, doubled[:3]
    verbs = set(verb_frames())
    bare = [ln for ln in lines for m in BARE.finditer(ln) if m.group(1) not in verbs]
    assert not bare, bare[:3]
    unnamed = re.compile(r"\b(?:at|to|from) the place \(([^()]+)\)")
    assert not [ln for ln in lines for m in unnamed.finditer(ln) if m.group(1) not in verbs]


def test_a_frame_for_every_verb_the_runs_use(runs: dict[str, Any]) -> None:
    used = {rec.verb for r in runs.values() for rec in r.records if isinstance(rec, Step)}
    without = sorted(used - set(verb_frames()))
    assert not without, f"verbs without a frame in verb_frames.yaml: {without}"


def test_every_frame_has_known_slots() -> None:
    for verb, frame in verb_frames().items():
        slots = {m.group(1) for m in re.finditer(r"\{(\w+)(?::\w+)?\}", frame)}
        assert slots <= SLOTS, (verb, frame)
        assert not frame.startswith("{"), (verb, frame)  # the verb's words come first


def test_the_verb_agrees_with_its_actor() -> None:
    assert step_sentence(_step("衆賓", "在", "堂西")).startswith(
        "The other guests (衆賓) are (在) west of the hall (堂西)"
    )
    assert step_sentence(_step("賓", "在", "堂西")).startswith("The guest (賓) is (在) west")
    assert step_sentence(_step("弟子", "適", "乏之東")).startswith(
        "The young men (弟子) go (適) to the east of the blind (乏之東)"
    )


def test_a_count_is_a_number_of_things() -> None:
    said = step_sentence(_step("上射", "搢", obj="矢", number=3))
    assert "thrusts (搢) three arrows (矢) into the belt" in said
    assert plural_noun("stand of meat") == "stands of meat"
    assert plural_noun("cup") == "cups"
    # 取一个 (xiangshe:173), 挾一个: one of the four, not "the arrow"
    assert "takes (取) one arrow (矢)" in step_sentence(_step("上射", "取", obj="矢", number=1))


def test_a_frame_says_what_the_step_leaves_unnamed() -> None:
    # 卒觶 (dashe:232 立卒觶): "drains" alone is not English; the cup is what is drained
    said = step_sentence(_step("上射", "卒觶", "豐之南"))
    assert "drains (卒觶) the cup south of the cup stand (豐之南)" in said
    assert "drains (卒觶) the cup (觶)" in step_sentence(_step("上射", "卒觶", obj="觶"))
    # 束 (dashe:209 異束之以茅): the arrows of each, not one arrow
    assert "binds (束) the arrows (矢)" in step_sentence(_step("小臣", "束", obj="矢"))
    # 進 to a place in front of another: "advances to the front of", not "advances in front of"
    said = step_sentence(_step("上射", "進", "西階前"))
    assert "advances (進) to the front of the west steps (西階前)" in said


def test_place_phrases_are_composed_by_the_verbs_mode() -> None:
    assert step_sentence(_step("上射", "射", "右物")).startswith(
        "The upper archer (上射) shoots (射) from the right shooting mark (右物)"
    )
    assert step_sentence(_step("上射", "升", "西階")).startswith(
        "The upper archer (上射) goes up (升) the west steps (西階)"
    )
    assert place_phrase("階西之東") == "west of the steps, nearer to them (階西之東)"
    assert place_phrase("西階上之東", "to") == (
        "to the top of the west steps, to the east (西階上之東)"
    )
    assert place_phrase("西階盡階") == "at the top step of the west steps (西階盡階)"
    assert place_phrase("賓之位", "to") == "to the place of the guest (賓之位)"
    assert place_phrase("東堂下西上") == (
        "below the east side of the hall, the west at the head (東堂下西上)"
    )


def test_where_he_stands_is_said_apart_from_where_the_thing_goes() -> None:
    # 奠觶于篚 (dashe:89), standing west of it: not "at the basket west of the basket"
    step = Step(
        1, 0, 1, "dashe:89", None, "媵爵者", "奠", None, None, "W", Holding(), None, "下篚之西",
        [], 0, Objects(), obj="觶", at="下篚",
    )  # fmt: skip
    said = step_sentence(step)
    assert "at the lower basket (下篚), standing west of the lower basket (下篚之西)" in said
    # 委矢 (dashe:161) lays down the arrows gathered, not one arrow; 袒 bares the left arm
    # (注 xiangshe:111 袒左免衣也)
    assert "lays down (委) the arrows (矢)" in step_sentence(_step("小臣", "委", obj="矢"))
    assert "bares his left arm (袒)" in step_sentence(_step("上射", "袒"))

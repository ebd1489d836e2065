"""Every word the 經 gives is said.

src/sheli/rite/data/spoken.tsv lists the words of each 命, 曰, 告 and 請 that the 經 of 鄉射禮,
大射儀 and 燕禮 gives (every 曰, and the commands given 以命 whose words it states: xiangshe:123
司射猶挾乘矢以命三耦各與其耦讓取弓矢拾). This check fails, listing them, on any such words
that no step of the run says, on a passage with 曰 that the table leaves out, and on words
that are not the passage's own.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from loglines import step_lines

from sheli.engine import run
from sheli.text.corpus import load_chapter
from sheli.text.variants import fold

TABLE = Path(__file__).parents[1] / "src" / "sheli" / "rite" / "data" / "spoken.tsv"
RITE_OF = {"xiangshe": "xiangshe", "dashe": "dashe", "yan": "yanli"}


class AllHit:
    """Every arrow hits: the count is 左右鈞."""

    def outcome(self, *arrow: object) -> tuple[bool, bool]:
        return True, True


RUNS: dict[str, dict[str, Any]] = {
    "default": {"seed": 1},
    "arrows_short": {"seed": 1, "arrows_short": True},
    "tie": {"outcomes": AllHit()},
    "ke": {"seed": 1, "options": {"ke": True}},
}


def rows() -> list[dict[str, str]]:
    lines = [ln for ln in TABLE.read_text("utf-8").splitlines() if not ln.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


@cache
def said(rite: str, how: str) -> dict[str, set[str]]:
    """The folded words each passage's steps say, in one run."""
    out: dict[str, set[str]] = {}
    for e in step_lines(run(rite, **RUNS[how])):
        if e.get("says"):
            out.setdefault(e["cite"], set()).add(fold(e["says"]))
    return out


def passage(cite: str) -> str:
    key, _, n = cite.partition(":")
    return load_chapter(key).passage(int(n)).text


def test_every_yue_of_the_three_chapters_is_in_the_table() -> None:
    listed = {r["cite"] for r in rows()}
    left_out = [
        p.id
        for key in RITE_OF
        for p in load_chapter(key).passages
        if "曰" in p.text and p.id not in listed
    ]
    assert left_out == []


@pytest.mark.parametrize("row", rows(), ids=lambda r: f"{r['cite']} {r['words']}")
def test_the_words_are_the_passages_own(row: dict[str, str]) -> None:
    assert fold(row["words"]) in fold(passage(row["cite"]))
    if row["run"] == "-":
        assert row["note"], "a row not performed says why"


@pytest.mark.slow
def test_every_word_the_jing_gives_is_said() -> None:
    unsaid = []
    for r in rows():
        if r["run"] == "-":
            continue
        rite = RITE_OF[r["cite"].partition(":")[0]]
        at = r["said_at"] or r["cite"]
        if not any(fold(r["words"]) in s for s in said(rite, r["run"]).get(at, ())):
            unsaid.append(f"{r['cite']} {r['speaker']}: {r['words']}")
    assert unsaid == []

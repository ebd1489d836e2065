"""Left and right as the text gives them.

竝行上射於左 (xiangshe:152; dashe:154 上射于左): coming down the 西階 facing south the 上射 is
on the left, east of his 下射 (疏 xiangshe:176 此決射時升降上射皆居左), in every pair, in 鄉射禮,
大射儀, and the 燕射 of 燕禮. The 笙 stand east of the 磬 facing west in 鄉射禮 (xiangshe:87
笙入立于縣中西面; 注 縣中磬東立西面; 疏 若磬西西面則笙者背磬不可), and at the centre of the
諸侯's 軒縣, facing north, in 燕禮 (yan:101 笙入立于縣中; 注 縣中縣中央也 … 鄉飲酒禮曰磬南北面;
疏 以其諸侯軒縣闕南面而已故得言縣中 … 此雖軒縣亦立近縣之南北面也).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from loglines import step_lines

from sheli.engine import run


@cache
def steps_of(rite: str, **kw: Any) -> list[dict[str, Any]]:
    return step_lines(run(rite, seed=1, **kw))


@pytest.mark.parametrize(
    ("rite", "cite", "kw"),
    [
        ("xiangshe", "xiangshe:152", ()),
        ("xiangshe", "xiangshe:152", (("pairs", 2),)),
        ("yanshe", "xiangshe:152", ()),
        ("yanli", "xiangshe:152", ()),
        ("dashe", "dashe:154", ()),
    ],
)
@pytest.mark.slow
def test_upper_archer_is_east_coming_down(
    rite: str, cite: str, kw: tuple[tuple[str, Any], ...]
) -> None:
    standing: dict[str, dict[str, float]] = {}
    for e in steps_of(rite, **dict(kw)):
        if e["cite"] == cite and e["verb"] == "立" and e["facing"] == "S":
            pair, seat = e["actor"][:-2], e["actor"][-2:]
            standing.setdefault(pair, {})[seat] = e["x"]
    pairs = {p: s for p, s in standing.items() if {"上射", "下射"} <= set(s)}
    assert pairs
    west = [p for p, s in pairs.items() if s["上射"] <= s["下射"]]
    assert west == []


@pytest.mark.parametrize(
    ("rite", "cite", "place", "facing"),
    [("xiangshe", "xiangshe:87", "縣之東", "W"), ("yanli", "yan:101", "縣中", "N")],
)
@pytest.mark.slow
def test_sheng_stand_by_the_qing_not_on_it(rite: str, cite: str, place: str, facing: str) -> None:
    came = [e for e in steps_of(rite) if e["cite"] == cite and e["actor"] in ("笙", "衆笙")]
    came = [e for e in came if e["verb"] == "入"]
    assert {e["actor"] for e in came} == {"笙", "衆笙"}
    assert all(e["place"] == place and e["facing"] == facing for e in came)

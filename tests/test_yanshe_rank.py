"""The 燕射's own 侯 and music, by the host's rank (記 xiangshe:336 and ranks.yaml, 燕射), in
the 燕射 alone (yanshe) and in the whole 燕禮 (yanli)."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from loglines import step_lines

from sheli.engine import run
from sheli.engine.coverage import coverage
from sheli.rite.ranks import load_ranks


@cache
def run_of(rite: str, rank: str | None = None) -> Any:
    return run(rite, options={"rank": rank} if rank else None)


def _hou(r: Any) -> list[str]:
    return [e["obj"] for e in step_lines(r) if e["verb"] == "張" and e["cite"] == "xiangshe:336"]


def _song(r: Any) -> list[str | None]:
    return [e.get("says") for e in step_lines(r) if e["verb"] == "奏" and e["round"] == 3]


@pytest.mark.parametrize("rite", ["yanshe", "yanli"])
@pytest.mark.slow
def test_a_zhuhou_shoots_at_his_mihou_to_lishou(rite: str) -> None:
    cell = load_ranks().cell("諸侯", "燕射")
    r = run_of(rite)
    assert r.params["options"]["rank"] == "諸侯"
    assert _hou(r) == [cell.values["侯"].value[0].名] == ["麋侯"]
    assert cell.values["樂"].value.詩 == "貍首"
    assert _song(r)[0] == "貍首"
    told = [e["says"] for e in step_lines(r) if e["actor"] == "樂正" and e["verb"] == "命"]
    assert "奏貍首閒若一" in told and not any("騶虞" in (s or "") for s in told)


@pytest.mark.slow
def test_the_king_shoots_at_his_xionghou_to_zouyu() -> None:
    cell = load_ranks().cell("王", "燕射")
    r = run_of("yanshe", "王")
    assert _hou(r) == ["熊侯"]
    assert cell.values["樂"].value.詩 == "騶虞"
    # the third round's music is the rank's (記 xiangshe:365); the second round's, under the
    # default reading (R-jun-yue-ao), is one the text does not name
    third = [e for e in step_lines(r) if e["verb"] == "奏" and e["round"] == 3]
    assert third and "騶虞" in third[0]["note"]


@pytest.mark.slow
def test_the_xiangshe_keeps_its_caihou_and_zouyu() -> None:
    # 鄉射及賓射當張采矦二正 (注 xiangshe:336): no 獸侯, and the 騶虞 of xiangshe:249
    r = run("xiangshe")
    assert not _hou(r)
    told = [e["says"] for e in step_lines(r) if e["actor"] == "樂正" and e["verb"] == "命"]
    assert "奏騶虞閒若一" in told


@pytest.mark.parametrize("rite", ["xiangshe"])
def test_xiangshe_336_is_enacted(rite: str) -> None:
    rep = coverage(rite)
    (p336,) = [p for p in rep.passages if p.n == 336]
    assert p336.status == "step"

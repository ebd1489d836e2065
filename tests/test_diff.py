"""``sheli diff``: two runs of one rite compared step by step (sheli.outputs.diff).

For every reading the specs model (docs/readings.md, the rite specs), the run under it differs
from the default run in at least one step; a run compared with itself differs in none."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from click.testing import CliRunner

from sheli.cli import cli
from sheli.engine import run
from sheli.outputs.diff import KINDS, diff_runs
from sheli.rite import list_specs, load_spec
from sheli.rite.readings import own_readings


@cache
def default(rite: str) -> Any:
    return run(rite)


def _alternatives() -> list[tuple[str, str]]:
    return [
        (key, r.id)
        for key in list_specs()
        for r in own_readings(load_spec(key).spec)
        if not r.default
    ]


@pytest.mark.parametrize(("rite", "reading"), _alternatives())
@pytest.mark.slow
def test_each_reading_moves_at_least_one_step(rite: str, reading: str) -> None:
    venue = "shegong_ao" if reading == "R-houdao-ao" else None
    d = diff_runs(default(rite), run(rite, readings=[reading], venue=venue))
    assert d.items, f"{rite} {reading}: no step differs"
    assert all(x.kind in KINDS for x in d.items)
    # the report names the reading B follows, with its sources from the spec
    chosen = [r for r in d.readings if r["run"] == "b"]
    assert [r["id"] for r in chosen] == [reading] and chosen[0]["sources"]


@pytest.mark.parametrize("rite", ["xiangshe", "dashe", "yanshe", "yanli"])
@pytest.mark.slow
def test_a_run_against_itself_differs_nowhere(rite: str) -> None:
    d = diff_runs(default(rite), run(rite))
    assert d.items == [] and d.readings == []
    assert d.steps[0] == d.steps[1] > 0


@pytest.mark.slow
def test_kinds_of_difference() -> None:
    # R-sanou-shi gives the 三耦's acts to others (actor); R-dafu-gan moves the 大夫 (position)
    d = diff_runs(default("dashe"), run("dashe", readings=["R-sanou-shi"]))
    assert set(d.counts()) == {"actor"}
    d = diff_runs(default("dashe"), run("dashe", readings=["R-dafu-gan"]))
    assert d.counts()["position"] >= 1 and d.cites()[0] == "dashe:21"
    # the 君 looses first: the same acts in another order
    d = diff_runs(default("yanshe"), run("yanshe", readings=["R-jun-xianfa"]))
    assert d.counts()["order"] >= 1


@pytest.mark.slow
def test_an_option_that_removes_the_archery() -> None:
    d = diff_runs(default("yanli"), run("yanli", options={"she": False}))
    counts = d.counts()
    assert counts["only_a"] > 1000 and counts["tally"] >= 2 and "only_b" not in counts


@pytest.mark.slow
def test_the_cli_json_and_explicit_runs() -> None:
    res = CliRunner().invoke(cli, ["diff", "dashe", "--reading", "R-dafu-gan", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["b"]["readings"] != data["a"]["readings"]
    assert data["counts"]["position"] >= 1
    assert data["readings"][0]["id"] == "R-dafu-gan"
    res = CliRunner().invoke(
        cli, ["diff", "yanshe", "--a", "--reading R-jun-xianfa", "--b", "--reading R-jun-xianfa"]
    )
    assert res.exit_code == 0 and "differences: none" in res.output
    res = CliRunner().invoke(cli, ["diff", "yanshe", "--a", "--no-such-option"])
    assert res.exit_code == 2


@pytest.mark.slow
def test_an_option_that_changes_the_target_and_the_song() -> None:
    # the king's 燕射: 熊侯 and 騶虞 for the 諸侯's 麋侯 and 貍首 (option rank)
    d = diff_runs(default("yanshe"), run("yanshe", options={"rank": "王"}))
    assert d.counts() == {"object": 1, "says": 2}
    (obj,) = [x for x in d.items if x.kind == "object"]
    assert obj.cite == "xiangshe:336" and (obj.a["obj"], obj.b["obj"]) == ("麋侯", "熊侯")

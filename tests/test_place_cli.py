"""`sheli place`: the ledger in a table or as JSON; user errors exit cleanly."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sheli.cli import cli


def run(*args: str):
    return CliRunner().invoke(cli, ["place", *args], env={"COLUMNS": "200"})


@pytest.mark.parametrize("venue, wu_y", [("xie", 16), ("xiang", 8), ("庠", 8), ("榭", 16)])
def test_json_ledger(venue, wu_y):
    res = run("--venue", venue, "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    rows = {r["name"]: r for r in data["fixtures"]}
    assert data["unit"] == "尺"
    assert rows["右物"]["y"] == wu_y
    assert rows["右物"]["y"] - rows["侯"]["y"] == 300
    assert rows["乏"]["y"] - rows["侯"]["y"] == 100
    assert all(r["source"] or r["assumed"] for r in rows.values())
    params = {p["name"]: p for p in data["params"]}
    assert params["侯道"]["value"] == 300 and params["near"]["assumption"]
    assert "x_m" not in rows["侯"]
    assert data["objects"]["中"]["holds"] == 8
    assert [b["name"] for b in data["hou"]["bands"]] == ["下个", "下躬", "中", "上躬", "上个"]


def test_json_with_metres():
    data = json.loads(run("--venue", "xie", "--json", "--metres").output)
    hou = next(r for r in data["fixtures"] if r["name"] == "侯")
    assert hou["y_m"] == pytest.approx(hou["y"] * data["metre_per_chi"]["value"], abs=1e-3)


def test_table_lists_fixtures_sources_and_assumptions():
    res = run("--venue", "xie", "--metres")
    assert res.exit_code == 0, res.output
    for words in ("侯", "乏", "xiangshe:12", "assumed", "-284", "-65.60", "0.231", "上个", "下綱"):
        assert words in res.output, words


def test_one_point():
    res = run("--venue", "xiang", "--point", "下物")
    assert res.exit_code == 0
    assert "左物" in res.output and "xiangshe:339" in res.output
    assert "parameters" not in res.output


@pytest.mark.parametrize(
    "args, words",
    [
        (["--venue", "辟雍"], "unknown venue"),
        (["--point", "物"], "ambiguous"),
        (["--point", "西楹西"], "西楹"),
    ],
)
def test_user_errors_exit_nonzero_without_traceback(args, words):
    res = run(*args)
    assert res.exit_code != 0
    assert words in res.output
    assert "Traceback" not in res.output
    assert isinstance(res.exception, SystemExit)  # a click error, not a crash


@pytest.mark.parametrize(
    "region, marks", [("hall", ["洗", "楅", "階", "::"]), ("court", ["侯", "乏", "門"])]
)
def test_sketch(region, marks):
    res = run("--venue", "xie", "--sketch", region)
    assert res.exit_code == 0, res.output
    for m in marks:
        assert m in res.output


def test_sketch_is_to_scale():
    from sheli.place import load_venue
    from sheli.place.sketch import sketch

    lines = sketch(load_venue("xie"), "court").splitlines()
    grid = [line for line in lines[1:] if line.startswith("..")]  # the rows inside the walls
    row = {ch: i for i, line in enumerate(grid) for ch in ("侯", "乏") if ch in line}
    # 10 尺 a cell: the 乏 is ten cells north of the 侯 (xiangshe:12 注 北十丈)
    assert row["侯"] - row["乏"] == 10

"""``sheli coverage``: passages enacted by steps, carried by rules, left with a reason, gaps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sheli.cli import cli
from sheli.engine.coverage import coverage

MINI = Path(__file__).parent / "fixtures" / "specs" / "mini.yaml"


def test_statuses_of_the_mini_spec() -> None:
    rep = coverage(MINI)
    by = {p.n: p for p in rep.passages}
    assert [p.n for p in rep.passages] == list(range(123, 161))
    assert by[127].status == "step"
    assert by[147].status == "step" and {s["verb"] for s in by[147].steps} >= {"射"}
    assert by[150].status == "rule" and by[150].rule == "釋獲 refuses round 1"
    assert by[154].status == "uncovered" and "賓揖" in (by[154].reason or "")
    assert by[155].status == by[156].status == "uncovered"  # a range xiangshe:155-156
    assert by[123].status == "gap"
    enacted = sum(1 for p in rep.passages if p.status in ("step", "rule"))
    assert rep.share == pytest.approx(enacted / 38)


def test_share_of_words_covered() -> None:
    by = {p.n: p for p in coverage(MINI).passages}
    # xiangshe:158 乃設楅于中庭南當洗東肆: the step's jing is 乃設楅于中庭, 6 of 11 characters
    assert by[158].chars == pytest.approx(6 / 11)
    assert by[123].chars == 0


def test_steps_inside_procedures_count() -> None:
    by = {p.n: p for p in coverage(MINI).passages}
    assert any(s.get("procedure") == "拾發" for s in by[147].steps)


def test_cli_last_line_is_the_share() -> None:
    res = CliRunner().invoke(cli, ["coverage", str(MINI)])
    assert res.exit_code == 0, res.output
    last = res.output.strip().splitlines()[-1]
    share = coverage(MINI).share
    assert last == f"coverage: {share * 100:.1f}%"
    assert "GAP" in res.output and "no step and no stated reason" in res.output


def test_cli_json() -> None:
    res = CliRunner().invoke(cli, ["coverage", str(MINI), "--json"])
    data = json.loads(res.output)
    assert data["counts"]["rule"] == 1 and data["counts"]["uncovered"] == 3
    statuses = {p["cite"]: p["status"] for p in data["passages"]}
    assert statuses["xiangshe:123"] == "gap"


def test_cli_gaps_only() -> None:
    res = CliRunner().invoke(cli, ["coverage", str(MINI), "--gaps"])
    assert "xiangshe:127" not in res.output and "xiangshe:123" in res.output


def test_cli_broken_spec() -> None:
    bad = MINI.parent / "bad_cite.yaml"
    res = CliRunner().invoke(cli, ["coverage", str(bad), "--json"])
    # a wrong cite is an error of the spec, not a passage left out
    assert res.exit_code == 2 and "bad_cite.yaml:12 (xiangshe:999)" in res.output
    res = CliRunner().invoke(cli, ["coverage", str(MINI.parent / "bad_jing.yaml")])
    assert res.exit_code == 2 and "not in the passage" in res.output
    res = CliRunner().invoke(cli, ["coverage", str(MINI.parent / "bad_yaml.yaml")])
    assert res.exit_code == 2 and "bad_yaml.yaml" in res.output

"""``sheli run``: the 儀注, the JSON Lines log, -o, options and user errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from loglines import log_lines, tally_lines

from sheli.cli import cli
from sheli.engine import run

SPECS = Path(__file__).parent / "fixtures" / "specs"
MINI = SPECS / "mini.yaml"


def invoke(*args: str):
    return CliRunner().invoke(cli, ["run", *args])


def test_jsonl_is_the_api_log() -> None:
    res = invoke(str(MINI), "--format", "jsonl", "--seed", "1")
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert lines == log_lines(run(MINI, seed=1))
    assert lines[0]["type"] == "scene"
    assert {e["type"] for e in lines} == {"scene", "step", "shot", "tally"}


def test_yizhu_has_sections_steps_and_summary() -> None:
    res = invoke(str(MINI), "--seed", "1")
    assert res.exit_code == 0, res.output
    out = res.output
    assert "第十四節 司射誘射教三耦射法之事" in out
    assert "第十五節" in out
    assert out.index("第十四節") < out.index("第十五節")
    assert "司射 升" in out and "@西階上" in out and "xiangshe:128" in out
    assert "北面" in out and "曰「" in out
    assert "summary" in out and "獲而未釋獲" in out
    tally = tally_lines(run(MINI, seed=1))[0]
    assert tally["announcement"] in out


def test_output_file_is_written_whole(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    res = invoke(str(MINI), "--format", "jsonl", "-o", str(out))
    assert res.exit_code == 0
    assert out.read_text("utf-8").count("\n") == len(log_lines(run(MINI)))
    assert list(tmp_path.iterdir()) == [out]  # no temporary file left beside it


def test_broken_spec_leaves_no_output_file(tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    res = invoke(str(SPECS / "bad_pu_up.yaml"), "--format", "jsonl", "-o", str(out))
    assert res.exit_code == 2 and not out.exists()
    assert "bad_pu_up.yaml:17 (xiangshe:153, 升 by 司射)" in res.output


def test_a_run_that_fails_midway_prints_no_line_of_its_log(tmp_path: Path) -> None:
    # the log is written as the run makes it, but reaches stdout only once the run has ended
    rec = tmp_path / "o.csv"
    rec.write_text("round,pair,archer,arrow,hit,on_beat\n1,上耦,上射,1,true,\n", "utf-8")
    res = invoke(str(MINI), "--outcomes", str(rec), "--format", "jsonl")
    assert res.exit_code == 2 and "no outcome recorded" in res.stderr
    assert res.stdout == ""


@pytest.mark.slow
def test_the_streamed_log_is_the_runs_log_byte_for_byte(tmp_path: Path) -> None:
    from sheli.outputs.eventlog import jsonl_lines

    events = log_lines(run("xiangshe", pairs=2, seed=3))
    want = b"".join(jsonl_lines(events))
    res = invoke("xiangshe", "--pairs", "2", "--seed", "3", "--format", "jsonl")
    assert res.exit_code == 0, res.output
    assert res.stdout_bytes == want
    out = tmp_path / "run.jsonl"
    res = invoke("xiangshe", "--pairs", "2", "--seed", "3", "--format", "jsonl", "-o", str(out))
    assert res.exit_code == 0 and out.read_bytes() == want
    n = sum(1 for e in events if e["type"] == "step")
    assert f"({n} steps)" in res.stderr


def test_bad_outcomes_file_is_one_message(tmp_path: Path) -> None:
    bad = tmp_path / "o.csv"
    bad.write_text("round,pair,archer,arrow,hit,on_beat\n2,上耦,上射,9,true,\n", "utf-8")
    res = invoke(str(MINI), "--outcomes", str(bad))
    assert res.exit_code == 2
    assert "o.csv:2" in res.output and "Traceback" not in res.output


def test_missing_recorded_outcome_is_one_message(tmp_path: Path) -> None:
    rec = tmp_path / "o.csv"
    rec.write_text("round,pair,archer,arrow,hit,on_beat\n1,上耦,上射,1,true,\n", "utf-8")
    res = invoke(str(MINI), "--outcomes", str(rec))
    assert res.exit_code == 2 and "no outcome recorded" in res.output


def test_recorded_outcomes_drive_the_tally(tmp_path: Path) -> None:
    rows = ["round,pair,archer,arrow,hit,on_beat"]
    for rnd in (1, 2):
        for n in range(1, 5):
            rows.append(f"{rnd},上耦,上射,{n},true,")
            rows.append(f"{rnd},上耦,下射,{n},{'true' if n == 1 else 'false'},")
    rec = tmp_path / "o.csv"
    rec.write_text("\n".join(rows) + "\n", "utf-8")
    res = invoke(str(MINI), "--outcomes", str(rec), "--format", "jsonl")
    assert res.exit_code == 0, res.output
    tally = next(json.loads(x) for x in res.stdout.splitlines() if '"tally"' in x)
    assert (tally["right"], tally["left"], tally["announcement"]) == (4, 1, "右賢於左一純一奇")


def test_venue_aliases_and_bad_venue() -> None:
    a = invoke(str(MINI), "--venue", "庠", "--format", "jsonl")
    b = invoke(str(MINI), "--venue", "xiang", "--format", "jsonl")
    assert a.exit_code == 0 and a.stdout == b.stdout
    assert json.loads(a.stdout.splitlines()[0])["venue"] == "xiang"
    bad = invoke(str(MINI), "--venue", "castle")
    assert bad.exit_code == 2 and "xie" in bad.output


def test_negative_pairs_refused() -> None:
    res = invoke(str(MINI), "--pairs", "-1")
    assert res.exit_code == 2


def test_unknown_rite() -> None:
    res = invoke("no-such-rite")
    assert res.exit_code == 2 and "no rite spec named" in res.output


def test_alias_from_the_spec(tmp_path: Path, monkeypatch) -> None:
    import shutil

    import sheli.rite as rite

    shutil.copy(MINI, tmp_path / "mini.yaml")
    monkeypatch.setattr(rite, "SPEC_DIR", tmp_path)
    by_alias = invoke("小射", "--format", "jsonl")
    by_key = invoke("mini", "--format", "jsonl")
    assert by_alias.exit_code == 0 and by_alias.stdout == by_key.stdout


def test_yizhu_states_the_assumptions_it_rests_on() -> None:
    out = invoke(str(MINI)).output
    tail = out[out.index("Assumptions") :]
    assert "[A-test] the 弟子 gather the arrows at once — a test" in tail
    assert "[E-youshe]" in tail  # the engine's own, for the 誘射's arrows
    assert "[A-test]" in out[: out.index("Assumptions")]  # marked on the step too
    r = run(MINI)
    assert list(r.assumptions) == ["E-youshe", "A-test"]


def test_fast_jsonl_writer_matches_the_standard_library() -> None:
    from sheli.outputs.eventlog import dumps, jsonl_lines, line_of

    events = log_lines(run(MINI, seed=2))
    want = "".join(dumps(e) + "\n" for e in events)
    assert b"".join(jsonl_lines(events)).decode("utf-8") == want
    assert b"".join(map(line_of, events)).decode("utf-8") == want
    line = dumps(events[1])
    assert "\\u" not in line and json.loads(line) == events[1]  # UTF-8 text, not escaped


def test_unused_recorded_outcomes_are_warned(tmp_path: Path) -> None:
    rows = ["round,pair,archer,arrow,hit,on_beat"]
    for rnd in (1, 2):
        for n in range(1, 5):
            rows += [f"{rnd},上耦,上射,{n},true,", f"{rnd},上耦,下射,{n},false,"]
    rows.append("2,次耦,上射,1,true,")  # 次耦 does not shoot in the mini rite
    rec = tmp_path / "o.csv"
    rec.write_text("\n".join(rows) + "\n", "utf-8")
    res = CliRunner().invoke(cli, ["run", str(MINI), "--outcomes", str(rec)])
    assert res.exit_code == 0
    assert "warning" in res.output and "o.csv:18" in res.output and "never shot" in res.output


def test_outcomes_naming_a_pair_the_run_lacks_are_refused(tmp_path: Path) -> None:
    rec = tmp_path / "o.csv"
    rec.write_text("round,pair,archer,arrow,hit,on_beat\n2,衆耦5,上射,1,true,\n", "utf-8")
    res = invoke(str(MINI), "--outcomes", str(rec), "--pairs", "2")
    assert res.exit_code == 2 and "o.csv:2" in res.output

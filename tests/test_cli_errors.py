"""Bad input to the CLI gets one clear line (file and line where there is one) and exit 2;
bounds are refused at once; warnings a command gives, the others give too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from sheli.cli import cli
from sheli.engine import OptionError, RunOptions, run
from sheli.engine.options import MAX_DAFU, MAX_PAIRS
from sheli.errors import SheliError
from sheli.rite import load_spec
from sheli.rite.loader import SpecError


def check_choices(rite: str, choices: dict) -> None:
    """The engine's checks of a run's choices, as the CLI and a library caller get them."""
    RunOptions(**choices).params(load_spec(rite))


GOLDEN = Path(__file__).resolve().parent / "golden"


def _one_line(args: list[str], code: int = 2) -> str:
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == code, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    lines = [x for x in r.output.splitlines() if x.strip()]
    return lines[-1]


def test_an_unknown_option_value_is_refused() -> None:
    line = _one_line(["run", "xiangshe", "--option", "feast=ture"])
    assert line.startswith("sheli run: xiangshe.yaml:") and "feast is true or false" in line


def test_a_text_option_takes_the_values_the_spec_tests() -> None:
    line = _one_line(["run", "dashe", "--option", "ci=主人"])
    assert "ci is one of 賓, 長" in line
    check_choices("dashe", {"options": {"ci": "長"}})  # 若賓若長 (dashe:93): both run
    with pytest.raises(SpecError, match="zhugong is true or false"):
        check_choices("dashe", {"options": {"zhugong": 1}})


def test_a_reading_names_the_venue_it_needs() -> None:
    line = _one_line(["run", "dashe", "--reading", "R-houdao-ao"])
    assert line.startswith("sheli run: dashe.yaml:") and "needs --venue shegong_ao" in line
    line = _one_line(["cues", "dashe", "--reading", "R-houdao-ao", "--venue", "shegong"])
    assert line.startswith("sheli cues: ") and "not shegong" in line
    check_choices("dashe", {"readings": ("R-houdao-ao",), "venue": "shegong_ao"})


def test_pairs_past_the_bound_are_refused_at_once() -> None:
    line = _one_line(["run", "xiangshe", "--pairs", "100000"])
    assert line == f"sheli run: <spec>: pairs (衆耦) is a whole number 0 to {MAX_PAIRS}, not 100000"
    line = _one_line(["render", "xiangshe", "--dafu", "100000", "-o", "x"])
    assert line.startswith("sheli render: ") and f"0 to {MAX_DAFU}, not 100000" in line
    # the help says the engine's bounds
    help_text = CliRunner().invoke(cli, ["run", "--help"]).output
    assert f"at most {MAX_PAIRS}" in help_text and f"at most {MAX_DAFU}" in help_text


# ------------------------------------------------- a run's choices, checked where it is made


def test_a_library_caller_gets_the_checks_the_cli_has() -> None:
    with pytest.raises(OptionError, match=f"0 to {MAX_PAIRS}, not {MAX_PAIRS + 1}"):
        run("xiangshe", pairs=MAX_PAIRS + 1)
    with pytest.raises(OptionError, match="0 to 50, not -1"):
        run("xiangshe", dafu=-1)
    not_a_number: Any = "7"  # as a caller without type checking may pass it
    with pytest.raises(OptionError, match=r"seed \(of the outcome model\) is a whole number"):
        run("xiangshe", seed=not_a_number)
    with pytest.raises(OptionError, match="feast is true or false"):
        run("xiangshe", options={"feast": "ture"})
    with pytest.raises(OptionError, match="needs --venue shegong_ao"):
        run("dashe", readings=["R-houdao-ao"])


@pytest.mark.slow
def test_a_venue_the_rite_is_not_held_in_names_those_it_is() -> None:
    with pytest.raises(OptionError) as caught:
        run("dashe", venue="xie")
    msg = str(caught.value)
    assert "大射儀 is held in the 射宮: --venue shegong or --venue shegong_ao, not xie" in msg
    assert isinstance(caught.value, SheliError) and msg.startswith("dashe.yaml:")
    line = _one_line(["run", "dashe", "--venue", "xie"])
    assert line == f"sheli run: {msg}"
    # the venue by the text's name; the rite's own venues run
    assert run("xiangshe", venue="庠").venue == "xiang"
    line = _one_line(["run", "鄉射", "--venue", "射宮"])
    assert "鄉射禮 is held in the 州序、鄉庠: --venue xie or --venue xiang, not shegong" in line
    # a spec that says nothing of where it is held runs anywhere the place layer has
    assert run("yanshe", venue="xiang").venue == "xiang"


def test_misspelt_names_get_the_nearest() -> None:
    with pytest.raises(SpecError, match="no rite spec named 'xiangshi'; did you mean xiangshe\\?"):
        run("xiangshi")
    assert "did you mean 鄉射 or 鄉射禮?" in _one_line(["run", "鄉射儀"])
    assert "did you mean" not in _one_line(["run", "castle"])
    with pytest.raises(OptionError, match="no venue 'xei'; did you mean xie\\?"):
        run("xiangshe", venue="xei")
    with pytest.raises(OptionError, match="no option 'fest'; did you mean feast\\?"):
        run("xiangshe", options={"fest": True})
    with pytest.raises(OptionError, match="no reading 'R-houdao-oa'; did you mean R-houdao-ao"):
        run("dashe", readings=["R-houdao-oa"])
    line = _one_line(["run", "dashe", "--reading", "R-houdao-oa"])
    assert line.startswith("sheli run: dashe.yaml: dashe has no reading 'R-houdao-oa'; did you")
    line = _one_line(["cues", "xiangshe", "--venue", "xei"])
    assert line.startswith("sheli cues: xiangshe.yaml: no venue 'xei'; did you mean xie?")


def test_every_user_error_is_one_line_from_the_one_place() -> None:
    import sheli.cli as cli_pkg
    from sheli.cli._util import Command

    # every command is of the class that reports user errors
    for name in cli_pkg.COMMANDS:
        cmd = cli_pkg.LazyGroup._load(name)
        leaves = list(cmd.commands.values()) if isinstance(cmd, click.Group) else [cmd]
        assert leaves and all(isinstance(c, Command) for c in leaves), name
    # a user error of another layer: a passage the text does not have, a venue for `place`
    line = _one_line(["place", "--venue", "castle"])
    assert line.startswith("sheli place: ") and "castle" in line


def test_score_past_the_numerals_is_one_line() -> None:
    assert "0<=x<=9999" in _one_line(["score", "20000", "0"])
    r = CliRunner().invoke(cli, ["score", "9999", "0"])
    assert r.exit_code == 0 and r.output == "右賢於左四千九百九十九純一奇\n"


@pytest.mark.parametrize("command", ["run", "coverage"])
@pytest.mark.parametrize("encoding", ["big5", "gbk"])
def test_a_spec_not_in_utf8_is_one_line(tmp_path: Path, command: str, encoding: str) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_bytes("rite: 測試\nsteps: []\n".encode(encoding))
    line = _one_line([command, str(spec)])
    assert line == f"sheli {command}: spec.yaml:1: not UTF-8 text (byte 6): save the spec as UTF-8"


def test_a_binary_spec_is_one_line(tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_bytes(bytes(range(256)) * 4)
    assert "not UTF-8" in _one_line(["run", str(spec)])
    spec.write_bytes(b"\0" * 100)
    assert "YAML" in _one_line(["coverage", str(spec)])


def test_an_endless_input_is_refused_not_read(tmp_path: Path) -> None:
    assert "larger than 8 MB" in _one_line(["score", "--outcomes", "/dev/zero"])
    assert "larger than 8 MB" in _one_line(["run", "xiangshe", "--outcomes", "/dev/zero"])
    assert "larger than 8 MB" in _one_line(["text", "import", "/dev/zero"])


@pytest.mark.slow
def test_run_gives_the_warnings_score_gives(tmp_path: Path) -> None:
    rows = (GOLDEN / "outcomes.csv").read_text(encoding="utf-8").splitlines()
    n = rows.index("3,上耦,上射,1,true,true")
    rows[n] = "3,上耦,上射,1,true,"
    f = tmp_path / "o.csv"
    f.write_text("\n".join(rows) + "\n", encoding="utf-8")
    warning = f"{f}:{n + 1}: a round-3 hit with no on_beat is not counted (不鼓不釋, xiangshe:248)"
    score = CliRunner().invoke(cli, ["score", "--outcomes", str(f)])
    assert f"warning: {warning}" in score.stderr
    run = CliRunner().invoke(cli, ["run", "xiangshe", "--outcomes", str(f), "--format", "jsonl"])
    assert run.exit_code == 0 and f"sheli run: warning: {warning}" in run.stderr


def test_score_outcomes_is_linear_in_its_pairs(tmp_path: Path) -> None:
    # 4,000 pairs in one round: a list's `in` would make this 8 million comparisons
    f = tmp_path / "o.csv"
    lines = ["round,pair,archer,arrow,hit,on_beat"]
    lines += [f"2,衆耦{k},上射,1,{'true' if k % 2 else 'false'}," for k in range(1, 4001)]
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = CliRunner().invoke(cli, ["score", "--outcomes", str(f)])
    assert r.exit_code == 0 and r.output.startswith("round 2: 右 2000 左 0  右賢於左千純")


# the function a caller runs, and the installed program's, which ends without teardown
ENTRIES = ["from sheli.cli import main; main()", "from sheli.cli import console; console()"]


@pytest.mark.parametrize("entry", ENTRIES)
def test_a_full_stdout_is_one_line(entry: str) -> None:
    target = "/dev/full"
    if not Path(target).exists():
        pytest.skip("no /dev/full")
    with open(target, "w") as out:
        p = subprocess.run(
            [sys.executable, "-c", entry, "text", "xiangshe"],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert p.returncode == 1
    assert p.stderr == "sheli: cannot write the output: No space left on device\n"


@pytest.mark.parametrize("entry", ENTRIES)
def test_a_closed_stdout_ends_quietly(entry: str) -> None:
    p = subprocess.Popen(
        [sys.executable, "-c", entry, "search", "射"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert p.stdout is not None and p.stderr is not None
    p.stdout.read(10)
    p.stdout.close()  # as `| head -c 10` does
    err = p.stderr.read().decode()
    p.wait(timeout=120)
    assert "Traceback" not in err and "Exception" not in err


@pytest.mark.parametrize("rite", ["xiangshe", "dashe", "yanshe"])
@pytest.mark.slow
def test_the_yizhu_has_no_unfilled_template(rite: str) -> None:
    # 還視矦中 (dashe:143): the note of 就物 names the 侯 of its call, 視參侯之中 or 視干侯之中
    r = CliRunner().invoke(cli, ["run", rite])
    assert r.exit_code == 0 and "{" not in r.stdout
    if rite == "dashe":
        assert "視參侯之中" in r.stdout


@pytest.mark.parametrize(("option", "value"), [("--scale", "nan"), ("--hou-dao", "inf")])
def test_a_scale_that_is_no_number_is_refused(option: str, value: str) -> None:
    line = _one_line(["cues", "xiangshe", "--floor", option, value])
    assert f"Invalid value for '{option}': {value} is not a positive number" in line


@pytest.mark.slow
def test_a_role_in_english_or_misspelt_gets_the_texts_name() -> None:
    # the glossary's English, as the English cue sheet gives it, where the text's term is wanted
    line = _one_line(["cues", "xiangshe", "--role", "director of archery"])
    assert line.startswith("sheli cues: no role 'director of archery' in this run; did you mean")
    assert "did you mean 司射 (director of archery)? Roles: 司射," in line
    assert "did you mean 司馬 (marshal)?" in _one_line(["cues", "xiangshe", "--role", "Marshall"])
    # a part of several roles' English: each of them
    line = _one_line(["cues", "xiangshe", "--role", "upper archer"])
    assert "did you mean 上耦上射 (upper archer of the upper pair) or 次耦上射" in line
    # the text's term misspelt, in simplified form
    assert "did you mean 釋獲者?" in _one_line(["cues", "xiangshe", "--role", "释获"])
    assert "did you mean" not in _one_line(["cues", "xiangshe", "--role", "castle"])

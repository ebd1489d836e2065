"""The interface's languages: the gettext catalogue and ``--lang`` of the commands."""

from __future__ import annotations

from importlib import resources

import pytest
from babel.messages.pofile import read_po
from click.testing import CliRunner

from sheli.cli.score import score
from sheli.outputs.english import cjk_outside_brackets


def test_score_in_english_says_the_right_wins_by_two_pairs_and_a_single() -> None:
    # xiangshe:203 右賢於左 …, 以純數告, 若有奇者亦曰奇: 19 − 14 = 5 = 2 純 + 1 奇
    out = CliRunner().invoke(score, ["19", "14", "--lang", "en"]).output
    assert out.startswith("The right wins")
    assert "by two pairs and a single (右賢於左二純一奇)" in out


def test_score_in_english_has_no_cjk_outside_brackets() -> None:
    out = CliRunner().invoke(score, ["19", "14", "--lang", "en", "-e", "-c"]).output
    assert "xiangshe:203" in out
    assert cjk_outside_brackets(out) == []


def test_score_in_simplified_characters() -> None:
    out = CliRunner().invoke(score, ["19", "14", "--lang", "zh-Hans", "-e"]).output
    assert out.splitlines()[0] == "右贤于左二纯一奇"
    assert "饮不胜者" in out


def test_a_tie_in_english() -> None:
    out = CliRunner().invoke(score, ["7", "7", "--lang", "en"]).output
    assert out == "Left and right are equal (左右鈞).\n"


def test_every_interface_string_has_its_english() -> None:
    po = resources.files("sheli").joinpath("locale", "en", "LC_MESSAGES", "sheli.po")
    with po.open("rb") as f:
        catalog = read_po(f, locale="en")

    def done(m: object) -> bool:
        s = m.string  # type: ignore[attr-defined]
        return all(s) if isinstance(s, tuple) else bool(s)

    assert [m.id for m in catalog if m.id and not done(m)] == []


@pytest.mark.slow
def test_lang_is_shared_by_the_table_commands() -> None:
    from sheli.cli.coverage import coverage
    from sheli.cli.params import params
    from sheli.cli.place import place

    runner = CliRunner()
    out = runner.invoke(params, ["--rank", "諸侯", "--occasion", "大射", "--lang", "en"]).output
    assert "archery (射): rank × occasion" in out
    assert "pair (耦)" in out
    out = runner.invoke(place, ["--lang", "en"]).output
    assert "east steps (阼階)" in out
    out = runner.invoke(coverage, ["xiangshe", "--lang", "en"]).output
    # the passage in sheli's translation beside the text
    assert "The rite of the district archery" in out
    out = runner.invoke(coverage, ["xiangshe", "--lang", "zh-Hans"]).output
    assert "乡射之礼" in out and "鄉射之禮" not in out


@pytest.fixture(scope="module")
def default_run(run_once):  # type: ignore[no-untyped-def]
    """The default 鄉射禮, made before the test that writes it (shared, only read)."""
    return run_once("xiangshe")


def test_a_file_written_in_simplified_characters(  # type: ignore[no-untyped-def]
    tmp_path, default_run, shared_command_runs
) -> None:
    from sheli.cli.run import run

    out = tmp_path / "yizhu.txt"
    result = CliRunner().invoke(run, ["xiangshe", "--lang", "zh-Hans", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text("utf-8").startswith("乡射礼 仪注")


def test_the_five_shootings_and_five_things_in_english() -> None:
    from sheli.cli.params import params
    from sheli.outputs.english import cjk_outside_brackets

    # wide enough that no table cell wraps: each row is one line, its brackets on it
    runner = CliRunner(env={"COLUMNS": "2000"})
    out = runner.invoke(params, ["--lang", "en"]).output
    five = out[out.index("the five shootings (五射)") :]
    assert cjk_outside_brackets(five) == []
    assert "its head showing white beyond" in five  # 賈疏's 白矢, in English
    assert "Yi's reading (易氏)" in five and "this is called (興舞)" in five
    out = runner.invoke(params, []).output
    assert "白矢者，矢在侯而貫侯過，見其鏃白" in out and "its head showing white" not in out

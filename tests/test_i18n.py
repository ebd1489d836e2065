"""The interface's languages: the gettext catalogue and ``--lang`` of the commands."""

from __future__ import annotations

from importlib import resources

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

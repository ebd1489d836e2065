"""The 儀注 and the cue sheets in English: nothing Chinese outside the bracketed terms."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from sheli.cli.cues import cues
from sheli.cli.run import run
from sheli.engine.records import Step
from sheli.engine.state import Holding, Objects
from sheli.outputs.cues import ASSUMPTION_ID
from sheli.outputs.english import cjk_outside_brackets, step_sentence, term


@pytest.fixture(scope="module")
def run_en() -> str:
    result = CliRunner().invoke(run, ["xiangshe", "--lang", "en"])
    assert result.exit_code == 0, result.output
    return result.output


def test_run_in_english_has_no_cjk_outside_brackets(run_en: str) -> None:
    assert cjk_outside_brackets(run_en) == []


def test_assumptions_are_numbered_never_named_by_id(run_en: str) -> None:
    # as on the cue sheets: "[assumption 1]" after a step, "1. …" in the list at the end
    assert not ASSUMPTION_ID.findall(run_en)
    assert re.search(r"facing east\. \[assumptions? 1\b", run_en)
    tail = run_en.split("Assumptions (what the text does not say)", 1)[1]
    numbers = [int(n) for n in re.findall(r"^  (\d+)\. ", tail, flags=re.MULTILINE)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) > 20


def test_run_in_english_reads_as_sentences(run_en: str) -> None:
    assert "The director of archery (司射) " in run_en
    assert re.search(r"The right wins|The left wins|Left and right are equal", run_en)
    assert "── the second round of shooting ──" in run_en


@pytest.mark.slow
def test_cues_in_english_have_no_cjk_outside_brackets() -> None:
    result = CliRunner().invoke(cues, ["xiangshe", "--role", "司射", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert "Director of archery (司射): cue sheet" in result.output
    assert "Text: " in result.output  # the passage in sheli's translation
    assert cjk_outside_brackets(result.output) == []


def test_the_check_finds_cjk_outside_brackets() -> None:
    assert cjk_outside_brackets("The guest (賓) bows (拜).\nThe 賓 bows.") == ["The 賓 bows."]
    # a bracket may be nested, or run over a line break (a wrapped table cell)
    assert cjk_outside_brackets("a (b (賓) c)\n(d\n賓) e") == []


def test_a_term_without_english_stands_alone_in_brackets() -> None:
    assert term("飛鳥", "roles") == "(飛鳥)"
    step = Step(
        1,
        0,
        1,
        "xiangshe:1",
        None,
        "衆賓",
        "升",
        0.0,
        0.0,
        "N",
        Holding(),
        None,
        "西階上",
        [],
        1,
        Objects(),
    )
    s = step_sentence(step)
    assert s == (
        "The other guests (衆賓) go up (升) to the top of the west steps (西階上), facing north."
    )


@pytest.mark.slow
def test_the_default_is_still_the_text_s_own_terms() -> None:
    out = CliRunner().invoke(run, ["xiangshe"]).output
    assert out.startswith("鄉射禮 儀注")


@pytest.mark.slow
def test_dashe_in_english_has_no_cjk_outside_brackets() -> None:
    # 大射儀's notes include one cut short with a bracket left open: it is closed
    result = CliRunner().invoke(run, ["dashe", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert "The palace keeper (司宮) goes (適) to the target attendants' wine jars" in result.output
    assert cjk_outside_brackets(result.output) == []
    assert not ASSUMPTION_ID.findall(result.output)

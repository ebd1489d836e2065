"""Cue sheets carry no internal id: an assumption is named by its number on the sheet, and
the sheet ends with what is assumed and why (docs/cues.md, "Assumptions"); the rite and the
venue have their English names. The text and the HTML sheets, in English and in the text's
terms, and the PDF in English."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from sheli.cli.cues import cues
from sheli.outputs.cues import ASSUMPTION_ID
from sheli.outputs.english import cjk_outside_brackets

SEED = 1
pytestmark = pytest.mark.slow  # each runs the rite and writes its sheets: a second or more


def _sheet(tmp_path: Path, *args: str, name: str = "cues.txt") -> str:
    out = tmp_path / name
    res = CliRunner().invoke(cues, ["xiangshe", "--seed", str(SEED), *args, "-o", str(out)])
    assert res.exit_code == 0, res.output
    return out.read_text("utf-8") if not name.endswith(".pdf") else str(out)


def _numbers_are_listed(text: str) -> list[str]:
    """The numbers the sheet's rows name, each listed at its end, in order."""
    named = re.findall(r"\[assumptions? ([0-9, ]+)\]|assumption ([0-9]+)", text)
    numbers = {int(n) for a, b in named for n in (a or b).split(", ")}
    listed = re.findall(r"^\s+([0-9]+)\. ", text.split("Assumptions (what the text")[1], re.M)
    assert numbers and sorted(numbers) == [int(n) for n in listed] == list(
        range(1, len(listed) + 1)
    )
    return listed


def test_english_text_sheet_names_assumptions_by_number(tmp_path: Path) -> None:
    text = _sheet(tmp_path, "--role", "司射", "--lang", "en")
    assert ASSUMPTION_ID.findall(text) == []  # no [A-sishe-start], no (not counted: A-rounds)
    first = text.splitlines()[1]
    assert first.startswith("Director of archery (司射): cue sheet, The District Archery Meeting")
    assert "The district school (州序)" in first
    # 司射適堂西 (xiangshe:111) rests on A-sishe-start: the first the sheet names
    row = next(line for line in text.splitlines() if re.search(r" [0-9]+ xiangshe:111", line))
    assert "[assumption 1]" in row
    listed = _numbers_are_listed(text)
    assert len(listed) >= 5
    tail = text.split("Assumptions (what the text does not say)")[1]
    assert "  1. The director of archery (司射) stands among the host's officers" in tail
    assert cjk_outside_brackets(text) == []


def test_chinese_text_and_html_sheets_have_no_id(tmp_path: Path) -> None:
    text = _sheet(tmp_path, "--role", "司射")
    assert ASSUMPTION_ID.findall(text) == []
    assert "(not counted: assumption 1)" in text  # 注: 誘猶教也 (xiangshe:131)
    _numbers_are_listed(text)
    page = _sheet(tmp_path, "--role", "司射", "--diagrams", "none", name="cues.html")
    assert ASSUMPTION_ID.findall(re.sub(r"<[^>]*>", " ", page)) == []
    assert '<ol class="assumptions"><li value="1">' in page


def test_english_html_sheet_has_no_id(tmp_path: Path) -> None:
    page = _sheet(tmp_path, "--role", "司射", "--lang", "en", "--diagrams", "none", name="c.html")
    seen = re.sub(r"<style>.*?</style>|<[^>]*>", " ", page, flags=re.S)
    assert ASSUMPTION_ID.findall(seen) == []
    assert "<title>The District Archery Meeting (鄉射禮): cue sheets</title>" in page
    assert '<li value="1">The director of archery (司射) stands among' in page


def test_english_pdf_sheet_has_no_id(tmp_path: Path) -> None:
    from sheli.outputs.pdf import chromium_path

    if chromium_path() is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have chromium for the PDF tests (apt-get install chromium)")
        pytest.skip("chromium is not installed")
    import pypdf

    pdf = _sheet(tmp_path, "--role", "司射", "--lang", "en", "--diagrams", "none", name="c.pdf")
    text = " ".join("".join(p.extract_text() or "" for p in pypdf.PdfReader(pdf).pages).split())
    assert "The District Archery Meeting" in text
    assert "assumption 1" in text and "Assumptions (what the text does not say)" in text
    assert ASSUMPTION_ID.findall(text) == []

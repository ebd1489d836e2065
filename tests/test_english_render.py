"""The cue sheets' HTML and the assumptions in English: no CJK character outside brackets."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from sheli.cli.coverage import coverage
from sheli.cli.cues import cues
from sheli.cli.params import params
from sheli.cli.place import place
from sheli.engine import ENGINE_ASSUMPTIONS
from sheli.engine.variants import variant_assumptions
from sheli.outputs.english import (
    assumption_english,
    assumption_translations,
    cjk_outside_brackets,
)
from sheli.rite import list_specs, load_spec


class _Text(HTMLParser):
    """The text a reader sees on a page (not its attributes, styles or images)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self._skip += tag in ("style", "script")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("style", "script")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _seen(page: str) -> str:
    p = _Text()
    p.feed(page)
    return "\n".join(p.parts)


@pytest.mark.slow
def test_html_cue_sheet_in_english(tmp_path: Path) -> None:
    out = tmp_path / "x.html"
    res = CliRunner().invoke(cues, ["xiangshe", "--role", "司射", "--lang", "en", "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text("utf-8")
    seen = _seen(page)
    assert "Director of archery (司射): cue sheet" in seen
    assert "The director of archery (司射) bares his left arm (袒)" in seen
    assert cjk_outside_brackets(seen) == []
    # the near diagrams beside the cues are drawn in English too
    pics = re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", page)
    assert len(pics) > 10
    for pic in pics:
        svg = base64.b64decode(pic).decode("utf-8")
        assert cjk_outside_brackets(_seen(svg)) == []


@pytest.mark.slow
def test_floor_plan_in_english(tmp_path: Path) -> None:
    out = tmp_path / "plan.html"
    res = CliRunner().invoke(cues, ["xiangshe", "--floor", "--lang", "en", "-o", str(out)])
    assert res.exit_code == 0, res.output
    page = out.read_text("utf-8")
    seen = _seen(page)
    assert "east steps (阼階)" in seen  # the table
    assert "One chi (尺) = 0.231 m" in seen
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="plan"') == 2  # drawn
    assert "other guest 2" in seen or "other guests (衆賓)" in seen  # every performer's marks
    assert cjk_outside_brackets(seen) == []


def _all_assumptions() -> dict[str, tuple[str, str]]:
    out = {**ENGINE_ASSUMPTIONS, **variant_assumptions()}
    for name in list_specs():
        for a in load_spec(name).spec.assumptions:
            out[a.id] = (a.text, a.reason)
    return out


def test_every_assumption_has_its_english() -> None:
    every = _all_assumptions()
    assert len(every) > 80
    for key, (what, why) in every.items():
        en_what, en_why = assumption_english(key, what, why)
        assert cjk_outside_brackets(f"{en_what}\n{en_why}") == [], key
    # the translation file names only assumptions that exist, each in full
    for key, (what, why) in assumption_translations().items():
        assert key in every and what and why, key


def test_assumptions_read_their_terms_in_english() -> None:
    what, why = assumption_english("A-zanzhe", *_all_assumptions()["A-zanzhe"])
    assert what.startswith("The mat (席), the dishes (薦) (dried meat and pickles (脯醢))")
    assert "Zheng's commentary (注) xiangshe:277 (「俎者主人贊者設之」)" in why
    what, _ = assumption_english("A-sishe-start", "", "")
    assert what.startswith("The director of archery (司射) stands among the host's officers")


def test_target_drawing_in_english(tmp_path: Path) -> None:
    out = tmp_path / "hou.svg"
    res = CliRunner().invoke(params, ["--target", "諸侯/大射", "--svg", str(out), "--lang", "en"])
    assert res.exit_code == 0, res.output
    seen = _seen(out.read_text("utf-8"))
    assert "great target (大侯) · range 90 bow-lengths (弓)" in seen
    assert cjk_outside_brackets(seen) == []


def test_place_in_english_glosses_its_sources_and_assumptions() -> None:
    out = CliRunner().invoke(place, ["--lang", "en"]).output
    assert "east steps (阼階)" in out
    assert "assumed:" in out
    assert cjk_outside_brackets(out) == []


@pytest.mark.slow
def test_coverage_in_english_glosses_its_rules_and_reasons() -> None:
    out = CliRunner().invoke(coverage, ["xiangshe", "--lang", "en"]).output
    assert "rule: The cast has no (介)" in out or "companion (介)" in out
    assert cjk_outside_brackets(out) == []

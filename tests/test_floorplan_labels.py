"""The floor plan sheet's fixture numbers (outputs/floorplan.py): each fixture in the hall's
plan has its number, and no two numbers are drawn over each other, nor over a fixture's mark.

The boxes are read back from each drawn ``<text>`` (its x, its baseline, its font size and its
characters), with the same estimate of a glyph's width the diagrams' labels use
(sheli.outputs.labels), not from the placement's own record.
"""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest

from sheli.engine import run
from sheli.outputs.cues import build_book
from sheli.outputs.floorplan import HALL_VIEW, plan_svg, whole_view
from sheli.outputs.labels import LINE_HEIGHT, Box, text_width

NS = {"s": "http://www.w3.org/2000/svg"}


def _text_box(t: ET.Element) -> Box:
    """The box a label's text covers: its advance across, a line's height up from its
    baseline less the descent (as sheli.outputs.diagram.layout sets it)."""
    size = float(t.get("font-size", "0"))
    x, base = float(t.get("x", "0")), float(t.get("y", "0"))
    top = base + size * 0.3 - size * LINE_HEIGHT
    return Box(x, top, x + text_width(t.text or "", size), base + size * 0.3)


def _labels(svg: str) -> dict[str, Box]:
    root = ET.fromstring(svg)
    return {
        g.get("data-for", "").removeprefix("fixture:"): _text_box(g.find("s:text", NS))
        for g in root.iterfind(".//s:g[@class='fixture-label']", NS)
    }


@pytest.fixture(scope="module", params=["xiangshe", "dashe"])
def book(request: pytest.FixtureRequest):
    return build_book(run(request.param, seed=1), [], floor=True)


@pytest.mark.parametrize("lang", ["zh-Hant", "en"])
def test_no_two_fixture_numbers_overlap(book, lang: str) -> None:
    numbered = {f.name: f.number for f in book.floor}
    hall = plan_svg(book.venue, book.scale, HALL_VIEW, 470, numbered=numbered, lang=lang)
    whole = plan_svg(
        book.venue, book.scale, whole_view(book.venue), 175, numbered=numbered, lang=lang
    )
    for svg, view in ((hall, HALL_VIEW), (whole, whole_view(book.venue))):
        boxes = _labels(svg)
        root = ET.fromstring(svg)
        width, height = float(root.get("width", "0")), float(root.get("height", "0"))
        inside = {
            f.name
            for f in book.venue.fixtures.values()
            if view.x0 <= f.x <= view.x1 and view.y0 <= f.y <= view.y1 and f.name in numbered
        }
        if view == HALL_VIEW:
            # every fixture of the hall's plan keeps its number, however crowded
            assert set(boxes) == inside and len(boxes) > 40
        else:
            # the whole floor numbers what lies beyond the hall's plan (outlined on it)
            assert boxes and set(boxes) <= inside
            assert root.find(".//s:rect[@class='shown-apart']", NS) is not None
        for (a, ba), (b, bb) in itertools.combinations(boxes.items(), 2):
            assert not ba.overlaps(bb), (lang, a, ba, b, bb)
        for name, bx in boxes.items():
            assert -0.5 <= bx.x0 and bx.x1 <= width + 0.5, (name, bx)
            assert -0.5 <= bx.y0 and bx.y1 <= height + 0.5, (name, bx)
        # the number stands by its fixture: next to it, or joined to it by a leader line
        if view == HALL_VIEW:
            near = sum(
                1
                for g in root.iterfind(".//s:g[@class='fixture-label']", NS)
                if g.find("s:line", NS) is None
            )
            assert near >= 0.75 * len(boxes)

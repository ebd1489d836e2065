"""The floor plan gives every performer his own marks, in metres (outputs/marks.py): each
member of a role that is several people has his own row, and at no moment do two performers
stand on one mark."""

from __future__ import annotations

import math

import pytest

from sheli.engine import run
from sheli.outputs.cues import build_book, render_html, venue_scale
from sheli.outputs.marks import by_performer, performer_marks


@pytest.mark.slow
def test_every_member_has_his_own_marks_in_metres() -> None:
    r = run("xiangshe", seed=1)
    scale = venue_scale(r.plan, hou_dao=20)
    marks = performer_marks(r.records, scale.m)
    rows = dict(by_performer(marks))
    # 衆賓 三人 (疏 xiangshe:316), 工 and 弟子: one row per body
    for name in ("衆賓", "衆賓2", "衆賓3", "弟子2"):
        assert rows[name], name
    for m in marks:
        assert math.isclose(m.x_m, scale.m(m.x)) and math.isclose(m.y_m, scale.m(m.y))
    # the first marks of the three 衆賓 are three places
    firsts = {(rows[n][0].x, rows[n][0].y) for n in ("衆賓", "衆賓2", "衆賓3")}
    assert len(firsts) == 3


@pytest.mark.slow
def test_the_floor_plan_lists_the_marks() -> None:
    book = build_book(run("xiangshe", seed=1), ["司射"], diagrams=False)
    html = render_html(book)
    assert 'id="marks"' in html
    assert html.count("data-performer=") == len(book.performers) > 30
    assert 'data-performer="衆賓2"' in html
    assert build_book(run("xiangshe", seed=1), ["司射"], floor=False, diagrams=False).marks is None

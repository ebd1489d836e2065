"""Cue sheets (sheli cues): every act kept, the words said, metres on the floor, escaping,
errors, the floor plan, and the PDF (where chromium is installed; under CI it must be)."""

from __future__ import annotations

import copy
import os
import re
import unicodedata
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from loglines import step_lines, tally_lines

from sheli.cli import cli
from sheli.engine import run
from sheli.engine.records import Step
from sheli.outputs import cues as C
from sheli.outputs.runofshow import fmt
from sheli.place import load_venue

SEED = 1


@pytest.fixture(scope="module")
def r():
    return run("xiangshe", seed=SEED)


@pytest.fixture(scope="module")
def venue():
    return load_venue("xie")


class Elements(HTMLParser):
    """Collects the attributes of every start tag, and the text, of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse(page: str) -> Elements:
    p = Elements()
    p.feed(page)
    return p


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["cues", *args], env=env)


# ------------------------------------------------------------------ the 釋獲者's sheet
@pytest.mark.slow
def test_every_act_of_the_role_is_on_its_sheet_once(r):
    log = [s["seq"] for s in step_lines(r) if s["actor"] == "釋獲者"]
    sheet = C.role_sheet(r, "釋獲者")
    acts = [c.seq for c in sheet.cues() if not c.addressed]
    assert sheet.acts == len(log) > 100
    assert sorted(acts) == log  # folded or not, no act dropped and none twice
    to_him = [s["seq"] for s in step_lines(r) if s.get("to") == "釋獲者" and s["actor"] != "釋獲者"]
    assert sorted(c.seq for c in sheet.cues() if c.addressed) == to_him


@pytest.mark.slow
def test_folding_keeps_every_step_for_every_role(r):
    for role in C.roles(r):
        sheet = C.role_sheet(r, role)
        want = Counter(s["seq"] for s in step_lines(r) if s["actor"] == role or s.get("to") == role)
        got = Counter(c.seq for c in sheet.cues())
        assert got == want, role
        assert sum(sec.cue_count for sec in sheet.sections) == sum(want.values())


def test_each_row_gives_its_time_from_the_log(r):
    times = {s["seq"]: (s["t"], s["t"] + s["dur"]) for s in step_lines(r)}
    sheet = C.role_sheet(r, "司射")
    text = C.render_text(C.build_book(r, ["司射"], diagrams=False))
    rows = list(sheet.rows())
    assert rows
    for row in rows:
        start, end = times[row.first.seq][0], times[row.last.seq][1]
        assert row.clock == f"{fmt(start)}–{fmt(end)}"
        assert f"time {row.clock}\n" in text
    # his rows come in his own order, one after another in time
    starts = [times[row.first.seq][0] for row in rows if not row.first.addressed]
    assert starts == sorted(starts)


def test_folded_rows_repeat_the_same_cue(r):
    sheet = C.role_sheet(r, "釋獲者")
    folded = [b for b in sheet.blocks() if b.reps > 1]
    assert folded, "the 釋獲 of round 2 repeats and is folded"
    for b in folded:
        for row in b.rows:
            assert row.count == b.reps
            keys = {beat.key() for beat in row.beats}
            assert len(keys) == 1


@pytest.mark.slow
def test_html_sheet_counts_and_announcements(r):
    page = C.render_html(C.build_book(r, ["釋獲者"], floor=False))
    doc = parse(page)
    rows = [a for t, a in doc.tags if t == "div" and "data-kind" in a]
    n_act = sum(int(a["data-count"]) for a in rows if a["data-kind"] == "act")
    assert n_act == sum(1 for s in step_lines(r) if s["actor"] == "釋獲者")
    seqs = [int(x) for a in rows for x in a["data-seqs"].split()]
    assert len(seqs) == len(set(seqs))
    # the announcements of the count, in the text's words, as the 釋獲者 says them
    for t in tally_lines(r):
        assert f"「{t['announcement']}」" in page
    said = {s["says"] for s in step_lines(r) if s["actor"] == "釋獲者" and s["says"]}
    assert said and all(f"「{w}」" in page for w in said)
    assert "xiangshe:203" in page or "xiangshe:204" in page


@pytest.mark.slow
def test_text_sheet_from_the_command_line(r):
    res = invoke("xiangshe", "--role", "釋獲者", "--seed", str(SEED))
    assert res.exit_code == 0, res.output
    out = res.output
    assert out.count("SAY 「") >= len(tally_lines(r))
    for t in tally_lines(r):
        assert f"SAY 「{t['announcement']}」" in out
    assert "中之西" in out and "face 東面 →" in out
    assert "賈疏 §19" in out and "賈疏 §25" in out


# ------------------------------------------------------------------ metres and scale
@pytest.mark.parametrize("args,factor", [((), 1.0), (("--hou-dao", "20"), None)])
@pytest.mark.slow
def test_coordinates_in_metres_are_the_log_times_metre_per_chi_times_scale(
    r, venue, tmp_path, args, factor
):
    out = tmp_path / "s.html"
    res = invoke("xiangshe", "--role", "釋獲者", "--seed", str(SEED), *args, "-o", str(out))
    assert res.exit_code == 0, res.output
    mpc = venue.metre_per_chi.value
    if factor is None:  # --hou-dao 20: the 侯道 of 300 尺 is 20 m
        factor = 20 / (venue.params["侯道"].value * mpc)
    by_seq = {s["seq"]: s for s in step_lines(r)}
    spans = [a for t, a in parse(out.read_text()).tags if t == "span" and "data-x-m" in a]
    assert len(spans) > 20
    for a in spans:
        s = by_seq[int(a["data-seq"])]
        assert float(a["data-x-m"]) == pytest.approx(s["x"] * mpc * factor, abs=5e-4)
        assert float(a["data-y-m"]) == pytest.approx(s["y"] * mpc * factor, abs=5e-4)
    page = out.read_text()
    if factor != 1.0:
        assert "SCALED PLAN" in page and f"{factor:.3f}" in page
    else:
        assert "SCALED PLAN" not in page and "Full size" in page


@pytest.mark.slow
def test_scale_options_conflict_and_bad_values():
    res = invoke("xiangshe", "--role", "司射", "--scale", "0.5", "--hou-dao", "20")
    assert res.exit_code == 2 and "not both" in res.output
    res = invoke("xiangshe", "--role", "司射", "--hou-dao", "0")
    assert res.exit_code == 2 and "positive" in res.output


def test_metres_words_name_the_directions():
    assert C.metres_words(-5.313, -7.392) == "W 5.31 m · S 7.39 m"
    assert C.metres_words(0.2, 1.07) == "E 0.20 m · N 1.07 m"


# ------------------------------------------------------------------ roles
def test_roles_and_simplified_input(r):
    rs = C.roles(r)
    assert rs[:5] == ["司射", "司馬", "獲者", "釋獲者", "弟子"]
    for archer in ("上耦上射", "下耦下射", "賓", "主人", "大夫", "大夫之耦"):
        assert archer in rs
    assert C.resolve_role(r, "释获者") == "釋獲者"
    assert C.resolve_role(r, "上耦上射") == "上耦上射"
    assert C.resolve_role(r, "司正") == "司馬"  # the cast's name of the 司馬


@pytest.mark.slow
def test_unknown_role_is_a_clear_error_listing_the_roles(r):
    with pytest.raises(C.CuesError) as e:
        C.resolve_role(r, "太史")
    assert "太史" in str(e.value) and "釋獲者" in str(e.value) and "上耦上射" in str(e.value)
    res = invoke("xiangshe", "--role", "太史")
    assert res.exit_code == 2
    assert "no role '太史'" in res.output and "司射, 司馬" in res.output
    res = invoke("xiangshe", "--role", "上射")  # several people
    assert res.exit_code == 2 and "上耦上射, 次耦上射" in res.output


def test_unknown_extension_is_refused(tmp_path):
    res = invoke("xiangshe", "--role", "司射", "-o", str(tmp_path / "x.docx"))
    assert res.exit_code == 2 and ".html, .pdf or .txt" in res.output
    assert not list(tmp_path.iterdir())


# ------------------------------------------------------------------ escaping
@pytest.mark.slow
def test_html_escapes_names_and_words(r):
    bad = "釋<獲>&者"
    r2 = copy.deepcopy(r)

    def renamed(e):
        if type(e) is not Step:
            return e
        to = bad if e.to == "釋獲者" else e.to
        e = e._replace(actor=bad if e.actor == "釋獲者" else e.actor, to=to)
        if e.actor == bad and e.verb == "告":
            e = e._replace(says='<script>alert("x")</script>')
        return e

    r2.records = [renamed(e) for e in r2.records]
    for c in r2.records[0].cast:
        if c["actor"] == "釋獲者":
            c["actor"] = bad
    for style in ("near", "plan", "none"):
        page = C.render_html(C.build_book(r2, [bad], floor=False, diagrams=style))
        assert "<script>" not in page and bad not in page, style
        assert "&lt;script&gt;" in page
        assert "釋&lt;獲&gt;&amp;者" in page
    # the plan diagrams label the person too, escaped (the near ones are images of their own)
    page = C.render_html(C.build_book(r2, [bad], floor=False, diagrams="plan"))
    assert re.search(r"<text[^>]*>釋&lt;獲&gt;&amp;者</text>", page)


# ------------------------------------------------------------------ floor plan
@pytest.mark.slow
def test_floor_plan_lists_every_fixture_of_the_scene(r, venue, tmp_path):
    out = tmp_path / "plan.html"
    res = invoke("xiangshe", "--floor", "--seed", str(SEED), "--scale", "0.5", "-o", str(out))
    assert res.exit_code == 0, res.output
    page = out.read_text()
    rows = {a["data-name"]: a for t, a in parse(page).tags if t == "tr" and "data-name" in a}
    scene = r.scene.fixtures
    assert {f["name"] for f in scene} <= set(rows)
    assert set(venue.fixtures) <= set(rows)  # and the rest of the plan
    mpc = venue.metre_per_chi.value
    for f in scene:
        assert float(rows[f["name"]]["data-x-m"]) == pytest.approx(f["x"] * mpc * 0.5, abs=5e-4)
        assert float(rows[f["name"]]["data-y-m"]) == pytest.approx(f["y"] * mpc * 0.5, abs=5e-4)
    assert "SCALED PLAN" in page and "0.500" in page
    assert "堂廉" in page and "Origin 0,0" in page
    assert 'data-kind="act"' not in page  # the floor plan alone


def test_floor_rows_carry_sources(venue):
    rows = C.floor_rows(venue, C.venue_scale(venue))
    hou = next(x for x in rows if x.name == "侯")
    assert hou.source.startswith("xiangshe:374")
    assert hou.y_m == pytest.approx(-284 * 0.231, abs=1e-3)


# ------------------------------------------------------------------ PDF
def _need_chromium() -> None:
    from sheli.outputs.pdf import chromium_path

    if chromium_path() is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have chromium for the PDF tests (apt-get install chromium)")
        pytest.skip("chromium is not installed")


@pytest.fixture(scope="module")
def all_roles_pdf(tmp_path_factory) -> Path:
    _need_chromium()
    out = tmp_path_factory.mktemp("pdf") / "cues.pdf"
    # without diagrams, to be quick: the near ones are printed for one role below
    args = ("--seed", str(SEED), "--hou-dao", "20", "--diagrams", "none", "-o", str(out))
    res = invoke("xiangshe", *args)
    assert res.exit_code == 0, res.output
    return out


@pytest.mark.slow
def test_pdf_has_a_page_per_role_at_least(r, all_roles_pdf):
    import pypdf

    reader = pypdf.PdfReader(str(all_roles_pdf))
    roles = C.roles(r)
    assert len(reader.pages) >= len(roles) + 1  # and the floor plan
    # the bookmarks (from each sheet's heading) say on which page each sheet starts
    tops = [o for o in reader.outline if not isinstance(o, list)]
    # (chromium may repeat the heading's first words in a bookmark: 弟子弟子)
    starts = {}
    for o in tops:
        first = o.title.split()[0]
        half = first[: len(first) // 2]
        name = half if first == half * 2 else first
        starts.setdefault(name, reader.get_destination_page_number(o))
    pages = [starts[role] for role in roles] + [starts["Floor"]]
    assert pages == sorted(pages) and len(set(pages)) == len(pages)  # a new page each
    for role in (roles[0], "釋獲者", roles[-1]):  # and the page does begin with the sheet
        text = reader.pages[starts[role]].extract_text() or ""
        assert text.lstrip().startswith(role)


@pytest.mark.slow
def test_pdf_of_one_role(tmp_path):
    _need_chromium()
    out = tmp_path / "釋獲者.pdf"
    res = invoke("xiangshe", "--role", "釋獲者", "--seed", str(SEED), "-o", str(out))
    assert res.exit_code == 0, res.output
    import pypdf

    reader = pypdf.PdfReader(str(out))
    assert len(reader.pages) >= 2
    text = "".join(p.extract_text() or "" for p in reader.pages)
    assert text.lstrip().startswith("釋獲者")
    assert any(w in text for w in ("右賢於左", "左賢於右", "左右鈞"))
    assert oct(out.stat().st_mode & 0o777) != "0o600"  # readable like any other file
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary left


class _VisibleText(HTMLParser):
    """The text a reader sees on an HTML page: no style, script or title."""

    HIDDEN = ("style", "script", "title")

    def __init__(self) -> None:
        super().__init__()
        self.hidden = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.hidden += tag in self.HIDDEN

    def handle_endtag(self, tag):
        self.hidden -= tag in self.HIDDEN

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def _ideographs(text: str) -> Counter:
    return Counter(c for c in text if unicodedata.name(c, "").startswith("CJK UNIFIED IDEOGRAPH"))


@pytest.mark.slow
def test_pdf_text_is_the_sheet_text_not_radicals(tmp_path):
    """Every ideograph of the 司射's sheet is found as itself in the PDF (the fonts share a
    glyph between 弓 and the radical ⼸; sheli.outputs.pdf says how the PDF avoids it)."""
    _need_chromium()
    pdf, html = tmp_path / "司射.pdf", tmp_path / "司射.html"
    for out in (pdf, html):
        res = invoke("xiangshe", "--role", "司射", "--seed", str(SEED), "-o", str(out))
        assert res.exit_code == 0, res.output
    import pypdf

    text = "".join(p.extract_text() or "" for p in pypdf.PdfReader(str(pdf)).pages)
    radicals = [c for c in text if 0x2E80 <= ord(c) <= 0x2EFF or 0x2F00 <= ord(c) <= 0x2FDF]
    assert radicals == []
    seen = _VisibleText()
    seen.feed(html.read_text(encoding="utf-8"))
    sheet = _ideographs("".join(seen.parts))
    found = _ideographs(text)
    assert sheet["弓"] > 0 and sheet["矢"] > 0
    assert {c: (n, found[c]) for c, n in sheet.items() if found[c] < n} == {}


@pytest.mark.slow
def test_pdf_without_chromium_says_how_to_install_and_writes_nothing(tmp_path):
    out = tmp_path / "x.pdf"
    res = invoke("xiangshe", "--role", "司射", "-o", str(out), env={"CHROMIUM": "/nonexistent"})
    assert res.exit_code == 2
    assert "apt-get install chromium fonts-noto-cjk" in res.output
    assert not out.exists() and not list(tmp_path.iterdir())

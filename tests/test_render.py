"""``sheli render``: what it writes, as a user runs it, and the pieces it is made of.

One render of the default 鄉射禮 (module fixture) is checked from the outside: the files, the
data inside index.html against the engine's own run, every SVG parsed as SVG, the diagrams
packed inside the viewer identical to the SVG files and to the diagram layer's own drawing.
The pieces: the packing of diagrams in parts (any chunks, any order, several packings), the
sharing out of chunks among processes, progress, and failures in any process leaving nothing
behind. The browser tests (tests/browser) open the same kind of render in chromium.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from loglines import log_lines, step_lines, tally_lines

from sheli.cli import cli
from sheli.engine import run
from sheli.engine.records import Scene
from sheli.outputs import render as R
from sheli.outputs.cues import known_assumptions

SVG = "{http://www.w3.org/2000/svg}"

# the elements of SVG 1.1 (https://www.w3.org/TR/SVG11/eltindex.html) that a diagram may use;
# a misspelt or HTML element would be silently ignored by a browser
SVG_ELEMENTS = set(
    "svg g defs desc title symbol use image switch style path rect circle ellipse line "
    "polyline polygon text tspan textPath marker clipPath mask pattern linearGradient "
    "radialGradient stop filter a foreignObject".split()
)


@pytest.fixture(scope="module")
def result(run_once):
    return run_once("xiangshe")


@pytest.fixture(scope="module")
def out(xiangshe_render: Path) -> Path:
    """``sheli render xiangshe --svg -o DIR`` as a user runs it (tests/conftest.py: one per
    session)."""
    return xiangshe_render


def _embedded(html: str) -> tuple[dict, list[bytes]]:
    """The data and the packed diagrams (one gzip blob per drawing process) in index.html."""
    data = re.search(r'<script type="application/json" id="sheli-data">(.*?)</script>', html, re.S)
    blob = re.search(
        r'<script type="application/octet-stream" id="sheli-svg">(.*?)</script>', html, re.S
    )
    assert data and blob
    blobs = [base64.b64decode(b, validate=True) for b in blob.group(1).split()]
    return json.loads(data.group(1)), blobs


@pytest.fixture(scope="module")
def embedded(out: Path) -> tuple[dict, list[bytes]]:
    return _embedded((out / "index.html").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_writes_index_and_one_svg_per_step(out: Path, result) -> None:
    files = sorted((out / "svg").glob("step-*.svg"))
    assert len(files) == len(step_lines(result))
    assert files[0].name == "step-0001.svg"
    assert files[-1].name == f"step-{step_lines(result)[-1]['seq']:04d}.svg"
    # no temporary directories left beside the output
    assert [p.name for p in out.parent.iterdir()] == ["out"]


@pytest.mark.slow
def test_index_is_self_contained(out: Path) -> None:
    html = (out / "index.html").read_text(encoding="utf-8")
    # nothing is loaded from elsewhere: no external script, style, image or link
    assert not re.search(r"<(script|img|iframe|link)[^>]+(src|href)=", html)
    assert "@import" not in html and "url(http" not in html
    assert not re.search(r"\bfetch\(|XMLHttpRequest|import\(", html)
    # the only absolute URLs are XML namespaces, never fetched
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls


@pytest.mark.slow
def test_every_svg_is_svg(out: Path, result) -> None:
    """Each file parses as XML, its root is an SVG element, ids are unique, and the step's
    actor is the one figure drawn as the actor."""
    steps = {s["seq"]: s for s in step_lines(result)}
    shown = 0
    for f in sorted((out / "svg").glob("step-*.svg")):
        root = ET.parse(f).getroot()
        assert root.tag == f"{SVG}svg", f
        assert root.get("viewBox"), f
        ids = [e.get("id") for e in root.iter() if e.get("id")]
        assert len(ids) == len(set(ids)), f
        # every url(#…) (clip paths, markers) points at an element of the same file
        refs = {
            m
            for e in root.iter()
            for v in e.attrib.values()
            for m in re.findall(r"url\(#([^)]+)\)", v)
        }
        assert refs <= set(ids), (f, refs - set(ids))
        for e in root.iter():
            assert e.tag.startswith(SVG), (f, e.tag)
            assert e.tag[len(SVG) :] in SVG_ELEMENTS, (f, e.tag)
        seq = int(f.stem.split("-")[1])
        actors = [
            g.get("data-actor")
            for g in root.iter(f"{SVG}g")
            if "actor" in (g.get("class") or "").split()
            and "person" in (g.get("class") or "").split()
        ]
        # the actor is drawn as such, unless he stands outside the view drawn
        assert actors in ([], [steps[seq]["actor"]]), (f, actors)
        shown += bool(actors)
    assert shown > 0.9 * len(steps)


@pytest.mark.slow
def test_packed_diagrams_are_the_svg_files(out: Path, embedded, result) -> None:
    _, blobs = embedded
    assert len(blobs) >= 1
    svgs = R.unpack_svgs(blobs)
    assert len(svgs) == len(step_lines(result))
    for st, svg in zip(step_lines(result), svgs, strict=True):
        assert (out / "svg" / f"step-{st['seq']:04d}.svg").read_bytes() == svg.encode("utf-8")


def _alone(frames, i: int, scene) -> str:
    """Step ``i`` as the diagram layer draws it with nothing remembered: its run of steps
    (label_run) drawn from its first step (where its labels begin afresh) with every cache
    emptied."""
    from sheli.outputs import diagram

    diagram.clear_caches()
    span = R.label_run(len(frames))
    c = i - i % span
    return R.chunk_svgs(frames[c : i + 1], scene, run=span)[-1]


@pytest.mark.slow
def test_svg_files_are_the_diagram_layers_drawing(out: Path, result) -> None:
    """The files are byte for byte what the diagram layer draws with nothing remembered
    (each chunk from its first step, its labels kept from step to step): the steps on each
    side of every chunk's edge (where a drawing process begins and ends) and every 29th;
    the first step of each chunk is render_svg's alone."""
    from sheli.outputs.diagram import clear_caches, render_svg
    from sheli.outputs.frames import build_frames

    frames = build_frames(result)
    span = R.label_run(len(frames))
    edge = {i for c in range(0, len(frames), span) for i in (c - 1, c)} - {-1}
    for i in sorted(edge | set(range(0, len(frames), 29)) | {len(frames) - 1}):
        f = frames[i]
        want = _alone(frames, i, result.scene).encode("utf-8")
        assert (out / "svg" / R.svg_name(f.seq)).read_bytes() == want, f.seq
        if i % span == 0:
            clear_caches()
            assert render_svg(f, result.scene, highlight=f.actor).encode("utf-8") == want
    clear_caches()


@pytest.mark.slow
def test_data_matches_the_run(embedded, result) -> None:
    data, _ = embedded
    T, S = data["T"], data["S"]
    steps = data["steps"]
    assert [s["q"] for s in steps] == [s["seq"] for s in step_lines(result)]
    by_says = {T[s["y"]]: s for s in steps if s["y"] >= 0}
    # 不貫不釋: the 司射's command, on its passage, with its 注 stored once on the passage
    st = by_says["不貫不釋"]
    assert T[st["a"]] == "司射" and st["c"] == "xiangshe:184" and st["r"] == 2
    p = data["passages"]["xiangshe:184"]
    assert "不貫不釋" in T[p["t"]]
    assert any(T[k] == "注" and "貫猶中也" in T[body] for _, k, body in p["n"])
    assert S[st["y"]] == "不贯不释"
    # the announcements: the steps that make them, and the tally they end
    ann = [s for s in steps if s.get("an")]
    assert [T[s["y"]] for s in ann] == [t["announcement"] for t in tally_lines(result)]
    last = data["tallies"][steps[-1]["t"]]
    assert [d["announcement"] for d in last["done"]] == [
        t["announcement"] for t in tally_lines(result)
    ]
    for d, t in zip(last["done"], tally_lines(result), strict=True):
        assert (d["right"], d["left"]) == (t["right"], t["left"])
    # round 2's 筭 by side equal the tally's count (every counted arrow is on the ground)
    assert last["rounds"]["2"]["right"] == tally_lines(result)[0]["right"]
    assert last["rounds"]["2"]["left"] == tally_lines(result)[0]["left"]
    # the assumptions the steps rest on: each one's words (what, why) are strings of the
    # table, as the spec gives them (the page shows 假定：what, why)
    known = known_assumptions(result)
    assert data["A"] and len(data["A"]) == len({a for s in steps for a in s.get("u", [])})
    texts = {(T[what], T[why]) for what, why in data["A"]}
    assert texts <= set(known.values())
    # passages are stored once each, and only those the run cites
    assert set(data["passages"]) == {s["cite"] for s in step_lines(result)} | {
        s["as"]["cite"] for s in step_lines(result) if s.get("as")
    }


@pytest.mark.slow
def test_menus_cover_sections_and_rounds(embedded, result) -> None:
    data, _ = embedded
    first_of = {}
    for i, s in enumerate(step_lines(result)):
        first_of.setdefault(s["section"], i)
    starts = {}
    for n, i in data["sectionSegs"]:
        starts.setdefault(n, i)
    assert starts == first_of
    rounds = [s["round"] for s in step_lines(result)]
    changes = [0] + [i for i in range(1, len(rounds)) if rounds[i] != rounds[i - 1]]
    assert data["roundSegs"] == [[rounds[i], i] for i in changes]
    assert [r for r, _ in data["roundSegs"]][:4] == [0, 1, 2, 3]
    assert data["T"][data["sections"]["21"]["t"]] == "罰爵之事"


def test_tally_states_follow_the_shots(result) -> None:
    states = R.tally_states(result)
    shots = [e for e in log_lines(result) if e["type"] == "shot" and e["round"] == 2]
    last_shot = shots[-1]["seq"]
    r2 = states[last_shot]["rounds"]["2"]
    assert r2["right"] + r2["left"] == sum(1 for s in shots if s["counted"])
    assert r2["shots"] == sum(1 for s in shots if s["archer"] in ("上射", "下射"))
    assert states[last_shot]["done"] == []  # not yet counted


def test_script_json_cannot_close_its_script() -> None:
    data = {"jing": "</script><script>alert(1)</script>", "c": "<!-- x"}
    s = R._script_json(data)
    assert "</" not in s and "<!--" not in s
    assert json.loads(s) == data


def test_html_escapes_the_title() -> None:
    html = R.viewer_html({"meta": {"titleText": "<b>鄉射</b>"}, "steps": []})
    assert "<b>鄉射</b>" not in html and "&lt;b&gt;鄉射&lt;/b&gt;" in html


def test_the_page_shows_the_first_diagram_before_its_script_runs() -> None:
    # the first step's blob is not the first blob: the step is found by the blobs' heads
    later = R.pack_parts([[f"<svg id='s{i}'>", "</svg>"] for i in range(70)], order=[1, 0])
    blobs = [R.pack_parts([["<svg id='other'>", "</svg>"]]), later]
    blobs[0] = blobs[0][:8] + (70).to_bytes(4, "big") + blobs[0][12:]  # it holds step 70
    html = R.viewer_html({"steps": []}, blobs)
    stage = re.search(r'<figure id="stage"[^>]*>(.*?)</figure>', html, re.S)
    assert stage is not None and stage.group(1) == "<svg id='s0'>\n</svg>"
    assert html.index("</figure>") < html.index('id="sheli-svg"') < html.rindex("<script>")
    assert R.first_svg([]) == ""


DOCS = [
    ["<svg>", "a", "b\nc", "</svg>"],
    ["<svg>", "x", "b\nc", "</svg>"],
    ["<svg>", "x", "b\nc"],
    ["<svg>", "", "</svg>"],  # an empty part: an empty line
    ["<svg>", "</svg>"],
    ["<svg>", "a", "a", "</svg>"],  # a part twice in one step
    ["<svg>", "y\n", "a", "</svg>"],
]


def test_pack_roundtrip_with_changes_anywhere() -> None:
    svgs = ["\n".join(d) for d in DOCS]
    n = len(DOCS)
    for k in (1, 2, 3, 64):
        chunks = list(range(-(-n // k)))
        for order in (chunks, chunks[::-1]):
            assert R.unpack_svgs([R.pack_parts(DOCS, k, order=order)]) == svgs, (k, order)
        # the chunks packed by two processes, the blobs in either order
        if len(chunks) > 1:
            a = R.pack_parts(DOCS, k, order=chunks[::2])
            b = R.pack_parts(DOCS, k, order=chunks[1::2])
            assert R.unpack_svgs([a, b]) == R.unpack_svgs([b, a]) == svgs, k


def test_packer_gives_each_document_and_the_same_part_once() -> None:
    pk = R.PartPacker()
    pk.chunk(0)
    shared = "<g>\n<rect/>\n</g>"
    for d in (["<svg>", shared, "</svg>"], ["<svg>", shared, "<x/>", "</svg>"]):
        assert pk.add(d) == "\n".join(d).encode("utf-8")
    assert pk.parts == ["<svg>", shared, "</svg>", "<x/>"]
    blob = pk.blob()
    assert pk.blob() is blob  # closed: the same packing again
    with pytest.raises(ValueError):
        pk.chunk(64)
    # without documents (no SVG files to write): the same packing
    nodocs = R.PartPacker(docs=False)
    nodocs.chunk(0)
    assert nodocs.add(["<svg>", shared, "</svg>"]) is None
    assert nodocs.add(["<svg>", shared, "<x/>", "</svg>"]) is None
    assert R.unpack_svgs([nodocs.blob()]) == R.unpack_svgs([blob])


def test_unpack_refuses_steps_missing_or_twice() -> None:
    a = R.pack_parts(DOCS, 2, order=[0, 1])
    b = R.pack_parts(DOCS, 2, order=[1, 2, 3])
    with pytest.raises(ValueError, match="twice"):
        R.unpack_svgs([a, b])
    with pytest.raises(ValueError, match="not 0"):
        R.unpack_svgs([R.pack_parts(DOCS, 2, order=[0, 2, 3])])


def test_packer_refuses_a_nul() -> None:
    pk = R.PartPacker()
    pk.chunk(0)
    with pytest.raises(ValueError, match="NUL"):
        pk.add(["<svg>", "a\0b", "</svg>"])


def test_claims_give_every_chunk_once_and_share_the_end() -> None:
    for chunks, procs in ((69, 2), (10, 3), (5, 5), (1, 2), (0, 2)):
        claims = R._Claims(chunks, procs)
        taken: list[list[int]] = [[] for _ in range(procs)]
        # process 0 three times as fast as the others
        speed = [3] + [1] * (procs - 1)
        busy = True
        while busy:
            busy = False
            for k in range(procs):
                for _ in range(speed[k]):
                    c = claims.take(k)
                    if c is not None:
                        taken[k].append(c)
                        busy = True
        assert sorted(c for t in taken for c in t) == list(range(chunks)), (chunks, procs)
        if chunks >= 10:
            # the fast one drew about three times as many, its own segment first, in order
            assert len(taken[0]) >= 2 * len(taken[1]), taken
            own = -(-chunks // procs)
            assert taken[0][:own] == list(range(own))


@pytest.mark.slow
def test_interrupted_render_leaves_nothing(tmp_path: Path, result, monkeypatch) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").write_text("earlier", encoding="utf-8")

    def broken(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(R, "draw_packed", broken)
    with pytest.raises(KeyboardInterrupt):
        R.render(result, out)
    # the earlier render is untouched, and no temporary directory is left
    assert (out / "index.html").read_text(encoding="utf-8") == "earlier"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.slow
def test_a_failing_drawing_raises_with_its_traceback(
    tmp_path: Path, result, monkeypatch, jobs: int
) -> None:
    """A drawing that fails (here at one step, in whichever process draws it) stops the
    render with the failure's traceback; the earlier render stays and nothing is left."""

    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").write_text("earlier", encoding="utf-8")
    real = R.render_svg_parts
    bad = step_lines(result)[150]["seq"]

    def failing(frame, *args, **kwargs):
        if frame.seq == bad:
            raise ZeroDivisionError(f"drawing step {frame.seq}")
        return real(frame, *args, **kwargs)

    monkeypatch.setattr(R, "render_svg_parts", failing)
    errors = (RuntimeError, ZeroDivisionError) if jobs == 1 else RuntimeError
    with pytest.raises(errors) as exc:
        R.render(result, out, jobs=jobs)
    assert f"drawing step {bad}" in str(exc.value)
    if jobs > 1:
        assert "Traceback" in str(exc.value) and "failing" in str(exc.value)
    assert (out / "index.html").read_text(encoding="utf-8") == "earlier"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


@pytest.mark.slow
def test_a_drawing_process_that_dies_is_an_error(tmp_path: Path, result, monkeypatch) -> None:
    """A drawing process that ends without a word (killed, out of memory: here it exits at
    one step) is an error, not a viewer with steps missing."""
    import os

    real = R.render_svg_parts
    bad = step_lines(result)[100]["seq"]

    def dying(frame, *args, **kwargs):
        if frame.seq == bad:
            os._exit(3)
        return real(frame, *args, **kwargs)

    monkeypatch.setattr(R, "render_svg_parts", dying)
    with pytest.raises(RuntimeError, match="ended early"):
        R.render(result, tmp_path / "out", jobs=2, svg_files=False)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_failing_text_pane_raises_and_leaves_nothing(tmp_path: Path, result, monkeypatch):
    """The text pane's data is built in a process of its own: its failure comes back with
    its traceback."""

    def broken(res):
        raise LookupError("no such passage")

    monkeypatch.setattr(R, "viewer_data", broken)
    with pytest.raises(RuntimeError, match="no such passage"):
        R.render(result, tmp_path / "out", jobs=2, svg_files=False)
    assert list(tmp_path.iterdir()) == []


def test_cli_refuses_a_directory_that_is_not_a_render(tmp_path: Path) -> None:
    d = tmp_path / "mine"
    d.mkdir()
    (d / "notes.txt").write_text("keep", encoding="utf-8")
    res = CliRunner().invoke(cli, ["render", "xiangshe", "-o", str(d)])
    assert res.exit_code == 2
    assert "not empty" in res.output
    assert (d / "notes.txt").read_text(encoding="utf-8") == "keep"


@pytest.mark.slow
def test_cli_needs_out_and_shares_run_options(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["render", "xiangshe"])
    assert res.exit_code == 2 and "--out" in res.output
    res = CliRunner().invoke(cli, ["render", "xiangshe", "-o", str(tmp_path / "o"), "--venue", "x"])
    assert res.exit_code == 2 and "xie" in res.output
    res = CliRunner().invoke(cli, ["render", "nosuch", "-o", str(tmp_path / "o")])
    assert res.exit_code == 2 and "nosuch" in res.output
    assert not (tmp_path / "o").exists()
    # every option of `sheli run` but its output format is an option of `sheli render` (and
    # --lang, the language of the printed 儀注: the viewer is not translated yet, docs/i18n.md)
    from sheli.cli.render import render
    from sheli.cli.run import run as run_cmd

    run_opts = {p.name for p in run_cmd.params} - {"fmt", "output", "lang"}
    assert run_opts <= {p.name for p in render.params}


@pytest.mark.slow
def test_cli_writes_no_svg_unless_asked_and_options_reach_the_run(tmp_path: Path) -> None:
    d = tmp_path / "o"
    res = CliRunner().invoke(
        cli,
        [
            "render",
            "xiangshe",
            "-o",
            str(d),
            "--venue",
            "xiang",
            "--seed",
            "3",
            "--no-guests",
        ],
    )
    assert res.exit_code == 0, res.output
    assert not (d / "svg").exists() and sorted(p.name for p in d.iterdir()) == ["index.html"]
    assert "SVG" not in res.output
    data, blobs = _embedded((d / "index.html").read_text(encoding="utf-8"))
    assert data["meta"]["venue"] == "xiang"
    expected = run("xiangshe", venue="xiang", seed=3, guests=False)
    assert [t["announcement"] for t in data["tallies"][data["steps"][-1]["t"]]["done"]] == [
        t["announcement"] for t in tally_lines(expected)
    ]
    assert len(R.unpack_svgs(blobs)) == len(step_lines(expected))


@pytest.mark.slow
def test_parallel_drawing_keeps_order_and_reports_progress(result) -> None:
    # the first 300 steps: enough for several chunks on two processes
    head = [x for x in result.records if isinstance(x, Scene) or x.seq <= 300]
    part = dataclasses.replace(result, records=head)
    calls: list[tuple[int, int]] = []
    two = list(R.iter_svgs(part, jobs=2, progress=lambda d, t: calls.append((d, t))))
    one = list(R.iter_svgs(part, jobs=1))
    assert two == one
    assert [int(re.search(r'data-seq="(\d+)"', s).group(1)) for s in two] == list(range(1, 301))
    assert calls[-1] == (300, 300)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


@pytest.mark.parametrize("jobs", [1, 2, 3])
@pytest.mark.slow
def test_drawn_and_packed_apart_are_the_diagrams(result, tmp_path: Path, jobs: int) -> None:
    """draw_packed on one, two or three processes (each drawing, writing and packing the
    chunks it takes) gives every step's diagram as the chunks drawn in order in one
    process (``chunk_svgs``), writes each file, and reports progress up to the last step."""
    from sheli.outputs.frames import build_frames

    frames = build_frames(result)[:300]  # 5 chunks, the last short
    calls: list[tuple[int, int]] = []
    blobs, nbytes = R.draw_packed(
        frames,
        result.scene,
        jobs=jobs,
        progress=lambda d, t: calls.append((d, t)),
        svg_dir=tmp_path,
    )
    assert 2 <= len(blobs) <= jobs + 1  # 5 chunks, at most 4 (BLOB_STEPS) a blob
    svgs = R.unpack_svgs(blobs)
    assert svgs == R.chunk_svgs(frames, result.scene)
    files = sorted(tmp_path.iterdir())
    assert [p.name for p in files] == [R.svg_name(f.seq) for f in frames]
    assert [p.read_text(encoding="utf-8") for p in files] == svgs
    assert nbytes == sum(len(s.encode("utf-8")) for s in svgs)
    # one call a chunk, counting up to the last step
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert len(calls) == 5 and calls[-1] == (300, 300) and {t for _, t in calls} == {300}


@pytest.mark.slow
def test_the_viewer_composes_every_diagram_of_a_run_with_three_pairs() -> None:
    """With three 衆耦 (people waiting in a crowd at 堂西, the view going back and forth
    between the hall and the range, things set down and taken up), the parts the viewer
    composes are every step's whole drawing: the chunks drawn in order in one process, and,
    at every chunk's edge and every 37th step, drawn with every cache emptied (the chunk
    from its first step)."""
    from sheli.outputs import diagram
    from sheli.outputs.frames import build_frames

    r = run("xiangshe", pairs=3)
    frames = build_frames(r)
    scene = r.scene
    svgs = R.unpack_svgs(R.draw_packed(frames, scene, jobs=2)[0])
    diagram.clear_caches()
    assert svgs == R.chunk_svgs(frames, scene)
    span = R.label_run(len(frames))
    edge = {i for c in range(0, len(frames), span) for i in (c - 1, c)} - {-1}
    for i in sorted(edge | set(range(0, len(frames), 37))):
        assert _alone(frames, i, scene) == svgs[i], i
    diagram.clear_caches()


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.slow
def test_a_long_renders_labels_begin_afresh_a_few_chunks_apart(
    result, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """Where the steps make many runs (LABEL_RUNS; 1 here, so that 300 steps do), a run
    holds a few chunks (label_run: four here), drawn in order by one process, the labels
    kept across the edges of its chunks and begun afresh only at its first step: the
    diagrams are chunk_svgs's by those runs, not by chunks (some differ), each run's first
    step and the step before it drawn alone are the same; the chunks are still packed one
    by one, and progress is still reported after each."""
    from sheli.outputs.frames import build_frames

    monkeypatch.setattr(R, "LABEL_RUNS", 1)
    frames = build_frames(result)[:300]
    scene = result.scene
    span = R.label_run(len(frames))
    assert span == 4 * R.KEYFRAME
    calls: list[int] = []
    blobs, _ = R.draw_packed(frames, scene, jobs=jobs, progress=lambda d, t: calls.append(d))
    svgs = R.unpack_svgs(blobs)
    assert svgs == R.chunk_svgs(frames, scene)
    assert svgs != R.chunk_svgs(frames, scene, run=R.KEYFRAME)
    for i in (span - 1, span, len(frames) - 1):
        assert _alone(frames, i, scene) == svgs[i], i
    chunks = []
    for b in blobs:
        k = int.from_bytes(b[4:8], "big")
        head = [int.from_bytes(b[8 + 4 * j : 12 + 4 * j], "big") for j in range(2 * k)]
        chunks += list(zip(head[::2], head[1::2], strict=True))
    n = len(frames)
    assert sorted(chunks) == [(s, min(R.KEYFRAME, n - s)) for s in range(0, n, R.KEYFRAME)]
    assert sorted(calls) == calls and len(calls) == 5 and calls[-1] == n


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.slow
def test_a_drawing_process_packs_a_few_chunks_a_blob(result, jobs: int) -> None:
    """A drawing process begins a new blob after BLOB_STEPS steps (the viewer inflates only
    the blobs it shows; the process's memory stays bounded on a long run); each blob's head
    names its chunks, and the blobs together are still every diagram."""
    from sheli.outputs.frames import build_frames

    frames = build_frames(result)[: 2 * R.BLOB_STEPS + 100]
    blobs, _ = R.draw_packed(frames, result.scene, jobs=jobs)
    chunks = []
    for b in blobs:
        k = int.from_bytes(b[4:8], "big")
        head = [int.from_bytes(b[8 + 4 * j : 12 + 4 * j], "big") for j in range(2 * k)]
        assert sum(head[1::2]) <= R.BLOB_STEPS
        chunks += list(zip(head[::2], head[1::2], strict=True))
    assert len(blobs) >= 3
    n = len(frames)
    assert sorted(chunks) == [(s, min(R.KEYFRAME, n - s)) for s in range(0, n, R.KEYFRAME)]
    assert R.unpack_svgs(blobs) == R.chunk_svgs(frames, result.scene)


@pytest.mark.slow
def test_a_short_last_chunk_drawn_early_does_not_overfill_a_blob(
    result, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that draws the run with the short last chunk first (as the second of two
    processes may, helping from the end) still begins a new blob before one would hold more
    than BLOB_STEPS steps: the check is on the chunk to come, not on the mark reached."""
    from sheli.outputs.frames import build_frames

    frames = build_frames(result)[: 2 * R.BLOB_STEPS + 100]
    monkeypatch.setattr(R, "_FRAMES", frames)
    monkeypatch.setattr(R, "_SCENE", result.scene)
    runs = -(-len(frames) // R.label_run(len(frames)))
    order = iter([runs - 1, *range(runs - 1)])  # the short run first, then the rest
    blobs, _ = R._draw_chunks(lambda: next(order, None), lambda n: None)
    for b in blobs:
        k = int.from_bytes(b[4:8], "big")
        head = [int.from_bytes(b[8 + 4 * j : 12 + 4 * j], "big") for j in range(2 * k)]
        assert sum(head[1::2]) <= R.BLOB_STEPS
    assert R.unpack_svgs(blobs) == R.chunk_svgs(frames, result.scene)


def test_no_steps_no_diagrams() -> None:
    assert R.draw_packed([], {}, jobs=2) == ([], 0)
    assert R.unpack_svgs([]) == []

"""render_svg: the SVG parses, draws everyone present, highlights the actor, points the
facings the right way, keeps labels apart, and its scale bar is to scale."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sheli.engine import run
from sheli.engine.records import Shot, Step, accept
from sheli.outputs import diagram as diagram_mod
from sheli.outputs.diagram import FACING, body_boxes, label_boxes, render_svg
from sheli.outputs.diagram import crowds as crowds_mod
from sheli.outputs.diagram import memo as memo_mod
from sheli.outputs.diagram import plan as plan_mod
from sheli.outputs.diagram import style as style_mod
from sheli.outputs.english import cjk_outside_brackets
from sheli.outputs.frames import FrameBuilder, build_frames
from sheli.outputs.labels import LabelMemory
from sheli.place import load_venue
from sheli.text.english import english as passage_english

NS = {"s": "http://www.w3.org/2000/svg"}


@pytest.fixture(scope="module")
def default_run(xiangshe_seed1_frames):
    """The default run of seed 1: its scene and frames (tests/conftest.py: one per session)."""
    return xiangshe_seed1_frames


def _svg(frame, scene, **kw) -> ET.Element:
    root = ET.fromstring(render_svg(frame, scene, **kw))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


@pytest.mark.slow
@pytest.mark.parametrize("view", ["auto", "hall", "range", "near"])
def test_everyone_present_has_a_figure(default_run, view: str) -> None:
    scene, fr = default_run
    for f in fr[::250]:
        root = _svg(f, scene, view=view)
        assert root.find("s:title", NS) is not None and root.find("s:title", NS).text
        drawn = {
            g.get("data-actor")
            for g in root.iter(f"{{{NS['s']}}}g")
            if "person" in (g.get("class") or "").split()
        }
        x0, y0, x1, y1 = (float(c) for c in root.get("data-bounds").split())
        if view in diagram_mod.VIEWS:
            assert (x0, y0, x1, y1) == diagram_mod.VIEWS[view]
        # every body: each member of a role that is several people (衆賓2 …) is drawn
        bodies = [q for p in f.people.values() for q in (p, *p.members)]
        present = {q.actor for q in bodies if x0 <= q.x <= x1 and y0 <= q.y <= y1}
        assert drawn == present


@pytest.mark.slow
def test_the_actor_is_highlighted(default_run) -> None:
    scene, fr = default_run
    for f in fr[5::301]:
        root = _svg(f, scene)
        actors = [
            g.get("data-actor")
            for g in root.iter(f"{{{NS['s']}}}g")
            if g.get("class") == "person actor"
        ]
        assert actors == [f.actor]
    # highlight= overrides
    root = _svg(fr[200], scene, highlight="司馬")
    actors = [
        g.get("data-actor")
        for g in root.iter(f"{{{NS['s']}}}g")
        if g.get("class") == "person actor"
    ]
    assert actors == ["司馬"]


@pytest.mark.slow
def test_facing_marks_point_the_right_way(default_run) -> None:
    """North is up: a person facing N has his mark going up the page, E to the right."""
    scene, fr = default_run
    seen = set()
    for f in fr[::40]:
        root = _svg(f, scene)
        for line in root.iter(f"{{{NS['s']}}}line"):
            if line.get("class") != "facing":
                continue
            d = line.get("data-facing")
            dx = float(line.get("x2")) - float(line.get("x1"))
            dy = float(line.get("y2")) - float(line.get("y1"))
            ux, uy = FACING[d]
            n = math.hypot(dx, dy)
            assert abs(dx / n - ux) < 1e-2 and abs(dy / n + uy) < 1e-2, d
            seen.add(d)
    assert {"N", "S", "E", "W"} <= seen


def test_scale_bar_is_to_scale(default_run) -> None:
    scene, fr = default_run
    venue = load_venue(scene.venue)
    for view in ("hall", "range"):
        root = _svg(fr[0], scene, view=view)
        scale = float(root.get("data-scale"))
        bars = {
            r.get("class"): r
            for r in root.iter(f"{{{NS['s']}}}rect")
            if r.get("class") in ("bar-chi", "bar-m")
        }
        chi = bars["bar-chi"]
        assert float(chi.get("width")) == pytest.approx(
            float(chi.get("data-chi")) * scale, abs=0.01
        )
        m = bars["bar-m"]
        assert float(m.get("width")) == pytest.approx(
            float(m.get("data-m")) / venue.metre_per_chi.value * scale, abs=0.01
        )


def test_range_is_to_scale(default_run) -> None:
    """On the range view the 物 and the 侯 stand 300 尺 (侯道五十弓) apart at the view's scale."""
    scene, fr = default_run
    root = _svg(fr[0], scene, view="range")
    scale = float(root.get("data-scale"))
    boxes = {
        g.get("data-name"): [float(v) for v in g.get("data-box").split()]
        for g in root.iter(f"{{{NS['s']}}}g")
        if g.get("class") == "fixture"
    }
    wu = boxes["右物"]
    hou = boxes["侯"]
    wu_y = (wu[1] + wu[3]) / 2
    hou_y = (hou[1] + hou[3]) / 2
    assert hou_y - wu_y == pytest.approx(300 * scale, abs=0.5)


def _no_overlaps(frame, scene, lang: str = "zh-Hant") -> None:
    labels, fixtures = label_boxes(frame, scene, lang=lang)
    boxes = [lab.box for lab in labels]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert not a.overlaps(b), (frame.seq, a, b)
        for b in fixtures:
            assert not a.overlaps(b), (frame.seq, a, b)


@pytest.mark.slow
def test_labels_do_not_overlap_default_run(default_run) -> None:
    scene, fr = default_run
    for f in fr:
        _no_overlaps(f, scene)


@pytest.mark.slow
def test_labels_cover_no_body_default_run(default_run) -> None:
    # every step of the default run: no label lies on a body (each member of a group too)
    scene, fr = default_run
    members = 0
    for f in fr:
        labels, _ = label_boxes(f, scene)
        bodies = body_boxes(f, scene)
        members += sum(1 for p in f.people.values() for _ in p.members)
        for lab in labels:
            hit = [n for n, b in bodies.items() if lab.box.overlaps(b)]
            assert not hit, (f.seq, lab.key, hit)
    assert members > 0


@pytest.mark.slow
def test_labels_do_not_overlap_three_pairs() -> None:
    r = run("xiangshe", seed=1, pairs=3)
    for f in build_frames(r):
        _no_overlaps(f, r.scene)


@pytest.mark.slow
def test_hundred_pairs_labelled_as_crowds() -> None:
    """100 衆耦, a sample of steps: no label overlaps another label, a fixture or a body,
    and the 衆耦 waiting at one place are one label (「… （N人）」) beside their block, not
    two hundred: every one of them is still drawn, and named in his figure's data-*."""
    r = run("xiangshe", seed=1, pairs=100)
    fr = build_frames(r)
    scene = r.scene
    crowded = 0
    for f in fr[:: len(fr) // 24]:
        labels, fixtures = label_boxes(f, scene)
        bodies = body_boxes(f, scene)
        boxes = [lab.box for lab in labels]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert not a.overlaps(b), (f.seq, a, b)
            for b in fixtures:
                assert not a.overlaps(b), (f.seq, a, b)
            hit = [n for n, b in bodies.items() if a.overlaps(b)]
            assert not hit, (f.seq, labels[i].key, hit)
        people = [lab for lab in labels if lab.key.startswith("person:")]
        groups = [lab for lab in labels if lab.key.startswith("group:")]
        assert len(people) + len(groups) < 40, (f.seq, len(people))
        for g in groups:
            n = int(g.lines[0][0][0].rsplit("（", 1)[1].rstrip("人）"))
            assert n > style_mod.CROWD
            crowded += n
    assert crowded > 24 * 100  # most of the 200 衆耦 are in a crowd most of the time
    f = fr[len(fr) // 2]
    root = _svg(f, scene)
    named = {
        g.get("data-actor")
        for g in root.iter(f"{{{NS['s']}}}g")
        if "person" in (g.get("class") or "").split()
    }
    assert {"衆耦100上射", "衆耦100下射", "衆耦1上射"} <= named


def test_labels_as_drawn(default_run) -> None:
    """The label boxes in the SVG are those the placer gave (the test above checks them)."""
    scene, fr = default_run
    f = fr[140]
    labels, _ = label_boxes(f, scene)
    root = _svg(f, scene)
    drawn = sorted(
        g.get("data-box")
        for g in root.iter(f"{{{NS['s']}}}g")
        if "label" in (g.get("class") or "").split()
    )
    want = sorted(style_mod._box_attr(lab.box).split('"')[1] for lab in labels)
    assert drawn == want


def test_suan_drawn_as_tallied(default_run) -> None:
    """At the 數獲's end the rods drawn on each side are the tally's, all counted."""
    scene, fr = default_run
    for f in fr:
        t = f.tally
        if t is None or t.seq != f.seq:
            continue
        root = _svg(f, scene, view="near")
        sides = {
            g.get("data-side"): g
            for g in root.iter(f"{{{NS['s']}}}g")
            if "suan" in (g.get("class") or "").split()
        }
        for side, n in (("右", t.right), ("左", t.left)):
            if not n:
                assert side not in sides
                continue
            g = sides[side]
            assert int(g.get("data-count")) == n
            lines = list(g.iter(f"{{{NS['s']}}}line"))
            assert not [x for x in lines if x.get("class") == "loose"]  # all counted
            # 横 pairs and 縮 singles/bundles account for every rod
            heng = sum(1 for x in lines if x.get("class") == "heng")
            suo = [x for x in lines if x.get("class") == "suo"]
            bundles = sum(1 for x in suo if x.get("stroke-width") == "3")
            assert heng + 20 * bundles + (len(suo) - bundles) == n


def test_actor_path_ends_at_his_figure(default_run) -> None:
    scene, fr = default_run
    f = next(f for f in fr if f.actor == "司射" and f.step.via == "西楹之北")
    root = _svg(f, scene, view="hall")
    line = next(
        p for p in root.iter(f"{{{NS['s']}}}polyline") if "actor-path" in (p.get("class") or "")
    )
    pts = [tuple(map(float, q.split(","))) for q in line.get("points").split()]
    assert len(pts) == 3  # from the 西階上, by the north of the 西楹, to the 左物
    g = next(g for g in root.iter(f"{{{NS['s']}}}g") if g.get("class") == "person actor")
    assert pts[-1] == pytest.approx((float(g.get("data-cx")), float(g.get("data-cy"))))
    scale = float(root.get("data-scale"))
    # the middle point is north (up the page) of the 西楹, 楹 at y 8 尺: 鉤楹内
    _, oy, _, y1 = map(float, root.get("data-origin").split())
    via_y = y1 - (pts[1][1] - oy) / scale
    assert via_y > 8.0


@pytest.mark.slow
def test_a_shot_from_the_wu_is_drawn_in_the_hall_view(default_run) -> None:
    """An archer loosing from his 物 is drawn in the hall view, where he can be read, with
    the flight of his arrow leaving the plan towards the 侯; the inset of the whole range
    shows the arrows at the 侯 (hits on it, misses short of it) and that flight ending on
    the arrow it loosed: the last hit, or the last miss (of those drawn: at most
    ``INSET_MARKS`` of each)."""
    scene, fr = default_run
    S = "{http://www.w3.org/2000/svg}"
    shots = [f for f in fr if f.verb == "射"]
    assert len(shots) >= 28  # 誘射 4, 三耦 24 in the first round alone
    hits_seen = set()
    for f in shots:
        root = _svg(f, scene)
        assert root.get("data-view") == "hall", f.seq
        (fig,) = _g(root, "person", actor=f.actor)
        ax, ay = float(fig.get("data-cx")), float(fig.get("data-cy"))
        view = next(r for r in root.iter(f"{S}rect") if r.get("class") == "view")
        bottom = float(view.get("y")) + float(view.get("height"))
        # in the plan: from the archer, out of the bottom of the view, clipped to it
        clipped = [g for g in root.iter(f"{S}g") if g.get("clip-path") == "url(#plan-clip)"]
        flights = [ln for g in clipped for ln in g.iter(f"{S}line") if ln.get("class") == "flight"]
        assert len(flights) == 1, f.seq
        (fl,) = flights
        assert (float(fl.get("x1")), float(fl.get("y1"))) == pytest.approx((ax, ay), abs=0.01)
        assert float(fl.get("y2")) > bottom
        # in the inset: the arrows at the 侯 as the frame has them, and the flight to this one
        (arrows,) = _g(root, "inset-arrows")
        n, h = f.objects.arrows_hou, f.objects.hits_hou
        assert (int(arrows.get("data-arrows")), int(arrows.get("data-hits"))) == (n, h)
        marks = list(arrows.iter(f"{S}circle"))
        hit_marks = [c for c in marks if c.get("fill") == "#000"]
        miss_marks = [c for c in marks if c.get("fill") == "#888"]
        cap = style_mod.INSET_MARKS  # more would only overlap at the inset's scale
        assert (len(hit_marks), len(miss_marks)) == (min(h, cap), min(n - h, cap))
        (shot,) = f.shots
        (ifl,) = [ln for ln in root.iter(f"{S}line") if ln.get("class") == "inset-flight"]
        assert ifl.get("data-hit") == str(shot.hit).lower() == fl.get("data-hit")
        last = (hit_marks if shot.hit else miss_marks)[-1]
        assert (float(ifl.get("x2")), float(ifl.get("y2"))) == pytest.approx(
            (float(last.get("cx")), float(last.get("cy"))), abs=0.01
        )
        hits_seen.add(shot.hit)
        if f.cite in ("xiangshe:131", "xiangshe:132"):
            # 誘射: 不去旌 (xiangshe:130), the 旌 stays leant at the 侯中, on the inset too
            (jing,) = [q for q in root.iter(f"{S}path") if q.get("class") == "inset-jing"]
            foot = [float(c) for c in jing.get("d").split("v")[0][1:].split()]
            (inset,) = _g(root, "inset")
            (hou,) = [ln for ln in inset.iter(f"{S}line") if ln.get("stroke") == "#a33"]
            x_hou = (float(hou.get("x1")) + float(hou.get("x2"))) / 2
            assert foot == pytest.approx([x_hou, float(hou.get("y1"))], abs=0.05)
    assert hits_seen == {True, False}


@pytest.mark.parametrize("view", ["auto", "near"])
@pytest.mark.slow
def test_walks_are_clipped_to_the_plan(default_run, view: str) -> None:
    """A walk that runs out of the view (from the 司馬之南 to the 中, on a near view) is drawn
    only on the plan: every path is in the group clipped to it."""
    scene, fr = default_run
    S = "{http://www.w3.org/2000/svg}"
    beyond = 0
    for f in fr[::7]:
        a = f.people.get(f.actor)
        if a is None or a.moved_at != f.seq:
            continue
        root = _svg(f, scene, view=view)
        paths = [p for p in root.iter(f"{S}polyline") if "path" in (p.get("class") or "")]
        clipped = [
            p
            for g in root.iter(f"{S}g")
            if g.get("clip-path") == "url(#plan-clip)"
            for p in g.iter(f"{S}polyline")
        ]
        assert (
            paths and len(paths) == len(clipped) and set(map(id, paths)) == set(map(id, clipped))
        ), f.seq
        view_rect = next(r for r in root.iter(f"{S}rect") if r.get("class") == "view")
        y1 = float(view_rect.get("y")) + float(view_rect.get("height"))
        y0 = float(view_rect.get("y"))
        for p in paths:
            ys = [float(v) for v in p.get("points").replace(",", " ").split()[1::2]]
            beyond += any(y < y0 or y > y1 for y in ys)
    if view == "near":
        assert beyond > 0  # there are walks from beyond a near view: the clip matters


def test_unknown_view_refused(default_run) -> None:
    scene, fr = default_run
    with pytest.raises(ValueError):
        render_svg(fr[0], scene, view="sky")


def test_near_view_holds_the_highlighted_person(default_run) -> None:
    scene, fr = default_run
    f = next(f for f in fr if f.actor == "釋獲者" and f.verb == "數獲")
    for who in ("釋獲者", "主人", "獲者"):
        root = _svg(f, scene, view="near", highlight=who, width=300)
        x0, y0, x1, y1 = (float(c) for c in root.get("data-bounds").split())
        p = f.people[who]
        assert x0 <= p.x <= x1 and y0 <= p.y <= y1
        assert (x1 - x0, y1 - y0) == plan_mod.NEAR


@pytest.mark.slow
def test_dress_and_holds_drawn_as_logged(default_run) -> None:
    """袒, 決遂, 張弓 and 弛弓, 扑, 觶 on each figure are those of the person's state."""
    scene, fr = default_run
    seen: set[str] = set()
    for f in fr[::60]:
        root = _svg(f, scene)
        for g in root.iter(f"{{{NS['s']}}}g"):
            if "person" not in (g.get("class") or "").split():
                continue
            bodies = {q.actor: q for p in f.people.values() for q in (p, *p.members)}
            p = bodies[g.get("data-actor")]
            classes = {c for e in g.iter() for c in (e.get("class") or "").split()}
            holds = " ".join(p.holds)
            assert ("tan" in classes) == ("袒" in p.dress)
            assert ("jue" in classes) == ("決遂" in p.dress)
            assert ("zhang" in classes) == ("張弓" in holds)
            assert ("chi" in classes) == ("弛弓" in holds)
            assert ("pu" in classes) == ("扑" in holds)
            assert ("zhi" in classes) == any(h.startswith(("觶", "爵")) for h in p.holds)
            seen |= classes & {"tan", "jue", "zhang", "chi", "pu", "zhi"}
    assert seen == {"tan", "jue", "zhang", "chi", "pu", "zhi"}


def test_narrow_hall_has_no_inset(default_run) -> None:
    scene, fr = default_run
    narrow = _svg(fr[0], scene, view="hall", width=400)
    wide = _svg(fr[0], scene, view="hall", width=900)

    def insets(root):
        return [g for g in root.iter(f"{{{NS['s']}}}g") if g.get("class") == "inset"]

    assert not insets(narrow) and len(insets(wide)) == 1


@pytest.mark.parametrize(("venue", "view"), [("xiang", "auto"), ("xie", "near")])
@pytest.mark.slow
def test_labels_do_not_overlap_other_venue_and_view(venue: str, view: str) -> None:
    r = run("xiangshe", seed=3, venue=venue)
    for f in build_frames(r)[::5]:
        labels, fixtures = label_boxes(f, r.scene, view=view)
        boxes = [lab.box for lab in labels]
        for i, a in enumerate(boxes):
            assert not any(a.overlaps(b) for b in boxes[i + 1 :]), f.seq
            assert not any(a.overlaps(b) for b in fixtures), f.seq


def test_a_diagram_depends_only_on_its_inputs(default_run) -> None:
    """render_svg is a function of its arguments: a sequence of steps drawn with a label
    memory of its own is the same, byte for byte, whether or not other drawings (with
    another memory, or none) come before it and between its steps; and the memory is what
    keeps the labels, for some of its steps are drawn otherwise without one."""
    scene, frames = default_run
    ours, others = frames[200:260], frames[1000:1060]

    def sequence(between: bool) -> list[str]:
        memory, other = LabelMemory(), LabelMemory()
        out = []
        for f, g in zip(ours, others, strict=True):
            if between:
                render_svg(g, scene, highlight=g.actor, label_memory=other)
                render_svg(g, scene)
            out.append(render_svg(f, scene, highlight=f.actor, label_memory=memory))
        return out

    diagram_mod.clear_caches()
    alone = sequence(between=False)
    for f in frames[:200:7]:  # drawn before: with a memory, and without
        render_svg(f, scene, highlight=f.actor, label_memory=LabelMemory())
        render_svg(f, scene, view="hall")
    assert sequence(between=True) == alone
    anew = [render_svg(f, scene, highlight=f.actor) for f in ours]
    assert anew[0] == alone[0] and anew != alone
    diagram_mod.clear_caches()


@pytest.mark.slow
def test_cached_drawing_is_the_same_as_fresh(default_run) -> None:
    """The caches kept between steps (plan, figures, labels, numbers) change nothing: a
    frame drawn alone, with every cache empty, is byte for byte the frame drawn in a
    sequence, and so for each view, a narrow canvas and a highlight other than the actor."""
    scene, frames = default_run
    picks = frames[::97]
    kinds = [{}, {"view": "hall"}, {"view": "range"}, {"view": "near", "highlight": "司馬"}]
    kinds.append({"width": 500})
    seq = {}
    diagram_mod.clear_caches()
    for f in frames[:400:3] + picks:  # warm the caches on many other steps first
        for kw in kinds:
            seq[(f.seq, tuple(sorted(kw.items())))] = render_svg(f, scene, **kw)
    for f in picks:
        for kw in kinds:
            diagram_mod.clear_caches()
            assert render_svg(f, scene, **kw) == seq[(f.seq, tuple(sorted(kw.items())))]
    diagram_mod.clear_caches()
    for v in (0.0, -0.0, -0.001, 3, 2.999, 12.345, -7.5, 1e-9):
        assert style_mod._f(v) == style_mod._f_uncached(v)


def _crowd_stretch(after: int) -> tuple[dict, list]:
    """The scene of a run with 8 衆耦, and its frames from 20 steps before the first step of
    a 衆耦 who moves to ``after`` steps after it (the crowd at 堂西 forms and breaks up)."""
    r = run("xiangshe", seed=1, pairs=8)
    frames = build_frames(r)
    at = next(
        i
        for i, f in enumerate(frames)
        if (f.actor or "").startswith("衆耦") and f.people[f.actor].moved_at == f.seq
    )
    return r.scene, frames[max(at - 20, 0) : at + after]


@pytest.mark.slow
def test_drawing_in_order_is_the_same_as_fresh_with_crowds(monkeypatch) -> None:
    """With 衆耦 waiting at 堂西 in a crowd (people leave it and come back to it, so the
    crowd's block is laid out again from the last step's, and only the dots of those who
    moved are drawn again), every step of a stretch drawn in order is byte for byte the
    step drawn alone with every cache empty."""
    scene, stretch = _crowd_stretch(140)
    moved = []
    real = crowds_mod._move_layout

    def spy(*args):
        moved.append(len(args[-1]))
        return real(*args)

    monkeypatch.setattr(crowds_mod, "_move_layout", spy)
    diagram_mod.clear_caches()
    in_order = [render_svg(f, scene, highlight=f.actor) for f in stretch]
    assert len(moved) > 20  # most steps laid out from the last one's layout
    for f, svg in zip(stretch[::3], in_order[::3], strict=True):
        diagram_mod.clear_caches()
        assert render_svg(f, scene, highlight=f.actor) == svg, f.seq
    diagram_mod.clear_caches()


@pytest.mark.slow
def test_crowds_brought_up_to_date_are_those_found_anew(monkeypatch) -> None:
    """After a few people moved, the crowds (and those in the view, and those labelled
    alone) are found again only where they left or joined one: at every step of a stretch
    where the crowd at 堂西 forms and breaks up, they are those ``_crowds`` finds among
    everyone in the view, the same objects in the same order; and the stretch is drawn
    byte for byte as each step drawn alone."""
    scene, stretch = _crowd_stretch(400)
    found = []
    real = crowds_mod._moved_orders

    def spy(*args):
        out = real(*args)
        found.append(bool(out))
        return out

    monkeypatch.setattr(crowds_mod, "_moved_orders", spy)
    diagram_mod.clear_caches()
    checked = 0
    in_order = []
    for f in stretch:
        in_order.append(render_svg(f, scene, highlight=f.actor))
        for e in memo_mod._MEMO.people.values():
            v, rr, plist, layout, orders = e[0], e[1], e[3], e[4], e[5]
            if crowds_mod._CROWDS not in orders:
                continue
            vis = [p for p in plist if v.x0 <= p.x <= v.x1 and v.y0 <= p.y <= v.y1]
            c = crowds_mod._crowds(vis, layout[1], layout[2], layout[0], rr)
            mine = orders[crowds_mod._CROWDS]
            assert len(vis) == len(orders[crowds_mod._VISIBLE])
            assert all(a is b for a, b in zip(vis, orders[crowds_mod._VISIBLE], strict=True))
            assert list(mine.groups) == list(c.groups), f.seq
            for k, ps in c.groups.items():
                assert all(a is b for a, b in zip(ps, mine.groups[k], strict=True)), (f.seq, k)
            assert mine.anchors == c.anchors, f.seq
            assert orders[crowds_mod._SOLO] == [p for p in vis if p.actor not in c.members]
            checked += 1
    assert sum(found) > 20 and checked > len(stretch)  # the crowds brought up to date, often
    for f, svg in zip(stretch[::7], in_order[::7], strict=True):
        diagram_mod.clear_caches()
        assert render_svg(f, scene, highlight=f.actor) == svg, f.seq
    diagram_mod.clear_caches()


# ------------------------------------------------------------------ a venue with several 侯

SANHOU = Path(__file__).parent / "fixtures" / "venues" / "sanhou.yaml"


@pytest.fixture(scope="module")
def sanhou():
    """The test venue of three 侯 (tests/fixtures/venues/sanhou.yaml: the 州序 with 大侯,
    參侯 and 干侯 at 540, 420 and 300 尺), loadable as ``sanhou`` while the tests run; and
    the default run's log with each shot of the 上耦 at the 大侯, of the 次耦 at the 參侯,
    the rest naming no 侯 (so at the default: the venue's first, the 大侯)."""
    import yaml

    from sheli.place import loader

    real = loader._read

    def read(key: str):
        if key == "sanhou":
            data = yaml.safe_load(SANHOU.read_text("utf-8"))
            return loader._merge(real(data["extends"]), data)
        return real(key)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(loader, "_read", read)
        mp.setitem(loader.VENUE_ALIASES, "sanhou", "sanhou")
        diagram_mod.clear_caches()
        plan_mod._venue.cache_clear()
        r = run("xiangshe", seed=1)
        records = [
            e._replace(target="大侯" if e.pair == "上耦" else "參侯")
            if isinstance(e, Shot) and e.pair in ("上耦", "次耦")
            else e
            for e in r.records
        ]
        scene = r.scene._replace(venue="sanhou")
        plan = load_venue("sanhou")
        yield scene, records, accept(records, FrameBuilder(plan)), plan
        diagram_mod.clear_caches()
        plan_mod._venue.cache_clear()


def _g(root: ET.Element, cls: str, **attrs: str) -> list[ET.Element]:
    return [
        g
        for g in root.iter("{http://www.w3.org/2000/svg}g")
        if cls in (g.get("class") or "").split()
        and all(g.get(f"data-{k}") == v for k, v in attrs.items())
    ]


def test_every_hou_drawn_with_its_fa_and_the_range_fits_the_farthest(sanhou) -> None:
    scene, _, frames, venue = sanhou
    ts = {t.name: t for t in diagram_mod.targets("sanhou")}
    assert list(ts) == ["大侯", "參侯", "干侯"]
    # width: its own size where it has one, else the venue's 侯 (the 上个 of the 序, 40 尺)
    assert [ts[n].width for n in ts] == [72.0, 56.0, 40.0]
    assert [ts[n].fa for n in ts] == ["大侯之乏", "參侯之乏", "干侯之乏"]
    root = _svg(frames[0], scene, view="range")
    _, y0, _, y1 = map(float, root.get("data-bounds").split())
    scale = float(root.get("data-scale"))
    far = venue.fixtures["大侯"]
    assert y0 <= far.y - 6 and y0 <= venue.fixtures["門"].y  # the farthest 侯 and the 門 fit
    for name, t in ts.items():
        (g,) = _g(root, "fixture", name=name)
        bx0, by0, bx1, by1 = map(float, g.get("data-box").split())
        assert math.isclose(bx1 - bx0, t.width * scale, abs_tol=0.02), name
        # on the plan at its distance: the 侯道 from the line of the 物
        assert math.isclose((by0 + by1) / 2, 116 + (y1 - t.y) * scale, abs_tol=0.02), name
        assert len(_g(root, "fixture", name=t.fa)) == 1
    # the inset of the hall view shows all three and the whole 侯道 (540 尺)
    hall = render_svg(frames[0], scene, view="hall")
    assert "全侯道（540 尺）" in hall and all(f">{n}</text>" in hall for n in ts)


@pytest.mark.slow
def test_arrows_drawn_at_the_hou_shot_at(sanhou) -> None:
    scene, records, frames, venue = sanhou
    shots = [e for e in records if isinstance(e, Shot)]
    checked = set()
    for f in frames:
        if not f.shots or f.objects.arrows_hou == 0:
            continue
        so_far = [s for s in shots if s.seq <= f.seq]
        since = max(
            (
                e.seq
                for e in records
                if isinstance(e, Step) and e.verb == "委" and e.obj == "矢" and e.seq <= f.seq
            ),
            default=0,
        )
        so_far = [s for s in so_far if s.seq > since]
        want = {"大侯": 0, "參侯": 0}
        for s in so_far:
            want[s.target or "大侯"] += 1  # no 侯 named: the default, the first
        root = _svg(f, scene, view="range")
        scale = float(root.get("data-scale"))
        y1 = float(root.get("data-bounds").split()[3])
        for name, n in want.items():
            gs = _g(root, "arrows-hou", hou=name)
            assert [int(g.get("data-arrows")) for g in gs] == ([n] if n else []), (f.seq, name)
            for g in gs:  # every mark at that 侯 (hits on it, misses 3–7 尺 short: north)
                py = 116 + (y1 - venue.fixtures[name].y) * scale
                for c in g.iter("{http://www.w3.org/2000/svg}circle"):
                    assert math.isclose(float(c.get("cy")), py, abs_tol=0.02)
                for ln in g.iter("{http://www.w3.org/2000/svg}line"):
                    assert py - 7.01 * scale <= float(ln.get("y1")) < py
        # the flight of this step's arrow ends at the 侯 it was shot at
        (flight,) = [
            ln
            for ln in root.iter("{http://www.w3.org/2000/svg}line")
            if ln.get("class") == "flight"
        ]
        name = f.shots[0].target or "大侯"
        py = 116 + (y1 - venue.fixtures[name].y) * scale
        assert py - 7.01 * scale <= float(flight.get("y2")) <= py + 0.02
        checked.add(name)
    assert checked == {"大侯", "參侯"}


@pytest.mark.slow
def test_labels_do_not_overlap_with_three_hou(sanhou) -> None:
    scene, _, frames, _ = sanhou
    for f in frames[::9]:
        for view in ("range", "auto"):
            labels, fixtures = label_boxes(f, scene, view=view)
            boxes = [lab.box for lab in labels]
            for i, a in enumerate(boxes):
                assert not any(a.overlaps(b) for b in boxes[i + 1 :]), f.seq
                assert not any(a.overlaps(b) for b in fixtures), f.seq


# ------------------------------------------------------------------ in English


@pytest.mark.slow
def test_english_labels_every_step_of_the_default_run(default_run) -> None:
    # every step: each label and every word of the drawing in English (a term without
    # English in brackets), the labels clear of one another, of the fixtures and of bodies
    scene, fr = default_run
    for f in fr:
        _no_overlaps(f, scene, lang="en")
        labels, _ = label_boxes(f, scene, lang="en")
        bodies = body_boxes(f, scene)
        for lab in labels:
            text = " ".join(t for line in lab.lines for t, _ in line)
            assert cjk_outside_brackets(text) == [], (f.seq, lab.key, text)
            assert not [n for n, b in bodies.items() if lab.box.overlaps(b)], (f.seq, lab.key)
    for f in fr[::50]:
        root = _svg(f, scene, lang="en")
        words = [t.text or "" for t in root.iter(f"{{{NS['s']}}}text")]
        words.append(root.find("s:title", NS).text or "")
        assert cjk_outside_brackets("\n".join(words)) == [], f.seq


def test_english_labels_read_the_glossary(default_run) -> None:
    scene, fr = default_run
    f = next(f for f in fr if f.actor == "司射" and f.verb == "袒")
    labels, _ = label_boxes(f, scene, lang="en")
    text = {lab.key: lab.lines[0][0][0] for lab in labels}
    assert text["person:司射"] == "director"
    assert text["fixture:阼階"] == "east steps"
    assert text["person:上耦上射"] == "1st pair upper"
    svg = render_svg(f, scene, lang="en")
    assert ">director: bare the left arm</text>" in svg  # the step, in the header
    words = passage_english(f.cite).text.split()[:4]  # the passage in sheli's English
    assert f'font-size="15">{" ".join(words)} ' in svg


@pytest.mark.slow
def test_languages_do_not_share_a_cached_drawing(default_run) -> None:
    # the caches are keyed on the language: Chinese, English, Chinese again, each as fresh
    scene, fr = default_run
    picks = fr[::211]
    first = {f.seq: render_svg(f, scene) for f in picks}
    english = {f.seq: render_svg(f, scene, lang="en") for f in picks}
    for f in picks:
        assert render_svg(f, scene) == first[f.seq]
        diagram_mod.clear_caches()
        assert render_svg(f, scene, lang="en") == english[f.seq] != first[f.seq]
    simplified = render_svg(picks[0], scene, lang="zh-Hans")
    assert ">阼阶</text>" in simplified and ">阼階</text>" not in simplified  # data-name keeps 阼階

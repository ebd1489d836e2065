"""The label placer: what it places is the plain greedy's, placement by placement, however
the placements before it went (it reuses the last one's boxes where nothing that decided
them changed: sheli.outputs.labels.place_labels)."""

from __future__ import annotations

import random

import pytest

from sheli.outputs import diagram
from sheli.outputs.diagram import layout as diagram_layout
from sheli.outputs.labels import (
    Box,
    Label,
    LabelMemory,
    Obstacles,
    clear_placements,
    place_labels,
)
from sheli.outputs.labels import grid as label_grid
from sheli.outputs.labels import place as label_place


@pytest.fixture(scope="module")
def default_run(xiangshe_seed1_frames):
    """The default run of seed 1: its scene and frames (tests/conftest.py: one per session)."""
    return xiangshe_seed1_frames


def greedy(
    labels: list[Label],
    obstacles: list[Box | tuple[float, float, float, float]],
    bounds: Box,
    *,
    overflow: Box | None = None,
    gap: float = 1.0,
    rings: int = 14,
    ring_step: float = 12.0,
    base: Obstacles | None = None,
    keep: bool = False,
    passing: list[tuple[float, float, float, float]] | None = None,
) -> list[tuple[Box, bool]]:
    """The greedy as docs/diagrams.md states it, with no index and nothing remembered: each
    label at the first candidate clear of every box so far (obstacles, given as boxes or
    as (x0, y0, x1, y1), and labels). (Not the placement with ``keep``.)"""
    assert not keep
    boxes = [o if isinstance(o, tuple) else (o.x0, o.y0, o.x1, o.y1) for o in obstacles]
    boxes += list(passing or ()) + list(base.boxes if base else ())

    def free(x0: float, y0: float, x1: float, y1: float) -> bool:
        return not any(
            x0 < b[2] + gap and b[0] < x1 + gap and y0 < b[3] + gap and b[1] < y1 + gap
            for b in boxes
        )

    out = []
    ov_y = overflow.y0 if overflow else 0.0
    for lab in labels:
        w, h = lab.size
        chosen, leader = None, False
        for ring in range(rings + 1):
            dist = lab.r + 2.0 + ring * ring_step
            for dx, dy in label_grid._NEAR if ring == 0 else label_grid._ring_dirs(ring):
                b = label_grid._at(lab, dx, dy, dist)
                if b.x0 < bounds.x0 or b.y0 < bounds.y0 or b.x1 > bounds.x1 or b.y1 > bounds.y1:
                    continue
                if free(b.x0, b.y0, b.x1, b.y1):
                    chosen, leader = b, ring > 0
                    break
            if chosen:
                break
        if chosen is None and overflow is not None:
            while True:
                b = Box(overflow.x0, ov_y, overflow.x0 + w, ov_y + h)
                ov_y += h + gap + 1
                if free(b.x0, b.y0, b.x1, b.y1):
                    break
            chosen, leader = b, True
        if chosen is None:
            chosen = label_grid._at(lab, 1, 0, lab.r + 2.0)
        boxes.append((chosen.x0, chosen.y0, chosen.x1, chosen.y1))
        out.append((chosen, leader))
    return out


def _copy(labels: list[Label]) -> list[Label]:
    return [Label(lab.key, lab.lines, lab.ax, lab.ay, lab.r) for lab in labels]


@pytest.mark.slow
def test_every_placement_of_a_run_is_the_plain_greedy(default_run, monkeypatch) -> None:
    """Every step of the default run, drawn in order (so each placement reuses the one
    before): each step's labels as the plain greedy places them."""
    scene, frames = default_run
    calls = []
    real = place_labels

    def spy(labels, obstacles, bounds, **kw):
        fresh = _copy(labels)
        out = real(labels, obstacles, bounds, **kw)
        calls.append((fresh, list(obstacles), bounds, kw, [(x.box, x.leader) for x in out]))
        return out

    monkeypatch.setattr(diagram_layout, "place_labels", spy)
    diagram.clear_caches()
    for f in frames[::2]:  # every other step: more changes from one placement to the next
        diagram.label_boxes(f, scene)
    assert len(calls) == len(frames[::2])
    for fresh, obstacles, bounds, kw, got in calls:
        assert got == greedy(fresh, obstacles, bounds, **kw)
    diagram.clear_caches()


def _random_scene(rnd: random.Random) -> tuple[Box, Box, Obstacles, dict, dict, list[Box]]:
    """The start of a random crowded scene: its bounds, overflow column, fixed obstacles,
    fourteen people's anchors, their labels' texts and one obstacle that may go."""
    bounds = Box(0, 0, 300, 200)
    overflow = Box(0, 230, 300, 2000)
    base = Obstacles([Box(100, 80, 140, 120), Box(20, 20, 40, 30)])
    people = {f"p{k}": (rnd.uniform(0, 300), rnd.uniform(0, 200)) for k in range(14)}
    texts = {k: "甲" * rnd.randint(1, 4) for k in people}
    return bounds, overflow, base, people, texts, [Box(10, 150, 18, 158)]


@pytest.mark.parametrize("linear_up_to", [0, label_grid.LINEAR_UP_TO])
@pytest.mark.parametrize("seed", range(6))
def test_random_sequences_are_the_plain_greedy(seed: int, linear_up_to: int, monkeypatch) -> None:
    """Random crowded scenes, each a little changed from the one before (people move,
    labels change text, come and go, change order; obstacles come and go): the placer,
    remembering, places as the plain greedy does, whether it files the boxes by cell (as for
    a big event: ``LINEAR_UP_TO`` 0) or scans them (as for these few)."""
    monkeypatch.setattr(label_place, "LINEAR_UP_TO", linear_up_to)
    rnd = random.Random(seed)
    clear_placements()
    bounds, overflow, base, people, texts, obstacles = _random_scene(rnd)
    for _ in range(60):
        for k in rnd.sample(sorted(people), rnd.randint(0, 3)):
            people[k] = (rnd.uniform(0, 300), rnd.uniform(0, 200))
        for k in rnd.sample(sorted(people), rnd.randint(0, 2)):
            texts[k] = "乙" * rnd.randint(1, 5)
        if rnd.random() < 0.3:
            x, y = rnd.uniform(0, 290), rnd.uniform(0, 190)
            obstacles.append(Box(x, y, x + rnd.uniform(2, 30), y + rnd.uniform(2, 30)))
        if obstacles and rnd.random() < 0.3:
            obstacles.pop(rnd.randrange(len(obstacles)))
        keys = sorted(people)
        if rnd.random() < 0.5:  # a new "actor" first, the rest by distance from him
            first = rnd.choice(keys)
            fx, fy = people[first]
            keys.sort(key=lambda k: (k != first, abs(people[k][0] - fx) + abs(people[k][1] - fy)))
        keys = [k for k in keys if rnd.random() > 0.1]
        labs = [Label(k, [[(texts[k], 12.0)]], *people[k], 5.0) for k in keys]
        want = greedy(_copy(labs), obstacles, bounds, overflow=overflow, base=base)
        got = place_labels(labs, list(obstacles), bounds, overflow=overflow, base=base)
        assert [(x.box, x.leader) for x in got] == want
        boxes = [b for b, _ in want]
        for i, a in enumerate(boxes):  # and so nothing overlaps
            assert not any(a.overlaps(b) for b in boxes[i + 1 :])
    clear_placements()


def test_twin_labels_do_not_share_a_box() -> None:
    """Two labels alike in text and anchor get two boxes, also when a placement before had
    them."""
    clear_placements()
    for _ in range(3):
        labs = [Label("x", [[("甲", 10)]], 50, 50), Label("x", [[("甲", 10)]], 50, 50)]
        a, b = place_labels(labs, [], Box(0, 0, 100, 100))
        assert not a.box.overlaps(b.box)
    clear_placements()


@pytest.mark.parametrize("seed", range(4))
def test_kept_labels_stay_and_nothing_overlaps(seed: int) -> None:
    """Placing with ``keep`` through random changing scenes: the first placement after
    a new LabelMemory is the plain greedy's; after it, a label whose text and anchor did not
    change and whose box no new obstacle meets, nor a label before it placed anew, keeps
    its box; no two labels overlap, nor a label and an obstacle (but in the overflow
    column, which is below every box)."""
    rnd = random.Random(seed)
    clear_placements()
    bounds, overflow, base, people, texts, obstacles = _random_scene(rnd)
    last: dict[str, tuple[Box, tuple[float, float], str]] = {}
    kept = moved = 0
    memory = LabelMemory()
    for step in range(60):
        if step % 20 == 0:
            memory = LabelMemory()
            last = {}
        for k in rnd.sample(sorted(people), rnd.randint(0, 3)):
            people[k] = (rnd.uniform(0, 300), rnd.uniform(0, 200))
        for k in rnd.sample(sorted(people), rnd.randint(0, 2)):
            texts[k] = "乙" * rnd.randint(1, 5)
        new_obst = []
        if rnd.random() < 0.3:
            x, y = rnd.uniform(0, 290), rnd.uniform(0, 190)
            new_obst.append(Box(x, y, x + rnd.uniform(2, 30), y + rnd.uniform(2, 30)))
        obstacles += new_obst
        if obstacles and rnd.random() < 0.3:
            obstacles.pop(rnd.randrange(len(obstacles)))
        keys = [k for k in sorted(people) if rnd.random() > 0.1]
        labs = [Label(k, [[(texts[k], 12.0)]], *people[k], 5.0) for k in keys]
        want = greedy(_copy(labs), obstacles, bounds, overflow=overflow, base=base)
        got = place_labels(labs, list(obstacles), bounds, overflow=overflow, base=base, keep=memory)
        if not last:
            assert [(x.box, x.leader) for x in got] == want
        for n, lab in enumerate(got):
            was = last.get(lab.key)
            if was and was[1:] == ((lab.ax, lab.ay), texts[lab.key]):
                # (a label before it, placed anew, may have taken its box: it yields)
                before = [x.box for x in got[:n] if x.box != last.get(x.key, (None,))[0]]
                if not any(was[0].overlaps(o, 1.0) for o in [*new_obst, *before]):
                    assert lab.box == was[0], (step, lab.key)
                    kept += 1
            elif was:
                moved += 1
        boxes = [x.box for x in got]
        for i, a in enumerate(boxes):
            assert not any(a.overlaps(b) for b in boxes[i + 1 :]), step
            if a.y0 < bounds.y1:
                assert a.inside(bounds)
                assert not any(a.overlaps(o) for o in [*obstacles, *base_boxes(base)]), step
        last = {x.key: (x.box, (x.ax, x.ay), texts[x.key]) for x in got}
    assert kept > 100 and moved > 10
    clear_placements()


@pytest.mark.parametrize("seed", range(4))
def test_kept_labels_searched_anew_take_the_first_free_candidate(seed: int) -> None:
    """Placing with ``keep`` through random crowded scenes with a walk passing: a label that
    stands elsewhere than at the step before was searched for, and stands at the first
    candidate clear of every obstacle, of the walk and of every label before it (as they
    stand), as the plain greedy would put it there (but in the overflow column)."""
    rnd = random.Random(100 + seed)
    clear_placements()
    bounds, overflow, base, people, texts, obstacles = _random_scene(rnd)
    for k in range(14, 30):  # a crowd: labels pushed rings out
        people[f"p{k}"] = (rnd.uniform(100, 200), rnd.uniform(60, 140))
        texts[f"p{k}"] = "甲" * rnd.randint(1, 4)
    last: dict[str, Box] = {}
    searched = 0
    memory = LabelMemory()
    for step in range(40):
        if step % 20 == 0:
            memory = LabelMemory()
        for k in rnd.sample(sorted(people), rnd.randint(0, 4)):
            people[k] = (rnd.uniform(0, 300), rnd.uniform(0, 200))
        x, y = rnd.uniform(0, 300), rnd.uniform(0, 200)
        walk = [
            (x + 6 * n, y + 3 * n, x + 6 * n + 5, y + 3 * n + 5) for n in range(rnd.randint(0, 20))
        ]
        keys = [k for k in sorted(people) if rnd.random() > 0.1]
        labs = [Label(k, [[(texts[k], 12.0)]], *people[k], 5.0) for k in keys]
        got = place_labels(
            labs, list(obstacles), bounds, overflow=overflow, base=base, keep=memory, passing=walk
        )
        for n, lab in enumerate(got):
            if lab.box == last.get(lab.key) or lab.box.y0 >= bounds.y1:
                continue
            searched += 1
            before = [(x.box.x0, x.box.y0, x.box.x1, x.box.y1) for x in got[:n]]
            (want,) = greedy(_copy([lab]), [*obstacles, *before], bounds, base=base, passing=walk)
            assert (lab.box, lab.leader) == want, (step, lab.key)
        last = {x.key: x.box for x in got}
    assert searched > 100
    clear_placements()


def base_boxes(base: Obstacles) -> list[Box]:
    return [Box(*b) for b in base.boxes]


@pytest.mark.slow
def test_kept_labels_in_a_run_overlap_nothing_and_jump_less(default_run) -> None:
    """The default run drawn as a render draws it (chunks of steps, the labels kept from
    step to step): no label overlaps another, a fixture or a body, and labels change place
    from one step to the next less often than when each step is placed anew."""
    scene, frames = default_run
    jumps = {True: 0, False: 0}
    for keep in (True, False):
        diagram.clear_caches()
        last: dict[str, Box] = {}
        memory = None
        for i, f in enumerate(frames[:1200]):
            if i % 64 == 0 and keep:
                memory = LabelMemory()
            labels, fixtures = diagram.label_boxes(f, scene, label_memory=memory)
            bodies = diagram.body_boxes(f, scene)
            boxes = [lab.box for lab in labels]
            for j, a in enumerate(boxes):
                assert not any(a.overlaps(b) for b in boxes[j + 1 :]), f.seq
                assert not any(a.overlaps(b) for b in fixtures), f.seq
                assert not any(a.overlaps(b) for b in bodies.values()), f.seq
            jumps[keep] += sum(1 for lab in labels if last.get(lab.key, lab.box) != lab.box)
            last = {lab.key: lab.box for lab in labels}
    assert jumps[True] < 0.8 * jumps[False]
    diagram.clear_caches()


@pytest.mark.parametrize("seed", range(20))
def test_diff_takes_one_list_to_the_other(seed: int) -> None:
    """Taking out what _diff says is gone and putting in what it says has come makes the
    new list's boxes from the old's, as many times each (the grid of obstacles is brought
    up to date so)."""
    from collections import Counter

    rnd = random.Random(seed)
    pool = [(float(k), 0.0, k + 1.0, 1.0) for k in range(12)]
    old = [rnd.choice(pool) for _ in range(rnd.randint(0, 60))]
    new = list(old)
    for _ in range(rnd.randint(0, 40)):
        op = rnd.random()
        if op < 0.3 and new:
            new.pop(rnd.randrange(len(new)))
        elif op < 0.6:
            new.insert(rnd.randint(0, len(new)), rnd.choice(pool))
        elif new:
            k = rnd.randrange(len(new))
            new[k] = tuple(new[k])  # (alike, maybe another object)
    gone, come = label_grid._diff(old, new)
    assert Counter(old) - Counter(gone) + Counter(come) == Counter(new)
    assert not Counter(gone) - Counter(old)

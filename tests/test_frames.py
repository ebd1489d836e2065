"""build_frames: the frames agree with the event log they fold."""

from __future__ import annotations

import pytest

from sheli.engine import run
from sheli.engine.records import Shot, Step, accept
from sheli.outputs.frames import FrameBuilder, build_frames


@pytest.fixture(scope="module")
def default_run():
    r = run("xiangshe", seed=1, options={"feast": False})  # the archery (xiangshe:110–258)
    return r, build_frames(r)


def test_one_frame_per_step(default_run) -> None:
    r, fr = default_run
    steps = [e for e in r.records if isinstance(e, Step)]
    assert [f.seq for f in fr] == [s.seq for s in steps]
    assert all(f.step is s for f, s in zip(fr, steps, strict=True))


def test_actor_state_is_the_step_line(default_run) -> None:
    _, fr = default_run
    for f in fr:
        s = f.step
        if s.x is None:
            continue
        p = f.people[s.actor]
        assert (p.x, p.y) == (s.x, s.y)
        assert p.facing == s.facing
        assert list(p.holds) == s.holds
        assert p.holding == s.holding
        assert list(p.dress) == s.dress


def test_others_keep_their_last_step(default_run) -> None:
    """Everyone present is where his own last step line put him."""
    _, fr = default_run
    last: dict[str, Step] = {}
    for f in fr:
        last[f.actor] = f.step
        if f.index % 97:  # a sample of frames is enough to see the fold is right
            continue
        for actor, p in f.people.items():
            if actor in last:
                s = last[actor]
                assert (p.x, p.y, p.holds) == (s.x, s.y, tuple(s.holds))
            else:  # shown before his first act only where that act is not a movement
                assert p.inferred


def test_path_of_a_move(default_run) -> None:
    _, fr = default_run
    # xiangshe:128 鉤楹: the 司射 goes from the 西階上 to the 左物 by the north of the 西楹
    f = next(f for f in fr if f.actor == "司射" and f.step.via == "西楹之北")
    p = f.people["司射"]
    assert p.moved_at == f.seq
    assert p.path[0] == (-15.0, 1.0) and p.path[-1] == (p.x, p.y)
    via = p.path[1]
    assert via[1] > 8.0 and abs(via[0] + 9.0) < 1e-6  # north of the 西楹 at (−9, 8)


def test_arrows_after_the_first_fetch(default_run) -> None:
    """All arrows shot before the first 委矢 on the 楅 are on it; the 侯 is bare."""
    r, fr = default_run
    f = next(f for f in fr if f.verb == "委" and f.step.obj == "矢")
    shot = sum(1 for e in r.shots if e.seq < f.seq)
    assert f.objects.arrows_bi == shot == 28  # 誘射 4 + 三耦 6 × 4
    assert f.objects.arrows_hou == 0
    # the archers take them up one by one (xiangshe:173–174): four each
    taken = next(
        g for g in fr[f.index :] if g.round == 2 and g.actor == "上耦下射" and g.verb == "挾"
    )
    assert taken.objects.arrows_bi == 28 - 8


def test_arrows_at_the_hou_count_the_shots(default_run) -> None:
    r, fr = default_run
    shots = r.shots
    by_seq = {f.seq: f for f in fr}
    fetch = next(f.seq for f in fr if f.verb == "委" and f.step.obj == "矢")
    s = [x for x in shots if x.seq > fetch][10]  # the 11th arrow of round 2
    f = by_seq[s.seq]
    since = [x for x in shots if fetch < x.seq <= s.seq]
    assert len(since) == 11
    assert f.objects.arrows_hou == len(since)
    assert f.objects.hits_hou == sum(1 for x in since if x.hit)


def test_arrows_at_the_hou_their_shot_lines_name(default_run) -> None:
    """A venue with several 侯 (大射儀's 射宮): a shot naming its 侯 (the log's ``hou``) puts
    the arrow there; the others stay unnamed (drawn at the venue's one, or first, 侯); the
    委矢 on the 楅 takes every 侯's."""
    r, _ = default_run
    records = [
        e._replace(target="大侯" if e.pair == "上耦" else "參侯")
        if isinstance(e, Shot) and e.pair in ("上耦", "次耦")
        else e
        for e in r.records
    ]
    fr = accept(records, FrameBuilder(r.plan))
    shots = [e for e in records if isinstance(e, Shot)]
    fetch = next(f for f in fr if f.verb == "委" and f.step.obj == "矢")
    before = fr[fetch.index - 1].objects
    for hou in ("大侯", "參侯"):
        mine = [x for x in shots if x.target == hou and x.seq < fetch.seq]
        assert before.arrows_at(hou) == (len(mine), sum(1 for x in mine if x.hit))
        assert len(mine) == 8  # the pair's two archers, four arrows each (round 1)
    assert before.arrows_hou == sum(1 for x in shots if x.seq < fetch.seq)  # all, named or not
    assert fetch.objects.at_hou == () and fetch.objects.arrows_hou == 0
    assert fetch.objects.arrows_bi == 28


@pytest.mark.parametrize("pairs", [0, 3])
@pytest.mark.slow
def test_suan_on_each_side_equal_the_tally(pairs: int) -> None:
    r = run("xiangshe", seed=2, pairs=pairs)
    fr = build_frames(r)
    by_seq = {f.seq: f for f in fr}
    tallies = r.tallies
    assert tallies
    for t in tallies:
        o = by_seq[t.seq].objects
        assert (o.suan_right, o.suan_left) == (t.right, t.left)
        assert by_seq[t.seq].tally is t


def test_jing_leant_and_raised(default_run) -> None:
    _, fr = default_run
    f = next(f for f in fr if f.verb == "倚" and f.step.obj == "旌")
    assert f.objects.where("旌") is not None and f.objects.where("旌").y == -284.0
    g = next(f for f in fr if f.verb == "獲")
    assert g.objects.jing_raised and not fr[g.index + 1].objects.jing_raised


def test_feng_and_zhi(default_run) -> None:
    """xiangshe:206: the 豐 set west of the 西楹, 正當西階 (疏 210), the 觶 put on it."""
    _, fr = default_run
    f = next(f for f in fr if f.verb == "奠" and f.step.obj == "觶")
    feng, zhi = f.objects.where("豐"), f.objects.where("觶")
    assert feng is not None and (feng.x, feng.y) == (-15.0, 8.0)
    assert zhi is not None and (zhi.x, zhi.y) == (feng.x, feng.y)


def test_frames_read_a_run_not_its_lines() -> None:
    with pytest.raises(TypeError):
        build_frames([{"type": "scene"}, {"type": "step", "seq": 1}])


def test_to_dict_is_json(default_run) -> None:
    import json

    _, fr = default_run
    f = next(f for f in fr if f.verb == "委" and f.step.obj == "矢")
    d = json.loads(json.dumps(f.to_dict(), ensure_ascii=False))
    assert d["objects"]["arrows_bi"] == 28
    assert set(d["people"]) == set(f.people)
    assert d["people"][f.actor]["x"] == f.step.x


def test_paths_reach_the_tang_by_a_stair(default_run) -> None:
    """升自西階: a path between 庭 and 堂 goes by a 階, never over the 堂's edge; no walk
    in the 庭 cuts across the 堂."""
    from sheli.place import load_venue
    from sheli.place.model import Point

    r, fr = default_run
    v = load_venue(r.scene.venue)
    checked = 0
    for f in fr:
        p = f.people.get(f.actor)
        if p is None or p.moved_at != f.seq:
            continue
        for a, b in zip(p.path, p.path[1:], strict=False):
            assert not v.crosses(Point(*a), Point(*b)), (f.seq, p.path)
        checked += 1
    assert checked > 500

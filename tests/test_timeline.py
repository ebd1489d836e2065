"""The rite in time (sheli.engine.timeline, docs/timeline.md): deterministic, one person one
act at a time, the crossings the text names done by both parties together, no two walkers
closer than 1.5 尺, people acting at once, and the director's moments."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from sheli.engine import run
from sheli.engine.durations import DURATIONS_FILE, DurationsError, load_durations
from sheli.engine.records import Step
from sheli.engine.timeline import (
    CLEARANCE,
    Stream,
    closest,
    links,
    overlaps,
    persons,
    schedule,
    too_close,
)
from sheli.engine.timeline.geometry import Walks
from sheli.engine.timeline.scheduler import LOOK_BACK, pair_of
from sheli.rite import load_spec


@pytest.fixture(scope="module")
def xiangshe(run_once):
    return schedule(run_once("xiangshe", seed=1))


def _where(tl, i, t):
    """Where the actor of step ``i`` is at time ``t`` (on his path, else where the step
    has him)."""
    path = tl.timed[i].path
    if not path:
        s = tl.steps[i]
        return (s.x, s.y)
    if t <= path[0][2]:
        return path[0][:2]
    for a, b in itertools.pairwise(path):
        if t <= b[2]:
            f = 0.0 if b[2] == a[2] else (t - a[2]) / (b[2] - a[2])
            return (a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]))
    return path[-1][:2]


def _met(tl, cite):
    """The joint steps of ``cite`` and, for each, the other party's step at the same time."""
    out = []
    for i, (s, tm) in enumerate(zip(tl.steps, tl.timed, strict=True)):
        if s.cite != cite or not tm.with_:
            continue
        for j, (q, qm) in enumerate(zip(tl.steps, tl.timed, strict=True)):
            if q.actor in tm.with_ and qm.t <= tm.end and tm.t <= qm.end and j != i:
                out.append((i, j))
    return out


@pytest.mark.slow
def test_the_schedule_is_deterministic():
    a = schedule(run("xiangshe", seed=1, pairs=2))
    b = schedule(run("xiangshe", seed=1, pairs=2))
    assert a.timed == b.timed
    assert a.walks == b.walks


def test_one_person_does_one_thing_at_a_time(xiangshe):
    assert list(overlaps(xiangshe)) == []
    # and each person's acts keep his own order
    last: dict[str, float] = {}
    for s, tm in zip(xiangshe.steps, xiangshe.timed, strict=True):
        for name, _ in persons(s):
            assert tm.t >= last.get(name, 0.0) - 1e-6, (s.seq, name)
            last[name] = tm.end


def test_no_two_walkers_come_closer_than_the_bodies_allow(xiangshe):
    assert too_close(xiangshe) == []
    # the check itself finds two who would walk into each other
    assert closest([(0, 0, 0), (10, 0, 10)], [(10, 0.5, 0), (0, 0.5, 10)]) < CLEARANCE


@pytest.mark.parametrize("cite", ["xiangshe:146", "xiangshe:153"])
def test_the_crossings_are_done_by_both_parties_together(xiangshe, cite):
    met = _met(xiangshe, cite)
    assert met, f"{cite}: nobody named in `with` acts at the same time"
    # one of them at least walks then, on his path: the one who comes, or, when they bow to
    # each other standing (相揖), the other party's walk that brought him
    for i in {i for i, _ in met}:
        parties = [j for k, j in met if k == i]
        assert xiangshe.timed[i].path or any(xiangshe.timed[j].path for j in parties)
    for i, j in met:
        a, b = xiangshe.timed[i], xiangshe.timed[j]
        lo, hi = max(a.t, b.t), min(a.end, b.end)
        near = min(
            math.dist(
                _where(xiangshe, i, lo + (hi - lo) * k / 20),
                _where(xiangshe, j, lo + (hi - lo) * k / 20),
            )
            for k in range(21)
        )
        assert 1.0 <= near <= 10.0, (xiangshe.steps[i].seq, xiangshe.steps[j].seq, near)


def test_the_crossing_of_146_is_two_walks_at_once(xiangshe):
    (i, j), *_ = _met(xiangshe, "xiangshe:146")
    assert {xiangshe.steps[i].actor, xiangshe.steps[j].actor} == {"司射", "司馬"}
    assert xiangshe.timed[i].path and xiangshe.timed[j].path
    d = closest(xiangshe.timed[i].path, xiangshe.timed[j].path)
    assert d is not None and d >= CLEARANCE


def test_the_last_pair_meets_nobody_coming_up(xiangshe):
    """敖繼公, the 義疏 agreeing, on xiangshe:153 and 178: 下耦無與升射者相左相揖之事."""
    last = [
        tm.with_
        for s, tm in zip(xiangshe.steps, xiangshe.timed, strict=True)
        if s.cite == "xiangshe:153" and s.verb == "揖" and s.actor.startswith("下耦")
    ]
    first = [
        tm.with_
        for s, tm in zip(xiangshe.steps, xiangshe.timed, strict=True)
        if s.cite == "xiangshe:153" and s.verb == "揖" and s.actor.startswith("上耦")
    ]
    gone = [s for s in xiangshe.steps if s.cite == "xiangshe:153" and s.actor.startswith("下耦")]
    assert gone and last == []  # he goes to the 堂西 without a 揖: nobody to bow to
    assert first and all(first)


@pytest.mark.parametrize("rite", ["xiangshe", "dashe", "yanli"])
@pytest.mark.slow
def test_people_act_at_once(rite, run_once):
    tl = schedule(run_once(rite, seed=1))
    assert tl.span < 0.98 * tl.total


def test_the_director_calls_20_to_200_moments(xiangshe):
    moments = [tm.moment for tm in xiangshe.timed]
    assert moments == sorted(moments) and moments[0] == 1
    assert 20 <= xiangshe.moments <= 200
    # the first shot of round 1 is a handful of moments after the round's first step
    first = next(
        tm.moment for s, tm in zip(xiangshe.steps, xiangshe.timed, strict=True) if s.round == 1
    )
    shot = next(
        tm.moment
        for s, tm in zip(xiangshe.steps, xiangshe.timed, strict=True)
        if s.round == 1 and s.verb == "射" and not s.actor.startswith("司射")
    )
    assert 0 < shot - first <= 10


def test_the_third_round_keeps_the_music(xiangshe):
    """xiangshe:248 注: 一節之閒當拾發, 四節四拾, 其一節先以聽."""
    beat = load_durations().music.beat_seconds
    shots = [
        (s, tm)
        for s, tm in zip(xiangshe.steps, xiangshe.timed, strict=True)
        if s.verb == "射" and s.round == 3
    ]
    assert shots and all(tm.dur == beat / 2 for _, tm in shots)


@pytest.mark.slow
def test_the_log_fields_of_a_step(xiangshe):
    walk = next(i for i, tm in enumerate(xiangshe.timed) if tm.path)
    fields = xiangshe.fields(walk)
    assert list(fields)[:3] == ["t", "dur", "path"] and fields["moment"] >= 1
    assert all(len(p) == 3 for p in fields["path"])
    assert sum(1 for r in run("xiangshe", seed=1).records if type(r) is Step) == len(xiangshe.timed)


def test_a_bad_durations_table_is_one_line(tmp_path: Path):
    bad = tmp_path / "durations.yaml"
    bad.write_text(
        DURATIONS_FILE.read_text("utf-8").replace("beat_seconds: 20", "beat_seconds: no")
    )
    with pytest.raises(DurationsError) as err:
        load_durations(bad)
    assert "\n" not in str(err.value)
    assert str(bad) in str(err.value) and "music.beat_seconds" in str(err.value)


def _met_within(tl, i, name):
    """How near ``name``, in a step at the same time as step ``i``, comes to its actor (the
    nearest of nine moments of the time they share), or None if he does nothing then."""
    a = tl.timed[i]
    best = None
    for j, (q, qm) in enumerate(zip(tl.steps, tl.timed, strict=True)):
        if q.actor != name or j == i or qm.end < a.t or a.end < qm.t:
            continue
        lo, hi = max(a.t, qm.t), min(a.end, qm.end)
        for k in range(9):
            t = lo + (hi - lo) * k / 8
            d = math.dist(_where(tl, i, t), _where(tl, j, t))
            best = d if best is None else min(best, d)
    return best


@pytest.mark.parametrize("rite", ["xiangshe", "dashe", "yanli"])
@pytest.mark.slow
def test_a_joint_act_names_only_those_it_meets(rite, run_once):
    """相左, 交于 and 竝行 (xiangshe:139, 146, 153, 177, 213 and 大射儀's likewise): the other
    party named in `with` is there at the same time, within 10 尺 and never nearer than one
    (the 媵爵者's 交于楹北, dashe:67 and yan:60, included)."""
    tl = schedule(run_once(rite, seed=1))
    named = 0
    for i, (s, tm) in enumerate(zip(tl.steps, tl.timed, strict=True)):
        if not tm.with_ or not any(w in (s.jing or "") for w in ("相左", "交于", "竝行")):
            continue
        for name in tm.with_:
            d = _met_within(tl, i, name)
            assert d is not None and 1.0 <= d <= 10.0, (s.seq, s.cite, s.actor, name, d)
            named += 1
    assert named >= 10
    assert too_close(tl) == []


#: the 相揖 of the pair that comes down with the pair going up, at the 階前, in each rite
STAIR_BOWS = {
    "xiangshe": ("xiangshe:153", "xiangshe:213"),
    "dashe": ("dashe:154", "dashe:234"),
    "yanli": ("xiangshe:153", "xiangshe:213"),
}


@pytest.mark.slow
@pytest.mark.parametrize("rite", ["xiangshe", "dashe", "yanli"])
def test_the_stair_bow_waits_for_the_pair_coming_up(rite, run_once):
    """與升射者相左交于階前相揖 (xiangshe:153, dashe:154; 與升飲者 xiangshe:213, dashe:234):
    the pair coming down bows to the pair going up when both are at the 階前, whether or
    not the bow names them in `with`. A bow with nobody of another pair within 15 尺 as it
    begins is one that nobody comes to: no other archer comes forward (進) to the place in
    the minute after it (the last pair; before, 大射儀's pairs bowed 12-30 s before the next
    pair came out of the 次 to the 階前, 50-60 尺 away as they bowed). A bow that names
    another pair's archer in `with` is met: the schedule names him only when the two come
    within reach of each other during the bow (docs/timeline.md), though he may be still
    coming, farther than 15 尺, as it begins."""
    tl = schedule(run_once(rite, seed=1))
    met = 0
    for i, (s, tm) in enumerate(zip(tl.steps, tl.timed, strict=True)):
        if s.cite not in STAIR_BOWS[rite] or s.verb != "揖" or "相揖" not in (s.note or ""):
            continue
        here, pair = _where(tl, i, tm.t), pair_of(s.actor)
        # another pair's archer is there as he bows (or comes within reach during it)
        near = any("射" in w and pair_of(w) != pair for w in tm.with_)
        late: tuple[object, ...] | None = None  # one comes forward to the place after it
        for j, (q, qm) in enumerate(zip(tl.steps, tl.timed, strict=True)):
            if "射" not in q.actor or pair_of(q.actor) in (pair, q.actor):
                continue  # only the archers of another pair
            if qm.t <= tm.t <= qm.end and math.dist(here, _where(tl, j, tm.t)) <= 15.0:
                near = True
            elif q.verb == "進" and tm.t < qm.t <= tm.t + 60 and qm.path:
                if math.dist(here, qm.path[-1][:2]) > 15.0:
                    continue
                late = (s.seq, s.actor, q.seq, q.actor, q.verb, round(qm.t - tm.t, 1))
        assert near or late is None, late
        met += near
    assert met >= 10


def test_a_walk_is_measured_only_against_the_bodies_near_it():
    """A walk past the crowd at the 堂西 looks only at the bodies near its path: the pairs it
    measures do not grow with the crowd."""
    measured: list[tuple[int, int]] = []
    for crowd in (10, 1000):
        index = Walks()
        for k in range(crowd):  # a crowd walking in rows at the 堂西, 3 尺 apart
            x, y = -40.0 - 3 * (k % 10), 20.0 - 3 * (k // 10)
            index.add(f"衆耦{k}", ((x, y, 0.0), (x, y - 2.0, 5.0)))
        # one walks north past them, 5 尺 east of the crowd's east column
        assert index.clear("司馬", ((-35.0, -300.0, 0.0), (-35.0, 30.0, 77.0)))
        # and one who walks into the first of them is stopped
        assert not index.clear("司射", ((-40.0, 25.0, 0.0), (-40.0, 15.0, 5.0)))
        measured.append((index.examined, index.measured))
    assert measured[0][1] == measured[1][1]  # the one he walks into, and only him
    assert measured[1][0] <= 40  # of the 1000: those in the cells the two walks cross


@pytest.mark.slow
def test_a_run_put_in_time_as_it_goes_holds_only_its_last_steps(xiangshe):
    """The schedule taking the steps one by one hands each on with the times of the whole
    run's schedule, and keeps the state of only the last steps, not of all it has seen."""
    stream = Stream(links(load_spec("xiangshe")))
    got: dict[int, dict[str, object]] = {}
    held = 0
    for s in xiangshe.steps:
        stream.add(s)
        got.update(stream.ready())
        held = max(held, sum(x is not None for x in stream.scheduler.steps))
    got.update(stream.close())
    assert [got[i] for i in range(len(xiangshe.steps))] == [
        xiangshe.fields(i) for i in range(len(xiangshe.steps))
    ]
    assert len(xiangshe.steps) > 4 * LOOK_BACK
    assert held < 3 * LOOK_BACK  # of the run's 4,900 steps


def test_a_late_partner_sends_the_schedule_back_to_him_only(xiangshe):
    """A joint act whose other party must wait for him undoes and places again the acts since
    that party's, not the whole rite: every act is placed once, and again only a few."""
    w = xiangshe.work
    assert w["back"] >= 1 and w["undone"] >= 1
    assert w["undone"] <= 0.05 * w["placed"]
    # no step without its time
    assert all(tm is not None for tm in xiangshe.timed)

"""Joint acts in time, as the text has them (docs/timeline.md, "The crossings modelled"): the
two 媵爵者 who cross north of the 西楹, each with his own walk; a return bow right after the
bow it answers; the pairs that bow where they pass (拾取矢, the 階前 of 大射儀); no joint bow
with nobody where the text has a partner."""

from __future__ import annotations

import itertools
import math

import pytest

from sheli.engine.records import Step
from sheli.engine.timeline import links
from sheli.engine.timeline.scheduler import pair_of
from sheli.place import load_venue


def _at(path, t):
    """Where one walking ``path`` (``[x, y, t]`` points) is at time ``t``, and his heading."""
    if t <= path[0][2]:
        a, b = path[0], path[1]
        return (a[0], a[1]), (b[0] - a[0], b[1] - a[1])
    for a, b in itertools.pairwise(path):
        if t <= b[2]:
            f = 0.0 if b[2] == a[2] else (t - a[2]) / (b[2] - a[2])
            here = (a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]))
            return here, (b[0] - a[0], b[1] - a[1])
    a, b = path[-2], path[-1]
    return (b[0], b[1]), (b[0] - a[0], b[1] - a[1])


def _on_left(heading, here, other):
    """Whether ``other`` is on the left of one at ``here`` walking ``heading``."""
    left = (-heading[1], heading[0])
    return left[0] * (other[0] - here[0]) + left[1] * (other[1] - here[1]) > 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("rite", "cite", "pillar", "times"),
    [
        ("dashe", "dashe:67", "西楹", 2),
        ("yanli", "yan:60", "西楹", 2),
        ("dashe", "dashe:70", "東楹", 1),
        ("yanli", "yan:63", "東楹", 1),
    ],
)
def test_the_two_who_present_the_cup_cross_north_of_the_pillar(run_once, rite, cite, pillar, times):
    """序進酌散交于楹北 (dashe:67, yan:60): the 後者 sets off to pour as the 先者 comes back,
    and they pass each other north of the 西楹 (注 yan:60 楹北西楹之北也), left side to left
    side, the 後者 to the south going east and the 先者 to the north going west (注 dashe:67
    與後酌者交於西楹北相左; 疏 dashe:70 後者南相東向先者北相西向): both times, the 媵爵 and its
    如初 (dashe:89, yan:82). 序進坐奠于薦南 (dashe:70, yan:63): likewise north of the 東楹 as
    the one brings his 觶 to the 公 and the other comes back (注 dashe:70 既酌而代進徃來由尊北
    交於東楹北亦相左)."""
    r = run_once(rite, seed=1)
    post = load_venue(r.venue).fixtures[pillar]
    steps = [s for s in r.records if type(s) is Step]
    crossed = 0
    for k, s in enumerate(steps):
        if s.cite != cite or s.actor != "媵爵者二" or not s.joined_with:
            continue
        back = next(q for q in reversed(steps[:k]) if q.actor == "媵爵者一" and q.path)
        assert back.cite == cite and back.joined_with == ("媵爵者二",)
        assert s.joined_with == ("媵爵者一",)
        assert s.path and back.path
        lo, hi = max(s.t, back.t), min(s.path[-1][2], back.path[-1][2])
        assert lo < hi  # both walking at once
        d, t = min(
            (math.dist(_at(s.path, u)[0], _at(back.path, u)[0]), u)
            for u in (lo + (hi - lo) * n / 400 for n in range(401))
        )
        assert 1.0 <= d <= 9.5, (s.seq, d)
        (late, late_heading), (first, first_heading) = _at(s.path, t), _at(back.path, t)
        # north of the 楹, and by it
        assert late[1] > post.y and first[1] > post.y, (late, first)
        assert abs(late[0] - post.x) <= 3.0 and abs(first[0] - post.x) <= 3.0
        # 相左, the 後者 to the south
        assert _on_left(late_heading, late, first) and _on_left(first_heading, first, late)
        assert late[1] < first[1]
        crossed += 1
    assert crossed == times


#: a bow that another answers
BOWS = ("拜", "拜受", "拜送")


@pytest.mark.slow
@pytest.mark.parametrize("rite", ["xiangshe", "dashe", "yanli"])
def test_a_return_bow_is_not_held_by_another_s_walk(run_once, rite):
    """A 答拜 follows the 拜 it answers (the latest 拜 before it, by another): what comes
    between is the text's (執爵興, 奠爵遂答拜, the answerer coming to his place, a 辭), never
    the walk of a third party, which the schedule would wait for. 公…拜執爵興主人答拜
    (dashe:57–58, yan:49–50): the 主人 answers as the 公 rises, while the 庶子 (膳宰 and 羞膳者)
    who served him go back down, which the text does not give."""
    steps = [s for s in run_once(rite, seed=1).records if type(s) is Step]
    answered = 0
    for i, s in enumerate(steps):
        if s.verb != "答拜":
            continue
        j = next(
            k for k in range(i - 1, -1, -1) if steps[k].verb in BOWS and steps[k].actor != s.actor
        )
        bow = steps[j]
        assert s.t >= bow.t + bow.dur - 1e-6, (s.seq, bow.seq)
        held = [
            (q.seq, q.actor, q.verb)
            for q in steps[j + 1 : i]
            if q.actor not in (s.actor, bow.actor) and q.path and q.t + q.dur <= s.t + 1e-6
        ]
        assert s.t - (bow.t + bow.dur) <= 0.5 or not held, (s.seq, s.cite, s.actor, held)
        answered += 1
    assert answered >= 30


@pytest.mark.slow
@pytest.mark.parametrize(
    ("rite", "bow", "answer"), [("dashe", "dashe:57", "dashe:58"), ("yanli", "yan:49", "yan:50")]
)
def test_the_host_answers_the_lord_as_he_rises(run_once, rite, bow, answer):
    """坐奠爵拜執爵興主人答拜 (dashe:57–58, yan:49–50): the 主人's 答拜 starts as the 公's 興
    after his 拜 ends, not after the one who served him has gone back to his place."""
    steps = [s for s in run_once(rite, seed=1).records if type(s) is Step]
    k = next(i for i, s in enumerate(steps) if s.cite == answer and s.verb == "答拜")
    rise = next(s for s in reversed(steps[:k]) if s.actor == "公" and s.verb == "興")
    assert rise.cite == bow
    assert abs(steps[k].t - (rise.t + rise.dur)) <= 0.5


@pytest.mark.slow
@pytest.mark.parametrize("rite", ["xiangshe", "yanli"])
def test_the_pairs_bow_where_they_pass_at_the_arrows(run_once, rite):
    """與進者相左相揖反位 (xiangshe:177, 拾取矢; the 燕射 of 燕禮 likewise): the pair going back
    bows to the pair coming forward where they meet, on the way between the 楅 and the 位, the
    pair going back to the north (注: 相左皆由進者之北), not as it sets off from the 楅 where
    the next pair is bound. Every pair but the last of a round meets the next; the last has
    nobody to bow to and does not bow (敖繼公: 下耦亦無與進者相左相揖之事)."""
    steps = [s for s in run_once(rite, seed=1).records if type(s) is Step]
    bound = next(s for s in steps if s.cite == "xiangshe:172" and s.verb == "進" and s.joined_with)
    bows = [i for i, s in enumerate(steps) if s.cite == "xiangshe:177" and s.verb == "揖"]
    met = 0
    for i in bows:
        s = steps[i]
        # he has walked from the 楅 towards his 位 (west) and bows there
        came = next(q for q in reversed(steps[:i]) if q.actor == s.actor and q.path)
        assert came.cite == "xiangshe:177" and came.path[-1][0] < came.path[0][0] - 5.0
        assert math.dist((s.x, s.y), bound.path[-1][:2]) >= 5.0
        for name in s.joined_with:
            other = next(
                q
                for q in steps[i:]
                if q.actor == name and q.path and q.t <= s.t + s.dur and s.t <= q.t + q.dur
            )
            d, u = min(
                (math.dist((s.x, s.y), _at(other.path, u)[0]), u)
                for u in (s.t + s.dur * n / 20 for n in range(21))
            )
            assert 1.0 <= d <= 9.5, (s.seq, name, d)
            assert _at(other.path, u)[0][1] < s.y  # he passes to the north of the one coming
            met += 1
    assert bows and met == len(bows)
    assert not any(steps[i].actor.startswith("下耦") for i in bows)


#: the pairs whose bow to the pair coming meets nobody: the last of a round (敖繼公 on
#: xiangshe:153, the 義疏 agreeing: 下耦無與升射者相左相揖之事); in 大射儀 the 下耦 of every
#: round (the 公 and the 賓 shoot after it, going up by no 階前 crossing; the 卿大夫 drink on
#: the 堂, dashe:235) and the 士御耦, last of the 卿大夫
ALONE = {"xiangshe": {"下耦"}, "yanli": {"下耦"}, "dashe": {"下耦", "士御耦"}}
#: joint acts: bows and handings
JOINT_VERBS = {"揖", "拜", "相揖", "相左", "交", "授", "受"}


@pytest.mark.slow
@pytest.mark.parametrize("rite", ["xiangshe", "dashe", "yanli"])
def test_a_joint_bow_names_nobody_only_where_the_text_has_nobody(run_once, rite):
    """A bow the spec links as joint (an act marked `joint`, or the act such a mark names)
    names the other party wherever the text has one: in 大射儀 the 卿, 大夫 and 士御 pairs
    揖如三耦 … 降如三耦 (dashe:206), so each bows to the pair going up as the 三耦 do
    (dashe:154), and every pair does so where the two cross in front of the 階 (交于階前), the
    下射 as the 上射 (they bowed 10–13 尺 apart at the 階's side, too far to meet)."""
    r = run_once(rite, seed=1)
    marked, named = set(), set()
    for (f, line), (_along, joint, _after) in links(r.spec).items():
        if joint is not None:
            marked.add((f, line))
            named.add((joint.cite, joint.verb))
    alone, met = set(), 0
    for s in (s for s in r.records if type(s) is Step):
        if s.verb not in JOINT_VERBS:
            continue
        if (s.source_file or r.spec.file, s.line) not in marked and (s.cite, s.verb) not in named:
            continue
        if s.joined_with:
            met += 1
        else:
            alone.add(pair_of(s.actor))
    assert alone <= ALONE[rite], alone - ALONE[rite]
    assert met >= 30

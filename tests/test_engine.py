"""The run API and the event-log contract (docs/event-log.md), on the mini fixture spec."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fixtures.standin import FixedOutcomes, make_env
from hypothesis import given, settings
from hypothesis import strategies as st
from loglines import log_lines, shot_lines, step_lines, tally_lines

from sheli.engine import SpecError, run
from sheli.scoring import SeededOutcomes
from sheli.text import get_passage
from sheli.text.variants import fold

MINI = Path(__file__).parent / "fixtures" / "specs" / "mini.yaml"
FACINGS = {"N", "S", "E", "W", "NE", "NW", "SE", "SW", None}
STEP_FIELDS = {
    "type", "seq", "round", "section", "cite", "jing", "actor", "verb",
    "x", "y", "facing", "holds", "says",
}  # fmt: skip


@pytest.fixture(scope="module")
def mini_run():
    return run(MINI, seed=1)


def test_scene_is_first_and_lists_fixtures_with_sources(mini_run) -> None:
    scene = log_lines(mini_run)[0]
    assert scene["type"] == "scene" and scene["unit"] == "尺"
    assert scene["rite"] == "mini" and scene["venue"] == "xie"
    names = {f["name"] for f in scene["fixtures"]}
    assert {"堂西", "中", "西階", "左物", "右物", "楅"} <= names
    assert all(f["source"] for f in scene["fixtures"]), scene["fixtures"]
    assert all(isinstance(f["x"], float) for f in scene["fixtures"])
    roles = {c["actor"]: c for c in scene["cast"]}
    assert roles["上耦上射"]["pair"] == "上耦" and roles["上耦上射"]["seat"] == "上射"
    assert [e["type"] for e in log_lines(mini_run)].count("scene") == 1


def test_step_lines_follow_the_contract(mini_run) -> None:
    steps = step_lines(mini_run)
    assert [s["seq"] for s in steps] == list(range(1, len(steps) + 1))
    for s in steps:
        assert STEP_FIELDS <= set(s), s
        assert s["round"] in (0, 1, 2, 3)
        assert s["facing"] in FACINGS
        assert re.fullmatch(r"xiangshe:\d+", s["cite"])
        assert isinstance(s["holds"], list)
        assert fold(s["jing"]) in fold(get_passage(s["cite"]).text)
        assert isinstance(s["section"], int)


def test_rounds_and_sections(mini_run) -> None:
    steps = step_lines(mini_run)
    assert steps[0]["round"] == 0 and steps[0]["section"] == 14
    first = next(s for s in steps if s["round"] == 1)
    assert first["section"] == 15
    # the second shooting is a call with its own cite (xiangshe:189): its steps cite 147 but
    # belong to the section of 189 and carry the call
    inner = [s for s in steps if s["round"] == 2 and s["verb"] == "射"]
    assert inner and all(s["as"]["cite"] == "xiangshe:189" for s in inner)
    assert {s["section"] for s in inner} == {get_passage("xiangshe:189").section}


def test_shot_lines_follow_their_steps(mini_run) -> None:
    events = log_lines(mini_run)
    for i, e in enumerate(events):
        if e["type"] == "shot":
            step = events[i - 1]
            assert step["type"] == "step" and step["verb"] == "射" and step["seq"] == e["seq"]
            assert {"round", "pair", "archer", "arrow", "hit", "counted", "reason"} <= set(e)
    r1 = [s for s in shot_lines(mini_run) if s["round"] == 1]
    assert len(r1) == 8 and not any(s["counted"] for s in r1)


def test_the_youshe_is_round_zero_and_never_counted(mini_run) -> None:
    ys = [s for s in shot_lines(mini_run) if s["pair"] == "誘射"]
    assert len(ys) == 4 and all(s["round"] == 0 and not s["counted"] for s in ys)


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=0, max_value=10_000))
def test_tally_equals_the_counted_arrows_by_side(seed: int) -> None:
    r = run(MINI, outcomes=SeededOutcomes(seed))
    (t,) = tally_lines(r)
    counted = [s for s in shot_lines(r) if s["round"] == 2 and s["counted"]]
    assert t["right"] == sum(1 for s in counted if s["archer"] == "上射")
    assert t["left"] == sum(1 for s in counted if s["archer"] == "下射")
    releases = [s for s in step_lines(r) if s["verb"] == "釋獲"]
    assert len(releases) == len(counted)
    tell = next(s for s in step_lines(r) if s["verb"] == "告")
    assert tell["says"] == t["announcement"]


def test_same_seed_same_log() -> None:
    a, b = run(MINI, seed=5), run(MINI, seed=5)
    assert log_lines(a) == log_lines(b)


def test_api_parameters_override_the_spec() -> None:
    r = run(MINI, venue="xiang", outcomes=FixedOutcomes())
    assert r.venue == "xiang" and r.scene.venue == "xiang"
    # 鄉庠: the 物 當楣, not 當棟 (記 xiangshe:339), so the 司射 stands elsewhere
    x = run(MINI, venue="xie", outcomes=FixedOutcomes())
    at = lambda run_: next(s for s in step_lines(run_) if s["verb"] == "射")["y"]  # noqa: E731
    assert at(r) != at(x)
    # the 序 takes the 鉤楹内 branch, the 庠 the other (xiangshe:128)
    vias = [s.get("via") for s in step_lines(r) if s["verb"] == "適" and s["actor"] == "司射"]
    assert vias == ["西楹之南"]


def test_pairs_parameter_adds_archers() -> None:
    r = run(MINI, pairs=3, outcomes=FixedOutcomes())
    actors = {c["actor"] for c in r.scene.cast}
    assert {"衆耦1上射", "衆耦3下射"} <= actors


def test_runs_with_a_stand_in_venue() -> None:
    r = run(MINI, env=make_env())
    assert tally_lines(r)[0]["announcement"] == "左右鈞"


def test_venue_by_the_texts_names() -> None:
    assert run(MINI, venue="庠", outcomes=FixedOutcomes()).venue == "xiang"
    assert run(MINI, venue="豫", outcomes=FixedOutcomes()).venue == "xie"
    with pytest.raises(SpecError, match="xie"):
        run(MINI, venue="castle")


# ------------------------------------------------------------------ the interpreter's control


def _spec(tmp_path: Path, steps: list, procedures: dict | None = None) -> Path:
    import yaml

    spec = {
        "rite": "c",
        "chapter": "xiangshe",
        "params": {"guests_shoot": False},
        "cast": [{"role": "司射", "at": "堂西"}, {"role": "三耦", "at": "堂西"}],
        "procedures": procedures or {},
        "steps": steps,
    }
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(spec, allow_unicode=True, sort_keys=False), "utf-8")
    return path


BOW = {"cite": "xiangshe:128", "jing": "揖", "actor": "{耦}上射", "verb": "揖"}


def test_call_without_its_parameter(tmp_path: Path) -> None:
    path = _spec(tmp_path, [{"call": "p"}], {"p": {"params": ["耦"], "steps": [BOW]}})
    with pytest.raises(SpecError, match="call p without 耦"):
        run(path, outcomes=FixedOutcomes())


def test_a_procedure_that_calls_itself(tmp_path: Path) -> None:
    path = _spec(tmp_path, [{"call": "p"}], {"p": [{"call": "p"}]})
    with pytest.raises(SpecError, match="calls itself"):
        run(path, outcomes=FixedOutcomes())


def test_loops_conditions_and_bindings(tmp_path: Path) -> None:
    loop = {
        "for_each": "耦",
        "in": "三耦",
        "do": [
            BOW,
            {"if": {"last": "耦"}, "cite": "xiangshe:178", "jing": "後者遂取誘射之矢",
             "then": [{"actor": "{耦}下射", "verb": "揖"}]},
            {"if": {"bound": {"耦": "次耦"}}, "cite": "xiangshe:128", "jing": "揖",
             "then": [{"actor": "司射", "verb": "揖"}]},
        ],
    }  # fmt: skip
    r = run(_spec(tmp_path, [loop]), outcomes=FixedOutcomes())
    assert [s["actor"] for s in step_lines(r)] == [
        "上耦上射", "次耦上射", "司射", "下耦上射", "下耦下射",
    ]  # fmt: skip
    bad = _spec(tmp_path, [{**loop, "in": "四耦"}])
    with pytest.raises(SpecError, match="not a group of pairs"):
        run(bad, outcomes=FixedOutcomes())


def test_outcome_conditions_need_an_outcome(tmp_path: Path) -> None:
    for cond, words in (({"winner": "tie"}, "before any 數獲"), ({"hit": True}, "before any")):
        step = {"if": cond, "cite": "xiangshe:204", "jing": "左右鈞", "then": []}
        with pytest.raises(SpecError, match=words):
            run(_spec(tmp_path, [step]), outcomes=FixedOutcomes())


def test_unbound_template_actor(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="loop variable is not bound"):
        run(_spec(tmp_path, [BOW]), outcomes=FixedOutcomes())

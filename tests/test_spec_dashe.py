"""The rite spec of 大射儀 (src/sheli/rite/specs/dashe.yaml and its parts), checked against the
text and run by the engine.

Static: the spec loads with its parts in the text's order; every passage of the court's parts
(dashe:1–120, 278–324) is enacted, a rule, or left out with a reason; every assumption is used.
Runs: default, seeded, each option and reading; the 儀注 has the 賈疏 sections in order; the
venue's measures are checked by the 量人 (dashe:5); places and cups as the text has them.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from loglines import log_lines, shot_lines

from sheli.engine import RunOptions, default_env, run, run_spec
from sheli.engine.check import all_steps
from sheli.engine.coverage import coverage
from sheli.engine.options import choose_readings
from sheli.rite import load_spec
from sheli.rite.loader import SpecError
from sheli.rite.nodes import ActStep
from sheli.scoring.outcomes import SeededOutcomes

COURT = list(range(1, 121)) + list(range(278, 325))  # this spec's own parts
ARCHERY = list(range(121, 278))


@cache
def loaded() -> Any:
    return load_spec("dashe")


@cache
def default_run() -> Any:
    return run("dashe")


@pytest.fixture(scope="module", autouse=True)
def quick_runs() -> None:
    """The run the tests not marked slow read (the default 大射儀), made before them, not by
    the first to ask (tests/conftest.py counts a module's fixtures apart)."""
    default_run()


def steps(r: Any) -> list[dict[str, Any]]:
    return [e for e in log_lines(r) if e.get("type") == "step"]


def has_archery() -> bool:
    return any(str(f).endswith("archery.yaml") for f in loaded().files)


def test_the_spec_is_found_by_its_names():
    for name in ("dashe", "大射儀", "大射", "大射仪"):
        assert load_spec(name).spec.rite == "dashe"


def test_the_parts_come_in_the_texts_order():
    names = [str(f).rsplit("/", 1)[-1] for f in loaded().files]
    parts = [n for n in names if n in ("before.yaml", "archery.yaml", "after.yaml")]
    assert parts[0] == "before.yaml" and parts[-1] == "after.yaml"
    assert parts in (["before.yaml", "after.yaml"], ["before.yaml", "archery.yaml", "after.yaml"])


def test_every_court_passage_is_enacted_ruled_or_reasoned():
    rep = coverage("dashe")
    by_n = {p.n: p for p in rep.passages}
    for n in COURT:
        p = by_n[n]
        assert p.status in ("step", "rule", "uncovered"), (n, p.status)
        if p.status == "uncovered":
            assert len(p.reason or "") > 40, n
    own = sum(by_n[n].enacted for n in COURT) / len(COURT)
    assert own >= 0.99
    if has_archery():
        assert rep.share >= 0.95


@pytest.mark.slow
def test_every_assumption_is_used():
    spec = loaded().spec
    used = set()
    for s, _cite, _proc in all_steps(spec):
        if isinstance(s, ActStep):
            used.update(s.assumes)
            for act in s.acts():
                used.update(act.assumes)
    assert _own() <= used, _own() - used


@cache
def _own() -> set[str]:
    import yaml

    ids: set[str] = set()
    for f in loaded().files:
        if str(f).endswith(("dashe.yaml", "before.yaml", "after.yaml")):
            data = yaml.safe_load(open(f, encoding="utf-8")) or {}
            ids.update(a["id"] for a in data.get("assumptions") or [])
    return ids


@pytest.mark.slow
def test_default_run_goes_from_the_first_passage_to_the_last():
    ev = steps(default_run())
    assert ev[0]["cite"] == "dashe:1" and ev[-1]["cite"] == "dashe:324"
    assert ev[-1]["actor"] == "公"  # 公入驁


@pytest.mark.slow
def test_a_seeded_run_goes_to_the_end_too():
    ev = steps(run("dashe", seed=3))
    assert ev[-1]["cite"] == "dashe:324"


@pytest.mark.slow
def test_without_guests_the_gong_does_not_shoot_and_the_rite_still_ends():
    # 公不射 (dashe:190): the 小射正 never goes up to the 東堂, so at dashe:290 he comes to the
    # 觶南 from the 庭, not down the 阼階
    r = run("dashe", guests=False)
    ev = steps(r)
    assert ev[-1]["cite"] == "dashe:324"
    assert not any(s["person"] == "公" for s in shot_lines(r))
    xiao = [e for e in ev if e["cite"] == "dashe:290" and e["actor"] == "小射正"]
    assert [e["verb"] for e in xiao] == ["立"]
    with_gong = [e for e in steps(default_run()) if e["cite"] == "dashe:290"]
    assert [e["verb"] for e in with_gong if e["actor"] == "小射正"] == ["進", "降", "立"]


@pytest.mark.slow
def test_the_yizhu_has_the_sections_in_order():
    ev = steps(default_run())
    # the court's steps keep the 賈疏 sections in order (a 如初 call counts as its own passage)
    court = [e["section"] for e in ev if int(e["cite"].split(":")[1]) in COURT]
    assert court == sorted(court)
    firsts = list(dict.fromkeys(e["section"] for e in ev))
    want = list(range(1, 39)) if has_archery() else [*range(1, 19), *range(33, 39)]
    assert firsts == want


@pytest.mark.parametrize(
    "options",
    [{"gongming": True}, {"ci": "長"}, {"fushe": True}, {"zhugong": True}, {"xiao": False}],
)
@pytest.mark.slow
def test_every_option_runs_to_the_end(options):
    ev = steps(run("dashe", options=options))
    assert ev[-1]["cite"] == "dashe:324"


@pytest.mark.slow
def test_fushe_leaves_out_the_xian_of_the_shuzi():
    # 若命曰復射則不獻庶子 (dashe:303)
    cites = {e["cite"] for e in steps(run("dashe", options={"fushe": True}))}
    assert "dashe:307" not in cites and "dashe:305" in cites
    assert "dashe:307" in {e["cite"] for e in steps(default_run())}


@pytest.mark.slow
def test_the_liangren_checks_the_hou_dao_against_the_reading():
    # 鄭注 dashe:5 量矦道謂去堂遠近也; 敖繼公: from the 物. The plan must agree with the reading.
    # the run's choices are refused before it starts (the reading names its plan) …
    with pytest.raises(SpecError, match=r"R-houdao-ao needs --venue shegong_ao"):
        run("dashe", readings=["R-houdao-ao"])
    # … and the 量人 finds the 侯道 wrong on the other plan if it is run all the same
    loaded = load_spec("dashe")
    params = RunOptions().params(loaded)
    params["readings"] = choose_readings(loaded.spec, ["R-houdao-ao"])
    with pytest.raises(SpecError, match=r"90 弓"):
        run_spec(loaded, params, default_env("shegong", SeededOutcomes(0), "dashe"))
    ev = steps(run("dashe", readings=["R-houdao-ao"], venue="shegong_ao"))
    assert ev[-1]["cite"] == "dashe:324"
    measured = [e for e in steps(default_run()) if e["verb"] == "量"]
    assert len(measured) == 6


def _place_after(r: Any, actor: str, cite: str) -> tuple[float, float]:
    """Where ``actor`` stands after his last act at ``cite``."""
    at = [(e["x"], e["y"]) for e in steps(r) if e["cite"] == cite and e["actor"] == actor]
    return at[-1]


@pytest.mark.slow
def test_who_stands_northeast_of_the_gan_hou_depends_on_the_reading():
    from sheli.place import load_venue

    v = load_venue("shegong")
    spot = v.point("干侯東北")
    shi = _place_after(default_run(), "大史", "dashe:21")
    assert shi == pytest.approx((spot.x, spot.y))
    alt = run("dashe", readings=["R-dafu-gan"])
    fu = [(e["x"], e["y"]) for e in steps(alt) if e["cite"] == "dashe:21" and e["actor"] == "大夫"]
    assert fu[-1] == pytest.approx((spot.x, spot.y))


@pytest.mark.slow
def test_the_gong_drinks_shan_and_the_zhuren_san():
    # 主人…酌膳…獻于公 (dashe:54); 更爵洗升酌散以降酢 (dashe:58): the 主人 does not drink the 膳
    from sheli.place import load_venue

    v = load_venue("shegong")
    shan, san = v.point("膳尊"), v.point("方壺")
    pours = [e for e in steps(default_run()) if e["verb"] == "酌" and e["actor"] == "主人"]
    by_cite = {e["cite"]: e for e in pours}

    def nearest(e: dict[str, Any]) -> str:
        d1 = (e["x"] - shan.x) ** 2 + (e["y"] - shan.y) ** 2
        d2 = (e["x"] - san.x) ** 2 + (e["y"] - san.y) ** 2
        return "膳" if d1 < d2 else "散"

    assert nearest(by_cite["dashe:54"]) == "膳"
    assert nearest(by_cite["dashe:58"]) == "散"


def test_nobody_drinks_from_an_empty_cup_and_the_drinkers_are_the_texts():
    drinkers = {(c, who) for _r, who, c in default_run().drinks}
    for cite, who in [
        ("dashe:46", "賓"),  # 賓…卒爵
        ("dashe:51", "主人"),  # 主人…卒爵 (the 酢)
        ("dashe:57", "公"),  # 公…立卒爵
        ("dashe:73", "公"),  # 公卒觶
        ("dashe:86", "卿"),
        ("dashe:120", "大射正"),  # 司正 卒觶
        ("dashe:310", "公"),  # 公卒爵然後飲
        ("dashe:310", "卿"),
    ]:
        assert (cite, who) in drinkers, (cite, who)


def test_the_gong_does_not_move_between_the_bins_going_out_and_gong_ru():
    # 公不送 (dashe:323)
    ev = steps(default_run())
    moves = [e for e in ev if e["actor"] == "公" and e["cite"] in ("dashe:321", "dashe:322")]
    assert moves == []


def test_the_steps_of_the_court_stay_out_of_the_archery_rounds():
    for e in steps(default_run()):
        n = int(e["cite"].split(":")[1])
        if n in COURT:
            assert e["round"] == 0, e


def test_the_feasts_music_is_not_the_archerys():
    # 奏 starts the archery's music (公樂作而后就物 dashe:273 checks it); the feast's 肆夏, 鹿鳴,
    # 新宮, 無算樂, 陔 and 驁 are 歌 / 笙 / 鼓, so they cannot satisfy that check beforehand
    court = [
        e for e in steps(default_run()) if int(e["cite"].split(":")[1]) in COURT and e["round"] == 0
    ]
    assert not [e for e in court if e["verb"] == "奏"]
    assert {e["says"] for e in court if e["verb"] in ("歌", "笙", "鼓")} >= {
        "肆夏",
        "鹿鳴三終",
        "新宮三終",
        "無算樂",
        "陔",
        "驁",
    }


def test_the_gong_sit_east_of_the_xiao_yuezheng_the_da_shi_at_the_head() -> None:
    """升自西階北面東上 (dashe:103), the 大師 first (dashe:99 相大師…相少師…相上工); 小樂正立于
    西階東 (dashe:105), 注 「不統於工明工雖衆位猶在此」: the 大師 at the east end of the row, the
    少師 and 上工 west of him, the 小樂正 west of them all, at the 西階's head (the six fill the
    堂 to the 階's edge: 位猶在此)."""
    r = default_run()
    pos: dict[str, tuple[float, float]] = {}
    for e in steps(r):
        if e["cite"] == "dashe:106":
            break
        for m in e.get("members") or [{"name": e["actor"], "x": e["x"], "y": e["y"]}]:
            pos[m["name"]] = (m["x"], m["y"])
    gong = [xy for name, xy in pos.items() if name.startswith("工")]
    stair = next(f for f in r.scene.fixtures if f["name"] == "西階")
    assert len(gong) == 5
    assert pos["大師"][0] > max(x for x, _ in gong)
    assert stair["x"] <= pos["小樂正"][0] < min(x for x, _ in gong)
    assert {y for _, y in gong} == {pos["大師"][1]} == {pos["小樂正"][1]}

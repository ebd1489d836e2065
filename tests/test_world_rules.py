"""Objects and garments kept between the text's words (docs/world-rules.md).

Every configuration of the golden logs (every rite, venue, reading and option they cover) is
read for the five counts of the world: nobody ends the rite bared or wearing 決遂, no drink is
taken so, every cup is filled within 6 尺 of a 尊 or 壺, no cup turns full without 酌, 實 or
受, and the 司射 ends with no arrow. Each rule has a fixture spec that breaks it, refused with
its file and line; and each place where the specs were wrong has its own test.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fixtures.standin import FixedOutcomes
from sharing import Once, same_run

from sheli import rite as rite_package
from sheli.engine import run
from sheli.engine.world_rules import load_world_rules
from sheli.place import load_venue
from sheli.place.loader import VENUES
from sheli.rite import load_spec
from sheli.rite.loader import SpecError

sys.path.insert(0, str(Path(__file__).parent / "golden"))
from loglines import log_lines
from logs import CONFIGS, log_of
from test_facing_words import group_faults, step_groups

SPECS = Path(__file__).parent / "fixtures" / "specs"
SPEC_DIR = Path(rite_package.__file__).parent / "specs"
RULES = load_world_rules()
REACH = RULES.reach
BARED = ("袒", "決遂")


def _steps(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("type") == "step"]


def _bared(step: dict[str, Any]) -> bool:
    return any(d in BARED for d in step.get("dress") or [])


def _cup(step: dict[str, Any]) -> str | None:
    """'full', 'empty' or None: the cups in a step's holds (觶(實), 爵(虛) …)."""
    hs = [h for h in step.get("holds") or [] if any(c in h for c in RULES.cups)]
    if any("實" in h for h in hs):
        return "full"
    if any("虛" in h for h in hs):
        return "empty"
    return None


def world_faults(events: list[dict[str, Any]]) -> dict[str, list[str]]:
    """The five counts of the world, read from an event log (as a reader of the log sees it)."""
    scene = next(e for e in events if e.get("type") == "scene")
    vessels = [
        (f["x"], f["y"])
        for f in scene.get("fixtures", [])
        if f.get("name") in RULES.vessels and f.get("x") is not None
    ]
    faults: dict[str, list[str]] = {k: [] for k in ("end", "drink", "far", "self", "arrow")}
    last: dict[str, dict[str, Any]] = {}
    cup: dict[str, str | None] = {}
    for s in _steps(events):
        who, at = s["actor"], f"#{s['seq']} {s['cite']} {s['actor']} {s['verb']}"
        if s["verb"] in RULES.drink_verbs and _bared(s):
            faults["drink"].append(at)
        state = _cup(s)
        if s["verb"] in RULES.fill_verbs and state and vessels and s.get("x") is not None:
            if min(math.hypot(s["x"] - x, s["y"] - y) for x, y in vessels) > REACH:
                faults["far"].append(at)
        if cup.get(who) == "empty" and state == "full" and s["verb"] not in ("實", "酌", "受"):
            faults["self"].append(at)
        cup[who], last[who] = state, s
    for who, s in last.items():
        if _bared(s):
            faults["end"].append(f"#{s['seq']} {s['cite']} {who} {s['verb']} {s['dress']}")
        if who in ("司射", "大射正") and any("矢" in h for h in s.get("holds") or []):
            faults["arrow"].append(f"#{s['seq']} {s['cite']} {who} {s['holds']}")
    return faults


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=same_run(f"log {n}")) for n in sorted(CONFIGS)]
)
@pytest.mark.slow
def test_every_configuration_keeps_objects_and_garments(name: str, once: Once) -> None:
    # the log tests/test_golden_logs.py hashes, made once for both (tests/conftest.py)
    log = once(("log", name), lambda: log_of(CONFIGS[name]))
    events = [json.loads(x) for x in log.splitlines() if x.strip()]
    faults = world_faults(events)
    assert faults == {k: [] for k in faults}, (name, faults)


def spec_configs(rite: str) -> dict[str, dict[str, Any]]:
    """Every venue, reading and option value a rite's spec names, each run once from the defaults.

    Read from the spec's own files, so that a new option, reading or venue test is covered
    without touching this list: the venues its ``if: {venue: …}`` tests and its readings need;
    each reading that is not its group's default (with the venue it asks for); each value of
    each ``params.options`` (both values of a flag, and every value an ``if: {option: …}``
    tests, where the spec's ``venues`` let it be held); and the run without guests.

    >>> sorted(spec_configs("xiangshe"))[:3]
    ['xiangshe', 'xiangshe R-zhi-zuojie', 'xiangshe feast=False']
    """
    loaded = load_spec(rite)
    spec, text = loaded.spec, "\n".join(p.read_text(encoding="utf-8") for p in loaded.files)
    out: dict[str, dict[str, Any]] = {rite: {}, f"{rite} guests=False": {"guests": False}}
    # a venue tested for a rite that extends this one (燕射's qin in 鄉射禮's files) is not run
    # where the spec says where the rite is held (its venues)
    held = set(spec.venues) or set(VENUES)
    for v in sorted(set(re.findall(r"\{venue: (\w+)\}", text)) & held):
        if v != spec.params.venue:
            out[f"{rite} venue={v}"] = {"venue": v}
    for r in spec.readings:
        if not r.default:
            out[f"{rite} {r.id}"] = {"readings": [r.id], **({"venue": r.venue} if r.venue else {})}
    for name, default in spec.params.options.items():
        tested = re.findall(rf"option: \{{{name}: ([^,}}]+)\}}", text)
        values = {{"true": True, "false": False}.get(v, v) for v in tested}
        if isinstance(default, bool):
            values |= {True, False}
        for v in sorted(values - {default}, key=str):
            out[f"{rite} {name}={v}"] = {"options": {name: v}}
    return out


RITES = sorted(p.stem for p in SPEC_DIR.glob("*.yaml"))
SPEC_CONFIGS = {k: (r, kw) for r in RITES for k, kw in spec_configs(r).items()}
# Runs the specs refuse by design: each with its reason (an xfail that must still fail).
REFUSED = {
    "yanli venue=xie": "燕禮's cast stands in the 寢 (東堂下); the 州序 has no 東堂下",
    "yanli venue=xiang": "燕禮's cast stands in the 寢 (東堂下); the venue xiang has none",
}


def config_param(name: str) -> Any:
    """A spec configuration as a test's parameter: its run is shared (tests/conftest.py,
    ``run_once``) by the tests of every module that reads it (tests/test_paths.py,
    tests/test_readings_doc.py), sent to one worker; a refused one must still fail."""
    marks = [same_run(f"config {name}")]
    if name in REFUSED:
        marks.append(pytest.mark.xfail(reason=REFUSED[name], raises=SpecError, strict=True))
    return pytest.param(name, marks=marks)


@pytest.mark.parametrize("name", [config_param(n) for n in sorted(SPEC_CONFIGS)])
@pytest.mark.slow
def test_every_venue_reading_and_option_keeps_objects_and_garments(
    name: str, run_once: Callable[..., Any]
) -> None:
    """The engine's world rules hold in the run (it raises otherwise), and so do the five counts
    and each step's facing words (tests/test_facing_words.py)."""
    rite, kw = SPEC_CONFIGS[name]
    events = log_lines(run_once(rite, seed=0, **kw))
    faults = world_faults(events)
    assert faults == {k: [] for k in faults}, (name, faults)
    assert [f for g in step_groups(events) for f in group_faults(g)] == [], name


def test_the_enumeration_sees_each_kind_of_choice() -> None:
    assert {
        "dashe ci=長",
        "dashe R-houdao-ao",
        "xiangshe venue=xiang",
        "yanshe jun_shoots=False",
    } <= set(SPEC_CONFIGS)
    assert SPEC_CONFIGS["dashe R-houdao-ao"][1] == {
        "readings": ["R-houdao-ao"],
        "venue": "shegong_ao",
    }


def test_the_yanshe_without_the_jun_has_the_dafu_shoot(run_once: Callable[..., Any]) -> None:
    """A-jun-bushe: 言與射則君於燕射或時不與矣 (敖繼公, 義疏 yan:177); 注 yan:124 君與賓為耦."""
    steps = _steps(log_lines(run_once("yanshe", options={"jun_shoots": False})))
    actors = {s["actor"] for s in steps if s["cite"] in ("xiangshe:187", "xiangshe:188")}
    assert "大夫" in actors and not actors & {"賓", "主人", "公"}
    assert not any(s["actor"] in ("賓", "主人") and s["verb"] in ("射", "發") for s in steps)


# ------------------------------------------------------------------ each rule refused

BROKEN = {
    "bad_world_drink_bared.yaml": ("W-drink-dressed", "xiangshe:211", "卒觶 by 司馬"),
    "bad_world_seat_bared.yaml": ("W-seat-dressed", "xiangshe:255", "就 by 賓"),
    "bad_world_end_bared.yaml": ("W-end-dressed", "xiangshe:232", "司射"),
    "bad_world_far_fill.yaml": ("W-fill-at-vessel", "xiangshe:206", "酌 by 勝者之弟子"),
    "bad_world_fill_facing.yaml": ("W-fill-facing", "xiangshe:206", "酌 by 勝者之弟子"),
    "bad_world_wash_full.yaml": ("W-fill-only", "xiangshe:216", "洗 by 執爵者"),
    "bad_world_take_far.yaml": ("W-take-reach", "xiangshe:232", "取 by 司射"),
}


def _marked_line(path: Path) -> int:
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.rstrip().endswith("# ERROR"):
            return n
    raise AssertionError(f"{path.name} has no # ERROR marker")


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_spec_breaking_a_world_rule_is_refused_with_file_and_line(name: str) -> None:
    rid, cite, what = BROKEN[name]
    with pytest.raises(SpecError) as info:
        run(SPECS / name, outcomes=FixedOutcomes())
    err = info.value
    assert (err.file, err.line, err.cite, err.what) == (
        name,
        _marked_line(SPECS / name),
        cite,
        what,
    )
    assert f"[{rid}]" in str(err) and RULES.rule(rid).sources[0] in str(err)


def test_every_rule_has_a_source_and_a_broken_fixture() -> None:
    assert {b[0] for b in BROKEN.values()} == set(RULES.rules)
    for rule in RULES.rules.values():
        assert rule.sources and rule.text


def test_an_excerpt_is_held_to_the_garments_but_not_to_the_places(tmp_path: Path) -> None:
    for name in ("bad_world_take_far.yaml", "bad_world_far_fill.yaml", "bad_world_end_bared.yaml"):
        text = (SPECS / name).read_text(encoding="utf-8") + "excerpt: true\n"
        (tmp_path / name).write_text(text, encoding="utf-8")
        run(tmp_path / name, outcomes=FixedOutcomes())  # schematic places: no world rule of place
    text = (SPECS / "bad_world_drink_bared.yaml").read_text(encoding="utf-8") + "excerpt: true\n"
    (tmp_path / "d.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(SpecError, match="W-drink-dressed"):
        run(tmp_path / "d.yaml", outcomes=FixedOutcomes())


# ------------------------------------------------------------------ the places the specs were wrong


@pytest.fixture(scope="module")
def xiangshe(run_once: Callable[..., Any]) -> list[dict[str, Any]]:
    return _steps(log_lines(run_once("xiangshe", seed=1)))


@pytest.fixture(scope="module")
def dashe(run_once: Callable[..., Any]) -> list[dict[str, Any]]:
    return _steps(log_lines(run_once("dashe", seed=1)))


@pytest.fixture(scope="module")
def yanshe(run_once: Callable[..., Any]) -> list[dict[str, Any]]:
    return _steps(log_lines(run_once("yanshe", seed=1)))


def _last(steps: list[dict[str, Any]], who: str) -> dict[str, Any]:
    return [s for s in steps if s["actor"] == who][-1]


def test_the_archers_are_covered_after_the_last_qushi(xiangshe, yanshe) -> None:
    """注 xiangshe:254 射禮畢; 義疏 案 255 當襲而後揖升就席: no 旅酬 bared, nobody leaves so."""
    for who in ("賓", "主人", "大夫", "大夫之耦", "上耦上射", "衆耦1上射"):
        if any(s["actor"] == who for s in xiangshe):
            assert _last(xiangshe, who)["dress"] == ["襲"], who
    drinks = [s for s in xiangshe if s["verb"] in RULES.drink_verbs and s["round"] == 0]
    assert drinks and all(s["dress"] == ["襲"] for s in drinks)
    for who in ("公", "賓", "大夫"):
        assert _last(yanshe, who)["dress"] == ["襲"], who


def test_the_dafu_ou_drinks_without_jue(xiangshe) -> None:
    """xiangshe:208 不勝者皆襲説決拾; 219 特升飲: 敖繼公 on 188 釋弓亦先説決拾."""
    for s in xiangshe:
        if s["verb"] in RULES.drink_verbs and s["round"] > 0:
            assert s["dress"] == ["襲"], (s["seq"], s["cite"], s["actor"])


def test_the_bin_of_dashe_is_covered_after_dashe_205(dashe) -> None:
    """敖繼公 on dashe:205 不言說決拾襲亦文省: the 賓 drinks and goes out 襲."""
    for s in dashe:
        if s["actor"] == "賓" and (s["verb"] in RULES.drink_verbs or s["cite"] >= "dashe:278"):
            if s["cite"].startswith("dashe:") and int(s["cite"][6:].split("-")[0]) >= 206:
                assert s["dress"] == ["襲"], (s["seq"], s["cite"], s["verb"])


def test_cups_are_filled_at_the_zun(xiangshe, dashe) -> None:
    """xiangshe:7 尊於賓席之東; 215 取觶實之反奠于豐上; dashe:226 酌散 (方壺)."""
    for steps, rite in ((xiangshe, "xie"), (dashe, "shegong")):
        v = load_venue(rite)
        pts = [v.point(n) for n in RULES.vessels if n in v.fixtures]
        fills = [s for s in steps if s["verb"] in RULES.fill_verbs and s.get("obj") in RULES.cups]
        assert fills
        for s in fills:
            d = min(math.hypot(s["x"] - p.x, s["y"] - p.y) for p in pts)
            assert d <= REACH, (s["seq"], s["cite"], s["actor"], d)


def test_cups_are_filled_facing_the_vessel_from_its_side(xiangshe, dashe) -> None:
    """注 xiangshe:7 設尊者北面 (疏 yan:5 此等皆據酌者北面而言): the 鄉射's 尊 is filled facing
    north; 疏 yan:5 酌者不得背君…當尊西東面: the 方壺 and 膳尊 facing east; 注 dashe:244 洗酌皆
    西面: the 獲者之尊 facing west (W-fill-facing)."""
    assert RULES.fill_facing == {"尊": "N", "方壺": "E", "膳尊": "E", "獲者之尊": "W"}
    for steps, rite in ((xiangshe, "xie"), (dashe, "shegong")):
        v = load_venue(rite)
        pts = {n: v.point(n) for n in RULES.vessels if n in v.fixtures}
        fills = [s for s in steps if s["verb"] in RULES.fill_verbs and s.get("obj") in RULES.cups]
        faced = set()
        for s in fills:
            name = min(pts, key=lambda n: math.hypot(s["x"] - pts[n].x, s["y"] - pts[n].y))
            if name in RULES.fill_facing:
                assert s["facing"] == RULES.fill_facing[name], (s["seq"], s["cite"], s["actor"])
                faced.add(name)
        assert faced == ({"尊"} if rite == "xie" else {"方壺", "膳尊", "獲者之尊"})


def test_an_empty_zhi_is_taken_up_empty(xiangshe) -> None:
    """xiangshe:215 執爵者坐取觶實之: the 觶 the last drinker emptied is empty until 實."""
    takes = [s for s in xiangshe if s["actor"] == "執爵者" and s["verb"] == "執"]
    assert takes and all(s["holds"] == ["觶(虛)"] for s in takes)


def test_the_sishe_takes_his_bow_where_he_laid_it(xiangshe) -> None:
    """xiangshe:232 取弓于階西 (and 111, 207): he is at the 階西 when he takes his 弓."""
    takes = [
        s for s in xiangshe if s["actor"] == "司射" and s["verb"] == "取" and s.get("obj") == "弓"
    ]
    assert {s["cite"] for s in takes} >= {"xiangshe:111", "xiangshe:207", "xiangshe:232"}
    assert all(s["place"] == "階西" for s in takes), [(s["cite"], s["place"]) for s in takes]


def test_the_sishe_ends_with_no_arrow(xiangshe, yanshe) -> None:
    """敖繼公 on xiangshe:256: 不言釋矢可知也."""
    for steps in (xiangshe, yanshe):
        assert not any("矢" in h for h in _last(steps, "司射")["holds"])


def test_the_xiangzhe_carries_the_se(xiangshe) -> None:
    """xiangshe:86 相者坐授瑟; 疏 121 相者亦左何瑟…如入升時也: the 弟子 carries it, not the 工."""
    down = [s for s in xiangshe if s["cite"] == "xiangshe:121" and s["verb"] == "降"]
    # the 瑟 are two (二瑟): the holding reads 瑟二
    held = {s["actor"]: any(h.startswith("瑟") for h in s["holds"]) for s in down}
    assert held == {"大師": False, "工": False, "弟子": True}


def test_bin_answers_at_the_mei_line(xiangshe) -> None:
    """xiangshe:20 賓西階上當楣北面答再拜 (and 主人阼階上當楣)."""
    mei = load_venue("xie").point("楣").y
    stand = [s for s in xiangshe if s["cite"] == "xiangshe:20" and s["verb"] == "立"]
    assert {s["actor"] for s in stand} == {"賓", "主人"}
    assert all(s["y"] == mei and s["facing"] == "N" for s in stand)


def test_the_sima_zheng_faces_southwest_at_dashe_144(dashe) -> None:
    """注 dashe:144 引鄉射禮 西南面立於物閒; 疏 此亦在物閒西南面也."""
    s = next(
        s
        for s in dashe
        if s["cite"] == "dashe:144" and s["actor"] == "司馬正" and s["verb"] == "命"
    )
    assert s["facing"] == "SW"


@pytest.mark.parametrize("venue", ["xie", "xiang"])
def test_the_feng_is_in_line_with_the_west_stair(venue: str) -> None:
    """疏 xiangshe:210 豐在西楹之西正當西階."""
    v = load_venue(venue)
    feng, jie, ying = v.point("豐"), v.point("西階"), v.point("西楹")
    assert feng.x == jie.x and feng.y == ying.y and feng.x < ying.x


def test_the_shihuozhe_counts_each_side_where_it_lies(xiangshe, dashe) -> None:
    """注 xiangshe:193 爲其少南就右獲; 199 就左獲少北於故 (dashe:213, 219–220 the same)."""
    for steps, who, right, left in (
        (xiangshe, "釋獲者", "xiangshe:193", "xiangshe:199"),
        (dashe, "大史", "dashe:213", "dashe:219"),
    ):
        wei = next(s for s in steps if s["actor"] == who and s["cite"] == right)
        goes = {
            s["cite"]: s
            for s in steps
            if s["actor"] == who and s["verb"] == "適" and s["cite"] in (right, left)
        }
        assert (
            goes[right]["y"] < goes[left]["y"] and goes[right]["x"] == goes[left]["x"] == wei["x"]
        )
        assert goes[right]["facing"] == goes[left]["facing"] == "E"

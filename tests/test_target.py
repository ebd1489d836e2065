"""The 侯's geometry (sheli.place.target) and its drawing (sheli.outputs.target): the rules of
梓人 and the 鄉射記 hold, the numbers 鄭注 and 賈疏 compute come out, the 鄉侯 agrees with the
place model, and the SVG is to scale."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from sheli.cli.params import params
from sheli.outputs.target import target_svg
from sheli.place import load_venue
from sheli.place.target import Target, raised, 尋, 幅, 武

SVG = "{http://www.w3.org/2000/svg}"


@given(st.floats(min_value=1, max_value=200))
def test_the_rules_hold_for_any_hou_dao(dao):
    t = Target(dao)
    assert t.中 == pytest.approx(dao * 0.2)  # 弓二寸以爲矦中 (xiangshe:374)
    assert t.鵠 == pytest.approx(t.中 / 3)  # 參分其廣而鵠居一焉
    assert t.躬 == pytest.approx(2 * t.中)  # 倍中以爲躳 (375)
    assert t.上舌 == pytest.approx(2 * t.躬)  # 倍躳以爲左右舌 (376)
    # 下舌半上舌, 注: 半其出於躳者 (377)
    assert (t.下舌 - t.躬) == pytest.approx((t.上舌 - t.躬) / 2)
    assert t.綱 == pytest.approx(t.上舌 + 2 * 尋)  # 上綱與下綱出舌尋
    bands = t.bands()
    assert [b.name for b in bands] == ["下舌", "下躬", "中", "上躬", "上舌"]
    assert sum(b.height for b in bands) == pytest.approx(t.height) == pytest.approx(t.中 + 4 * 幅)


@pytest.mark.parametrize("dao, cloth", [(50, 160), (70, 252), (90, 360)])
def test_cloth_is_what_zheng_xuan_counts(dao, cloth):
    # xiangshe:377 注: 凡鄉矦用布十六丈 … 道七十弓之矦用布二十五丈二尺道九十弓之矦用布三十六丈
    assert Target(dao).cloth == pytest.approx(cloth)


@pytest.mark.parametrize(
    "dao, hu",
    [(90, 6.0), (70, 4 + 6 / 10 + 2 / 30), (50, 3 + 3 / 10 + 1 / 30)],
)
def test_hu_sizes_of_dashe_6_zhu(dao, hu):
    # dashe:6 注: 大侯之鵠方六尺糝矦之鵠方四尺六寸大半寸豻矦之鵠方三尺三寸少半寸
    assert Target(dao).鵠 == pytest.approx(hu)


def test_can_and_gan_zhong_of_dashe_143_zhu():
    # dashe:143 注: 參中十四尺 … 干中十尺
    assert Target(70).中 == pytest.approx(14) and Target(50).中 == pytest.approx(10)


def test_hung_heights_of_dashe_6_zhu():
    # dashe:6 注: 糝矦去地一丈五寸少半寸大矦去地二丈二尺五寸少半寸; 干不及地武
    big, can, gan = raised([Target(90), Target(70), Target(50)])
    assert gan == pytest.approx(武)
    assert can == pytest.approx(10 + 0.5 + 1 / 30)
    assert big == pytest.approx(22 + 0.5 + 1 / 30)


def test_xiang_hou_agrees_with_the_place_model():
    """The place model's 侯 (xie.yaml params 侯中寬 … and its `hou` bands) is this 侯 at 50 弓."""
    v = load_venue("xie")
    dao = v.params["侯道"].value / v.params["弓"].value
    t = Target(dao)
    assert dao == 50
    assert v.params["侯中寬"].value == pytest.approx(t.中)
    assert v.params["躬寬"].value == pytest.approx(t.躬)
    assert v.params["上个寬"].value == pytest.approx(t.上舌)
    assert v.params["下个寬"].value == pytest.approx(t.下舌)
    assert v.params["幅"].value == pytest.approx(幅)
    assert v.params["尋"].value == pytest.approx(尋)
    assert v.params["武"].value == pytest.approx(武)


# ---------------------------------------------------------------- SVG


def _rects(root, part):
    return [r for r in root.iter(f"{SVG}rect") if r.get("data-part") == part]


def test_svg_is_to_scale():
    three = [Target(90, "鵠", "大侯"), Target(70, "鵠", "糝侯"), Target(50, "鵠", "豻侯")]
    root = ET.fromstring(target_svg(three, metre_per_chi=0.231, title="諸侯 大射"))
    px = float(root.get("data-px-per-chi"))
    groups = list(root.iter(f"{SVG}g"))
    hou = [g for g in groups if g.get("data-hou")]
    assert [g.get("data-hou") for g in hou] == ["大侯", "糝侯", "豻侯"]
    for g, t in zip(hou, three, strict=True):
        w = {r.get("data-part"): float(r.get("width")) for r in g.iter(f"{SVG}rect")}
        assert w["中"] == pytest.approx(t.中 * px, abs=0.01)
        assert w["中"] / w["鵠"] == pytest.approx(3, rel=1e-3)
        assert w["上躬"] / w["中"] == pytest.approx(2, rel=1e-3)
        assert w["上舌"] / w["上躬"] == pytest.approx(2, rel=1e-3)
        assert (w["下舌"] - w["下躬"]) / (w["上舌"] - w["上躬"]) == pytest.approx(0.5, rel=1e-3)
        h = {r.get("data-part"): float(r.get("height")) for r in g.iter(f"{SVG}rect")}
        assert h["中"] == pytest.approx(w["中"], abs=0.01)  # 方 (xiangshe:373 注)
        assert h["上舌"] == pytest.approx(幅 * px, abs=0.01)
    # hung as in dashe:6: the bottom of the 糝侯's 鵠 is level with the top of the 豻侯
    can, gan = hou[1], hou[2]
    hu_bottom = max(float(r.get("y")) + float(r.get("height")) for r in _rects(can, "鵠"))
    gan_top = min(float(r.get("y")) for r in gan.iter(f"{SVG}rect"))
    assert hu_bottom == pytest.approx(gan_top, abs=0.02)


def test_svg_scale_bar_in_chi_and_metres():
    root = ET.fromstring(target_svg([Target(50, "二正")], metre_per_chi=0.231))
    bar = next(g for g in root.iter(f"{SVG}g") if g.get("data-part") == "scale")
    px = float(root.get("data-px-per-chi"))
    chi = float(bar.get("data-chi"))
    drawn = sum(float(r.get("width")) for r in bar.iter(f"{SVG}rect"))
    assert drawn == pytest.approx(chi * px)
    assert float(bar.get("data-metre-per-chi")) == 0.231
    metres = next(x for x in bar.iter(f"{SVG}line") if x.get("data-part") == "metres")
    length_m = (float(metres.get("x2")) - float(metres.get("x1"))) / px * 0.231
    assert length_m == pytest.approx(round(length_m), abs=1e-3)  # whole metres (px to 0.01)
    texts = "".join(t.text or "" for t in bar.iter(f"{SVG}text"))
    assert "尺" in texts and "0.231" in texts
    # 二正: the outer 正 is a third of the 中 (seed 001 射人 鄭玄: 其外之广皆居侯中参分之一)
    outer = _rects(root, "正")[0]
    assert float(outer.get("width")) == pytest.approx(10 / 3 * px, abs=0.01)


def test_cli_draws_the_target_with_the_projects_metre(tmp_path: Path):
    out = tmp_path / "hou.svg"
    res = CliRunner().invoke(params, ["--target", "諸侯/大射", "--svg", str(out)])
    assert res.exit_code == 0, res.output
    root = ET.parse(out).getroot()
    bar = next(g for g in root.iter(f"{SVG}g") if g.get("data-part") == "scale")
    assert float(bar.get("data-metre-per-chi")) == load_venue("xie").metre_per_chi.value
    assert len([g for g in root.iter(f"{SVG}g") if g.get("data-hou")]) == 3


def test_cli_target_json_and_errors(tmp_path: Path):
    import json

    res = CliRunner().invoke(params, ["--target", "士/鄉射", "--json"])
    (hou,) = json.loads(res.output)["hou"]
    assert hou["中"] == 10 and hou["cloth"] == 160 and hou["raised"] == 武
    # 陸佃's reading gives no 侯道, so there is nothing to scale: exit 2, nothing written
    out = tmp_path / "x.svg"
    res = CliRunner().invoke(
        params, ["--target", "王/賓射", "--reading", "binshe-hou.lu-dian", "--svg", str(out)]
    )
    assert res.exit_code == 2 and "侯道" in res.output and not out.exists()
    assert CliRunner().invoke(params, ["--svg", str(out)]).exit_code == 2
    assert CliRunner().invoke(params, ["--target", "士/大射"]).exit_code == 2


def test_only_the_dashe_hou_are_hung_by_its_zhangfa():
    """dashe:6 gives the 張法 for 大射; for the 賓射's three 侯 the text gives none."""
    import json

    def lifts(spec):
        res = CliRunner().invoke(params, ["--target", spec, "--json"])
        return [h["raised"] for h in json.loads(res.output)["hou"]]

    assert lifts("王/大射") == pytest.approx(raised([Target(90), Target(70), Target(50)]))
    assert lifts("王/賓射") == pytest.approx([武, 武, 武])


def test_zheng_zhong_reading_draws_a_four_chi_hu_with_a_two_chi_zheng(tmp_path: Path):
    # seed 001 梓人, 鄭鍔 reporting 鄭眾 and 馬融: 十尺曰侯四尺曰鹄二尺曰正
    import json

    res = CliRunner().invoke(
        params, ["--target", "士/鄉射", "--reading", "hu-size.zheng-zhong", "--json"]
    )
    (hou,) = json.loads(res.output)["hou"]
    assert (hou["中"], hou["鵠"], hou["內正"]) == pytest.approx((10, 4, 2))
    out = tmp_path / "hou.svg"
    CliRunner().invoke(
        params,
        ["--target", "卿大夫/大射", "--reading", "hu-size.zheng-zhong", "--svg", str(out)],
    )
    root = ET.parse(out).getroot()
    px = float(root.get("data-px-per-chi"))
    assert float(_rects(root, "鵠")[0].get("width")) == pytest.approx(4 * px, abs=0.01)
    assert float(_rects(root, "內正")[0].get("width")) == pytest.approx(2 * px, abs=0.01)
    # the default reading has no 正 inside the 鵠
    default = ET.fromstring(target_svg([Target(50)], metre_per_chi=0.231))
    assert not _rects(default, "內正")

"""The 射宮 of 大射儀 (place/data/shegong.yaml): the three 侯 at the distances dashe:5 fixes,
each 乏 西十北十 of its 侯, the 縣, 尊, 洗 and 次 where the text puts them, and every quoted
source standing in the 經, 注 or 疏 it cites."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from sheli.place import VENUES, load_venue
from sheli.place.loader import _read

_FOLD = str.maketrans(
    {"矦": "侯", "歩": "步", "賔": "賓", "閒": "間", "个": "個", "躳": "躬", "戸": "户",
     "戶": "户", "𤣥": "玄", "於": "于", "爲": "為", "宫": "宮", "鼔": "鼓", "冇": "有",
     "僃": "備", "羮": "羹", "㝛": "宿"}
)  # fmt: skip


@pytest.fixture(scope="module")
def v():
    return load_venue("shegong")


def _zhushu(corpus_dir: Path, chapter: str) -> dict[int, str]:
    csv.field_size_limit(10**9)
    with open(corpus_dir / f"yili-zhushu-{chapter}.tsv", encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))[1:]
    return {int(r[0]): r[2] + r[3] + r[5] for r in rows}


@pytest.mark.parametrize("key", ["shegong", "shegong_ao"])
def test_quoted_words_are_in_the_cited_passage(corpus_dir, key):
    """Each `dashe:N (…)` (and inherited `xiangshe:N (…)`) quotes words of 經, 注 or 疏 of N."""
    data = _read(key)
    sources = [str(f.get("source", "")) for f in data["fixtures"]]
    sources += [str(s.get("source", "")) for s in data["params"].values()]
    checked = {"dashe": 0, "xiangshe": 0}
    for chapter in checked:
        text = _zhushu(corpus_dir, chapter)
        pat = chapter + r":(\d+)(?:[–-](\d+))?[^;(]*?(?:\(([^)]*)\))?(?=;|$|,)"
        for src in sources:
            for m in re.finditer(r"(?<![a-z])" + pat, src):
                first, last = int(m.group(1)), int(m.group(2) or m.group(1))
                assert first in text and last in text, m.group(0)
                if not m.group(3):
                    continue
                hay = "".join(text[n] for n in range(first, last + 1)).translate(_FOLD)
                for piece in re.split(r"\s*…\s*|;\s*|:\s*|,\s*", m.group(3)):
                    cjk = re.sub(r"[^\u4e00-\u9fff\U00020000-\U0002ffff]", "", piece)
                    if len(cjk) < 2 or cjk != re.sub(r"\s", "", piece):
                        continue
                    assert cjk.translate(_FOLD) in hay, (m.group(0), piece)
                    checked[chapter] += 1
    assert checked["dashe"] > 40 and checked["xiangshe"] > 20


def test_every_fixture_has_a_source_or_an_assumption(v):
    for f in v.fixtures.values():
        assert f.source or f.assumed, f.name
    for prm in v.params.values():
        assert prm.source or prm.assumption, prm.name


def test_the_venue_is_discovered_by_its_names():
    assert "shegong" in VENUES
    for name in ("射宮", "射宫", "大射之宮"):
        assert load_venue(name).key == "shegong"


def test_hou_dao_ninety_seventy_fifty_gong_from_the_tang(v):
    # dashe:5 大矦九十參七十干五十; 注 貍歩六尺, 量矦道謂去堂遠近也
    assert v.params["弓"].value == 6
    edge = v.point("堂廉").y
    for name, gong in (("大侯", 90), ("參侯", 70), ("干侯", 50)):
        assert edge - v.point(name).y == pytest.approx(gong * 6)
        assert v.point(name).x == pytest.approx(v.point("物閒").x)
        assert v.area(v.point(name)) == "庭"
    # the farther 侯 behind the nearer (見鵠於參, 參見鵠於干: one line)
    assert v.point("大侯").y < v.point("參侯").y < v.point("干侯").y


def test_each_fa_is_ten_bu_west_and_ten_bu_north_of_its_hou(v):
    # dashe:5 設乏各去其矦西十北十; 疏 (dashe:6) 西與北皆六丈
    for hou in ("大侯", "參侯", "干侯"):
        h, f = v.point(hou), v.point(hou + "之乏")
        assert f.y - h.y == pytest.approx(60)
        assert h.x - f.x == pytest.approx(60)
        assert v.area(f) == "庭"


def test_ao_measures_the_hou_dao_from_the_wu():
    ao, zheng = load_venue("shegong_ao"), load_venue("shegong")
    for hou, gong in (("大侯", 90), ("參侯", 70), ("干侯", 50)):
        assert ao.point("右物").y - ao.point(hou).y == pytest.approx(gong * 6)
        assert ao.point(hou).y - zheng.point(hou).y == pytest.approx(zheng.point("楣").y)


def test_the_door_is_beyond_the_farthest_hou(v):
    assert v.point("門").y < v.point("大侯").y
    assert v.fixture("庭").extent.contains(v.point("大侯之乏"))


def test_the_zun_the_xi_and_the_ci(v):
    # dashe:13 尊於東楹之西 … 膳尊兩甒在南
    fh, sz, ying = v.point("方壺"), v.point("膳尊"), v.point("東楹")
    assert fh.x < ying.x and sz.x < ying.x and sz.y < fh.y
    assert v.on_tang(fh) and v.on_tang(sz)
    # dashe:16 設洗于阼階東南 … 篚在洗西 … 設膳篚在其北
    xi, zj = v.point("洗"), v.point("阼階")
    assert xi.x > zj.x and xi.y < zj.y
    assert v.point("下篚").x < xi.x and v.point("膳篚").y > v.point("下篚").y
    assert v.fixture("篚").name == "下篚"
    # 注 dashe:121 耦次在洗東南
    ci = v.point("次")
    assert ci.x > xi.x and ci.y < xi.y
    # dashe:15 又尊于大矦之乏東北; dashe:17 又設洗于獲者之尊西北
    fa, zun, hx = v.point("大侯之乏"), v.point("獲者之尊"), v.point("獲者之洗")
    assert zun.x > fa.x and zun.y > fa.y and hx.x < zun.x and hx.y > zun.y
    assert v.fixture("服不之尊").name == "獲者之尊"


def test_the_xuan_on_three_sides(v):
    # dashe:7 阼階東笙磬西面其南笙鍾其南鑮; dashe:9 西階之西頌磬…其南鍾其南鑮…一建鼓在其南
    east = [v.point(n) for n in ("笙磬", "笙鍾", "東鑮")]
    west = [v.point(n) for n in ("頌磬", "頌鍾", "西鑮", "西建鼓")]
    assert all(p.x > v.point("阼階").x for p in east)
    assert all(p.x < v.point("西階").x for p in west)
    for row in (east, west):
        assert [p.y for p in row] == sorted((p.y for p in row), reverse=True)
    # dashe:8 建鼓在阼階西南, 應鼙在其東; dashe:10 一建鼓在西階之東南面
    jg, zj = v.point("東建鼓"), v.point("阼階")
    assert jg.x < zj.x and jg.y < zj.y and v.point("應鼙").x > jg.x
    assert v.point("南建鼓").x > v.point("西階").x
    with pytest.raises(Exception, match="ambiguous"):
        v.fixture("建鼓")


def test_the_mats(v):
    # dashe:18 公席于阼階上西鄉; 賓席于户西; 卿席賓東; 小卿賓西; 大夫繼而東上; 諸公阼階西
    assert v.point("公席").x == pytest.approx(v.point("阼階").x)
    b = v.point("賓席")
    assert b.x < v.point("户").x
    assert v.point("卿席").x > b.x > v.point("小卿席").x > v.point("大夫席").x
    assert v.point("諸公席").x < v.point("阼階").x
    assert all(v.on_tang(v.point(n)) for n in ("公席", "賓席", "卿席", "小卿席", "諸公席"))


def test_the_court_stands_deep_in_the_ting(v):
    # dashe:21 大夫 (or 大史) 在干矦之東北; 注 為有矦故入庭深也; 士西方; 士旅食者在士南
    d, g = v.point("干侯東北"), v.fixture("干侯")
    assert d.x > g.extent.x1 and d.y > g.y
    s = v.point("士位")
    assert s.x < v.point("西階").x and v.point("士旅食位").y < s.y

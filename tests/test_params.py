"""The rank and occasion table (src/sheli/rite/data/ranks.yaml) and ``sheli params``: every
value has a source, every quoted word stands where it is said to, the readings switch, and the
numbers agree with the 經 and with 賈疏's reckoning."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from sheli.cli.params import params
from sheli.rite.loader import load_yaml_with_lines
from sheli.rite.ranks import (
    FIELDS,
    RANKS_FILE,
    Citation,
    Music,
    RankError,
    load_ranks,
    parse_citation,
)


@pytest.fixture(scope="module")
def table():
    return load_ranks()


def run(*args: str):
    return CliRunner().invoke(params, list(args))


# ---------------------------------------------------------------- provenance


def test_every_value_and_every_reading_has_a_source():
    """Read the file as plain YAML (not through the model) so a missing source is seen."""
    raw = load_yaml_with_lines(RANKS_FILE.read_text(encoding="utf-8"))
    n = 0
    for cell in raw["cells"]:
        if "absent" in cell:
            assert cell["absent"]["source"], cell
            continue
        for f in FIELDS:
            if f not in cell:
                continue
            alts = cell[f].get("readings") or [cell[f]]
            for alt in alts:
                assert alt["source"], (cell["rank"], cell["occasion"], f)
                assert all(parse_citation(s).pieces for s in alt["source"])
                n += 1
    assert n > 60


def test_every_resolved_value_under_every_reading_has_a_source(table):
    for rid in table.reading_ids():
        for cell in table.cells(readings=[rid]):
            assert cell.values or cell.absent is not None
            for r in cell.values.values():
                assert r.source and r.value is not None, (cell.rank, cell.occasion, r.field)


_FOLD = str.maketrans(
    {"矦": "侯", "歩": "步", "賔": "賓", "閒": "間", "个": "個", "躳": "躬", "爲": "為",
     "於": "于", "𤣥": "玄", "內": "内", "戶": "户", "戸": "户"}
)  # fmt: skip


def _norm(text: str) -> str:
    """Only the characters: no page marks, line marks (¶), spaces or punctuation; the few
    variant forms the editions mix folded to one."""
    text = re.sub(r"<pb:[^>]*>", "", text)
    return re.sub(r"[^\u4e00-\u9fff\U00020000-\U0002ffff\ufffd]", "", text).translate(_FOLD)


@pytest.fixture(scope="module")
def haystacks(corpus_dir: Path, seeds_dir: Path):
    csv.field_size_limit(10**9)
    passages: dict[str, dict[int, str]] = {}
    for ch in ("xiangshe", "dashe", "yan"):
        with open(corpus_dir / f"yili-zhushu-{ch}.tsv", encoding="utf-8") as fh:
            rows = list(csv.reader(fh, delimiter="\t"))[1:]
        passages[ch] = {int(r[0]): _norm(r[2] + r[3] + r[5]) for r in rows}  # 經 注 疏
    yishu = {
        ch: _norm((corpus_dir / f"yili-yishu-{ch}.txt").read_text(encoding="utf-8"))
        for ch in ("xiangshe", "dashe", "yan")
    }
    seed = _norm(next(seeds_dir.glob("001_*.txt")).read_text(encoding="utf-8"))
    sheyi = _norm((corpus_dir / "liji-zhushu-sheyi.txt").read_text(encoding="utf-8"))
    return passages, yishu, seed, sheyi


def _missing(c: Citation, haystacks) -> list[str]:
    passages, yishu, seed, sheyi = haystacks
    if c.kind == "passage":
        assert c.passage in passages[c.chapter], c.text
        hay = passages[c.chapter][c.passage]
    elif c.kind == "yishu":
        hay = yishu[c.chapter]  # the 義疏 file is not cut by passage: the whole chapter
    elif c.kind == "seed":
        hay = seed
    else:
        hay = sheyi
    return [p for p in c.pieces if _norm(p) not in hay]


def test_quoted_words_stand_in_their_source(table, haystacks):
    """Each `chapter:N (…)` quotes 經, 注 or 疏 of passage N; `seed001 …` the seed (in its
    simplified characters); `禮記 射義` the 射義; `義疏 chapter:N` the 義疏 of that chapter."""
    checked = 0
    for where, line, c in table.all_citations():
        assert not _missing(c, haystacks), (where, line, c.text)
        checked += len(c.pieces)
    assert checked > 200


def test_the_proof_reading_catches_a_wrong_quote(haystacks):
    # the 射人 says 王以六耦; a table that said 七 would be caught
    assert _missing(parse_citation("seed001 周禮 夏官 射人 (王以七耦)"), haystacks)
    assert _missing(parse_citation("xiangshe:374 (矦道七十弓)"), haystacks)
    assert not _missing(parse_citation("xiangshe:374 (矦道五十弓)"), haystacks)


def test_citations_that_do_not_follow_the_form_are_refused():
    for bad in ("xiangshe:374", "somewhere (矦道)", "義疏 (參侯)"):
        with pytest.raises(ValueError):
            parse_citation(bad)


# ---------------------------------------------------------------- the numbers


def test_pairs_by_rank(table):
    # dashe:130 疏: 天子大射賓射六耦 … 畿内諸矦則二矦四耦 … 畿外諸矦大射賓射皆三矦三耦 … 燕射 … 三耦
    expect = {("王", "大射"): 6, ("王", "賓射"): 6, ("畿內諸侯", "大射"): 4,
              ("畿內諸侯", "賓射"): 4}  # fmt: skip
    for cell in table.cells():
        if cell.absent is None:
            assert cell.get("耦").value == expect.get((cell.rank, cell.occasion), 3), cell


def test_heard_before_the_arrows_follows_jia_shu(table, corpus_dir):
    # xiangshe:248 疏: 王九節者五節先以聽諸矦七節者三節先以聽卿大夫士五節者一節先以聽
    for rid in table.reading_ids():
        for cell in table.cells(readings=[rid]):
            if "樂" in cell.values:
                m = cell.get("樂").value
                assert (m.節, m.聽) in {(9, 5), (7, 3), (5, 1)}, (cell.rank, cell.occasion)
                rank_節 = {"王": 9, "諸侯": 7, "畿內諸侯": 7}.get(cell.rank, 5)
                assert m.節 == rank_節  # the 節 go by rank even for 騶虞 in 鄉射 (248 注)


def test_music_must_leave_four_jie_for_the_four_arrows():
    with pytest.raises(ValueError, match="四節以盡乗矢"):
        Music(詩="騶虞", 節=9, 聽=4)


_CN = {50: "五十", 70: "七十", 90: "九十"}


def test_dashe_hou_dao_are_the_jing_numbers(table, corpus_dir):
    # dashe:5 大矦九十參七十干五十: the three 侯 of 大射儀, in that order, under every reading
    with open(corpus_dir / "yili-zhushu-dashe.tsv", encoding="utf-8") as fh:
        jing = next(r[2] for r in csv.reader(fh, delimiter="\t") if r[0] == "5")
    for rid in ("dashe-can.zheng-xuan", "dashe-can.ao-jigong"):
        hou = table.cell("諸侯", "大射", [rid]).get("侯").value
        words = "".join(_CN[h.道] for h in hou)
        assert words == "九十七十五十" and all(_CN[h.道] in jing for h in hou)


def test_xiangshe_hou_dao_is_fifty_gong(table):
    for rank in ("卿大夫", "士"):
        (hou,) = table.cell(rank, "鄉射").get("侯").value
        assert hou.道 == 50 and hou.的 == "二正"  # xiangshe:374; 336 注 采矦二正


def test_zhong_and_jing_by_place_and_rank(table):
    # xiangshe:385–389: 國中 皮樹中 翿旌 (燕射), 郊 閭中 (大射), 竟 虎中 龍旜 (賓射);
    # 大夫 兕中, 士 鹿中
    assert table.cell("諸侯", "燕射").get("中").value == "皮樹中"
    assert table.cell("諸侯", "大射").get("中").value == "閭中"
    assert table.cell("諸侯", "賓射").get("中").value == "虎中"
    assert table.cell("諸侯", "賓射").get("旌").value == "龍旜"
    assert {c.get("中").value for c in table.cells("卿大夫")} == {"兕中"}
    assert {c.get("中").value for c in table.cells("士") if c.absent is None} == {"鹿中"}


def test_a_shi_has_no_dashe(table):
    cell = table.cell("士", "大射")
    assert cell.absent is not None and not cell.values
    assert any("士無臣祭不射" in s for s in cell.absent.source)


def test_aliases(table):
    assert table.rank("天子") == "王" and table.rank("州長") == "士"
    with pytest.raises(RankError, match="known: 王"):
        table.rank("帝")


# ---------------------------------------------------------------- readings


def test_every_disagreement_defaults_to_zheng_xuan(table):
    assert sorted(table.default_readings()) == sorted(
        f"{g}.zheng-xuan" for g in table.disagreements
    )


def test_each_reading_changes_some_value(table):
    """A reading that changes nothing would be a reading in name only."""

    def values(readings):
        data = table.as_dict(readings=readings)
        return data["target"], data["cells"]

    base = values([])
    for rid in set(table.reading_ids()) - set(table.default_readings()):
        assert values([rid]) != base, rid


def test_reading_switches_a_value_in_the_json():
    out = json.loads(run("--rank", "士", "--occasion", "鄉射", "--json").output)
    music = out["cells"][0]["values"]["樂"]
    assert music["value"]["詩"] == "騶虞" and music["reading"] == "xiangshe-music.zheng-xuan"
    assert music["default"] is True and "xiangshe-music.sheyi" in music["readings"]
    out = json.loads(
        run("--occasion", "鄉射", "--reading", "xiangshe-music.sheyi", "--json").output
    )
    songs = {c["rank"]: c["values"]["樂"]["value"]["詩"] for c in out["cells"]}
    assert songs == {"卿大夫": "采蘋", "士": "采蘩"}  # 射義: 卿大夫以采蘋 … 士以采蘩
    assert "xiangshe-music.sheyi" in out["readings"]


def test_readings_can_be_combined():
    res = run("--rank", "諸侯", "--json", "--reading", "dashe-can.ao-jigong",
              "--reading", "binshe-hou.zheng-e")  # fmt: skip
    assert res.exit_code == 0, res.output
    cells = {c["occasion"]: c["values"] for c in json.loads(res.output)["cells"]}
    assert [h["名"] for h in cells["大射"]["侯"]["value"]] == ["大侯", "參侯", "干侯"]
    assert cells["賓射"]["耦"]["value"] == 4  # 鄭鍔: 诸侯在国宾射则四耦


def test_unknown_reading_exits_2_naming_the_known_ones(table):
    res = run("--reading", "no-such.reading")
    assert res.exit_code == 2
    assert "no-such.reading" in res.output
    for rid in table.reading_ids():
        assert rid in res.output


def test_two_answers_to_one_question_exit_2():
    res = run("--reading", "binshe-hou.zheng-e", "--reading", "binshe-hou.lu-dian")
    assert res.exit_code == 2 and "choose one" in res.output


def test_json_gives_every_value_with_sources_and_reading_ids(table):
    res = run("--json")
    assert res.exit_code == 0
    data = json.loads(res.output)
    assert len(data["cells"]) == len(table.cells())
    known = set(table.reading_ids())
    assert set(data["readings"]) <= known and len(data["readings"]) == len(table.disagreements)
    for cell in data["cells"]:
        for v in cell.get("values", {}).values():
            assert v["source"]
            assert set(v.get("readings", [])) <= known
        if "absent" in cell:
            assert cell["absent"]["source"]


def test_the_rich_table_names_sources():
    res = run("--rank", "王", "--occasion", "大射")
    assert res.exit_code == 0
    assert "dashe:130" in res.output and "騶虞" in res.output and "source" in res.output


def test_bad_rank_exits_2():
    res = run("--rank", "帝")
    assert res.exit_code == 2 and "unknown rank" in res.output


# ---------------------------------------------------------------- a broken table


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "ranks.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_a_value_without_source_is_refused_with_file_and_line(tmp_path):
    text = RANKS_FILE.read_text(encoding="utf-8")
    # drop the sources of the first 耦 (王/大射): the loader must say where
    start = text.index("  - rank: 王\n    occasion: 大射")
    head, tail = text[:start], text[start:]
    tail = re.sub(r"(耦:\n      value: 6\n)      source:\n(        - .*\n)+", r"\1", tail, count=1)
    p = _write(tmp_path, head + tail)
    with pytest.raises(RankError) as err:
        load_ranks(p)
    msg = str(err.value)
    assert str(p) in msg and re.search(r"ranks\.yaml:\d+", msg) and "source" in msg


def test_an_undeclared_reading_is_refused(tmp_path):
    text = RANKS_FILE.read_text(encoding="utf-8").replace(
        "reading: dashe-can.ao-jigong", "reading: dashe-can.nobody", 1
    )
    with pytest.raises(RankError, match=r"dashe-can\.nobody.*not declared"):
        load_ranks(_write(tmp_path, text))


def test_two_defaults_are_refused(tmp_path):
    text = RANKS_FILE.read_text(encoding="utf-8").replace(
        "      sheyi:\n        by:", "      sheyi:\n        default: true\n        by:", 1
    )
    with pytest.raises(RankError, match="exactly one reading"):
        load_ranks(_write(tmp_path, text))


# ---------------------------------------------------------------- docstrings


def test_the_summary_in_docs_params_md_is_the_table(table):
    """docs/params.md prints the default table by hand; it must say what the data say."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "params.md").read_text(encoding="utf-8")
    rows = [r for r in doc.splitlines() if re.match(r"\| (王|諸侯|畿內諸侯|卿大夫|士) \|", r)]
    assert len(rows) == len(table.cells())
    for row in rows:
        rank, occasion, pairs, hou, music, zhong, _flag = [
            c.strip() for c in row.strip("|").split("|")
        ]
        cell = table.cell(rank, occasion)
        if cell.absent is not None:
            assert pairs.startswith("none")
            continue
        assert int(pairs) == cell.get("耦").value
        assert [int(n) for n in re.findall(r"\d+", hou)] == [h.道 for h in cell.get("侯").value]
        m = cell.get("樂").value
        assert music == f"{m.詩} {m.節} ({m.聽})"
        assert zhong == cell.values["中"].value if "中" in cell.values else zhong == "—"


def test_a_yaml_syntax_error_names_file_and_line(tmp_path):
    p = _write(tmp_path, "ranks:\n  王: {aliases: [天子]\ncells: []\n")
    with pytest.raises(RankError, match=r"ranks\.yaml:\d+: YAML syntax"):
        load_ranks(p)
    with pytest.raises(RankError, match="cannot read"):
        load_ranks(tmp_path / "missing.yaml")

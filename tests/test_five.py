"""The 五射 judged from outcomes (`sheli score --five`) and the 五物 from votes (`--votes`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sheli.cli import cli
from sheli.engine import run
from sheli.outputs.xiangchi import xiangchi_places
from sheli.scoring.five import (
    asked_questions,
    five_data,
    judge_five,
    load_votes,
    square_shape,
    tally_wuwu,
)
from sheli.scoring.outcomes import Outcome, OutcomesError

HEADER = "round,pair,archer,arrow,hit,on_beat,x,y,through,loosed_s,struck,flight"
# 上耦上射: four arrows pierce at the corners of a square (井儀), loosed slowly;
# 上耦下射: one, then three in quick succession (參連);
# 次耦上射: one arrow goes through (白矢); 次耦下射: nothing recorded beyond hit or miss.
ROWS = """\
2,上耦,上射,1,true,,-1,1,,0,,
2,上耦,上射,2,true,,1,1.1,,20,,
2,上耦,上射,3,true,,1,-1,,40,,
2,上耦,上射,4,true,,-0.9,-1,,60,,
2,上耦,下射,1,true,,0.2,0.1,,5,,
2,上耦,下射,2,false,,,,,30,,
2,上耦,下射,3,false,,,,,31.5,,剡注
2,上耦,下射,4,true,,0,0,,33,,
2,次耦,上射,1,true,,0.5,0.3,true,,,
2,次耦,上射,2,false,,,,,,,
2,次耦,上射,3,false,,,,,,,
2,次耦,上射,4,false,,,,,,,
2,次耦,下射,1,false,,,,,,,
2,次耦,下射,2,true,,,,,,,
2,次耦,下射,3,false,,,,,,,
2,次耦,下射,4,false,,,,,,,
"""


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    path = tmp_path / "shots.csv"
    path.write_text(HEADER + "\n" + ROWS, encoding="utf-8")
    return path


def verdicts(path: Path) -> dict[tuple[str, str], dict[str, dict[str, object]]]:
    res = CliRunner().invoke(cli, ["score", "--outcomes", str(path), "--five", "--json"])
    assert res.exit_code == 0, res.output
    out: dict[tuple[str, str], dict[str, dict[str, object]]] = {}
    for v in json.loads(res.output):
        out.setdefault((v["pair"], v["archer"]), {})[v["name"]] = v
    return out


def kept(v: dict[tuple[str, str], dict[str, dict[str, object]]], who: tuple[str, str]) -> set[str]:
    return {name for name, x in v[who].items() if x["kept"] is True}


def test_each_archer_gets_what_he_did_and_nothing_else(shots: Path) -> None:
    v = verdicts(shots)
    assert kept(v, ("上耦", "上射")) == {"井儀"}
    assert kept(v, ("上耦", "下射")) == {"參連", "剡注"}
    assert kept(v, ("次耦", "上射")) == {"白矢"}
    assert kept(v, ("次耦", "下射")) == set()


def test_each_verdict_names_its_definition_and_source(shots: Path) -> None:
    v = verdicts(shots)
    for per in v.values():
        assert list(per) == ["白矢", "參連", "剡注", "襄尺", "井儀"]
        for name, x in per.items():
            assert name in str(x["definition"])
            assert "賈疏" in str(x["source"]) and "保氏" in str(x["source"])
            assert x["why"]
    assert "canlian_gap_s" in str(v[("上耦", "下射")]["參連"]["why"])


def test_text_output_shows_verdicts_and_sources(shots: Path) -> None:
    res = CliRunner().invoke(cli, ["score", "--outcomes", str(shots), "--five"])
    assert res.exit_code == 0, res.output
    assert "round 2 上耦上射" in res.output
    assert "井儀 yes" in res.output and "井儀者，四矢貫侯，如井之容儀" in res.output


def test_canlian_needs_quick_gaps_after_the_first() -> None:
    def arrows(times: list[float]) -> list[Outcome]:
        return [Outcome(2, "上耦", "上射", n, False, loosed_s=t) for n, t in enumerate(times, 1)]

    def canlian(times: list[float]) -> bool | None:
        return next(v.kept for v in judge_five(arrows(times)) if v.name == "參連")

    assert canlian([0, 30, 31, 32]) is True
    assert canlian([0, 1, 2, 3]) is True
    assert canlian([0, 1, 9, 10]) is False
    assert canlian([0, 1, 2]) is False


def test_square_shape() -> None:
    assert square_shape([(2, 2), (4, 2), (4, 4), (2, 4)])[0]
    assert not square_shape([(0, 0), (4, 0), (4, 1), (0, 1)])[0]  # a long oblong
    assert not square_shape([(0, 0), (0.01, 0), (0.01, 0.01), (0, 0.01)])[0]  # one hole


def test_jingyi_needs_four_pierced() -> None:
    corners = [(-1, 1), (1, 1), (1, -1), (-1, -1)]
    arrows = [
        Outcome(2, "上耦", "上射", n, n != 4, x=x, y=y) for n, (x, y) in enumerate(corners, 1)
    ]
    assert next(v.kept for v in judge_five(arrows) if v.name == "井儀") is False


@pytest.mark.slow
def test_xiangchi_from_the_places_of_the_rite() -> None:
    # 燕射: the 賓 waits 物北一笴 while the 君 shoots (記 yan:181); 大射儀's spec puts him on
    # his 物 beside the 公 after the first arrow
    yan = xiangchi_places(run("yanshe", seed=0).records)
    assert min(yan[(2, "賓耦", "上射")]) >= 1.0
    da = xiangchi_places(run("dashe", seed=0).records)
    assert min(da[(2, "公耦", "上射")]) < 1.0
    v = judge_five([Outcome(2, "賓耦", "上射", 1, True), Outcome(2, "賓耦", "下射", 1, True)], yan)
    got = {(x.archer, x.name): x for x in v}
    assert got[("上射", "襄尺")].kept is True
    assert got[("下射", "襄尺")].kept is None and "君" in got[("下射", "襄尺")].why


def test_five_needs_outcomes() -> None:
    res = CliRunner().invoke(cli, ["score", "--five"])
    assert res.exit_code != 0 and "--outcomes" in res.output


# ---------------------------------------------------------------- the 五物


def test_votes_per_archer_with_sources(tmp_path: Path, shots: Path) -> None:
    votes = tmp_path / "votes.csv"
    votes.write_text(
        "pair,archer,question,voter,answer\n"
        "上耦,上射,和,甲,true\n上耦,上射,和,乙,true\n上耦,上射,和,丙,false\n"
        "上耦,上射,興舞,甲,true\n次耦,下射,容,甲,false\n",
        encoding="utf-8",
    )
    res = CliRunner().invoke(
        cli, ["score", "--votes", str(votes), "--outcomes", str(shots), "--json"]
    )
    assert res.exit_code == 0, res.output
    got = {(r["pair"], r["archer"], r["name"]): r for r in json.loads(res.output)}
    assert (got[("上耦", "上射", "和")]["yes"], got[("上耦", "上射", "和")]["of"]) == (2, 3)
    assert (got[("上耦", "上射", "主皮")]["yes"], got[("上耦", "上射", "主皮")]["of"]) == (4, 4)
    assert got[("次耦", "下射", "容")]["of"] == 1
    assert "六行" in got[("次耦", "下射", "容")]["zheng"]
    assert "外體直" in got[("次耦", "下射", "容")]["yi"]
    assert got[("上耦", "上射", "和")]["when"] == "before"
    assert got[("上耦", "上射", "興舞")]["when"] == "after"
    text = CliRunner().invoke(cli, ["score", "--votes", str(votes)])
    assert text.exit_code == 0 and "和 2/3 yes of voices (before)" in text.output


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("上耦,上射,主皮,甲,true", "主皮 is counted from his hits"),
        ("上耦,中射,和,甲,true", "unknown archer"),
        ("上耦,上射,和,,true", "voter is empty"),
        ("上耦,上射,和,甲,yes", "answer must be true or false"),
        ("上耦,上射,和,乙,true", "乙 answers 和 for 上耦上射 twice (first on line 2)"),
    ],
)
def test_bad_votes(tmp_path: Path, row: str, message: str) -> None:
    path = tmp_path / "v.csv"
    path.write_text(f"pair,archer,question,voter,answer\n上耦,上射,和,乙,true\n{row}\n", "utf-8")
    with pytest.raises(OutcomesError) as exc:
        load_votes(path)
    assert message in str(exc.value)
    assert str(exc.value).startswith(f"{path}:3: ")


def test_wuwu_in_yi_order_and_zhupi_not_asked() -> None:
    assert asked_questions() == ("和", "容", "和容", "興舞")
    names = [i["name"] for i in five_data()["wuwu"]["items"]]
    assert names == ["和", "容", "主皮", "和容", "興舞"]
    assert [r.name for r in tally_wuwu([], [Outcome(2, "上耦", "上射", 1, True)])] == names


def test_params_lists_the_five_she_and_five_wu_with_sources() -> None:
    res = CliRunner().invoke(cli, ["params", "--json"])
    assert res.exit_code == 0
    data = json.loads(res.output)
    she = data["五射"]
    assert [i["name"] for i in she["items"]] == ["白矢", "參連", "剡注", "襄尺", "井儀"]
    assert she["source"] == "周禮 地官 保氏" and "鄭司農" in she["named_by"]
    assert all(i["source"] and i["definition"] for i in she["items"])
    wu = data["五物"]
    assert [i["name"] for i in wu["items"]] == ["和", "容", "主皮", "和容", "興舞"]
    assert "鄉大夫" in wu["source"]
    assert all(i["zheng"] and i["yi"] for i in wu["items"])
    assert data["thresholds"]["canlian_gap_s"]["reason"]
    text = CliRunner().invoke(cli, ["params"])
    assert text.exit_code == 0 and "五射" in text.output and "五物" in text.output

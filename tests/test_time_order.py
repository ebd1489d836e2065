"""Order in time where the text puts people's acts at once or one just behind another, read
from the event log's ``t`` and ``dur`` over 鄉射禮, 大射儀 and 燕禮 (whose 燕射 is run 如鄉射之禮):

- 上射先升三等，下射從之中等 (xiangshe:139, dashe:141; 注: 中猶閒也): the 下射 goes up two 等
  behind his 上射, one 等 left empty between them, and comes down the same way
  (上射降三等，下射少右從之中等 xiangshe:152, dashe:154);
- 竝行上射於左 … 由司馬之南適堂西 (xiangshe:152–153; 皆釋弓于堂西 188): the pair set off together;
- 上射既發挾弓矢 (xiangshe:147, dashe:149): an archer takes his next arrow as soon as he has
  loosed, not after the 獲者 and the 釋獲者 have done;
- 負矦皆許諾以宮 … 至乏聲止 (dashe:145–146): the three 負侯者 answer and go together, and one who
  居乏 himself sits as he comes to it (注 引鄉射禮 坐東面偃旌);
- 後者遂取誘射之矢兼乘矢而取之，以授有司于次中，皆襲反位 (dashe:178): the last 下射 takes the
  誘射之矢 at the 楅 within his own 拾取矢, before he takes off 決拾 and puts his coat on.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from loglines import step_lines

from sheli.engine.durations import load_durations

# every test here reads whole scheduled runs
pytestmark = pytest.mark.slow

RITES = ("xiangshe", "dashe", "yanli")
Steps = list[dict[str, Any]]


@pytest.fixture(scope="module")
def steps(run_once: Callable[..., Any]) -> Callable[[str], Steps]:
    return lambda rite: step_lines(run_once(rite))


def _end(e: dict[str, Any]) -> float:
    return float(e["t"] + e["dur"])


def _pairs(lines: Steps, cites: tuple[str, ...], verb: str) -> list[tuple[Any, Any]]:
    """Each 上射's act of ``verb`` at ``cites`` with his 下射's that follows it."""
    out = []
    for i, e in enumerate(lines):
        if e["verb"] != verb or e["cite"] not in cites or not e["actor"].endswith("上射"):
            continue
        partner = e["actor"][: -len("上射")] + "下射"
        out += [(e, f) for f in lines[i + 1 : i + 3] if f["verb"] == verb and f["actor"] == partner]
    return out


@pytest.mark.parametrize("rite", RITES)
@pytest.mark.parametrize(
    ("verb", "cites"),
    [("升", ("xiangshe:139", "dashe:141")), ("降", ("xiangshe:152", "dashe:154"))],
)
def test_the_xiashe_follows_one_step_between_them(
    steps: Callable[[str], Steps], rite: str, verb: str, cites: tuple[str, ...]
) -> None:
    """從之中等: the 下射 sets foot on the 階 two 等 (the table's seconds of one 等) after his 上射,
    to the schedule's half second (or a little later, where another's body is in his way):
    not once the 上射 is at the top (12–13.5 s later, before), nor at the same moment (0.26 s
    on the way down, before); the 上射 is still on the 階 as the 下射 sets off, and the two
    name each other."""
    two = 2 * load_durations().stairs.step_seconds
    pairs = _pairs(steps(rite), cites, verb)
    assert len(pairs) >= 9
    lags = {round(f["t"] - e["t"], 1) for e, f in pairs}
    assert all(two <= lag <= two + 2.0 for lag in lags), lags
    assert all(f["t"] < _end(e) for e, f in pairs)
    assert all(e["actor"] in f.get("with", ()) for e, f in pairs)


@pytest.mark.parametrize("rite", ("xiangshe", "yanli"))
def test_a_pair_walking_abreast_sets_off_together(steps: Callable[[str], Steps], rite: str) -> None:
    """竝行上射於左 … 由司馬之南適堂西 (xiangshe:152–153), and the 大夫 with his 耦 (皆釋弓于堂西
    xiangshe:188): the two set off together (before, the 下射 left when his 上射 arrived, 21–25
    s later, each pair passing one point south of the 司馬) and arrive together."""
    lines = steps(rite)
    pairs = _pairs(lines, ("xiangshe:153",), "適")
    pairs += [
        (e, f)
        for e, f in itertools.pairwise(lines)
        if e["cite"] == f["cite"] == "xiangshe:188" and e["verb"] == f["verb"] == "適"
        if (e["actor"], f["actor"]) == ("大夫之耦", "大夫")
    ]
    assert len(pairs) >= 9
    assert [(e["seq"], f["t"] - e["t"]) for e, f in pairs if f["t"] - e["t"] > 1.0] == []
    assert all(abs(_end(f) - _end(e)) < 3.0 for e, f in pairs)


def test_the_three_fuhou_answer_and_go_together(steps: Callable[[str], Steps]) -> None:
    """負矦皆許諾以宮，趨直西及乏南，又諾以商，至乏聲止 (dashe:145): at each 命去侯 the three
    負侯者 answer as the order ends (before, the 參侯's 35 s and the 干侯's 70 s later) and come
    to their 乏 at once; the 參侯 and 干侯's, who 居乏 themselves (徒負矦居乏不相代 注 dashe:146),
    sit as they arrive (注 引鄉射禮 坐東面偃旌; before, up to 50 s later), and the 服不 hands his
    旌 over as he arrives (before, 70 s later)."""
    lines = steps("dashe")
    orders = [i for i, e in enumerate(lines) if e["cite"] == "dashe:144" and e["verb"] == "命"]
    assert len(orders) >= 3
    for i in orders:
        after = lines[i + 1 : i + 40]
        answers = [e for e in after if e["cite"] == "dashe:145" and e["verb"] == "許諾"]
        assert len(answers) == 6
        assert all(abs(e["t"] - _end(lines[i])) < 0.05 for e in answers[:3])
        came = {
            e["actor"]: _end(e)
            for e in after
            if e["cite"] == "dashe:145" and e["verb"] == "適" and e["place"].endswith("之乏")
        }
        assert len(came) == 3 and max(came.values()) - min(came.values()) < 1.0
        sat = {e["actor"]: e["t"] for e in after if e["cite"] == "dashe:146" and e["verb"] == "坐"}
        assert all(abs(sat[a] - came[a]) < 0.05 for a in ("參侯獲者", "干侯獲者"))
        (hand,) = [e for e in after if e["cite"] == "dashe:146" and e["verb"] == "授"]
        assert abs(hand["t"] - came["服不"]) < 0.05


@pytest.mark.parametrize("rite", RITES)
def test_an_archer_takes_his_next_arrow_as_soon_as_he_has_loosed(
    steps: Callable[[str], Steps], rite: str
) -> None:
    """上射既發，挾弓矢，而后下射射 (xiangshe:147; 上射既發挾矢 dashe:149): the 挾 follows the
    archer's own shot, while the 獲者 calls a hit (疏 xiangshe:144 待射者發矢當坐) and the 釋獲者
    lays his 筭; the text makes him wait for neither (before, 32–33 of the 挾 of each rite
    waited 12–55 s after a hit). The 燕射's 賓, the 君's 耦, first 退于物一笴 and 答君 (yan:181),
    and he does so at once too."""
    lines = steps(rite)
    waits, hits = [], 0
    for i, e in enumerate(lines):
        if e["verb"] != "挾" or e["cite"] not in ("xiangshe:147", "dashe:149", "dashe:203"):
            continue
        mine = [f for f in lines[max(0, i - 20) : i] if f["actor"] == e["actor"]]
        shot = [k for k, f in enumerate(mine) if f["verb"] == "射"][-1]
        hits += any(
            f["verb"] == "獲" for f in lines[max(0, i - 20) : i] if f["seq"] > mine[shot]["seq"]
        )
        # his own acts between (the 賓's 退 and 答) follow one another from the shot on
        between = sum(f["dur"] for f in mine[shot + 1 :])
        waits.append(round(e["t"] - _end(mine[shot]) - between, 1))
    assert len(waits) >= 60 and hits >= 20
    assert [w for w in waits if abs(w) > 0.1] == []


def test_the_last_xiashe_takes_the_youshe_arrows_before_he_puts_his_coat_on(
    steps: Callable[[str], Steps],
) -> None:
    """後者遂取誘射之矢，兼乘矢而取之，以授有司于次中，皆襲反位 (dashe:178; 注 xiangshe:178
    取誘射之矢挾五个; 疏 xiangshe:352 反位東西望訖乃更向前兼取): the last pair's 下射 takes the
    four at the 楅 still 袒決遂 with his bow and his own arrows, hands them to the 有司 in
    the 次, and takes off 決拾 and goes back to his 位 once (before, he first went to the 次,
    took off 決拾, put his coat on, came back to his 位, and then walked back to the 楅
    empty-handed)."""
    lines = steps("dashe")
    (take,) = [
        e
        for e in lines
        if e["cite"] == "dashe:178" and e.get("count") == 4 and e["verb"] in ("取", "挾")
    ]
    assert take["dress"] == ["袒", "決遂"] and "張弓" in take["holds"]
    assert "挾矢五" in take["holds"]
    his = [e for e in lines if e["actor"] == take["actor"] and e["round"] == take["round"]]
    later = [e["verb"] for e in his if e["seq"] > take["seq"] and e["cite"] == "dashe:178"]
    earlier = [e["verb"] for e in his if e["seq"] < take["seq"] and e["cite"] == "dashe:178"]
    assert "襲" not in earlier and "反位" not in earlier
    assert later.index("授") < later.index("説決拾") < later.index("襲") < later.index("反位")
    assert later.count("反位") == 1


@pytest.mark.parametrize(
    ("rite", "cites"),
    [
        ("xiangshe", ("xiangshe:26", "xiangshe:44")),
        ("dashe", ("dashe:37", "dashe:48")),
        ("yanli", ("yan:28", "yan:40")),
    ],
)
def test_the_ci_xi_interrupts_the_washing(
    steps: Callable[[str], Steps], rite: str, cites: tuple[str, ...]
) -> None:
    """賓進東北面辭洗，主人坐奠爵于篚興對 … 主人卒洗 (xiangshe:25–28; 注 xiangshe:44 主人辭洗進也;
    the same at dashe:37–38, 47–48, yan:28–29, 39–41): the one who declines comes forward as
    the washing begins, the 洗 stops as his words are said, and 卒洗 does the rest; no cup is
    washed whole before the 辭 and then again (before: 20 s, then 20 s more)."""
    lines = steps(rite)
    full = load_durations().base("洗")
    found = 0
    for i, e in enumerate(lines):
        if e["verb"] != "辭" or e["cite"] not in cites or "辭洗" not in e["jing"]:
            continue
        found += 1
        washer = e["to"]
        (begun,) = [
            f for f in lines[max(0, i - 8) : i] if f["actor"] == washer and f["verb"] == "洗"
        ]
        done = next(f for f in lines[i + 1 :] if f["actor"] == washer and f["verb"] == "洗")
        assert begun["t"] <= e["t"] and abs(_end(begun) - _end(e)) < 0.05
        assert abs(begun["dur"] + done["dur"] - full) < 0.05
        assert begun["dur"] < full and done["t"] >= _end(e)
    assert found >= len(cites)

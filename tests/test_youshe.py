"""The 司射's 誘射 is in round 1 and never counted (賈疏 xiangshe:162 第一番直司射與三耦誘射不釋算).

The event log says so, and docs/event-log.md says what the log does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from loglines import log_lines, step_lines

DOC = Path(__file__).resolve().parents[1] / "docs" / "event-log.md"


@pytest.fixture(scope="module")
def seed1(run_once: Callable[..., Any]) -> Any:
    """鄉射禮 of seed 1 (shared, only read), made before the tests that read it."""
    return run_once("xiangshe", seed=1)


@pytest.mark.slow
def test_youshe_shot_lines(seed1: Any) -> None:
    r = seed1
    shots = [e for e in log_lines(r) if e["type"] == "shot" and e["pair"] == "誘射"]
    assert [s["arrow"] for s in shots] == [1, 2, 3, 4]  # 將乘矢 (xiangshe:132)
    for s in shots:
        assert s["round"] == 1
        assert s["archer"] == "司射" and s["person"] == "司射"
        assert s["counted"] is False
        assert "誘射" in s["reason"] and "第一番直司射與三耦誘射不釋算" in s["reason"]
    steps = {e["seq"]: e for e in step_lines(r)}
    assert all(steps[s["seq"]]["round"] == 1 for s in shots)
    # and before any pair of the 三耦 shoots, in the same round
    first_pair = next(e for e in log_lines(r) if e["type"] == "shot" and e["pair"] == "上耦")
    assert first_pair["round"] == 1 and first_pair["seq"] > shots[-1]["seq"]


def test_event_log_doc_says_round_1() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "誘射 is round 0" not in text
    assert "誘射 is in round 1" in text and "第一番直司射與三耦誘射不釋算" in text


def test_the_sishe_goes_out_south_of_his_own_wei(seed1: Any) -> None:
    """降出于其位南適堂西 (xiangshe:134): 敖繼公 「見是時未有司馬西方之位也」, 楊復 「不從階西徑過
    堂西，必出于其位南而後向北以適堂西」: his walk passes south of his own 位 (所設中之西南,
    xiangshe:127), where the 司馬 does not stand yet (he is at the 西階前, 記 xiangshe:335)."""
    r = seed1
    steps = [e for e in r.records if getattr(e, "verb", None) is not None]
    wei = next(e for e in steps if e.cite == "xiangshe:127" and e.actor == "司射")
    (out,) = [e for e in steps if e.cite == "xiangshe:134" and e.verb == "出"]
    sima = [e for e in steps if e.actor == "司馬" and e.seq < out.seq][-1]
    assert wei.place == "中之西南" and out.place == "堂西"
    assert out.via_point[1] < wei.y and abs(out.via_point[0] - wei.x) < 1
    assert sima.place == "西階前"

"""The 司射's 誘射 is in round 1 and never counted (賈疏 xiangshe:162 第一番直司射與三耦誘射不釋算).

The event log says so, and docs/event-log.md says what the log does.
"""

from __future__ import annotations

from pathlib import Path

from sheli.engine import run

DOC = Path(__file__).resolve().parents[1] / "docs" / "event-log.md"


def test_youshe_shot_lines() -> None:
    r = run("xiangshe", seed=1)
    shots = [e for e in r.events if e["type"] == "shot" and e["pair"] == "誘射"]
    assert [s["arrow"] for s in shots] == [1, 2, 3, 4]  # 將乘矢 (xiangshe:132)
    for s in shots:
        assert s["round"] == 1
        assert s["archer"] == "司射" and s["person"] == "司射"
        assert s["counted"] is False
        assert "誘射" in s["reason"] and "第一番直司射與三耦誘射不釋算" in s["reason"]
    steps = {e["seq"]: e for e in r.steps}
    assert all(steps[s["seq"]]["round"] == 1 for s in shots)
    # and before any pair of the 三耦 shoots, in the same round
    first_pair = next(e for e in r.events if e["type"] == "shot" and e["pair"] == "上耦")
    assert first_pair["round"] == 1 and first_pair["seq"] > shots[-1]["seq"]


def test_event_log_doc_says_round_1() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert "誘射 is round 0" not in text
    assert "誘射 is in round 1" in text and "第一番直司射與三耦誘射不釋算" in text

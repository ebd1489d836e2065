"""燕禮's archery in 燕禮's hall, with the 君 there.

注 yan:124 其告請先於君乃以命賓及卿大夫; 疏 此燕禮每事皆先請於君: every 請 and every 告 of the
鄉射's archery goes to the 君 first, as the 大射儀 says it for each (請 dashe:163, 179, 261,
269; 告 dashe:155 三耦卒射, 207 左右卒射, 223 the count), and then to the 賓.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from sheli.engine import run

SPEECH = ("告", "請", "命")


@cache
def steps_of(rite: str) -> list[dict[str, Any]]:
    return list(run(rite, seed=1).steps)


@pytest.mark.parametrize("rite", ["yanshe", "yanli"])
def test_every_gao_and_qing_goes_to_the_jun_first(rite: str) -> None:
    """Between two things said to the 賓 under different passages, the speaker has said it
    to the 公 first."""
    told_jun: dict[str, bool] = {}
    last_cite: dict[str, str] = {}
    missing = []
    for e in steps_of(rite):
        if e["verb"] not in SPEECH or e["actor"] not in ("司射", "釋獲者"):
            continue
        if e.get("to") == "公":
            told_jun[e["actor"]] = True
        elif e.get("to") == "賓":
            if last_cite.get(e["actor"]) == e["cite"]:
                continue  # 則遂告于賓 (xiangshe:162) after the 命 of the same passage
            if not told_jun.get(e["actor"]):
                missing.append((e["seq"], e["cite"], e["actor"], e["verb"], e.get("says")))
            told_jun[e["actor"]] = False
            last_cite[e["actor"]] = e["cite"]
    assert missing == []
    said = [e for e in steps_of(rite) if e["verb"] == "告" and e.get("to") == "公"]
    assert {e["says"] for e in said} >= {"三耦卒射", "左右卒射"}


def test_xiangshe_tells_the_bin_with_no_jun() -> None:
    """In 鄉射禮 there is no 君: 告于賓曰三耦卒射 (xiangshe:153), 左右卒射 (190) go to the 賓."""
    steps = steps_of("xiangshe")
    assert not [e for e in steps if e.get("to") == "公"]
    told = {e["says"] for e in steps if e["verb"] == "告" and e.get("to") == "賓"}
    assert {"三耦卒射", "左右卒射"} <= told

"""The scoring lines of the event log (DESIGN.md, "The event log"): ``shot`` and ``tally``.

The engine writes these; building them here keeps their fields and meanings in one place.

>>> shot_event(2, "上耦", "上射", 1, True, None)["reason"]
'若中則釋獲者坐而釋獲每一个釋一算 (xiangshe:186)'
>>> tally_event(2, 19, 14)
{'type': 'tally', 'round': 2, 'right': 19, 'left': 14, 'announcement': '右賢於左二純一奇'}
"""

from __future__ import annotations

from typing import Any

from sheli.scoring.rules import announce, release, side_of


def shot_event(
    round: int, pair: str, archer: str, arrow: int, hit: bool, on_beat: bool | None
) -> dict[str, Any]:
    """One line per arrow: ``{"type": "shot", round, pair, archer, arrow, hit, counted, reason}``.

    Added fields: ``on_beat`` (round 3 only, else null) and ``side`` (where a counted 筭 is
    laid: ``right`` for 上射, ``left`` for 下射, xiangshe:186; null when not counted).

    >>> e = shot_event(3, "次耦", "下射", 4, True, False)
    >>> e["counted"], e["reason"], e["side"]
    (False, '不鼓不釋 (xiangshe:248)', None)
    """
    counted, reason = release(round, hit, on_beat)
    return {
        "type": "shot",
        "round": round,
        "pair": pair,
        "archer": archer,
        "arrow": arrow,
        "hit": hit,
        "counted": counted,
        "reason": reason,
        "on_beat": on_beat if round == 3 else None,
        "side": side_of(archer) if counted else None,
    }


def tally_event(round: int, right: int, left: int) -> dict[str, Any]:
    """One line per count: ``{"type": "tally", round, right, left, announcement}``."""
    return {
        "type": "tally",
        "round": round,
        "right": right,
        "left": left,
        "announcement": announce(right, left),
    }

"""The rules of 釋獲, 數獲 and 告獲, for the readers of tallies.

The rules the engine enacts live below it, in :mod:`sheli.rite.rules` (the rite's own
tables, ``sheli/rite/data/``); they are named here too, where scoring has always had them.

>>> announce(19, 14)
'右賢於左二純一奇'
"""

from __future__ import annotations

from sheli.rite.rules import (
    ARCHERS,
    PURE,
    PURES_PER_HEAP,
    SIDE_NAMES,
    SIDES,
    CountAction,
    CountLayout,
    ReleaseRule,
    Side,
    announce,
    count_layout,
    count_procedure,
    count_procedure_in,
    count_words,
    losers,
    pure_odd,
    release,
    release_rule,
    release_rules,
    replay_count,
    side_of,
    winner,
)

__all__ = [
    "ARCHERS",
    "PURE",
    "PURES_PER_HEAP",
    "SIDES",
    "SIDE_NAMES",
    "CountAction",
    "CountLayout",
    "ReleaseRule",
    "Side",
    "announce",
    "count_layout",
    "count_procedure",
    "count_procedure_in",
    "count_words",
    "losers",
    "pure_odd",
    "release",
    "release_rule",
    "release_rules",
    "replay_count",
    "side_of",
    "winner",
]

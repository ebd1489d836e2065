"""Scoring: 釋獲, 數獲, 告獲, 飲不勝者 and the outcomes of the arrows, as the rites do them.

Scoring sits between the rite and the engine (docs/architecture.md): it needs no world state,
only the text's rules and their tables (``sheli/scoring/data/``), and the engine enacts them.

- :mod:`~sheli.scoring.rules`: :func:`release` (is a hit counted, xiangshe:150/184/248),
  :func:`count_procedure` (數獲, xiangshe:193–201), :func:`announce` (告獲, xiangshe:203–204),
  :func:`losers`;
- :mod:`~sheli.scoring.outcomes`: where each arrow's outcome comes from, the engine's input
  (:class:`SeededOutcomes`, :class:`RecordedOutcomes`, :func:`load_outcomes`);
- :mod:`~sheli.scoring.drinking`: 飲不勝者 with its special cases (xiangshe:205–220);
- :mod:`~sheli.scoring.five`: the 五射 judged from recorded outcomes and the 五物's votes;
- :func:`to_chinese`: the numerals of the announcement.

The 筭 as objects are the engine's (where each is, :class:`sheli.engine.state.Objects`; the
acts that move them, the verbs 設, 實, 取, 委, 釋獲, 數獲 of :mod:`sheli.engine.verbs`), and so
are the ``shot`` and ``tally`` lines of the event log (:mod:`sheli.engine.records`).

See docs/scoring.md for the rules with their cites and the outcomes file format.

>>> announce(19, 14)
'右賢於左二純一奇'
>>> announce(7, 7)
'左右鈞'
"""

from sheli.scoring.drinking import Drink, drinking, rank_of
from sheli.scoring.numerals import to_chinese
from sheli.scoring.outcomes import (
    FIELDS,
    Outcome,
    OutcomesError,
    OutcomeSource,
    RecordedOutcomes,
    SeededOutcomes,
    load_outcomes,
)
from sheli.scoring.rules import (
    CountAction,
    CountLayout,
    announce,
    count_layout,
    count_procedure,
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
    "FIELDS",
    "CountAction",
    "CountLayout",
    "Drink",
    "Outcome",
    "OutcomeSource",
    "OutcomesError",
    "RecordedOutcomes",
    "SeededOutcomes",
    "announce",
    "count_layout",
    "count_procedure",
    "drinking",
    "load_outcomes",
    "losers",
    "pure_odd",
    "rank_of",
    "release",
    "release_rule",
    "release_rules",
    "replay_count",
    "side_of",
    "to_chinese",
    "winner",
]

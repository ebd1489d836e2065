"""Where each arrow's outcome comes from, for the readers of tallies.

The outcome model is the engine's input and lives with it, in :mod:`sheli.engine.outcomes`;
its names are given here too, where scoring has always had them.

>>> SeededOutcomes(7).outcome(2, "上耦", "上射", 1)[1] is None
True
"""

from __future__ import annotations

from sheli.engine.outcomes import (
    ARCHER_NAMES,
    DEFAULT_ON_BEAT,
    DEFAULT_SKILL_RANGE,
    FIELDS,
    FLIGHTS,
    MISS_DIRECTIONS,
    OPTIONAL_FIELDS,
    OUTCOMES_MAX_BYTES,
    PAIR_PATTERN,
    STRUCK,
    STRUCK_AT_HOU,
    Outcome,
    OutcomeFieldError,
    OutcomesError,
    OutcomeSource,
    RecordedOutcomes,
    SeededOutcomes,
    load_outcomes,
    miss_direction,
    miss_side,
    normalise_name,
    parse_outcome,
)

__all__ = [
    "ARCHER_NAMES",
    "DEFAULT_ON_BEAT",
    "DEFAULT_SKILL_RANGE",
    "FIELDS",
    "FLIGHTS",
    "MISS_DIRECTIONS",
    "OPTIONAL_FIELDS",
    "OUTCOMES_MAX_BYTES",
    "PAIR_PATTERN",
    "STRUCK",
    "STRUCK_AT_HOU",
    "Outcome",
    "OutcomeFieldError",
    "OutcomeSource",
    "OutcomesError",
    "RecordedOutcomes",
    "SeededOutcomes",
    "load_outcomes",
    "miss_direction",
    "miss_side",
    "normalise_name",
    "parse_outcome",
]

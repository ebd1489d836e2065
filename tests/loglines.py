"""The event log of a run as a reader of the log gets it: its lines, parsed.

Tests of what the log says (docs/event-log.md, the public contract) read the lines the
writer makes (:func:`sheli.outputs.eventlog.record_lines`), not the run's records.
"""

from __future__ import annotations

import json
from typing import Any

from sheli.outputs.eventlog import record_lines


def log_lines(run: Any) -> list[dict[str, Any]]:
    """Every line of ``run``'s event log, in order, parsed."""
    return [json.loads(line) for line in record_lines(run.records)]


def step_lines(run: Any) -> list[dict[str, Any]]:
    """The step lines of ``run``'s event log."""
    return [e for e in log_lines(run) if e["type"] == "step"]


def shot_lines(run: Any) -> list[dict[str, Any]]:
    """The shot lines of ``run``'s event log."""
    return [e for e in log_lines(run) if e["type"] == "shot"]


def tally_lines(run: Any) -> list[dict[str, Any]]:
    """The tally lines of ``run``'s event log."""
    return [e for e in log_lines(run) if e["type"] == "tally"]

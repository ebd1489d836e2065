"""The outputs stay byte for byte what they were, unless a commit names the change.

The hashes in tests/golden/outputs.tsv were recorded before the 儀注, the cue sheets, the
run-of-show and the live app's exports became visitors of the typed run
(docs/architecture.md); a refactoring of their readers must not move a byte of them.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from sharing import same_run

sys.path.insert(0, str(Path(__file__).parent / "golden"))
from outputs import cases, digest, read_table

TABLE = read_table()
RUNS: dict[str, Any] = {}  # one run per configuration, shared by its outputs


def test_every_output_has_a_recorded_hash() -> None:
    assert set(TABLE) == set(cases())


# the outputs of one run on one worker, which makes the run once for them (RUNS)
@pytest.mark.parametrize(
    "case", [pytest.param(c, marks=same_run(f"golden {c.split('/')[0]}")) for c in cases()]
)
@pytest.mark.slow
def test_the_output_is_as_recorded(case: str) -> None:
    assert digest(case, RUNS) == TABLE[case], (
        f"{case}: the output's bytes changed (python tests/golden/outputs.py --write)"
    )

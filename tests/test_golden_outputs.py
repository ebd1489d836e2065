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

sys.path.insert(0, str(Path(__file__).parent / "golden"))
from outputs import cases, digest, read_table

TABLE = read_table()
RUNS: dict[str, Any] = {}  # one run per configuration, shared by its outputs


def test_every_output_has_a_recorded_hash() -> None:
    assert set(TABLE) == set(cases())


@pytest.mark.parametrize("case", cases())
def test_the_output_is_as_recorded(case: str) -> None:
    assert digest(case, RUNS) == TABLE[case], (
        f"{case}: the output's bytes changed (python tests/golden/outputs.py --write)"
    )

"""The event logs stay byte for byte what they were, unless a commit names the change.

The hashes in tests/golden/logs.tsv were recorded before the engine's state became typed
records (docs/architecture.md), and are re-recorded only by commits that change the logs on
purpose and say why; a refactoring of the engine or the outputs must not move a byte of
``sheli run … --format jsonl``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sharing import Once, same_run

sys.path.insert(0, str(Path(__file__).parent / "golden"))
from logs import CONFIGS, digest, log_of, read_table

TABLE = read_table()


def test_every_configuration_has_a_recorded_hash() -> None:
    assert set(TABLE) == set(CONFIGS)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=same_run(f"log {n}")) for n in sorted(CONFIGS)]
)
@pytest.mark.slow
def test_the_log_is_as_recorded(name: str, once: Once) -> None:
    # the log tests/test_world_rules.py reads too, made once for both (tests/conftest.py)
    sha, n = digest(CONFIGS[name], once(("log", name), lambda: log_of(CONFIGS[name])))
    want_sha, want_n = TABLE[name]
    assert n == want_n, f"{name}: {n} lines, recorded {want_n}"
    assert sha == want_sha, f"{name}: the log's bytes changed (python tests/golden/logs.py --write)"

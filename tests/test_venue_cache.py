"""Venues kept on disk between processes (sheli.place.loader, sheli.diskcache): the next
process takes them from the cache, the same as built; a corrupt entry is built again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CODE = """
from sheli.place import loader
cached = loader._STORED is not None
same = all(loader.load_venue(k) == loader._build(k) for k in loader.VENUES)
print(cached, same, loader._ENTRY)
"""


def _process(cache: Path) -> list[str]:
    env = {**os.environ, "SHELI_CACHE_DIR": str(cache)}
    out = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, check=True, env=env
    )
    return out.stdout.split()


@pytest.mark.slow
def test_the_next_process_takes_the_venues_from_the_cache(tmp_path: Path) -> None:
    cached, same, entry = _process(tmp_path)
    assert (cached, same) == ("False", "True")
    assert Path(entry).parent == tmp_path / "venues" and Path(entry).exists()
    assert _process(tmp_path) == ["True", "True", entry]


@pytest.mark.slow
def test_a_corrupt_entry_is_built_again(tmp_path: Path) -> None:
    entry = Path(_process(tmp_path)[2])
    entry.write_bytes(b"not a pickle")
    assert _process(tmp_path) == ["False", "True", str(entry)]
    assert _process(tmp_path)[0] == "True"  # and kept again

"""The store of imported editions: one JSON file per edition in sheli's data directory.

:mod:`sheli.text.editions` writes it (``sheli text import``); :mod:`sheli.text.commentary`
reads it beside the seeds. Both depend on this module, and neither on the other.

>>> store_dir().name
'editions'
>>> edition_path("注疏 WYG").name
'注疏_WYG.json'
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from platformdirs import user_data_dir


def data_dir() -> Path:
    """sheli's data directory: ``$SHELI_DATA_DIR`` or the platform's user data dir (imported
    editions, the live app's database).

    >>> (data_dir() / "editions") == store_dir()
    True
    """
    return Path(os.environ.get("SHELI_DATA_DIR") or user_data_dir("sheli"))


def store_dir() -> Path:
    """Where imported editions live: ``$SHELI_DATA_DIR/editions`` or the user data dir.

    >>> store_dir().name
    'editions'
    """
    return data_dir() / "editions"


def edition_path(name: str) -> Path:
    """The file of the edition ``name``: characters a file name cannot hold become ``_``.

    >>> edition_path("a/b:c").name
    'a_b_c.json'
    """
    safe = re.sub(r"[\\/:*?\"<>|\s]+", "_", name).strip("._") or "edition"
    return store_dir() / f"{safe}.json"


def load_edition(name: str) -> dict | None:
    """The stored record of one edition, or None.

    >>> load_edition("no such edition") is None
    True
    """
    p = edition_path(name)
    if not p.is_file():
        return None
    return json.loads(p.read_text(encoding="utf-8"))


# path → (mtime_ns, size, parsed record): `sheli text CHAPTER` asks for the notes of
# hundreds of passages, and each edition file should be read once, not once per passage.
_CACHE: dict[Path, tuple[int, int, dict]] = {}


def all_editions() -> list[dict]:
    """Every stored edition record, in file-name order; a damaged file is skipped.

    >>> import os, tempfile
    >>> from unittest import mock
    >>> with tempfile.TemporaryDirectory() as d, mock.patch.dict(os.environ, SHELI_DATA_DIR=d):
    ...     before = all_editions()
    ...     edition_path("鄭注").parent.mkdir()
    ...     _ = edition_path("鄭注").write_text('{"edition": "鄭注"}', encoding="utf-8")
    ...     _ = edition_path("broken").write_text("{", encoding="utf-8")
    ...     after = [e["edition"] for e in all_editions()], load_edition("鄭注")
    >>> before, after
    ([], (['鄭注'], {'edition': '鄭注'}))
    """
    d = store_dir()
    if not d.is_dir():
        return []
    out = []
    for p in sorted(d.glob("*.json")):
        try:
            st = p.stat()
            hit = _CACHE.get(p)
            if hit is None or hit[:2] != (st.st_mtime_ns, st.st_size):
                hit = (st.st_mtime_ns, st.st_size, json.loads(p.read_text(encoding="utf-8")))
                _CACHE[p] = hit
            if isinstance(hit[2], dict) and isinstance(hit[2].get("chapters", {}), dict):
                out.append(hit[2])
        except (OSError, ValueError):
            continue  # a damaged file is skipped, not fatal to reading the others
    return out

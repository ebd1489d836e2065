"""Parse the YAML data files (the venues, the rite specs, the rank table) fast and safely.

Below every layer: the place layer reads its venues with :func:`load_yaml`, the rite layer its
specs and tables with :func:`load_yaml_lines` (which :mod:`sheli.rite.loader` wraps into
:class:`~sheli.rite.loader.SpecError`), and neither imports the other for it. The parsing is
:mod:`sheli.yamlparse`'s (PyYAML), imported only when a text is parsed: a data file that an
earlier process parsed (the bodies, the walks, the world rules) is read back from the disk
cache (:mod:`sheli.diskcache`), keyed by its bytes and the parser's code, so that a warm
``sheli run`` does not import PyYAML at all (see docs/benchmarks.md, "Start-up").

>>> load_yaml_lines("steps:\\n  - cite: xiangshe:127\\n")["steps"][0]
{'cite': 'xiangshe:127', '__line__': 2}
>>> LINE_KEY == parser().LINE_KEY
True
"""

from __future__ import annotations

import functools
from pathlib import Path
from types import ModuleType
from typing import Any

from sheli import diskcache

LINE_KEY = "__line__"  # the key under which load_yaml_lines puts a mapping's start line

#: a text of at least this many characters is a data file: kept in the disk cache once parsed
#: (a shorter one, an option's value or a test's snippet, is parsed each time)
CACHED_FROM = 1024


def parser() -> ModuleType:
    """The parser, :mod:`sheli.yamlparse` (PyYAML's import: some 10 ms of a start)."""
    from sheli import yamlparse  # deferred: only a text not in the disk cache needs PyYAML

    return yamlparse


@functools.cache
def _code() -> bytes:
    # the parser's own code: another parser, other entries
    return (Path(__file__).parent / "yamlparse.py").read_bytes()


def load_yaml(text: str) -> Any:
    """What ``yaml.safe_load(text)`` gives, parsed by libyaml when PyYAML has it (the data
    files), or read back from the disk cache where an earlier process parsed the same text.
    Raises PyYAML's errors.

    >>> load_yaml("a: [1, x, 2026-01-01]")
    {'a': [1, 'x', datetime.date(2026, 1, 1)]}
    """
    if len(text) < CACHED_FROM:
        return parser().load_yaml(text)
    entry = diskcache.cache_dir("yaml") / diskcache.key(text.encode("utf-8"), _code())
    kept = diskcache.read(entry)
    if isinstance(kept, tuple) and len(kept) == 1:
        return kept[0]
    data = parser().load_yaml(text)
    diskcache.write(entry, (data,))
    return data


def load_yaml_lines(text: str) -> Any:
    """Parse YAML text; every mapping carries its 1-based start line under :data:`LINE_KEY`,
    and a date stays text (a data file never means a datetime). Raises PyYAML's errors.

    >>> load_yaml_lines("day: 2026-01-01")
    {'day': '2026-01-01', '__line__': 1}
    """
    return parser().load_yaml_lines(text)

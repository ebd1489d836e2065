"""Load a rite spec from YAML, keeping the line of every mapping for error messages.

Every mapping read from the file gets a ``__line__`` key (1-based line of its first key), so
that an error found much later, when the engine runs the step, can still name the line of the
step in the spec file.

>>> data = load_yaml_with_lines("steps:\\n  - cite: xiangshe:127\\n    verb: 立\\n")
>>> data["steps"][0]["__line__"]
2
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sheli.errors import SheliError
from sheli.files import read_at_most
from sheli.yamlfile import LINE_KEY, load_yaml_lines
from sheli.yamlfile import load_yaml as load_yaml  # its old home: kept for who still imports it

FILE_KEY = "__file__"  # set on mappings read from a part or base file (include:, extends:)


class SpecError(SheliError):
    """A spec that cannot be read, validated or run.

    The message names the file, the line, the step's passage id and what is wrong:

    >>> str(SpecError("verb 飛 is not in the vocabulary", file="x.yaml", line=3,
    ...               cite="xiangshe:127"))
    'x.yaml:3 (xiangshe:127): verb 飛 is not in the vocabulary'
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        cite: str | None = None,
        what: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.cite = cite
        self.what = what  # e.g. "射 by 上耦下射"
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.file or "<spec>"
        if self.line:
            where += f":{self.line}"
        ctx = ", ".join(x for x in (self.cite, self.what) if x)
        if ctx:
            where += f" ({ctx})"
        return f"{where}: {self.message}"


def load_yaml_with_lines(text: str, file: str | None = None) -> Any:
    """Parse YAML text; every mapping carries its start line under ``__line__``.

    A YAML syntax error becomes a :class:`SpecError` naming the file and line. A date stays
    text (``2026-01-01`` is the string ``'2026-01-01'``).
    """
    import yaml  # deferred: its errors, needed only where a text is parsed (by PyYAML)

    try:
        return load_yaml_lines(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise SpecError(f"YAML syntax: {exc.problem or exc}", file=file, line=line) from None
    except yaml.YAMLError as exc:
        raise SpecError(f"YAML: {' '.join(str(exc).split())}", file=file) from None  # one line


def strip_lines(data: Any) -> Any:
    """Return ``data`` without the ``__line__`` keys (for display and JSON).

    >>> strip_lines({"a": {"b": 1, "__line__": 2}, "__line__": 1})
    {'a': {'b': 1}}
    """
    if isinstance(data, dict):
        return {k: strip_lines(v) for k, v in data.items() if k not in (LINE_KEY, FILE_KEY)}
    if isinstance(data, list):
        return [strip_lines(v) for v in data]
    return data


# A spec file or part is read whole and validated: the largest shipped is 0.15 MB.
SPEC_MAX_BYTES = 4 << 20


def read_spec_file(path: Path) -> Any:
    """Read and parse a spec file (UTF-8, at most :data:`SPEC_MAX_BYTES`), with lines recorded.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "big5.yaml"
    >>> _ = p.write_bytes("rite: 測試".encode("big5"))
    >>> read_spec_file(p)
    Traceback (most recent call last):
    ...
    sheli.rite.loader.SpecError: big5.yaml:1: not UTF-8 text (byte 6): save the spec as UTF-8
    """
    try:
        data = read_at_most(path, SPEC_MAX_BYTES)
    except OSError as exc:
        raise SpecError(f"cannot read spec: {exc.strerror}", file=str(path)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SpecError(
            f"not UTF-8 text (byte {exc.start}): save the spec as UTF-8", file=path.name, line=line
        ) from None
    return load_yaml_with_lines(text, file=path.name)

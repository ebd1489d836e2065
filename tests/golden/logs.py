"""The event logs whose bytes a refactoring must keep: each run's arguments and its hash.

``python tests/golden/logs.py --write`` records the hashes in ``logs.tsv`` beside this file
(after a change to the logs that a commit names and explains); the test
``tests/test_golden_logs.py`` compares them. The configurations are those a change of the
engine's internals must not move: 鄉射禮 by venue, pairs, guests, the feast option, seeds and a
recorded outcomes file; 大射儀; 燕射; 燕禮 whole (with and without its archery); and every
reading the specs model (docs/readings.md).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from click.testing import CliRunner

HERE = Path(__file__).resolve().parent
TABLE = HERE / "logs.tsv"

READINGS = {
    "dashe": [
        "R-dafu-gan",
        "R-sanou-shi",
        "R-she-bin-xian",
        "R-she-fang-ao",
    ],
    "yanshe": ["R-jun-xianfa", "R-jun-shougong-zushe", "R-jun-yue-jiao"],
    "xiangshe": ["R-zhi-zuojie"],
}

CONFIGS: dict[str, list[str]] = {
    "xiangshe": ["xiangshe"],
    "xiangshe-xiang": ["xiangshe", "--venue", "xiang"],
    "xiangshe-pairs3": ["xiangshe", "--pairs", "3"],
    "xiangshe-noguests": ["xiangshe", "--no-guests"],
    "xiangshe-nofeast": ["xiangshe", "--option", "feast=false"],
    "xiangshe-seed1": ["xiangshe", "--seed", "1"],
    "xiangshe-seed2": ["xiangshe", "--seed", "2"],
    "xiangshe-seed3": ["xiangshe", "--seed", "3"],
    "xiangshe-outcomes": ["xiangshe", "--outcomes", str(HERE / "outcomes.csv")],
    "dashe": ["dashe"],
    "yanshe": ["yanshe"],
    "yanli": ["yanli"],
    "yanli-noshe": ["yanli", "--option", "she=false"],
    "dashe-R-houdao-ao": ["dashe", "--reading", "R-houdao-ao", "--venue", "shegong_ao"],
}
for _rite, _ids in READINGS.items():
    for _r in _ids:
        CONFIGS[f"{_rite}-{_r}"] = [_rite, "--reading", _r]


def log_of(args: list[str]) -> bytes:
    """The bytes ``sheli run ARGS --format jsonl`` prints."""
    from sheli.cli import cli

    res = CliRunner().invoke(cli, ["run", *args, "--format", "jsonl"], catch_exceptions=False)
    if res.exit_code != 0:
        raise RuntimeError(f"sheli run {' '.join(args)}: exit {res.exit_code}: {res.output}")
    return res.stdout_bytes


def digest(args: list[str], data: bytes | None = None) -> tuple[str, int]:
    """The hash and the line count of the log of ``args`` (``data``, where it is made already)."""
    data = log_of(args) if data is None else data
    return hashlib.sha256(data).hexdigest(), data.count(b"\n")


def read_table() -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, sha, n = line.split("\t")
            out[name] = (sha, int(n))
    return out


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/golden/logs.py --write")
    rows = ["# config\tsha256 of `sheli run … --format jsonl`\tlines"]
    for name, args in CONFIGS.items():
        sha, n = digest(args)
        rows.append(f"{name}\t{sha}\t{n}")
        print(name, n, file=sys.stderr)
    TABLE.write_text("\n".join(rows) + "\n", encoding="utf-8")

"""No command gives a traceback on any input: random arguments and random files.

Each example is one ``sheli`` command line drawn from the options the commands take, with
values that are right, wrong, out of bounds or nonsense, and input files of random bytes,
text, CSV, YAML or JSON. Whatever it is, the command ends with exit 0, 1 or 2 and an
exception no other than SystemExit. The rites are the small test spec and the random files
(a full rite's run takes a second), so that the examples run in seconds.
"""

from __future__ import annotations

import os
import string
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheli.cli import cli

COMMANDS = ["run", "score", "coverage", "text", "search", "place", "params", "cues", "render"]
COMMANDS.append("text import")
MINI = str(Path(__file__).resolve().parent / "fixtures" / "specs" / "mini.yaml")

# file contents: bytes, text, and text shaped like what the commands read
_CELL = st.one_of(
    st.sampled_from(["1", "2", "3", "4", "5", "0", "-1", "true", "false", "", "上耦", "上射"]),
    st.sampled_from(["下射", "衆耦1", "次耦", "yes", "nan", "1e400", "\ud7ff", "x" * 50]),
    st.text(max_size=8),
)
_CSV = st.lists(st.lists(_CELL, min_size=0, max_size=7), max_size=12).map(
    lambda rows: "round,pair,archer,arrow,hit,on_beat\n" + "\n".join(",".join(r) for r in rows)
)
_YAML = st.lists(
    st.tuples(
        st.sampled_from(["rite", "chapter", "steps", "params", "cast", "scope", "x", "readings"]),
        st.one_of(_CELL, st.just("[]"), st.just("{a: 1}"), st.just("[[1, 2]]"), st.just("- a")),
    ),
    max_size=6,
).map(lambda kv: "".join(f"{k}: {v}\n" for k, v in kv))
_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=6)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
).map(repr)
_KANRIPO = st.lists(_CELL, max_size=8).map(
    lambda xs: "#+TITLE: 儀禮注疏\n#+PROPERTY: ID KR1d0026\n" + "¶\n".join(xs) + "¶\n"
)
CONTENT = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
    _CSV.map(lambda s: s.encode("utf-8", "surrogatepass")),
    _YAML.map(lambda s: s.encode("utf-8", "surrogatepass")),
    _JSON.map(lambda s: s.encode("utf-8", "surrogatepass")),
    _KANRIPO.map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.sampled_from(["鄉射禮".encode("big5"), "大射".encode("gbk"), b"\xff\xfe\x00"]),
)
EXT = st.sampled_from(["", ".csv", ".json", ".jsonl", ".yaml", ".txt"])

INT = st.one_of(
    st.integers(-3, 12), st.sampled_from([0, 1, 200, 201, 9999, 10000, 10**6, 2**70, -(2**70)])
)
FLOAT = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["0", "-1", "nan", "inf", "1e-300", "0.5", "20", "x"]),
)
WORD = st.one_of(
    st.text(alphabet=string.ascii_letters + "-_:=/.", max_size=12),
    st.text(max_size=6),
    st.sampled_from(["上耦", "司射", "釋獲者", "諸侯/大射", "王", "士", "鄉射", "xie", "xiang"]),
)


class Files:
    """The example's files: each draw writes a new one in the example's own folder."""

    def __init__(self, folder: str, data: st.DataObject) -> None:
        self.folder, self.data, self.n = folder, data, 0

    def path(self) -> str:
        kind = self.data.draw(st.sampled_from(["file", "file", "missing", "folder"]))
        self.n += 1
        p = os.path.join(self.folder, f"f{self.n}{self.data.draw(EXT)}")
        if kind == "file":
            Path(p).write_bytes(self.data.draw(CONTENT))
        elif kind == "folder":
            os.mkdir(p)
        return p

    def out(self, exts: list[str]) -> str:
        self.n += 1
        name = f"o{self.n}{self.data.draw(st.sampled_from(exts))}"
        where = self.data.draw(st.sampled_from(["", "", "missing/"]))
        return os.path.join(self.folder, where + name)


def _draw(data: st.DataObject, choices: list[tuple[str, Any]]) -> list[str]:
    """Some of the options, each with a drawn value (None: a flag)."""
    args: list[str] = []
    picked = data.draw(st.lists(st.sampled_from(choices), max_size=5))
    for name, value in picked:
        args.append(name)
        if value is not None:
            v = value() if callable(value) else data.draw(value)
            args.append(str(v))
    return args


def _rite(data: st.DataObject, files: Files, *extra: str) -> list[str]:
    return [data.draw(st.sampled_from([MINI, MINI, "nosuch", *extra]) | st.just(files.path()))]


def _command(data: st.DataObject, files: Files) -> list[str]:
    cmd = data.draw(st.sampled_from(COMMANDS))
    run_opts = [
        ("--venue", WORD | st.sampled_from(["xie", "xiang", "shegong", "shegong_ao", "qin"])),
        ("--pairs", INT),
        ("--no-guests", None),
        ("--dafu", INT),
        ("--seed", INT),
        ("--outcomes", files.path),
        ("--arrows-short", None),
        ("--reading", WORD | st.sampled_from(["R-zhi-zuojie", "R-houdao-ao"])),
        ("--option", st.tuples(WORD, WORD).map("=".join) | st.sampled_from(["feast=ture"])),
    ]
    if cmd == "run":
        opts = [
            *run_opts,
            ("--format", st.sampled_from(["yizhu", "text", "jsonl", "pdf"])),
            ("-o", lambda: files.out([".jsonl", ".txt", ""])),
        ]
        return ["run", *_rite(data, files), *_draw(data, opts)]
    if cmd == "score":
        if data.draw(st.booleans()):
            return ["score", "--outcomes", files.path(), *_draw(data, [("-e", None)])]
        counts = [str(data.draw(INT)) for _ in range(data.draw(st.integers(0, 3)))]
        return ["score", *counts, *_draw(data, [("-e", None), ("-c", None)])]
    if cmd == "coverage":
        opts = [("--json", None), ("--gaps", None)]
        return ["coverage", *_rite(data, files, "xiangshe"), *_draw(data, opts)]
    if cmd == "text":
        target = data.draw(
            WORD
            | st.builds("xiangshe:{}".format, INT)
            | st.builds("{}:{}-{}".format, st.sampled_from(["dashe", "yan", "x"]), INT, INT)
            | st.sampled_from(["xiangshe", "大射", "燕禮"])
        )
        opts = [("--section", INT), ("--simplified", None), ("--json", None), ("--no-notes", None)]
        return ["text", target, *_draw(data, opts)]
    if cmd == "search":
        opts = [("--chapter", WORD), ("--simplified", None), ("--json", None)]
        return ["search", data.draw(WORD), *_draw(data, opts)]
    if cmd == "place":
        opts = [
            ("--venue", WORD),
            ("--metres", None),
            ("--json", None),
            ("--point", WORD),
            ("--sketch", st.sampled_from(["hall", "court", "x"])),
        ]
        return ["place", *_draw(data, opts)]
    if cmd == "params":
        opts = [
            ("--rank", WORD),
            ("--occasion", WORD),
            ("--reading", WORD),
            ("--json", None),
            ("--target", WORD | st.sampled_from(["諸侯/大射", "士/鄉射", "王/大射"])),
            ("--svg", lambda: files.out([".svg", ""])),
        ]
        return ["params", *_draw(data, opts)]
    if cmd == "cues":
        opts = [
            *run_opts,
            ("--role", WORD),
            ("--floor", None),
            ("--scale", FLOAT),
            ("--hou-dao", FLOAT),
            ("--no-addressed", None),
            ("--diagrams", st.sampled_from(["near", "plan", "none", "x"])),
            ("-o", lambda: files.out([".html", ".txt", ".doc"])),
        ]
        return ["cues", *_rite(data, files), *_draw(data, opts)]
    if cmd == "render":
        # one drawing process, no SVG files: the viewer alone, of the small spec
        opts = [*run_opts[:4], ("--seed", INT)]
        out = files.out(["", ".d"])
        return ["render", *_rite(data, files), "-o", out, "-j", "1", "--no-svg", *_draw(data, opts)]
    opts = [
        ("--edition", WORD),
        ("--chapter", st.sampled_from(["xiangshe", "yan", "dashe", "x"])),
        ("--json", None),
        ("--list", None),
        ("--remove", WORD),
        ("--force", None),
    ]
    return ["text", "import", files.path(), *_draw(data, opts)]


@pytest.fixture(autouse=True)
def _own_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELI_DATA_DIR", str(tmp_path))  # imports go to a store of the test's


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
@pytest.mark.slow
def test_no_command_gives_a_traceback(data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        args = _command(data, Files(folder, data))
        r = CliRunner().invoke(cli, args)
    assert r.exit_code in (0, 1, 2), (args, r.exit_code, r.output[-500:])
    assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
    assert "Traceback" not in r.output, (args, r.output[-500:])

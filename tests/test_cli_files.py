"""Every file the CLI writes goes through sheli.files: through a symlink to its target, into a
device or a FIFO (never over it), with the umask's mode, and nothing half-written."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

import sheli.files as files
from sheli.cli import cli

RUN = ["run", "xiangshe", "--option", "feast=false", "--format", "jsonl"]


@pytest.fixture
def umask022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(p: Path) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_a_symlink_is_written_through(tmp_path: Path) -> None:
    target, link = tmp_path / "target.jsonl", tmp_path / "link.jsonl"
    target.write_text("old")
    link.symlink_to(target)
    r = CliRunner().invoke(cli, [*RUN, "-o", str(link)])
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8").startswith('{"type":"scene"')


def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.txt"
    link.symlink_to("made.txt")
    files.write_text(link, "射")
    assert link.is_symlink() and (tmp_path / "made.txt").read_text(encoding="utf-8") == "射"


def test_a_character_device_stays_a_device() -> None:
    r = CliRunner().invoke(cli, [*RUN, "-o", os.devnull])
    assert r.exit_code == 0, r.output
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_fifo_is_written_into(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    files.write_text(fifo, "一二三\n")
    reader.join(timeout=30)
    assert got == ["一二三\n".encode()]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_directory_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(files.WriteRefused, match="a directory"):
        files.write_text(tmp_path, "x")
    link = tmp_path / "to-dir"
    link.symlink_to(tmp_path)
    r = CliRunner().invoke(cli, [*RUN, "-o", str(link)])
    assert r.exit_code == 2
    assert "Traceback" not in r.output and "a directory" in r.output


def test_a_new_file_has_the_umasks_mode(tmp_path: Path, umask022: None) -> None:
    out = tmp_path / "log.jsonl"
    assert CliRunner().invoke(cli, [*RUN, "-o", str(out)]).exit_code == 0
    assert _mode(out) == 0o644
    svg = tmp_path / "hou.svg"
    r = CliRunner().invoke(cli, ["params", "--target", "諸侯/大射", "--svg", str(svg)])
    assert r.exit_code == 0, r.output
    assert _mode(svg) == 0o644
    os.umask(0o077)
    files.write_text(tmp_path / "private.txt", "x")
    assert _mode(tmp_path / "private.txt") == 0o600


def test_a_replaced_file_keeps_its_mode(tmp_path: Path, umask022: None) -> None:
    out = tmp_path / "log.txt"
    out.write_text("old")
    out.chmod(0o640)
    files.write_text(out, "new")
    assert out.read_text() == "new" and _mode(out) == 0o640


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "log.txt"
    out.write_text("old")

    def fail(f: object) -> None:
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        files._write(out, fail)  # the one place every writer goes through
    assert out.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.txt"]


def test_writing_a_tree_beside_gets_the_umasks_mode(tmp_path: Path, umask022: None) -> None:
    d = files.temp_dir_beside(tmp_path / "out")
    assert d.parent == tmp_path and _mode(d) == 0o755


def test_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    for args in (
        [*RUN, "-o", str(tmp_path / "no" / "log.jsonl")],
        ["params", "--target", "諸侯/大射", "--svg", str(tmp_path / "no" / "hou.svg")],
    ):
        r = CliRunner().invoke(cli, args)
        assert r.exit_code == 2, r.output
        assert "Traceback" not in r.output and "cannot write" in r.output

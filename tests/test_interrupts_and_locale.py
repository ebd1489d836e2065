"""The installed program ended by a signal, and writing where the locale cannot say its
text (sheli.cli.console; docs/architecture.md, "The program's end"). A real process gets a
real signal once it is under way: ^C (SIGINT) ends it with status 130, ``kill`` (SIGTERM)
with 143, without a traceback or click's ``Aborted!``, leaving no temporary file or
directory and no process of its own behind, and what an earlier command wrote as it was.
In a C locale with an ASCII stdout, every command prints (escaped where it must), never a
UnicodeEncodeError."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sheli.cli import COMMANDS
from sheli.outputs.pdf import chromium_path

SHELI = [sys.executable, "-m", "sheli"]


def _descendants(pid: int) -> list[int]:
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(k) for k in kids] + [d for k in kids for d in _descendants(int(k))]


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return False


def _signal_when(
    argv: list[str],
    ready: Callable[[subprocess.Popen[str]], bool],
    signum: int,
    group: bool = False,
) -> tuple[subprocess.CompletedProcess[str], list[int]]:
    """Start ``argv``, wait (polling) until ``ready``, send ``signum`` (with ``group``, to
    its whole process group, as a terminal's ^C is); the process's end and the processes it
    had started."""
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=group
    )
    while not ready(proc):
        assert proc.poll() is None, "the command ended before it could be interrupted"
        time.sleep(0.02)
    children = _descendants(proc.pid)
    if group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    out, err = proc.communicate()
    return subprocess.CompletedProcess(argv, proc.returncode, out, err), children


def _ended_quietly(done: subprocess.CompletedProcess[str], signum: int) -> None:
    assert done.returncode == 128 + signum, done.stderr
    assert "Traceback" not in done.stderr and "Aborted!" not in done.stderr, done.stderr


def _none_left(children: list[int]) -> None:
    for _ in range(200):  # (a child ends a moment after its parent: polled, not timed)
        if not any(_running(pid) for pid in children):
            return
        time.sleep(0.05)
    raise AssertionError(f"still running: {[p for p in children if _running(p)]}")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_run_ends_with_128_plus_the_signal(tmp_path: Path, signum: int) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("earlier\n", encoding="utf-8")
    argv = [*SHELI, "run", "xiangshe", "--format", "jsonl", "-o", str(log)]

    def under_way(proc: subprocess.Popen[str]) -> bool:
        return bool(_descendants(proc.pid))  # the walks' checking process: the run began

    done, children = _signal_when(argv, under_way, signum)
    _ended_quietly(done, signum)
    assert log.read_text(encoding="utf-8") == "earlier\n"
    assert [p.name for p in tmp_path.iterdir()] == ["log.jsonl"]
    _none_left(children)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
@pytest.mark.parametrize(("signum", "group"), [(signal.SIGTERM, False), (signal.SIGINT, True)])
@pytest.mark.slow
def test_a_render_ended_leaves_no_directory_and_no_process(
    tmp_path: Path, signum: int, group: bool
) -> None:
    out = tmp_path / "viewer"
    out.mkdir()
    (out / "index.html").write_text("an earlier render", encoding="utf-8")
    argv = [*SHELI, "render", "xiangshe", "-o", str(out), "--jobs", "2"]

    def drawing(proc: subprocess.Popen[str]) -> bool:
        temp = [p for p in tmp_path.iterdir() if p.name.startswith(".viewer.")]
        return bool(temp) and len(_descendants(proc.pid)) >= 2  # text pane and drawing

    done, children = _signal_when(argv, drawing, signum, group)
    _ended_quietly(done, signum)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["viewer"]
    assert [p.name for p in out.iterdir()] == ["index.html"]
    assert (out / "index.html").read_text(encoding="utf-8") == "an earlier render"
    assert children
    _none_left(children)


@pytest.mark.skipif(chromium_path() is None, reason="printing a PDF needs chromium")
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
@pytest.mark.slow
def test_cues_to_pdf_ended_leave_no_temporary_file(tmp_path: Path) -> None:
    pdf = tmp_path / "cues.pdf"
    pdf.write_bytes(b"an earlier PDF")
    argv = [*SHELI, "cues", "xiangshe", "-o", str(pdf)]

    def printing(proc: subprocess.Popen[str]) -> bool:
        return any(p.name.startswith(".cues.pdf.") for p in tmp_path.iterdir())

    done, children = _signal_when(argv, printing, signal.SIGTERM)
    _ended_quietly(done, signal.SIGTERM)
    assert [p.name for p in tmp_path.iterdir()] == ["cues.pdf"]
    assert pdf.read_bytes() == b"an earlier PDF"
    _none_left(children)


# one invocation of every command, each printing the text's own characters
EVERY_COMMAND = {
    "text": ["text", "xiangshe:1"],
    "search": ["search", "射"],
    "place": ["place"],
    "score": ["score", "3", "2"],
    "run": ["run", "xiangshe"],
    "coverage": ["coverage", "xiangshe"],
    "render": ["render", "xiangshe", "-o", "{tmp}/viewer", "--jobs", "1", "--no-svg"],
    "cues": ["cues", "xiangshe", "-o", "{tmp}/cues.html"],
    "params": ["params"],
    "serve": ["serve", "--help"],
    "diff": ["diff", "xiangshe", "--b", "--venue xiang", "--limit", "5"],
}


def test_every_command_is_tried() -> None:
    assert set(EVERY_COMMAND) == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(EVERY_COMMAND))
@pytest.mark.slow
def test_every_command_prints_in_an_ascii_locale(tmp_path: Path, command: str) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in EVERY_COMMAND[command]]
    env = {**os.environ, "LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"}
    done = subprocess.run([*SHELI, *args], capture_output=True, env=env)
    err = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 0, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err, err
    assert done.stdout or "wrote" in err


def test_an_ascii_stdout_gets_the_text_escaped() -> None:
    env = {**os.environ, "LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"}
    done = subprocess.run([*SHELI, "text", "xiangshe:1"], capture_output=True, env=env)
    assert done.returncode == 0
    assert done.stdout.isascii() and "\\u9109\\u5c04" in done.stdout.decode("ascii")

"""What the start of ``sheli run`` leaves out, and leaves as it was (docs/benchmarks.md,
"Start-up with the walks checked as the run goes")."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

import sheli.place.model
from sheli.cli import main
from sheli.engine import run


@pytest.mark.slow  # a whole run of its own, under the patch
def test_the_run_makes_no_near_name_message(monkeypatch: pytest.MonkeyPatch) -> None:
    # the venue's message for an unknown name (with its near names) is made only for an
    # error; a run asks the venue whether it has a name, it does not provoke the error
    def refuse(*args: object, **kwargs: object) -> list[str]:
        raise AssertionError("a near-name message was made during the run")

    monkeypatch.setattr(sheli.place.model.difflib, "get_close_matches", refuse)
    assert len(run("xiangshe", seed=1).records) > 4000


@pytest.mark.slow  # a whole run of its own, the command's
def test_run_gives_the_collector_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    out = tmp_path / "log.jsonl"
    monkeypatch.setattr(
        sys, "argv", ["sheli", "run", "xiangshe", "--format", "jsonl", "-o", str(out)]
    )
    assert gc.isenabled()
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code == 0
    assert gc.isenabled()  # paused for the command, on again for a caller that goes on
    assert out.read_text(encoding="utf-8").count("\n") > 4000


FROZEN_AT_EXIT = """
import atexit, gc, sys
atexit.register(lambda: print("frozen", gc.get_freeze_count(), file=sys.stderr))
sys.argv = ["sheli", *sys.argv[1:]]
from sheli.cli import main
main()
"""


@pytest.mark.parametrize(
    ("args", "frozen"), [(["run", "xiangshe", "--format", "jsonl"], True), (["--help"], False)]
)
@pytest.mark.slow
def test_run_leaves_its_objects_out_of_the_last_collection(
    tmp_path: Path, args: list[str], frozen: bool
) -> None:
    # an exit function registered before the command's runs after it (last in, first out):
    # by then the objects `sheli run` left are frozen, out of Python's last collection
    out = tmp_path / "log.jsonl"
    extra = ["-o", str(out)] if args[0] == "run" else []
    done = subprocess.run(
        [sys.executable, "-c", FROZEN_AT_EXIT, *args, *extra], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    count = int(done.stderr.split("frozen ")[-1])
    assert (count > 10_000) is frozen, count
    if frozen:
        assert out.read_text(encoding="utf-8").count("\n") > 4000


QUICK = """
import atexit, sys
sys.argv = ["sheli", *sys.argv[1:]]
from sheli.cli import console
{before}
console()
"""


AS_THE_COMMAND_DOES = """
import sheli.cli
command = sheli.cli.main
def main():
    atexit.register(print, "ran", file=sys.stderr)
    command()
sheli.cli.main = main
"""


@pytest.mark.parametrize(
    ("args", "status", "said"),
    [
        (["run", "xiangshe", "--format", "jsonl"], 0, ""),
        (["run", "no-such-rite"], 2, "sheli run: "),
        (["score", "--outcomes", "/no/such/file.csv"], 2, "sheli score: /no/such/file.csv"),
        (["text", "import", "--remove", "no-such-edition"], 1, "Error: no imported edition"),
    ],
)
@pytest.mark.slow
def test_the_program_ends_with_the_status_python_gives(
    tmp_path: Path, args: list[str], status: int, said: str
) -> None:
    # the installed program ends with the status Python gives, its exit functions run (those
    # registered after it began, as the command's are, too)
    out = tmp_path / "log"
    code = QUICK.format(before=AS_THE_COMMAND_DOES)
    extra = ["-o", str(out)] if status == 0 else []
    done = subprocess.run(
        [sys.executable, "-c", code, *args, *extra], capture_output=True, text=True
    )
    assert done.returncode == status, done.stderr
    assert done.stderr.startswith(said) and done.stderr.endswith("ran\n"), done.stderr
    if status == 0:
        assert out.read_text(encoding="utf-8").count("\n") > 4000


LEFT_IN_THE_BUFFER = """
import sheli.cli
command = sheli.cli.main
def main():
    try:
        command()
    finally:  # written as the command ends (a fork flushes stdout before it: not now)
        sys.stdout.write("left in the buffer")
sheli.cli.main = main
"""


@pytest.mark.slow
def test_what_is_left_in_the_buffer_is_written_or_said(tmp_path: Path) -> None:
    # the output still buffered when the command ends is flushed by the program's own end:
    # to a file whole, and to a full device as the one line a full stdout gives
    code = QUICK.format(before=LEFT_IN_THE_BUFFER)
    argv = [sys.executable, "-c", code, "run", "xiangshe", "-o", str(tmp_path / "log")]
    kept = tmp_path / "stdout"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # (a buffer)
    with kept.open("w") as out:
        done = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert kept.read_text() == "left in the buffer"
    if not Path("/dev/full").exists():
        return
    with open("/dev/full", "w") as out:
        done = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE, text=True, env=env)
    assert done.returncode == 1
    assert done.stderr.endswith("steps)\nsheli: cannot write the output: No space left on device\n")

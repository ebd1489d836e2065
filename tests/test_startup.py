"""What the start of ``sheli run`` leaves out, and leaves as it was (docs/benchmarks.md,
"Start-up with the walks checked as the run goes")."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

import sheli.place.model
from sheli.cli import main
from sheli.engine import run


def test_the_run_makes_no_near_name_message(monkeypatch: pytest.MonkeyPatch) -> None:
    # the venue's message for an unknown name (with its near names) is made only for an
    # error; a run asks the venue whether it has a name, it does not provoke the error
    def refuse(*args: object, **kwargs: object) -> list[str]:
        raise AssertionError("a near-name message was made during the run")

    monkeypatch.setattr(sheli.place.model.difflib, "get_close_matches", refuse)
    assert len(run("xiangshe", seed=1).steps) > 4000


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

"""``sheli --help`` lists the commands from their summaries, without importing them."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from sheli.cli import COMMANDS, LazyGroup, cli, summary


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_summary_is_the_commands_own_help(name: str) -> None:
    command = LazyGroup._load(name)
    assert command is not None
    for limit in (30, 45, 80, 300):  # the widths of narrow and wide terminals
        assert summary(name).get_short_help_str(limit) == command.get_short_help_str(limit)


def test_help_lists_every_command() -> None:
    out = CliRunner().invoke(cli, ["--help"]).output
    listed = [line.split()[0] for line in out.split("Commands:")[1].splitlines() if line.strip()]
    assert listed == list(COMMANDS)


def test_help_imports_no_command() -> None:
    code = (
        "import sys\nfrom sheli.cli import main\nsys.argv = ['sheli', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('sheli.cli.', 'sheli.engine'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.splitlines()[-1] == "[]"

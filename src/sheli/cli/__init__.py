"""The ``sheli`` command.

Each subcommand lives in its own module of this package and is imported only when used,
so ``sheli score 19 14`` does not load the text layer or the engine.

>>> from click.testing import CliRunner
>>> CliRunner().invoke(cli, ["--version"]).output.startswith("sheli")
True
"""

from __future__ import annotations

import errno
import importlib
import os
import sys

import click

from sheli import __version__

# name → "module:attribute"; a module named here and not yet present is left out of --help.
COMMANDS: dict[str, str] = {
    "text": "sheli.cli.text:text",
    "search": "sheli.cli.text:search",
    "place": "sheli.cli.place:place",
    "score": "sheli.cli.score:score",
    "run": "sheli.cli.run:run",
    "coverage": "sheli.cli.coverage:coverage",
    "render": "sheli.cli.render:render",
    "cues": "sheli.cli.cues:cues",
    "params": "sheli.cli.params:params",
    "serve": "sheli.cli.serve:serve",
    "diff": "sheli.cli.diff:diff",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if self._load(name) is not None]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self._load(cmd_name)

    @staticmethod
    def _load(name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                return None
            raise
        return getattr(module, attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sheli")
def cli() -> None:
    """射禮: the archery rites of the 儀禮, executable."""


def main() -> None:
    try:
        cli()
    except OSError as exc:
        # click ends quietly when the reader of stdout goes away (sheli text | head -1); a
        # stdout that cannot take the output (>/dev/full) is said in one line, and what is
        # still buffered for it is dropped, or Python's flush at exit would fail again.
        _drop_stdout()
        if exc.errno == errno.EPIPE:
            sys.exit(1)
        where = f"{exc.filename}" if exc.filename else "cannot write the output"
        click.echo(f"sheli: {where}: {exc.strerror or exc}", err=True)
        sys.exit(1)


def _drop_stdout() -> None:
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):  # no stdout to speak of
        pass

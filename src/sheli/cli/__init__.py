"""The ``sheli`` command.

Each subcommand lives in its own module of this package and is imported only when used,
so ``sheli score 19 14`` does not load the text layer or the engine.

>>> from click.testing import CliRunner
>>> CliRunner().invoke(cli, ["--version"]).output.startswith("sheli")
True
"""

from __future__ import annotations

import atexit
import errno
import gc
import importlib
import importlib.util
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

# Each command's first paragraph of help, for ``sheli --help``: listing the commands then
# imports none of them (the engine behind ``run`` alone is a third of a second). A test
# keeps these equal to the commands' own help.
SUMMARIES: dict[str, str] = {
    "text": "Show passages of 經 and 記 with their section and commentary.",
    "search": "Find passages containing QUERY, in any form: traditional, simplified or variant.",
    "place": "Print the plan of a venue: each fixture's x (east) and y (north) in 尺, its source "
    "(passage id) or the assumption it rests on, then the parameters and default offsets.",
    "score": "Announce the count: RIGHT and LEFT are the 筭 of the right (上射) and left (下射), "
    "0 to 9999 each.",
    "run": "Run RITE (xiangshe, 鄉射禮 …, or a spec file) and print its 儀注 or its event log.",
    "coverage": "Report which passages of RITE's scope are enacted, by which steps, and why not.",
    "render": "Render RITE (xiangshe, 鄉射禮 …, or a spec file) as an HTML viewer in DIR.",
    "cues": "Cue sheets of RITE for each role, and the floor plan with taping measurements.",
    "params": "The archery by rank and occasion (周禮 射人, 司裘, 梓人; 射義; 鄉射記; 大射儀): "
    "耦, 侯 and 侯道, music and the 節 heard before the arrows, 中 and 旌 — "
    "each value with its source, and the readings where the sources disagree.",
    "serve": "Run the live event app: open the printed address in a browser and create an event.",
    "diff": "Compare two runs of RITE that differ by a reading, a venue or an option.",
}


class LazyGroup(click.Group):
    """A group whose commands are imported when one is run, not to list them in ``--help``."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name in COMMANDS if _present(name)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self._load(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click's own listing, but from SUMMARIES: getting each command would import it
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = [(n, summary(n).get_short_help_str(limit)) for n in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

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


def summary(name: str) -> click.Command:
    """A stand-in for command ``name`` with only its summary, to list it in ``--help``.

    >>> summary("run").get_short_help_str(40)
    'Run RITE (xiangshe, 鄉射禮 …, or a spec...'
    """
    return click.Command(name, help=SUMMARIES[name])


def _present(name: str) -> bool:
    """Whether the module of command ``name`` is there (found, not imported).

    >>> _present("run"), _present("nothing")
    (True, False)
    """
    target = COMMANDS.get(name)
    return target is not None and importlib.util.find_spec(target.split(":")[0]) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sheli")
def cli() -> None:
    """射禮: the archery rites of the 儀禮, executable."""


#: The commands whose whole process runs with Python's cyclic collector paused: they make
#: many small objects, in no cycle, from their start (the imports, the spec from the cache)
#: to their end, and the collector would only scan them again and again (the engine pauses
#: it for the run itself; docs/benchmarks.md, start-up). Not ``serve``, which runs for hours,
#: nor those that keep the whole run to draw or compare it.
PAUSE_GC = frozenset({"run"})


def main() -> None:
    paused = bool(sys.argv[1:2]) and sys.argv[1] in PAUSE_GC and gc.isenabled()
    if paused:
        gc.disable()
        # Python's last act, after the exit functions, is a full collection: it would go
        # through every object the command leaves (the spec, the venue, the text: a tenth
        # of the command's instructions) to find no cycle. Frozen at exit, they are left
        # out of it and freed as the modules go. Once, whoever calls main again.
        atexit.unregister(gc.freeze)
        atexit.register(gc.freeze)
    try:
        cli()
    except OSError as exc:
        # click ends quietly when the reader of stdout goes away (sheli text | head -1); a
        # stdout that cannot take the output (>/dev/full) is said in one line, and what is
        # still buffered for it is dropped, or Python's flush at exit would fail again.
        _drop_stdout()
        _output_failed(exc)
        sys.exit(1)
    finally:
        if paused:  # a caller that catches the command's SystemExit goes on as it was
            gc.enable()


#: The commands whose process ends as soon as they are done (the exit functions run, the
#: output flushed), without Python's teardown, which frees one by one every object the
#: command leaves: some 7 ms of a ``sheli run``, a quarter of a second of a render with 100
#: 衆耦 (docs/benchmarks.md, "The seventh sitting"). Not ``serve``, whose server ends its
#: own way.
QUICK_EXIT = frozenset(COMMANDS) - {"serve"}


def console() -> None:
    """The installed ``sheli`` program: :func:`main`, whose process, for a command of
    :data:`QUICK_EXIT`, ends with the status Python would give it but without its teardown
    (a caller that runs :func:`main` itself keeps its process). Python's exit functions run
    all the same: this one is registered first, so it is the last of them."""
    quick = bool(sys.argv[1:2]) and sys.argv[1] in QUICK_EXIT
    status = [1]  # an error that escapes main ends the process with 1, as Python would
    if quick:
        atexit.register(_end_now, status)
    try:
        main()
        status[0] = 0
    except SystemExit as exc:
        status[0] = exit_status(exc.code)
        raise


def exit_status(code: object) -> int:
    """The process's status for ``sys.exit(code)``, as Python gives it.

    >>> exit_status(None), exit_status(2), exit_status("sheli: bad input")
    (0, 2, 1)
    """
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def _end_now(status: list[int]) -> None:
    code = status[0]
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError as exc:
            # as :func:`main` says it, of what was still buffered
            if stream is sys.stdout:
                _output_failed(exc)
            code = code or 1
        except (ValueError, AttributeError):  # closed, or none to speak of
            pass
    os._exit(code)


def _output_failed(exc: OSError) -> None:
    """Say in one line that stdout could not take the output (>/dev/full); nothing when its
    reader went away (``sheli text | head -1``)."""
    if exc.errno == errno.EPIPE:
        return
    where = f"{exc.filename}" if exc.filename else "cannot write the output"
    try:
        click.echo(f"sheli: {where}: {exc.strerror or exc}", err=True)
    except (OSError, ValueError, AttributeError):  # no stderr to say it on
        pass


def _drop_stdout() -> None:
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):  # no stdout to speak of
        pass

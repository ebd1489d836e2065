"""The ``sheli`` command.

Each subcommand lives in its own module of this package and is imported only when used,
so ``sheli score 19 14`` does not load the text layer or the engine.

>>> from click.testing import CliRunner
>>> CliRunner().invoke(cli, ["--version"]).output.startswith("sheli")
True
"""

from __future__ import annotations

import codecs
import errno
import importlib
import importlib.util
import os
import signal
import sys

import click

from sheli import __version__, collector

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
#: it for the run itself; :mod:`sheli.collector`). Not ``serve``, which runs for hours, nor
#: those that keep the whole run to draw or compare it.
PAUSE_GC = frozenset({"run"})

#: The exit status of a command ended by a signal: 128 and its number, as a shell gives it
#: (^C 130, ``kill`` 143).
INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


def main() -> None:
    paused = bool(sys.argv[1:2]) and sys.argv[1] in PAUSE_GC and collector.enabled()
    if paused:
        collector.pause_to_the_end()
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
            collector.resume()


def console() -> None:
    """The installed ``sheli`` program (and ``python -m sheli``): :func:`main`, ended as
    Python ends a program (its exit functions, its flush, its teardown). Its own, not a
    caller's of :func:`main`: a signal ends it as :class:`Interrupted` says; what stdout's
    encoding cannot write is escaped; a stdout that cannot take what is still buffered at
    the end is said in one line, with status 1."""
    for signum in INTERRUPTS:
        signal.signal(signum, _interrupted)
    _outputs_in_any_locale()
    try:
        main()
    finally:
        try:
            sys.stdout.flush()
        except OSError as exc:
            _drop_stdout()
            _output_failed(exc)
            sys.exit(1)
        except (ValueError, AttributeError):  # closed, or none to speak of
            pass


def exit_status(code: object) -> int:
    """The process's status for ``sys.exit(code)``, as Python gives it.

    >>> exit_status(None), exit_status(2), exit_status("sheli: bad input")
    (0, 2, 1)
    """
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


class Interrupted(SystemExit):
    """A command ended by a signal (^C, ``kill``): its status is ``128 + signum``; what it
    was writing is removed on the way out (the ``finally`` of every writer), and nothing is
    said (no traceback, no click's ``Aborted!``).

    >>> Interrupted(signal.SIGTERM).code
    143
    """

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)


def _interrupted(signum: int, frame: object) -> None:
    # a second signal while the first unwinds is not raised again: the writers clean up
    for again in INTERRUPTS:
        signal.signal(again, signal.SIG_IGN)
    raise Interrupted(signum)


def _outputs_in_any_locale() -> None:
    """What stdout's encoding cannot write (a C locale, ``PYTHONIOENCODING=ascii``) is
    written escaped (``\\u5c04``), not an error."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        # (UTF-8 writes everything: left alone, as reconfiguring flushes the stream)
        if reconfigure is not None and codecs.lookup(stream.encoding).name != "utf-8":
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # (closed, or not a text stream of its own)
                pass


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

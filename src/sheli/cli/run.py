"""``sheli run RITE``: run a rite and print its 儀注, or write its event log.

A thin layer over :func:`sheli.engine.run`. User errors (a broken spec, a bad outcomes file, a
bad option) print one message naming the file, line, step and passage, and exit 2; nothing is
half-written (``-o`` writes atomically).

>>> from click.testing import CliRunner
>>> CliRunner().invoke(run, ["--help"]).exit_code
0
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import click

from sheli.cli._util import Command, lang_option, localize

if TYPE_CHECKING:
    # for the annotations only: the engine is imported when a command runs (start-up)
    from sheli.engine import Run


def _options(value: tuple[str, ...]) -> dict[str, Any] | None:
    if not value:
        return None  # PyYAML is imported only for a value to read
    import yaml

    out: dict[str, Any] = {}
    for item in value:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{item!r}: write NAME=VALUE (e.g. feast=false)")
        try:
            out[name.strip()] = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            msg = f"{item!r}: {raw!r} is not a value (true, false, a word)"
            raise click.BadParameter(msg) from None
    return out or None


def _keep(
    key: str, convert: Callable[[Any], Any] = lambda v: v
) -> Callable[[click.Context, click.Parameter, Any], None]:
    # The run's choices reach run_or_exit through the context, as keyword arguments of
    # sheli.engine.run, not as parameters of each command that shares run_options.
    def store(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        ctx.meta.setdefault(RUN_KEY, {})[key] = convert(value)

    return store


RUN_KEY = "sheli.run"


def _opt(*names: str, **kw: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    # not a parameter of the command: the callback keeps the value for run_or_exit
    return click.option(*names, expose_value=False, **kw)


def run_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options that choose a run, shared by ``sheli run``, ``render`` and ``cues``:
    the same options give the same run in all three (:func:`run_or_exit` runs it)."""
    for option in reversed(
        [
            _opt(
                "--venue",
                callback=_keep("venue"),
                help="xie (州序/榭, 物當棟), xiang (鄉庠, 物當楣), shegong (射宮) …; "
                "default from the spec, one of those the rite is held in",
            ),
            _opt(
                "--pairs",
                type=int,
                callback=_keep("pairs"),
                help="衆耦 beyond the 三耦 (at most 1000: the run checks it)",
            ),
            _opt(
                "--no-guests",
                is_flag=True,
                callback=_keep("guests", lambda v: False if v else None),
                help="賓、主人、大夫 do not shoot",
            ),
            _opt(
                "--dafu",
                type=int,
                callback=_keep("dafu"),
                help="how many 大夫 shoot (default 1, at most 50: the run checks it)",
            ),
            _opt(
                "--seed",
                type=int,
                callback=_keep("seed"),
                help="seed of the outcome model (default 0)",
            ),
            _opt(
                "--outcomes",
                type=click.Path(dir_okay=False),
                callback=_keep("outcomes"),
                help="recorded outcomes file (CSV, JSON or JSONL; see docs/scoring.md)",
            ),
            _opt(
                "--arrows-short",
                is_flag=True,
                callback=_keep("arrows_short", lambda v: True if v else None),
                help="矢不備: an arrow is missing at the first 取矢",
            ),
            _opt(
                "--reading",
                multiple=True,
                callback=_keep("readings", list),
                help="follow this reading where commentators differ (docs/readings.md); repeatable",
            ),
            _opt(
                "--option",
                multiple=True,
                callback=_keep("options", _options),
                metavar="NAME=VALUE",
                help="set one of the rite's options (its spec's params.options); repeatable",
            ),
        ]
    ):
        f = option(f)
    return f


def run_choices() -> dict[str, Any]:
    """What the current command's :func:`run_options` chose, as keywords of
    :func:`sheli.engine.run` (``venue``, ``pairs``, ``guests``, ``seed`` …; None = the spec's)."""
    return dict(click.get_current_context().meta.get(RUN_KEY, {}))


def run_or_exit(command: str, rite: str, sink: Callable[[Any], object] | None = None) -> Any:
    """Run RITE with the choices the :func:`run_options` of the current command collected. The
    engine checks them (:class:`sheli.engine.RunOptions`): a choice it refuses, like a broken
    spec or outcomes file, is a user error the command prints in one line and exits 2 on
    (:class:`sheli.cli._util.Command`). The run's warnings (an outcomes file's round-3 hit
    with no on_beat …) are printed, one a line. ``sink`` takes the records after the scene as
    they are made (:func:`sheli.engine.run`). The walks are checked in a process of their own
    where there is a CPU to spare (``walks_apart``): the same run, sooner."""
    from sheli.engine import run as run_rite
    from sheli.engine.walks import apart_possible

    result = run_rite(rite, **run_choices(), sink=sink, walks_apart=apart_possible())
    for warning in result.warnings:
        click.echo(f"sheli {command}: warning: {warning}", err=True)
    return result


@click.command("run", cls=Command)
@click.argument("rite", default="xiangshe")
@run_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["yizhu", "text", "jsonl"]),
    default="yizhu",
    show_default=True,
    help="yizhu (text): the readable 儀注; jsonl: the event log (docs/event-log.md)",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="write to FILE")
@lang_option
def run(rite: str, fmt: str, output: str | None, lang: str) -> None:
    """Run RITE (xiangshe, 鄉射禮 …, or a spec file) and print its 儀注 or its event log."""
    if fmt == "jsonl":
        try:
            _run_log(rite, output)
        except BrokenPipeError:
            sys.stderr.close()  # the reader stopped (sheli run | head): not an error
            sys.exit(0)
        return
    result = run_or_exit("run", rite)
    if lang != "zh-Hant":
        # localize: a file (-o) is not printed through the option's simplified stdout
        text = localize(_yizhu_text(result, width=120, lang=lang), lang)
    elif output is None and sys.stdout.isatty():
        _print_yizhu_tty(result)
        return
    else:
        text = _yizhu_text(result, width=120)
    try:
        _emit(text, output, _count_steps(result))
    except BrokenPipeError:
        # the reader stopped (sheli run | head): not an error
        sys.stderr.close()
        sys.exit(0)


def _run_log(rite: str, output: str | None) -> None:
    """The event log, written as the run makes it: its lines go to a temporary file and, once
    the run has ended without error, after the scene's line to stdout or the file (-o). A run
    that fails writes nothing; a log of any length is never held in memory."""
    import tempfile

    from sheli.outputs.eventlog import SpooledLog

    try:
        log = SpooledLog()
    except OSError as exc:
        where = tempfile.gettempdir()
        click.echo(f"sheli run: cannot write a temporary file in {where}: {exc.strerror}", err=True)
        sys.exit(2)
    with log:
        try:
            result = run_or_exit("run", rite, sink=log.add)
            lines = log.lines(result.records[0].to_json())
        except OSError as exc:
            if exc is not log.failed:
                raise
            where = tempfile.gettempdir()
            click.echo(f"sheli run: cannot write the log in {where}: {exc.strerror}", err=True)
            sys.exit(2)
        _emit_log(lines, output, log.steps)


def _emit_log(lines: Iterable[bytes], output: str | None, steps: int) -> None:
    """The event log's lines (bytes), written one piece at a time, never joined."""
    if output:
        from sheli.files import write_lines

        try:
            write_lines(output, lines)
        except OSError as exc:
            click.echo(f"sheli run: cannot write {output}: {exc.strerror}", err=True)
            sys.exit(2)
        click.echo(f"wrote {output} ({steps} steps)", err=True)
    else:
        sys.stdout.flush()
        out = sys.stdout.buffer
        for line in lines:  # write() each: not every stream copies writelines()
            out.write(line)
        out.flush()


def _count_steps(result: Any) -> int:
    """The run's steps, counted on its records (its ``steps`` would make every line's dict)."""
    from sheli.engine.records import Step

    return sum(type(r) is Step for r in result.records)


def _emit(text: str, output: str | None, steps: int) -> None:
    if output:
        from sheli.files import write_text

        try:
            write_text(output, text)
        except OSError as exc:
            click.echo(f"sheli run: cannot write {output}: {exc.strerror}", err=True)
            sys.exit(2)
        click.echo(f"wrote {output} ({steps} steps)", err=True)
    else:
        click.echo(text, nl=False)


def _yizhu_text(result: Run, width: int | None, lang: str = "zh-Hant") -> str:
    """The 儀注 as plain text (for files and pipes); in English for ``lang`` en."""
    if lang == "en":
        # only here: the English 儀注 shares the cue sheets' terms, and with them the
        # drawing's imports (pydantic, Babel), which the Chinese 儀注 does without
        from sheli.outputs.cues import known_assumptions
        from sheli.outputs.english import english_yizhu_text

        return english_yizhu_text(
            result.records,
            topics=_topics_english(result),
            drank=result.drank,
            assumptions=result.assumptions,
            width=width or 120,
            known=known_assumptions(result),
        )
    from sheli.outputs.yizhu import yizhu_text

    return yizhu_text(
        result,
        topics=_topics(result),
        drank=result.drank,
        assumptions=result.assumptions,
        width=width or 120,
    )


def _topics(result: Run) -> Callable[[int], str]:
    from functools import partial

    from sheli.engine.env import section_topic

    return partial(section_topic, result.spec.spec.chapter)


def _topics_english(result: Run) -> Callable[[int], str]:
    """賈疏's topic of each section in sheli's English, the text's topic after it in brackets
    (where sheli has no English, the text's topic alone)."""
    from sheli.text.english import section_english

    chapter = result.spec.spec.chapter
    topic = _topics(result)

    def one(n: int) -> str:
        zh = topic(n)
        en = section_english(chapter, n)
        return f"{en} ({zh})" if en and zh else zh

    return one


def _print_yizhu_tty(result: Run) -> None:
    """The 儀注 in colour on the terminal."""
    from rich.console import Console

    from sheli.outputs.yizhu import print_yizhu

    print_yizhu(
        result,
        Console(highlight=False),
        topics=_topics(result),
        drank=result.drank,
        assumptions=result.assumptions,
    )

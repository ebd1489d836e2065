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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click


def _venue(value: str | None) -> str | None:
    from sheli.engine import VENUES

    if value is None:
        return None
    if value not in VENUES:
        from sheli.place.loader import VENUES as titles

        known = ", ".join(f"{k} ({t})" for k, t in titles.items())
        raise click.BadParameter(f"{value!r}: the venues are {known}")
    return VENUES[value]


def _options(value: tuple[str, ...]) -> dict[str, Any] | None:
    import yaml

    out: dict[str, Any] = {}
    for item in value:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{item!r}: write NAME=VALUE (e.g. feast=false)")
        out[name.strip()] = yaml.safe_load(raw) if raw.strip() else ""
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
                callback=_keep("venue", _venue),
                help="xie (州序/榭, 物當棟), xiang (鄉庠, 物當楣), shegong (射宮) …; "
                "default from the spec",
            ),
            _opt(
                "--pairs",
                type=click.IntRange(min=0),
                callback=_keep("pairs"),
                help="衆耦 beyond the 三耦",
            ),
            _opt(
                "--no-guests",
                is_flag=True,
                callback=_keep("guests", lambda v: False if v else None),
                help="賓、主人、大夫 do not shoot",
            ),
            _opt(
                "--dafu",
                type=click.IntRange(min=0),
                callback=_keep("dafu"),
                help="how many 大夫 shoot (default 1)",
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


def run_or_exit(command: str, rite: str) -> Any:
    """Run RITE with the choices the :func:`run_options` of the current command collected; on
    a broken spec or outcomes file print ``sheli COMMAND: <the error, with file, line and
    passage>`` and exit 2."""
    from sheli.engine import run as run_rite
    from sheli.rite.loader import SpecError
    from sheli.scoring import OutcomesError

    try:
        return run_rite(rite, **run_choices())
    except (SpecError, OutcomesError) as exc:
        click.echo(f"sheli {command}: {exc}", err=True)
        sys.exit(2)


@click.command("run")
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
def run(rite: str, fmt: str, output: str | None) -> None:
    """Run RITE (xiangshe, 鄉射禮 …, or a spec file) and print its 儀注 or its event log."""
    result = run_or_exit("run", rite)
    for warning in result.warnings:
        click.echo(f"sheli run: warning: {warning}", err=True)
    if fmt == "jsonl":
        from sheli.outputs.eventlog import to_jsonl

        text = to_jsonl(result.events)
    elif output is None and sys.stdout.isatty():
        _print_yizhu_tty(result)
        return
    else:
        text = _yizhu_text(result, width=120)
    try:
        _emit(text, output, len(result.steps))
    except BrokenPipeError:
        # the reader stopped (sheli run | head): not an error
        sys.stderr.close()
        sys.exit(0)


def _emit(text: str, output: str | None, steps: int) -> None:
    if output:
        from sheli.outputs.eventlog import write_atomic

        try:
            write_atomic(Path(output), text)
        except OSError as exc:
            click.echo(f"sheli run: cannot write {output}: {exc.strerror}", err=True)
            sys.exit(2)
        click.echo(f"wrote {output} ({steps} steps)", err=True)
    else:
        click.echo(text, nl=False)


def _yizhu_text(result: object, width: int | None) -> str:
    """The 儀注 as plain text (for files and pipes)."""
    from sheli.outputs.yizhu import yizhu_text

    return yizhu_text(
        result.events,  # type: ignore[attr-defined]
        topics=_topics(result),
        drank=result.drank,  # type: ignore[attr-defined]
        assumptions=result.assumptions,  # type: ignore[attr-defined]
        width=width or 120,
    )


def _topics(result: object) -> Callable[[int], str]:
    from functools import partial

    from sheli.engine.env import section_topic

    return partial(section_topic, result.spec.spec.chapter)  # type: ignore[attr-defined]


def _print_yizhu_tty(result: object) -> None:
    """The 儀注 in colour on the terminal."""
    from rich.console import Console

    from sheli.outputs.yizhu import print_yizhu

    print_yizhu(
        result.events,  # type: ignore[attr-defined]
        Console(highlight=False),
        topics=_topics(result),
        drank=result.drank,  # type: ignore[attr-defined]
        assumptions=result.assumptions,  # type: ignore[attr-defined]
    )

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


def _venue(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from sheli.engine import VENUES

    if value is None:
        return None
    if value not in VENUES:
        from sheli.place.loader import VENUES as titles

        known = ", ".join(f"{k} ({t})" for k, t in titles.items())
        raise click.BadParameter(f"{value!r}: the venues are {known}")
    return VENUES[value]


def _meta(key: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    # --reading and --option reach run_or_exit through the context, not as arguments: the
    # commands that share run_options keep their signatures.
    def store(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        ctx.meta[f"sheli.{key}"] = value

    return store


def _options(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> None:
    import yaml

    out: dict[str, Any] = {}
    for item in value:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise click.BadParameter(f"{item!r}: write NAME=VALUE (e.g. feast=false)")
        out[name.strip()] = yaml.safe_load(raw) if raw.strip() else ""
    ctx.meta["sheli.options"] = out


def run_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """The options that choose a run, shared by ``sheli run``, ``render`` and ``cues``:
    the same options give the same run in all three."""
    for option in reversed(
        [
            click.option(
                "--venue",
                callback=_venue,
                help="xie (州序/榭, 物當棟) or xiang (鄉庠, 物當楣); default from the spec",
            ),
            click.option("--pairs", type=click.IntRange(min=0), help="衆耦 beyond the 三耦"),
            click.option("--no-guests", is_flag=True, help="賓、主人、大夫 do not shoot"),
            click.option(
                "--dafu", type=click.IntRange(min=0), help="how many 大夫 shoot (default 1)"
            ),
            click.option("--seed", type=int, help="seed of the outcome model (default 0)"),
            click.option(
                "--outcomes",
                type=click.Path(dir_okay=False),
                help="recorded outcomes file (CSV, JSON or JSONL; see docs/scoring.md)",
            ),
            click.option(
                "--arrows-short", is_flag=True, help="矢不備: an arrow is missing at the first 取矢"
            ),
            click.option(
                "--reading",
                multiple=True,
                expose_value=False,
                callback=_meta("readings"),
                help="follow this reading where commentators differ (docs/readings.md); repeatable",
            ),
            click.option(
                "--option",
                multiple=True,
                expose_value=False,
                callback=_options,
                metavar="NAME=VALUE",
                help="set one of the rite's options (its spec's params.options); repeatable",
            ),
        ]
    ):
        f = option(f)
    return f


def run_or_exit(
    command: str,
    rite: str,
    venue: str | None,
    pairs: int | None,
    no_guests: bool,
    dafu: int | None,
    seed: int | None,
    outcomes: str | None,
    arrows_short: bool,
) -> Any:
    """Run the rite the :func:`run_options` chose; on a broken spec or outcomes file print
    ``sheli COMMAND: <the error, with file, line and passage>`` and exit 2."""
    from sheli.engine import run as run_rite
    from sheli.rite.loader import SpecError
    from sheli.scoring import OutcomesError

    meta = click.get_current_context().meta
    try:
        return run_rite(
            rite,
            readings=list(meta.get("sheli.readings") or ()),
            options=meta.get("sheli.options") or None,
            venue=venue,
            pairs=pairs,
            guests=False if no_guests else None,
            seed=seed,
            outcomes=outcomes,
            arrows_short=True if arrows_short else None,
            dafu=dafu,
        )
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
def run(
    rite: str,
    venue: str | None,
    pairs: int | None,
    no_guests: bool,
    dafu: int | None,
    seed: int | None,
    outcomes: str | None,
    arrows_short: bool,
    fmt: str,
    output: str | None,
) -> None:
    """Run RITE (xiangshe, 鄉射禮 …, or a spec file) and print its 儀注 or its event log."""
    result = run_or_exit("run", rite, venue, pairs, no_guests, dafu, seed, outcomes, arrows_short)
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
    from sheli.text import load_chapter

    chapter = load_chapter(result.spec.spec.chapter)  # type: ignore[attr-defined]

    def topic(n: int) -> str:
        try:
            return chapter.section(n).topic
        except KeyError:
            return ""

    return topic


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

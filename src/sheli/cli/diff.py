"""``sheli diff RITE``: two runs of one rite compared step by step (sheli.outputs.diff).

Run B takes the options given (``--reading``, ``--venue``, ``--option``, ``--seed`` … as for
``sheli run``); run A is the same rite with the same outcomes (seed, pairs, guests) but the
spec's own readings, venue and options. ``--a '…'`` and ``--b '…'`` give both runs' options
explicitly. The report lists the steps where position, facing, order, actor, holds, words or
tally differ, with the sources of the readings that set the runs apart; ``--json`` for
programs. The exit status is 0 whether or not they differ.

>>> from click.testing import CliRunner
>>> res = CliRunner().invoke(diff, ["yanshe", "--reading", "R-jun-yue-ao"])
>>> res.exit_code, "R-jun-yue-ao" in res.output
(0, True)
"""

from __future__ import annotations

import json
import shlex
from typing import Any

import click

from sheli.cli._util import Command, report_console
from sheli.cli.run import run_choices, run_options

#: What run A keeps of run B's choices when only B's are given: the outcomes, not the reading.
SHARED = ("seed", "outcomes", "pairs", "guests", "dafu", "arrows_short")


@click.command("_choices", add_help_option=False)
@run_options
def _choices() -> dict[str, Any]:
    return run_choices()


def _parse(text: str, which: str) -> dict[str, Any]:
    try:
        return _choices.main(args=shlex.split(text), standalone_mode=False)
    except (click.ClickException, ValueError) as exc:
        msg = exc.format_message() if isinstance(exc, click.ClickException) else str(exc)
        raise click.BadParameter(f"{text!r}: {msg}", param_hint=f"--{which}") from None


def run_with(rite: str, choices: dict[str, Any]) -> Any:
    """Run RITE with ``choices`` (keywords of :func:`sheli.engine.run`); a broken spec or
    outcomes file, or a choice the rite refuses, is a user error the command reports
    (:class:`sheli.cli._util.Command`). The walks are checked apart where there is a CPU to
    spare, as by ``run_or_exit``."""
    from sheli.engine import run as run_rite
    from sheli.engine.walks import apart_possible

    return run_rite(rite, **choices, walks_apart=apart_possible())


def pair_choices(
    given: dict[str, Any], a_opts: str | None, b_opts: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run A's and run B's choices: with neither ``--a`` nor ``--b``, B the options given and
    A the same outcomes on the spec's own readings, venue and options; else each parsed from
    its ``'OPTIONS'`` (the options given for the one not given).

    >>> pair_choices({"seed": 3, "readings": ["R-x"]}, None, None)
    ({'seed': 3}, {'seed': 3, 'readings': ['R-x']})
    """
    if a_opts is None and b_opts is None:
        return {k: v for k, v in given.items() if k in SHARED}, given
    a_choices = _parse(a_opts, "a") if a_opts is not None else given
    b_choices = _parse(b_opts, "b") if b_opts is not None else given
    return a_choices, b_choices


@click.command("diff", cls=Command)
@click.argument("rite")
@run_options
@click.option("--a", "a_opts", metavar="'OPTIONS'", help="run A's options, e.g. '--reading R-x'")
@click.option("--b", "b_opts", metavar="'OPTIONS'", help="run B's options (default: those given)")
@click.option("--json", "as_json", is_flag=True, help="the comparison as JSON, for programs")
@click.option("--limit", type=click.IntRange(min=0), default=60, help="rows shown (0: all)")
def diff(rite: str, a_opts: str | None, b_opts: str | None, as_json: bool, limit: int) -> None:
    """Compare two runs of RITE that differ by a reading, a venue or an option."""
    from sheli.outputs.diff import diff_runs

    a_choices, b_choices = pair_choices(run_choices(), a_opts, b_opts)
    report = diff_runs(run_with(rite, a_choices), run_with(rite, b_choices))
    if as_json:
        click.echo(json.dumps(report.as_dict(), ensure_ascii=False, indent=1))
        return

    from rich.table import Table

    console, tty = report_console()
    for name, setting in (("A", report.a), ("B", report.b)):
        opts = ", ".join(f"{k}={v}" for k, v in setting["options"].items())
        console.print(
            f"{name}: {report.rite} venue {setting['venue']}; readings "
            f"{', '.join(setting['readings']) or '—'}; options {opts or '—'}"
        )
    for r in report.readings:
        console.print(
            f"  [{r['run'].upper()}] {r['id']} ({r['group']}): {' '.join(r['text'].split())}"
        )
        for src in r["sources"]:
            console.print(f"      source: {src}")
    table = Table(title=f"{report.rite}: where the runs differ", show_lines=False)
    for col in ("kind", "passage", "A", "B", "what"):
        table.add_column(col, overflow="fold")
    rows = report.items if limit == 0 else report.items[:limit]
    for d in rows:
        table.add_row(
            d.kind,
            d.cite,
            str(d.a["seq"]) if d.a and "seq" in d.a else "—",
            str(d.b["seq"]) if d.b and "seq" in d.b else "—",
            d.what,
        )
    console.print(table)
    if len(rows) < len(report.items):
        console.print(f"… {len(report.items) - len(rows)} more (--limit 0 shows all)")
    counts = ", ".join(f"{k} {n}" for k, n in report.counts().items()) or "none"
    console.print(
        f"steps: A {report.steps[0]}, B {report.steps[1]}; differences: {counts}; "
        f"passages: {len(report.cites())}"
    )
    click.echo(console.export_text(styles=tty), nl=False)

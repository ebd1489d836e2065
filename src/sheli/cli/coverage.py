"""``sheli coverage RITE``: which passages in scope a spec enacts, by which steps, and why not.

The last line is the share enacted (by a step or by a rule): ``coverage: 97.3%``.

>>> from click.testing import CliRunner
>>> CliRunner().invoke(coverage, ["--help"]).exit_code
0
"""

from __future__ import annotations

import json

import click

from sheli.cli._util import Command, lang_option, report_console
from sheli.i18n import tr
from sheli.text.english import english as passage_english

STATUS = {"step": "enacted", "rule": "rule", "uncovered": "not enacted", "gap": "GAP"}


@click.command("coverage", cls=Command)
@click.argument("rite", default="xiangshe")
@click.option("--json", "as_json", is_flag=True, help="the report as JSON, for machines")
@click.option("--gaps", is_flag=True, help="list only the gaps (no step, no rule, no reason)")
@lang_option
def coverage(rite: str, as_json: bool, gaps: bool, lang: str) -> None:
    """Report which passages of RITE's scope are enacted, by which steps, and why not."""
    from sheli.engine.coverage import coverage as build
    from sheli.outputs.english import gloss  # deferred: the outputs layer loads rich

    report = build(rite)
    if as_json:
        click.echo(json.dumps(report.as_dict(), ensure_ascii=False, indent=1))
        return

    from rich.table import Table

    console, tty = report_console()
    title = tr("{rite}: coverage of the text").format(rite=report.rite)
    table = Table(title=title, show_lines=False)
    for col in (tr("passage"), tr("status"), tr("by"), tr("text")):
        table.add_column(col, overflow="fold")
    for p in report.passages:
        if gaps and p.status != "gap":
            continue
        if p.status == "step":
            by = ", ".join(f"L{s['line']} {s['verb']}" for s in p.steps[:4])
            if len(p.steps) > 4:
                by += f" … (+{len(p.steps) - 4})"
            if p.chars < 0.999:
                by += f" [{p.chars:.0%} of its words]"
        elif p.status == "rule":
            by = f"rule: {p.rule}"
        elif p.status == "uncovered":
            by = f"reason: {p.reason}"
        else:
            by = "no step and no stated reason"
        style = {"gap": "bold red", "uncovered": "yellow", "rule": "cyan"}.get(p.status)
        text = p.text if len(p.text) <= 30 else p.text[:29] + "…"
        if lang == "en":
            # the passage in sheli's translation, the text in brackets
            t = passage_english(f"{report.chapter}:{p.n}")
            by = f"({by})" if by and p.status == "step" else gloss(by)
            text = (f"{t.text} " if t else "") + f"({text})"
        table.add_row(f"{report.chapter}:{p.n}", STATUS[p.status], by, text, style=style)
    console.print(table)
    counts = ", ".join(
        f"{STATUS[s]} {report.count(s)}" for s in ("step", "rule", "uncovered", "gap")
    )
    console.print(tr("{n} passages: {counts}").format(n=len(report.passages), counts=counts))
    console.print(tr("coverage: {share:.1f}%").format(share=report.share * 100))
    click.echo(console.export_text(styles=tty), nl=False)

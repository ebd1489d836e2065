"""``sheli text import FILE``: bring a Kanripo edition's commentary in beside our passages.

>>> from click.testing import CliRunner
>>> r = CliRunner().invoke(import_cmd, ["/nonexistent.txt"])
>>> r.exit_code, "No such file" in r.output
(2, True)
"""

from __future__ import annotations

import json
from typing import Any, cast

import click

from sheli.cli._util import Command


@click.command("import", cls=Command)
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--edition", "edition", help="Name to store it under (default: from the file's ID).")
@click.option(
    "--chapter",
    type=click.Choice(["xiangshe", "yan", "dashe"]),
    help="The chapter the file holds (default: detected).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace the edition's chapter even with a file that anchors fewer passages.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--list", "list_", is_flag=True, help="List the imported editions.")
@click.option("--remove", metavar="NAME", help="Remove an imported edition.")
def import_cmd(
    file: str | None,
    edition: str | None,
    chapter: str | None,
    force: bool,
    as_json: bool,
    list_: bool,
    remove: str | None,
) -> None:
    """Import FILE, a Kanripo edition (注疏, 鄭注, 單疏, 集釋, 儀禮圖, 義疏) of 鄉射禮,
    燕禮 or 大射儀: align it to our passages and keep its commentary for `sheli text`."""
    from rich.console import Console
    from rich.table import Table

    from sheli.text import editions

    console = Console()
    if list_:
        rows = editions.list_editions()
        if as_json:
            click.echo(json.dumps(rows, ensure_ascii=False, indent=1))
            return
        if not rows:
            console.print(f"No edition imported yet (store: {editions.store_dir()}).")
            return
        t = Table("edition", "format", "chapter", "anchored", "notes")
        for r in rows:
            chapters = cast("dict[str, Any]", r["chapters"])
            for ch, c in chapters.items():
                t.add_row(
                    str(r["edition"]),
                    str(r["format"]),
                    ch,
                    f"{c['anchored']}/{c['passages']}",
                    str(c["notes"]),
                )
        console.print(t)
        return
    if remove:
        # a read-only store raises ImportFailed, a SheliError: one line, exit 2 (Command)
        removed = editions.remove_edition(remove)
        if not removed:
            raise click.ClickException(f"no imported edition named {remove!r} (see --list)")
        console.print(f"Removed {remove}.")
        return
    if not file:
        raise click.UsageError("give a FILE to import, or --list, or --remove NAME")
    report = editions.import_edition(file, edition=edition, chapter=chapter, force=force)
    if as_json:
        click.echo(json.dumps(report.as_dict(), ensure_ascii=False, indent=1))
        return
    from sheli.text.kanripo import FORMAT_NAMES

    console.print(f"[bold]{report.file}[/bold]")
    console.print(f"  format    {FORMAT_NAMES.get(report.format, report.format)}")
    console.print(f"  chapter   {report.chapter}")
    console.print(f"  edition   {report.edition}")
    console.print(
        f"  anchored  {report.anchored} of {report.passages} passages  "
        + ", ".join(f"{k} {v}" for k, v in sorted(report.methods.items()))
    )
    console.print(
        f"  not anchored  {len(report.unanchored)}"
        + (f": {' '.join(report.unanchored)}" if report.unanchored else "")
    )
    console.print(f"  notes     {report.notes}")
    if report.format == "shu":
        console.print(
            f"  單疏 paragraphs placed by order only {report.placed_by_order}, "
            f"unplaced {report.unplaced}"
        )
    console.print(f"  seconds   {report.seconds}")

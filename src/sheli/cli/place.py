"""``sheli place``: the plan of a venue as a ledger — every fixture, where, and why.

>>> from click.testing import CliRunner
>>> out = CliRunner().invoke(place, ["--venue", "xie", "--json"]).output
>>> import json; json.loads(out)["venue"]
'xie'
"""

from __future__ import annotations

import json

import click

from sheli.cli._util import Command, lang_option
from sheli.i18n import tr


def _fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".") if v != int(v) else f"{int(v)}"


@click.command("place", cls=Command)
@click.option(
    "--venue",
    "venue_name",
    default="xie",
    show_default=True,
    help="xie (州序/榭, no 室) or xiang (鄉庠); 序, 榭, 州序, 庠, 鄉庠 also accepted.",
)
@click.option("--metres", is_flag=True, help="Add the coordinates in metres.")
@click.option("--json", "as_json", is_flag=True, help="Print the ledger as JSON.")
@click.option("--point", "what", default=None, help="Describe one fixture only.")
@click.option(
    "--sketch",
    type=click.Choice(["hall", "court"]),
    default=None,
    help="Draw the plan as text instead: hall (堂 and near 庭, 2 尺 a cell) or court (to the 門).",
)
@click.option(
    "--bodies",
    is_flag=True,
    help="Print the bodies model instead: footprint, spacing, offsets, formations, the text's "
    "placements and the roles that are several people, each with its source (docs/place.md).",
)
@lang_option
def place(
    venue_name: str,
    metres: bool,
    as_json: bool,
    what: str | None,
    sketch: str | None,
    bodies: bool,
    lang: str,
) -> None:
    """Print the plan of a venue: each fixture's x (east) and y (north) in 尺, its source
    (passage id) or the assumption it rests on, then the parameters and default offsets."""
    if bodies:
        _print_bodies(as_json)
        return
    # imported here, not with the module: ``sheli --help`` loads every command, and reading
    # the venues is not needed for that
    from rich.console import Console
    from rich.table import Table

    from sheli.outputs.english import gloss, label  # deferred: the outputs layer loads rich
    from sheli.place import load_venue

    venue = load_venue(venue_name)
    rows = venue.ledger()
    if what is not None:
        f = venue.fixture(what)
        rows = [r for r in rows if r.name == f.name]

    if sketch is not None:
        from sheli.place.sketch import sketch as draw

        click.echo(draw(venue, sketch))
        return

    mpc = venue.metre_per_chi.value
    if as_json:
        out = {
            "venue": venue.key,
            "title": venue.title,
            "unit": "尺",
            "axes": "x east, y north; origin the middle of the 堂廉",
            "metre_per_chi": {"value": mpc, "assumption": venue.metre_per_chi.assumption},
            "fixtures": [r.as_dict(mpc if metres else None) for r in rows],
            "params": [
                {
                    "name": p.name,
                    "value": p.value,
                    "rule": p.rule,
                    "source": p.source,
                    "assumption": p.assumption,
                }
                for p in [*venue.params.values(), *venue.offsets.values()]
            ],
            "hou": venue.hou,
            "objects": venue.objects,
        }
        click.echo(json.dumps(out, ensure_ascii=False, indent=1))
        return

    # in English a source, an assumption or a note has each term glossed (docs/i18n.md)
    en = gloss if lang == "en" else str
    chi = "chi" if lang == "en" else "尺"
    console = Console()
    table = Table(
        title=tr("{title} ({key}) — 尺, x 東 y 北, origin 堂廉之中").format(
            title=venue.title, key=venue.key
        ),
        show_lines=False,
        expand=False,
    )
    table.add_column("name", no_wrap=True)
    table.add_column(f"x {chi}", justify="right")
    table.add_column(f"y {chi}", justify="right")
    if metres:
        table.add_column("x m", justify="right")
        table.add_column("y m", justify="right")
    table.add_column("source / assumption", overflow="fold")
    for r in rows:
        why = en(r.source)
        if r.assumption:
            why = (
                f"{why}\n[yellow]assumed:[/] {en(r.assumed)}"
                if why
                else f"[yellow]assumed:[/] {en(r.assumed)}"
            )
        if r.note:
            why += f"\n[dim]{en(r.note)}[/]"
        cells = [
            label(r.name, "places", "objects") if lang == "en" else r.name,
            _fmt(r.x),
            _fmt(r.y),
        ]
        if metres:
            cells += [f"{r.x * mpc:.2f}", f"{r.y * mpc:.2f}"]
        table.add_row(*cells, why)
    console.print(table)
    if what is not None:
        return

    pt = Table(title="parameters and default offsets", expand=False)
    pt.add_column("name", no_wrap=True)
    pt.add_column("value", justify="right")
    pt.add_column("rule", overflow="fold")
    pt.add_column("source / assumption", overflow="fold")
    for p in [*venue.params.values(), *venue.offsets.values()]:
        why = en(p.source) if p.source else f"[yellow]assumed:[/] {en(p.assumption)}"
        pt.add_row(en(p.name), _fmt(p.value), en(p.rule), why)
    one = "1 chi (尺)" if lang == "en" else "1 尺"
    pt.add_row(one, f"{mpc} m", "", f"[yellow]assumed:[/] {en(venue.metre_per_chi.assumption)}")
    console.print(pt)

    if venue.hou:
        ht = Table(title=en("侯 in elevation, from the ground up (尺)"), expand=False)
        ht.add_column("band", no_wrap=True)
        ht.add_column("width", justify="right")
        ht.add_column("height", justify="right")
        ht.add_column("note", overflow="fold")
        ht.add_row("(下綱)", "", _fmt(venue.hou["下綱高"]), en("下綱不及地武 (xiangshe:10)"))
        for b in venue.hou["bands"]:
            ht.add_row(en(b["name"]), _fmt(b["width"]), _fmt(b["height"]), en(b["note"]))
        console.print(ht)
        console.print(f"[dim]{en(venue.hou['source'])}[/]")


def _print_bodies(as_json: bool) -> None:
    """The bodies ledger: every value of ``sheli/place/bodies.yaml`` with its source."""
    from rich.console import Console
    from rich.table import Table

    from sheli.place.bodies import load_bodies

    rows = load_bodies().ledger
    if as_json:
        out = [{"name": n, "value": v, "source": src} for n, v, src in rows]
        click.echo(json.dumps({"unit": "尺", "bodies": out}, ensure_ascii=False, indent=1))
        return
    table = Table(title="bodies — 尺 (sheli/place/bodies.yaml)", expand=False)
    table.add_column("name", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_column("source / assumption", overflow="fold")
    for n, v, src in rows:
        if src.startswith("assumption: "):
            src = f"[yellow]assumed:[/] {src[len('assumption: ') :]}"
        table.add_row(n, v, src)
    Console().print(table)

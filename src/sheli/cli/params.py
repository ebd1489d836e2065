"""``sheli params``: the archery by rank and occasion, every value with its source.

    sheli params                                  # the whole table
    sheli params --rank 諸侯 --occasion 大射       # one cell
    sheli params --reading dashe-can.ao-jigong    # 敖繼公's 參侯 instead of 鄭玄's 糝侯
    sheli params --json                           # for machines
    sheli params --target 諸侯/大射 --svg hou.svg  # the three 侯 to scale

>>> from click.testing import CliRunner
>>> import json
>>> out = CliRunner().invoke(params, ["--rank", "王", "--occasion", "大射", "--json"]).output
>>> json.loads(out)["cells"][0]["values"]["耦"]["value"]
6
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from sheli.cli._util import Command, lang_option
from sheli.files import write_text
from sheli.i18n import current, tr

if TYPE_CHECKING:
    # imported where used: the table's models (pydantic) and rich cost a sixth of a second,
    # which ``sheli --help`` (it loads every command) should not pay
    from sheli.rite.ranks import Cell, RankTable, Resolved


def _fail(message: str) -> None:
    click.echo(f"Error: {message}", err=True)
    sys.exit(2)


def _show(r: Resolved) -> str:
    if current() == "en":
        return f"({_show_zh(r)})" if any(ord(c) > 0x2E80 for c in _show_zh(r)) else _show_zh(r)
    return _show_zh(r)


def _show_zh(r: Resolved) -> str:
    v = r.value
    if r.field == "侯":
        parts = []
        for h in v:
            dao = f"{h.道}弓" if h.道 is not None else "道?"
            extra = " ".join(x for x in (h.質, h.飾) if x)
            parts.append(f"{h.名} {dao} {h.的}" + (f" ({extra})" if extra else ""))
        return "\n".join(parts)
    if r.field == "樂":
        return f"{v.詩} {v.節}節, {v.聽}節先以聽"
    return str(v)


def _label(name: str) -> str:
    """A rank, occasion or field: in English with the text's word in brackets (``--lang en``)."""
    if current() != "en":
        return name
    from sheli.outputs.english import label  # deferred: the outputs layer loads rich

    return label(name)


def _gloss(text: str) -> str:
    """A source or a note: in English with each term glossed and kept in brackets."""
    if current() != "en":
        return text
    from sheli.outputs.english import gloss  # deferred: the outputs layer loads rich

    return gloss(text)


def _print_table(table: RankTable, cells: list[Cell], chosen: list[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    grid = Table(title=tr("射: rank × occasion"), show_lines=True)
    for col in (tr("rank"), tr("occasion"), "", tr("value"), tr("reading"), tr("source")):
        grid.add_column(col, overflow="fold")
    for c in cells:
        if c.absent is not None:
            grid.add_row(
                _label(c.rank),
                _label(c.occasion),
                "—",
                _gloss(c.absent.note or ""),
                "",
                _gloss("\n".join(c.absent.source)),
            )
            continue
        first = True
        for name, r in c.values.items():
            reading = ""
            if r.readings:
                reading = r.reading + ("" if r.default else " *") if r.reading else ""
            grid.add_row(
                _label(c.rank) if first else "",
                _label(c.occasion) if first else "",
                _label(name),
                _show(r),
                reading,
                _gloss("\n".join(r.source) + (f"\nnote: {r.note}" if r.note else "")),
            )
            first = False
    console.print(grid)
    console.print(
        f"readings: {', '.join(chosen)}  (* = not the default; "
        f"others: {', '.join(x for x in table.reading_ids() if x not in chosen)})"
    )


def _print_five(five: dict[str, Any]) -> None:
    """The 五射 and 五物 tables, in English (the data's ``*_en`` fields, terms in brackets)
    under ``--lang en``."""
    from rich.console import Console
    from rich.table import Table

    en = current() == "en"

    def tr(item: dict[str, Any], key: str) -> str:
        return _gloss(str(item.get(f"{key}_en") or item[key])) if en else str(item[key])

    console = Console()
    wushe, wuwu = five["五射"], five["五物"]
    title = "the five shootings (五射)" if en else "五射"
    grid = Table(title=f"{title} ({_gloss(wushe['source'])}: {tr(wushe, 'text')})", show_lines=True)
    head = ("射", "definition", "source", "judged from")
    for col in ("shooting (射)", *head[1:]) if en else head:
        grid.add_column(col, overflow="fold")
    for i in wushe["items"]:
        name = _label(i["name"])
        grid.add_row(name, tr(i, "definition"), _gloss(i["source"]), tr(i, "judged_from"))
    console.print(grid)
    console.print(f"named by {tr(wushe, 'named_by')}; {tr(wushe, 'caveat')}")
    title = "the five things asked of the multitude (五物)" if en else "五物"
    grid = Table(title=f"{title} ({_gloss(wuwu['source'])})", show_lines=True)
    if en:
        head = ("thing (物)", "when (易氏)", "Zheng's reading (鄭)", "Yi's reading (易氏)")
    else:
        head = ("物", "when (易氏)", "鄭", "易氏")
    for col in head:
        grid.add_column(col, overflow="fold")
    for i in wuwu["items"]:
        name = f"{_label(i['name'])}: {i['gloss_en']}" if en else i["name"]
        grid.add_row(name, i["when"], tr(i, "zheng"), tr(i, "yi"))
    console.print(grid)


def _targets(table: RankTable, spec: str, readings: list[str]) -> tuple[Cell, list[Any]]:
    from sheli.place.target import Target
    from sheli.rite.ranks import RankError

    if "/" not in spec:
        raise RankError(f"--target {spec!r}: give RANK/OCCASION, e.g. 諸侯/大射")
    rank, occasion = spec.split("/", 1)
    cell = table.cell(rank, occasion, readings)
    if cell.absent is not None:
        raise RankError(f"{cell.rank}/{cell.occasion}: {cell.absent.note}")
    hou = cell.get("侯")
    hu, inner = table.hu_rule(readings).value.fractions()
    out = []
    for h in hou.value:
        if h.道 is None:
            raise RankError(
                f"{cell.rank}/{cell.occasion}: reading {hou.reading} gives no 侯道 for {h.名}, "
                "so it cannot be drawn to scale"
            )
        out.append(Target(h.道, h.的, h.名, hu, inner, h.質))
    return cell, out


@click.command("params", cls=Command)
@click.option("--rank", default=None, help="王 (天子), 諸侯, 畿內諸侯, 卿大夫, 士 (or an alias).")
@click.option("--occasion", default=None, help="大射, 賓射, 燕射 or 鄉射.")
@click.option(
    "--reading",
    "readings",
    multiple=True,
    help="A reading id (repeatable), e.g. dashe-can.ao-jigong; the defaults are 鄭玄's.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON.")
@click.option(
    "--target",
    default=None,
    metavar="RANK/OCCASION",
    help="The 侯 of one cell: their geometry in 尺 (with --svg: drawn to scale).",
)
@click.option(
    "--svg",
    "svg_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the --target 侯 as SVG to this file.",
)
@lang_option
def params(
    rank: str | None,
    occasion: str | None,
    readings: tuple[str, ...],
    as_json: bool,
    target: str | None,
    svg_path: Path | None,
    lang: str,
) -> None:
    """The archery by rank and occasion (周禮 射人, 司裘, 梓人; 射義; 鄉射記; 大射儀): 耦, 侯 and
    侯道, music and the 節 heard before the arrows, 中 and 旌 — each value with its source, and
    the readings where the sources disagree."""
    from rich.console import Console
    from rich.table import Table

    from sheli.rite.ranks import load_ranks

    if svg_path is not None and target is None:
        _fail("--svg needs --target RANK/OCCASION")
    table = load_ranks()
    chosen = sorted(table.choose(readings).values())
    if target is not None:
        cell, targets = _targets(table, target, list(readings))
        title = f"{cell.rank} {cell.occasion}"
    cells = table.cells(rank, occasion, readings)

    if target is not None:
        from sheli.place.target import raised, 武

        # 大射儀 says how its three 侯 are hung (dashe:6 見鵠於參參見鵠於干干不及地武); for the
        # other occasions the text gives no 張法, so each 侯 hangs one 武 up (xiangshe:10)
        hung = cell.occasion == "大射" and len(targets) > 1
        lifts = raised(targets) if hung else [武] * len(targets)
        if svg_path is not None:
            from sheli.outputs.target import target_svg
            from sheli.place import load_venue

            metre = load_venue("xie").metre_per_chi.value
            if lang == "en":
                title = f"{_label(cell.rank)} {_label(cell.occasion)}"
            svg = target_svg(targets, metre_per_chi=metre, title=title, hung=hung, lang=lang)
            try:
                write_text(svg_path, svg)
            except OSError as exc:
                _fail(f"cannot write {svg_path}: {exc.strerror}")
        geometry = [t.as_dict() | {"raised": lift} for t, lift in zip(targets, lifts, strict=True)]
        if as_json:
            rule = table.hu_rule(readings).as_dict()
            data = {"target": title, "readings": chosen, "鵠": rule, "hou": geometry}
            click.echo(json.dumps(data, ensure_ascii=False, indent=1))
            return
        grid = Table(title=f"侯 of {title} (尺)")
        for col in ("侯", "侯道", "中", "鵠/正", "躬", "上舌", "下舌", "綱", "下綱 up", "布"):
            grid.add_column(col)
        for g in geometry:
            grid.add_row(
                g["name"], f"{g['侯道_弓']:g} 弓", *(f"{g[k]:.4g}" for k in
                ("中", "鵠", "躬", "上舌", "下舌", "綱", "raised", "cloth")),
            )  # fmt: skip
        console = Console()
        console.print(grid)
        if svg_path is not None:
            console.print(f"wrote {svg_path}")
        return

    # deferred: the 五射 and 五物 data (scoring), for this command's output alone
    from sheli.scoring.five import five_summary

    five = five_summary()
    if as_json:
        data = table.as_dict(rank, occasion, readings) | five
        click.echo(json.dumps(data, ensure_ascii=False, indent=1))
        return
    _print_table(table, cells, chosen)
    _print_five(five)

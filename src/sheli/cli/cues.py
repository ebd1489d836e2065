"""``sheli cues RITE``: cue sheets per role, and the floor plan with taping measurements.

The run options are those of ``sheli run`` (venue, pairs, guests, 大夫, seed, outcomes,
矢不備). ``--role`` (repeatable) picks roles; without it every role of the run gets a sheet,
each from a new page, and the floor plan follows. ``--floor`` alone gives the floor plan only.
``-o FILE`` writes HTML or PDF by the extension (``.txt`` plain text); without ``-o`` the
sheet is printed as text. Files are written atomically; a user error prints one message and
exits 2, writing nothing.

>>> from click.testing import CliRunner
>>> CliRunner().invoke(cues, ["--help"]).exit_code
0
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import click

from sheli.cli._util import Command, lang_option, localize
from sheli.cli.run import run_choices, run_options, run_or_exit
from sheli.files import write_text


@click.command("cues", cls=Command)
@click.argument("rite", default="xiangshe")
@click.option(
    "--role",
    "roles_",
    multiple=True,
    help="a role (司射, 釋獲者 …), an archer (上耦上射) or a cast name; repeatable; "
    "simplified forms are accepted. Default: every role",
)
@click.option("--floor", is_flag=True, help="the floor plan sheet (alone, or after --role sheets)")
@click.option(
    "--scale",
    type=float,
    callback=lambda ctx, param, v: _positive(v, 10),
    help="multiply every distance by F (a floor smaller than the text's 侯道, 0 < F ≤ 10); "
    "said on the sheet",
)
@click.option(
    "--hou-dao",
    type=float,
    metavar="METRES",
    callback=lambda ctx, param, v: _positive(v, 1000),
    help="the distance from the 物 to the 侯 your floor allows (up to 1000); sets the scale",
)
@click.option(
    "--no-addressed",
    is_flag=True,
    help="leave out the steps in which others speak or hand to the role",
)
@click.option(
    "--diagrams",
    type=click.Choice(["near", "plan", "none"]),
    default="near",
    show_default=True,
    help="beside each cue where the person moves: near (the step diagram round him: who is "
    "near, what they hold), plan (the whole hall, lighter), or none",
)
@run_options
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    help="write FILE: .html (self-contained, prints one role a page), .pdf (via chromium), .txt",
)
@lang_option
def cues(
    rite: str,
    roles_: tuple[str, ...],
    floor: bool,
    scale: float | None,
    hou_dao: float | None,
    no_addressed: bool,
    diagrams: str,
    output: str | None,
    lang: str,
) -> None:
    """Cue sheets of RITE for each role, and the floor plan with taping measurements.

    \b
    sheli cues xiangshe --role 釋獲者                 the 釋獲者's sheet, as text
    sheli cues xiangshe --role 司射 -o 司射.pdf
    sheli cues xiangshe -o cues.pdf --hou-dao 20      every role, then the floor plan
    sheli cues xiangshe --floor -o plan.html --scale 0.3
    """
    from sheli.outputs import cues as cuesmod

    fmt = _format(output)
    if output is not None and not Path(output).resolve().parent.is_dir():
        _fail(f"cannot write {output}: no such directory {Path(output).parent}")
    result = run_or_exit("cues", rite)
    chosen = run_choices()
    sc = cuesmod.venue_scale(result.plan, scale=scale, hou_dao=hou_dao)
    wanted: list[str] | None
    if roles_:
        wanted = list(roles_)
    elif floor:
        wanted = []  # the floor plan alone
    else:
        wanted = None  # everyone
    book = cuesmod.build_book(
        result,
        wanted,
        scale=sc,
        floor=floor or not roles_,
        addressed=not no_addressed,
        diagrams="none" if fmt == "txt" else diagrams,
        seed=0
        if chosen.get("seed") is None and chosen.get("outcomes") is None
        else chosen.get("seed"),
        lang=lang,
    )
    if fmt == "txt":
        if lang == "en":
            from sheli.outputs.english_cues import english_cue_text

            text = english_cue_text(book)
        else:
            # localize: a file (-o) is not printed through the option's simplified stdout
            text = localize(cuesmod.render_text(book), lang)
        if output is None:
            click.echo(text, nl=False)
            return
        _write_text(output, text)
    elif fmt == "html":
        _write_text(output, _html(book, lang))  # type: ignore[arg-type]
    else:
        from sheli.outputs.pdf import html_to_pdf

        try:
            html_to_pdf(_html(book, lang), Path(output))  # type: ignore[arg-type]
        except OSError as exc:
            _fail(f"cannot write {output}: {exc.strerror}")
    what = ", ".join(s.role for s in book.sheets) or "no role"
    plan = " + floor plan" if book.floor is not None else ""
    click.echo(f"wrote {output} ({what}{plan}; {book.scale.statement()})", err=True)


def _html(book: object, lang: str) -> str:
    """The book as HTML in ``lang``: English through the English sheets; the Chinese page
    with its diagrams in ``lang`` otherwise."""
    if lang == "en":
        from sheli.outputs.english_cues import english_cue_html  # deferred: only for --lang en

        return english_cue_html(book)
    from sheli.outputs.cues import render_html  # deferred: the cue sheets are heavy

    return render_html(book)  # type: ignore[arg-type]


def _positive(value: float | None, most: float) -> float | None:
    # nan and inf pass click's FloatRange; a sheet of nan metres is no sheet
    if value is not None and not (math.isfinite(value) and 0 < value <= most):
        raise click.BadParameter(f"{value} is not a positive number (at most {most:g})")
    return value


def _format(output: str | None) -> str:
    if output is None:
        return "txt"
    ext = Path(output).suffix.lower()
    kinds = {".html": "html", ".htm": "html", ".pdf": "pdf", ".txt": "txt"}
    if ext not in kinds:
        _fail(f"{output}: write .html, .pdf or .txt (the format follows the extension)")
    return kinds[ext]


def _write_text(output: str, text: str) -> None:
    try:
        write_text(output, text)  # through a symlink, into a device, never half-written
    except OSError as exc:
        _fail(f"cannot write {output}: {exc.strerror}")


def _fail(message: str) -> None:
    click.echo(f"sheli cues: {message}", err=True)
    sys.exit(2)

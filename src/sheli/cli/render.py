"""``sheli render RITE -o DIR``: the HTML viewer of a run (and, when asked, an SVG per step).

Takes the same options as ``sheli run`` (the same rite, venue, pairs, guests, 大夫, seed,
outcomes and 矢不備 give the same run), plus ``-o/--out DIR``. Writes ``DIR/index.html``, one
self-contained file that opens offline and holds every step's diagram; with ``--svg``, also
``DIR/svg/step-NNNN.svg`` (for 鄉射禮, 188 MB beside a 2.4 MB viewer); see docs/viewer.md.
With ``--diff`` (or ``--a``/``--b``, as for ``sheli diff``), the viewer also draws the other
run's bodies as ghosts and lists the steps where the two differ. A progress bar shows while
the diagrams are drawn (on a terminal). Nothing is half-written:
the files go into a temporary directory that replaces ``DIR`` only when complete.
``--lang en`` (or ``zh-Hans``) opens the viewer in English (or simplified characters); its
reader can switch at any time.

>>> from click.testing import CliRunner
>>> CliRunner().invoke(render, ["--help"]).exit_code
0
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from sheli.cli._util import Command, lang_option
from sheli.cli.diff import pair_choices, run_with
from sheli.cli.run import run_choices, run_options, run_or_exit


@click.command("render", cls=Command)
@click.argument("rite", default="xiangshe")
@run_options
@click.option(
    "-o",
    "--out",
    "out",
    required=True,
    type=click.Path(file_okay=False),
    help="directory to write index.html (and svg/) into (replaced if it holds an earlier render)",
)
@click.option(
    "--svg/--no-svg",
    "svg_files",
    default=False,
    show_default=True,
    help="also write each step's diagram as svg/step-NNNN.svg (the viewer holds them already; "
    "for 鄉射禮 they are some 190 MB)",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(1, 64),
    help="processes drawing the diagrams (default: every CPU; at most 64)",
)
@click.option(
    "--diff",
    "with_diff",
    is_flag=True,
    help="draw, as ghosts, the run `sheli diff` compares this one with (the spec's own "
    "readings, venue and options), and list the steps where they differ",
)
@click.option(
    "--a",
    "a_opts",
    metavar="'OPTIONS'",
    help="the ghosts' run, as `sheli diff --a` (e.g. '--reading R-x'); implies --diff",
)
@click.option(
    "--b",
    "b_opts",
    metavar="'OPTIONS'",
    help="the run drawn, as `sheli diff --b` (default: the options given); implies --diff",
)
@lang_option
def render(
    rite: str,
    out: str,
    svg_files: bool,
    jobs: int | None,
    with_diff: bool,
    a_opts: str | None,
    b_opts: str | None,
    lang: str,
) -> None:
    """Render RITE (xiangshe, 鄉射禮 …, or a spec file) as an HTML viewer in DIR."""
    from sheli.engine.records import Step  # deferred, as the run it counts the steps of
    from sheli.outputs.render import check_out_dir
    from sheli.outputs.render import render as render_viewer

    target = Path(out)
    try:
        check_out_dir(target)
    except FileExistsError as exc:
        click.echo(f"sheli render: {exc}", err=True)
        sys.exit(2)
    t0 = time.perf_counter()
    against = None
    if with_diff or a_opts is not None or b_opts is not None:
        # as `sheli diff`: run B drawn, run A's bodies as ghosts
        a_choices, b_choices = pair_choices(run_choices(), a_opts, b_opts)
        against = run_with(rite, a_choices)
    if b_opts is not None:
        result = run_with(rite, b_choices)
    else:
        result = run_or_exit("render", rite)

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    # the bar goes to stderr, and only on a terminal (rich hides it elsewhere). It is
    # refreshed by hand, not by rich's thread: the drawing processes are forked, and forking
    # while another thread may hold a lock is unsafe.
    bar = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
        auto_refresh=False,
    )

    def progress(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)
        bar.refresh()

    with bar:
        steps = sum(1 for r in result.records if isinstance(r, Step))
        task = bar.add_task("drawing steps", total=steps)
        try:
            rep = render_viewer(
                result,
                target,
                svg_files=svg_files,
                jobs=jobs,
                progress=progress,
                against=against,
                lang=lang,
            )
        except OSError as exc:
            click.echo(f"sheli render: cannot write {target}: {exc.strerror or exc}", err=True)
            sys.exit(2)
    took = time.perf_counter() - t0
    svgs = f", {rep.svg_files} SVG ({rep.svg_bytes / 1e6:.1f} MB)" if rep.svg_files else ""
    click.echo(
        f"wrote {target / 'index.html'} ({rep.steps} steps, {rep.html_bytes / 1e6:.1f} MB)"
        f"{svgs} in {took:.1f} s",
        err=True,
    )

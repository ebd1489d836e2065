"""Small helpers shared by the subcommands."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from typing import Any

import click

from sheli.errors import SheliError


def user_error_line(ctx: click.Context, exc: SheliError) -> str:
    """The one line a user error is reported in: ``sheli COMMAND: <the error>``, COMMAND as
    typed after ``sheli`` (``run``, ``text import``).

    >>> ctx = click.Context(click.Command("run"), info_name="run")
    >>> user_error_line(ctx, SheliError("no venue 'xei'; did you mean xie?"))
    "sheli run: no venue 'xei'; did you mean xie?"
    """
    names: list[str] = []
    at: click.Context | None = ctx
    while at is not None and (at.parent is not None or not names):
        names.append(at.info_name or "")
        at = at.parent
    return f"sheli {' '.join(reversed(names))}: {exc}"


class Command(click.Command):
    """A command of ``sheli``: a user error (:class:`sheli.errors.SheliError`: a broken spec,
    a bad outcomes file, a venue or reading the rite does not have …) raised anywhere below
    it is printed in one line (:func:`user_error_line`) and ends the command with status 2,
    without a traceback. Every command is of this class: this is the one place the CLI
    catches them.

    >>> @click.command(cls=Command)
    ... def bad() -> None:
    ...     raise SheliError("xiangshe has no reading 'R-x'")
    >>> from click.testing import CliRunner
    >>> r = CliRunner().invoke(bad, [])
    >>> r.exit_code, r.output
    (2, "sheli bad: xiangshe has no reading 'R-x'\\n")
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SheliError as exc:
            click.echo(user_error_line(ctx, exc), err=True)
            ctx.exit(2)


class DefaultGroup(click.Group):
    """A group that runs its ``default_cmd`` when the first argument is not a subcommand.

    ``sheli text xiangshe:247`` runs ``sheli text show xiangshe:247`` while
    ``sheli text import FILE`` still reaches the ``import`` subcommand.

    >>> @click.group(cls=DefaultGroup, default_cmd="show")
    ... def g() -> None: ...
    >>> @g.command()
    ... @click.argument("what")
    ... def show(what: str) -> None: click.echo(f"show {what}")
    >>> from click.testing import CliRunner
    >>> CliRunner().invoke(g, ["xiangshe:247"]).output
    'show xiangshe:247\\n'
    """

    #: its subcommands report user errors as every command does
    command_class = Command

    def __init__(self, *args: object, default_cmd: str = "show", **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.default_cmd = default_cmd

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = [self.default_cmd, *args]
        return super().parse_args(ctx, args)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, "[ID|CHAPTER] [OPTIONS] | COMMAND [ARGS]...")


def report_console() -> tuple[Any, bool]:
    """A console for a report table, and whether stdout is a terminal: it records what is
    printed (``console.export_text(styles=tty)``), 140 wide, in colour only on a terminal.

    >>> console, tty = report_console()
    >>> console.print("筭"); console.export_text(styles=tty)
    '筭\\n'
    """
    from rich.console import Console  # deferred: rich is loaded by the commands that print tables

    tty = sys.stdout.isatty()
    console = Console(
        record=True,
        width=140,
        file=io.StringIO(),
        color_system="truecolor" if tty else None,
        highlight=False,
    )
    return console, tty


def _choose_lang(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from sheli.i18n import use

    use(value)
    if value == "zh-Hans":
        # whatever the command prints (click or rich) reaches stdout in simplified characters
        # when the command ends
        ctx.with_resource(_simplified_stdout())
    return value


@contextlib.contextmanager
def _simplified_stdout() -> Iterator[None]:
    out = sys.stdout
    buf = io.StringIO()
    sys.stdout = buf
    try:
        yield
    finally:
        sys.stdout = out
        out.write(localize(buf.getvalue(), "zh-Hans"))


def lang_option(f: Any) -> Any:
    """``--lang``, shared by the commands: ``zh-Hant`` (the text's characters, the default),
    ``zh-Hans`` (simplified, as ``--simplified``) or ``en`` (English, the text's terms in
    brackets). It chooses the gettext catalogue (:func:`sheli.i18n.use`) before the command
    runs; the command reads the choice as its ``lang`` parameter.

    >>> @click.command()
    ... @lang_option
    ... def hello(lang: str) -> None:
    ...     from sheli.i18n import tr
    ...     click.echo(localize(tr("飲不勝者"), lang))
    >>> from click.testing import CliRunner
    >>> CliRunner().invoke(hello, ["--lang", "en"]).output
    'the losers drink\\n'
    >>> CliRunner().invoke(hello, ["--lang", "zh-Hans"]).output
    '饮不胜者\\n'
    >>> CliRunner().invoke(hello, []).output
    '飲不勝者\\n'
    """
    from sheli.i18n import DEFAULT, LANGS

    return click.option(
        "--lang",
        type=click.Choice(LANGS),
        default=DEFAULT,
        show_default=True,
        is_eager=True,
        callback=_choose_lang,
        help="the language of the output: zh-Hant (the text's characters), zh-Hans "
        "(simplified) or en (English, the text's terms in brackets)",
    )(f)


def localize(text: str, lang: str) -> str:
    """``text`` as printed in ``lang``: in simplified characters for ``zh-Hans`` (OpenCC),
    as it is otherwise (the catalogue has already translated it).

    >>> localize("右賢於左", "zh-Hans"), localize("右賢於左", "zh-Hant")
    ('右贤于左', '右賢於左')
    """
    if lang == "zh-Hans":
        from sheli.text.variants import to_simplified  # deferred: OpenCC loads its tables

        return to_simplified(text)
    return text

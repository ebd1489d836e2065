"""``sheli text`` and ``sheli search``: browse and search the canonical text.

>>> from click.testing import CliRunner
>>> r = CliRunner().invoke(text, ["xiangshe:1", "--no-notes"])
>>> r.exit_code, "鄉射之禮主人戒賓" in r.output
(0, True)
>>> r = CliRunner().invoke(text, ["xiangshe:248", "--no-notes", "--lang", "en"])
>>> "No tally unless in time with the drum" in r.output
True
>>> r = CliRunner().invoke(search, ["不鼓不释", "--json"])
>>> '"xiangshe:248"' in r.output
True
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import click
from rich.console import Console
from rich.text import Text

from sheli.cli._util import Command, DefaultGroup
from sheli.text import UnknownPassage, chapter_key, load_chapter, parse_range
from sheli.text.corpus import SHORT_TITLES
from sheli.text.english import english
from sheli.text.model import Chapter, Note, Passage, Section
from sheli.text.search import EmptyQuery
from sheli.text.search import search as run_search
from sheli.text.variants import to_simplified


def _notes_for() -> Callable[[str], list[Note]] | None:
    # The commentary module is another part of the text layer; the browser works without it.
    try:
        from sheli.text.commentary import notes_for
    except ImportError:
        return None
    return notes_for


def _console() -> Console:
    # Wide enough that a passage is not broken mid-phrase when output is piped.
    return Console(soft_wrap=True, highlight=False)


def _disp(simplified: bool) -> Callable[[str], str]:
    return to_simplified if simplified else (lambda s: s)


def _section_json(ch: Chapter, s: Section | None, inferred: bool = False) -> dict[str, Any] | None:
    if s is None:
        return None
    return {
        "n": s.n,
        "topic": s.topic,
        "first": f"{ch.key}:{s.first}",
        "last": f"{ch.key}:{s.last}",
        "sentence": s.sentence,
        "inferred": inferred,
    }


def _passage_json(
    p: Passage, notes: list[Note] | None, d: Callable[[str], str], en: bool = False
) -> dict[str, Any]:
    ch = load_chapter(p.chapter)
    sec = ch.section(p.section) if p.section is not None else None
    out: dict[str, Any] = {
        "id": p.id,
        "chapter": p.chapter,
        "n": p.n,
        "kind": p.kind,
        "text": d(p.text),
        "section": _section_json(ch, sec, p.section_inferred),
        "source": p.source,
        "note": p.note,
    }
    if en:
        t = english(p.id)
        out["english"] = t.text if t else None
        out["reading"] = t.reading if t else None
    if notes is not None:
        out["notes"] = [
            {"edition": n.edition, "kind": n.kind, "text": d(n.text), "source": n.source}
            for n in notes
        ]
    return out


def _section_line(ch: Chapter, p: Passage, d: Callable[[str], str]) -> str:
    if p.section is None:
        return "賈疏 marks no section here (the 記 outside his divisions)"
    s = ch.section(p.section)
    line = f"賈疏 section {s.n}: {d(s.topic)} ({ch.key}:{s.first}–{s.last})"
    if p.section_inferred:
        line += (
            f"; assumed: 賈 marks no section for {p.id}, so it is attached to the section before it"
        )
    return line


def _print_passage(
    con: Console,
    p: Passage,
    notes: list[Note] | None,
    d: Callable[[str], str],
    header: bool,
    en: bool = False,
) -> None:
    ch = load_chapter(p.chapter)
    if header:
        con.print(Text(f"{d(SHORT_TITLES[p.chapter])} {p.id} ({d(p.kind)})", style="bold"))
        con.print(Text(_section_line(ch, p, d), style="cyan"))
    else:
        con.print(Text(f"{p.id} ({d(p.kind)})", style="bold"))
    con.print(Text(d(p.text)))
    if en:
        # The English goes beside the Chinese, never instead of it: the text is the authority.
        t = english(p.id)
        con.print(Text(t.text if t else "(no English yet)", style="italic"))
        if t and t.reading:
            con.print(Text(f"reading: {t.reading}", style="dim"))
    src = f"source: {p.source}" + (f"; {p.note}" if p.note else "")
    con.print(Text(src, style="dim"))
    for n in notes or []:
        label = Text(f"  [{n.edition} {n.kind}] ", style="green")
        con.print(label + Text(d(n.text)))


@click.group(cls=DefaultGroup, default_cmd="show", invoke_without_command=False)
def text() -> None:
    """Show passages of 經 and 記 with their section and commentary.

    \b
    sheli text xiangshe:247          one passage, its section, its commentary
    sheli text xiangshe:247 --lang en  the same with sheli's English beside the Chinese
    sheli text xiangshe:110-115      a range
    sheli text xiangshe --section 25 one of 賈公彥's sections
    sheli text 大射                  the chapter's sections
    """


@text.command("show")
@click.argument("target")
@click.option("--section", "section_n", type=int, help="Show this 賈疏 section of the chapter.")
@click.option("--simplified", is_flag=True, help="Display in simplified characters (OpenCC).")
@click.option(
    "--lang",
    type=click.Choice(["zh-Hant", "zh-Hans", "en"]),
    default="zh-Hant",
    show_default=True,
    help="zh-Hans = --simplified; en shows sheli's English translation beside the Chinese.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@click.option("--no-notes", is_flag=True, help="Leave out the commentary.")
def show(
    target: str, section_n: int | None, simplified: bool, lang: str, as_json: bool, no_notes: bool
) -> None:
    """Show TARGET: a passage id (xiangshe:247), a range (xiangshe:110-115) or a chapter."""
    d = _disp(simplified or lang == "zh-Hans")
    en = lang == "en"
    notes_for = None if no_notes else _notes_for()
    try:
        if ":" in target or "：" in target:
            if section_n is not None:
                raise click.UsageError("--section goes with a chapter name, not a passage id")
            key, a, b = parse_range(target)
            ch = load_chapter(key)
            passages = [ch.passage(n) for n in range(a, b + 1)]
            sec = None
        else:
            ch = load_chapter(chapter_key(target))
            if section_n is None:
                _chapter_overview(ch, d, as_json)
                return
            try:
                sec = ch.section(section_n)
            except KeyError:
                raise click.BadParameter(
                    f"{ch.title} has sections 1 to {len(ch.sections)} (賈公彥's divisions)",
                    param_hint="--section",
                ) from None
            passages = [ch.passage(n) for n in range(sec.first, sec.last + 1)]
    except UnknownPassage as e:
        raise click.BadParameter(str(e), param_hint="TARGET") from None

    notes = {p.id: notes_for(p.id) if notes_for else None for p in passages}
    if as_json:
        out: dict[str, Any] = {"passages": [_passage_json(p, notes[p.id], d, en) for p in passages]}
        if sec is not None:
            out["section"] = _section_json(ch, sec)
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return
    con = _console()
    if sec is not None:
        con.print(
            Text(f"{d(ch.title)} 賈疏 section {sec.n}: {d(sec.topic)}", style="bold")
            + Text(f" ({ch.key}:{sec.first}–{sec.last})")
        )
        if sec.sentence:
            con.print(Text(f"賈疏: {d(sec.sentence)}", style="cyan"))
        con.print()
    for i, p in enumerate(passages):
        if i:
            con.print()
        _print_passage(con, p, notes[p.id], d, header=sec is None and i == 0, en=en)


def _chapter_overview(ch: Chapter, d: Callable[[str], str], as_json: bool) -> None:
    if as_json:
        out = {
            "chapter": ch.key,
            "title": ch.title,
            "passages": len(ch.passages),
            "sections": [_section_json(ch, s) for s in ch.sections],
        }
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return
    con = _console()
    jing = sum(p.kind == "經" for p in ch.passages)
    con.print(
        Text(f"{d(ch.title)} ({ch.key})", style="bold")
        + Text(f": {len(ch.passages)} passages, {jing} 經, {len(ch.passages) - jing} 記")
    )
    for s in ch.sections:
        con.print(Text(f"{s.n:>3}  {ch.key}:{s.first}–{s.last}  ") + Text(d(s.topic)))


#: characters of a query said back in a message: a query of a megabyte is not echoed whole
SHOWN_QUERY = 40


def shown_query(q: str) -> str:
    """The query as a message says it back: quoted, cut at :data:`SHOWN_QUERY` characters.

    >>> shown_query("不鼓不釋")
    "'不鼓不釋'"
    >>> shown_query("射侯" * 500_000)  # doctest: +ELLIPSIS
    "'射侯射侯...射侯…' (1000000 characters)"
    >>> len(shown_query("射侯" * 500_000))
    64
    """
    if len(q) <= SHOWN_QUERY:
        return repr(q)
    return f"{q[:SHOWN_QUERY]!r}"[:-1] + f"…' ({len(q)} characters)"


@click.command(cls=Command)
@click.argument("query", nargs=-1)
@click.option("--chapter", "chapters", multiple=True, help="Search only this chapter (repeatable).")
@click.option("--simplified", is_flag=True, help="Display in simplified characters (OpenCC).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
def search(
    query: tuple[str, ...], chapters: tuple[str, ...], simplified: bool, as_json: bool
) -> None:
    """Find passages containing QUERY, in any form: traditional, simplified or variant.

    \b
    sheli search 不鼓不释          finds xiangshe:248 (the text writes 不鼓不釋)
    sheli search 間若一            finds 閒若一 in 鄉射禮 and 大射儀
    """
    q = "".join(query)
    try:
        hits = run_search(q, list(chapters) or None)
    except EmptyQuery:
        if not q.strip():
            raise click.UsageError("the query is empty: give some characters of the text") from None
        # punctuation or symbols only (a regular expression, say): the text holds none
        raise click.UsageError(
            f"the query {shown_query(q)} has no character of the text: punctuation, symbols "
            "and spaces are left out, and a query is the text's characters, not a pattern"
        ) from None
    except UnknownPassage as e:
        raise click.BadParameter(str(e), param_hint="--chapter") from None
    d = _disp(simplified)
    if as_json:
        out = [
            {
                "id": h.pid,
                "chapter": h.passage.chapter,
                "n": h.passage.n,
                "kind": h.passage.kind,
                "text": d(h.passage.text),
                "span": list(h.span),
                "spans": [list(s) for s in h.spans],
                "section": h.passage.section,
                "through": h.through,
            }
            for h in hits
        ]
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return
    con = _console()
    if not hits:
        click.echo(f"no passage contains {shown_query(q)}", err=True)
        return
    for h in hits:
        body = Text(d(h.passage.text))
        for a, b in h.spans:
            body.stylize("bold reverse", a, b)
        sec = f"§{h.passage.section}" if h.passage.section is not None else "記"
        if h.through:
            # The match runs on into the next passage(s): say where it ends.
            body.append(f" → {h.through}", style="dim")
        con.print(Text(f"{h.pid:<14}", style="bold") + Text(f"{sec:<5} ", style="cyan") + body)
    click.echo(f"{len(hits)} passage(s)", err=True)


# `sheli text import FILE` lives in its own module (another part of the project).
try:
    from sheli.cli.text_import import import_cmd
except ImportError:  # pragma: no cover - present in a full checkout
    pass
else:
    text.add_command(import_cmd, "import")

if __name__ == "__main__":  # pragma: no cover
    sys.exit(text())

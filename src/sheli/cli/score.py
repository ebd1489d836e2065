"""``sheli score``: the 釋獲者's announcement (告獲) for given counts, or for a recorded file.

``sheli score RIGHT LEFT`` prints the announcement in the text's words (xiangshe:203–204).
``sheli score --outcomes FILE`` checks a recorded outcomes file and prints, round by round,
what was counted (釋獲), the announcement and who drinks. ``--five`` judges the 五射 of each
archer and round from it instead; ``--votes FILE`` gives the 五物 the 衆庶 answered (with
``--outcomes`` for 主皮).

>>> from click.testing import CliRunner
>>> CliRunner().invoke(score, ["19", "14"]).output
'右賢於左二純一奇\\n'
>>> print(CliRunner().invoke(score, ["19", "14", "--lang", "en"]).output.strip())
The right wins: the right exceeds the left by two pairs and a single (右賢於左二純一奇).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from sheli.cli._util import Command, lang_option
from sheli.engine.records import Shot
from sheli.i18n import current, tr
from sheli.outputs.xiangchi import xiangchi_places
from sheli.scoring import (
    RecordedOutcomes,
    announce,
    count_layout,
    count_procedure,
    drinking,
    load_outcomes,
    losers,
    pure_odd,
    release,
    side_of,
    to_chinese,
)
from sheli.scoring.five import judge_five, load_votes, tally_wuwu
from sheli.text.english import english

_SIDE = {"right": "右", "left": "左", None: "—"}
_KEPT = {True: "yes", False: "no", None: "—"}


def _load(path: Path, pairs: list[str] | None = None) -> RecordedOutcomes:
    outcomes = load_outcomes(path, pairs=pairs)
    for warning in outcomes.warnings:
        click.echo(f"warning: {warning}", err=True)
    return outcomes


def _rite_run(rite: str) -> Any:
    # deferred: a whole run, needed only to know where the 臣 stands (襄尺) and the pairs
    from sheli.engine import run

    return run(rite)


def _five(path: Path, rite: str | None, as_json: bool) -> None:
    places, pairs = None, None
    if rite is not None:
        records = _rite_run(rite).records
        places = xiangchi_places(records)
        pairs = sorted({e.pair for e in records if isinstance(e, Shot)} - {"誘射"})
    verdicts = judge_five(_load(path, pairs).entries.values(), places)
    if as_json:
        click.echo(json.dumps([v.to_json() for v in verdicts], ensure_ascii=False, indent=1))
        return
    last = None
    for v in verdicts:
        if (v.round, v.pair, v.archer) != last:
            last = (v.round, v.pair, v.archer)
            click.echo(f"round {v.round} {v.pair}{v.archer}")
        click.echo(f"  {v.name} {_KEPT[v.kept]:<3} {v.why}")
        click.echo(f"        {v.definition} ({v.source})")


def _votes(path: Path, outcomes_file: Path | None, as_json: bool) -> None:
    votes = load_votes(path)
    shots = _load(outcomes_file).entries.values() if outcomes_file is not None else None
    results = tally_wuwu(votes, shots)
    if as_json:
        click.echo(json.dumps([r.to_json() for r in results], ensure_ascii=False, indent=1))
        return
    last = None
    for r in results:
        if (r.pair, r.archer) != last:
            last = (r.pair, r.archer)
            click.echo(f"{r.pair}{r.archer}")
        unit = "hits of arrows" if r.name == "主皮" else "yes of voices"
        click.echo(f"  {r.name} {r.yes}/{r.of} {unit} ({r.when})")
        click.echo(f"        鄭: {r.zheng}")
        click.echo(f"        易氏: {r.yi}")


def _announce(right: int, left: int) -> str:
    """The announcement in the chosen language: English says it with the text's words after."""
    from sheli.i18n import current

    if current() == "en":
        from sheli.outputs.english import announcement_en  # deferred: the outputs layer

        return announcement_en(right, left)
    return announce(right, left)


def _explain(console: Console, right: int, left: int) -> None:
    diff = abs(right - left)
    pure, odd = pure_odd(diff)
    table = Table(show_header=False, box=None)
    rods = tr("{n} 算 = {layout}")
    table.add_row(
        tr("右獲 (上射)"), rods.format(n=right, layout=_layout(right)), "xiangshe:193–198"
    )
    table.add_row(tr("左獲 (下射)"), rods.format(n=left, layout=_layout(left)), "xiangshe:199–201")
    table.add_row(
        tr("賢獲"),
        tr("{n} 算 = {pure} 純 {odd} 奇").format(n=diff, pure=pure, odd=odd),
        tr("xiangshe:202 注「齊之而取其餘」"),
    )
    if right != left:
        held = tr("執賢獲{cn}算").format(cn=to_chinese(diff), n=diff)
    else:  # 0 : 0 leaves no 算 to hold (the text does not foresee it)
        held = tr("左右皆執一算") if right else tr("no 算 on either side to hold")
    table.add_row(tr("告于賓"), f"{_announce(right, left)}  ({held})", "xiangshe:203–204")
    loser = losers(right, left)
    table.add_row(
        tr("飲不勝者"),
        (tr("右 (上射)") if loser == "right" else tr("左 (下射)"))
        if loser
        else tr("鈞: no 不勝者 (sheli's reading; the text is silent)"),
        "xiangshe:205–220",
    )
    console.print(table)


def _layout(n: int) -> str:
    lay = count_layout(n)
    parts = []
    if lay.heaps:
        parts.append(tr("{n} 委 of 十純").format(n=lay.heaps))
    if lay.rest_pures:
        parts.append(tr("{n} 純 横").format(n=lay.rest_pures))
    if lay.odd:
        parts.append(tr("1 奇"))
    return ", ".join(parts) or tr("none")


def _print_count(console: Console, right: int, left: int) -> None:
    for side, n in (("right", right), ("left", left)):
        for act in count_procedure(n, side):
            if current() == "en":
                # the passage in sheli's translation, the text and the act in brackets
                t = english(act.cite)
                console.print(
                    f"  {act.cite}  {t.text if t else ''} ({act.jing}) ({act.description})",
                    highlight=False,
                )
            else:
                console.print(f"  {act.cite}  {act.jing}　{act.description}", highlight=False)


def _score_file(console: Console, path: Path, explain: bool) -> None:
    outcomes = _load(path)
    counts: dict[int, dict[str, int]] = defaultdict(lambda: {"right": 0, "left": 0})
    hits: dict[int, int] = defaultdict(int)
    # each round's pairs in the order they first appear (a dict: a list's `in` made this
    # quadratic in the number of pairs)
    pairs: dict[int, dict[str, None]] = defaultdict(dict)
    for o in outcomes.entries.values():
        counted, _ = release(o.round, o.hit, o.on_beat)
        hits[o.round] += o.hit
        pairs[o.round].setdefault(o.pair)
        if counted:
            counts[o.round][side_of(o.archer)] += 1
    for rnd in sorted({o.round for o in outcomes.entries.values()}):
        if rnd == 1:
            console.print(
                tr("round 1: {hits} hit(s), 獲而未釋獲 (xiangshe:150)").format(hits=hits[1])
            )
            continue
        right, left = counts[rnd]["right"], counts[rnd]["left"]
        line = tr("round {n}: 右 {right} 左 {left}").format(n=rnd, right=right, left=left)
        console.print(f"{line}  {_announce(right, left)}")
        if explain:
            _explain(console, right, left)
            for d in drinking(right, left, list(pairs[rnd])):
                extra = "" if d.partner_ascends else " " + tr("(耦不升)")
                name = f"{d.name} ({d.rank})" if current() == "en" else f"{d.name} {d.rank}"
                console.print(f"  {d.order}. {name}{extra}", highlight=False)


# A side's count: the numerals of the announcement go further, but a rite's 箭籌八十
# (xiangshe:378) gives a side at most eighty 筭, and --count spells out every 純.
MAX_COUNT = 9999


@click.command(cls=Command)
@click.argument("right", type=click.IntRange(0, MAX_COUNT), required=False)
@click.argument("left", type=click.IntRange(0, MAX_COUNT), required=False)
@click.option(
    "--outcomes",
    "outcomes_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A recorded outcomes file (CSV or JSON) to check and score round by round.",
)
@click.option(
    "--explain", "-e", is_flag=True, help="Show the 純 and 奇, the layout and who drinks."
)
@click.option("--count", "-c", "show_count", is_flag=True, help="Show the 數獲 act by act.")
@click.option(
    "--five",
    is_flag=True,
    help="With --outcomes: judge the 五射 (白矢, 參連, 剡注, 襄尺, 井儀) per archer and round.",
)
@click.option(
    "--rite",
    help="With --five: the rite (dashe, yanshe) whose places decide 襄尺 (where the 臣 stands).",
)
@click.option(
    "--votes",
    "votes_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The 衆庶's answers to the 五物 (CSV pair,archer,question,voter,answer).",
)
@click.option("--json", "as_json", is_flag=True, help="With --five or --votes: JSON output.")
@lang_option
def score(
    right: int | None,
    left: int | None,
    outcomes_file: Path | None,
    explain: bool,
    show_count: bool,
    five: bool,
    rite: str | None,
    votes_file: Path | None,
    as_json: bool,
    lang: str,
) -> None:
    """Announce the count: RIGHT and LEFT are the 筭 of the right (上射) and left (下射),
    0 to 9999 each.

    \b
    sheli score 19 14        → 右賢於左二純一奇   (xiangshe:203)
    sheli score 7 7          → 左右鈞             (xiangshe:204)
    sheli score --outcomes shots.csv -e
    sheli score --outcomes shots.csv --five [--rite dashe]
    sheli score --votes votes.csv [--outcomes shots.csv]
    """
    console = Console(highlight=False)
    if (five or votes_file is not None) and (right is not None or left is not None):
        raise click.UsageError("--five and --votes read files, not RIGHT LEFT")
    if votes_file is not None:
        _votes(votes_file, outcomes_file, as_json)
        return
    if five:
        if outcomes_file is None:
            raise click.UsageError("--five judges a recorded file: give --outcomes FILE")
        _five(outcomes_file, rite, as_json)
        return
    if rite is not None or as_json:
        raise click.UsageError("--rite and --json go with --five or --votes")
    if outcomes_file is not None:
        if right is not None or left is not None:
            raise click.UsageError("give either RIGHT LEFT or --outcomes FILE, not both")
        _score_file(console, outcomes_file, explain)
        return
    if right is None or left is None:
        raise click.UsageError("give the counts RIGHT LEFT (e.g. `sheli score 19 14`)")
    click.echo(_announce(right, left))
    if explain:
        _explain(console, right, left)
    if show_count:
        _print_count(console, right, left)

"""The 儀注: the run printed step by step, section by section, for people to read.

Each 賈疏 section gets a heading 「第N節 topic」; each step is one line: its number, the actor
(with the person's name where the cast gives one), the verb and its objects, the place in the
text's words, the facing, the words spoken and the passage id. A summary of each round's tally
and of who drank closes the 儀注.

The 儀注 is a reader of the typed run (:class:`Yizhu`, a visitor: docs/architecture.md): it
takes the steps', shots' and tallies' fields, never the words of the event log's lines.

>>> from rich.console import Console
>>> from sheli.engine.records import Scene, Step, accept
>>> from sheli.engine.state import Holding, Objects
>>> records = [
...     Scene("demo", "鄉射禮", "xie", "尺", {}, [], []),
...     Step(1, 0, 14, "xiangshe:127", None, "司射", "立", 0.0, 0.0, "E", Holding(), None,
...          "中之西南", [], 127, Objects()),
... ]
>>> console = Console(width=100, color_system=None)
>>> print_yizhu(records, console, topics={14: "司射誘射教三耦射法之事"})
鄉射禮 儀注 — 州序（榭）
<BLANKLINE>
第十四節 司射誘射教三耦射法之事
    1 司射 立  @中之西南 東面  xiangshe:127
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sheli.engine.records import BaseVisitor, Scene, Shot, Step, Tally, accept
from sheli.place.loader import VENUES  # key → title, from the venue data files
from sheli.text.corpus import SHORT_TITLES

FACING = {
    "N": "北面",
    "S": "南面",
    "E": "東面",
    "W": "西面",
    "NE": "東北面",
    "NW": "西北面",
    "SE": "東南面",
    "SW": "西南面",
}
ROUNDS = {0: "射外", 1: "第一番射", 2: "第二番射", 3: "第三番射"}
_DIGITS = "〇一二三四五六七八九"


def cn_number(n: int) -> str:
    """A section number in Chinese, as the headings use it.

    >>> cn_number(14), cn_number(20), cn_number(7)
    ('十四', '二十', '七')
    """
    if n < 10:
        return _DIGITS[n]
    tens, ones = divmod(n, 10)
    head = "十" if tens == 1 else _DIGITS[tens] + "十"
    return head + (_DIGITS[ones] if ones else "")


Segment = tuple[str, str | None]  # text and its rich style
Topics = dict[int, str] | Callable[[int], str] | None


def step_segments(e: Step) -> list[Segment]:
    """One step as the segments of one line of the 儀注 (text, style)."""
    seg: list[Segment] = [(f"{e.seq:>5} ", "dim")]
    name = e.name
    seg.append((e.actor + (f"({name})" if name else ""), "bold"))
    seg.append((" ", None))
    verb = e.verb
    if e.obj:
        count = e.number
        verb += e.obj + (str(count) if count not in (None, 1) else "")
    if e.side:
        verb += f"({e.side})"
    seg.append((verb, "cyan"))
    if e.to:
        seg.append((f" 於{e.to}", None))
    if e.at:
        seg.append((f" 于{e.at}", None))
    if e.place:
        seg.append((f"  @{e.place}", "green"))
    if e.facing:
        seg.append((f" {FACING.get(e.facing, e.facing)}", None))
    if e.says:
        seg.append((f" 曰「{e.says}」", "yellow"))
    shot = e.shot
    if shot:
        mark = ("中" if shot.hit else "不中") + ("·釋" if shot.counted else "")
        seg.append((f" [{mark}]", "magenta"))
    if e.note:
        seg.append((f"  ({e.note})", "dim"))
    if e.assumes:
        seg.append((" [" + ",".join(e.assumes) + "]", "red"))
    seg.append((f"  {e.cite}", "dim"))
    done_as = e.acting_as
    if done_as and done_as.cite != e.cite:
        # a step done again by the text's 如初 / 亦如之 at another passage
        seg.append((f" (如 {done_as.cite})", "dim"))
    return seg


def step_line(e: Step) -> Text:
    """One step as one line of the 儀注 (a rich Text)."""
    return _text(step_segments(e))


def _text(segs: list[Segment]) -> Text:
    """The segments as one rich Text (a segment without a style is appended as plain text,
    as rich appends one whose style is None).

    >>> _text([("射", "bold"), ("禮", None)]).spans
    [Span(0, 1, 'bold')]
    """
    return Text.assemble(*(text if style is None else (text, style) for text, style in segs))


def _topic_of(topics: Topics) -> Callable[[int], str]:
    if callable(topics):
        return topics
    table = topics or {}
    return lambda n: table.get(n, "")


class Yizhu(BaseVisitor["Yizhu"]):
    """The reader of a run that makes the 儀注: its lines as segments (``lines``), and the
    shots and tallies of each round for the summary.

    >>> from sheli.engine import run
    >>> y = run("xiangshe", seed=1).accept(Yizhu())
    >>> y.lines[0][0][0]
    '鄉射禮 儀注 — 州序（榭）'
    >>> sorted(y.shots) == sorted({t.round for t in y.tallies} | {1})
    True
    """

    def __init__(self, topics: Topics = None) -> None:
        self.topic_of = _topic_of(topics)
        self.lines: list[list[Segment]] = []
        self.shots: dict[int, list[Shot]] = defaultdict(list)
        self.tallies: list[Tally] = []
        self._section: tuple[Any, Any] = (-1, None)
        self._round: int | None = None

    def begin_run(self, scene: Scene) -> None:
        title = scene.title or scene.rite
        venue = str(VENUES.get(scene.venue, scene.venue)).split("—")[0].strip()
        self.lines.append([(f"{title} 儀注 — {venue}", None)])
        cast = [c["actor"] + (f"({c['name']})" if c.get("name") else "") for c in scene.cast]
        if cast:
            self.lines.append([("cast: " + "、".join(cast), "dim")])

    def visit_shot(self, shot: Shot) -> None:
        self.shots[shot.round].append(shot)

    def visit_tally(self, tally: Tally) -> None:
        self.tallies.append(tally)
        self.lines.append(
            [
                (
                    f"      ⟶ {ROUNDS.get(tally.round, tally.round)} 數獲: "
                    f"右{tally.right} 左{tally.left} — {tally.announcement}",
                    "bold magenta",
                )
            ]
        )

    def visit_step(self, step: Step) -> None:
        add = self.lines.append
        if step.round != self._round:
            self._round = rnd = step.round
            if rnd:
                add([(f"── {ROUNDS.get(rnd, rnd)} ──", "bold blue")])
        section = (step.section, step.section_of)
        if section != self._section:
            self._section = section
            if section[0] is not None:
                add([])
                if section[1]:
                    # a variant performing its base's passage (燕射 as 鄉射禮 does it)
                    base = SHORT_TITLES.get(section[1], section[1])
                    heading = f"{base} 第{cn_number(section[0])}節 {step.topic or ''}"
                else:
                    heading = f"第{cn_number(section[0])}節 {self.topic_of(section[0])}"
                add([(heading.rstrip(), "bold underline")])
        add(step_segments(step))

    def result(self) -> Yizhu:
        return self


def read_yizhu(run: Any, topics: Topics = None) -> Yizhu:
    """The 儀注 of ``run`` (a :class:`~sheli.engine.Run`, or its records in order)."""
    if hasattr(run, "accept"):
        return run.accept(Yizhu(topics))
    return accept(run, Yizhu(topics))


def print_yizhu(
    run: Any,
    console: Console,
    topics: Topics = None,
    drank: dict[int, list[str]] | None = None,
    assumptions: dict[str, tuple[str, str]] | None = None,
) -> None:
    """Print the 儀注 of a run (or its records) on a rich console (with colours on a terminal).

    ``assumptions`` (id → (assumption, reason)) are listed at the end: what the text does not
    say and the run rests on, each with its reason. Lines are printed in batches: one rich
    print per line would cost more than the run itself.
    """
    y = read_yizhu(run, topics)
    batch: list[Text] = []
    for segs in y.lines:
        batch.append(_text(segs) if segs else Text(""))
        if len(batch) >= 500:
            console.print(Text("\n").join(batch))
            batch = []
    if batch:
        console.print(Text("\n").join(batch))
    print_summary(console, y.shots, y.tallies, drank or {})
    print_assumptions(console, assumptions)


def yizhu_text(
    run: Any,
    topics: Topics = None,
    drank: dict[int, list[str]] | None = None,
    assumptions: dict[str, tuple[str, str]] | None = None,
    width: int = 120,
) -> str:
    """The 儀注 of a run (or its records) as plain text (no colours, lines not wrapped): for
    files and pipes.

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1)
    >>> text = yizhu_text(r, drank=r.drank)
    >>> print(text.splitlines()[4])
        1 賓 在  @門之西南 東面 [A-feast-start,A-bin-men]  xiangshe:1
    """
    y = read_yizhu(run, topics)
    out = ["".join(t for t, _ in segs) for segs in y.lines]
    tail = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    print_summary(tail, y.shots, y.tallies, drank or {})
    print_assumptions(tail, assumptions)
    return "\n".join(out) + "\n" + tail.export_text()


def print_assumptions(console: Console, assumptions: dict[str, tuple[str, str]] | None) -> None:
    """The assumptions the run rests on, each with its reason."""
    if assumptions:
        console.print()
        console.print(Text("Assumptions (what the text does not say)", style="bold"))
        for key, (what, why) in assumptions.items():
            console.print(Text(f"  [{key}] {what} — {why}"))


def print_summary(
    console: Console,
    shots: dict[int, list[Shot]],
    tallies: list[Tally],
    drank: dict[int, list[str]],
) -> None:
    """The round summaries: arrows, hits, counted, the tally and who drank."""
    if not shots and not tallies:
        return
    table = Table(title="每番 summary", show_lines=False)
    for col in ("round", "arrows", "hits", "counted", "右", "左", "announcement", "飲"):
        table.add_column(col)
    by_round = {t.round: t for t in tallies}
    for r in sorted(set(shots) | set(by_round)):
        if r == 0:
            continue
        ss = shots.get(r, [])
        t = by_round.get(r)
        table.add_row(
            ROUNDS.get(r, str(r)),
            str(len(ss)),
            str(sum(1 for s in ss if s.hit)),
            str(sum(1 for s in ss if s.counted)),
            str(t.right) if t else "—",
            str(t.left) if t else "—",
            t.announcement if t else "獲而未釋獲 (xiangshe:150)" if r == 1 else "—",
            "、".join(drank.get(r, [])) or "—",
        )
    console.print()
    console.print(table)

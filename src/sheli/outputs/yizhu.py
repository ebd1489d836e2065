"""The 儀注: the run printed step by step, section by section, for people to read.

Each 賈疏 section gets a heading 「第N節 topic」; each step is one line: its number, the actor
(with the person's name where the cast gives one), the verb and its objects, the place in the
text's words, the facing, the words spoken and the passage id. A summary of each round's tally
and of who drank closes the 儀注.

>>> from rich.console import Console
>>> events = [
...     {"type": "scene", "rite": "demo", "title": "鄉射禮", "venue": "xie", "cast": []},
...     {"type": "step", "seq": 1, "round": 0, "section": 14, "cite": "xiangshe:127",
...      "actor": "司射", "verb": "立", "place": "中之西南", "facing": "E", "says": None},
... ]
>>> console = Console(width=100, color_system=None)
>>> print_yizhu(events, console, topics={14: "司射誘射教三耦射法之事"})
鄉射禮 儀注 — 州序（榭）
<BLANKLINE>
第十四節 司射誘射教三耦射法之事
    1 司射 立  @中之西南 東面  xiangshe:127
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

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


def step_segments(e: dict[str, Any]) -> list[Segment]:
    """One step as the segments of one line of the 儀注 (text, style)."""
    seg: list[Segment] = [(f"{e['seq']:>5} ", "dim")]
    seg.append((e["actor"] + (f"({e['name']})" if e.get("name") else ""), "bold"))
    seg.append((" ", None))
    verb = e["verb"]
    if e.get("obj"):
        count = e.get("count")
        verb += e["obj"] + (str(count) if count not in (None, 1) else "")
    if e.get("side"):
        verb += f"({e['side']})"
    seg.append((verb, "cyan"))
    if e.get("to"):
        seg.append((f" 於{e['to']}", None))
    if e.get("at"):
        seg.append((f" 于{e['at']}", None))
    if e.get("place"):
        seg.append((f"  @{e['place']}", "green"))
    if e.get("facing"):
        seg.append((f" {FACING.get(e['facing'], e['facing'])}", None))
    if e.get("says"):
        seg.append((f" 曰「{e['says']}」", "yellow"))
    if e.get("shot"):
        s = e["shot"]
        mark = ("中" if s["hit"] else "不中") + ("·釋" if s["counted"] else "")
        seg.append((f" [{mark}]", "magenta"))
    if e.get("note"):
        seg.append((f"  ({e['note']})", "dim"))
    if e.get("assumes"):
        seg.append((" [" + ",".join(e["assumes"]) + "]", "red"))
    seg.append((f"  {e['cite']}", "dim"))
    if e.get("as") and e["as"]["cite"] != e["cite"]:
        # a step done again by the text's 如初 / 亦如之 at another passage
        seg.append((f" (如 {e['as']['cite']})", "dim"))
    return seg


def step_line(e: dict[str, Any]) -> Text:
    """One step as one line of the 儀注 (a rich Text)."""
    return Text.assemble(*step_segments(e))


def _topic_of(topics: dict[int, str] | Callable[[int], str] | None) -> Callable[[int], str]:
    if callable(topics):
        return topics
    table = topics or {}
    return lambda n: table.get(n, "")


def yizhu_lines(
    events: Iterable[dict[str, Any]],
    topics: dict[int, str] | Callable[[int], str] | None,
    shots: dict[int, list[dict[str, Any]]],
    tallies: list[dict[str, Any]],
) -> Iterator[list[Segment]]:
    """The 儀注 line by line, as segments; fills ``shots`` and ``tallies`` for the summary."""
    topic_of = _topic_of(topics)
    section: tuple[Any, Any] = (-1, None)
    rnd: int | None = None
    for e in events:
        kind = e.get("type")
        if kind == "scene":
            title = e.get("title") or e.get("rite")
            venue = str(VENUES.get(e.get("venue"), e.get("venue"))).split("—")[0].strip()
            yield [(f"{title} 儀注 — {venue}", None)]
            cast = [
                c["actor"] + (f"({c['name']})" if c.get("name") else "") for c in e.get("cast", [])
            ]
            if cast:
                yield [("cast: " + "、".join(cast), "dim")]
            continue
        if kind == "shot":
            shots[e["round"]].append(e)
            continue
        if kind == "tally":
            tallies.append(e)
            yield [
                (
                    f"      ⟶ {ROUNDS.get(e['round'], e['round'])} 數獲: "
                    f"右{e['right']} 左{e['left']} — {e['announcement']}",
                    "bold magenta",
                )
            ]
            continue
        if kind != "step":
            continue
        if e.get("round") != rnd:
            rnd = e.get("round")
            if rnd:
                yield [(f"── {ROUNDS.get(rnd, rnd)} ──", "bold blue")]
        if (e.get("section"), e.get("section_of")) != section:
            section = (e.get("section"), e.get("section_of"))
            if section[0] is not None:
                yield []
                if section[1]:
                    # a variant performing its base's passage (燕射 as 鄉射禮 does it)
                    base = SHORT_TITLES.get(section[1], section[1])
                    heading = f"{base} 第{cn_number(section[0])}節 {e.get('topic', '')}"
                else:
                    heading = f"第{cn_number(section[0])}節 {topic_of(section[0])}"
                yield [(heading.rstrip(), "bold underline")]
        yield step_segments(e)


def print_yizhu(
    events: Iterable[dict[str, Any]],
    console: Console,
    topics: dict[int, str] | Callable[[int], str] | None = None,
    drank: dict[int, list[str]] | None = None,
    assumptions: dict[str, tuple[str, str]] | None = None,
) -> None:
    """Print the 儀注 of a run's events on a rich console (with colours on a terminal).

    ``assumptions`` (id → (assumption, reason)) are listed at the end: what the text does not
    say and the run rests on, each with its reason. Lines are printed in batches: one rich
    print per line would cost more than the run itself.
    """
    shots: dict[int, list[dict[str, Any]]] = defaultdict(list)
    tallies: list[dict[str, Any]] = []
    batch: list[Text] = []
    for segs in yizhu_lines(events, topics, shots, tallies):
        batch.append(Text.assemble(*segs) if segs else Text(""))
        if len(batch) >= 500:
            console.print(Text("\n").join(batch))
            batch = []
    if batch:
        console.print(Text("\n").join(batch))
    print_summary(console, shots, tallies, drank or {})
    print_assumptions(console, assumptions)


def yizhu_text(
    events: Iterable[dict[str, Any]],
    topics: dict[int, str] | Callable[[int], str] | None = None,
    drank: dict[int, list[str]] | None = None,
    assumptions: dict[str, tuple[str, str]] | None = None,
    width: int = 120,
) -> str:
    """The 儀注 as plain text (no colours, lines not wrapped): for files and pipes.

    >>> text = yizhu_text([{"type": "step", "seq": 1, "round": 0, "section": 14,
    ...     "cite": "xiangshe:127", "actor": "司射", "verb": "立", "place": "中之西南",
    ...     "facing": "E", "says": None}], topics={14: "司射誘射教三耦射法之事"})
    >>> print(text.strip())
    第十四節 司射誘射教三耦射法之事
        1 司射 立  @中之西南 東面  xiangshe:127
    """
    shots: dict[int, list[dict[str, Any]]] = defaultdict(list)
    tallies: list[dict[str, Any]] = []
    out = ["".join(t for t, _ in segs) for segs in yizhu_lines(events, topics, shots, tallies)]
    tail = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    print_summary(tail, shots, tallies, drank or {})
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
    shots: dict[int, list[dict[str, Any]]],
    tallies: list[dict[str, Any]],
    drank: dict[int, list[str]],
) -> None:
    """The round summaries: arrows, hits, counted, the tally and who drank."""
    if not shots and not tallies:
        return
    table = Table(title="每番 summary", show_lines=False)
    for col in ("round", "arrows", "hits", "counted", "右", "左", "announcement", "飲"):
        table.add_column(col)
    by_round = {t["round"]: t for t in tallies}
    for r in sorted(set(shots) | set(by_round)):
        if r == 0:
            continue
        ss = shots.get(r, [])
        t = by_round.get(r)
        table.add_row(
            ROUNDS.get(r, str(r)),
            str(len(ss)),
            str(sum(1 for s in ss if s["hit"])),
            str(sum(1 for s in ss if s["counted"])),
            str(t["right"]) if t else "—",
            str(t["left"]) if t else "—",
            t["announcement"] if t else "獲而未釋獲 (xiangshe:150)" if r == 1 else "—",
            "、".join(drank.get(r, [])) or "—",
        )
    console.print()
    console.print(table)

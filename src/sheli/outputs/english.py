"""The 儀注 in English: each typed step as a sentence, with the text's term kept in brackets.

A step's actor, verb, object, place, facing and words said are read through the glossary
(``sheli/data/glossary.yaml``); the text's own term follows the English in brackets, so a
reader who knows none of the language still knows which term the text uses. A term the
glossary does not give stands alone in brackets: nothing Chinese is printed outside them.

>>> print(step_sentence({"type": "step", "seq": 7, "actor": "司射", "verb": "袒",
...     "place": "堂西", "facing": "W", "cite": "xiangshe:96"}))
The director of archery (司射) bares the arm (袒) west of the hall (堂西), facing west.
>>> announcement_en(19, 14)
'The right wins: the right exceeds the left by two pairs and a single (右賢於左二純一奇).'
"""

from __future__ import annotations

import io
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from rich.console import Console
from rich.table import Table

from sheli.glossary import english, parts
from sheli.i18n import ngettext, tr, use
from sheli.place.loader import VENUES
from sheli.scoring import announce, pure_odd, winner

__all__ = [
    "CJK_OUTSIDE_BRACKETS",
    "announcement_en",
    "cjk_outside_brackets",
    "english_lines",
    "english_yizhu_text",
    "step_sentence",
    "term",
]

FACING_EN = {
    "N": "north",
    "S": "south",
    "E": "east",
    "W": "west",
    "NE": "northeast",
    "NW": "northwest",
    "SE": "southeast",
    "SW": "southwest",
}
ROUNDS_EN = {
    0: "outside the rounds",
    1: "the first round of shooting",
    2: "the second round of shooting",
    3: "the third round of shooting",
}
_NUMBER_WORDS = "no one two three four five six seven eight nine ten".split()
# the directions a place name ends with (中之西南: southwest of the tally vessel)
_DIRECTIONS = {
    "東": "east",
    "西": "west",
    "南": "south",
    "北": "north",
    "東北": "northeast",
    "東南": "southeast",
    "西北": "northwest",
    "西南": "southwest",
    "前": "in front",
    "後": "behind",
    "下": "below",
    "上": "above",
}
_PREPOSITIONS = (
    "at ",
    "in ",
    "on ",
    "by ",
    "below ",
    "above ",
    "between ",
    "before ",
    "behind ",
    "outside ",
    "inside ",
    "north",
    "south",
    "east ",
    "west ",
    "east of",
    "west of",
    "in front",
)


def number_word(n: int) -> str:
    """A small count in words, as an announcement says it; larger ones in digits.

    >>> number_word(2), number_word(12)
    ('two', '12')
    """
    return _NUMBER_WORDS[n] if 0 <= n < len(_NUMBER_WORDS) else str(n)


def announcement_en(right: int, left: int) -> str:
    """The 告獲 (xiangshe:203–204) in English, the text's words in brackets.

    注: the surplus is told 「以純數告」, in pairs of rods (純), and a rod left over is a
    single (奇).

    >>> announcement_en(7, 7)
    'Left and right are equal (左右鈞).'
    >>> announcement_en(3, 5)
    'The left wins: the left exceeds the right by one pair (左賢於右一純).'
    """
    words = announce(right, left)
    win = winner(right, left)
    if win is None:
        return tr("Left and right are equal ({words}).").format(words=words)
    pure, odd = pure_odd(abs(right - left))
    amount = []
    if pure:
        amount.append(ngettext("{n} pair", "{n} pairs", pure).format(n=number_word(pure)))
    if odd:
        amount.append(tr("a single"))
    side, other = (tr("right"), tr("left")) if win == "right" else (tr("left"), tr("right"))
    return tr("The {side} wins: the {side} exceeds the {other} by {amount} ({words}).").format(
        side=side, other=other, amount=tr(" and ").join(amount), words=words
    )


def term(name: str, *kinds: str, article: bool = True) -> str:
    """A term of the text in English with the term itself in brackets; a term without
    English in brackets alone.

    >>> term("司射", "roles"), term("大侯之乏", "places"), term("飛鳥", "roles")
    ('the director of archery (司射)', 'the blind of the great target (大侯之乏)', '(飛鳥)')
    >>> term("中之西南", "places")
    'southwest of the tally vessel (中之西南)'
    """
    en = _english_name(name, *kinds)
    if en is None:
        return f"({name})"
    if article and not en.startswith(("the ", "a ", "an ")) and not en.startswith(_PREPOSITIONS):
        en = "the " + en
    return f"{en} ({name})"


def _english_name(name: str, *kinds: str) -> str | None:
    whole = english(name, *kinds)
    if whole is not None:
        return whole
    for direction in sorted(_DIRECTIONS, key=len, reverse=True):
        # a place named from another: 中之西南, 階西
        base = name[: -len(direction)].removesuffix("之")
        if name.endswith(direction) and base:
            of = _english_name(base, *kinds) or _english_name(base)
            if of is not None:
                return f"{_DIRECTIONS[direction]} of {_the(of)}"
    pieces = parts(name, *kinds)
    if not pieces:
        return None
    words = [english(p, *kinds) or p for p in pieces]
    # 大侯之乏, 大夫耦下射: the last is the thing, the ones before it what it belongs to
    out = words[-1]
    for w in reversed(words[:-1]):
        out = f"{out} of {_the(w)}"
    return out


def _the(en: str) -> str:
    return en if en.startswith(("the ", "a ", "an ")) else "the " + en


_ES = ("s", "sh", "ch", "x", "z", "o")


def third_person(verb: str) -> str:
    """An English verb phrase of the glossary with its first word in the third person.

    >>> third_person("go up"), third_person("carry"), third_person("wash"), third_person("be at")
    ('goes up', 'carries', 'washes', 'is at')
    """
    first, sep, rest = verb.partition(" ")
    if first == "be":
        first = "is"
    elif first == "have":
        first = "has"
    elif first.endswith("y") and first[-2:-1] not in "aeiou":
        first = first[:-1] + "ies"
    elif first.endswith(_ES):
        first += "es"
    else:
        first += "s"
    return first + sep + rest


def step_sentence(e: Any) -> str:
    """One step (a :class:`~sheli.engine.records.Step` or its log line) as an English sentence.

    >>> s = step_sentence({"seq": 3, "actor": "上耦上射", "verb": "揖", "place": "西階前",
    ...     "facing": "N", "cite": "xiangshe:120"})
    >>> print(s.replace(" salutes ", "\\nsalutes "))
    The upper archer of the upper pair (上耦上射)
    salutes (揖) in front of the west steps (西階前), facing north.
    """
    if hasattr(e, "to_json"):
        e = e.to_json()
    actor = term(e["actor"], "roles")
    actor = actor[0].upper() + actor[1:]
    if e.get("name"):
        actor += f" ({e['name']})"
    verb_en = english(e["verb"], "verbs")
    verb = f"{third_person(verb_en)} ({e['verb']})" if verb_en else f"does ({e['verb']})"
    words = [actor, verb]
    if e.get("obj"):
        count = e.get("count")
        obj = term(e["obj"], "objects", "dress", "places", "roles")
        words.append(f"{count} × {obj}" if count not in (None, 1) else obj)
    if e.get("side"):
        words.append(f"({e['side']})")
    if e.get("to"):
        words.append(tr("to") + " " + term(e["to"], "roles", "places"))
    if e.get("at"):
        words.append(tr("at") + " " + term(e["at"], "places", "objects"))
    if e.get("place"):
        place = term(e["place"], "places", "objects")
        if not place.startswith(_PREPOSITIONS):
            place = tr("at") + " " + place
        words.append(place)
    sentence = " ".join(words)
    if e.get("facing"):
        facing = FACING_EN.get(e["facing"])
        sentence += ", " + (tr("facing {dir}").format(dir=facing) if facing else f"({e['facing']})")
    if e.get("says"):
        sentence += ", " + tr("and says ({words})").format(words=f"「{e['says']}」")
    sentence += "."
    if e.get("shot"):
        s = e["shot"]
        mark = tr("hit") if s["hit"] else tr("miss")
        sentence += f" [{mark}{', ' + tr('counted') if s['counted'] else ''}]"
    if e.get("note"):
        sentence += f" ({e['note']})"
    if e.get("assumes"):
        sentence += " [" + ",".join(e["assumes"]) + "]"
    return sentence


_CJK = re.compile(
    r"[\u2e80-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\U00020000-\U0003ffff]"
)
_BRACKETED = re.compile(r"\([^()]*\)")
CJK_OUTSIDE_BRACKETS = _CJK


def cjk_outside_brackets(text: str) -> list[str]:
    """The lines of ``text`` with a CJK character outside round brackets (nested ones too).

    >>> cjk_outside_brackets("The guest (賓) bows.\\nThe 賓 bows.")
    ['The 賓 bows.']
    """
    # a bracket may run over a line (a wrapped table cell): strip them over the whole text
    stripped, n = text, 1
    while n:
        stripped, n = _BRACKETED.subn(lambda m: "\n" * m.group().count("\n"), stripped)
    bad = []
    for line, kept in zip(text.splitlines(), stripped.splitlines(), strict=False):
        if _CJK.search(kept):
            bad.append(line)
    return bad


def english_lines(
    events: Iterable[Any],
    topics: dict[int, str] | Callable[[int], str] | None,
    shots: dict[int, list[dict[str, Any]]],
    tallies: list[dict[str, Any]],
) -> Iterator[str]:
    """The English 儀注 line by line; fills ``shots`` and ``tallies`` for the summary.

    >>> line = list(english_lines([{"type": "tally", "round": 2, "right": 19, "left": 14,
    ...     "announcement": "右賢於左二純一奇"}], None, defaultdict(list), []))[0]
    >>> print(line.replace(" — ", "\\n"))
          ⟶ the second round of shooting, the count (數獲): right 19, left 14
    The right wins: the right exceeds the left by two pairs and a single (右賢於左二純一奇).
    """
    use("en")
    topic_of = topics if callable(topics) else (topics or {}).get
    section: tuple[Any, Any] = (-1, None)
    rnd: int | None = None
    for e in events:
        if hasattr(e, "to_json"):
            e = e.to_json()
        kind = e.get("type")
        if kind == "scene":
            title = e.get("title") or e.get("rite")
            venue = str(VENUES.get(e.get("venue"), e.get("venue"))).split("—")[0].strip()
            yield tr("Order of ceremony (儀注) of ({title}) — venue ({venue})").format(
                title=title, venue=venue
            )
            cast = [
                term(c["actor"], "roles") + (f" ({c['name']})" if c.get("name") else "")
                for c in e.get("cast", [])
            ]
            if cast:
                yield tr("cast") + ": " + "; ".join(cast)
            continue
        if kind == "shot":
            shots[e["round"]].append(e)
            continue
        if kind == "tally":
            tallies.append(e)
            yield (
                f"      ⟶ {tr(ROUNDS_EN.get(e['round'], str(e['round'])))}, "
                + tr("the count (數獲): right {right}, left {left}").format(
                    right=e["right"], left=e["left"]
                )
                + f" — {announcement_en(e['right'], e['left'])}"
            )
            continue
        if kind != "step":
            continue
        if e.get("round") != rnd:
            rnd = e.get("round")
            if rnd:
                yield f"── {tr(ROUNDS_EN.get(rnd, str(rnd)))} ──"
        if (e.get("section"), e.get("section_of")) != section:
            section = (e.get("section"), e.get("section_of"))
            if section[0] is not None:
                yield ""
                topic = e.get("topic", "") if section[1] else (topic_of(section[0]) or "")
                base = f" ({section[1]})" if section[1] else ""
                yield (
                    tr("Section {n}").format(n=section[0]) + base + (f" ({topic})" if topic else "")
                )
        yield f"{e['seq']:>5} {step_sentence(e)}  {e['cite']}" + (
            f" (as at {e['as']['cite']})" if e.get("as") and e["as"]["cite"] != e["cite"] else ""
        )


def english_yizhu_text(
    events: Iterable[Any],
    topics: dict[int, str] | Callable[[int], str] | None = None,
    drank: dict[int, list[str]] | None = None,
    assumptions: dict[str, tuple[str, str]] | None = None,
    width: int = 120,
) -> str:
    """The English 儀注 as plain text, with the round summaries and the assumptions.

    >>> print(english_yizhu_text([{"type": "step", "seq": 1, "round": 0, "section": 14,
    ...     "cite": "xiangshe:127", "actor": "司射", "verb": "立", "place": "中之西南",
    ...     "facing": "E"}], topics={14: "司射誘射教三耦射法之事"}).replace(", f", ",\\nf").strip())
    Section 14 (司射誘射教三耦射法之事)
        1 The director of archery (司射) stands (立) southwest of the tally vessel (中之西南),
    facing east.  xiangshe:127
    """
    shots: dict[int, list[dict[str, Any]]] = defaultdict(list)
    tallies: list[dict[str, Any]] = []
    out = list(english_lines(events, topics, shots, tallies))
    tail = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    _summary(tail, shots, tallies, drank or {})
    if assumptions:
        tail.print()
        tail.print(tr("Assumptions (what the text does not say)"), markup=False)
        for key, (what, why) in assumptions.items():
            tail.print(f"  [{key}] ({what}) — ({why})", markup=False, highlight=False)
    return "\n".join(out) + "\n" + tail.export_text()


def _summary(
    console: Console,
    shots: dict[int, list[dict[str, Any]]],
    tallies: list[dict[str, Any]],
    drank: dict[int, list[str]],
) -> None:
    if not shots and not tallies:
        return
    table = Table(title=tr("Summary of each round"))
    for col in ("round", "arrows", "hits", "counted", "right", "left", "announcement", "drank"):
        table.add_column(tr(col))
    by_round = {t["round"]: t for t in tallies}
    for r in sorted(set(shots) | set(by_round)):
        if r == 0:
            continue
        ss = shots.get(r, [])
        t = by_round.get(r)
        if t:
            said = announcement_en(t["right"], t["left"])
        else:
            said = tr("hits not counted (獲而未釋獲, xiangshe:150)") if r == 1 else "—"
        table.add_row(
            tr(ROUNDS_EN.get(r, str(r))),
            str(len(ss)),
            str(sum(1 for s in ss if s["hit"])),
            str(sum(1 for s in ss if s["counted"])),
            str(t["right"]) if t else "—",
            str(t["left"]) if t else "—",
            said,
            "; ".join(term(d, "roles") for d in drank.get(r, [])) or "—",
        )
    console.print()
    console.print(table)

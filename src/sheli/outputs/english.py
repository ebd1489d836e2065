"""The 儀注 in English: each typed step as a sentence, with the text's term kept in brackets.

A step's actor, verb, object, place, facing and words said are read through the glossary
(``sheli/data/glossary.yaml``); the text's own term follows the English in brackets, so a
reader who knows none of the language still knows which term the text uses. A term the
glossary does not give stands alone in brackets: nothing Chinese is printed outside them.

>>> from sheli.engine.state import Holding, Objects
>>> print(step_sentence(Step(7, 0, 9, "xiangshe:96", None, "司射", "袒", None, None, "W",
...     Holding(), None, "堂西", [], 0, Objects())))
The director of archery (司射) bares his left arm (袒) west of the hall (堂西), facing west.
>>> announcement_en(19, 14)
'The right wins: the right exceeds the left by two pairs and a single (右賢於左二純一奇).'
"""

from __future__ import annotations

import functools
import io
import re
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator
from importlib import resources
from typing import Any

import yaml
from rich.console import Console
from rich.table import Table

from sheli.engine.records import Record, Scene, Shot, Step, Tally
from sheli.glossary import directions, english, glossary, parts, title_english
from sheli.i18n import translation
from sheli.outputs.cues import (
    ASSUMPTION_ID,
    AssumptionMarks,
)
from sheli.place.loader import VENUES
from sheli.scoring import announce, pure_odd, winner

# This module's strings are always English, whatever --lang the command chose: the English
# catalogue is read directly (tr and ngettext are the names `make messages` extracts).
tr = translation("en").gettext
ngettext = translation("en").ngettext

__all__ = [
    "CJK_OUTSIDE_BRACKETS",
    "announcement_en",
    "assumption_english",
    "cjk_outside_brackets",
    "english_lines",
    "english_yizhu_text",
    "step_sentence",
    "term",
    "title_words",
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
    "north of",
    "south of",
    "northeast of",
    "northwest of",
    "southeast of",
    "southwest of",
    "east of",
    "west of",
    "in front",
    "at the top",
    "at the foot",
    "among ",
    "round the ",
    "some way ",
    "well ",
    "just ",
    "hard by ",
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
    side = tr("right") if win == "right" else tr("left")
    said = _surplus_words(right, left)
    return tr("The {side} wins: {said} ({words}).").format(side=side, said=said, words=words)


def _surplus_words(right: int, left: int) -> str:
    """What the scorer says of the winner's surplus, in English (the text's 以純數告).

    >>> _surplus_words(19, 14), _surplus_words(4, 4)
    ('the right exceeds the left by two pairs and a single', 'left and right are equal')
    """
    win = winner(right, left)
    if win is None:
        return tr("left and right are equal")
    pure, odd = pure_odd(abs(right - left))
    amount = []
    if pure:
        amount.append(ngettext("{n} pair", "{n} pairs", pure).format(n=number_word(pure)))
    if odd:
        amount.append(tr("a single"))
    side, other = (tr("right"), tr("left")) if win == "right" else (tr("left"), tr("right"))
    return tr("the {side} exceeds the {other} by {amount}").format(
        side=side, other=other, amount=tr(" and ").join(amount)
    )


@functools.cache
def _announcements() -> dict[str, tuple[int, int]]:
    """The scorer's announcements (左賢於右一純一奇) → a count that gives them: the words said
    are read back into English by their count (a surplus of up to 400 rods)."""
    out: dict[str, tuple[int, int]] = {}
    for d in range(400, -1, -1):
        out[announce(d, 0)] = (d, 0)
        out[announce(0, d)] = (0, d)
    return out


def words_said(words: str) -> str:
    """Words said (a step's ``says``) in English, the text's words in brackets after them:
    the glossary's ``words``, or a count announced read by its parts; the text's words alone
    where sheli has no English for them.

    >>> words_said("左右卒射")
    '"Left and right have finished shooting" (「左右卒射」)'
    >>> words_said("左賢於右一純一奇")
    '"The left exceeds the right by one pair and a single" (「左賢於右一純一奇」)'
    >>> words_said("闋")
    'the close (「闋」)'
    """
    en = glossary()["words"].get(words)
    if en is None and words in _announcements():
        said = _surplus_words(*_announcements()[words])
        en = said[0].upper() + said[1:]
    if en is None:
        return f"(「{words}」)"
    # words said, or a piece named, are quoted; what describes them ("the close") is not
    plain = en[0].islower() or '"' in en  # "Lu ming", three times through
    return f"{en} (「{words}」)" if plain else f'"{en}" (「{words}」)'


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
    # the glossary's English may carry the term already (young men (弟子))
    return en if en.endswith(f"({name})") else f"{en} ({name})"


# a row's head: 北上, the north end the first (the glossary's "the north as the place of honour")
_RANKED = re.compile(r"(.+?)([東西南北])上")


@functools.lru_cache(maxsize=8192)  # a name recurs in every step it is in (the viewer's)
def _english_name(name: str, *kinds: str) -> str | None:
    whole = english(name, *kinds)
    if whole is not None:
        return whole
    ranked = _RANKED.fullmatch(name)
    if ranked:
        # 次北北上, 西階之南東上: people (or things) in a line, the first at one end
        base = _english_name(ranked.group(1), *kinds) or _english_name(ranked.group(1))
        if base is not None:
            return f"{base}, {english(ranked.group(2) + '上', 'places')}"
    chain = _place_chain(name, kinds)
    if chain is not None:
        head, tail = chain_words(chain)
        return head + tail
    two = re.fullmatch(r"(.+?)之?[閒間]", name)
    pair = parts(two.group(1)) if two else None
    if pair is not None and len(pair) == 2:
        # 中庭司馬之閒: between two things or people, each named (xiangshe:332)
        a, b = (_TERM_AFTER.sub("", english(p) or p) for p in pair)
        return f"between {_the(a)} and {_the(b)}"
    owner, sep, seat = name.rpartition("之")
    if sep and seat == "位" and owner:
        # 大夫之耦之位, 工之位: a person's place, named by the person
        who = _english_name(owner, "roles") or _english_name(owner)
        if who is not None:
            return f"the place of {_the(who)}"
    pieces = parts(name, *kinds)
    if not pieces:
        return None
    words = [_counted(name, p, english(p, *kinds) or p) for p in pieces]
    # 大侯之乏, 大夫耦下射: the last is the thing, the ones before it what it belongs to
    out = words[-1]
    for w in reversed(words[:-1]):
        out = f"{out} of {_the(w)}"
    return out


#: a place said from another: (the English of the first relation, its compass side or None,
#: the compass sides taken after it, in order): 中之西之南 is ("west of the tally vessel",
#: "西", ("南",)), said "west of the tally vessel and a little to the south"
PlaceChain = tuple[str, str | None, tuple[str, ...]]
_COMPASS_SIDES = ("東北", "東南", "西北", "西南", "東", "西", "南", "北")
_OPPOSITE = {"東": "西", "西": "東", "南": "北", "北": "南"}
_TERM_AFTER = re.compile(r" \([^()]*[\u3400-\u9fff][^()]*\)$")


@functools.lru_cache(maxsize=8192)
def _place_chain(name: str, kinds: tuple[str, ...]) -> PlaceChain | None:
    """A place named from another by its sides (中之西南, 西階上之東, 西階前之南之南), as a
    :data:`PlaceChain`; None for a name that is not one.

    >>> _place_chain("中之西之南", ("places", "objects"))
    ('west of the tally vessel', '西', ('南',))
    >>> _place_chain("西階上之東", ("places",))
    ('at the top of the west steps', None, ('東',))
    """
    if english(name, *kinds) is not None:
        return None  # listed whole (堂東南: round the south-east corner of the hall)
    sides = directions()
    for direction in sorted(sides, key=len, reverse=True):
        base = name[: -len(direction)].removesuffix("之")
        if not (name.endswith(direction) and base):
            continue
        inner = _place_chain(base, kinds)
        if inner is None:
            of = english(base, *kinds) or _english_name(base, *kinds) or _english_name(base)
            if of is None:
                continue
            of = _TERM_AFTER.sub("", of)  # the tamer of beasts (服不): the term is said once
            inner = (of, _side_of(of), ())
        head, side, rest = inner
        if direction not in _COMPASS_SIDES:
            # 上, 下, 前, 後 of a place that is itself a relation: rare; said in full
            if rest or _relation(head):
                return (f"{sides[direction]} the spot {head}{chain_words(inner)[1]}", None, ())
            return (f"{sides[direction]} {_the(head)}", None, ())
        if _relation(head) is None and not rest:  # a thing: south of the tally vessel
            return (f"{sides[direction]} {_the(head)}", direction, ())
        return (head, side, (*rest, direction))
    return None


def _side_of(en: str) -> str | None:
    """The compass side an English place begins with (north of the robing tent: 北)."""
    sides = directions()
    return next((d for d in _COMPASS_SIDES if en.startswith(sides[d] + " ")), None)


def _side_word(d: str) -> str:
    return directions()[d].removesuffix(" of")


# the same side said again, and again (中之南之南, 中之南之南之南): a comparative with nothing
# said to compare ("farther south of the tally vessel") reads wrong, so how far, plainly
_FURTHER = ("", "some way ", "well ")
# back towards the thing after a side (次北之南): close to it on that side
_NEARER = ("just ", "hard by ")


def chain_words(chain: PlaceChain) -> tuple[str, str]:
    """A place said from another, as one natural phrase: its first relation (the head,
    which a verb's mode may turn: "to the top of …") and what follows it, each side
    taken after it said once, not as "south of the spot south of …".

    >>> chain_words(("in front of the west steps", None, ("南", "南")))
    ('in front of the west steps', ', some way to the south')
    >>> chain_words(("south of the tally vessel", "南", ("南",)))
    ('some way south of the tally vessel', '')
    >>> chain_words(("north of the robing tent", "北", ("南",)))
    ('just north of the robing tent', '')
    >>> chain_words(("north of the robing tent", "北", ("南", "南")))
    ('hard by the robing tent', ', on its north side')
    >>> chain_words(("south of the guest's mat", "南", ("西", "南")))
    ("south of the guest's mat", ' and a little to the southwest')
    """
    head, side, rest = chain
    # the same side again: farther that way (中之南之南: some way south of the tally vessel)
    same = 0
    while same < len(rest) and rest[same] == side and same < len(_FURTHER) - 1:
        same += 1
    if same:
        head = _FURTHER[same] + head
    rest = rest[same:]
    back = 0
    while not same and side and back < len(rest) and rest[back] == _OPPOSITE.get(side, ""):
        back += 1
    if side and back and back == len(rest) and " of " in head:
        # north of the robing tent, then south of that: just north of it, or hard by it
        if back == 1:
            return _NEARER[0] + head, ""
        return _NEARER[1] + head.split(" of ", 1)[1], f", on its {_side_word(side)} side"
    runs: list[tuple[str, int]] = []
    for d in rest:
        if runs and runs[-1][0] == d:
            runs[-1] = (d, runs[-1][1] + 1)
        else:
            runs.append((d, 1))
    if len(runs) == 2 and runs[0][1] == runs[1][1] == 1:
        a, b = runs[0][0], runs[1][0]
        if len(a) == len(b) == 1 and a not in (b, _OPPOSITE[b]):
            # west, then south of that: the spot to the southwest (南北 named first)
            pair = "".join(sorted((a, b), key="東西".find))[::-1]
            return head, _after_side(side, f"to the {_side_word(pair)}")
    said = []
    for n, (d, k) in enumerate(runs):
        before = side if n == 0 else runs[n - 1][0]
        if before is not None and len(d) == 1 and _OPPOSITE.get(d) == before:
            # north of the robing tent, then south of that: back towards the thing
            it = "them" if _plural(head.split(" of ", 1)[-1]) else "it"
            said.append(f"back towards {it}")
        else:
            said.append(f"{_FURTHER[min(k, 3) - 1]}to the {_side_word(d)}")
    if said and not said[0].startswith("back"):
        return head, _after_side(side, said[0]) + "".join(f", {w}" for w in said[1:])
    return head, "".join(f", {w}" for w in said)


def _after_side(side: str | None, went: str) -> str:
    """A way taken after a compass side, said with it as one spot: "west of the tally vessel
    and a little to the north", not "west of the tally vessel, to the north" (two places);
    after a thing's own part (at the top of the west steps) the side stays apart.

    >>> _after_side("西", "to the north"), _after_side(None, "to the east")
    (' and a little to the north', ', on the east side')
    >>> _after_side(None, "to the southeast")
    ', to the southeast'
    >>> _after_side("西", "some way to the south")
    ' and some way to the south'
    """
    if side is None:
        # at the top of the west steps, on the east side: not "…, to the east", which reads
        # as a way he goes on
        one = re.fullmatch(r"to the (north|south|east|west)", went)
        return f", on the {one.group(1)} side" if one else f", {went}"
    return " and " + (went if went.startswith(_FURTHER[1:]) else f"a little {went}")


_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
_NUMERAL = re.compile(r"[0-9]+|[一二三四五六七八九十]")


def _counted(name: str, piece: str, en: str) -> str:
    """The English of one part of a name, made the ordinal the name gives it: 大夫耦1上射 is
    the upper archer of the first great officer's pair, 小射正二 the second assistant
    archery officer (a run numbers the people of one role; several stay as they are).

    >>> _counted("大夫耦1上射", "大夫耦", "a great officer's pair")
    "the first great officer's pair"
    >>> _counted("小射正二", "小射正", "assistant archery officer")
    'the second assistant archery officer'
    """
    at = name.find(piece)
    m = _NUMERAL.match(name, at + len(piece)) if at >= 0 else None
    if m is None or _plural(en):
        return en
    n = int(m.group()) if m.group().isdigit() else "一二三四五六七八九十".index(m.group()) + 1
    if not 1 <= n <= len(_ORDINALS):
        return en
    return f"the {_ORDINALS[n - 1]} {re.sub(r'^(the|a|an) ', '', en)}"


@functools.cache
def _rite_names(rite: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """The glossary's English for a name in one rite (``大夫耦/dashe``), as substitutions for
    the name's own English in a sentence of that rite: 大射儀's 大夫耦 is two great officers
    (dashe:123), 鄉射禮's a great officer and his partner.

    >>> [w for _, w in _rite_names("dashe")], _rite_names("xiangshe")
    (['pair of great officers'], ())
    """
    out = []
    for key, en in glossary()["roles"].items():
        name, sep, where = key.partition("/")
        own = english(name, "roles")
        if not sep or where != rite or own is None:
            continue
        base = re.sub(r"^(the|a|an) ", "", own)
        ordinal = "|".join(_ORDINALS)
        pattern = re.compile(rf"\b((?:the|a|an)(?: (?:{ordinal}))?) {re.escape(base)}")
        out.append((pattern, re.sub(r"^(the|a|an) ", "", en)))
    return tuple(out)


def in_rite(sentence: str, rite: str) -> str:
    """A sentence with the names its rite says its own way (:func:`_rite_names`).

    >>> in_rite("The upper archer of the first great officer's pair (大夫耦1上射)", "dashe")
    'The upper archer of the first pair of great officers (大夫耦1上射)'
    >>> in_rite("The upper archer of the first great officer's pair", "xiangshe")
    "The upper archer of the first great officer's pair"
    """
    for pattern, en in _rite_names(rite):
        sentence = pattern.sub(rf"\1 {en}", sentence)
    return sentence


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


def agree(verb: str, many: bool) -> str:
    """A verb phrase in its plain form made to agree with a subject of one or of several.

    >>> agree("be at", True), agree("be at", False), agree("bow", True), agree("bow", False)
    ('are at', 'is at', 'bow', 'bows')
    >>> agree("bare his left arm", True)
    'bare their left arms'
    """
    if not many:
        return third_person(verb)
    first, sep, rest = verb.partition(" ")
    rest = re.sub(r"\bhis\b", "their", rest)  # they bare their left arms
    rest = re.sub(r"\b(arm|hand)\b", r"\1s", rest) if rest != verb.partition(" ")[2] else rest
    return ("are" if first == "be" else first) + sep + rest


def _plural(en: str) -> bool:
    """Whether an English role names several people (the verb then agrees).

    >>> _plural("the other guests (衆賓)"), _plural("the guest (賓)"), _plural("the young men")
    (True, False, True)
    """
    head = en.split(" (")[0].split(" of ")[0].split()[-1]
    return head in ("men", "people") or (head.endswith("s") and not head.endswith(("ss", "'s")))


_IRREGULAR_PLURALS = {"man": "men", "person": "people", "goblet": "goblets", "staff": "staffs"}


def plural_noun(en: str) -> str:
    """An English noun phrase of the glossary for several of the thing: the head noun (the
    word before " of ", else the last) takes the plural.

    >>> plural_noun("arrow"), plural_noun("stand of meat"), plural_noun("tally rods")
    ('arrows', 'stands of meat', 'tally rods')
    >>> plural_noun("dish"), plural_noun("cup (empty)")
    ('dishes', 'cups (empty)')
    """
    phrase, bracket, tail = en.partition(" (")
    head, of, rest = phrase.partition(" of ")
    words = head.split(" ")
    last = words[-1]
    if last in _IRREGULAR_PLURALS:
        last = _IRREGULAR_PLURALS[last]
    elif last.endswith("s") and not last.endswith("ss"):
        pass
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        last = last[:-1] + "ies"
    elif last.endswith(_ES):
        last += "es"
    else:
        last += "s"
    words[-1] = last
    return " ".join(words) + of + rest + bracket + tail


@functools.cache
def verb_frames() -> dict[str, str]:
    """The verb frames (``sheli/data/verb_frames.yaml``): the text's verb → its English frame.

    >>> verb_frames()["適"], verb_frames()["射"]
    ('go {place:to}', 'shoot {object} {place:from}')
    """
    text = resources.files("sheli").joinpath("data", "verb_frames.yaml").read_text("utf-8")
    return {str(k): str(v) for k, v in yaml.safe_load(text).items()}


_SLOT = re.compile(r"\{(\w+)(?::(\w+))?(?:=([^{}]*))?\}")
# a relation of one place to another, as the glossary's directions and places say it
_RELATIONS = (
    "northeast of ",
    "northwest of ",
    "southeast of ",
    "southwest of ",
    "north of ",
    "south of ",
    "east of ",
    "west of ",
    "at the top of ",
    "at the foot of ",
    "in front of ",
    "behind ",
    "between ",
    "below ",
    "above ",
    "level with ",
    "in line with ",
    "among ",
    "round ",
    "hard by ",
)


# relations a verb of motion goes to as they are: "goes between the pillars"
_BESIDE = (
    "behind",
    "between",
    "below",
    "above",
    "level with",
    "in front of",
    "among",
    "round",
    "hard by",
)


def _relation(en: str) -> str | None:
    return next((r for r in _RELATIONS if en.startswith(r)), None)


def place_phrase(name: str, mode: str = "at", *kinds: str) -> str:
    """Where a step is done, composed from the place's structure, the text's term in
    brackets: ``mode`` is ``at`` (where he stands), ``to`` (where he goes), ``up`` (the
    steps he goes up or down), ``from`` (where he shoots from) or ``by`` (the way he goes).

    >>> place_phrase("楅之南", "to"), place_phrase("次", "to")
    ('to the south of the arrow rest (楅之南)', 'to the robing tent (次)')
    >>> place_phrase("西階", "up"), place_phrase("西階上", "up")
    ('the west steps (西階)', 'to the top of the west steps (西階上)')
    >>> place_phrase("中之西之北")
    'west of the tally vessel and a little to the north (中之西之北)'
    >>> place_phrase("中之南之南", "to")
    'to a spot some way south of the tally vessel (中之南之南)'
    >>> place_phrase("右物", "from"), place_phrase("堂西", "at")
    ('from the right shooting mark (右物)', 'west of the hall (堂西)')
    """
    en = _english_name(name, *(kinds or ("places", "objects"))) or _english_name(name)
    if en is None:
        # no English for the place: the term alone, still in its phrase
        en = f"the place ({name})"
        return {"at": "at ", "to": "to ", "from": "from ", "by": ""}.get(mode, "to ") + en
    ranked = _RANKED.fullmatch(name)
    if ranked and english(name, *(kinds or ("places", "objects"))) is None:
        row = english(ranked.group(2) + "上", "places")
        head = place_phrase(ranked.group(1), mode, *kinds).removesuffix(f" ({ranked.group(1)})")
        if row is not None and "the place (" not in head:
            return f"{head}, {row} ({name})"
    chain = _place_chain(name, kinds or ("places", "objects"))
    tail = ""
    if chain is not None:
        en, tail = chain_words(chain)
    farther, en = _split_farther(en)
    rel = _relation(en)
    if farther and rel is not None and mode != "at":
        # some way south of the tally vessel: a spot, gone to or stood on
        spot = f"a spot {farther}{en}"
        said = {"to": "to ", "up": "to ", "from": "from ", "by": ""}[mode] + spot
        return f"{said}{tail} ({name})"
    en = farther + en
    if rel is None:
        thing = _the(en)
        if mode == "up" and thing.endswith(("steps", "stairs")) and " step of " not in thing:
            said = thing
        else:
            prep = {"at": "at ", "to": "to ", "up": "to ", "from": "from ", "by": ""}
            said = f"{prep.get(mode, 'at ')}{thing}"
    elif mode == "at":
        said = en
    elif rel.startswith("at the "):  # at the top of: to / from the top of
        said = ("from " if mode == "from" else "to ") + en.removeprefix("at ")
    elif rel.strip() == "in front of" and mode == "to":  # advances to the front of …
        said = "to the front of " + en.removeprefix("in front of ")
    elif rel == "hard by " and mode in ("to", "by"):
        said = ("to a spot " if mode == "to" else "the spot ") + en
    elif rel.strip() in _BESIDE:
        said = ("from " + en) if mode == "from" else en
    else:  # a compass side: to the south of, from the spot south of
        said = ("from the spot " if mode == "from" else "to a spot " if tail else "to the ") + en
        if mode == "by":  # the frame says "by way of"
            said = "the spot " + en
    return f"{said}{tail} ({name})"


def _split_farther(en: str) -> tuple[str, str]:
    for f in (*reversed(_FURTHER[1:]), _NEARER[0]):
        if en.startswith(f):
            return f, en.removeprefix(f)
    return "", en


def _slot(e: Step, kind: str, mode: str | None, default: str | None = None) -> str:
    """One slot of a verb frame filled from the step, or ``default`` (the frame's words after
    ``=``: 卒觶 "drain {object=the cup}") or "" where the step has nothing."""
    if kind == "object":
        if not e.obj:
            return default or ""
        kinds = ("objects", "dress", "places", "roles")
        count = None if mode == "one" else e.number
        if mode == "from":
            return f"{tr('from')} {term(e.obj, *kinds)}"
        sets = glossary()["sets"]
        if mode == "many" and count is None and e.obj in sets:  # 束, 委 the arrows
            return f"the {sets[e.obj]} ({e.obj})"
        if isinstance(count, int):
            en = _english_name(e.obj, *kinds)
            if en is None:
                return f"{number_word(count)} ({e.obj})"
            en = re.sub(r"^(the|a|an) ", "", en)
            # one of several (取一个, 挾一个): "one arrow", not "the arrow"
            return f"{number_word(count)} {en if count == 1 else plural_noun(en)} ({e.obj})"
        if count not in (None, 1):
            return f"{term(e.obj, *kinds)} ({count})"
        said = term(e.obj, *kinds)
        if _set_out_as_several(e):
            # 席 set out as the musicians' mats (工席): the mats, as many as the place names
            said = plural_noun(said)
        side_said = e.side and "{side" not in verb_frames().get(e.verb, "")
        return said + (f" ({e.side})" if side_said else "")
    if kind == "side":  # the side whose hits are tallied or counted
        if not e.side:
            return ""
        side = {"右": tr("the right"), "左": tr("the left")}.get(e.side)
        said = f"{tr('for')} {side} ({e.side})" if side else f"({e.side})"
        # "for the left, west of the tally vessel", not "for the left west of …"
        return said + ("," if e.place and e.place != e.at and not e.obj else "")
    if kind == "words":  # the piece sung or played
        return words_said(e.says) if e.says else ""
    if kind == "count":
        return number_word(e.number) if isinstance(e.number, int) else str(e.number or "")
    if kind == "whom":
        if not e.to:
            return default or ""
        whom = _own(term(e.to, "roles", "places"), e.actor)  # orders his guide (主人之相)
        if mode == "direct":
            return whom
        return f"{tr(mode or 'to')} {whom}"
    if kind == "at":
        if not e.at or e.at == e.obj:
            return ""
        if mode != "as":
            return _own(place_phrase(e.at, mode or "at", "places", "objects"), e.actor)
        if mode == "as" and _same_kind(e.obj, e.at):  # the basket as the lower basket
            said = term(e.at, "places", "objects")
            n = re.search(r"([0-9]+)$", e.at)
            if n and _plural(said) and 1 <= int(n.group(1)) <= len(_ORDINALS):
                # a mat as 衆賓席2: the second of the mats of the other guests
                said = f"the {_ORDINALS[int(n.group(1)) - 1]} of {said}"
            return f"{tr('as')} {said}"
        if mode == "as":  # the dishes at the left wing of the target
            mode = "at"
        return place_phrase(e.at, mode or "at", "places", "objects")
    if kind == "place":
        if not e.place or e.place in (e.at, e.obj):  # stretches the target, not "… at it"
            return ""
        if mode in ("standing", "beside"):  # he orders someone: where he stands, not
            # where that one is; he puts the rods in the vessel standing beside it
            said = _him(place_phrase(e.place, "at", "places", "objects"), e)
            return f", {tr('standing')} {said}" if e.to or mode == "beside" else said
        said = _own(place_phrase(e.place, mode or "at", "places", "objects"), e.actor)
        if e.to and e.place == f"{e.to}之位":  # hands it to him at his place, not "at the
            # place of the upper archer of the first great officer's pair" said twice over
            his = "their" if _plural(term(e.to, "roles")) else "his"
            said = f"{'to' if mode == 'to' else 'at'} {his} place ({e.place})"
        if re.match(r"at (?:his|their) place \(", said) and "his place" in verb_frames().get(
            e.verb, ""
        ):
            return ""  # returns to his place, not "to his place at his place"
        if e.to and mode in (None, "at") and _him(said, e) != said:
            # handed to the great officer east of him, not "east of the great officer" again
            return ", standing " + _him(said, e)
        if e.at and "{at" in verb_frames().get(e.verb, "") and (e.at != e.obj or _puts(e)):
            # where he stands to do it, apart from the thing he does it at: "sets the cup
            # down at the basket, standing west of the basket", not "at … west of …"; a
            # thing set out at its own place (尊 at 尊): the place said is his, not its
            # (xiangshe:7 has the 篚 south of the 尊, and he stands south of the 篚)
            return f", standing {_it(said, e)}"
        return said
    raise ValueError(f"a verb frame has the slot {{{kind}}}: no such slot")


# a place named from a person by its side: 大夫之東, 主人之西
_COMPASS_OF = re.compile(r"(?:之?(?:東北|東南|西北|西南|東|西|南|北))+")
# verbs that put a thing somewhere: a place said after the thing reads as where it goes
_PUTTING = ("設", "奠", "委", "倚", "加", "薦")


def _him(said: str, e: Step) -> str:
    """A place named from the one the step names (大夫之東 for 授 … 大夫) said with "him" or
    "them" for him: he is named once.

    >>> from sheli.engine.state import Holding, Objects
    >>> s = Step(1, 0, 1, "dashe:80", None, "賓", "授", None, None, "N", Holding(),
    ...     None, "大夫之東", [], 0, Objects(), obj="觶", to="大夫")
    >>> _him("east of the great officer (大夫之東)", s)
    'east of him (大夫之東)'
    """
    if not (e.to and e.place and _COMPASS_OF.fullmatch(e.place.removeprefix(e.to))):
        return said
    whom = term(e.to, "roles").split(" (")[0]
    him = "them" if _plural(whom) else "him"
    return re.sub(rf"\b{re.escape(whom)}(?= \(|,)", him, said, count=1)


def _set_out_as_several(e: Step) -> bool:
    """Whether a thing set out as a place (``{at:as}``) is set out as several: the place's
    English is plural and names no one of them (工席, not 衆賓席1).

    >>> from sheli.engine.state import Holding, Objects
    >>> s = Step(1, 0, 1, "xiangshe:85", None, "贊者", "設", None, None, "W", Holding(),
    ...     None, "工席之北", [], 0, Objects(), obj="席", at="工席")
    >>> _set_out_as_several(s), _set_out_as_several(s._replace(at="衆賓席1"))
    (True, False)
    """
    if not (e.obj and e.at and "{at:as}" in verb_frames().get(e.verb, "")):
        return False
    if re.search(r"[0-9]$", e.at) or not _same_kind(e.obj, e.at):
        return False
    thing, where = term(e.obj, "objects", "dress"), term(e.at, "places", "objects")
    head = thing.split(" (")[0].split(" of ")[0].split()[-1]
    # the great officers' mats at the feast (燕大夫席): the thing's own noun, made plural
    return (
        not _plural(thing) and re.search(rf"\b{re.escape(plural_noun(head))}\b", where) is not None
    )


def _it(said: str, e: Step) -> str:
    """A place named from the thing the step sets out, said with "it" or "them" for the thing
    (sets out the hung instruments, standing west of them: 縣之西).

    >>> from sheli.engine.state import Holding, Objects
    >>> s = Step(1, 0, 1, "xiangshe:9", None, "贊者", "設", None, None, "W", Holding(),
    ...     None, "縣之西", [], 0, Objects(), obj="縣", at="縣")
    >>> _it("west of the hung instruments (縣之西)", s)
    'west of them (縣之西)'
    """
    named = next((n for n in (e.at, e.obj) if n and e.place and e.place.startswith(n)), None)
    if named is None or not _COMPASS_OF.fullmatch((e.place or "").removeprefix(named)):
        return said
    en = _english_name(named, "objects", "places")
    if en is None:
        return said
    thing = _the(_TERM_AFTER.sub("", en))
    # two square jars, the mats set out as the musicians' mats: them; one of them (衆賓席2): it
    several = (isinstance(e.number, int) and e.number > 1) or _set_out_as_several(e)
    one = re.search(r"[0-9]$", named) is not None
    it = "them" if (_plural(thing) or several) and not one else "it"
    return re.sub(rf"\b{re.escape(thing)}(?=[ ,]|$)", it, said, count=1)


def _puts(e: Step) -> bool:
    return e.verb in _PUTTING


def _own(said: str, actor: str) -> str:
    """A place phrase with the actor's own place said as his: "goes to his mat", not "The
    guest goes to the guest's mat"; "their mats" for the other guests (衆賓席1).

    >>> _own("to the guest's mat (賓席)", "賓")
    'to his mat (賓席)'
    >>> _own("at the mats of the other guests (衆賓席1)", "衆賓")
    'at their mats (衆賓席1)'
    """
    who = term(actor, "roles").split(" (")[0]
    if not who.startswith("the "):
        return said
    his = "their" if _plural(who) else "his"
    owned = re.sub(rf"\bthe ([a-z' -]+?) of {re.escape(who)} \(", rf"{his} \1 (", said)
    return re.sub(rf"\b{re.escape(who)}'s? ", f"{his} ", owned) if owned == said else owned


def _same_kind(obj: str | None, at: str) -> bool:
    """Whether the thing set out is of the kind its place names (篚 as 下篚, 席 as 衆賓席3):
    the place's English has the thing's head noun.

    >>> _same_kind("篚", "下篚"), _same_kind("薦", "左个")
    (True, False)
    """
    thing = _english_name(obj, "objects", "dress", "places") if obj else None
    where = _english_name(at, "places", "objects")
    if thing is None or where is None:
        return False
    head = thing.split(" (")[0].split(" of ")[0].split()[-1].removesuffix("s")
    return re.search(rf"\b{re.escape(head)}", where) is not None


_DEFAULT_FRAME = "{object} {whom} {at} {place}"


def step_sentence(e: Step, subject: str | None = None) -> str:
    """One step (a :class:`~sheli.engine.records.Step`) as an English sentence, said by its
    verb's frame (:func:`verb_frames`); ``subject`` in place of the actor (``He`` for the
    person's next act in one beat).

    >>> from sheli.engine.state import Holding, Objects
    >>> s = step_sentence(Step(3, 1, 12, "xiangshe:120", None, "上耦上射", "揖", None, None,
    ...     "N", Holding(), None, "西階前", [], 0, Objects()))
    >>> print(s.replace(" salutes ", "\\nsalutes "))
    The upper archer of the upper pair (上耦上射)
    salutes (揖) in front of the west steps (西階前), facing north.
    >>> print(step_sentence(Step(4, 0, 6, "xiangshe:62", None, "衆賓", "在", None, None,
    ...     "E", Holding(), None, "堂西", [], 0, Objects())))
    The other guests (衆賓) are (在) west of the hall (堂西), facing east.
    """
    e = as_said(e)
    actor = term(e.actor, "roles")
    many = _plural(actor)
    named = _player(e.actor, e.name, many)
    shared = ""  # the thing both the player and his role are named from
    if named is not None:
        # the person who plays the role, the subject, the role after him: the archery
        # officer (射人), acting as marshal (司馬)
        role = actor.split(" (")[0]
        role = role if many else re.sub(r"^the ", "", role)
        role, shared = _role_beside(named, role)
        actor = f"{named} ({e.name}), {tr('acting as')} {role} ({e.actor}),"
    elif e.name and f"({e.name})" not in actor:
        # a name without English of its own, or with the role's: in the role's brackets
        actor = actor.removesuffix(")") + f", {e.name})"
    actor = actor[0].upper() + actor[1:]
    in_turn = many and subject is None and _one_cup_in_turn(e)
    if in_turn:
        # one cup, several who take it: each of them in turn, not all at once
        actor = f"{tr('Each of')} {actor[0].lower()}{actor[1:]} {tr('in turn')}"
        many = False
    if subject is not None:
        actor = subject
        many = False
    frames = verb_frames()
    frame = (
        (frames.get(f"{e.verb}/said") if e.says else None)
        or frames.get(f"{e.verb}/{e.obj}")
        or frames.get(e.verb)
    )
    if frame is not None and " | " in frame:  # a frame for a step that names no one
        frame = frame.split(" | ")[0 if e.to else 1]
    if frame is None:
        verb_en = english(e.verb, "verbs")
        frame = f"{verb_en or 'do'} {_DEFAULT_FRAME}"
    first = _SLOT.search(frame)
    verb_words = frame[: first.start()].strip() if first else frame.strip()
    rest = frame[len(verb_words) :] if first else ""
    said = _SLOT.sub(lambda m: _slot(e, m.group(1), m.group(2), m.group(3)), rest)
    said = " ".join(said.split()).replace(" ,", ",").replace(",,", ",").rstrip(",")
    said = said.replace("handing over it ", "handing it over ")  # 拜送 naming no thing
    if in_turn:  # each of the musicians at his mat (工席), not "at their mats"
        said = re.sub(r"\btheir (\w+?)s \(", r"his \1 (", said)
    if shared:  # the target named once: the man at the mixed target … at the blind (參侯之乏)
        said = said.replace(f" of {shared} (", " (")
    sentence = f"{actor} {agree(verb_words, many)} ({e.verb})" + (f" {said}" if said else "")
    if e.side and not e.obj and "{side" not in frame:
        sentence += f" ({e.side})"
    if e.facing:
        facing = FACING_EN.get(e.facing)
        sentence += ", " + (tr("facing {dir}").format(dir=facing) if facing else f"({e.facing})")
    if e.says and "{words" not in frame:
        if e.verb in _SPEAKING:  # orders him: "…", not "orders him, and says …"
            sentence += ": " + words_said(e.says)
        else:
            sentence += ", " + tr("and says {words}").format(words=words_said(e.says))
    sentence += "."
    if e.shot:
        mark = tr("hit") if e.shot.hit else tr("miss")
        sentence += f" [{mark}{', ' + tr('counted') if e.shot.counted else ''}]"
    if e.note:
        said_note = note_english(e.note)
        # a note cut short may leave a bracket open: close it, or the rest reads as inside
        note = said_note + ")" * max(0, said_note.count("(") - said_note.count(")"))
        sentence += f" ({note})"
    if e.assumes:
        sentence += " [" + ",".join(e.assumes) + "]"
    return in_rite(sentence, e.cite.partition(":")[0])


_NUMBERS = {"兩": 2, "二": 2, "三": 3, "四": 4}
#: verbs that are themselves speaking: the words said follow them after a colon
_SPEAKING = frozenset({"命", "告", "請", "辭", "對", "答", "許諾"})
#: one drinking vessel, handed from one to the next (衆賓 受觶 in turn, xiangshe:268)
_ONE_CUP = frozenset({"觶", "爵", "觚"})
_CUP_VERBS = frozenset(
    {"受", "拜受", "卒觶", "卒爵", "授", "實", "取", "奠", "祭", "飲", "啐", "洗", "酌"}
)


def _one_cup_in_turn(e: Step) -> bool:
    """Whether several take one cup, each in turn (the other guests receive the 觶 one after
    another: 衆賓 受 觶, xiangshe:268).

    >>> from sheli.engine.state import Holding, Objects
    >>> s = Step(1, 0, 1, "xiangshe:268", None, "衆賓", "受", None, None, "N", Holding(),
    ...     None, "酬者之西", [], 0, Objects(), obj="觶")
    >>> _one_cup_in_turn(s), _one_cup_in_turn(s._replace(verb="拜"))
    (True, False)
    """
    return e.obj in _ONE_CUP and e.verb in _CUP_VERBS and e.number in (None, 1)


def _role_beside(named: str, role: str) -> tuple[str, str]:
    """The role said beside the person who plays it, the thing both are named from said once:
    the man at the mixed target, acting as target attendant (not "attendant of the mixed
    target"); and that thing ("" if none), which the sentence then need not name again.

    >>> _role_beside("the man at the mixed target", "attendant of the mixed target")
    ('target attendant', 'the mixed target')
    >>> _role_beside("the archery officer", "marshal")
    ('marshal', '')
    """
    head, sep, thing = role.partition(" of ")
    if not sep or not named.endswith(" " + thing) or " " in head:
        return role, ""
    return f"{thing.split()[-1]} {head}", thing


def as_said(e: Step) -> Step:
    """A step with its thing as the text and the state say it: the vessel the 經 names where
    the spec says 爵 of a 觚 (賓坐取觚 dashe:47); the arrows he holds, counted (梱之 after
    taking four, dashe:174); the number of things set out the 經 gives (兩圜壺 yan:5).

    >>> from sheli.engine.state import Holding, Objects
    >>> s = Step(1, 0, 1, "dashe:47", "賓坐取觚", "賓", "取", None, None, "N", Holding(),
    ...     None, "洗南", [], 0, Objects(), obj="爵")
    >>> as_said(s).obj
    '觚'
    >>> as_said(s._replace(verb="執", obj="矢", holding=Holding(hand=4))).number
    4
    >>> as_said(s._replace(verb="設", obj="圜壺", jing="尊士旅食于門西兩圜壺")).number
    2
    """
    if not e.obj:
        return e
    jing = e.jing or ""
    if e.obj == "爵" and "爵" not in jing and "觚" in jing:
        # 爵 is any drinking vessel in the specs; the 經 here names the one it is
        e = e._replace(obj="觚")
    if e.number is not None:
        return e
    frame = verb_frames().get(e.verb, "")
    # held along the string (執: in hand or at his side), or between the fingers (挾)
    held = {"執": e.holding.hand + e.holding.side, "挾": e.holding.fingers}.get(e.verb, 0)
    if e.obj == "矢" and held > 1 and "{object:many}" not in frame:
        return e._replace(number=held)
    thing = e.obj or ""
    counted = re.search(rf"([兩二三四]){re.escape(thing)}", jing) if _puts(e) else None
    if counted:
        return e._replace(number=_NUMBERS[counted.group(1)])
    return e


def _player(role: str, name: str | None, many: bool) -> str | None:
    """The English of the person who plays ``role`` (a step's or the cast's name), where it
    is his own and not the role's; else None.

    >>> _player("司馬", "射人", False), _player("小射正二", "一小射正", False)
    ('the archery officer', None)
    """
    if not name:
        return None
    named = _english_name(name, "roles")
    if named is None or _the(named) == term(role, "roles").split(" (")[0]:
        return None
    named = plural_noun(named) if many and not _plural(named) else named
    return _the(_TERM_AFTER.sub("", named))


def _cast_words(role: str, name: str | None) -> str:
    """One of the cast in English: the role, and who plays it.

    >>> _cast_words("大侯獲者", "服不之徒"), _cast_words("小射正二", "一小射正")
    ('the attendant of the great target (大侯獲者), played by the man of the tamer of \
beasts (服不之徒)', 'the second assistant archery officer (小射正二, 一小射正)')
    """
    said = term(role, "roles")
    named = _player(role, name, _plural(said))
    if named is not None:
        return f"{said}, {tr('played by')} {named} ({name})"
    return said.removesuffix(")") + f", {name})" if name and f"({name})" not in said else said


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


# a quotation of the text (「…」), a bracketed Chinese aside （…）, or a run of CJK characters
_TERM_RUN = re.compile(
    r"「[^」]*」|（[^）]*）|[\u3000-\u303f\uff00-\uffef\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]+"
)


_NOUNS = ("roles", "places", "objects", "dress")


def gloss(text: str) -> str:
    """English prose with the text's terms in it, each term given its English from the
    glossary and kept in brackets (the assumptions, written in English with the terms in
    line); a term or a quotation without English stands in brackets alone.

    >>> gloss("The 主人 faces west: his 薦 are west of his 席 (注 xiangshe:33 「薦進」).")
    "The host (主人) faces west: his dishes (薦) are west of his mat (席) (Zheng's \
commentary (注) xiangshe:33 (「薦進」))."
    >>> gloss("the 三耦 南面東上 xiangshe:110")
    'the three pairs (三耦) (南面東上) xiangshe:110'
    """

    def one(m: re.Match[str]) -> str:
        t = m.group()
        if t[0] in "「（":
            return f"({t})"
        g = glossary_texts().get(t)
        en = g or _prose_name(t)
        if en is None:
            return f"({t})"
        return en if en.endswith(f"({t})") else f"{en} ({t})"

    out = _TERM_RUN.sub(one, text)
    # "the the three pairs": the prose's article before an English that has its own; "in the
    # at the foot of the north hall": before a place said with its preposition (北堂下)
    out = re.sub(r"\bthe at the ", "the ", out)
    return re.sub(r"\b(the|a|an) (the|a|an) ", r"\2 ", out, flags=re.IGNORECASE)


def _prose_name(t: str) -> str | None:
    """The English of a term in prose: a glossary entry, or a place named from one by a
    direction (東序端之東) or by 之 (主人之贊者); never a phrase read word by word, which in
    prose is a quotation of the text and stays in brackets.

    >>> _prose_name("東序端之東"), _prose_name("主人之贊者"), _prose_name("笙入")
    ('east of the end of the east wall', 'assistant of the host', None)
    """
    en = english(t, *_NOUNS) or english(t, "verbs", "states")
    if en is not None:
        return en
    sides = directions()
    for direction in sorted(sides, key=len, reverse=True):
        base = t[: -len(direction)].removesuffix("之")
        if t.endswith(direction) and base and len(base) < len(t):
            of = english(base, *_NOUNS) or _prose_name(base)
            if of is not None and direction not in ("上", "下"):
                return f"{sides[direction]} {_the(of)}"
    owner, sep, thing = t.partition("之")
    if sep and owner and thing:
        a, b = english(owner, *_NOUNS), english(thing, *_NOUNS)
        if a is not None and b is not None:
            return f"{b} of {_the(a)}"
    return None


@functools.cache
def assumption_translations() -> dict[str, tuple[str, str]]:
    """The assumptions written in English for sheli (``sheli/text/data/en/assumptions.tsv``):
    id → (what is assumed, why).

    >>> assumption_translations()["A-sishe-start"][0].startswith("The director of archery")
    True
    """
    f = resources.files("sheli.text").joinpath("data", "en", "assumptions.tsv")
    rows = [ln for ln in f.read_text("utf-8").splitlines() if ln and not ln.startswith("#")]
    out: dict[str, tuple[str, str]] = {}
    for ln in rows[1:]:  # the first is the column header
        key, what, why = ln.split("\t")
        out[key] = (what, why)
    return out


@functools.cache
def _note_translations() -> dict[str, str]:
    f = resources.files("sheli.text").joinpath("data", "en", "notes.tsv")
    rows = [ln for ln in f.read_text("utf-8").splitlines() if ln and not ln.startswith("#")]
    out: dict[str, str] = {}
    for ln in rows[1:]:  # the first is the column header
        spec, said = ln.split("\t")
        out[spec] = said
    return out


def note_english(note: str) -> str:
    """A step's note as the English 儀注 says it (``sheli/text/data/en/notes.tsv``): where
    the spec's English is a shorthand, natural English or the text's words alone.

    >>> note_english("西面, on round to the left"), note_english("順羽")
    ('西面: turning by his left', '順羽')
    """
    return _note_translations().get(note, note)


def assumption_english(key: str, what: str, why: str) -> tuple[str, str]:
    """An assumption in English: as written for sheli where the translation file has it,
    else as the spec gives it with each term glossed (:func:`gloss`).

    >>> assumption_english("X", "The 司射 waits.", "注 xiangshe:111")
    ('The director of archery (司射) waits.', "Zheng's commentary (注) xiangshe:111")
    """
    done = assumption_translations().get(key)
    return done if done is not None else (gloss(what), gloss(why))


def title_words(title: str) -> str:
    """A rite's or a venue's title in English (the glossary's ``titles``: the rites as
    Steele's translation of the 儀禮 names them), the text's title in brackets after a name
    that does not hold its terms already; a title the glossary does not name, glossed.

    >>> title_words("鄉射禮"), title_words("燕射 — 燕禮之射")
    ('The District Archery Meeting (鄉射禮)', 'The Archery at the Banquet (燕射)')
    >>> title_words("鄉射")
    '(鄉射)'
    """
    en = title_english(title)
    if en is None:
        return gloss(title)
    return en if CJK_OUTSIDE_BRACKETS.search(en) or "(" in en else f"{en} ({title})"


def glossary_texts() -> dict[str, str]:
    """The glossary's names of the texts and commentaries (注, 疏, 記 …).

    >>> glossary_texts()["注"]
    "Zheng's commentary"
    """
    return glossary()["texts"]


def leader(step: Step, before: Iterable[Step]) -> str | None:
    """Whom ``step`` follows (從) where its spec names no one: the last one before it, in the
    steps of its own passage, who does something other than follow (the 獲者 whom the 薦俎
    follow, xiangshe:224 使人執其薦與俎從之; the 公 whom the 大射正 follows, dashe:196); None
    where its passage has no one else (the frame then says "follows behind").

    >>> from sheli.engine.state import Holding, Objects
    >>> def act(actor, verb):
    ...     return Step(1, 0, 1, "xiangshe:224", None, actor, verb, None, None, "N", Holding(),
    ...         None, "右个", [], 0, Objects())
    >>> leader(act("贊者", "從"), [act("獲者", "執"), act("獲者", "適")])
    '獲者'
    """
    for b in reversed(list(before)):
        if b.cite == step.cite and b.actor != step.actor and b.verb != "從":
            return b.actor
    return None


def handed(step: Step, before: Iterable[Step]) -> str | None:
    """What ``step`` (a 拜送, which names no thing) bows on handing over: the thing its actor
    last handed over, presented or filled in the steps just before (獻爵 … 拜送, xiangshe:26),
    or None.

    >>> from sheli.engine.state import Holding, Objects
    >>> def act(verb, obj=None):
    ...     return Step(1, 0, 1, "xiangshe:26", None, "主人", verb, None, None, "N", Holding(),
    ...         None, "賓席之前", [], 0, Objects(), obj=obj)
    >>> handed(act("拜送"), [act("實", "爵"), act("獻", "爵"), act("退")])
    '爵'
    """
    for b in reversed(list(before)):
        if b.actor == step.actor and b.obj and b.verb in ("授", "獻", "奉", "實"):
            return b.obj
    return None


def english_lines(
    records: Iterable[Record],
    topics: dict[int, str] | Callable[[int], str] | None,
    shots: dict[int, list[Shot]],
    tallies: list[Tally],
) -> Iterator[str]:
    """The English 儀注 line by line, from a run's records; fills ``shots`` and ``tallies``
    for the summary.

    >>> line = list(english_lines([Tally(2, 19, 14, "right", "右賢於左二純一奇")], None,
    ...     defaultdict(list), []))[0]
    >>> print(line.replace(" — ", "\\n"))
          ⟶ the second round of shooting, the count (數獲): right 19, left 14
    The right wins: the right exceeds the left by two pairs and a single (右賢於左二純一奇).
    """
    topic_of = topics if callable(topics) else (topics or {}).get
    recent: deque[Step] = deque(maxlen=12)  # the steps just before: whom one follows (從)
    held = _OfficesHeld()
    section: tuple[Any, Any] = (-1, None)
    rnd: int | None = None
    for e in records:
        if isinstance(e, Scene):
            title = e.title or e.rite
            venue = str(VENUES.get(e.venue, e.venue))
            yield tr("Order of ceremony (儀注) of {title} — venue: {venue}").format(
                title=title_words(title), venue=title_words(venue)
            )
            cast = [in_rite(_cast_words(c["actor"], c.get("name")), e.rite) for c in e.cast]
            held = _OfficesHeld(e.cast)
            if cast:
                yield tr("cast") + ": " + "; ".join(cast)
            continue
        if isinstance(e, Shot):
            shots[e.round].append(e)
            continue
        if isinstance(e, Tally):
            tallies.append(e)
            yield (
                f"      ⟶ {tr(ROUNDS_EN.get(e.round, str(e.round)))}, "
                + tr("the count (數獲): right {right}, left {left}").format(
                    right=e.right, left=e.left
                )
                + f" — {announcement_en(e.right, e.left)}"
            )
            continue
        if e.round != rnd:
            rnd = e.round
            if rnd:
                yield f"── {tr(ROUNDS_EN.get(rnd, str(rnd)))} ──"
        if (e.section, e.section_of) != section:
            section = (e.section, e.section_of)
            if section[0] is not None:
                yield ""
                topic = (e.topic or "") if section[1] else (topic_of(section[0]) or "")
                base = f" ({section[1]})" if section[1] else ""
                # a topic in English holds the text's in brackets (The three rounds of
                # shooting (三番射事)); else the text's alone, in brackets
                shown = (f": {topic}" if "(" in topic else f" ({topic})") if topic else ""
                yield tr("Section {n}").format(n=section[0]) + base + shown
        if e.verb == "從" and not e.to:
            e = e._replace(to=leader(e, recent))
        if e.verb == "拜送" and not e.obj:
            e = e._replace(obj=handed(e, recent))
        recent.append(e)
        call = e.acting_as
        yield f"{e.seq:>5} {step_sentence(held.named(e))}  {e.cite}" + (
            f" (as at {call.cite})" if call and call.cite != e.cite else ""
        )


@functools.cache
def _offices() -> dict[str, tuple[tuple[str, str, bool], ...]]:
    """The offices a person of the cast takes in the course of a rite (``role/name``: the
    passage from which he holds each, the title he has before it, whether a step naming him
    gives it), from ``sheli/data/offices.yaml``."""
    text = resources.files("sheli").joinpath("data", "offices.yaml").read_text("utf-8")
    data = yaml.safe_load(text) or {}
    return {
        k: tuple((str(o["from"]), str(o["before"]), bool(o.get("given"))) for o in v)
        for k, v in data.items()
    }


class _OfficesHeld:
    """Who a person of the cast is, step by step: the host's 相 until an order makes him 司正
    (xiangshe:101), the 司正 until he takes the 司馬's office (xiangshe:117); only then the
    overseer acting as marshal (assumption A-xiang).

    >>> from sheli.engine.state import Holding, Objects
    >>> held = _OfficesHeld([{"actor": "司馬", "name": "司正"}])
    >>> s = Step(1, 0, 1, "xiangshe:101", None, "司馬", "適", None, None, "N", Holding(),
    ...     None, "阼階下之東南", [], 0, Objects(), name="司正")
    >>> order = s._replace(actor="主人", verb="命", to="司馬", name=None)
    >>> held.named(s).actor, held.named(order).to, held.named(s).actor
    ('主人之相', '主人之相', '司正')
    >>> held.named(s._replace(cite="xiangshe:117")).actor
    '司馬'
    """

    def __init__(self, cast: Iterable[dict[str, Any]] = ()) -> None:
        self._ahead: dict[str, list[tuple[str, str, bool]]] = {
            c["actor"]: list(_offices()[f"{c['actor']}/{c.get('name')}"])
            for c in cast
            if f"{c['actor']}/{c.get('name')}" in _offices()
        }

    def named(self, e: Step) -> Step:
        """The step with the person named by the title he holds at it."""
        for role, ahead in self._ahead.items():
            if ahead and ahead[0][0] == e.cite and not ahead[0][2] and role == e.actor:
                ahead.pop(0)  # he takes the office himself in this passage
            if not ahead:
                continue
            title = ahead[0][1]
            if e.actor == role:
                e = e._replace(actor=title, name=None)
            if e.to == role:
                e = e._replace(to=title)
                if ahead[0][0] == e.cite and ahead[0][2]:
                    ahead.pop(0)  # the step that gives it (作相爲司正): from the next on
        return e


def english_yizhu_text(
    records: Iterable[Record],
    topics: dict[int, str] | Callable[[int], str] | None = None,
    drank: dict[int, list[str]] | None = None,
    assumptions: dict[str, tuple[str, str]] | None = None,
    width: int = 120,
    known: dict[str, tuple[str, str]] | None = None,
) -> str:
    """The English 儀注 as plain text, with the round summaries and the assumptions the
    steps rest on (``assumptions``) or name in a note (any of ``known``), each by its number.

    >>> from sheli.engine.state import Holding, Objects
    >>> print(english_yizhu_text([Step(1, 0, 14, "xiangshe:127", None, "司射", "立", None, None,
    ...     "E", Holding(), None, "中之西南", [], 0, Objects())],
    ...     topics={14: "司射誘射教三耦射法之事"}).replace(", f", ",\\nf").strip())
    Section 14 (司射誘射教三耦射法之事)
        1 The director of archery (司射) stands (立) southwest of the tally vessel (中之西南),
    facing east.  xiangshe:127
    """
    shots: dict[int, list[Shot]] = defaultdict(list)
    tallies: list[Tally] = []
    # an assumption is named by its number, as on the cue sheets, never by the id the specs
    # file it under: numbered in the order the steps first name it, the others after
    marks = AssumptionMarks({**(known or {}), **(assumptions or {})})
    out = [_unknown_ids(marks.mark(ln)) for ln in english_lines(records, topics, shots, tallies)]
    tail = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    _summary(tail, shots, tallies, drank or {})
    for key in assumptions or {}:
        marks.number(key)
    if marks.order:
        tail.print()
        tail.print(tr("Assumptions (what the text does not say)"), markup=False)
        listed = 0
        while listed < len(marks.order):  # an assumption may name another: it is listed too
            key = list(marks.order)[listed]
            listed += 1
            what, why = assumption_english(key, *marks.known[key])
            line = _unknown_ids(marks.mark(f"  {marks.number(key)}. {what} — {why}"))
            tail.print(line, markup=False, highlight=False)
    return "\n".join(out) + "\n" + tail.export_text()


def _unknown_ids(line: str) -> str:
    """A line with the id of an assumption this run does not make (another rite's, named in
    passing) said as such, not by the id the specs file it under.

    >>> _unknown_ids("read the same way (A-ci-chou).")
    "read the same way (another rite's assumption)."
    """
    if "-" not in line:
        return line
    return ASSUMPTION_ID.sub(tr("another rite's assumption"), line)


def _summary(
    console: Console,
    shots: dict[int, list[Shot]],
    tallies: list[Tally],
    drank: dict[int, list[str]],
) -> None:
    if not shots and not tallies:
        return
    table = Table(title=tr("Summary of each round"))
    for col in ("round", "arrows", "hits", "counted", "right", "left", "announcement", "drank"):
        table.add_column(tr(col))
    by_round = {t.round: t for t in tallies}
    for r in sorted(set(shots) | set(by_round)):
        if r == 0:
            continue
        ss = shots.get(r, [])
        t = by_round.get(r)
        if t:
            said = announcement_en(t.right, t.left)
        else:
            said = tr("hits not counted (獲而未釋獲, xiangshe:150)") if r == 1 else "—"
        table.add_row(
            tr(ROUNDS_EN.get(r, str(r))),
            str(len(ss)),
            str(sum(1 for s in ss if s.hit)),
            str(sum(1 for s in ss if s.counted)),
            str(t.right) if t else "—",
            str(t.left) if t else "—",
            said,
            "; ".join(term(d, "roles") for d in drank.get(r, [])) or "—",
        )
    console.print()
    console.print(table)


def label(name: str, *kinds: str) -> str:
    """A name for a table cell or a diagram label in English: ``east steps (阼階)``, or the
    name alone in brackets when the glossary has no English for it.

    >>> label("阼階", "places"), label("飛鳥", "roles"), label("乏", "places")
    ('east steps (阼階)', '(飛鳥)', 'blind (乏)')
    """
    return term(name, *kinds, article=False)

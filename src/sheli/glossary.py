"""Glossary: the text's terms and their English, read from ``sheli/data/glossary.yaml``.

Data files and the event log use the text's own terms; Python identifiers may use the English
of :data:`GLOSSARY` (keep it in step with docs/architecture.md, "Names"). The data file also
gives the English a reader sees beside every role, verb, place, object and garment of the
specs and venues (:func:`english`); a compound name is read through its parts (:func:`parts`).
It is the one table of English terms: the cue sheets, the English 儀注, the viewer's data and
the live app all read it, the words of a holding (:func:`held_english`) and the sides a
place is named by (:func:`directions`) included.

>>> GLOSSARY["司射"]
'director of archery'
>>> english("揖"), english("上耦上射")
('salute', 'upper archer of the upper pair')
>>> parts("大夫耦1下射")
['大夫耦', '下射']
"""

from __future__ import annotations

import functools
import re
from importlib import resources

import yaml

from sheli.errors import nearest

__all__ = [
    "GLOSSARY",
    "KINDS",
    "SECTIONS",
    "directions",
    "english",
    "glossary",
    "held_english",
    "label",
    "parts",
    "terms_named",
    "title_english",
]

# The sections of the data file a reader's English comes from, in the order they are searched.
KINDS = ("roles", "verbs", "places", "objects", "dress", "states")
# Every section of the data file: the code's names, the drawings' short labels, the texts
# cited, the names of the rites and venues, the words of a holding, the sides of a place, the
# things handled as a set and the words said, then the readers' kinds.
SECTIONS = ("code", "short", "texts", "titles", "holds", "directions", "sets", "words", *KINDS)


@functools.cache
def glossary() -> dict[str, dict[str, str]]:
    """The data file's sections (``code`` and :data:`KINDS`): term → English.

    >>> glossary()["dress"]["決"]
    'thumb ring'
    """
    text = resources.files("sheli").joinpath("data", "glossary.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    return {k: {str(t): str(e) for t, e in (data.get(k) or {}).items()} for k in SECTIONS}


GLOSSARY: dict[str, str] = dict(glossary()["code"])


def english(term: str, *kinds: str) -> str | None:
    """The English of ``term`` from the given sections (all of :data:`KINDS` if none), or None.

    >>> english("中", "objects"), english("中", "verbs")
    ('tally vessel', None)
    """
    g = glossary()
    for k in kinds or KINDS:
        if term in g[k]:
            return g[k][term]
    return None


def title_english(title: str) -> str | None:
    """The English name of a rite or a venue by its title (a spec's or a venue's
    ``title``), or None: the rites as John Steele's translation of the 儀禮 names them
    (the data file's ``titles``, which gives the source).

    >>> title_english("鄉射禮"), title_english("大射儀")
    ('The District Archery Meeting', 'The Observances of the Great Archery Meeting')
    >>> title_english("州序（榭）— 有堂無室")
    'The district school (州序), a hall (堂) without a room (室)'
    >>> title_english("飛鳥") is None
    True
    """
    return glossary()["titles"].get(title)


def held_english(word: str) -> str | None:
    """The English of one word of a holding (the event log's ``holds``), its count left
    out: the ``holds`` section, else a thing held by its name (objects, dress), else None.

    >>> held_english("搢矢三"), held_english("觶(虛)"), held_english("筭八")
    ('arrows in the belt', 'cup', 'tally rods')
    >>> held_english("俎二"), held_english("決拾"), held_english("飛")
    ('stand of meat', 'thumb ring and arm guard', None)
    """
    name = _COUNT.sub("", word)
    return glossary()["holds"].get(name) or english(name, "objects", "dress")


# the count after a held thing (搢矢三, 筭十二) and the fill of a cup (觶(實))
_COUNT = re.compile(r"(?:[0-9]+|[一二三四五六七八九十百]+|\([^()]*\))$")


def directions() -> dict[str, str]:
    """The sides a place is named by, term → English: 中之西南 is southwest of the 中.

    >>> directions()["西南"], directions()["下"]
    ('southwest of', 'at the foot of')
    """
    return glossary()["directions"]


# A binding ({耦}), a number (1, 一 …) or the particle 之 between two terms carries no English
# of its own: 大侯之乏 reads as 大侯 and 乏, 舉觶者一 as 舉觶者.
_FILLER = re.compile(r"\{[^{}]*\}|[0-9]+|[一二三四五六七八九十]+$|之")


def parts(name: str, *kinds: str) -> list[str] | None:
    """The glossary terms a name is made of (itself when it is listed), or None if some part
    has no English in the given sections (all of :data:`KINDS` if none).

    A listed name is one part; otherwise bindings, numbers and 之 are dropped and each
    remaining piece is read as the longest listed terms it begins with.

    >>> parts("{耦}上射", "roles"), parts("大侯之乏", "places")
    (['上射'], ['大侯', '乏'])
    >>> parts("飛鳥", "roles") is None
    True
    """
    if english(name, *kinds) is not None:
        return [name]
    out: list[str] = []
    for piece in _FILLER.split(name):
        while piece:
            for end in range(len(piece), 0, -1):
                if english(piece[:end], *kinds) is not None:
                    out.append(piece[:end])
                    piece = piece[end:]
                    break
            else:
                return None
    return out


# A drawing's label is short: no article, no bracketed term (the drawing keeps the term in
# its data attributes), a person one person (衆賓2: other guest 2).
_ARTICLE = re.compile(r"^(the|a|an) ")
_BRACKETED_TERM = re.compile(r" \([^()]*[\u3400-\u9fff][^()]*\)$")
_COUNTED = re.compile(r"^(.+?)([0-9]+|[一二三四五六七八九十]+)$")
_NUMERALS = "一二三四五六七八九十"


def _plain(en: str) -> str:
    return _BRACKETED_TERM.sub("", _ARTICLE.sub("", en))


@functools.cache
def label(name: str, *kinds: str) -> str:
    """The English of a name as a drawing's label shows it (docs/diagrams.md): the data
    file's ``short`` English where it has one, else its English without article or bracketed
    term; a name with a number keeps it (衆賓2), X之Y reads "Y of X", a compound its parts in
    order; a name without English stands in brackets.

    >>> label("司射"), label("洗", "places", "objects"), label("衆賓2", "roles")
    ('director', 'basin', 'other guest 2')
    >>> label("大夫耦1下射", "roles"), label("大侯之乏", "places"), label("飛鳥")
    ("great officer's pair 1 lower", 'blind of great target', '(飛鳥)')
    """
    g = glossary()
    if name in g["short"]:
        return g["short"][name]
    en = english(name, *kinds)
    if en is not None:
        return _plain(en)
    m = _COUNTED.match(name)
    if m:
        base, n = m.groups()
        num = n if n.isdigit() else str(_NUMERALS.index(n) + 1) if len(n) == 1 else n
        inner = label(base, *kinds)
        return f"{inner} {num}" if not inner.startswith("(") else f"({name})"
    if "之" in name:
        owner, _, thing = name.partition("之")
        a, b = label(owner, *kinds), label(thing, *kinds)
        if not a.startswith("(") and not b.startswith("("):
            return f"{b} of {a}"
    words: list[str] = []
    for piece in re.split(r"([0-9]+)", name):
        if piece.isdigit():
            words.append(piece)
        elif piece:
            ps = parts(piece, *kinds)
            if ps is None:
                return f"({name})"
            words += [g["short"].get(p) or _plain(english(p, *kinds) or p) for p in ps]
    return " ".join(words) if words else f"({name})"


def _english_key(words: str) -> str:
    """English as a user types it, compared: lower case, no article, no bracketed term, single
    spaces (``The Director of  Archery`` and ``director of archery (司射)`` are one key)."""
    return _plain(" ".join(words.lower().replace("_", " ").split()))


def terms_named(words: str, terms: list[str], *kinds: str) -> list[str]:
    """The terms among ``terms`` a user meant by English ``words``: those whose English (the
    reader's, or a drawing's label) is ``words``, else those whose English is nearest it
    (a misspelling); [] when ``words`` is no English of theirs. A user who reads the English
    first types the English where the text's term is wanted.

    >>> roles = ["司射", "司馬", "釋獲者", "上耦上射"]
    >>> terms_named("director of archery", roles, "roles"), terms_named("Marshal", roles)
    (['司射'], ['司馬'])
    >>> terms_named("the scorrer", roles, "roles"), terms_named("1st pair upper", roles)
    (['釋獲者'], ['上耦上射'])
    >>> terms_named("upper archer", [*roles, "次耦上射"], "roles")
    ['上耦上射', '次耦上射']
    >>> terms_named("司射", roles), terms_named("castle", roles)
    ([], [])
    """
    key = _english_key(words)
    if not key or not key.isascii():
        return []
    names: dict[str, list[str]] = {}
    for term in terms:
        en = english(term, *kinds)
        for said in {en, label(term, *kinds)} if en else {label(term, *kinds)}:
            if said and not said.startswith("("):
                names.setdefault(_english_key(said), []).append(term)
    if key in names:
        return list(dict.fromkeys(names[key]))
    # a part of their English (upper archer: each pair's upper archer)
    within = re.compile(rf"\b{re.escape(key)}\b")
    inside = [t for said, ts in names.items() if within.search(said) for t in ts]
    if inside:
        return list(dict.fromkeys(inside))
    return list(dict.fromkeys(t for said in nearest(key, names) for t in names[said]))

"""Load sheli's canonical text (the data files in ``sheli/text/data``) into the model.

The text of each chapter is ``data/<key>.tsv`` (one passage per line, ids identical to the
corpus's ``yili-jing-<key>.txt`` line numbers); 賈公彥's sections are ``data/sections.tsv``.
Everything is read once and cached.

>>> ch = load_chapter("鄉射禮")
>>> ch.key, len(ch.passages), len(ch.sections)
('xiangshe', 391, 30)
>>> get_passage("xiangshe:248").text
'司射遂適階閒堂下北面命曰不鼓不釋'
>>> parse_id("dashe:7")
('dashe', 7)
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from sheli.errors import SheliError
from sheli.text.model import Chapter, Passage, Section
from sheli.text.variants import fold

__all__ = [
    "CHAPTER_KEYS",
    "TITLES",
    "UnknownPassage",
    "chapter_key",
    "chapters",
    "get_passage",
    "load_chapter",
    "parse_id",
    "parse_range",
]

# the package's data files, on disk beside this module (importlib.resources costs `sheli
# run` some 13 million instructions of imports for the same paths)
DATA = Path(__file__).parent / "data"

CHAPTER_KEYS = ("xiangshe", "yan", "dashe")
TITLES = {"xiangshe": "鄉射禮第五", "yan": "燕禮第六", "dashe": "大射儀第七"}
SHORT_TITLES = {"xiangshe": "鄉射禮", "yan": "燕禮", "dashe": "大射儀"}

# Names a user may give a chapter by; matched after folding, so 乡射礼, 郷射禮 … work too.
_ALIASES = {
    "xiangshe": ["xiangshe", "xiangsheli", "鄉射禮第五", "鄉射禮", "鄉射"],
    "yan": ["yan", "yanli", "燕禮第六", "燕禮", "燕"],
    "dashe": ["dashe", "dasheyi", "大射儀第七", "大射儀", "大射禮", "大射"],
}


class UnknownPassage(SheliError, ValueError):
    """A passage id, range or chapter name that the text does not have.

    >>> try:
    ...     get_passage("xiangshe:392")
    ... except UnknownPassage as e:
    ...     print(e)
    xiangshe:392: 鄉射禮 has 391 passages (xiangshe:1 to xiangshe:391)
    """


@functools.cache
def _alias_map() -> dict[str, str]:
    return {fold(a.lower()): key for key, names in _ALIASES.items() for a in names}


def chapter_key(name: str) -> str:
    """The key of a chapter given by key or Chinese name, in any script.

    >>> chapter_key("乡射礼"), chapter_key("大射"), chapter_key("燕禮")
    ('xiangshe', 'dashe', 'yan')
    """
    key = name.strip().lower()
    if key in _ALIASES:
        return key  # a key as written (every passage id): no folding, no OpenCC loaded
    found = _alias_map().get(fold(key))
    if found is None:
        known = ", ".join(f"{k} ({SHORT_TITLES[k]})" for k in CHAPTER_KEYS)
        raise UnknownPassage(f"{name!r} is not a chapter of sheli's text; chapters: {known}")
    return found


_ID = re.compile(r"^\s*(?P<ch>[^:：\s]+)\s*[:：]\s*(?P<a>\d+)\s*(?:[-–~]\s*(?P<b>\d+))?\s*$")


def parse_range(s: str) -> tuple[str, int, int]:
    """Parse ``chapter:n`` or ``chapter:n-m`` into (key, first, last), checking the range.

    >>> parse_range("xiangshe:110-115")
    ('xiangshe', 110, 115)
    >>> parse_range("大射:3")
    ('dashe', 3, 3)
    """
    m = _ID.match(s)
    if m is None:
        raise UnknownPassage(f"{s!r} is not a passage id; write chapter:n, e.g. xiangshe:247")
    key = chapter_key(m["ch"])
    a = int(m["a"])
    b = int(m["b"]) if m["b"] else a
    count = len(load_chapter(key).passages)
    for n in (a, b):
        if not 1 <= n <= count:
            raise UnknownPassage(
                f"{key}:{n}: {SHORT_TITLES[key]} has {count} passages ({key}:1 to {key}:{count})"
            )
    if b < a:
        raise UnknownPassage(f"{s!r}: the range ends before it begins")
    return key, a, b


def parse_id(s: str) -> tuple[str, int]:
    """Parse a passage id into (chapter key, passage number), checking that it exists.

    >>> parse_id("xiangshe:247")
    ('xiangshe', 247)
    >>> parse_id("乡射礼:1")
    ('xiangshe', 1)
    """
    key, a, b = parse_range(s)
    if a != b:
        raise UnknownPassage(f"{s!r} is a range, not a single passage id")
    return key, a


def _rows(name: str) -> list[list[str]]:
    text = (DATA / name).read_text("utf-8")
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    return [ln.split("\t") for ln in lines[1:]]


@functools.cache
def _sections() -> dict[str, tuple[Section, ...]]:
    out: dict[str, list[Section]] = {k: [] for k in CHAPTER_KEYS}
    for r in _rows("sections.tsv"):
        chapter, n, first, last, topic, form, sentence = r[:7]
        secs = out[chapter]
        if last:
            end = int(last)
        else:
            # An open-ended 「此巳下」 subdivision ends where the section holding it ends.
            end = next(s.last for s in reversed(secs) if int(first) in s)
        secs.append(Section(chapter, int(n), topic, int(first), end, form, sentence))
    return {k: tuple(v) for k, v in out.items()}


class _SectionsOf:
    """(section, inferred) of each passage number: the innermost section holding it, else the
    one before it.

    賈 leaves some stretches of 經 outside any 「自此至」; such a passage is attached to the
    preceding section (inferred=True), since his sections follow the text in order. A 記
    passage outside every section gets None: the 記 does not continue the 經 before it.
    The innermost section, and the one before, is the one that starts last (then the
    higher-numbered); both are worked out for every number in one pass over the sections,
    not by scanning them all for each passage.

    >>> secs = (Section("x", 1, "", 1, 9), Section("x", 2, "", 3, 4), Section("x", 3, "", 12, 12))
    >>> of = _SectionsOf(secs, 13)
    >>> of(3, "經"), of(9, "經"), of(10, "經"), of(10, "記"), of(13, "經")
    ((2, False), (1, False), (2, True), (None, False), (3, True))
    """

    def __init__(self, secs: tuple[Section, ...], count: int) -> None:
        self.holding: list[int | None] = [None] * (count + 2)
        self.before: list[int | None] = [None] * (count + 2)
        ordered = sorted(secs, key=lambda s: (s.first, s.n))
        for s in ordered:  # a later (innermost) section overwrites the ones it lies in
            for n in range(max(s.first, 0), min(s.last, count + 1) + 1):
                self.holding[n] = s.n
        starts = iter(ordered)
        nxt = next(starts, None)
        last: int | None = None
        for n in range(count + 2):
            while nxt is not None and nxt.first <= n:
                last, nxt = nxt.n, next(starts, None)
            self.before[n] = last

    def __call__(self, n: int, kind: str) -> tuple[int | None, bool]:
        held = self.holding[n]
        if held is not None:
            return held, False
        if kind == "記":
            return None, False
        before = self.before[n]
        return (before, True) if before is not None else (None, False)


@functools.cache
def load_chapter(key: str) -> Chapter:
    """A chapter with its passages and sections, by key or name (cached).

    >>> load_chapter("yan").title
    '燕禮第六'
    >>> load_chapter("dashe").passage(324).id
    'dashe:324'
    """
    return _load(chapter_key(key))


@functools.cache
def _load(key: str) -> Chapter:
    secs = _sections()[key]
    passages = []
    rows = _rows(f"{key}.tsv")
    # numbered as far as the largest number (a gap is refused below, with its number)
    section_of = _SectionsOf(secs, max([len(rows), *(int(r[0]) for r in rows)]))
    for r in rows:
        n, kind, source, text = int(r[0]), r[1], r[2], r[3]
        note = r[4] if len(r) > 4 else ""
        section, inferred = section_of(n, kind)
        passages.append(Passage(key, n, text, kind, section, source, note, inferred))  # type: ignore[arg-type]
    for i, p in enumerate(passages, 1):
        if p.n != i:  # the ids are the line numbers: a gap would shift every citation
            raise RuntimeError(f"data/{key}.tsv: passage {p.n} where {i} was expected")
    return Chapter(key, TITLES[key], tuple(passages), secs)


def chapters() -> list[Chapter]:
    """The three chapters in the order of the 儀禮.

    >>> [c.key for c in chapters()]
    ['xiangshe', 'yan', 'dashe']
    """
    return [_load(k) for k in CHAPTER_KEYS]


def get_passage(pid: str) -> Passage:
    """The passage with the given id.

    >>> get_passage("xiangshe:1").text[:8]
    '鄉射之禮主人戒賓'
    """
    key, n = parse_id(pid)
    return _load(key).passage(n)

"""The text layer: 鄉射禮, 燕禮 and 大射儀 (經 and 記) as sheli's canonical text.

Passages have stable ids ``<chapter>:<n>`` (``xiangshe:247``), identical to the line numbers
of the corpus's ``yili-jing-<chapter>.txt``. Each passage knows its 賈公彥 section.

>>> from sheli.text import get_passage, load_chapter
>>> p = get_passage("xiangshe:248")
>>> p.text, p.section
('司射遂適階閒堂下北面命曰不鼓不釋', 25)
>>> load_chapter("大射").section(25).topic
'第二番射三耦訖次公卿大夫之事'
"""

from __future__ import annotations

from sheli.text.corpus import (
    CHAPTER_KEYS,
    TITLES,
    UnknownPassage,
    chapter_key,
    chapters,
    get_passage,
    load_chapter,
    parse_id,
    parse_range,
)
from sheli.text.model import Chapter, Note, Passage, Section

__all__ = [
    "CHAPTER_KEYS",
    "TITLES",
    "Chapter",
    "Note",
    "Passage",
    "Section",
    "UnknownPassage",
    "chapter_key",
    "chapters",
    "get_passage",
    "load_chapter",
    "parse_id",
    "parse_range",
]

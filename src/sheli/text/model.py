"""The text layer's data model: chapters, passages (經 and 記), sections, notes.

A passage id is ``<chapter>:<n>``, ``n`` being the line number of the passage in the
corpus's ``yili-jing-<chapter>.txt``: ``xiangshe:247`` is 鄉射禮 passage 247.

>>> p = Passage("xiangshe", 1, "鄉射之禮主人戒賓", "經", 1, "seed:004")
>>> p.id
'xiangshe:1'
"""

from __future__ import annotations

from typing import Literal

import msgspec

Kind = Literal["經", "記"]

# The classes are msgspec's frozen structs, not frozen dataclasses: a dataclass's methods are
# made by compiling their source when its module is imported, paid by every command that
# reads a passage (see docs/benchmarks.md, "Start-up"); a struct's are made in C.


class Passage(msgspec.Struct, frozen=True):
    """One passage of 經 or 記, as the project's canonical text gives it."""

    chapter: str
    n: int
    text: str
    kind: Kind
    section: int | None
    source: str  # where the reading was transcribed from, e.g. "seed:000", "corpus:WYG"
    note: str = ""  # seed readings corrected from the corpus, emendations (data/<chapter>.tsv)
    # True when 賈 marks no section for this passage and it is attached to the preceding one
    section_inferred: bool = False

    @property
    def id(self) -> str:
        return f"{self.chapter}:{self.n}"


class Section(msgspec.Struct, frozen=True):
    """One of 賈公彥's divisions of a chapter (「自此至…論…之事」)."""

    chapter: str
    n: int
    topic: str
    first: int  # first passage number
    last: int  # last passage number
    form: str = ""  # 自此至, 自此盡 … as 賈 wrote it
    sentence: str = ""  # 賈疏's sentence, e.g. 自此至無介論州長將射先戒賓之事

    def __contains__(self, n: object) -> bool:
        return isinstance(n, int) and self.first <= n <= self.last


class Note(msgspec.Struct, frozen=True):
    """A piece of commentary attached to a passage: 鄭注, 賈疏, 音義, or an edition's note."""

    passage: str  # passage id
    edition: str  # e.g. "注疏", "集釋", "seed:000"
    kind: str  # "注", "疏", "音義", "集釋", "圖" …
    text: str
    source: str = ""


class Chapter(msgspec.Struct, frozen=True):
    """A chapter: its passages in order and 賈疏's sections.

    >>> Chapter("xiangshe", "鄉射禮第五", (), ())
    Chapter(key='xiangshe', title='鄉射禮第五')
    """

    key: str  # xiangshe, yan, dashe
    title: str  # 鄉射禮第五 …
    passages: tuple[Passage, ...]
    sections: tuple[Section, ...]

    def __repr__(self) -> str:  # its hundreds of passages are not shown
        return f"Chapter(key={self.key!r}, title={self.title!r})"

    def passage(self, n: int) -> Passage:
        if not 1 <= n <= len(self.passages):
            raise KeyError(n)
        return self.passages[n - 1]

    def section(self, n: int) -> Section:
        for s in self.sections:
            if s.n == n:
                return s
        raise KeyError(n)

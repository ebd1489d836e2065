"""Read a Kanripo (mandoku) file of one of the 儀禮 editions into a clean, addressable text.

The raw files carry markup (docs/commentary.md, importing an edition): ``#`` org lines,
``<pb:…>`` page breaks, ``¶`` line ends, ``(…)`` small characters in two columns with
``/`` between the columns, ``&KR…;`` entities, ``○`` rings and ``　`` indentation. This
module removes the markup and keeps, for every remaining character, what the markup said
about it: small or large, on an indented line or not, after a ring or a gap, and on which
raw line it stood. Alignment (``sheli.text.align``) works on that.

>>> doc = parse_kanripo("#+TITLE: 儀禮\\n#+PROPERTY: ID KR1d0026\\n鄉射之禮(注/文)¶\\n")
>>> doc.format, doc.text, [c.small for c in doc.chars]
('zhengzhu', '鄉射之禮注文', [False, False, False, False, True, True])
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from sheli.errors import SheliError
from sheli.files import read_at_most

# Kanripo ID → (format, default edition label). Labels are the short names scholars use.
KNOWN_IDS: dict[str, tuple[str, str]] = {
    "KR1d0028": ("zhushu", "注疏"),
    "KR1d0026": ("zhengzhu", "鄭注"),
    "KR1d0027": ("shu", "單疏"),
    "KR1d0030": ("jishi", "集釋"),
    "KR1d0032": ("tu", "儀禮圖"),
    "KR1d0037": ("yishu", "義疏"),
}
# #+TITLE → format, for a copy whose ID line was lost or changed.
KNOWN_TITLES: dict[str, str] = {
    "儀禮注疏": "zhushu",
    "儀禮": "zhengzhu",
    "儀禮疏": "shu",
    "儀禮集釋": "jishi",
    "儀禮圖": "tu",
    "欽定儀禮義疏": "yishu",
}
FORMAT_NAMES: dict[str, str] = {
    "zhushu": "儀禮注疏 (經, 鄭注, 音義, 賈疏)",
    "zhengzhu": "儀禮 鄭注本 (經, 鄭注)",
    "shu": "儀禮疏 單疏本 (賈疏 with 標起止)",
    "jishi": "儀禮集釋 (經, 鄭注, 李如圭)",
    "tu": "儀禮圖 (經, 注, 音, 疏 excerpts, 楊復)",
    "yishu": "欽定儀禮義疏 (經, 正義, 通論, 存疑 …)",
}

# Kanripo entities identified in the corpus README (§3.1) from the parallel witnesses.
ENTITIES: dict[str, str] = {
    "KR0764": "霤",
    "KR1152": "觚",
    "KR0925": "楣",
    "KR1377": "閽",
}
UNKNOWN_ENTITY = "〓"  # U+3013 GETA MARK: the conventional sign for a character not rendered

_TOKEN = re.compile(r"<pb:[^>]*>|&(KR\d+);|[¶\n\r]")
# Lines that are the printed book's furniture, not text: 欽定四庫全書, 卷 titles, 撰者 lines.
_FURNITURE = re.compile(
    r"^(欽定四庫全書|欽定儀禮義疏卷.*|儀禮.{0,3}卷.*|.*卷第?[一二三四五六七八九十]+.*[撰注]"
    r"|漢鄭氏注.*|唐朝散大夫.*|[鄉鄕郷]射禮第五.{0,12}|燕禮第六.{0,12}|大射(儀)?第七.{0,12}"
    r"|[鄉鄕郷]射禮第五之[一二三]|燕禮第六之[一二]|大射儀第七之[一二])$"
)


# A chapter title at the start of a line: 鄉射禮第五, 燕禮第六, 大射儀第七, 鄉飲酒禮第四 …
_HEADING = re.compile(r"^[　 ]*([^\s　(（/]{1,4}?(?:禮|儀)第[一二三四五六七八九十]+)")


#: the longest line read: a line of a Kanripo file is one printed line (the corpus's longest
#: is 151 characters), and one of megabytes is not an edition, however it is read
LINE_MAX = 10_000
#: the longest line that may be the book's furniture (the longest in the editions: 22)
FURNITURE_MAX = 80


class KanripoError(SheliError, ValueError):
    """The file is not a Kanripo edition this module can read."""


@dataclass(frozen=True, slots=True)
class Char:
    """One character of the cleaned text and what the markup said about it."""

    ch: str
    small: bool  # inside (…): 雙行小字
    indented: bool  # on a line that begins with 　 (commentary in 集釋 and 義疏)
    gap_before: bool  # a ○, a 　, a small block or a furniture line precedes it
    line: int  # 1-based line of the raw file
    ring: bool = False  # a ○ precedes it
    src: str = ""  # the raw form when it is not ``ch`` (an unidentified &KR…; entity)

    @property
    def out(self) -> str:
        """The character as notes print it: the raw entity when it is not identified."""
        return self.src or self.ch


@dataclass
class KanripoDoc:
    """A parsed Kanripo file: its header and its characters, markup removed."""

    path: str
    title: str
    kid: str  # Kanripo text ID, e.g. KR1d0028
    format: str  # zhushu, zhengzhu, shu, jishi, tu, yishu
    juan: list[str] = field(default_factory=list)
    chars: list[Char] = field(default_factory=list)
    # chapter headings at the start of a line, e.g. ("鄉射禮第五", 11): (title, line)
    headings: list[tuple[str, int]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(c.ch for c in self.chars)

    @property
    def default_edition(self) -> str:
        if self.kid in KNOWN_IDS:
            return KNOWN_IDS[self.kid][1]
        return self.title or Path(self.path).stem


def detect_format(title: str, kid: str) -> str | None:
    """The edition format named by a file's ``#+PROPERTY: ID`` or ``#+TITLE``.

    >>> detect_format("儀禮注疏", "KR1d0028"), detect_format("儀禮集釋", ""), detect_format("x", "")
    ('zhushu', 'jishi', None)
    """
    if kid in KNOWN_IDS:
        return KNOWN_IDS[kid][0]
    return KNOWN_TITLES.get(title.strip())


def parse_kanripo(raw: str, path: str = "<string>") -> KanripoDoc:
    """Parse the text of a Kanripo file (one or several 卷 files concatenated).

    Raises :class:`KanripoError` when the header names no edition of the 儀禮 this project
    knows, or when the brackets do not balance (with the line of the fault).

    >>> d = parse_kanripo("#+TITLE: 儀禮疏\\n　郷射至乃請　釋曰自此¶\\n")
    >>> d.format, d.text, d.chars[0].gap_before, d.chars[1].gap_before
    ('shu', '郷射至乃請釋曰自此', True, False)
    """
    title = kid = ""
    juan: list[str] = []
    chars: list[Char] = []
    depth = 0
    gap = True
    ring = False
    stop = False
    headings: list[tuple[str, int]] = []
    for lineno, line in enumerate(raw.split("\n"), start=1):
        if len(line) > LINE_MAX:
            raise KanripoError(
                f"{path}:{lineno}: a line of {len(line):,} characters; a Kanripo line is one "
                f"printed line (at most {LINE_MAX:,} are read)"
            )
        if line.startswith("#"):
            if line.startswith("#+TITLE:") and not title:
                title = line[len("#+TITLE:") :].strip()
            elif line.startswith("#+PROPERTY:"):
                parts = line.split(None, 2)
                if len(parts) == 3 and parts[1] == "ID" and not kid:
                    kid = parts[2].strip()
                elif len(parts) == 3 and parts[1] == "JUAN":
                    juan.append(parts[2].strip())
                    # The 四庫 editors' 考證 appended to a 卷 is not the edition's commentary.
                    stop = "考證" in parts[2]
            continue
        if stop:
            continue
        # An unidentified entity stands as one 〓 for alignment; its raw form is kept in ``src``.
        unknown: list[str] = []

        def entity(m: re.Match[str], unknown: list[str] = unknown) -> str:
            if not m.group(1):
                return ""
            if m.group(1) in ENTITIES:
                return ENTITIES[m.group(1)]
            unknown.append(m.group(0))
            return UNKNOWN_ENTITY

        body = _TOKEN.sub(entity, line)
        if not body.strip("　 \t"):
            continue
        head = _HEADING.match(body)
        if head and depth == 0:
            headings.append((head.group(1), lineno))
        # (a furniture line is short: a long one is not matched, whose ``.*卷…`` would try
        # every 卷 of it against the rest of the line)
        furniture = len(body) <= FURNITURE_MAX and _FURNITURE.match(body.strip("　 \t"))
        if depth == 0 and furniture:
            gap = True
            continue
        indented = body.startswith("　")
        raw_forms = iter(unknown)  # each 〓 takes the next (a list's pop(0) was quadratic)
        for ch in body:
            if ch == "(":
                if depth:
                    raise KanripoError(f"{path}:{lineno}: '(' inside an open small-character block")
                depth = 1
                gap = True
                continue
            if ch == ")":
                if not depth:
                    raise KanripoError(f"{path}:{lineno}: ')' without a matching '('")
                depth = 0
                gap = True
                continue
            if ch == "/" and depth:
                continue  # the break between the two small columns: read straight on
            if ch in "　 \t":
                gap = True
                continue
            if ch == "○":
                gap = ring = True
                continue
            src = next(raw_forms, "") if ch == UNKNOWN_ENTITY else ""
            chars.append(Char(ch, bool(depth), indented, gap, lineno, ring, src))
            gap = ring = False
        # A small block may run over several printed lines, but it is closed on each.
        if depth:
            raise KanripoError(f"{path}:{lineno}: '(' not closed on its line")
    fmt = detect_format(title, kid)
    if fmt is None:
        raise KanripoError(
            f"{path}:1: not a recognisable Kanripo edition of the 儀禮 "
            f"(#+TITLE {title or 'missing'!r}, ID {kid or 'missing'!r}); known: "
            + ", ".join(f"{k} {v[1]}" for k, v in KNOWN_IDS.items())
        )
    if not chars:
        raise KanripoError(f"{path}:1: the file has a Kanripo header but no text")
    return KanripoDoc(
        path=path, title=title, kid=kid, format=fmt, juan=juan, chars=chars, headings=headings
    )


# A chapter's file is a few hundred KB (the 義疏's 鄉射禮, the largest, 0.2 MB); an import
# costs some 1.2 s of CPU and 80 MB a MB, so 8 MB (many chapters in one file) is the most read.
IMPORT_MAX_BYTES = 8 << 20


def read_kanripo(path: str | Path) -> KanripoDoc:
    """Read and parse a Kanripo file from disk (UTF-8).

    >>> read_kanripo("/nonexistent/file.txt")
    Traceback (most recent call last):
    ...
    sheli.text.kanripo.KanripoError: /nonexistent/file.txt: cannot read: No such file or directory
    """
    p = Path(path)
    try:
        raw = read_at_most(p, IMPORT_MAX_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise KanripoError(f"{p}: cannot read: No such file or directory") from None
    except UnicodeDecodeError as exc:
        raise KanripoError(f"{p}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise KanripoError(f"{p}: cannot read: {exc.strerror}") from None
    return parse_kanripo(raw, str(p))

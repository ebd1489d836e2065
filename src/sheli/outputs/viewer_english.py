"""The viewer in English: its interface strings from the gettext catalogue, each act's
sentence and the words of its diagrams (:class:`EnglishTable`, :class:`DiagramWords`), packed
beside the Chinese page so that the reader switches without a second drawing
(docs/viewer.md). Kept apart from :mod:`sheli.outputs.render`, which builds the page.

>>> bracket_terms("請 means he tells the guest (州長).")
'(請) means he tells the guest (州長).'
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from sheli.engine.records import Step
from sheli.engine.state import Holding, Objects, holds_words
from sheli.glossary import english as term_english
from sheli.glossary import label as label_en
from sheli.i18n import DEFAULT, translation
from sheli.outputs.cues import hold_glosses
from sheli.outputs.diagram.words import held_labels, person_label, thing_label
from sheli.outputs.english import CJK_OUTSIDE_BRACKETS, step_sentence

#: how hard the viewer's English is gzipped, by the standard library (``pack_english``)
ENGLISH_LEVEL = 6

#: the optional fields of a step its English sentence reads
#: (:func:`sheli.outputs.english.step_sentence`); its note is shown apart, as in the text's
#: own pane, and its shot in the tally
SENTENCE_FIELDS = ("name", "obj", "number", "side", "to", "at")
#: a step with nothing but what a sentence reads, replaced for each act
_BARE_STEP = Step(0, 0, None, "", None, "", "", None, None, None, Holding(), None, None, [], 0,
                  Objects())  # fmt: skip


def viewer_labels() -> dict[str, str]:
    """The viewer's interface strings in English, from the gettext catalogue; each message
    id is the string the viewer shows in the text's terms.

    >>> viewer_labels()["notCounted"]
    'hits not counted (獲而未釋獲)'
    """
    tr = translation("en").gettext
    return {
        "section": tr("賈疏"),
        "round": tr("番"),
        "role": tr("人"),
        "only": tr("只看此人"),
        "tally": tr("獲"),
        "right": tr("右"),
        "left": tr("左"),
        "hits": tr("中/發"),
        "none": tr("尚無"),
        "notCounted": tr("獲而未釋獲"),
        "announce": tr("釋獲者告"),
        "all": tr("全部"),
        "play": tr("播放"),
        "pause": tr("暫停"),
        "holds": tr("執"),
        "dress": tr("服"),
        "at": tr("位"),
        "as": tr("如"),
        "step": tr("步"),
        "assumed": tr("假定"),
        "reading": tr("the reading followed"),
        "lang": tr("中文 / English"),
    }


def holds_english(holding: Any) -> str | None:
    """What is held in English, each thing's words in brackets (None: nothing).

    >>> from sheli.engine.state import Holding
    >>> holds_english(Holding(bow="張", fingers=1))
    'strung bow (張弓), arrow between the fingers (挾矢一)'
    >>> holds_english(Holding()) is None
    True
    """
    words = holds_words(holding)
    glosses = hold_glosses(holding)
    out = [f"{g} ({w})" if g else f"({w})" for w, g in zip(words, glosses, strict=True)]
    return ", ".join(out) or None


def dress_english(dress: Sequence[str]) -> str | None:
    """The dress in English, the text's words in brackets (None: none said).

    >>> dress_english(["袒", "決遂"])
    'the arm bared (袒), thumb ring and arm guard (決遂)'
    """
    out = [f"{en} ({d})" if (en := term_english(d, "dress")) else f"({d})" for d in dress]
    return ", ".join(out) or None


_BRACKETED = re.compile(r"(\([^()]*\))")
_CJK_RUN = re.compile(f"(?:{CJK_OUTSIDE_BRACKETS.pattern})+")


def bracket_terms(text: str) -> str:
    """``text`` with each run of the text's script that stands outside brackets put in
    brackets (a term the translation quotes bare), so that an English line reads as the
    English 儀注 does.

    >>> bracket_terms("請 means he tells the guest (州長).")
    '(請) means he tells the guest (州長).'
    """
    pieces = _BRACKETED.split(text)
    for k in range(0, len(pieces), 2):  # the pieces outside brackets
        pieces[k] = _CJK_RUN.sub(lambda m: f"({m.group()})", pieces[k])
    return "".join(pieces)


def reading_english(reading: str) -> str:
    """The reading a translation follows, its commentator and any term it quotes in
    brackets (``鄭: …`` → ``(鄭) …``), so that nothing of the text's script stands outside.

    >>> reading_english("鄭: 請 means he tells the guest of the archery.")
    '(鄭) (請) means he tells the guest of the archery.'
    """
    who, sep, rest = reading.partition(": ")
    return bracket_terms(f"({who}) {rest}" if sep and len(who) <= 8 else reading)


class EnglishTable:
    """The English strings of the viewer, each once, numbered, and a step's sentence made
    once for every distinct act (most acts recur: a 獲者 kneels at his 乏 forty times).

    >>> from sheli.engine import run
    >>> t = EnglishTable()
    >>> st = run("xiangshe").records[1]
    >>> print(t.text(t.sentence(st)))
    The guest (賓) is (在) southwest of the gate (門之西南), facing east.
    """

    def __init__(self) -> None:
        self.strings: list[str] = []
        self._ids: dict[str, int] = {}
        self._acts: dict[tuple[Any, ...], int] = {}

    def id(self, s: str) -> int:
        """The number of ``s`` in the table (added if new)."""
        n = self._ids.get(s)
        if n is None:
            n = self._ids[s] = len(self.strings)
            self.strings.append(s)
        return n

    def text(self, n: int) -> str:
        """The string numbered ``n``."""
        return self.strings[n]

    def sentence(self, step: Step) -> int:
        """The number of the English sentence of ``step``: its act, without the note, the
        shot and the assumptions (the viewer shows them apart)."""
        key: tuple[Any, ...] = (step.actor, step.verb, step.place, step.facing, step.says)
        key += (step.name, step.obj)
        key += (step.number, step.side, step.to, step.at)
        n = self._acts.get(key)
        if n is None:
            bare = _BARE_STEP._replace(
                actor=step.actor,
                verb=step.verb,
                place=step.place,
                facing=step.facing,
                says=step.says,
                name=step.name,
                obj=step.obj,
                number=step.number,
                side=step.side,
                to=step.to,
                at=step.at,
            )
            n = self._acts[key] = self.id(step_sentence(bare))
        return n


#: the formats of the diagrams' counts and measures (sheli.outputs.diagram.frame), the most
#: words first: the viewer in English finds each in a diagram's words and puts its English
DIAGRAM_FORMATS = (
    "數獲 右{right} 左{left}：{said}",
    "中 筭{n}  右獲{right} 左獲{left}",
    "侯 矢{n}（獲{h}）",
    "矢{n}（獲{h}）",
    "楅 矢{n}",
    "（乘）",
    "全侯道（{n} 尺）",
    "（1 尺 = {m} m）",
    "{n} 尺",
)


class DiagramWords:
    """The words of the diagrams in English, by the words drawn (docs/viewer.md, "In
    English"): the diagrams are drawn once, in the text's terms, and the viewer in English
    puts each label's English in its place (the same English the drawing gives in English:
    :mod:`sheli.outputs.diagram.words`), whatever it has none for in brackets.

    >>> w = DiagramWords()
    >>> w.person("司馬", "司正"); w.act("司射", "命", "上耦"); w.held(Holding(bow="張", belt=3))
    >>> w.words["司馬（司正）"], w.words["司射 命（上耦）"], w.words["張弓·搢三"]
    ('marshal (overseer)', 'director: order (upper pair)', 'strung bow·3 in belt')
    """

    def __init__(self) -> None:
        self.words: dict[str, str] = {}
        self._held: set[Holding] = set()
        self._acts: set[tuple[str, str | None, str | None]] = set()
        tr = translation("en").gettext
        self.words["北"] = tr("北")
        # the counts and measures the drawing writes into its words, as formats: [the
        # drawing's, the English], read back by the viewer
        self.formats = [[f, tr(f)] for f in DIAGRAM_FORMATS]

    def things(self, names: Iterable[str]) -> None:
        """Fixtures and things set down, by their names."""
        for n in names:
            if n not in self.words:
                self.words[n] = thing_label(n, "en")

    def person(self, actor: str, name: str | None = None) -> None:
        """A person's label: his role and the name the cast gives him."""
        zh = person_label(actor, name, DEFAULT)
        if zh not in self.words:
            self.words[zh] = person_label(actor, name, "en")

    def held(self, holding: Holding) -> None:
        """What a person holds, as his label shortens it."""
        if holding in self._held:
            return
        self._held.add(holding)
        zh = "·".join(held_labels(holding, DEFAULT))
        if zh:
            self.words.setdefault(zh, "·".join(held_labels(holding, "en")))

    def act(self, actor: str, verb: str | None, to: str | None) -> None:
        """The head of a step's diagram: who acts, and how."""
        if (actor, verb, to) in self._acts:
            return
        self._acts.add((actor, verb, to))
        who = (person_label(actor, None, DEFAULT), person_label(actor, None, "en"))
        zh = f"{who[0]} {verb or ''}" + (f"（{to}）" if to else "")
        en = f"{who[1]}: {label_en(verb, 'verbs')}" if verb else who[1]
        en += f" ({label_en(to, 'roles', 'places')})" if to else ""
        self.words.setdefault(zh, en)


def pack_english(data: dict[str, Any]) -> str:
    """The viewer's English as it stands in the page: the JSON of ``data``, gzipped (no
    time in its header, so the same data give the same bytes) and in base64. The viewer
    inflates it with the browser's own ``DecompressionStream`` when English is first shown,
    so that the page of a reader of the text's own terms carries it small.

    >>> import base64, gzip, json
    >>> json.loads(gzip.decompress(base64.b64decode(pack_english({"a": "right"}))))
    {'a': 'right'}
    """
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, ENGLISH_LEVEL, mtime=0)).decode("ascii")

"""The words of the diagram: things, people and what they hold, in the drawing's language
(docs/diagrams.md, "Labels in English").
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from sheli.engine.state import Holding, holds_words
from sheli.glossary import label as label_en
from sheli.i18n import translation
from sheli.text.variants import to_simplified

# -- the words of a drawing in its language (docs/diagrams.md, "Labels in English") ------------

#: Where a thing's English is looked up (洗 is a basin here, not the verb "wash").
_THINGS = ("places", "objects", "dress")


@lru_cache(maxsize=4096)
def _thing(name: str, lang: str) -> str:
    """A fixture or a thing set down as its label names it.

    >>> _thing("阼階", "en"), _thing("阼階", "zh-Hans"), _thing("阼階", "zh-Hant")
    ('east steps', '阼阶', '阼階')
    """
    if lang == "en":
        return label_en(name, *_THINGS)
    return to_simplified(name) if lang == "zh-Hans" else name


@lru_cache(maxsize=4096)
def _person(actor: str, name: str | None, lang: str) -> str:
    """A person's label: his role and, where the cast names him, his name.

    >>> _person("司馬", "司正", "zh-Hant"), _person("司馬", "司正", "en")
    ('司馬（司正）', 'marshal (overseer)')
    """
    if lang != "en":
        text = f"{actor}（{name}）" if name and name != actor else actor
        return to_simplified(text) if lang == "zh-Hans" else text
    text = label_en(actor, "roles")
    return f"{text} ({label_en(name, 'roles')})" if name and name != actor else text


@lru_cache(maxsize=4096)
def _hold(h: Holding, lang: str) -> tuple[str, ...]:
    """What a person holds, shortened for his label (``搢三``, ``3 in belt``): read from the
    numbers of his holding, in the order of the log's words.

    >>> _hold(Holding(bow="張", belt=3, fingers=1, items=(("爵", 1),), cup_full=True), "en")
    ('strung bow', '3 in belt', '1 held', 'goblet (full)')
    >>> _hold(Holding(hand=12, discipline_rod="搢"), "en"), _hold(Holding(belt=3), "zh-Hant")
    (('arrow ×12', 'rod in belt'), ('搢三',))
    """
    if lang != "en":
        words = [w.replace("搢矢", "搢").replace("挾矢", "挾") for w in holds_words(h)]
        return tuple(to_simplified(w) for w in words) if lang == "zh-Hans" else tuple(words)
    tr = _tr(lang)
    out: list[str] = []
    if h.bow:
        out.append(tr("strung bow") if h.bow == "張" else tr("unstrung bow"))
    if h.hand:
        out.append(f"{_thing('矢', lang)} ×{h.hand}")
    if h.belt:
        out.append(tr("{n} in belt").format(n=h.belt))
    if h.fingers:
        out.append(tr("{n} held").format(n=h.fingers))
    if h.side:
        out.append(f"{_thing('矢', lang)} ×{h.side} (執)")
    if h.discipline_rod:
        rod = _thing("扑", lang)
        out.append(tr("{thing} in belt").format(thing=rod) if h.discipline_rod == "搢" else rod)
    for k, n in h.items:
        if n <= 0:
            continue
        if k in ("觶", "爵"):
            out.append(f"{_thing(k, lang)} ({label_en('實' if h.cup_full else '虛', 'states')})")
        else:
            out.append(_thing(k, lang) if n == 1 else f"{_thing(k, lang)} ×{n}")
    if h.counting:
        out.append(f"{_thing('筭', lang)} ×{h.counting}")
    return tuple(out)


#: the words of a drawing, for a reader who puts them into another language afterwards (the
#: viewer in English: sheli.outputs.viewer_english.DiagramWords): a thing, a person, what he holds
thing_label = _thing
person_label = _person
held_labels = _hold


@lru_cache(maxsize=4)
def _tr(lang: str) -> Callable[[str], str]:
    """The drawing's strings (written as the default output reads) in ``lang``: through the
    catalogue for English, in simplified characters for zh-Hans.

    >>> _tr("en")("矢{n}（獲{h}）").format(n=4, h=1), _tr("zh-Hans")("矢{n}（獲{h}）")
    ('arrows 4 (hits 1)', '矢{n}（获{h}）')
    """
    if lang == "zh-Hans":
        return to_simplified
    return translation(lang).gettext

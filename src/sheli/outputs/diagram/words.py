"""The words of the diagram: things, people and what they hold, in the drawing's language
(docs/diagrams.md, "Labels in English").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from sheli.glossary import label as label_en
from sheli.i18n import translation
from sheli.text.variants import to_simplified

# -- the words of a drawing in its language (docs/diagrams.md, "Labels in English") ------------

#: Where a thing's English is looked up (洗 is a basin here, not the verb "wash").
_THINGS = ("places", "objects", "dress")
_NUMERAL = {c: str(k) for k, c in enumerate("一二三四五六七八九十", 1)}


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
def _hold(h: str, lang: str) -> str:
    """What a person holds, shortened for his label (``搢三``, ``3 in belt``).

    >>> [_hold(h, "en") for h in ("張弓", "搢矢三", "挾矢一", "爵(實)", "矢12", "搢扑")]
    ['strung bow', '3 in belt', '1 held', 'goblet (full)', 'arrow ×12', 'rod in belt']
    """
    short = h.replace("搢矢", "搢").replace("挾矢", "挾")
    if lang != "en":
        return to_simplified(short) if lang == "zh-Hans" else short
    tr = _tr(lang)
    m = re.fullmatch(r"(搢|挾)([一二三四五六七八九十]|[0-9]+)", short)
    if m:
        n = _NUMERAL.get(m.group(2), m.group(2))
        return (tr("{n} in belt") if m.group(1) == "搢" else tr("{n} held")).format(n=n)
    if short in ("張弓", "弛弓"):
        return tr("strung bow") if short == "張弓" else tr("unstrung bow")
    if short.startswith("搢"):
        return tr("{thing} in belt").format(thing=_thing(short[1:], lang))
    m = re.fullmatch(r"(.+?)\((實|虛)\)", short)
    if m:
        state = label_en(m.group(2), "states")
        return f"{_thing(m.group(1), lang)} ({state})"
    m = re.fullmatch(r"(.+?)([一二三四五六七八九十]|[0-9]+)", short)
    if m:
        return f"{_thing(m.group(1), lang)} ×{_NUMERAL.get(m.group(2), m.group(2))}"
    return _thing(short, lang)


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

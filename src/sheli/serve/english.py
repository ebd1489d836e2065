"""The live pages in English (docs/serve.md, "In English"): what ``static/english.js`` reads
to put the director's, the scorers', the performers' and the home page in English.

``ui`` are the pages' own words, by the message ids the pages show (the text's terms, as the
rest of the interface), from the gettext catalogue; ``terms`` the glossary's English of every
term of the text, so that a role, a verb or a place the pages write as the rite goes is given
its English; the rites and venues by their English names.

>>> w = page_english()
>>> w["ui"]["導演"], w["terms"]["司射"], w["ui"]["鄉射禮"]
('director', 'director of archery', 'The District Archery Meeting (鄉射禮)')
"""

from __future__ import annotations

import functools

from sheli.glossary import KINDS, glossary
from sheli.i18n import translation
from sheli.outputs.english import title_words

__all__ = ["page_english"]


def N_(message: str) -> str:
    """Marks ``message`` for the catalogue (``make messages`` extracts ``N_``), untranslated:
    the pages' words are translated when the English is asked for."""
    return message


#: the pages' words as they show them, each a message of the catalogue
PAGE_WORDS = (
    N_("導演"),
    N_("連線"),
    N_("重新連線中…"),
    N_("射外"),
    N_("第一番射"),
    N_("第二番射"),
    N_("第三番射"),
    N_("步"),
    N_("番"),
    N_("節"),
    N_("前節"),
    N_("次節"),
    N_("賈疏"),
    N_("聲"),
    N_("鼓停"),
    N_("飲酒之禮"),
    N_("賓、主人、大夫射"),
    N_("加一行"),
    N_("尺"),
    N_("中"),
    N_("不中"),
    N_("應鼓"),
    N_("不應鼓"),
    N_("人"),
    N_("未射"),
    N_("射侯之際"),
    N_("既射"),
)

#: terms whose sense on these pages is not the glossary's first: an arrow's 中 is a hit, not
#: the tally vessel (the 中 the 釋獲者 keeps the rods in)
PAGE_TERMS = {"中": N_("hit"), "不中": N_("miss")}


@functools.cache
def page_english() -> dict[str, dict[str, str]]:
    """The English of the live pages: ``ui`` (their words, and the rites' and venues' names)
    and ``terms`` (the glossary's)."""
    g = glossary()
    terms: dict[str, str] = {}
    for kind in KINDS:
        for term, en in g[kind].items():
            terms.setdefault(term, en)
    tr = translation("en").gettext
    ui = {m: tr(m) for m in PAGE_WORDS}
    terms.update({term: tr(en) for term, en in PAGE_TERMS.items()})
    for title in g["titles"]:
        ui[title] = title_words(title)
    return {"ui": ui, "terms": terms}

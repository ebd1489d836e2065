"""The interface's languages: gettext catalogues under ``sheli/locale`` (Babel's format).

The interface strings in code are written as the default output reads (the text's terms,
``zh-Hant``); a language other than the default has a catalogue ``sheli/locale/LANG/
LC_MESSAGES/sheli.po`` made with ``pybabel extract``/``update`` and compiled to ``.mo`` by
``make`` (docs/i18n.md). ``zh-Hans`` has no catalogue: it is the default's output turned into
simplified characters where it is printed.

>>> use("en"); tr("announcement")
'announcement'
>>> use("en"); tr("飲不勝者")
'the losers drink'
>>> use("zh-Hant"); tr("飲不勝者")
'飲不勝者'
"""

from __future__ import annotations

import functools
import gettext
import io
from contextvars import ContextVar
from pathlib import Path

__all__ = ["DEFAULT", "LANGS", "current", "ngettext", "tr", "translation", "use"]

# zh-Hant: the text's own characters (the default); zh-Hans: simplified; en: English.
LANGS = ("zh-Hant", "zh-Hans", "en")
DEFAULT = "zh-Hant"
DOMAIN = "sheli"

_current: ContextVar[str] = ContextVar("sheli_lang", default=DEFAULT)

# the catalogues, on disk beside this module (importlib.resources costs `sheli run` some 13
# million instructions of imports for the same paths)
LOCALE = Path(__file__).parent / "locale"


@functools.cache
def translation(lang: str) -> gettext.NullTranslations:
    """The catalogue of ``lang`` (a no-op one for the Chinese languages).

    The compiled ``.mo`` is read where the build made it; without it (a checkout not yet
    built) the ``.po`` is compiled in memory with Babel, so a catalogue never goes missing.

    >>> translation("en").gettext("round")
    'round'
    >>> translation("zh-Hans").gettext("飲不勝者")
    '飲不勝者'
    """
    if lang not in LANGS:
        raise ValueError(f"{lang!r}: the languages are {', '.join(LANGS)}")
    if lang.startswith("zh"):
        return gettext.NullTranslations()
    folder = LOCALE / lang / "LC_MESSAGES"
    mo = folder / f"{DOMAIN}.mo"
    if mo.is_file():
        return gettext.GNUTranslations(io.BytesIO(mo.read_bytes()))
    # deferred: Babel (a fifth of a short command's imports) only for a checkout not yet built
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po  # deferred: as write_mo

    buf = io.BytesIO()
    with (folder / f"{DOMAIN}.po").open("rb") as po:
        write_mo(buf, read_po(po, locale=lang))
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def use(lang: str) -> None:
    """Choose the language of the interface strings for what follows (this context).

    >>> use("en"); current()
    'en'
    >>> use("zh-Hant")
    """
    translation(lang)  # refuse an unknown language at once
    _current.set(lang)


def current() -> str:
    """The language chosen by :func:`use` (``zh-Hant`` if none).

    >>> use("zh-Hans"); current()
    'zh-Hans'
    >>> use("zh-Hant")
    """
    return _current.get()


def tr(message: str) -> str:
    """``message`` in the current language.

    >>> use("en"); tr("右獲 (上射)")
    "right's hits (右獲, the upper archers)"
    >>> use("zh-Hant")
    """
    return translation(_current.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural of ``message`` for ``n``, in the current language.

    >>> use("en"); ngettext("{n} pair", "{n} pairs", 2).format(n=2)
    '2 pairs'
    >>> use("zh-Hant")
    """
    return translation(_current.get()).ngettext(singular, plural, n)

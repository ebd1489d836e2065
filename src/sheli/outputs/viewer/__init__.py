"""The HTML viewer's assets: ``index.html.tmpl``, ``viewer.css`` and ``viewer.js``.

They are plain files so that a reader can open and edit them; :mod:`sheli.outputs.render`
reads them with :func:`asset` and inlines them into one self-contained ``index.html``.

>>> "<!doctype html>" in asset("index.html.tmpl").lower()
True
"""

from __future__ import annotations

from importlib import resources


def asset(name: str) -> str:
    """The text of one asset of this package (UTF-8).

    >>> "requestAnimationFrame" in asset("viewer.js")
    True
    """
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")

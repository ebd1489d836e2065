"""Chinese numerals of the announcement (告獲): :func:`sheli.rite.numerals.to_chinese`.

>>> to_chinese(19)
'十九'
"""

from __future__ import annotations

from sheli.rite.numerals import to_chinese

__all__ = ["to_chinese"]

"""Chinese numerals for the announcement of the count (告獲).

The 釋獲者 announces 「以純數告」 (xiangshe:203), 鄭注 「若干純若干竒」. The numbers are
written the way the 經 writes numbers: 十, 十一, 二十, 九十九, 百 — no leading 一 before 十 or
百, no 零. A gap inside a number (101) is bridged by 有 as the classical texts do (百有一,
like 「年百有一歲」); the announcement of a real rite never needs it, since 箭籌八十
(xiangshe:378) caps a side at eighty 筭 in the usual rite.

>>> to_chinese(4)
'四'
>>> to_chinese(19)
'十九'
>>> to_chinese(40)
'四十'
>>> to_chinese(100)
'百'
"""

from __future__ import annotations

DIGITS = "〇一二三四五六七八九"
_UNITS = ((1000, "千"), (100, "百"), (10, "十"))


MAX = 10**8 - 1  # 萬 of 萬: past it the classical names (億, 兆) differ between texts


def to_chinese(n: int) -> str:
    """Write ``n`` (0 ≤ n < 100,000,000) in Chinese numerals as the 經 writes numbers.

    0 is written 零 for completeness; an announcement never says it (a side with no 純 says
    no 純, xiangshe:203). 萬 counts in 萬 as 十, 百, 千 count in ones (二萬, 十二萬); what
    follows it keeps its 一 (萬一千) and a gap is bridged by 有 (萬有一).

    >>> [to_chinese(n) for n in (1, 10, 11, 20, 21, 99)]
    ['一', '十', '十一', '二十', '二十一', '九十九']
    >>> [to_chinese(n) for n in (101, 110, 200, 1000, 1234)]
    ['百有一', '百一十', '二百', '千', '千二百三十四']
    >>> [to_chinese(n) for n in (10000, 10001, 11000, 20000, 123456)]
    ['萬', '萬有一', '萬一千', '二萬', '十二萬三千四百五十六']
    """
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"to_chinese needs an int, not {type(n).__name__}")
    if n < 0 or n > MAX:
        raise ValueError(f"to_chinese covers 0 to {MAX}, not {n}")
    if n == 0:
        return "零"
    wan, rest = divmod(n, 10000)
    if not wan:
        return _below_wan(rest, inner=False)
    out = ("" if wan == 1 else _below_wan(wan, inner=False)) + "萬"
    if rest:
        out += ("有" if rest < 1000 else "") + _below_wan(rest, inner=True)
    return out


def _below_wan(n: int, inner: bool) -> str:
    """1 ≤ n ≤ 9999; ``inner``: after a higher place, where a leading 一 is written."""
    out: list[str] = []
    rest = n
    gap = False  # a zero place between two written places: bridged by 有
    for value, name in _UNITS:
        digit, rest = divmod(rest, value)
        if digit:
            if gap and out:
                out.append("有")
            # the leading place drops its 一 (十, 百, 千); an inner place keeps it (百一十)
            lead = not out and not inner
            out.append(name if digit == 1 and lead else DIGITS[digit] + name)
            gap = False
        elif out:
            gap = True
    if rest:
        if gap and out:
            out.append("有")
        out.append(DIGITS[rest])
    return "".join(out)

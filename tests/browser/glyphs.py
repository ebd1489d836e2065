"""Whether the fonts a page has draw each sign it shows: a sign no font holds is drawn as the
box of a missing glyph (⏮ and ⏭ on a machine with the CJK fonts alone, as Debian's
fonts-noto-cjk), which a reader sees and cannot read.

A sign is drawn on a canvas in its element's fonts and compared, pixel for pixel, with a
character of the private use area, which no font here holds.
"""

from __future__ import annotations

from typing import Any

UNDRAWN = """(sel) => {
  const out = [];
  for (const e of document.querySelectorAll(sel)) {
    const family = getComputedStyle(e).fontFamily;
    const c = document.createElement('canvas');
    c.width = c.height = 64;
    const g = c.getContext('2d');
    const draw = (ch) => {
      g.clearRect(0, 0, 64, 64);
      g.font = `40px ${family}`;
      g.fillText(ch, 4, 48);
      return g.getImageData(0, 0, 64, 64).data.join(',');
    };
    const none = draw('\\uE000');
    for (const ch of e.textContent) if (ch.trim() && draw(ch) === none) out.push(ch);
  }
  return out;
}"""


def undrawn(page: Any, selector: str) -> list[str]:
    """The signs of the elements at ``selector`` that no font of theirs draws."""
    return list(page.evaluate(UNDRAWN, selector))

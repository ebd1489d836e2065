"""The 侯 a live event shoots at, for the scorer's page and the audience's marks: its geometry
from the table of ranks (``sheli params --target``) and its drawing to scale
(:func:`sheli.outputs.target.target_svg`).

Which cell of the table a rite's 侯 are taken from (the rite does not name its shooter's rank;
the choice and its reason are stated in :data:`CELL_OF_RITE`):

>>> [(t.name, t.dao, t.mark) for t in targets_of("xiangshe")]
[('采侯', 50, '二正')]
>>> target_for("dashe", "干侯").name, target_for("dashe", None).name
('豻侯', '大侯')

Where an arrow struck is given in 尺 from the centre of the 侯中, ``x`` to the archer's right
and ``y`` up (the outcome fields of docs/scoring.md); :func:`on_hou` says whether such a point
is on the cloth of the 侯 (a hit candidate for the scorer's page: the count is the engine's):

>>> t = target_for("xiangshe", None)
>>> on_hou(t, 0, 0), on_hou(t, 19, 8), on_hou(t, 19, -8), on_hou(t, 0, 20)
(True, True, False, False)
"""

from __future__ import annotations

from functools import cache

from sheli.outputs.target import target_svg
from sheli.place.target import Target, 幅
from sheli.rite.ranks import load_ranks

#: the cell of the table of ranks whose 侯 each rite shoots at. 鄉射禮: the 州長 is a 士
#: (xiangshe:7 疏), and the 鄉大夫's 鄉射 has the same 采侯 in the table (xiangshe:336 注 鄉射及
#: 賓射當張采矦二正); 大射儀: the 諸侯's three 侯 (dashe:6); the 燕射: the 諸侯's (燕禮 is the
#: 諸侯's feast; its archery 如鄉射之禮, yan:124).
CELL_OF_RITE: dict[str, tuple[str, str]] = {
    "xiangshe": ("士", "鄉射"),
    "dashe": ("諸侯", "大射"),
    "yanshe": ("諸侯", "燕射"),
    "yanli": ("諸侯", "燕射"),
}
#: the venue's names of the 侯 (the shot lines' ``hou``) where the table writes them otherwise:
#: 干 for 豻 and 參 for 糝 (dashe:6 注: 參讀爲糝, 干讀爲豻)
ALIASES = {"干侯": "豻侯", "參侯": "糝侯"}


@cache
def targets_of(rite: str) -> tuple[Target, ...]:
    """The 侯 of a rite, farthest first, with the default readings (鄭玄's)."""
    rank, occasion = CELL_OF_RITE.get(rite, CELL_OF_RITE["xiangshe"])
    table = load_ranks()
    cell = table.cell(rank, occasion)
    hu, inner = table.hu_rule().value.fractions()
    return tuple(
        Target(h.道, h.的, h.名, hu, inner) for h in cell.get("侯").value if h.道 is not None
    )


def target_for(rite: str, hou: str | None) -> Target:
    """The 侯 a shot line names (``hou``), else the rite's first (the only one but in 大射儀)."""
    ts = targets_of(rite)
    name = ALIASES.get(hou or "", hou)
    return next((t for t in ts if t.name == name), ts[0])


def on_hou(t: Target, x: float, y: float) -> bool:
    """Whether (x, y), 尺 from the centre of the 侯中, is on the cloth of the 侯 (its five
    strips; the 綱 and the air between the 舌 are not)."""
    bottom = -(2 * 幅 + t.中 / 2)  # the 下舌's lower edge, below the centre
    for b in t.bands():
        lo = bottom + b.bottom
        if lo <= y <= lo + b.height and abs(x) <= b.width / 2:
            return True
    return False


@cache
def hou_svg(rite: str, hou: str | None, metre_per_chi: float) -> str:
    """One 侯 of the rite drawn to scale (its 中 carries ``data-part="中"``: the page finds the
    centre there and maps a tap to 尺 with ``data-px-per-chi``).

    >>> svg = hou_svg("xiangshe", None, 0.231)
    >>> 'data-part="中" data-chi="10"' in svg and "采侯" in svg
    True
    """
    t = target_for(rite, hou)
    return target_svg([t], metre_per_chi=metre_per_chi, title=t.name, hung=False)

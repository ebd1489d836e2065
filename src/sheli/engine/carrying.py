"""Things carried are held: whoever sets out a dish or lays a 席 he brought holds it on his
way; whoever withdraws (徹) one carries it away.

The text names the one who 設 or 薦 a dish and, now and then, that it follows the one it is for
(薦俎從之 dashe:248; 使人執其薦與俎從之 xiangshe:224), but seldom the carrying itself: 宰夫有司
薦庶子設折俎 (dashe:247), 宰胥薦脯醢由左房，庶子設折俎升自西階 (dashe:56), 膳宰薦脯醢由左房
(yan:48). One who 設s or 薦s a dish at the end of his walk brought it: he holds it on that walk
(the goings, 升 and 降 that lead to it), from where he set out (or from the 取 that took it up)
until he sets it down. And one who follows (從) right after setting a dish down takes it up
again and carries it on (此薦俎之設如於北面人焉 注 dashe:249: set down at each 个 in turn).
Where he took it up, when no 取 says so, the text does not say: he holds it from his last act
before the walk (docs/world-rules.md, Things carried). A 席 is carried as a dish is (司宮兼卷
重席設于賓左東上 yan:76, 注 席自房來). What one 徹s goes into his hands (卿辭重席司宮徹之 yan:77;
獲者釋獲者亦退其薦俎 注 xiangshe:258) and he holds it on the walks that take it away, up to his
反位, until he puts it down or hands it on; where the text is silent, he has laid it by where
he went before his next act (:func:`keeps_withdrawn`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

#: the dishes one brings to set out (薦 脯醢, 折俎, 羞 and 庶羞)
DISHES: frozenset[str] = frozenset(("薦", "俎", "脯醢", "脯", "羞", "庶羞", "折俎"))
#: the mats one lays (席, 重席 …): laid by one who walks to lay them, carried as a dish is
#: (司宮兼卷重席設于賓左東上 yan:76, 注 席自房來)
MATS: frozenset[str] = frozenset(("席", "重席", "加席"))
#: the things one who lays or withdraws them carries (docs/world-rules.md, Things carried)
LAID: frozenset[str] = DISHES | MATS
#: the acts of a walk on which a dish is carried (反位 ends a walk: he sets out anew from there)
CARRYING_MOVES: frozenset[str] = frozenset(
    ("適", "進", "升", "降", "就", "從", "繼", "由", "出", "入", "退")
)
#: the acts that set a dish out
SETTING_OUT: frozenset[str] = frozenset(("設", "薦"))


def _sets_out(act: Any) -> bool:
    return act.verb in SETTING_OUT and act.obj in LAID


def _walks(act: Any) -> bool:
    return act.verb in CARRYING_MOVES and not (act.verb == "退" and act.obj)


def keeps_withdrawn(verb: str) -> bool:
    """Whether one who has withdrawn (徹) a thing still holds it at an act ``verb``: on the
    walks that take it away, up to his 反位 (where the text is silent, he lays it by at the
    place he goes back to, before his next act: docs/world-rules.md, Things carried).

    >>> keeps_withdrawn("降"), keeps_withdrawn("反位"), keeps_withdrawn("拜")
    (True, True, False)
    """
    return verb in CARRYING_MOVES or verb == "反位"


def _runs_of_acts(steps: Iterable[Any]) -> Iterator[list[Any]]:
    """The acts of ``steps`` in runs that are done one after another (the acts of consecutive
    steps; an ``if``, ``for_each`` or ``call`` ends a run), the nested steps' runs included."""
    run: list[Any] = []
    for step in steps:
        if hasattr(step, "acts"):
            run.extend(step.acts())
            continue
        if run:
            yield run
            run = []
        for nested in (getattr(step, "then", None), getattr(step, "else_", None)):
            if nested:
                yield from _runs_of_acts(nested)
        if getattr(step, "for_each", None) is not None:
            yield from _runs_of_acts(step.do)
    if run:
        yield run


def carried_on(acts: list[Any]) -> dict[int, tuple[str, ...]]:
    """For each walking act of ``acts`` (by ``id``) that leads its doer to set dishes out, the
    dishes he carries on it.

    >>> from types import SimpleNamespace as A
    >>> acts = [A(actor="宰胥", verb="適", obj=None), A(actor="賓", verb="拜", obj=None),
    ...         A(actor="宰胥", verb="升", obj=None), A(actor="宰胥", verb="薦", obj="脯醢"),
    ...         A(actor="宰胥", verb="反位", obj=None)]
    >>> sorted(carried_on(acts).values())
    [('脯醢',), ('脯醢',)]
    >>> carried_on([A(actor="贊者", verb="從", obj=None), A(actor="贊者", verb="設", obj="薦"),
    ...             A(actor="贊者", verb="設", obj="俎")]).popitem()[1]
    ('薦', '俎')
    >>> carried_on([A(actor="贊者", verb="升", obj=None), A(actor="贊者", verb="設", obj="席"),
    ...             A(actor="贊者", verb="設", obj="薦")]).popitem()[1]
    ('席',)
    """
    out: dict[int, tuple[str, ...]] = {}
    for i, act in enumerate(acts):
        if not _walks(act):
            continue
        dishes: list[str] = []
        for later in acts[i + 1 :]:
            if later.actor != act.actor:
                continue
            if _sets_out(later) and (not dishes or (later.obj in MATS) == (dishes[0] in MATS)):
                # a run of 設 of one kind (設薦…設俎; 席…席): he brings the mats on one
                # walk and the dishes on another (乃席賓 xiangshe:4 … 薦脯醢 xiangshe:12)
                dishes.append(later.obj)
            elif dishes or not _walks(later):
                break
        if dishes:
            out[id(act)] = tuple(dict.fromkeys(dishes))
    return out


def carried_in(spec: Any) -> dict[int, tuple[str, ...]]:
    """:func:`carried_on` for every run of acts of ``spec``, its procedures' included."""
    out: dict[int, tuple[str, ...]] = {}
    lists = [spec.steps, *(p.steps for p in spec.procedures.values())]
    for steps in lists:
        for run in _runs_of_acts(steps):
            out.update(carried_on(run))
    return out

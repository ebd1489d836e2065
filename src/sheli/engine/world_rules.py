"""Objects and garments kept between the text's words (docs/world-rules.md).

The verbs (:mod:`sheli.engine.verbs`) check what each act needs; these rules check what the
text leaves implicit between the acts: nobody drinks, takes his 席 or ends the rite bared (袒)
or wearing the 決 and 遂; a cup is filled at a 尊 or 壺 and turns full or empty only by
filling or drinking; a thing is taken up where it lies. The rules, their sources and the
passages where the text says otherwise are data (``sheli/rite/data/world-rules.yaml``).

The interpreter calls :meth:`WorldRules.before` and :meth:`WorldRules.after` around each act
of each person, and :meth:`WorldRules.finish` when the rite is over; a broken rule is a
:class:`~sheli.engine.verbs.VerbError` (after an act) or a list of faults (at the end), which the
interpreter reports with the spec file, line and passage like its other checks.

>>> rules = load_world_rules()
>>> rules.rule("W-drink-dressed").text.split(":")[0]
'Nobody drinks bared (袒) or wearing the 決 and 遂'
>>> from sheli.engine.state import Person
>>> p = Person("賓", role="賓"); p.bared = True
>>> dressed(p)
'袒'
"""

from __future__ import annotations

import math
import re
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from sheli.engine.env import may_be_fixture
from sheli.engine.state import Person
from sheli.engine.verbs import Ctx, VerbError
from sheli.yamlfile import load_yaml

RULES_FILE = Path(__file__).resolve().parent.parent / "rite" / "data" / "world-rules.yaml"

#: a place that is a 席 itself (賓席, 大夫席, 衆賓席1), not a place by it (賓席之西)
_SEAT = re.compile(r"[席筵]\d*$")

__all__ = [
    "RULES_FILE",
    "Fault",
    "Rule",
    "RuleSet",
    "WorldRules",
    "dressed",
    "load_world_rules",
]


class Rule(msgspec.Struct, frozen=True):
    """One rule: its id, what it says, its sources and the passages exempt from it."""

    id: str
    text: str
    sources: tuple[str, ...]
    # (cite, obj): the passages (and the object, when the entry names one) exempt from it
    allow: frozenset[tuple[str, str | None]] = frozenset()

    def allows(self, cite: str, obj: str | None) -> bool:
        return (cite, None) in self.allow or (obj is not None and (cite, obj) in self.allow)

    def why(self) -> str:
        """The rule and its first source, for an error message."""
        return f"{self.text.rstrip('.')} ({self.sources[0]}) [{self.id}]"


class RuleSet(msgspec.Struct, frozen=True):
    """The rules of ``world-rules.yaml`` and the words they are stated in."""

    reach: float
    take_reach: float
    vessels: tuple[str, ...]
    cups: tuple[str, ...]
    # vessel → the way its filler faces (W-fill-facing)
    fill_facing: dict[str, str]
    fill_verbs: frozenset[str]
    drink_verbs: frozenset[str]
    take_verbs: frozenset[str]
    seat_verbs: frozenset[str]
    rules: dict[str, Rule]

    def rule(self, rid: str) -> Rule:
        return self.rules[rid]


@cache
def load_world_rules(path: Path | None = None) -> RuleSet:
    """Read the rules (``world-rules.yaml``); every rule must give at least one source."""
    # libyaml's parse (sheli.yamlfile): the data yaml.safe_load gives, in a fraction of its time
    raw = load_yaml((path or RULES_FILE).read_text(encoding="utf-8"))
    rules: dict[str, Rule] = {}
    for r in raw["rules"]:
        sources = tuple(str(s) for s in r.get("sources") or ())
        if not sources:
            raise ValueError(f"world rule {r['id']} gives no source")
        allow = frozenset(
            (str(a["cite"]), a.get("obj")) if isinstance(a, dict) else (str(a), None)
            for a in r.get("allow") or ()
        )
        rules[r["id"]] = Rule(r["id"], " ".join(str(r["text"]).split()), sources, allow)
    return RuleSet(
        reach=float(raw["reach"]),
        take_reach=float(raw["take_reach"]),
        vessels=tuple(raw["vessels"]),
        cups=tuple(raw["cups"]),
        fill_facing={str(k): str(v) for k, v in (raw.get("fill_facing") or {}).items()},
        fill_verbs=frozenset(raw["fill_verbs"]),
        drink_verbs=frozenset(raw["drink_verbs"]),
        take_verbs=frozenset(raw["take_verbs"]),
        seat_verbs=frozenset(raw["seat_verbs"]),
        rules=rules,
    )


def dressed(p: Person) -> str | None:
    """What of the archery's dress he still wears (袒, 決遂), or None if 襲 without them."""
    worn = [w for w, on in (("袒", p.bared), ("決遂", p.ring_and_guard)) if on]
    return "、".join(worn) or None


class Fault(msgspec.Struct, frozen=True):
    """A rule broken at the end of the rite: who, his last act, and what is wrong."""

    who: str
    file: str | None
    line: int
    cite: str
    verb: str
    message: str


#: The acts that bare the arm or put on the 決遂 (W-end-dressed).
_DRESSING = frozenset(("袒", "決遂", "決"))


class WorldRules(msgspec.Struct, dict=True):
    """The rules applied to one run (see the module's docstring)."""

    env: Any
    # a schematic excerpt (tests): its places are not staged and it does not end the rite, so
    # W-fill-at-vessel, W-take-reach and W-end-dressed are not applied
    excerpt: bool = False
    ruleset: RuleSet = msgspec.field(default_factory=load_world_rules)
    # who → (file, line, cite, verb) of his last act
    last: dict[str, tuple[str | None, int, str, str]] = msgspec.field(default_factory=dict)
    # who bared his arm or put on the 決遂 in the run (an excerpt's cast may start so)
    bared: set[str] = msgspec.field(default_factory=set)
    _vessels: list[tuple[str, float, float]] | None = None

    def vessels(self) -> list[tuple[str, float, float]]:
        """The venue's 尊 and 壺 (those of the rules the venue has), with their points."""
        if self._vessels is None:
            found = []
            venue = getattr(self.env, "venue", None)
            for name in self.ruleset.vessels:
                if not may_be_fixture(venue, name):
                    continue  # not in this venue
                try:
                    pt = venue.point(name)  # type: ignore[union-attr]
                except (ValueError, KeyError, AttributeError):  # not in this venue (PlaceError)
                    continue
                if pt is not None and getattr(pt, "x", None) is not None:
                    found.append((name, float(pt.x), float(pt.y)))
            self._vessels = found
        return self._vessels

    def _cups(self, p: Person) -> int:
        items = p.items
        if not items:
            return 0
        cups = self.ruleset.cups
        return sum(map(items.get, cups, (0,) * len(cups)))

    def before(self, p: Person) -> tuple[int, bool]:
        """What the rules need to know of him before his act: cups in hand, and full or not."""
        return self._cups(p), p.cup_full

    def about_cups(self, act: Any) -> bool:
        """Whether the rules of cups look at ``act`` (its thing is a cup): only then does
        :meth:`after` read what :meth:`before` gives.

        >>> from sheli.rite.nodes import Act
        >>> rules = WorldRules(env=None)
        >>> rules.about_cups(Act(verb="取", obj="觶")), rules.about_cups(Act(verb="適"))
        (True, False)
        """
        return act.obj in self.ruleset.cups

    def looks_at(self, act: Any) -> bool:
        """Whether a rule looks at ``act`` beyond noting it as its actor's last act (what
        :meth:`after` does for the others: :meth:`noted`): one that bares or dresses, drinks
        or comes to a seat, has a cup, or takes a thing from a place.

        >>> from sheli.rite.nodes import Act
        >>> rules = WorldRules(env=None)
        >>> rules.looks_at(Act(verb="拜")), rules.looks_at(Act(verb="袒"))
        (False, True)
        """
        rs, verb = self.ruleset, act.verb
        return (
            verb in _DRESSING
            or verb in rs.drink_verbs
            or verb in rs.seat_verbs
            or act.obj in rs.cups
            or (act.from_ is not None and verb in rs.take_verbs)
        )

    def noted(self, name: str, file: str | None, line: int, cite: str, verb: str) -> None:
        """:meth:`after` for an act no rule looks at (:meth:`looks_at`): his last act."""
        self.last[name] = (file, line, cite, verb)

    def after(self, ctx: Ctx, p: Person, pre: tuple[int, bool] | None, file: str | None) -> None:
        """Check his act against the rules; raise :class:`VerbError` naming the rule.
        ``pre``: :meth:`before`, where the act is :meth:`about_cups`."""
        rs, act, cite = self.ruleset, ctx.act, ctx.cite
        verb = act.verb
        self.last[p.name] = (file, ctx.line, cite, verb)
        if verb in _DRESSING:
            self.bared.add(p.name)
        # what he wears matters only to a drink or a coming to his seat
        if (p.bared or p.ring_and_guard) and (verb in rs.drink_verbs or verb in rs.seat_verbs):
            worn = dressed(p)
            if verb in rs.drink_verbs:
                self._fail("W-drink-dressed", cite, f"{p.name} drinks wearing {worn}")
            if p.place and _SEAT.search(p.place) and p.on_tang and verb in rs.seat_verbs:
                self._fail(
                    "W-seat-dressed", cite, f"{p.name} comes to his place {p.place} wearing {worn}"
                )
        obj = act.obj
        if obj in rs.cups and pre is not None:
            n, full = self._cups(p), p.cup_full
            if verb in rs.fill_verbs and not self.excerpt:
                self._near_vessel(ctx, p)
            elif verb == "洗" and pre[0] and pre[1]:
                self._fail("W-fill-only", cite, f"{p.name} washes a full {obj}")
            if n and n == pre[0] and full != pre[1]:
                if full and verb not in rs.fill_verbs and verb not in ("受", "取"):
                    self._fail(
                        "W-fill-only", cite, f"the {obj} in {p.name}'s hand turns full by {verb}"
                    )
                if not full and verb not in rs.drink_verbs:
                    self._fail(
                        "W-fill-only", cite, f"the {obj} in {p.name}'s hand turns empty by {verb}"
                    )
            elif n and not pre[0] and full and act.from_ is None and act.state is None:
                if verb in rs.take_verbs or verb == "執":
                    self._fail(
                        "W-fill-only",
                        cite,
                        f"{p.name} takes up a {obj} from no stated place and it is full "
                        "(give from: or state:)",
                    )
        if self.excerpt or act.from_ is None or verb not in rs.take_verbs:
            return
        if ctx.other(act.from_) is None:
            self._near_place(ctx, p, act.from_)

    def _near_vessel(self, ctx: Ctx, p: Person) -> None:
        vessels = self.vessels()
        px, py = p.x, p.y
        if not vessels or px is None or py is None:
            return
        name, vx, vy = min(vessels, key=lambda v: math.hypot(v[1] - px, v[2] - py))
        d = math.hypot(vx - px, vy - py)
        if d > self.ruleset.reach:
            self._fail(
                "W-fill-at-vessel",
                ctx.cite,
                f"{p.name} fills the {ctx.act.obj} at {p.place}, {d:.0f} 尺 from the nearest "
                f"vessel ({name} at {vx:g}, {vy:g}): he goes to it first",
            )
        side = self.ruleset.fill_facing.get(name)
        if side is None:
            return
        if ctx.act.facing is None:
            p.facing = side  # he faces the vessel from its side, whatever he faced coming
        elif ctx.act.facing != side:
            self._fail(
                "W-fill-facing",
                ctx.cite,
                f"{p.name} fills the {ctx.act.obj} at the {name} facing {ctx.act.facing}, "
                f"not {side}",
            )

    def _near_place(self, ctx: Ctx, p: Person, ref: Any) -> None:
        if p.x is None or p.y is None:
            return
        try:
            pt = ctx.place(ref)
        except (VerbError, ValueError, KeyError):  # not a fixture (中西, 豐上 …): no distance
            return
        if pt.x is None or pt.y is None:
            return
        d = math.hypot(pt.x - p.x, pt.y - p.y)
        if d > self.ruleset.take_reach:
            self._fail(
                "W-take-reach",
                ctx.cite,
                f"{p.name} takes the {ctx.act.obj} from {pt.desc}, {d:.0f} 尺 from where he "
                f"stands ({p.place})",
                ctx.act.obj,
            )

    def _fail(self, rid: str, cite: str, what: str, obj: str | None = None) -> None:
        rule = self.ruleset.rule(rid)
        if rule.allows(cite, obj):
            return
        raise VerbError(f"{what}: {rule.why()}")

    def finish(self, people: dict[str, Person]) -> list[Fault]:
        """The rules broken when the rite is over: anyone who bared his arm or put on the
        決遂 in the run and still wears them."""
        rule = self.ruleset.rule("W-end-dressed")
        out: list[Fault] = []
        if self.excerpt:
            return out
        for name, (file, line, cite, verb) in self.last.items():
            p = people.get(name) if name in self.bared else None
            worn = dressed(p) if p is not None else None
            if worn and p is not None and not rule.allows(cite, None):
                out.append(
                    Fault(
                        name,
                        file,
                        line,
                        cite,
                        verb,
                        f"{name} ends the rite wearing {worn} "
                        f"(his last act: {verb} at {p.place}): {rule.why()}",
                    )
                )
        return out

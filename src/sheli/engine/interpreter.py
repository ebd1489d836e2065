"""The interpreter: runs a validated spec against the world state, step by step.

It expands procedures (如初), loops over pairs (三耦, 衆耦 …) and the text's conditions (若),
hands each act to its verb (:mod:`sheli.engine.verbs`) and writes the event log. Any failed
precondition stops the run with a :class:`~sheli.rite.loader.SpecError` naming the spec file,
the step's line, its passage id and what is wrong.

The environment (:class:`Env`) is where the lower layers come in: the text (passages, 賈疏
sections, variant folding), the place (fixtures and relations) and the scoring (release,
announcement, count). Tests may pass stand-ins; :func:`default_env` uses the real layers.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, partial
from typing import Any, Protocol

import msgspec

from sheli import collector
from sheli.engine.bodies import Bodies
from sheli.engine.carrying import DISHES, carried_in, keeps_withdrawn
from sheli.engine.env import Env, Pt, VerbError, count_of, section_topic
from sheli.engine.paths import Paths, Via, load_paths, route_words
from sheli.engine.records import Shared, Step
from sheli.engine.state import Pair, Person, World
from sheli.engine.variants import find_variant
from sheli.engine.verbs import REACH, VERBS, Ctx
from sheli.engine.walks import ApartWalks, check_walk
from sheli.engine.world_rules import WorldRules
from sheli.place.bodies import load_bodies
from sheli.rite.loader import FILE_KEY, LINE_KEY, SpecError
from sheli.rite.nodes import (
    ActStep,
    CallStep,
    Condition,
    ForEachStep,
    IfStep,
    PairDecl,
    RoundStep,
    Spec,
)
from sheli.scoring.outcomes import OutcomesError

THREE = ("上耦", "次耦", "下耦")
# ---------------------------------------------------------------------------- setup


#: 鄉射禮's pairs, when a spec does not declare its own: the 三耦 (xiangshe:113); 賓 and 主人 as
#: a pair, and each 大夫 with a 衆賓 as his 耦 (xiangshe:165–166, 若有大夫則大夫與士爲耦 疏);
#: the 衆耦 (xiangshe:165).
DEFAULT_PAIRS: list[dict[str, Any]] = [
    *({"name": n, "kind": "三耦", "upper": f"{n}上射", "lower": f"{n}下射"} for n in THREE),
    {
        "name": "賓耦",
        "kind": "賓耦",
        "upper": "賓",
        "lower": "主人",
        "upper_role": "賓",
        "lower_role": "主人",
        "when": {"guests_shoot": True},
    },
    {
        "name": "大夫耦{i}",
        "kind": "大夫耦",
        "upper": "大夫之耦{k}",
        "lower": "大夫{k}",
        "upper_role": "大夫之耦",
        "lower_role": "大夫",
        "repeat": "dafu",
        "when": {"guests_shoot": True},
    },
    {
        "name": "衆耦{i}",
        "kind": "衆耦",
        "upper": "衆耦{i}上射",
        "lower": "衆耦{i}下射",
        "repeat": "pairs",
    },
]


@cache
def default_pairs() -> list[PairDecl]:
    """:data:`DEFAULT_PAIRS` as the spec's ``pairs:`` would give them (the code's own: made as
    nodes, not validated, so that a run never needs pydantic). Shared by the runs: read-only.

    >>> [d.name for d in default_pairs()][:4], default_pairs()[3].when.guests_shoot
    (['上耦', '次耦', '下耦', '賓耦'], True)
    """
    return [
        PairDecl(**{**d, "when": Condition(**d["when"]) if "when" in d else None})
        for d in DEFAULT_PAIRS
    ]


def _params_match(c: Any, params: dict[str, Any]) -> bool:
    """The keys of a condition that test the run's parameters (venue, guests_shoot, option,
    reading) hold; the other keys are not looked at."""
    if c.guests_shoot is not None and params["guests_shoot"] != c.guests_shoot:
        return False
    if c.venue is not None and params["venue"] != c.venue:
        return False
    if c.option is not None:
        opts = params.get("options") or {}
        if any(opts.get(k) != v for k, v in c.option.items() if k not in (LINE_KEY, FILE_KEY)):
            return False
    return c.reading is None or c.reading in params.get("readings", ())


def _params_hold(c: Any, params: dict[str, Any]) -> bool:
    """A pair's ``when:``: only the run's parameters can be tested (the world is not yet)."""
    if c is None:
        return True
    if not _params_match(c, params):
        return False
    if c.all is not None and not all(_params_hold(x, params) for x in c.all):
        return False
    if c.any is not None and not any(_params_hold(x, params) for x in c.any):
        return False
    return not (c.not_ is not None and _params_hold(c.not_, params))


#: Roles whose arrows are bound with 茅 on the 楅 and who 説矢束 before taking them: the 大夫
#: (xiangshe:191, 242) and, in 大射儀, the 諸公 and 卿 (賓諸公卿大夫之矢皆異束之以茅 dashe:209).
DAFU_ROLES: frozenset[str] = frozenset({"大夫", "卿", "諸公"})
#: the archers who, 不勝, drink at their 席 and do not go up the 西階 from below: 賓主人大夫
#: (xiangshe:216 執爵者…授于席前), 賓諸公卿大夫 (dashe:235 不降不執弓), and the 公 or 君, served
#: by the 夾爵 (yan:181)
DRINK_AT_SEAT: frozenset[str] = DAFU_ROLES | {"賓", "主人", "公", "君"}


def build_world(spec: Spec, params: dict[str, Any]) -> World:
    """People and pairs from the spec's ``pairs:`` (or 鄉射禮's) and the run's parameters.

    >>> params = {"guests_shoot": False, "dafu": 0, "pairs": 1, "venue": "xie"}
    >>> list(build_world(Spec(rite="-", chapter="xiangshe"), params).pairs)
    ['上耦', '次耦', '下耦', '衆耦1']
    """
    w = World(params=params, chapter=spec.chapter, rite=spec.rite)
    decls = spec.pairs
    if decls is None:
        decls = default_pairs()
    names = {"pairs": params["pairs"], "dafu": params.get("dafu", 1)}
    pairs: list[Pair] = []
    roles: dict[str, str] = {}
    for d in decls:
        if not _params_hold(d.when, params):
            continue
        n = 1 if d.repeat is None else count_of(d.repeat, names)
        for i in range(1, n + 1):
            k = "" if n == 1 else str(i)

            def fill(t: str, i: int = i, k: str = k) -> str:
                return t.replace("{i}", str(i)).replace("{k}", k)

            pr = Pair(fill(d.name), fill(d.upper), fill(d.lower), d.kind)
            pairs.append(pr)
            roles[pr.upper], roles[pr.lower] = d.upper_role, d.lower_role
    for pr in pairs:
        w.pairs[pr.name] = pr
        for seat, name in (("上射", pr.upper), ("下射", pr.lower)):
            role = roles[name]
            w.people[name] = Person(name, role=role, pair=pr.name, seat=seat)
            # 大夫之矢則兼束之以茅 (xiangshe:191); 賓諸公卿大夫之矢皆異束之以茅 (dashe:209)
            w.people[name].is_dafu = role in DAFU_ROLES
            w.aliases[pr.name + seat] = name
    kinds: dict[str, list[str]] = {}
    for pr in pairs:
        kinds.setdefault(pr.kind, []).append(pr.name)
    w.groups = {g: kinds.get(g, []) for g in ("三耦", "衆耦", "賓耦", "大夫耦")}
    w.groups.update(kinds)
    w.groups["全耦"] = w.groups["三耦"] + w.groups["衆耦"]
    # every pair, in the order the text has them shoot: as declared
    w.groups["射耦"] = [pr.name for pr in pairs]
    # the pairs a variant forms during the run (主皮之射: 勝耦, formed by 比耦 from the 勝者)
    for group in find_variant(spec.rite).later_groups:
        w.groups.setdefault(group, [])
    w.names = {
        "archers": 2 * len(pairs),
        "pairs": params["pairs"],
        "dafu": len(w.groups["大夫耦"]),
    }
    return w


# ---------------------------------------------------------------------------- running


#: a Step from the tuple of its fields, without the keyword handling of Step(...): the run
#: makes one per line
_new_step = partial(tuple.__new__, Step)


class RecordSink(Protocol):
    """What the interpreter needs of its records: it only appends to them."""

    def append(self, record: Any, /) -> object: ...


def _xy(pt: Pt | None) -> tuple[float, float] | None:
    if pt is None or pt.x is None or pt.y is None:
        return None
    return (pt.x, pt.y)


def _via_xy(via: Pt | list[Pt] | None) -> Via | None:
    """A move's ``via`` on the plan: its point, or its waypoints in order (a route in words)."""
    if isinstance(via, list):
        pts = tuple(xy for xy in map(_xy, via) if xy is not None)
        return pts or None
    return _xy(via)


class Frame(msgspec.Struct, dict=True):
    """Where we are: bindings, the procedure call (如初) we are in."""

    bind: dict[str, Any]
    call: dict[str, Any] | None = None
    cite: str | None = None
    jing: str | None = None
    # the passage of the outermost 如初 call: where in the rite we are (for ``section``)
    anchor: str | None = None


_NOBODY = Person("", role="")


class Interpreter:
    """Runs a spec. Use :func:`sheli.engine.run`; this class is its machinery."""

    def __init__(
        self,
        spec: Spec,
        file: str,
        env: Env,
        params: dict[str, Any],
        walks_apart: bool = False,
    ) -> None:
        self.spec = spec
        self.file = file
        self.env = env
        self.params = params
        self.known_readings = {r.id for r in spec.readings}
        self._own = f"{spec.chapter}:"  # citations of the spec's own chapter
        self.world = build_world(spec, params)
        # the records of the run (sheli.engine.records), or a sink that takes them as they come
        self.records: list[Any] | RecordSink = []
        self.seq = 0
        self._section: dict[str, tuple[int | None, str]] = {}
        self._last_section: tuple[int | None, str] = (None, "")
        self._group_people: dict[str, list[Person]] = {}
        self._actors: dict[str, list[Person]] = {}  # an actor who is one of the cast
        self._act_info: dict[int, tuple[Any, ...]] = {}
        # the walks on which their doer carries the dishes he then sets out (carrying.py)
        self._carried = carried_in(spec)
        # each person → the body he was last walked to (_walked)
        self._walked_body: dict[str, Any] = {}
        self._shared = Shared()  # the steps' optional fields, once for each value
        self.warnings: list[str] = []
        self._file: str | None = None  # the part file of the step being run (None: the spec's)
        self._ctx = Ctx(self.world, _NOBODY, None, "", env, {})  # type: ignore[arg-type]
        self._warned: set[tuple[int, str]] = set()
        self.depth = 0
        # rows (北上, 東上 …): (kind, head x, head y) → who stands in it, in order, as
        # (name, index, x, y); a person's slot: name → (row key, index, x, y)
        self.rows: dict[tuple[str, float, float], list[tuple[str, int, float, float]]] = {}
        self._row_slot: dict[str, tuple[Any, int, float, float]] = {}
        self._row_acts: dict[tuple[int, int], tuple[Any, Any]] = {}
        self.world_rules = WorldRules(env, excerpt=spec.excerpt)  # docs/world-rules.md
        # everyone's body as the log gives it (sheli/place/bodies.yaml)
        members = load_bodies().members_of(spec.rite, spec.extends)
        self.bodies = Bodies(load_bodies(), members, self.world, env.venue)
        env.body_of = self.bodies.keep  # places named from a person: from his body
        # the walks between those places (sheli/place/paths.yaml)
        self.paths = Paths(load_paths(), env.venue, load_bodies().footprint)
        # more 衆耦 than the model walks round (paths.yaml crowd): the walks through a body,
        # warned of, one a line, rather than refused (None: refused)
        self._crowd_walks: list[str] | None = (
            None if self.paths.m.walks_round(params.get("pairs", 0)) else []
        )
        self._routes: dict[str | None, list[str]] = {}  # a step's 經 → the routes it names
        # the walks checked in a process of their own, beside the run (sheli.engine.walks);
        # begun with the run
        self._walks_apart = walks_apart
        self._apart: ApartWalks | None = None
        self.stairs: dict[int, str] = {}  # seq of a 升 or 降 → the 階 it went by

    # -- errors
    def error(self, msg: str, line: int, cite: str | None, what: str | None = None) -> SpecError:
        # the part file (include:, extends:) of the step being run, else the spec file
        return SpecError(msg, file=self._file or self.file, line=line, cite=cite, what=what)

    # -- cast
    def place_cast(self) -> None:
        w = self.world
        for entry in self.spec.cast:
            targets: list[Person]
            if entry.role in w.groups or entry.role in w.pairs:
                targets = self.archers(entry.role, {}, entry.line, None)
            else:
                person = w.person(entry.role)
                if person is None:
                    person = Person(entry.role, role=entry.role)
                    w.people[entry.role] = person
                targets = [person]
            for p in targets:
                if entry.name:
                    p.display = entry.name
                if entry.at is not None:
                    try:
                        pt = self.env.resolve(entry.at, w, {})
                    except VerbError as exc:
                        raise self.error(str(exc), entry.line, None, f"cast {entry.role}") from None
                    p.x, p.y, p.place, p.on_tang, p.at_key = pt.x, pt.y, pt.desc, pt.on_tang, pt.key
                    p.wei = (p.x, p.y, p.place, p.on_tang, p.at_key)
                    p.wei_facing = entry.facing or p.wei_facing
                p.facing = entry.facing or p.facing
                for d in entry.dress:
                    if d == "袒":
                        p.bared = True
                    elif d in ("決遂", "決"):
                        p.ring_and_guard = True
                for h in entry.holds:
                    self._hold(p, h)
        names = w.names
        for obj in self.spec.objects:
            key = obj.at if isinstance(obj.at, str) else self.env.words_of(obj.at)
            try:
                n = count_of(obj.count, names)
            except ValueError as exc:
                raise self.error(str(exc), obj.line, None, f"objects {obj.obj}") from None
            w.add_at(obj.obj, key, n)

    @staticmethod
    def _hold(p: Person, h: str) -> None:
        name, _, n = h.partition(":")
        k = int(n) if n.isdigit() else 1
        if name in ("弓", "張弓"):
            p.bow = "張"
        elif name == "弛弓":
            p.bow = "弛"
        elif name in ("矢", "乘矢"):
            p.hand += 4 if name == "乘矢" else k
        elif name == "搢矢":
            p.belt += k
        elif name == "挾矢":
            p.fingers += k
        elif name == "執矢":
            p.side += k
        elif name in ("扑", "執扑"):
            p.discipline_rod = "執"
        elif name == "搢扑":
            p.discipline_rod = "搢"
        else:
            p.items[name] = p.items.get(name, 0) + k

    # -- actors
    def archers(self, name: str, bind: dict[str, Any], line: int, cite: str | None) -> list[Person]:
        w = self.world
        got = self._group_people.get(name)
        if got is not None:
            return got
        groups = w.groups.get(name)
        if groups is not None:
            got = [w.people[n] for g in groups for n in (w.pairs[g].upper, w.pairs[g].lower)]
            self._group_people[name] = got  # the pairs of a run never change
            return got
        if name in w.pairs:
            pr = w.pairs[name]
            return [w.people[pr.upper], w.people[pr.lower]]
        raise self.error(f"{name} is not a pair or a group of pairs", line, cite)

    def actors(self, name: str, bind: dict[str, Any], line: int, cite: str | None) -> list[Person]:
        """The person or people an ``actor:`` names (a role, an archer, a pair, a group)."""
        w = self.world
        if "{" in name:
            name = self.env.fill(name, bind)
        got = self._actors.get(name)
        if got is not None:
            return got
        got = self._group_people.get(name)
        if got is not None:
            return got
        p = w.people.get(name)
        if p is not None:
            # one of the cast (made before the steps, never replaced): kept
            got = self._actors[name] = [p]
            return got
        p = w.people.get(w.aliases.get(name, ""))
        if p is not None:
            return [p]  # an alias (勝者, 酬者 …) names another as the rite goes
        if name in w.groups or name in w.pairs:
            return self.archers(name, bind, line, cite)
        for word in ("不勝者", "勝者"):
            if name.endswith(word):
                pair = name[: -len(word)]
                tally = w.last_tally
                if tally is None or tally.winner == "tie":
                    why = "no count yet" if tally is None else "左右鈞 (xiangshe:204)"
                    raise self.error(f"{name}: there is no {word} ({why})", line, cite)
                win = tally.winner
                seat_side = {"上射": "right", "下射": "left"}
                pairs = [pair] if pair else w.groups["射耦"]
                out = []
                for pn in pairs:
                    if pn not in w.pairs:
                        raise self.error(f"{pn} is not a pair", line, cite)
                    pr = w.pairs[pn]
                    for seat, pname in (("上射", pr.upper), ("下射", pr.lower)):
                        if (seat_side[seat] == win) == (word == "勝者"):
                            out.append(w.people[pname])
                return out
        if "{" in name:
            raise self.error(f"actor {name}: a loop variable is not bound here", line, cite)
        raise self.error(
            f"actor {name} is not in the cast (list every role under cast:) nor an archer",
            line,
            cite,
        )

    # -- sections
    def section_of(self, cite: str) -> tuple[int | None, str]:
        """The 賈疏 section a step belongs to.

        A step citing a 記 line (which 賈 puts in the chapter's last section) stays in the
        section of the rite where it is performed, the section of the step before it.
        """
        got = self._section.get(cite)
        if got is None:
            info = self.env.passage(cite)
            if info is None or info.kind == "記":
                got = (None, "")
            else:
                sec = info.section
                chapter = cite.split(":", 1)[0]
                if sec is None:
                    got = (sec, "")
                elif chapter == self.spec.chapter:
                    got = (sec, self.env.section_topic(sec))
                else:
                    # a variant (extends:) performing its base's passage: the section is the
                    # base chapter's, named by the base chapter's 賈疏
                    got = (sec, section_topic(chapter, sec))
            self._section[cite] = got
        if got[0] is None:
            return self._last_section
        self._last_section = got
        return got

    # -- conditions
    def holds(self, c: Condition, frame: Frame, line: int, cite: str | None) -> bool:
        w = self.world
        if c.reading is not None and c.reading not in self.known_readings:
            raise self.error(f"if: reading {c.reading!r} is not under readings:", line, cite)
        if not _params_match(c, self.params):
            return False
        if c.arrows_short is not None and (w.lost > 0) != c.arrows_short:
            return False
        if c.winner is not None:
            if w.last_tally is None:
                raise self.error("if: winner before any 數獲 (xiangshe:203)", line, cite)
            if w.last_tally.winner != c.winner:
                return False
        if c.no_hits is not None:
            if w.last_tally is None:
                raise self.error("if: no_hits before any 數獲 (xiangshe:203)", line, cite)
            t = w.last_tally
            if (t.right == 0 and t.left == 0) != c.no_hits:
                return False
        if c.loser_is is not None and self.loser_rank(frame, line, cite) != c.loser_is:
            return False
        if c.has_dafu is not None and bool(w.groups["大夫耦"]) != c.has_dafu:
            return False
        if c.last_pair is not None and (len(self.pairs_to_shoot()) == 1) != c.last_pair:
            return False
        if c.next_pair is not None and self.next_pair(frame, line, cite) != c.next_pair:
            return False
        if c.hit is not None or c.counted is not None or c.struck is not None:
            s = w.last_shot
            if s is None:
                raise self.error("if: hit/counted/struck before any arrow is shot", line, cite)
            if c.hit is not None and s.hit != c.hit:
                return False
            if c.counted is not None and s.counted != c.counted:
                return False
            if c.struck is not None and s.struck != c.struck:
                return False
        if c.round is not None and w.round != c.round:
            return False
        if c.bout_tie is not None and w.bout_tie != c.bout_tie:
            return False
        if c.fault is not None:
            pair = frame.bind.get("耦")
            if pair is None:
                raise self.error("if: fault needs a bound pair {耦}", line, cite)
            if (w.round, pair, c.fault) not in w.faults:
                return False
        if c.last is not None and not frame.bind.get(f"__last__{c.last}", False):
            return False
        if c.first is not None and not frame.bind.get(f"__first__{c.first}", False):
            return False
        if c.bound is not None:
            for k, v in c.bound.items():
                if k != LINE_KEY and frame.bind.get(k) != v:
                    return False
        if c.all is not None and not all(self.holds(x, frame, line, cite) for x in c.all):
            return False
        if c.any is not None and not any(self.holds(x, frame, line, cite) for x in c.any):
            return False
        return not (c.not_ is not None and self.holds(c.not_, frame, line, cite))

    def pairs_to_shoot(self) -> list[str]:
        """The pairs of 射耦 that have not yet shot their 乘矢 in this round (condition
        ``last_pair``: one left, the next to shoot is the last, and the 中 is not filled again
        after its eight are taken: 箭籌八十, 注 xiangshe:378 略以十耦爲正)."""
        w = self.world
        return [
            pair
            for pair in w.groups["射耦"]
            if min(w.shots.get((w.round, pair), {}).get(s, 0) for s in ("上射", "下射")) < 4
        ]

    def next_pair(self, frame: Frame, line: int, cite: str | None) -> bool:
        """Whether another pair goes up the 西階 after the bound ``{耦}`` in the part under
        way (condition ``next_pair``), to cross the bound pair coming down (與升射者相左交于階前
        相揖 xiangshe:153, 與升飲者… 213): while the round's shooting lasts, the next pair of
        射耦 yet to shoot, unless the 三耦 are done and the 賓, 主人 or 大夫 are next (they come
        down from the 堂 only then, xiangshe:187); once the round's 數獲 is done (the 罰爵), a
        pair after it in 射耦 whose 不勝者 goes up from below to drink. Nobody crosses the
        last (敖繼公, the 義疏 agreeing: 下耦無與升射者相左相揖之事), nor comes up for the 賓,
        主人, 公 or a 大夫, who drink at their 席 (xiangshe:216 授于席前, 218 大夫飲則耦不升;
        dashe:235 賓諸公卿大夫不勝則不降), while the 耦 of a 大夫 goes up alone (特升飲
        xiangshe:219, dashe:241).
        """
        w = self.world
        pair = frame.bind.get("耦")
        if pair is None or pair not in w.pairs:
            raise self.error("if: next_pair needs a bound pair {耦}", line, cite)
        order = w.groups["射耦"]
        later = order[order.index(pair) + 1 :] if pair in order else []
        t = w.last_tally
        if t is None or t.round != w.round:
            if w.round <= 1:  # the first 番 is the 三耦's alone (xiangshe:128–153)
                later = [p for p in later if p in w.groups["三耦"]]
            left = set(self.pairs_to_shoot())
            nxt = next((p for p in later if p in left), None)
            if nxt is None:
                return False
            # after the 三耦 卒射 the 賓, 主人 and 大夫 come down from the 堂 (xiangshe:187):
            # the 下耦 is at the 堂西 by then: only another of the 三耦 or the 衆耦 (衆賓繼射
            # xiangshe:189) follow one of the 三耦 at once
            return pair not in w.groups["三耦"] or w.pairs[nxt].kind in ("三耦", "衆耦")
        if t.winner == "tie":
            return False  # 鈞: nobody drinks (xiangshe:203)
        seat = "上射" if t.winner == "left" else "下射"
        for p in later:
            pr = w.pairs[p]
            if w.people[pr.upper if seat == "上射" else pr.lower].role not in DRINK_AT_SEAT:
                return True
        return False

    def loser_rank(self, frame: Frame, line: int, cite: str | None) -> str | None:
        """The rank of the bound pair's 不勝者 (xiangshe:216–219).

        One of 賓, 主人, 大夫, 大夫之耦 or 士.
        """
        w = self.world
        pair = frame.bind.get("耦")
        if pair is None or pair not in w.pairs:
            raise self.error("if: loser_is needs a bound pair {耦}", line, cite)
        if w.last_tally is None or w.last_tally.winner == "tie":
            return None
        seat = "上射" if w.last_tally.winner == "left" else "下射"
        pr = w.pairs[pair]
        person = w.people[pr.upper if seat == "上射" else pr.lower]
        return {"賓": "賓", "主人": "主人", "大夫": "大夫", "大夫之耦": "大夫之耦"}.get(
            person.role, "士"
        )

    # -- loops
    def loop_items(self, f: ForEachStep, frame: Frame) -> list[Any]:
        src = f.in_
        if isinstance(src, list):
            return [self.env.fill(x, frame.bind) if isinstance(x, str) else x for x in src]
        src = self.env.fill(src, frame.bind)
        if src in self.world.groups:
            return list(self.world.groups[src])
        raise self.error(
            f"for_each in {src!r}: not a group of pairs ({', '.join(self.world.groups)}) or a list",
            f.line,
            f.cite,
        )

    # -- the run
    def run_steps(self, steps: list[Any], frame: Frame) -> None:
        for step in steps:
            self._file = step.file
            if isinstance(step, ActStep):
                self.run_act_step(step, frame)
            elif isinstance(step, IfStep):
                cite = step.cite or frame.cite
                branch = step.then if self.holds(step.if_, frame, step.line, cite) else step.else_
                if branch:
                    inner = Frame(
                        frame.bind,
                        frame.call,
                        step.cite or frame.cite,
                        step.jing or frame.jing,
                        frame.anchor,
                    )
                    self.run_steps(branch, inner)
            elif isinstance(step, ForEachStep):
                items = self.loop_items(step, frame)
                var, first, last = (
                    step.for_each,
                    f"__first__{step.for_each}",
                    f"__last__{step.for_each}",
                )
                cite, jing = step.cite or frame.cite, step.jing or frame.jing
                for i, item in enumerate(items):
                    bind = dict(frame.bind)
                    bind[var] = item
                    bind[first] = i == 0
                    bind[last] = i == len(items) - 1
                    self.run_steps(step.do, Frame(bind, frame.call, cite, jing, frame.anchor))
            elif isinstance(step, CallStep):
                self.run_call(step, frame)
            elif isinstance(step, RoundStep):
                self.world.round = step.round
                self.world.called = set()

    def run_call(self, step: CallStep, frame: Frame) -> None:
        proc = self.spec.procedures.get(step.call)
        if proc is None:
            raise self.error(f"no procedure named {step.call!r}", step.line, step.cite)
        args = {k: v for k, v in step.with_.items() if k != LINE_KEY}
        missing = [p for p in proc.params if p not in args and p not in frame.bind]
        if missing:
            raise self.error(
                f"call {step.call} without {', '.join(missing)} (with: {{{missing[0]}: …}})",
                step.line,
                step.cite,
            )
        self.depth += 1
        if self.depth > 50:
            raise self.error(f"procedure {step.call} calls itself", step.line, step.cite)
        bind = dict(frame.bind)
        for k, v in args.items():
            bind[k] = self.env.fill(v, frame.bind) if isinstance(v, str) else v
        call, anchor = frame.call, frame.anchor
        if step.cite:
            call = {"cite": step.cite, "jing": step.jing, "procedure": step.call}
            anchor = anchor or step.cite
        self.run_steps(proc.steps, Frame(bind, call, frame.cite, frame.jing, anchor))
        self.depth -= 1

    def run_act_step(self, step: ActStep, frame: Frame) -> None:
        cite = step.cite or frame.cite
        jing = step.jing if step.cite else (step.jing or frame.jing)
        if cite is None:
            raise self.error("a step without cite: (every act enacts a passage)", step.line, None)
        w = self.world
        # looked up once for the step's acts and people, not once each
        append = self.records.append
        new_step, shared = _new_step, self._shared
        rules = self.world_rules
        before, after, noted = rules.before, rules.after, rules.noted
        place, walked = self.bodies.place, self._walked
        file = self._file or self.file
        for act in step.acts():
            info = self._act_info.get(id(act))
            if info is None or info[0] is not act:
                info = self._prepare_act(act, step, cite)
            _, fn, vname, line, base_tail, static_assumes, at, cups, ruled = info
            carried = self._carried.get(id(act))
            # the parts of the step line that are the same for every person of a group
            anchor = frame.anchor or cite
            sec, sec_topic = self.section_of(anchor)
            # a variant performing its base's passage: say whose section it is
            foreign = sec_topic if not anchor.startswith(self._own) else None
            tail = base_tail
            # 視{侯}之中: the call's 侯
            template = act.note if act.note is not None and "{" in act.note else None
            if at is not None or frame.call or template is not None:
                tail = dict(base_tail)
                if template is not None:
                    tail["note"] = self.env.fill(template, frame.bind)
                if at is not None:
                    # where the object goes (設豐 于西楹之西), beside where the actor stands
                    tail["at"] = self.env.words_of(self.env.fill_ref(at, frame.bind))
                if frame.call:
                    tail["as"] = frame.call
            # one context for the whole run, pointed at this act (cheaper than a new one)
            ctx = self._ctx
            ctx.act, ctx.cite, ctx.bind, ctx.line = act, cite, frame.bind, line
            rnd = w.round
            # the optional fields of a line whose verb added none and whose actor has no name
            # of his own: the same for every person of the act, made (and shared) once
            plain = tail
            if self._file or foreign is not None:
                plain = {}
                if self._file:
                    plain["file"] = self._file
                if foreign is not None:
                    plain["section_of"] = anchor.split(":", 1)[0]
                    plain["topic"] = foreign
                if tail:
                    plain.update(tail)
            plain_fields = shared(plain)
            for p in self.actors(act.actor, frame.bind, line, cite):
                # one context per act, reset for each person of a group
                ctx.p, ctx.via = p, None
                extra = ctx.extra = {}
                joined = None
                try:
                    if act.row is not None:
                        ctx.act, joined = self._row_act(act, p, frame.bind)
                    # what he holds before, for the rules of cups (only an act with a cup)
                    pre = before(p) if cups else None
                    if w.withdrawn:
                        self._lay_by(p, act)
                    if carried is not None or w.just_set:
                        self._carry(p, act, carried)
                    fn(ctx)
                    if ruled:
                        after(ctx, p, pre, file)
                    else:
                        noted(p.name, file, line, cite, vname)
                except VerbError as exc:
                    raise self.error(str(exc), line, cite, f"{vname} by {p.name}") from None
                except OutcomesError:
                    raise  # a fault of the outcomes file, reported with its own line
                except (ValueError, KeyError) as exc:
                    # a lower layer refused what this step asked of it: say which step
                    raise self.error(
                        f"{type(exc).__name__}: {exc}", line, cite, f"{vname} by {p.name}"
                    ) from exc
                if joined is not None:
                    self._row_joined(p, joined)
                    ctx.act = act
                at_pt = None
                if at is not None and p.x is not None:
                    at_pt = self._check_reach(p, at, frame, line, cite, vname)
                elif at is not None:
                    at_pt = self._locate(at, frame)
                if extra and "_warn" in extra:
                    self._warn(line, cite, vname, p, extra.pop("_warn"))
                announces = extra.pop("_announces", None) if extra else None
                self.seq = seq = self.seq + 1
                says = None
                # the optional fields; the act's own, shared by its lines, when it has no more
                more = plain
                if extra or p.display:
                    more = dict(plain)  # (the same fields, in the same order)
                    if extra:
                        says = extra.pop("says", None)
                        assumes = extra.pop("assumes", None)
                        if assumes:
                            more["assumes"] = list(dict.fromkeys([*static_assumes, *assumes]))
                        more.update(extra)
                    if p.display:
                        more["name"] = p.display
                # his body, and a group's members (docs/event-log.md)
                body = place(p, cite, vname, act.row, "obj" in more)
                if body.why:
                    raise self.error(body.why, line, cite, f"{vname} by {p.name}")
                if body.members is not None:
                    more = {**more, "members": body.members}
                # the Step's typed optional fields: the act's own, made once, when it has no more
                optional = plain_fields if more is plain else shared(more)
                via = ctx.via
                walked(p, act, body, via, jing, line, cite, vname)
                append(
                    new_step(
                        (
                            seq,
                            rnd,
                            sec,
                            cite,
                            jing,
                            p.name,
                            vname,
                            body.x,
                            body.y,
                            p.facing,
                            p.holding(),
                            says,
                            p.place,
                            p.dress(),
                            line,
                            w.snapshot if not w.changed else w.objects(),
                            None if at_pt is None else _xy(at_pt),
                            _via_xy(via),
                            announces,
                            *optional,
                        )
                    )
                )
                if ctx.sub or ctx.shots or ctx.tallies:
                    self.emit_more(ctx, p, act, line, frame, seq)
                    ctx.sub, ctx.shots, ctx.tallies = [], [], []

    def _carry(self, p: Person, act: Any, carried: tuple[str, ...] | None) -> None:
        """Things carried are held (carrying.py): on a walk that ends in setting dishes out he
        holds them; following (從) right after setting dishes down, he takes them up again."""
        w = self.world
        just_set = w.just_set.pop(p.name, None)
        if act.verb == "從" and just_set:
            for dish, key in just_set:
                if not p.items.get(dish):
                    p.items[dish] = 1
                    if w.places.get((dish, key), 0) > 0:
                        w.add_at(dish, key, -1)
        elif act.verb == "設" and act.obj in DISHES and just_set:
            w.just_set[p.name] = just_set  # (a run of 設: 設薦…設俎)
        for dish in carried or ():
            if not p.items.get(dish):
                p.items[dish] = 1

    def _lay_by(self, p: Person, act: Any) -> None:
        """What he withdrew (徹) he carries on the walks that take it away; at his next other
        act it has been laid by where he went (carrying.py: the text is silent)."""
        w = self.world
        things = w.withdrawn.get(p.name)
        if not things or keeps_withdrawn(act.verb) or act.verb == "徹" or act.obj in things:
            return  # (an act on the thing itself puts it down or hands it on: 奠, 授)
        for thing in things:
            if p.items.get(thing):
                p.items[thing] -= 1
                if not p.items[thing]:
                    del p.items[thing]
                p.let_go[thing] = ("徹", "", 0)
        del w.withdrawn[p.name]

    def _walked(
        self,
        p: Person,
        act: Any,
        body: Any,
        via: Pt | list[Pt] | None,
        jing: str | None,
        line: int,
        cite: str,
        verb: str,
    ) -> None:
        """Refuse a walk off the route the step's 經 names, through the 序 or a 楹, over the
        堂's edge other than by a 階, or through another's body where no way round is found
        (sheli.engine.paths); beyond the crowd the model walks round (paths.yaml crowd), a walk
        through a body is a warning, one a line."""
        if act.by is not None:
            self.stairs[self.seq] = act.by
        if body is self._walked_body.get(p.name):
            return  # the body he was last walked to (Bodies.place keeps it while he stands)
        if body.x is None or body.y is None:
            return
        paths = self.paths
        self._walked_body[p.name] = body
        old = paths.at.get(p.name)
        if body.members:
            bodies = [(m["x"], m["y"]) for m in body.members]
            if old == bodies:
                return
        elif old is not None and len(old) == 1 and old[0][0] == body.x and old[0][1] == body.y:
            return  # he stands where he stood (most steps)
        else:
            bodies = [(body.x, body.y)]
        args = None  # his first place: he only stands there
        if old is not None:
            routes = self._routes.get(jing)
            if routes is None:
                routes = self._routes[jing] = route_words(jing, paths.m)
            v = _via_xy(via)
            search = self._crowd_walks is None
            args = (old, verb, v, act.by, routes, p.role or p.name, search)
        where = (self._file or self.file, line, cite, verb, p.name)
        apart = self._apart
        if apart is not None:
            # only where he stands is read here (the next walk's start): the grid of bodies a
            # check looks at is the checking process's, which checks the walk in its turn
            paths.at[p.name] = bodies
            apart.walk(p.name, bodies, args, where)
            return
        warned, fault = check_walk(paths, p.name, bodies, args, where)
        if warned:
            self._crowd_walks += warned  # (only beyond the crowd: a list)
        if fault is not None:
            raise self.error(fault[0], line, cite, f"{verb} by {p.name}")

    def _row_act(self, act: Any, p: Person, bind: Mapping[str, Any]) -> tuple[Any, Any]:
        """The act of one member of a row: its place is his slot in the row.

        The text gives a row's head and direction (三耦…立于其西南東面北上 xiangshe:127; 繼三耦
        之南而立東面北上 xiangshe:179): the head is the act's ``to``/``at``, and each person
        takes the next slot behind those already standing in the row, so a group fills it in
        its order (pairs in order, 上射 before 下射) and a later group continues it (繼). One
        already standing in his slot keeps it. The spacing is the place layer's.
        """
        ref = act.to if act.to is not None else act.at
        if ref is None:
            raise VerbError(f"row {act.row}: give the head of the row as to: or at:")
        head = self.env.resolve(ref, self.world, bind)
        if head.x is None or head.y is None:
            raise VerbError(f"row {act.row}: the head {head.desc} has no place")
        key = (act.row, round(head.x, 3), round(head.y, 3))
        members = self.rows.setdefault(key, [])
        slot = self._row_slot.get(p.name)
        if slot is not None and slot[0] == key and (p.x, p.y) == (slot[2], slot[3]):
            index = slot[1]
        else:
            # those who have left the row's tail no longer count (it is continued behind the
            # last one still standing in it)
            while members and not self._in_row(members[-1], key):
                members.pop()
            index = members[-1][1] + 1 if members else 0
        got = self._row_acts.get((id(act), index))
        if got is None or got[0] is not act:
            field = "to" if act.to is not None else "at"
            row_ref = {"row": act.row, "anchor": ref, "index": index}
            # a row its place does not hold folds into columns beside it, each 北上 as the
            # row (bodies.yaml formations, column_fold): he stands in his column's slot
            cite = self._ctx.cite
            col = self.bodies.column_of(cite, (head.x, head.y), act.row, index)
            step = self.bodies.column_step(cite)
            if col is not None and step is not None and col[0] > 0:
                c = col[0]
                side = "west_of" if step[0] < 0 else "east_of" if step[0] > 0 else None
                if side is not None:
                    by = abs(step[0]) * c
                elif step[1] > 0:
                    side, by = "north_of", step[1] * c
                else:
                    side, by = "south_of", -step[1] * c
                row_ref = {"row": act.row, "anchor": {side: ref, "by": by}, "index": col[1]}
            elif col is not None:
                row_ref = {"row": act.row, "anchor": ref, "index": col[1]}
            got = (act, act.model_copy(update={field: row_ref}))
            self._row_acts[(id(act), index)] = got  # holds the act: its id is not reused
        return got[1], (key, index)

    def _in_row(self, member: tuple[str, int, float, float], key: Any) -> bool:
        name, index, x, y = member
        q = self.world.people[name]
        slot = self._row_slot.get(name)
        return slot is not None and slot[:2] == (key, index) and (q.x, q.y) == (x, y)

    def _row_joined(self, p: Person, joined: tuple[Any, int]) -> None:
        key, index = joined
        if p.x is None or p.y is None:
            return
        entry = (p.name, index, p.x, p.y)
        slot = self._row_slot.get(p.name)
        self._row_slot[p.name] = (key, index, p.x, p.y)
        members = self.rows[key]
        if slot is not None and slot[:2] == (key, index) and entry in members:
            return  # he kept his slot
        members.append(entry)

    def _check_reach(
        self, p: Person, at: Any, frame: Frame, line: int, cite: str, verb: str
    ) -> Pt | None:
        """Warn when someone puts a thing down at a fixture far from where he stands; the
        place (None if it is not on the plan).

        The text has him go there first (適…奠于…); a spec that forgets the going is not
        wrong in its words but is physically impossible. A warning, not an error: reach is
        an assumption (REACH 尺, two 步), not the text's.
        """
        try:
            pt = self.env.resolve(at, self.world, frame.bind)
        except VerbError:
            return None  # not a fixture (中西, 豐上 …): nothing to measure
        if pt.x is None or pt.y is None or p.x is None or p.y is None:
            return None
        d = ((pt.x - p.x) ** 2 + (pt.y - p.y) ** 2) ** 0.5
        if d > REACH:
            self._warn(
                line,
                cite,
                verb,
                p,
                f"puts it at {pt.desc}, {d:.0f} 尺 from where he stands ({p.place})",
            )
        return pt

    def _locate(self, at: Any, frame: Frame) -> Pt | None:
        """Where an act's ``at`` is on the plan, for the outputs (None if not on it)."""
        try:
            return self.env.resolve(at, self.world, frame.bind, note=False)
        except VerbError:
            return None

    def _warn(self, line: int, cite: str, verb: str, p: Person, what: str) -> None:
        """A physical inconsistency worth a look, once per step and person (E-reach)."""
        if (line, p.name) in self._warned:
            return
        self._warned.add((line, p.name))
        where = self._file or self.file
        self.warnings.append(f"{where}:{line} ({cite}, {verb} by {p.name}): {what} [E-reach]")

    def _prepare_act(self, act: Any, step: ActStep, cite: str) -> tuple[Any, ...]:
        """What an act needs on every run of it, worked out once (the spec does not change)."""
        line = act.line or step.line
        verb = VERBS.get(act.verb)
        if verb is None:
            raise self.error(
                f"unknown verb {act.verb!r} (the vocabulary is in docs/rite-spec.md)", line, cite
            )
        tail: dict[str, Any] = {}
        if act.obj:
            tail["obj"] = act.obj
            if act.count is not None:
                tail["count"] = act.count
        elif act.count is not None and verb.kind == "music":
            tail["count"] = act.count  # the music's 節 (奏: docs/event-log.md)
        if act.note:
            tail["note"] = act.note
        # one shared list for every line of the act (event lines are read-only)
        sa, aa = step.assumes, act.assumes
        static_assumes = list(dict.fromkeys([*sa, *aa])) if sa or aa else []
        if static_assumes:
            tail["assumes"] = static_assumes
        at = act.at if verb.kind in ("object", "cup", "other") else None
        cups = self.world_rules.about_cups(act)
        ruled = self.world_rules.looks_at(act)
        info = (act, verb.fn, act.verb, line, tail, static_assumes, at, cups, ruled)
        self._act_info[id(act)] = info  # holds the act: its id is not reused
        return info

    def emit_more(self, ctx: Ctx, p: Person, act: Any, line: int, frame: Frame, seq: int) -> None:
        """The lines that follow a step: the acts of a count (數獲), shot and tally lines."""
        w = self.world
        append = self.records.append
        if ctx.sub:
            holding, objects = p.holding(), w.objects()
            file = {"file": self._file} if self._file else {}
        for sub in ctx.sub:
            self.seq += 1
            ssec, _ = self.section_of(frame.anchor or sub.cite)
            bx, by = self.bodies.keep(p)
            append(
                _new_step(
                    (
                        self.seq,
                        w.round,
                        ssec,
                        sub.cite,
                        sub.jing,
                        p.name,
                        act.verb,
                        bx,
                        by,
                        p.facing,
                        # what the sub-act has in hand besides (the 筭 of a 數獲)
                        holding._replace(counting=sub.in_hand) if sub.in_hand else holding,
                        None,
                        p.place,
                        p.dress(),
                        line,
                        objects,
                        None,
                        None,
                        None,
                        *self._shared(
                            {"note": sub.note, "count": sub.number, "side": act.side, **file}
                        ),
                    )
                )
            )
        for shot in ctx.shots:
            append(shot._replace(seq=seq))
        for tally in ctx.tallies:
            append(tally._replace(seq=self.seq))

    def run(self) -> None:
        # A run allocates many small dicts and frees none of them until it ends: the cyclic
        # collector would only rescan them, so it is paused for the run.
        with collector.paused():
            self._run()

    def _run(self) -> None:
        apart = self._apart = ApartWalks(self.paths) if self._walks_apart else None
        try:
            self.place_cast()
            self.run_steps(self.spec.steps, Frame({}))
        except Exception:
            self._apart = None
            if apart is not None:
                try:
                    apart.finish()
                except SpecError as refused:
                    # a walk refused before the run failed on its own: the run's error
                    raise refused from None
                except RuntimeError:
                    pass  # (the checking process failed: the run's own error stands)
            raise
        except BaseException:
            if apart is not None:
                apart.close()
            raise
        self._apart = None
        if apart is not None:
            warned = apart.finish()
            if self._crowd_walks is not None:
                self._crowd_walks += warned
        if self._crowd_walks:
            n, most = len(self._crowd_walks), self.paths.m.crowd_pairs
            self.warnings.extend(self._crowd_walks)
            self.warnings.append(
                f"{n} walk{'s' * (n != 1)} through a body with {self.params['pairs']} 衆耦: "
                f"the engine walks round those who stand with up to {most} "
                "(docs/place.md, Walks)"
            )
        for f in self.world_rules.finish(self.world.people)[:1]:
            raise SpecError(f.message, file=f.file, line=f.line, cite=f.cite, what=f.who)

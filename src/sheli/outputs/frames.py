"""One frame per step of a run: who stands where, holding what, and where the things are —
the state a diagram of that step draws.

A :class:`FrameBuilder` reads the run (a visitor of its records, docs/architecture.md).
Each step gives the actor's place, facing, dress and holding *after* the act; everyone else
is where his own last step left him. The things are the run's own numbers, from the step's
snapshot of the world: arrows at the 侯 and on the 楅, the 筭 in the 中, in reserve west of it
(注 xiangshe:186 委之合於中西) and on the ground by side (xiangshe:186). What a drawing adds is
read from the step's fields, never from its words:

- the hits at each 侯 and the 侯 each arrow was shot at, from the shot records; the 委矢 on
  the 楅 (xiangshe:159) takes them from the 侯 (from the one its ``from`` names);
- the 數獲 (xiangshe:193–201) goes through each side by 純 (``counted_right``/``counted_left``:
  the ``count`` of each of its acts), never beyond what lies there;
- movable things (旌, 中, 楅, 豐, 觶, 扑, a person's 弓 …): where the last 委/倚/設/奠 put
  them (the step's ``at`` as the run resolved it), until someone takes them again;
- the 旌 raised (獲) at this step.

A person is drawn from his first step on; if that first act is not a movement (say 賓 對 on
his 席), he was already there, and is shown there from the start (``inferred``).

>>> from sheli.engine import run
>>> frames = build_frames(run("xiangshe", seed=1, options={"feast": False}))
>>> f = frames[0]
>>> f.seq, f.actor, f.people["上耦上射"].place
(1, '上耦上射', '堂西')
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from sheli.engine.paths import waypoints
from sheli.engine.records import BaseVisitor, Member, Scene, Shot, Step, Tally
from sheli.engine.state import Holding
from sheli.place.model import Point, Venue

__all__ = [
    "MOVE_VERBS",
    "Frame",
    "Objects",
    "Person",
    "Placed",
    "build_frames",
    "shot_hou",
]

#: Verbs whose act changes where the actor is (used only to decide whether a person's first
#: act shows where he already stood before it).
MOVE_VERBS = frozenset("適 進 升 降 退 出 反位 復位 就 從 入 辟 還 趨 繞 先 後".split())

#: The 中 holds eight 筭 (記 xiangshe:354 鹿中…鑿背容八算).
ZHONG_HOLDS = 8


@dataclass(frozen=True, slots=True)
class Person:
    """One person as a frame shows him.

    ``path`` is the way he walked to get here at his last move (points in 尺, from where he
    was to where he is, through the ``via`` of the step where the log names one, else by
    the foot and top of a 階 where he went between 庭 and 堂, and round the 堂's corner
    where a straight walk in the 庭 would cut across it);
    ``moved_at`` is the seq of that move (0 if he has not moved).
    """

    actor: str
    role: str
    name: str | None
    x: float
    y: float
    facing: str | None
    dress: tuple[str, ...]
    holds: tuple[str, ...]
    place: str | None
    path: tuple[tuple[float, float], ...] = ()
    moved_at: int = 0
    last_seq: int = 0
    inferred: bool = False
    row: str | None = None  # 北上, 東上 … where his step names the row he stands in
    holding: Holding | None = None  # what he holds, as numbers (None: not known)
    #: a role that is several people (衆賓, 工 …): the bodies other than his, each a Person
    #: of its own where the log's ``members`` put it (docs/event-log.md)
    members: tuple[Person, ...] = ()
    member_of: str | None = None  # for one of those bodies: the role he is one of

    @property
    def bared(self) -> bool:
        """袒 (left arm bared)."""
        return "袒" in self.dress

    @property
    def ring_and_guard(self) -> bool:
        """決遂 on (thumb ring and arm guard)."""
        return "決遂" in self.dress

    @property
    def label(self) -> str:
        """Role name, with the person's name from the cast where given: ``司馬（司正）``."""
        if self.name and self.name != self.actor:
            return f"{self.actor}（{self.name}）"
        return self.actor


@dataclass(frozen=True, slots=True)
class Placed:
    """A movable thing set down somewhere: ``name`` (旌, 楅 …), where, and the text's words."""

    name: str
    x: float
    y: float
    at: str
    by: str


@dataclass(frozen=True, slots=True)
class Objects:
    """Where the things are after a step (see the module docstring for how each is derived)."""

    arrows_hou: int = 0  # arrows at the 侯 (shot, not yet fetched)
    hits_hou: int = 0  # of which hit (貫)
    arrows_bi: int = 0  # on the 楅
    bi_counted: bool = False  # the 司馬 has 乘 them (四四數分之)
    bi_bound: bool = False  # a bundle is 束 on the 楅 (the 大夫's arrows)
    suan_zhong: int = 0  # 筭 in the 中
    suan_reserve: int = 0  # the 餘 laid west of the 中
    suan_right: int = 0  # on the ground, 右 (上射's)
    suan_left: int = 0  # on the ground, 左 (下射's)
    counted_right: int = 0  # of those, gone through by the 數獲
    counted_left: int = 0
    jing_raised: bool = False  # the 旌 raised (獲) at this step
    placed: tuple[Placed, ...] = ()
    # of the arrows at the 侯, those whose shot line names the 侯 they were shot at (a venue
    # with several, as the 射宮 of 大射儀): (its name, arrows, hits), in the order first shot
    # at; the rest are at the venue's one 侯 (or its first)
    at_hou: tuple[tuple[str, int, int], ...] = ()

    def arrows_at(self, hou: str) -> tuple[int, int]:
        """(arrows, hits) at the 侯 named ``hou`` by their shot lines (0, 0 if none).

        >>> Objects(arrows_hou=3, hits_hou=1, at_hou=(("參侯", 2, 1),)).arrows_at("參侯")
        (2, 1)
        """
        for name, n, h in self.at_hou:
            if name == hou:
                return n, h
        return 0, 0

    def where(self, name: str) -> Placed | None:
        """The place of a set-down thing, or None."""
        for p in self.placed:
            if p.name == name:
                return p
        return None


class _People(Mapping[str, Person]):
    """Everyone present at one frame, read lazily from the shared timelines.

    Copying a dict of every person per step would cost O(people × steps) memory; instead
    each person's states are kept once, in order, and a frame looks up the last state at or
    before its index (bisect).
    """

    def __init__(self, tl: _Timeline, index: int) -> None:
        self._tl = tl
        self._i = index
        self._cache: dict[str, Person] | None = None

    def _all(self) -> dict[str, Person]:
        if self._cache is None:
            tl = self._tl
            last = tl.last
            if last is not None and last[0] == self._i - 1:
                # the frame after the one asked last: only the step's actor has a new
                # state (a new actor comes last, as in ``order``: his first index is this)
                out = dict(last[1])
                actor = tl.pushed.get(self._i)
                if actor is not None:
                    out[actor] = tl.states[actor][bisect.bisect_left(tl.idx[actor], self._i)]
            else:
                out = {}
                for actor in tl.order:
                    p = tl.at(actor, self._i)
                    if p is not None:
                        out[actor] = p
            tl.last = (self._i, out)
            self._cache = out
        return self._cache

    def everyone(self) -> dict[str, Person]:
        """The whole mapping, as the dict it is kept in (not to be changed)."""
        return self._all()

    def __getitem__(self, key: str) -> Person:
        p = self._tl.at(key, self._i) if self._cache is None else self._cache.get(key)
        if p is None:
            raise KeyError(key)
        return p

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


class _Timeline:
    def __init__(self) -> None:
        self.order: list[str] = []
        self.idx: dict[str, list[int]] = {}
        self.states: dict[str, list[Person]] = {}
        self.pushed: dict[int, str] = {}  # index → the actor with a state there
        self.last: tuple[int, dict[str, Person]] | None = None  # the mapping built last

    def push(self, i: int, p: Person) -> None:
        if p.actor not in self.idx:
            self.order.append(p.actor)
            self.idx[p.actor] = []
            self.states[p.actor] = []
        self.idx[p.actor].append(i)
        self.states[p.actor].append(p)
        self.pushed[i] = p.actor

    def at(self, actor: str, i: int) -> Person | None:
        ix = self.idx.get(actor)
        if not ix:
            return None
        k = bisect.bisect_right(ix, i) - 1
        return self.states[actor][k] if k >= 0 else None


@dataclass(frozen=True)
class Frame:
    """The state after one step line.

    ``step`` is the step line itself; ``shots`` the shot lines of this step; ``tally`` the
    last tally line so far (or None); ``people`` everyone present (a read-only mapping).
    """

    index: int
    step: Step
    objects: Objects
    shots: tuple[Shot, ...]
    tally: Tally | None
    _tl: _Timeline = field(repr=False, compare=False)
    group_from: int = 0  # seq of the first step of this run of steps on the same 經 words

    @property
    def people(self) -> Mapping[str, Person]:
        return _People(self._tl, self.index)

    def people_dict(self) -> dict[str, Person]:
        """Everyone present, as a new dict (in the order of ``people``): made at C speed
        from the frame's own mapping, where ``dict(frame.people)`` looks each one up.

        >>> from sheli.engine import run
        >>> f = build_frames(run("xiangshe", seed=1))[14]
        >>> f.people_dict() == dict(f.people), list(f.people_dict()) == list(f.people)
        (True, True)
        """
        return dict(_People(self._tl, self.index).everyone())

    def to_dict(self) -> dict[str, Any]:
        """The frame as plain data (JSON-ready): the step's fields, everyone present and
        the objects.

        >>> from sheli.engine import run
        >>> d = build_frames(run("xiangshe", seed=1, options={"feast": False}))[14].to_dict()
        >>> d["actor"], d["says"], d["people"]["司射"]["holds"]
        ('司射', '弓矢既具有司請射', ['張弓', '挾矢四'])
        """
        s = self.step
        o = self.objects
        return {
            "seq": s.seq,
            "round": s.round,
            "section": s.section,
            "cite": s.cite,
            "jing": s.jing,
            "actor": s.actor,
            "verb": s.verb,
            "says": s.says,
            "to": s.to,
            "people": {
                a: {
                    "role": p.role,
                    "name": p.name,
                    "label": p.label,
                    "x": p.x,
                    "y": p.y,
                    "facing": p.facing,
                    "dress": list(p.dress),
                    "holds": list(p.holds),
                    "place": p.place,
                    "path": [list(q) for q in p.path],
                    "moved_at": p.moved_at,
                    "inferred": p.inferred,
                }
                for a, p in self.people.items()
            },
            "objects": {
                **{f.name: getattr(o, f.name) for f in fields(Objects) if f.name != "placed"},
                "placed": [
                    {"name": q.name, "x": q.x, "y": q.y, "at": q.at, "by": q.by} for q in o.placed
                ],
            },
            "shots": [shot.to_json() for shot in self.shots],
            "tally": None if self.tally is None else self.tally.to_json(),
        }

    seq = property(lambda self: self.step.seq)
    round = property(lambda self: self.step.round)
    section = property(lambda self: self.step.section)
    cite = property(lambda self: self.step.cite)
    jing = property(lambda self: self.step.jing)
    actor = property(lambda self: self.step.actor)
    verb = property(lambda self: self.step.verb)
    says = property(lambda self: self.step.says)
    to = property(lambda self: self.step.to)


def _pt(p: Point) -> tuple[float, float]:
    return (round(p.x, 3), round(p.y, 3))


class _Folder:
    def __init__(self, scene: Scene, plan: Venue | None) -> None:
        self.scene = scene
        self.venue = plan
        self.cast = {c["actor"]: c for c in scene.cast}
        self.stairs = plan.stairs if plan is not None else {}
        self.fixtures = {f["name"] for f in scene.fixtures}

    def point(self, words: str | None, xy: tuple[float, float] | None) -> Any:
        """A place the run resolved (``xy``, for the step's ``words``): a fixture of the
        scene as the scene gives it, any other place to the thousandth of a 尺."""
        if xy is None or words in self.fixtures:
            return xy
        return (round(xy[0], 3), round(xy[1], 3))

    def by_stair(
        self, a: tuple[float, float], b: tuple[float, float], s: Step
    ) -> list[tuple[float, float]]:
        """The points of the 階 a move goes by, when it goes between the 堂 and the 庭 and
        the straight way would cross the 堂's edge (one reaches the 堂 only by a 階): the
        foot and the top of the 階 the step's 經 words name, else of the one whose top is
        nearest his end on the 堂 and whose foot nearest his end in the 庭."""
        v = self.venue
        stairs = self.stairs
        if v is None or not stairs:
            return []
        pa, pb = Point(*a), Point(*b)
        up, down = v.on_tang(pb), v.on_tang(pa)
        if up == down or not v.crosses(pa, pb):
            return []
        words = s.jing or ""
        named = [n for n in stairs if n in words]
        on, off = (pb, pa) if up else (pa, pb)

        def cost(n: str) -> float:  # the 階 whose top is near his 堂 end, foot his 庭 end
            f = stairs[n]
            return f.top.dist(on) + f.foot.dist(off) if f.top and f.foot else math.inf

        name = named[0] if len(named) == 1 else min(stairs, key=cost)
        st = stairs[name]
        if st.foot is None or st.top is None:
            return []
        foot, top = _pt(st.foot), _pt(st.top)
        # round the 堂's south corner where the way between his 庭 end and the foot would
        # cut across it (from 堂西 to the 西階)
        e = v.platform
        corner: list[tuple[float, float]] = []
        if v.crosses(off, Point(*foot)):
            cx = e.x0 - 1 if off.x < e.x0 else e.x1 + 1
            corner = [(cx, e.y0 - 1)]
        way = [*corner, foot, top] if up else [top, foot, *corner]
        # leave out a point he starts or ends on (降 to the foot, 升 to the top)
        return [q for q in way if q not in (a, b)]

    def round_corners(self, pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """A walk in the 庭 that would cut across the 堂 (from 堂西 to the foot of the 西階)
        goes round the 堂's south corner on its side, 1 尺 out."""
        v = self.venue
        if v is None:
            return pts
        e = v.platform
        out = [pts[0]]
        for a, b in itertools.pairwise(pts):
            pa, pb = Point(*a), Point(*b)
            if not v.on_tang(pa) and not v.on_tang(pb) and v.crosses(pa, pb):
                west = min(a[0], b[0]) < e.x0
                out.append((e.x0 - 1 if west else e.x1 + 1, e.y0 - 1))
            out.append(b)
        return out


_SINGLE = frozenset("旌 中 楅 豐 觶 扑 爵".split())


def _key(obj: str, actor: str) -> str:
    """The key of a movable thing: the single things by name, a bow by its owner."""
    if obj in _SINGLE:
        return obj
    return f"{obj}:{actor}"


def build_frames(run: Any) -> list[Frame]:
    """One :class:`Frame` per step of a run (:class:`sheli.engine.Run`), in order (linear
    time): the run read by a :class:`FrameBuilder`.

    >>> from sheli.engine import run
    >>> fr = build_frames(run("xiangshe", seed=1, options={"feast": False}))
    >>> first_bi = next(f for f in fr if f.verb == "委" and f.step.obj == "矢")
    >>> first_bi.objects.arrows_bi    # 誘射's 4 and the 三耦's 24 (xiangshe:159)
    28
    """
    if not hasattr(run, "accept"):
        raise TypeError("build_frames reads a run (sheli.engine.run), not its event lines")
    frames: list[Frame] = run.accept(FrameBuilder(run.plan))
    return frames


class FrameBuilder(BaseVisitor[list[Frame]]):
    """A reader of a run that makes its frames (see :func:`build_frames`).

    ``plan`` is the venue the run resolved its places on (the way a person walks round the
    堂 and by the 階). Everything else comes from the records: a frame's ``step`` is its
    Step, the holdings and objects are numbers, the places ``at`` and ``via`` as the run
    resolved them.
    """

    def __init__(self, plan: Venue | None) -> None:
        self.plan = plan
        self.steps: list[Step] = []
        self.shots: dict[int, list[Shot]] = {}
        self.tallies: dict[int, Tally] = {}
        self.folder: _Folder | None = None
        self.frames: list[Frame] = []

    def begin_run(self, scene: Scene) -> None:
        self.folder = _Folder(scene, self.plan)

    def visit_step(self, step: Step) -> None:
        self.steps.append(step)

    def visit_shot(self, shot: Shot) -> None:
        self.shots.setdefault(shot.seq, []).append(shot)

    def visit_tally(self, tally: Tally) -> None:
        self.tallies[tally.seq] = tally

    def result(self) -> list[Frame]:
        return self.frames

    def end_run(self) -> None:
        folder = self.folder
        assert folder is not None, "begin_run first"
        tl = _Timeline()
        steps = self.steps
        # Who was already standing somewhere before his first act: where that act is not a
        # move.
        first: dict[str, Step] = {}

        def push_inferred(p: Person) -> None:
            s = first[p.actor]
            if s.members:
                p = replace(p, members=_members(p, s.members, None))
            tl.push(-1, p)

        for s in steps:
            if s.actor and s.actor not in first and s.x is not None:
                first[s.actor] = s
        for actor, s in first.items():
            if s.verb not in MOVE_VERBS and s.x is not None and s.y is not None:
                c = folder.cast.get(actor, {})
                push_inferred(
                    Person(
                        actor=actor,
                        role=c.get("role", actor),
                        name=c.get("name") or s.name,
                        x=float(s.x),
                        y=float(s.y),
                        facing=s.facing,
                        dress=tuple(s.dress or ()),
                        holds=(),
                        place=s.place,
                        inferred=True,
                    ),
                )

        frames = self.frames
        obj = Objects()
        tally: Tally | None = None
        group_from, group_key = 0, None
        for i, s in enumerate(steps):
            r = s
            actor = s.actor
            if (s.cite, s.jing) != group_key:
                group_key, group_from = (s.cite, s.jing), s.seq
            prev = tl.at(actor, i - 1) if actor else None
            if actor and s.x is not None and s.y is not None:
                c = folder.cast.get(actor, {})
                x, y = float(s.x), float(s.y)
                path: tuple[tuple[float, float], ...] = prev.path if prev else ()
                moved_at = prev.moved_at if prev else 0
                if prev is not None and (abs(prev.x - x) > 1e-6 or abs(prev.y - y) > 1e-6):
                    pts = [(prev.x, prev.y)]
                    way = waypoints(r.via_point)
                    if len(way) > 1:
                        pts.extend(folder.point(None, w) for w in way)  # a route in words
                    elif way:
                        pts.append(folder.point(s.via, way[0]))
                    else:
                        pts.extend(folder.by_stair((prev.x, prev.y), (x, y), s))
                    pts.append((x, y))
                    path, moved_at = tuple(folder.round_corners(pts)), s.seq
                p = Person(
                    actor=actor,
                    role=c.get("role", actor),
                    name=c.get("name") or s.name,
                    x=x,
                    y=y,
                    facing=s.facing,
                    dress=tuple(s.dress or ()),
                    holds=tuple(s.holds),
                    place=s.place,
                    path=path,
                    moved_at=moved_at,
                    last_seq=s.seq,
                    row=_row(s),
                    holding=r.holding,
                )
                if s.members:
                    p = replace(p, members=_members(p, s.members, prev))
                tl.push(i, p)
            shots = self.shots.get(s.seq, ())
            obj = _objects(obj, s, shots, folder)
            if s.seq in self.tallies:
                tally = self.tallies[s.seq]
            frames.append(
                Frame(
                    index=i,
                    step=s,
                    objects=obj,
                    shots=tuple(shots),
                    tally=tally,
                    _tl=tl,
                    group_from=group_from,
                )
            )


def _members(p: Person, members: tuple[Member, ...], prev: Person | None) -> tuple[Person, ...]:
    """The bodies of a role that is several people other than its leading one (``p``), each
    where the step's ``members`` put it; the same objects as before when none moved."""
    if prev is not None and len(prev.members) == len(members) - 1:
        same = all(
            q.x == m.x and q.y == m.y and q.facing == m.facing
            for q, m in zip(prev.members, members[1:], strict=True)
        )
        if same and prev.dress == p.dress and prev.holds == p.holds:
            return prev.members
    return tuple(
        Person(
            actor=m.name,
            role=p.role,
            name=None,
            x=float(m.x),
            y=float(m.y),
            facing=m.facing,
            dress=p.dress,
            holds=p.holds,
            place=p.place,
            last_seq=p.last_seq,
            row=p.row,
            holding=p.holding,
            member_of=p.actor,
        )
        for m in members[1:]
    )


def shot_hou(shot: Shot) -> str | None:
    """The 侯 a shot says the arrow was shot at (the log's ``hou``), if any.

    >>> shot_hou(Shot(2, "上耦", "上射", "上耦上射", 1, True, True, "", target="參侯"))
    '參侯'
    """
    return shot.target or None


def _row(s: Step) -> str | None:
    """The row (北上, 東上 …) the step's note or 經 words name, if any."""
    for text in (s.note or "", s.jing or ""):
        for r in ("北上", "南上", "東上", "西上"):
            if r in text:
                return r
    return None


def _objects(o: Objects, s: Step, shots: Any, folder: _Folder) -> Objects:
    """The objects after step ``s`` (a new Objects only when something changed).

    The numbers of arrows and 筭 are the run's own (``s.objects``); what a drawing adds to
    them — hits at each 侯, the 旌 raised at this step, the 數獲's progress, where movable
    things were set down — is read from the step's fields.
    """
    verb, thing = s.verb, s.obj
    world = s.objects
    arrows_bi, arrows_hou = world.arrows_on_rest, world.arrows_at_target
    if world.bound_on_rest:
        arrows_bi += sum([n for _, n in world.bound_on_rest])
    if world.dafu_at_target:
        arrows_hou += sum([n for _, n in world.dafu_at_target])
    if (
        not shots
        and not o.jing_raised
        and verb not in _OBJECT_VERBS
        and (not thing or verb not in _PLACING_VERBS)
        and o.arrows_bi == arrows_bi
        and o.arrows_hou == arrows_hou
        and o.suan_zhong == world.rods_in_vessel
        and o.suan_reserve == world.rods_reserve
        and o.suan_right == world.rods_right
        and o.suan_left == world.rods_left
        and o.counted_right <= world.rods_right
        and o.counted_left <= world.rods_left
    ):
        # most steps change no object: the same Objects, as the whole reading below finds
        # it (no shot, no verb that moves a thing, the run's numbers as they were)
        return o
    actor = s.actor or ""
    place = s.place or ""
    ch: dict[str, Any] = {}
    if o.jing_raised:
        ch["jing_raised"] = False
    for shot in shots:  # every loosed arrow goes to the 侯 (in it if it hit)
        if shot.hit:
            ch["hits_hou"] = ch.get("hits_hou", o.hits_hou) + 1
        hou = shot_hou(shot)
        if hou:  # the shot line names the 侯 it was shot at
            at = list(ch.get("at_hou", o.at_hou))
            k = next((i for i, e in enumerate(at) if e[0] == hou), None)
            n, h = (at[k][1], at[k][2]) if k is not None else (0, 0)
            entry = (hou, n + 1, h + bool(shot.hit))
            if k is None:
                at.append(entry)
            else:
                at[k] = entry
            ch["at_hou"] = tuple(at)
    if verb == "獲":
        ch["jing_raised"] = True
    if thing == "矢" and verb == "委" and s.at == "楅":
        # xiangshe:159 弟子…取矢…委于楅: the arrows come from the 侯 to the 楅
        ch.update(hits_hou=0, at_hou=())
        ch["bi_counted"] = False
    elif verb == "乘" and o.arrows_bi:
        ch["bi_counted"] = True
    elif verb == "束" and thing == "矢":
        ch["bi_bound"] = True
    if arrows_bi != o.arrows_bi:
        ch["arrows_bi"] = arrows_bi
        if arrows_bi == 0:
            ch.update(bi_counted=False, bi_bound=False)
    if arrows_hou != o.arrows_hou:
        ch["arrows_hou"] = arrows_hou
    ch.update(_tally_rods(o, s, world))
    # movable things set down and taken up
    if thing and verb in ("委", "倚", "設", "奠") and thing not in ("矢", "筭"):
        pos = folder.point(s.at, s.at_point)
        if pos is None and s.x is not None and s.y is not None:
            pos = (float(s.x), float(s.y))
        if pos is not None:
            name = _key(thing, actor)
            rest = tuple(p for p in o.placed if p.name != name)
            ch["placed"] = (*rest, Placed(name, pos[0], pos[1], s.at or place, actor))
    elif thing and verb in ("取", "執", "奉", "受", "徹", "去", "說", "説"):
        name = _key(thing, actor)
        keys = {name} if thing in _SINGLE else {name, f"{thing}:{actor}"}
        if thing == "弓矢":
            keys |= {f"弓:{actor}", f"弓矢:{actor}"}
        if any(p.name in keys for p in o.placed):
            ch["placed"] = tuple(p for p in o.placed if p.name not in keys)
    ch = {k: v for k, v in ch.items() if getattr(o, k) != v}
    return replace(o, **ch) if ch else o


#: The verbs that change an object other than by the run's numbers (``_objects``).
_OBJECT_VERBS = frozenset({"獲", "委", "乘", "束", "數獲"})
#: The verbs that set a thing down or take it up (``_objects``).
_PLACING_VERBS = frozenset({"委", "倚", "設", "奠", "取", "執", "奉", "受", "徹", "去", "說", "説"})


def _tally_rods(o: Objects, s: Step, world: Any) -> dict[str, Any]:
    """The 筭: where the run has them (in the 中, in reserve, on the ground by side), and how
    far the 數獲 has gone through each side (by 純, xiangshe:193–201)."""
    ch: dict[str, Any] = {
        "suan_zhong": world.rods_in_vessel,
        "suan_reserve": world.rods_reserve,
        "suan_right": world.rods_right,
        "suan_left": world.rods_left,
    }
    right, left = o.counted_right, o.counted_left
    cnt = s.number if isinstance(s.number, int) else None
    if s.verb == "數獲" and s.side and cnt:
        # the count takes them up by 純 and lays them down again (縮, 横)
        if s.side == "右":
            right += cnt
        else:
            left += cnt
    # never more counted than lie on that side (兼歛算 xiangshe:204 clears the ground)
    ch["counted_right"] = min(right, world.rods_right)
    ch["counted_left"] = min(left, world.rods_left)
    return ch

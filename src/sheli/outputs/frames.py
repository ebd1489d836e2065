"""Fold the event log into one frame per step: who stands where, holding what, and where the
things are — the state a diagram of that step draws.

The engine's event log (docs/event-log.md) gives, for every act, the actor's place, facing,
dress and holds *after* the act. Everyone else is where his own last step left him. Objects
are not listed in the log; they are derived here from the acts on them:

- arrows: each ``shot`` line puts one arrow at the 侯 (``hits`` of them in it); the 弟子's
  委矢 on the 楅 (xiangshe:159) brings all arrows from the 侯 to the 楅; an archer's 取矢 at
  the 楅 (楅之西/東/南, xiangshe:173–175) takes ``count`` (1 a time, or 4) off it;
- 筭: 實 puts them in the 中, 取 takes them from the 中 (or from the 餘 laid west of it, when
  the 中 has not enough or the note says 餘); 釋獲 lays one on the ground on its side (右 or
  左, xiangshe:186); 委 lays what is in hand by the 中 (the 餘, 注 xiangshe:186 委之合於中西);
  the 數獲 (xiangshe:193–201) counts them by 純 (``counted_right``/``counted_left``); 取賢獲
  (xiangshe:202) takes the winner's excess, 兼歛算 (xiangshe:204) clears the ground;
- movable things (旌, 中, 楅, 豐, 觶, 扑, a person's 弓 …): where the last 委/倚/設/奠 put
  them (the step's ``at``, resolved on the plan), until someone takes them again;
- the 旌 raised (獲) or lowered (偃) by the 獲者.

A person is drawn from his first step on; if that first act is not a movement (say 賓 對 on
his 席), he was already there, and is shown there from the start (``inferred``).

>>> from sheli.engine import run
>>> frames = build_frames(run("xiangshe", seed=1, options={"feast": False}).events)
>>> f = frames[0]
>>> f.seq, f.actor, f.people["上耦上射"].place
(1, '上耦上射', '堂西')
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from sheli.place import load_venue
from sheli.place.model import PlaceError, Point, Venue

__all__ = [
    "MOVE_VERBS",
    "Frame",
    "Objects",
    "Person",
    "Placed",
    "build_frames",
    "count_of",
    "parse_place",
    "shot_hou",
]

#: Verbs whose act changes where the actor is (used only to decide whether a person's first
#: act shows where he already stood before it).
MOVE_VERBS = frozenset("適 進 升 降 退 出 反位 復位 就 從 入 辟 還 趨 繞 先 後".split())

#: The 中 holds eight 筭 (記 xiangshe:354 鹿中…鑿背容八算).
ZHONG_HOLDS = 8

_NUM = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_DIR_ZH = {
    "東南": "southeast",
    "西南": "southwest",
    "東北": "northeast",
    "西北": "northwest",
    "東": "east",
    "西": "west",
    "南": "south",
    "北": "north",
}


def count_of(hold: str, name: str) -> int | None:
    """How many of ``name`` a hold string says (``筭八`` → 8, ``筭16`` → 16, ``筭`` → None).

    >>> count_of("筭八", "筭"), count_of("筭16", "筭"), count_of("挾矢一", "矢")
    (8, 16, 1)
    >>> count_of("筭", "筭") is None
    True
    """
    i = hold.find(name)
    if i < 0:
        return None
    rest = hold[i + len(name) :]
    if not rest:
        return None
    if rest.isdigit():
        return int(rest)
    if rest == "十":
        return 10
    m = re.fullmatch(r"([一二三四五六七八九]?)十([一二三四五六七八九]?)", rest)
    if m:
        return (_NUM.get(m.group(1), 1)) * 10 + _NUM.get(m.group(2), 0)
    return _NUM.get(rest)


def _held(holds: tuple[str, ...] | list[str], name: str) -> int:
    """Total of ``name`` in a list of holds (a bare ``筭`` counts as unknown, 0)."""
    return sum(count_of(h, name) or 0 for h in holds if name in h)


def parse_place(words: str) -> Any:
    """Turn the text's place words into a relation for ``Venue.resolve``.

    ``X之Y`` (Y a direction) nests from the right: ``中之西南之南`` is the south of the
    south-west of the 中.

    >>> parse_place("中之西南之南")
    {'south_of': {'southwest_of': '中'}}
    >>> parse_place("楅")
    '楅'
    """
    parts = words.split("之")
    ref: Any = parts[0]
    for p in parts[1:]:
        if p in _DIR_ZH:
            ref = {f"{_DIR_ZH[p]}_of": ref}
        else:  # not a direction: keep the words whole (resolve may know them as a name)
            return words
    return ref


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

    @property
    def bared(self) -> bool:
        """袒 (left arm bared)."""
        return "袒" in self.dress

    @property
    def thimble(self) -> bool:
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
    step: dict[str, Any]
    objects: Objects
    shots: tuple[dict[str, Any], ...]
    tally: dict[str, Any] | None
    _tl: _Timeline = field(repr=False, compare=False)
    group_from: int = 0  # seq of the first step of this run of steps on the same 經 words

    @property
    def people(self) -> Mapping[str, Person]:
        return _People(self._tl, self.index)

    def to_dict(self) -> dict[str, Any]:
        """The frame as plain data (JSON-ready): the step's fields, everyone present and
        the objects.

        >>> from sheli.engine import run
        >>> d = build_frames(run("xiangshe", seed=1, options={"feast": False}).events)[14].to_dict()
        >>> d["actor"], d["says"], d["people"]["司射"]["holds"]
        ('司射', '弓矢既具有司請射', ['張弓', '挾矢四'])
        """
        s = self.step
        o = self.objects
        return {
            "seq": s["seq"],
            **{k: s.get(k) for k in ("round", "section", "cite", "jing", "actor", "verb")},
            **{k: s.get(k) for k in ("says", "to")},
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
            "shots": list(self.shots),
            "tally": self.tally,
        }

    seq = property(lambda self: self.step["seq"])
    round = property(lambda self: self.step.get("round", 0))
    section = property(lambda self: self.step.get("section"))
    cite = property(lambda self: self.step.get("cite"))
    jing = property(lambda self: self.step.get("jing"))
    actor = property(lambda self: self.step.get("actor"))
    verb = property(lambda self: self.step.get("verb"))
    says = property(lambda self: self.step.get("says"))
    to = property(lambda self: self.step.get("to"))


def _pt(p: Point) -> tuple[float, float]:
    return (round(p.x, 3), round(p.y, 3))


class _Folder:
    def __init__(self, scene: dict[str, Any]) -> None:
        self.scene = scene
        self.venue: Venue | None = None
        try:
            self.venue = load_venue(scene.get("venue") or "xie")
        except Exception:  # an unknown venue still gives frames, without resolved places
            self.venue = None
        self.cast = {c["actor"]: c for c in scene.get("cast", [])}
        self.fixtures = {f["name"]: (f["x"], f["y"]) for f in scene.get("fixtures", [])}
        self.where: dict[str, tuple[float, float]] = {}
        self.stairs = self.venue.stairs if self.venue is not None else {}
        self._resolved: dict[str, tuple[float, float] | None] = {}

    def by_stair(
        self, a: tuple[float, float], b: tuple[float, float], s: dict[str, Any]
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
        words = s.get("jing") or ""
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

    def resolve(self, words: str | None) -> tuple[float, float] | None:
        """A place in the text's words, on the plan; None if it cannot be resolved."""
        if not words:
            return None
        if words in self.fixtures:
            return self.fixtures[words]
        if words in self._resolved:
            return self._resolved[words]
        # words naming a person depend on where he is now: not cached
        personal = any(a in words for a in self.where)
        people = {k: Point(*v) for k, v in self.where.items() if k in words} if personal else {}
        out = None
        if self.venue is not None:
            try:
                out = _pt(self.venue.resolve(parse_place(words), people))
            except (PlaceError, KeyError, TypeError, ValueError):
                out = None
        if not personal:
            self._resolved[words] = out
        return out


_SINGLE = frozenset("旌 中 楅 豐 觶 扑 爵".split())


def _key(obj: str, actor: str, step: dict[str, Any]) -> str:
    """The key of a movable thing: the single things by name, a bow by its owner."""
    if obj in _SINGLE:
        return obj
    return f"{obj}:{actor}"


def build_frames(events: list[dict[str, Any]]) -> list[Frame]:
    """One :class:`Frame` per step line of an event log, in order (linear time).

    >>> from sheli.engine import run
    >>> fr = build_frames(run("xiangshe", seed=1, options={"feast": False}).events)
    >>> first_bi = next(f for f in fr if f.verb == "委" and f.step.get("obj") == "矢")
    >>> first_bi.objects.arrows_bi    # 誘射's 4 and the 三耦's 24 (xiangshe:159)
    28
    """
    if not events or events[0].get("type") != "scene":
        raise ValueError("an event log begins with its scene line")
    folder = _Folder(events[0])
    tl = _Timeline()
    steps = [e for e in events if e.get("type") == "step"]

    # Who was already standing somewhere before his first act: where that act is not a move.
    first: dict[str, dict[str, Any]] = {}
    for s in steps:
        if s.get("actor") and s["actor"] not in first and s.get("x") is not None:
            first[s["actor"]] = s
    for actor, s in first.items():
        if s.get("verb") not in MOVE_VERBS:
            c = folder.cast.get(actor, {})
            tl.push(
                -1,
                Person(
                    actor=actor,
                    role=c.get("role", actor),
                    name=c.get("name") or s.get("name"),
                    x=float(s["x"]),
                    y=float(s["y"]),
                    facing=s.get("facing"),
                    dress=tuple(s.get("dress") or ()),
                    holds=(),
                    place=s.get("place"),
                    inferred=True,
                ),
            )
            folder.where[actor] = (float(s["x"]), float(s["y"]))

    frames: list[Frame] = []
    obj = Objects()
    tally: dict[str, Any] | None = None
    shots_by_seq: dict[int, list[dict[str, Any]]] = {}
    tally_by_seq: dict[int, dict[str, Any]] = {}
    for e in events:
        if e.get("type") == "shot":
            shots_by_seq.setdefault(e["seq"], []).append(e)
        elif e.get("type") == "tally":
            tally_by_seq[e["seq"]] = e

    group_from, group_key = 0, None
    for i, s in enumerate(steps):
        actor = s.get("actor")
        if (s.get("cite"), s.get("jing")) != group_key:
            group_key, group_from = (s.get("cite"), s.get("jing")), s["seq"]
        prev = tl.at(actor, i - 1) if actor else None
        if actor and s.get("x") is not None:
            c = folder.cast.get(actor, {})
            x, y = float(s["x"]), float(s["y"])
            path: tuple[tuple[float, float], ...] = prev.path if prev else ()
            moved_at = prev.moved_at if prev else 0
            if prev is not None and (abs(prev.x - x) > 1e-6 or abs(prev.y - y) > 1e-6):
                pts = [(prev.x, prev.y)]
                via = folder.resolve(s.get("via")) if s.get("via") else None
                if via is not None:
                    pts.append(via)
                else:
                    pts.extend(folder.by_stair((prev.x, prev.y), (x, y), s))
                pts.append((x, y))
                path, moved_at = tuple(folder.round_corners(pts)), s["seq"]
            p = Person(
                actor=actor,
                role=c.get("role", actor),
                name=c.get("name") or s.get("name"),
                x=x,
                y=y,
                facing=s.get("facing"),
                dress=tuple(s.get("dress") or ()),
                holds=tuple(s.get("holds") or ()),
                place=s.get("place"),
                path=path,
                moved_at=moved_at,
                last_seq=s["seq"],
                row=_row(s),
            )
            tl.push(i, p)
            folder.where[actor] = (x, y)
        obj = _objects(obj, s, prev, folder, shots_by_seq.get(s["seq"], ()))
        if s["seq"] in tally_by_seq:
            tally = tally_by_seq[s["seq"]]
        frames.append(
            Frame(
                index=i,
                step=s,
                objects=obj,
                shots=tuple(shots_by_seq.get(s["seq"], ())),
                tally=tally,
                _tl=tl,
                group_from=group_from,
            )
        )
    return frames


def shot_hou(shot: dict[str, Any]) -> str | None:
    """The 侯 a shot line says the arrow was shot at (its ``hou``, or ``target``), if any.

    >>> shot_hou({"hou": "參侯"}), shot_hou({"hit": True})
    ('參侯', None)
    """
    name = shot.get("hou") or shot.get("target")
    return str(name) if name else None


def _row(s: dict[str, Any]) -> str | None:
    """The row (北上, 東上 …) the step's note or 經 words name, if any."""
    for text in (s.get("note") or "", s.get("jing") or ""):
        for r in ("北上", "南上", "東上", "西上"):
            if r in text:
                return r
    return None


def _objects(
    o: Objects,
    s: dict[str, Any],
    prev: Person | None,
    folder: _Folder,
    shots: Any,
) -> Objects:
    """The objects after step ``s`` (a new Objects only when something changed)."""
    verb, thing = s.get("verb"), s.get("obj")
    actor = s.get("actor") or ""
    place = s.get("place") or ""
    note = s.get("note") or ""
    holds = tuple(s.get("holds") or ())
    before = prev.holds if prev else ()
    ch: dict[str, Any] = {}
    if o.jing_raised:
        ch["jing_raised"] = False
    for shot in shots:  # every loosed arrow goes to the 侯 (in it if it hit)
        ch["arrows_hou"] = ch.get("arrows_hou", o.arrows_hou) + 1
        if shot.get("hit"):
            ch["hits_hou"] = ch.get("hits_hou", o.hits_hou) + 1
        hou = shot_hou(shot)
        if hou:  # the shot line names the 侯 it was shot at
            at = list(ch.get("at_hou", o.at_hou))
            k = next((i for i, e in enumerate(at) if e[0] == hou), None)
            n, h = (at[k][1], at[k][2]) if k is not None else (0, 0)
            entry = (hou, n + 1, h + bool(shot.get("hit")))
            if k is None:
                at.append(entry)
            else:
                at[k] = entry
            ch["at_hou"] = tuple(at)
    if verb == "獲":
        ch["jing_raised"] = True
    if thing == "矢" and verb == "委" and s.get("at") == "楅":
        # xiangshe:159 弟子…取矢…委于楅: all that lay at the 侯 come to the 楅; where the
        # step says from which of several 侯 (``from``), those of that 侯 only
        at_hou = ch.get("at_hou", o.at_hou)
        arrows, hits = ch.get("arrows_hou", o.arrows_hou), ch.get("hits_hou", o.hits_hou)
        frm = s.get("from")
        if frm and any(e[0] == frm for e in at_hou):
            n, h = next((e[1], e[2]) for e in at_hou if e[0] == frm)
            rest = tuple(e for e in at_hou if e[0] != frm)
            ch.update(arrows_bi=o.arrows_bi + n, arrows_hou=arrows - n, hits_hou=hits - h)
            ch["at_hou"] = rest
        else:
            ch.update(arrows_bi=o.arrows_bi + arrows, arrows_hou=0, hits_hou=0, at_hou=())
        ch["bi_counted"] = False
    elif verb == "乘" and o.arrows_bi:
        ch["bi_counted"] = True
    elif verb == "束" and thing == "矢":
        ch["bi_bound"] = True
    elif thing in ("矢", "弓矢") and verb == "取" and "楅" in place and o.arrows_bi:
        n = s.get("count") if isinstance(s.get("count"), int) else None
        if n is None:
            n = max(_held(holds, "矢") - _held(before, "矢"), 1)
        ch["arrows_bi"] = max(o.arrows_bi - n, 0)
        if ch["arrows_bi"] == 0:
            ch.update(bi_counted=False, bi_bound=False)
    if thing == "筭" or verb in ("釋獲", "數獲"):
        ch.update(_suan(o, s, before, holds, note))
    # movable things set down and taken up
    if thing and verb in ("委", "倚", "設", "奠") and thing not in ("矢", "筭"):
        pos = folder.resolve(s.get("at")) or (
            (float(s["x"]), float(s["y"])) if s.get("x") is not None else None
        )
        if pos is not None:
            k = _key(thing, actor, s)
            rest = tuple(p for p in o.placed if p.name != k)
            ch["placed"] = (*rest, Placed(k, pos[0], pos[1], s.get("at") or place, actor))
    elif thing and verb in ("取", "執", "奉", "受", "徹", "去", "說", "説"):
        k = _key(thing, actor, s)
        keys = {k} if thing in _SINGLE else {k, f"{thing}:{actor}"}
        if thing == "弓矢":
            keys |= {f"弓:{actor}", f"弓矢:{actor}"}
        if any(p.name in keys for p in o.placed):
            ch["placed"] = tuple(p for p in o.placed if p.name not in keys)
    return replace(o, **ch) if ch else o


def _suan(
    o: Objects, s: dict[str, Any], before: tuple[str, ...], holds: tuple[str, ...], note: str
) -> dict[str, Any]:
    verb = s.get("verb")
    cnt = s.get("count") if isinstance(s.get("count"), int) else None
    delta = _held(holds, "筭") - _held(before, "筭")
    ch: dict[str, Any] = {}
    if verb == "釋獲":  # one 筭 on the ground on its side (xiangshe:186)
        if s.get("side") == "右":
            ch["suan_right"] = o.suan_right + 1
        elif s.get("side") == "左":
            ch["suan_left"] = o.suan_left + 1
    elif verb == "數獲" and s.get("side") and cnt:
        # the count takes them up by 純 and lays them down again (縮, 横): never more
        # counted than lie on that side
        k, side = (
            ("counted_right", o.suan_right) if s["side"] == "右" else ("counted_left", o.suan_left)
        )
        ch[k] = min(getattr(o, k) + cnt, side)
    elif verb == "實":  # into the 中
        n = cnt if cnt is not None else max(-delta, 0)
        # the 中 容八算 (記 xiangshe:354): never drawn fuller than it can hold
        ch["suan_zhong"] = min(o.suan_zhong + n, ZHONG_HOLDS)
    elif verb == "取":
        if "兼歛" in note:  # xiangshe:204: gather all from the ground
            ch.update(suan_right=0, suan_left=0, counted_right=0, counted_left=0)
        elif "賢獲" in note:  # xiangshe:202: the winner's excess (齊之而取其餘)
            d = o.suan_right - o.suan_left
            if d > 0:
                ch["suan_right"] = o.suan_left
            elif d < 0:
                ch["suan_left"] = o.suan_right
        elif "中" in (s.get("place") or ""):  # the 釋獲者's, at the 中
            n = cnt if cnt is not None else max(delta, 0)
            if "餘" in note or o.suan_zhong < n:
                ch["suan_reserve"] = max(o.suan_reserve - n, 0)
            else:
                ch["suan_zhong"] = o.suan_zhong - n
    elif verb == "委" and "中" in (s.get("at") or ""):
        ch["suan_reserve"] = o.suan_reserve + _held(before, "筭")
    return ch

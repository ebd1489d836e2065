"""The schedule itself: one pass over a run's acts in the text's order, each placed once; a
joint act whose other party must wait for him sends the schedule back to that party's act
only (docs/timeline.md, "The cost").

The pass keeps what each act changed (who is free when, who stands where, the bodies in the
walk index, the ``with`` of a partner) in a log of its own; going back to an act undoes the
logs of the acts since, newest first, and places them again from there. What is learnt is
kept across the goings back: a party's later start (``floor``), how often he was moved, the
joint acts that cannot be met.

>>> from sheli.engine import run
>>> from sheli.engine.records import Step
>>> r = run("xiangshe", seed=1, pairs=0, guests=False)
>>> steps = [s for s in r.records if type(s) is Step]
>>> s = Scheduler(steps, {}, frozenset(("射",)))
>>> s.run(); s.timed[0][0], s.work["placed"] - s.work["undone"] == len(s.groups)
(0.0, True)
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

from sheli.engine.durations import Durations, load_durations
from sheli.engine.paths.model import Via
from sheli.engine.records import Step
from sheli.engine.timeline.geometry import (
    CLEARANCE,
    MARGIN,
    Leg,
    Point,
    TimedPoint,
    Walks,
    closest,
    each_way,
    legs,
    nearest,
    walk_points,
    ways,
)

#: two who meet (相揖, 相左) come at least this near each other, in 尺: else the one who is
#: there first waits for the other
REACH = 9.5
#: a walk that would come closer than CLEARANCE to another waits this long, and again
WAIT = 0.5
#: at most this many times, or this many seconds (beyond, it goes: the tests find it)
MAX_WAITS = 240
#: the waits of half a second tried before it waits until the body in its way has gone
QUICK_WAITS = 4
#: acts done one by one even when they follow one another on the same words
ONE_BY_ONE = frozenset(("射", "數獲", "釋獲"))
#: how far back an ``alongside`` or ``joint`` act looks for the act it names, in steps
LOOK_BACK = 600
#: how often an act may be made to wait for one who joins it late
MOVES = 3
#: so many acts placed between two clearings of the bodies no walk to come can meet
FORGET_EVERY = 256
#: one who walks off from where he stood is a body there for (at most) so many seconds
#: before, in the index of bodies: a body standing longer is not looked for (the cost)
STAND = 30.0

Link = dict[tuple[str | None, int], tuple[Any, Any, Any]]
People = tuple[tuple[str, Point | None], ...]
_MISSING = object()
#: the steps of an act let go of (:meth:`Scheduler.release`)
_GONE: list[int] = []


def persons(step: Step) -> list[tuple[str, Point | None]]:
    """Who does the act, each with where it leaves him: a group's members, else the actor.

    >>> from sheli.engine import run
    >>> [p for p, _ in persons(run("xiangshe", seed=1).records[2])]
    ['衆賓1', '衆賓2', '衆賓3']
    """
    if step.members:
        return [(m.name, (m.x, m.y)) for m in step.members]
    here = (float(step.x), float(step.y)) if step.x is not None and step.y is not None else None
    return [(step.actor, here)]


def pair_of(actor: str) -> str:
    """The pair an archer belongs to (his name without 上射 or 下射).

    >>> pair_of("次耦下射"), pair_of("司射")
    ('次耦', '司射')
    """
    for tail in ("上射", "下射"):
        if actor.endswith(tail) and len(actor) > len(tail):
            return actor[: -len(tail)]
    return actor


def _says(step: Step) -> int:
    return len("".join((step.says or "").split()))


def groups_of(steps: Sequence[Step], link: Link, people: Sequence[People]) -> list[list[int]]:
    """The steps as acts: consecutive steps of one passage, words and verb by different
    people are one act done together (an act the spec links, only with the steps of the
    same act: the two archers of a pair).

    >>> from sheli.engine import run
    >>> steps = [s for s in run("xiangshe", seed=1).records if type(s) is Step][:4]
    >>> groups_of(steps, {}, [tuple(persons(s)) for s in steps])  # the four 在 of xiangshe:1
    [[0, 1, 2, 3]]
    """
    grouping = Grouping(link)
    for i, s in enumerate(steps):
        grouping.add(i, s, people[i])
    return grouping.groups


class Grouping:
    """:func:`groups_of` one step at a time: ``add`` puts a step in the act before it or
    begins a new one (so an act is whole once the next step has come, or the run ended)."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.groups: list[list[int]] = []
        self.key_before: Any = None
        self.who: set[str] = set()

    def add(self, i: int, s: Step, people: People) -> bool:
        """Step ``i`` into its act; True if it begins a new one."""
        at = (s.source_file, s.line)
        # an act linked in the spec joins only the steps of the same act (a pair's two)
        key = (s.cite, s.jing, s.verb, s.round, s.says, at if at in self.link else None)
        names = {p for p, _ in people}
        out = self.groups
        new = not (
            out and key == self.key_before and s.verb not in ONE_BY_ONE and not (self.who & names)
        )
        if new:
            out.append([i])
            self.who = names
        else:
            out[-1].append(i)
            self.who |= names
        self.key_before = key
        return new


def cups_on_stand(steps: Sequence[Step]) -> dict[int, int]:
    """Each step that takes the cup up from the 豐, and the step that set it there (the
    objects' ``cup_on_stand`` before and after each step): the one who takes it waits for it
    (僕人師繼酌射爵取觶實之反奠于豐上 dashe:234, then the next 不勝者取豐上之觶 232; 執爵者
    坐取觶實之反奠于豐上 xiangshe:215).

    >>> from types import SimpleNamespace as S
    >>> on = lambda b: S(objects=S(cup_on_stand=b))
    >>> cups_on_stand([on(False), on(True), on(True), on(False), on(True), on(False)])
    {3: 1, 5: 4}
    """
    out: dict[int, int] = {}
    put: int | None = None
    before = False
    for i, s in enumerate(steps):
        now = bool(getattr(s.objects, "cup_on_stand", False))
        if now and not before:
            put = i
        elif before and not now and put is not None:
            out[i] = put
        before = now
    return out


class Finder:
    """The act an ``alongside`` or ``joint`` act names, found from indexes of the steps
    (by passage and verb, by person, the cues and the rounds) rather than by reading back
    step by step: the same answer as that reading, at the cost of a few look-ups."""

    def __init__(self, steps: Sequence[Any], names: Sequence[Any], cues: Collection[str]) -> None:
        # (``steps`` and ``names`` are the scheduler's, which grow with the run and whose
        # steps long past it lets go of, as None)
        self.steps = steps
        self.names = names
        self.cues = cues
        self.by_act: dict[tuple[str, str], list[int]] = {}
        self.by_person: dict[str, list[int]] = {}
        self.last_cue: list[int] = []  # the latest step at or before each that is a cue
        self.round_from: list[int] = []  # where the run of steps of each one's round begins
        self.cue = -1
        #: the steps before this one are never looked at again (:meth:`forget`)
        self.horizon = 0

    def add(self, i: int, s: Step) -> None:
        """Step ``i`` (the next) into the indexes."""
        self._into(self.by_act.setdefault((s.cite, s.verb), []), i)
        for p in self.names[i]:
            self._into(self.by_person.setdefault(p, []), i)
        if s.verb in self.cues:
            self.cue = i
        self.last_cue.append(self.cue)
        before = self.steps[i - 1] if i > 0 else None
        same = before is not None and before.round == s.round
        self.round_from.append(self.round_from[-1] if same else i)

    def _into(self, found: list[int], i: int) -> None:
        # the steps before the horizon are dropped as the list grows (none is looked at)
        if found and found[0] < self.horizon and len(found) >= 16:
            del found[: bisect_left(found, self.horizon)]
        found.append(i)

    def forget(self, before: int) -> None:
        """No step before ``before`` is looked at again: ``find`` asks only for steps within
        ``LOOK_BACK`` of one it places, never of one before the oldest act it may go back to."""
        self.horizon = max(self.horizon, before)

    def _acted_after(self, who: frozenset[str], j: int, i: int) -> bool:
        for p in who:
            mine = self.by_person.get(p, ())
            k = bisect_left(mine, i) - 1
            if k >= 0 and mine[k] > j:
                return True
        return False

    def find(self, i: int, cite: str, verb: str, alongside: bool) -> int | None:
        """The latest step before ``i`` of ``cite`` and ``verb`` in the same round by others
        than the people of ``i``, within ``LOOK_BACK`` steps. ``alongside``: none if one of
        them acted in between or a director's cue came between (the 公 shooting between
        two pairs of 大射儀)."""
        if i == 0 or self.steps[i - 1].round != self.steps[i].round:
            return None
        low = max(self.round_from[i - 1], i - LOOK_BACK + 1, 0)
        names = self.names[i]
        found = self.by_act.get((cite, verb), ())
        k = bisect_left(found, i) - 1
        while k >= 0 and found[k] >= low:
            j = found[k]
            mine = not self.names[j] & names
            if alongside:
                if not mine or self.last_cue[i - 1] > j or self._acted_after(names, j, i):
                    return None
                return j
            if mine:
                return j
            k -= 1
        return None


class Scheduler:
    """The schedule of ``steps`` (a run's, in order) with the spec's ``link``
    (:func:`sheli.engine.timeline.links`) and the director's ``cues``: :meth:`run` fills
    ``timed`` (per step: start, duration, the actor's path, ``with``) and ``walks``;
    ``work`` counts what it cost: acts ``placed``, of which ``undone`` (to be placed again,
    in ``back`` goings back to a partner), pairs of bodies ``measured`` exactly."""

    def __init__(
        self,
        steps: Sequence[Step],
        link: Link,
        cues: Collection[str],
        durations: Durations | None = None,
        keep: bool = True,
    ) -> None:
        self.link = link
        self.table = table = durations or load_durations()
        self.pace = table.chi_per_second
        self.cap = table.walk.max_seconds
        self.beat = table.music.beat_seconds
        self.per_character = table.speech.seconds_per_character
        #: keep every step's state to the end (``timed``, ``walks`` whole), or let go of that
        #: of the steps no act to come can reach (:meth:`release`: a run put in time as it
        #: goes, docs/timeline.md "The cost")
        self.keep = keep
        # by step, as they come (a slot None once let go of)
        self.steps: list[Any] = []
        self.people: list[Any] = []
        self.names: list[Any] = []
        self.words: list[Any] = []
        self.timed: list[Any] = []
        # the 節 listened to before a pair's first arrow, by step: those of the last 奏 before
        # it beyond the four 拾發 (xiangshe:248 注 四節四拾其一節先以聽; 疏 諸矦七節者三節先以
        # 聽); a 奏 gives its 節 as its count
        self.heard: list[Any] = []
        self._heard = 1
        # the cup on the 豐: each step that takes it up, and the step that set it there
        # (:func:`cups_on_stand`, as the steps come); the steps that set it, whose time is
        # kept when the others' is let go of (one takes it up however long after)
        self.set_on_stand: dict[int, int] = {}
        self.puts: set[int] = set()
        self._put: int | None = None
        self._on_stand = False
        self.grouping = Grouping(link)
        self.groups = self.grouping.groups
        self.group_of: dict[int, int] = {}
        self.finder = Finder(self.steps, self.names, cues)
        # what is learnt, kept when the schedule goes back
        self.floor: dict[int, float] = {}  # a joint act's partner's earliest start
        self.unmet: set[int] = set()  # joint acts that cannot be met: the other is late
        self.moved: dict[int, int] = {}  # how often each act was made to wait
        # the state of the pass
        self.walks: dict[int, dict[str, tuple[TimedPoint, ...]]] = {}
        self.free: dict[str, float] = {}
        self.arrived: dict[str, float] = {}  # when each one's last walk ended
        self.where: dict[str, Point] = {}
        self.index = Walks()
        self.chain = 0.0  # when the act before (in the text's order) ended
        self.last_shot_pair: str | None = None
        # who is acting alongside (True) or came to no act to go with (False), since his
        # last act that the spec does not link
        self.alongside: dict[str, bool] = {}
        # the seconds left of an act another's act cut short (辭洗: the 洗), by its doer and
        # verb: his next act of that verb does them (卒洗)
        self.left: dict[tuple[str, str], float] = {}
        # the log of each act placed and not yet forgotten: (chain, last pair shot) before
        # it, and its changes to undo
        self.logs: dict[int, tuple[float, str | None, list[tuple[Any, ...]]]] = {}
        self.work: Counter[str] = Counter()
        self.next_act = 0  # the act the pass places next
        self.oldest = 0  # the oldest act whose log is kept
        self.released = 0  # the steps before it are let go of
        for step in steps:
            self._take(step)

    def _take(self, s: Step) -> None:
        """Step ``s``, the next of the run, into the state by step."""
        i = len(self.steps)
        self.steps.append(s)
        people = tuple(persons(s))
        self.people.append(people)
        self.names.append(frozenset(p for p, _ in people))
        self.words.append(_says(s) * self.per_character)
        self.timed.append(None)
        if s.verb == "奏" and isinstance(s.number, int) and s.number > 4:
            self._heard = s.number - 4
        self.heard.append(self._heard)
        now = bool(getattr(s.objects, "cup_on_stand", False))
        if now and not self._on_stand:
            self._put = i
            self.puts.add(i)
        elif self._on_stand and not now and self._put is not None:
            self.set_on_stand[i] = self._put
        self._on_stand = now
        self.grouping.add(i, s, people)
        self.group_of[i] = len(self.groups) - 1
        self.finder.add(i, s)

    # ------------------------------------------------------------------ the pass
    @property
    def final(self) -> int:
        """The steps before this one have their time for good: no act to come can send the
        schedule back to theirs, nor name one of them as its partner."""
        if self.oldest >= len(self.groups):
            return len(self.steps)
        return self.groups[self.oldest][0]

    def run(self) -> None:
        """Place every act of the steps given (the run is whole)."""
        self._pass(len(self.groups))
        self.index.cells.clear()  # (the bodies' index is of no use once all are placed)
        self.work["measured"] = self.index.measured

    def feed(self, step: Step) -> None:
        """The next step of a run as it is made: the acts before its act are placed (an act
        is whole once the next begins); ``final`` tells which steps have their time."""
        self._take(step)
        self._pass(len(self.groups) - 1)

    def _pass(self, upto: int) -> None:
        """Place the acts before ``upto`` (going back to a partner where one must wait)."""
        n = self.next_act
        while n < upto:
            back = self._place_act(n)
            if back is None:
                n += 1
                # forget the logs of acts no joint act can send the schedule back to
                first = self.groups[n][0] if n < len(self.groups) else len(self.steps)
                while self.oldest < n and self.groups[self.oldest][-1] < first - LOOK_BACK:
                    self.logs.pop(self.oldest, None)
                    self.oldest += 1
                if n % FORGET_EVERY == 0:
                    self.index.forget(self._earliest(self.oldest, first) - 1.0)
                continue
            self.work["back"] += 1
            for k in range(n, back - 1, -1):
                self._undo(k)
            n = back
        self.next_act = n
        if n == len(self.groups):
            self.oldest = n  # all placed: every step has its time

    def release(self, upto: int) -> None:
        """Let go of the state of the steps before ``upto`` (at most ``final``, and handed
        on) that no act to come looks at: those more than ``LOOK_BACK`` steps before the
        final ones (:meth:`Finder.find` looks back so far; :meth:`_earliest` too)."""
        if self.keep:
            return
        stop = min(upto, self.final - LOOK_BACK - 1)
        for i in range(self.released, stop):
            self.steps[i] = self.people[i] = self.names[i] = self.words[i] = None
            self.heard[i] = None
            if i not in self.puts:
                self.timed[i] = None
            self.walks.pop(i, None)
            n = self.group_of.pop(i)
            if self.groups[n][-1] == i:
                self.groups[n] = _GONE  # (an act wholly let go of)
        if stop > self.released:
            self.released = stop
            self.finder.forget(stop)

    def _earliest(self, oldest: int, upto: int) -> float:
        """A time before which no walk to come starts (the oldest act the schedule may still
        go back to being ``oldest``): an act starts no sooner than the act before it ended,
        or than the act it goes ``alongside`` or ``joint`` with (an act of at most
        ``LOOK_BACK`` steps before it) starts, both placed already or to be placed no
        sooner than these; so, no sooner than the earliest start of the steps from
        ``LOOK_BACK`` before the oldest act on (to ``upto``, the next act's first step),
        and than the end of the act before."""
        first = self.groups[oldest][0]
        placed = self.timed[max(0, first - LOOK_BACK) : upto]
        return min((tm[0] for tm in placed if tm is not None), default=self.chain)

    def _undo(self, k: int) -> None:
        if self.timed[self.groups[k][0]] is not None:
            self.work["undone"] += 1  # (placed, and to be placed again)
        chain, shot, changes = self.logs.pop(k)
        for change in reversed(changes):
            kind = change[0]
            if kind == "set":
                _, d, key, old = change
                if old is _MISSING:
                    del d[key]
                else:
                    d[key] = old
            elif kind == "with":
                change[1].remove(change[2])
            else:  # a body in the index
                self.index.drop(change[1])
        for i in self.groups[k]:
            self.timed[i] = None
            self.walks.pop(i, None)
        self.chain, self.last_shot_pair = chain, shot

    def _set(self, log: list[tuple[Any, ...]], d: dict[Any, Any], key: Any, value: Any) -> None:
        log.append(("set", d, key, d.get(key, _MISSING)))
        d[key] = value

    def _place_act(self, n: int) -> int | None:
        """Place act ``n``; None, or the act to go back to (its partner, made to wait)."""
        steps, timed, table = self.steps, self.timed, self.table
        g = self.groups[n]
        first = steps[g[0]]
        names = frozenset().union(*(self.names[i] for i in g))
        along, joint, after = self.link.get((first.source_file, first.line), (None, None, None))
        log: list[tuple[Any, ...]] = []
        self.logs[n] = (self.chain, self.last_shot_pair, log)
        gate = self.chain
        lag = 0.0  # so many 等 behind the act named, on the 階 (下射從之中等)
        if along is not None:
            lag = along.behind * table.stairs.step_seconds
            j = self.finder.find(g[0], along.cite, along.verb, True)
            if j is not None:
                gate = timed[j][0] + lag
            for p in names:
                self._set(log, self.alongside, p, j is not None)
        elif joint is None:
            for p in names:
                if p in self.alongside:
                    log.append(("set", self.alongside, p, self.alongside.pop(p)))
        if joint is not None and not all(self.alongside.get(p, True) for p in names):
            joint = None  # not come alongside: nobody to meet (the last pair, 敖繼公)
        partner: list[int] | None = None  # the act of the other party (its steps)
        if joint is not None and g[0] not in self.unmet:
            j = self.finder.find(g[0], joint.cite, joint.verb, False)
            if j is not None:
                partner = [k for k in self.groups[self.group_of[j]] if not names & self.names[k]]
                gate = min(gate, timed[partner[0]][0] + lag)  # with it, not after it
        for wait in after or ():  # 興執而俟: it waits for those acts to end (docs/timeline.md)
            j = self.finder.find(g[0], wait.cite, wait.verb, False)
            if j is not None:
                gate = max(gate, timed[j][0] + timed[j][1])
        ready = max([gate, *(self.free.get(p, 0.0) for p in names)])
        put = self.set_on_stand.get(g[0])
        if put is not None and timed[put] is not None:
            # the cup is taken from the 豐 once it is there: filled again (繼酌 dashe:234)
            ready = max(ready, timed[put][0] + timed[put][1])
        start = max(ready, self.floor.get(g[0], 0.0))
        if partner is not None:
            there = timed[partner[0]][0]
            own = max(table.base(steps[i].verb) + self.words[i] for i in g)
            target, met = self._meeting(g, partner, own, ready)
            if not met and ready > target + WAIT:
                key = self.groups[self.group_of[partner[0]]][0]
                self.moved[key] = self.moved.get(key, 0) + 1
                if self.moved[key] > MOVES:
                    # moved and still late: the one who joins depends on him; he keeps his
                    # time and the act is not met
                    self.unmet.add(g[0])
                    if self.floor.pop(key, None) is None:
                        return n  # (this act again, alone)
                else:
                    self.floor[key] = max(self.floor.get(key, 0.0), there + ready - target)
                return self.group_of[partner[0]]  # he waits for this one
            start = max(start, target)
        if first.verb == "射" and first.round == 3:
            pair = pair_of(first.actor)
            if pair != self.last_shot_pair:
                start += self.beat * self.heard[g[0]]  # the 節 listened to first (注 xiangshe:248)
        if first.verb == "射":
            self.last_shot_pair = pair_of(first.actor)
        start = round(start, 3)
        end_all = start
        for i in g:
            end_all = max(end_all, self._place_step(i, start, log))
        self.work["placed"] += 1
        if partner is not None:
            late = max(timed[i][0] for i in g) - start  # held back by another walker
            if late > 0 and not self._within(g, partner):
                key = self.groups[self.group_of[partner[0]]][0]
                self.moved[key] = self.moved.get(key, 0) + 1
                if self.moved[key] <= MOVES:
                    self.floor[key] = max(self.floor.get(key, 0.0), timed[partner[0]][0] + late)
                    return self.group_of[partner[0]]
            for i, k in _facing(g, partner):
                if not self._within([i], [k]):
                    continue  # they did not meet after all: neither names the other
                for a, b in ((i, k), (k, i)):
                    if steps[b].actor not in timed[a][3]:
                        timed[a][3].append(steps[b].actor)
                        log.append(("with", timed[a][3], steps[b].actor))
            if joint.cuts:
                self._cut(partner, end_all, log)
        self.chain = end_all
        return None

    def _cut(self, partner: list[int], end: float, log: list[tuple[Any, ...]]) -> None:
        """The steps ``partner``, still going at ``end``, stop then (the 辭 interrupts the
        洗): their doers are free, and each one's next act of the verb does the rest."""
        for k in partner:
            t0, dur = self.timed[k][0], self.timed[k][1]
            if t0 + dur <= end:
                continue
            log.append(("set", self.timed[k], 1, dur))
            self.timed[k][1] = round(end - t0, 3)
            who = self.steps[k].actor
            self._set(log, self.free, who, end)
            self._set(log, self.left, (who, self.steps[k].verb), round(t0 + dur - end, 3))

    def _place_step(self, i: int, start: float, log: list[tuple[Any, ...]]) -> float:
        """Place step ``i`` of an act starting at ``start``: it waits, if it must, until its
        walks are clear of those already placed (the act's earlier steps too: 下射少右從之
        follows the 上射). Its end."""
        s = self.steps[i]
        table = self.table
        base = table.base(s.verb)
        if s.verb == "射" and s.round == 3:
            base = self.beat / 2  # one 拾發 to a 節
        rest = base + self.words[i]
        left = self.left.get((s.actor, s.verb))
        if left is not None:  # the rest of an act cut short: 卒洗 (see _cut)
            log.append(("set", self.left, (s.actor, s.verb), left))
            del self.left[(s.actor, s.verb)]
            rest = left
        goes: list[tuple[str, Point, Point]] = []
        for p, end in self.people[i]:
            old = self.where.get(p)
            if end is not None and old is not None and math.dist(old, end) > 0.01:
                goes.append((p, old, end))
        via = s.via_point
        t0 = start
        paths: dict[str, tuple[TimedPoint, ...]] | None = None
        for wait in range(MAX_WAITS + 1):
            every = wait >= QUICK_WAITS
            paths, longest = self._place(goes, via, t0, rest, self.index, every)
            if paths is not None:
                break
            if wait == MAX_WAITS or longest - start > MAX_WAITS * WAIT:
                # waited long enough: he goes straight (the tests find it)
                paths, longest = self._place(goes, via, t0, rest, None)
                break
            # half a second, and after a few seconds on until the one in his way has gone
            jump = math.ceil((longest - t0) / WAIT) * WAIT if every else 0
            t0 = round(t0 + max(WAIT, jump), 3)
        assert paths is not None
        dur = round(rest + longest, 3)
        self.timed[i] = [t0, dur, paths.get(self.people[i][0][0]), []]
        for p, end in self.people[i]:
            self._set(log, self.free, p, t0 + dur)
            if end is not None:
                self._set(log, self.where, p, end)
        if paths:
            self.walks[i] = paths
            for p, walked in paths.items():
                # with the rest of his act, standing where the walk left him
                body = (*walked, (walked[-1][0], walked[-1][1], t0 + dur))
                log.append(("body", self.index.add(p, body)))
                # and standing where he stood before he set off (the last STAND seconds
                # of it): one who comes to the place he leaves does not walk into him
                since = max(self.arrived.get(p, t0), t0 - STAND)
                if since < t0:
                    x, y = walked[0][0], walked[0][1]
                    log.append(("body", self.index.add(p, ((x, y, since), (x, y, t0)))))
                self._set(log, self.arrived, p, walked[-1][2])
        return t0 + dur

    def _place(
        self,
        own: list[tuple[str, Point, Point]],
        via: Via | None,
        t0: float,
        rest: float,
        index: Walks | None,
        every: bool = False,
    ) -> tuple[dict[str, tuple[TimedPoint, ...]] | None, float]:
        """The walks of one step's people starting at ``t0`` (and standing ``rest`` seconds
        where they end), each the first of its :func:`ways` clear of the bodies in ``index``
        (straight without one), and the longest one's seconds; if one has no clear way
        then, None and the earliest time worth trying again (when a body in his way is
        gone; with ``every``, all those in it)."""
        paths: dict[str, tuple[TimedPoint, ...]] = {}
        longest = 0.0
        for p, old, end in own:
            again = math.inf
            for way in each_way(old, via if len(own) == 1 else None, end):
                pts, secs = walk_points(way, t0, self.pace, self.cap)
                body = (*pts, (pts[-1][0], pts[-1][1], pts[-1][2] + rest))
                until = None if index is None else index.blocked(p, body, every, again)
                if until is None:
                    break
                again = min(again, until)
            else:
                return None, again
            paths[p] = tuple(pts)
            longest = max(longest, secs)
        return paths, longest

    # ------------------------------------------------------------------ joint acts
    def _body(self, i: int) -> list[tuple[TimedPoint, ...]]:
        """Where the people of step ``i`` are during it: their walks (and standing after),
        or where they stand."""
        t0, dur = self.timed[i][0], self.timed[i][1]
        got = self.walks.get(i)
        if got:
            return [(*pts, (pts[-1][0], pts[-1][1], t0 + dur)) for pts in got.values()]
        return [((a[0], a[1], t0), (a[0], a[1], t0 + dur)) for _, a in self.people[i] if a]

    def _within(self, g: list[int], partner: list[int]) -> bool:
        """Whether each two who meet in a joint act, as placed, are there at the same time
        and come within ``REACH`` of each other, none nearer than one 尺."""
        for i, k in _facing(g, partner):
            for a in self._body(i):
                for b in self._body(k):
                    d = closest(a, b)
                    if d is None or not 1.0 <= d <= REACH:
                        return False
        return True

    def _meeting(
        self, g: list[int], partner: list[int], own: float, ready: float
    ) -> tuple[float, bool]:
        """When the act ``g`` (lasting ``own`` seconds besides its walk, ready at ``ready``)
        should start to meet the act ``partner``, placed already, and whether it can. If
        neither walks (相揖, 授受), with it. Else, of the half seconds from this act's
        ending as the other's starts to its starting as the other's ends, and not before it
        is ready, the start that brings each two who meet nearest, none nearer than
        ``CLEARANCE`` (the earliest of equals): they pass at the 階前 as the text has it, or
        one bows as the other arrives (上射揖竝行 xiangshe:140). None such: the earliest
        start of that span, and False (the other must wait)."""
        timed = self.timed
        there = timed[partner[0]][0]
        # (the ways one of this act may go, what the one he meets does then)
        meets: list[tuple[str, list[list[Point]], tuple[TimedPoint, ...]]] = []
        moving = False
        walkers: list[tuple[str, list[list[Point]]]] = []
        for i, k in _facing(g, partner):
            if self.walks.get(k):
                moving = True
            theirs = self._body(k)
            walkers = []
            for p, end in self.people[i]:
                old = self.where.get(p, end)
                if end is not None and old is not None:
                    moving = moving or math.dist(old, end) > 0.01
                    one = len(self.people[i]) == 1
                    walkers.append((p, ways(old, self.steps[i].via_point if one else None, end)))
            meets.extend((p, w, pts) for p, w in walkers for pts in theirs)
        if not meets or not moving:
            return there, True
        secs = max(walk_points(w[0], 0.0, self.pace, self.cap)[1] for _, w, _ in meets)
        until = max(pts[-1][2] for _, _, pts in meets)
        best: tuple[float, float] | None = None
        first = round(there - secs - own, 1)
        start = max(first, first + math.ceil((ready - first) / WAIT) * WAIT)
        # (for the bound below: the legs of what each one he meets does, and of each of his
        # ways set off at 0 s, to be put off to each start)
        bounds = [self._shapes(w, own, pts) for _, w, pts in meets]
        while start <= until:
            # no way of one of them comes within REACH of the one he meets, or as near as the
            # best start so far: this start cannot be the best (the bound by legs)
            if _out_of_reach(bounds, start, best):
                start = round(start + WAIT, 3)
                continue
            far, near = 0.0, math.inf  # of each two, how near they come: the farthest, nearest
            for who, w, pts in meets:
                d = self._nearest(who, w, pts, start, own, first)
                far, near = (math.inf, 0.0) if d is None else (max(far, d), min(near, d))
            if near >= CLEARANCE and far <= REACH and (best is None or far < best[0] - 1e-9):
                best = (far, start)
            start = round(start + WAIT, 3)
        if best is not None:
            return best[1], True
        return first, False  # he comes too late: the other must wait for him

    def _shapes(
        self, options: list[list[Point]], own: float, theirs: tuple[TimedPoint, ...]
    ) -> tuple[list[tuple[Leg, ...]], tuple[Leg, ...], float] | None:
        """For :func:`_out_of_reach`: the legs of each of ``options`` walked from 0 s and
        standing ``own`` seconds after, the legs of ``theirs``, and how far the legs put off
        to a start may be from the walk worked out at that start (its times are rounded to
        the thousandth: so many thousandths at the speed of the fastest leg of either, and
        the millionth of :func:`closest`); None if one's legs cannot tell."""
        their_legs = legs(theirs)
        if their_legs is None:
            return None
        shapes = []
        for way in options:
            mine, took = walk_points(way, 0.0, self.pace, self.cap)
            mine.append((way[-1][0], way[-1][1], took + own))
            got = legs(mine)
            if got is None:
                return None
            shapes.append(got)
        fastest = max(math.hypot(g[8], g[9]) for leg in (*shapes, their_legs) for g in leg)
        return shapes, their_legs, fastest * 0.004 + MARGIN

    def _nearest(
        self,
        who: str,
        options: list[list[Point]],
        theirs: tuple[TimedPoint, ...],
        start: float,
        own: float,
        since: float,
    ) -> float | None:
        """How near ``who``, setting off at ``start`` by the first of ``options`` clear of
        the walks placed that keeps him ``CLEARANCE`` from the other (``theirs``, standing
        where he starts from ``since``), comes to him; 0 if none does, None if they are not
        there at the same time."""
        got: float | None = 0.0
        for way in options:
            mine, took = walk_points(way, start, self.pace, self.cap)
            if not self.index.clear(who, mine):
                continue
            mine.append((way[-1][0], way[-1][1], start + took + own))
            d = closest(mine, theirs)
            # and not into him where he stands before his act (one comes to the 楅 as the
            # other, still there, turns to go)
            before = closest(mine, ((theirs[0][0], theirs[0][1], since), theirs[0]))
            if (before is None or before >= CLEARANCE) and (d is None or d >= CLEARANCE):
                return d
            if d is None:
                got = None
        return got


def _out_of_reach(
    bounds: list[tuple[list[tuple[Leg, ...]], tuple[Leg, ...], float] | None],
    start: float,
    best: tuple[float, float] | None,
) -> bool:
    """Whether, setting off at ``start``, one of a joint act's walkers comes by none of his
    ways within ``REACH`` of the one he meets (nor as near as ``best``, the best start's
    farthest, so far): then that start is not the one :meth:`Scheduler._meeting` looks for,
    whatever the walks placed let him do. A bound by legs (:func:`nearest`, the ways'
    legs of :meth:`Scheduler._shapes` put off to ``start``), with no look at the index;
    where it cannot tell (no legs, or no time the two walk together), False.

    >>> mine = legs([(0.0, 0.0, 0.0), (10.0, 0.0, 10.0)])
    >>> far = [([mine], legs([(10.0, 20.0, 0.0), (0.0, 20.0, 20.0)]), 0.1)]  # 20 尺 off
    >>> near = [([mine], legs([(10.0, 5.0, 0.0), (0.0, 5.0, 20.0)]), 0.1)]  # 5 尺 off
    >>> _out_of_reach(far, 0.0, None), _out_of_reach(near, 0.0, None)
    (True, False)
    >>> _out_of_reach(near, 0.0, (4.0, 1.0))  # a start that brought them 4 尺 apart: better
    True
    """
    reach = REACH if best is None else min(REACH, best[0])
    for bound in bounds:
        if bound is None:
            return False
        shapes, theirs, slack = bound
        for mine in shapes:
            d = nearest(mine, theirs, reach, later=start)
            if d == math.inf or d <= reach + slack:
                break
        else:
            return True
    return False


def _facing(mine: list[int], theirs: list[int]) -> list[tuple[int, int]]:
    """Who meets whom in a joint act: the first of one act with the first of the other and
    so on (上射 with 上射, 下射 with 下射) when the two acts have as many steps; else each
    with each.

    >>> _facing([1, 2], [5, 6]), _facing([1], [5, 6])
    ([(1, 5), (2, 6)], [(1, 5), (1, 6)])
    """
    if len(mine) == len(theirs):
        return list(zip(mine, theirs, strict=True))
    return [(i, k) for i in mine for k in theirs]

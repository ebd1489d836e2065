"""The run as typed events: the one place where the lines of the event log are built.

A run is a :class:`Scene` followed by :class:`Step`, :class:`Shot` and :class:`Tally` records
in the order they happen. Each is a frozen, typed value; its ``to_json()`` is the line of
docs/event-log.md, byte for byte what the engine has always written (the JSON Lines log is
the public contract). A step also carries what the log gives only in words: the actor's
:class:`~sheli.engine.state.Holding` and the world's :class:`~sheli.engine.state.Objects`
after the act, as numbers — values shared between steps where nothing changed, so a run of
54,000 steps holds a few thousand of them.

Readers of a run (the outputs) are visitors: see :class:`RunVisitor` and
docs/architecture.md.

>>> from sheli.engine.state import Holding, Objects
>>> s = Step(1, 0, 1, "xiangshe:1", "主人戒賓", "主人", "適", 0.0, 1.0, "南", Holding(),
...          None, "門外", ["襲"], 4, Objects())
>>> s.to_json()["holds"], s.to_json()["line"]
([], 4)
>>> Tally(2, 19, 14, "right", "右賢於左二純一奇", seq=9).to_json()["announcement"]
'右賢於左二純一奇'
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each field's
# annotation given as a string (Scene, Step, Shot and Tally: many small compiles at every
# start of the engine; see docs/benchmarks.md, "Start-up").

from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any, Generic, Literal, NamedTuple, Protocol, TypeVar

import msgspec

from sheli.engine.state import ARROWS_IN_CLOTH, CLOTH, Holding, Objects, holds_words

__all__ = [
    "BaseVisitor",
    "Bout",
    "Call",
    "Formed",
    "LogReader",
    "Loosed",
    "Member",
    "Record",
    "RunVisitor",
    "Scene",
    "SeatHits",
    "Shared",
    "Shot",
    "Step",
    "Tally",
    "Winner",
    "holding_of",
]

_encode = msgspec.json.Encoder().encode


class Scene(NamedTuple):
    """The first line: rite, venue, unit, parameters, the fixtures used, the cast."""

    rite: str
    title: str | None
    venue: str
    unit: str
    params: dict[str, Any]
    fixtures: list[dict[str, Any]]
    cast: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"type": "scene", **self._asdict()}


class Call(NamedTuple):
    """The call (如初) a step is performed in (the log's ``as``): its passage and procedure."""

    cite: str
    jing: str | None
    procedure: str

    def to_json(self) -> dict[str, Any]:
        return {"cite": self.cite, "jing": self.jing, "procedure": self.procedure}


class Loosed(NamedTuple):
    """The arrow a 射 step looses (the log's ``shot`` on the step line): its number, whether
    it hit and is counted, what it struck (人, 維綱 …) and the 侯 (``hou``) where given."""

    arrow: int
    hit: bool
    counted: bool
    struck: str | None = None
    hou: str | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"arrow": self.arrow, "hit": self.hit, "counted": self.counted}
        if self.struck is not None:
            d["struck"] = self.struck
        if self.hou is not None:
            d["hou"] = self.hou
        return d


class Member(NamedTuple):
    """One body of an actor who is several people (衆賓1 …, the log's ``members``)."""

    name: str
    x: float
    y: float
    facing: str | None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "x": self.x, "y": self.y, "facing": self.facing}


class Bout(NamedTuple):
    """Who won a bout of 主皮之射 (the log's ``勝``: 勝者, 不勝者; a tie writes 鈞)."""

    winner: str
    loser: str

    def to_json(self) -> dict[str, Any]:
        return {"勝者": self.winner, "不勝者": self.loser}


class SeatHits(NamedTuple):
    """The hits of a pair's two seats in a bout (the log's ``獲``: 上射, 下射)."""

    upper: int
    lower: int

    def to_json(self) -> dict[str, Any]:
        return {"上射": self.upper, "下射": self.lower}


class Formed(NamedTuple):
    """A pair formed by 比耦 (the log's ``耦``: pair → [上射, 下射])."""

    pair: str
    upper: str
    lower: str


class Step(NamedTuple):
    """One act of one person (a ``step`` line).

    The fields up to ``line`` are those of every step line; ``holding`` (the actor's) and
    ``objects`` (the world's) are the state after the act, as numbers; ``at_point`` and
    ``via_point`` the places the line names in words, as the run resolved them on its plan
    (None where it did not); ``announces`` the round of the count (a :class:`Tally`) whose
    announcement the step says (賢獲 告于賓 xiangshe:203), None for any other. The rest are
    the optional fields of docs/event-log.md, each typed, None (or empty) where the line has
    not got it: ``source_file`` (the log's ``file``), ``number`` (``count``), ``acting_as``
    (``as``), ``bout`` (``勝``), ``last_winner`` (``勝者``), ``seat_hits`` (``獲``),
    ``formed`` (``耦``), ``arrow_flight`` (``矢行``), the others under their log names.
    ``written`` names those the line writes, in the log's order (the engine adds them as
    the act goes: a call's ``as`` after a passage's ``assumes``, a verb's ``assumes`` after
    the call's ``as``), one tuple shared by the steps of one order.

    >>> from sheli.engine.state import Holding, Objects
    >>> s = Step(1, 0, 1, "xiangshe:1", None, "主人", "適", 0.0, 1.0, "南", Holding(),
    ...          None, "門外", ["襲"], 4, Objects(), obj="觶", number=1, written=("obj", "count"))
    >>> s.obj, s.number, s.note, list(s.to_json())[-3:]
    ('觶', 1, None, ['line', 'obj', 'count'])
    """

    seq: int
    round: int
    section: int | None
    cite: str
    jing: str | None
    actor: str
    verb: str
    x: float | None
    y: float | None
    facing: str | None
    holding: Holding
    says: str | None
    place: str | None
    dress: list[str]
    line: int
    objects: Objects
    at_point: tuple[float, float] | None = None  # ``at`` resolved on the plan, where it is
    # ``via`` resolved on the plan: a point, or the waypoints of a route in words, in order
    via_point: tuple[float, float] | tuple[tuple[float, float], ...] | None = None
    announces: int | None = None  # the round of the count whose announcement ``says`` is
    # the optional fields of the line (docs/event-log.md): read-only, shared between steps
    source_file: str | None = None  # file: the part file of the step (None: the spec's)
    section_of: str | None = None
    topic: str | None = None
    obj: str | None = None
    number: int | str | None = None  # count: how many of obj, or 筭 counted (not tuple.count)
    note: str | None = None
    assumes: tuple[str, ...] = ()
    at: str | None = None
    acting_as: Call | None = None  # as
    shot: Loosed | None = None
    to: str | None = None
    side: str | None = None  # 右 or 左
    measured: str | None = None
    punished: str | None = None
    via: str | None = None
    bout: Bout | str | None = None  # 勝: who won a bout, or 鈞
    last_winner: str | None = None  # 勝者: the one left standing at the end of 主皮之射
    seat_hits: SeatHits | None = None  # 獲
    formed: tuple[Formed, ...] = ()  # 耦: the pairs 比耦 forms
    arrow_flight: str | None = None  # 矢行: where the arrow went, in the text's word
    name: str | None = None
    members: tuple[Member, ...] = ()
    written: tuple[str, ...] = ()  # the log names of the optional fields above, in order
    # the act in time (docs/timeline.md), the schedule's, each step its own: the log's ``t``
    # and ``dur`` (seconds from the rite's start), ``path`` (a walk's [x, y, t] points, 尺
    # and seconds), ``with`` (the other parties of a joint act) and ``moment`` (the
    # director's cue); None (or empty) until the run is scheduled, and written after the
    # fields above
    t: float | None = None
    dur: float | None = None
    path: tuple[tuple[float, float, float], ...] | None = None
    joined_with: tuple[str, ...] = ()  # with
    moment: int | None = None

    def in_time(
        self,
        t: float,
        dur: float,
        path: tuple[tuple[float, float, float], ...] | None,
        joined_with: tuple[str, ...],
        moment: int,
    ) -> "Step":
        """The step with its time (the schedule's: docs/timeline.md), its other fields as
        they are (one tuple made, without the keyword handling of ``_replace``).

        >>> from sheli.engine.state import Holding, Objects
        >>> s = Step(1, 0, 1, "xiangshe:1", None, "主人", "適", 0.0, 1.0, "南", Holding(),
        ...          None, "門外", [], 4, Objects())
        >>> s.in_time(0.0, 3.0, None, (), 1) == s._replace(t=0.0, dur=3.0, moment=1)
        True
        """
        return _new_step((*self[:_FIRST_TIME], t, dur, path, joined_with, moment))

    @property
    def holds(self) -> list[str]:
        """What the actor holds, in the text's words (``搢矢三``): made from ``holding``."""
        return holds_words(self.holding)

    def optional_json(self) -> dict[str, Any]:
        """The optional fields of the line as the log writes them, in its order.

        >>> from sheli.engine.state import Holding, Objects
        >>> Step(1, 0, 1, "xiangshe:1", None, "主人", "適", 0.0, 1.0, "南", Holding(), None,
        ...      "門外", [], 4, Objects(), shot=Loosed(1, True, True), written=("shot",)
        ...      ).optional_json()
        {'shot': {'arrow': 1, 'hit': True, 'counted': True}}
        """
        return {key: _LOG_FIELDS[key][1](self[_LOG_FIELDS[key][0]]) for key in self.written}

    def to_json(self) -> dict[str, Any]:
        d = {
            "type": "step",
            "seq": self.seq,
            "round": self.round,
            "section": self.section,
            "cite": self.cite,
            "jing": self.jing,
            "actor": self.actor,
            "verb": self.verb,
            "x": self.x,
            "y": self.y,
            "facing": self.facing,
            "holds": holds_words(self.holding),
            "says": self.says,
            "place": self.place,
            "dress": self.dress,
            "line": self.line,
        }
        if self.written:
            d.update(self.optional_json())
        if self.t is not None:
            d.update(self.time_json())
        return d

    def time_json(self) -> dict[str, Any]:
        """The time fields of the line (docs/event-log.md), in the log's order: ``t``,
        ``dur``, ``path`` for a walk, ``with`` for a joint act, ``moment``; none before the
        run is scheduled.

        >>> from sheli.engine.state import Holding, Objects
        >>> s = Step(1, 0, 1, "xiangshe:1", None, "主人", "適", 0.0, 1.0, "南", Holding(),
        ...          None, "門外", [], 4, Objects())
        >>> s.time_json()
        {}
        >>> s.in_time(2.5, 4.0, ((0.0, 0.0, 2.5), (0.0, 1.0, 2.75)), ("賓",), 1).time_json()
        ... # doctest: +NORMALIZE_WHITESPACE
        {'t': 2.5, 'dur': 4.0, 'path': [[0.0, 0.0, 2.5], [0.0, 1.0, 2.75]], 'with': ['賓'],
         'moment': 1}
        """
        d: dict[str, Any] = {}
        if self.t is not None:
            d["t"] = self.t
        if self.dur is not None:
            d["dur"] = self.dur
        if self.path is not None:
            d["path"] = [list(p) for p in self.path]
        if self.joined_with:
            d["with"] = list(self.joined_with)
        if self.moment is not None:
            d["moment"] = self.moment
        return d

    def json_line(self, tails: dict[tuple[Any, ...], bytes]) -> bytes:
        """The line of :meth:`to_json` in the log, its newline included: the JSON of the
        same bytes, made without its dict: the fixed fields encoded as a struct, then the
        optional ones, whose JSON is made once for each value of them (``tails``, kept by
        the caller for one log: most lines share theirs with many others).

        >>> from sheli.engine.state import Holding, Objects
        >>> s = Step(1, 0, 1, "xiangshe:1", None, "主人", "適", 0.0, 1.0, "南", Holding(),
        ...          None, "門外", ["襲"], 4, Objects(), obj="觶", written=("obj",))
        >>> s.json_line({}) == _encode(s.to_json()) + b"\\n"
        True
        """
        head = _encode(
            _StepHead(
                "step",
                self.seq,
                self.round,
                self.section,
                self.cite,
                self.jing,
                self.actor,
                self.verb,
                self.x,
                self.y,
                self.facing,
                holds_words(self.holding),
                self.says,
                self.place,
                self.dress,
                self.line,
            )
        )
        if self.written:
            optional = self[_FIRST_OPTIONAL:_FIRST_TIME]
            tail = tails.get(optional)
            if tail is None:
                tail = tails[optional] = b"," + _encode(self.optional_json())[1:-1]
            head = head[:-1] + tail + b"}"
        if self.t is None:
            return head + b"\n"
        # each step's own time: written after the shared fields, not kept in ``tails``
        timed = _StepTime(self.t, self.dur, self.path, self.joined_with or None, self.moment)
        return head[:-1] + b"," + _encode(timed)[1:] + b"\n"


class _StepHead(msgspec.Struct):
    """The fixed fields of a step line, in the log's order (msgspec writes a struct's
    fields in order, with names it has encoded once)."""

    type: str
    seq: Any
    round: Any
    section: Any
    cite: Any
    jing: Any
    actor: Any
    verb: Any
    x: Any
    y: Any
    facing: Any
    holds: Any
    says: Any
    place: Any
    dress: Any
    line: Any


#: a Step from the tuple of its fields, without the keyword handling of Step(...)
_new_step = partial(tuple.__new__, Step)


class _StepTime(msgspec.Struct, omit_defaults=True):
    """The time fields of a step line, in the log's order, those absent left out."""

    t: Any = None
    dur: Any = None
    path: Any = None
    joined_with: Any = msgspec.field(default=None, name="with")
    moment: Any = None


def _same(value: Any) -> Any:
    return value


def _json_of(value: Any) -> Any:
    return value.to_json()


def _list_json(values: tuple[Any, ...]) -> list[Any]:
    return [v.to_json() for v in values]


def _bout_json(value: Bout | str) -> Any:
    return value if isinstance(value, str) else value.to_json()


def _formed_json(values: tuple[Formed, ...]) -> dict[str, list[str]]:
    return {f.pair: [f.upper, f.lower] for f in values}


def _call(d: dict[str, Any]) -> Call:
    return Call(d["cite"], d["jing"], d["procedure"])


def _loosed(d: dict[str, Any]) -> Loosed:
    return Loosed(d["arrow"], d["hit"], d["counted"], d.get("struck"), d.get("hou"))


def _members(ms: list[dict[str, Any]]) -> tuple[Member, ...]:
    return tuple(Member(m["name"], m["x"], m["y"], m["facing"]) for m in ms)


def _bout(v: Any) -> Bout | str:
    return v if isinstance(v, str) else Bout(v["勝者"], v["不勝者"])


def _seat_hits(d: dict[str, Any]) -> SeatHits:
    return SeatHits(d["上射"], d["下射"])


def _formed(d: dict[str, list[str]]) -> tuple[Formed, ...]:
    return tuple(Formed(pair, upper, lower) for pair, (upper, lower) in d.items())


def _strings(v: list[str]) -> tuple[str, ...]:
    return tuple(v)


#: the optional fields of a step line: its name in the log → the Step's field, how its value
#: is written and how it is read from the engine's words
_FIELD_OF_KEY: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any], Any]]] = {
    "file": ("source_file", _same, _same),
    "section_of": ("section_of", _same, _same),
    "topic": ("topic", _same, _same),
    "obj": ("obj", _same, _same),
    "count": ("number", _same, _same),
    "note": ("note", _same, _same),
    "assumes": ("assumes", list, _strings),
    "at": ("at", _same, _same),
    "as": ("acting_as", _json_of, _call),
    "shot": ("shot", _json_of, _loosed),
    "to": ("to", _same, _same),
    "side": ("side", _same, _same),
    "measured": ("measured", _same, _same),
    "punished": ("punished", _same, _same),
    "via": ("via", _same, _same),
    "勝": ("bout", _bout_json, _bout),
    "勝者": ("last_winner", _same, _same),
    "獲": ("seat_hits", _json_of, _seat_hits),
    "耦": ("formed", _formed_json, _formed),
    "矢行": ("arrow_flight", _same, _same),
    "name": ("name", _same, _same),
    "members": ("members", _list_json, _members),
}
_FIRST_OPTIONAL = Step._fields.index("source_file")
_FIRST_TIME = Step._fields.index("t")
_OPTIONAL = Step._fields[_FIRST_OPTIONAL : _FIRST_TIME - 1]
#: the time fields' values before the run is scheduled (a Step's tuple ends with them)
_NO_TIME = tuple(Step._field_defaults[f] for f in Step._fields[_FIRST_TIME:])
#: log name → (index in the Step, how it is written)
_LOG_FIELDS = {k: (Step._fields.index(f), out) for k, (f, out, _) in _FIELD_OF_KEY.items()}
assert sorted(f for f, _, _ in _FIELD_OF_KEY.values()) == sorted(_OPTIONAL)
_DEFAULTS = tuple(Step._field_defaults[f] for f in _OPTIONAL)


class Shared:
    """The optional fields of step lines, as the Step's typed values, one tuple for each
    distinct value: of the 515,385 steps of a run with 1,000 衆耦 13,014 differ, and the
    rest share theirs (the lines are read-only). ``shared(fields)`` takes the fields a verb
    and the spec give a line, by their log names in the log's order, and returns the values
    of the Step's optional fields, ``written``, then the time fields as yet empty (the
    schedule fills them), to end a Step's tuple with. Two sets of fields are one value when
    they write the same JSON (``1`` and ``True`` do not).

    >>> shared = Shared()
    >>> a = shared({"file": "x.yaml", "count": 1})
    >>> shared({"file": "x.yaml", "count": 1}) is a, a[-len(_NO_TIME) - 1]
    (True, ('file', 'count'))
    >>> shared({"file": "x.yaml", "count": True})[4]
    True
    """

    __slots__ = ("_orders", "_seen")

    def __init__(self) -> None:
        self._seen: dict[bytes, tuple[Any, ...]] = {}
        self._orders: dict[tuple[str, ...], tuple[str, ...]] = {}

    def __call__(self, fields: Mapping[str, Any]) -> tuple[Any, ...]:
        key = _encode(fields)  # ten times faster than a key of nested tuples
        got = self._seen.get(key)
        if got is None:
            got = self._seen[key] = self._typed(fields, key)
        return got

    def _typed(self, fields: Mapping[str, Any], written: bytes) -> tuple[Any, ...]:
        values = list(_DEFAULTS)
        for k, v in fields.items():
            spec = _FIELD_OF_KEY.get(k)
            if spec is None:
                raise ValueError(f"a step line's field {k!r} that Step has no field for")
            values[_OPTIONAL.index(spec[0])] = spec[2](v)
        order = tuple(fields)
        values.append(self._orders.setdefault(order, order))
        step = Step(
            0, 0, None, "", None, "", "", None, None, None, Holding(), None, None, [], 0,
            Objects(), None, None, None, *values,
        )  # fmt: skip
        if _encode(step.optional_json()) != written:
            raise ValueError(f"a step's fields would not be written as they were: {written!r}")
        return (*values, *_NO_TIME)


class Shot(NamedTuple):
    """One arrow loosed (a ``shot`` line): whether it hit and whether a 筭 is laid for it
    (``counted``, with the passage that says so in ``reason``); ``on_beat`` in the third
    round (None otherwise), ``target`` the 侯 named by the step (the log's ``hou``)."""

    round: int
    pair: str
    archer: str
    person: str
    arrow: int
    hit: bool
    counted: bool
    reason: str
    on_beat: bool | None = None
    target: str | None = None
    seq: int = 0
    struck: str = ""  # the outcome's struck (人, 維綱, 揚觸, 梱復), written only when given

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "type": "shot",
            "round": self.round,
            "pair": self.pair,
            "archer": self.archer,
            "person": self.person,
            "arrow": self.arrow,
            "hit": self.hit,
            "counted": self.counted,
            "reason": self.reason,
        }
        if self.on_beat is not None:
            d["on_beat"] = self.on_beat
        if self.target is not None:
            d["hou"] = self.target
        if self.struck:
            d["struck"] = self.struck
        d["seq"] = self.seq
        return d


#: the side that won a count, or a tie (the tally line's ``winner``)
Winner = Literal["right", "left", "tie"]


class Tally(NamedTuple):
    """One count (a ``tally`` line): the 筭 of each side, the winner and the announcement."""

    round: int
    right: int
    left: int
    winner: Winner
    announcement: str
    seq: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"type": "tally", **self._asdict()}


Record = Scene | Step | Shot | Tally


ResultT = TypeVar("ResultT")
ResultT_co = TypeVar("ResultT_co", covariant=True)


class RunVisitor(Protocol[ResultT_co]):
    """A reader of a run (python-chess's game visitors are the model): ``begin_run`` with the
    scene, then each step, and the shots and tally that follow a step, in the log's order;
    ``end_run``; ``result()`` is what the reader made. See :meth:`sheli.engine.Run.accept`."""

    def begin_run(self, scene: Scene) -> None: ...

    def visit_step(self, step: Step) -> None: ...

    def visit_shot(self, shot: Shot) -> None: ...

    def visit_tally(self, tally: Tally) -> None: ...

    def end_run(self) -> None: ...

    def result(self) -> ResultT_co: ...


class BaseVisitor(Generic[ResultT]):
    """A visitor that does nothing: subclass it, override what you read and ``result``.

    >>> class Verbs(BaseVisitor[set[str]]):
    ...     def __init__(self) -> None:
    ...         self.verbs: set[str] = set()
    ...     def visit_step(self, step: Step) -> None:
    ...         self.verbs.add(step.verb)
    ...     def result(self) -> set[str]:
    ...         return self.verbs
    >>> from sheli.engine import run
    >>> "射" in run("xiangshe").accept(Verbs())
    True
    """

    def begin_run(self, scene: Scene) -> None:
        pass

    def visit_step(self, step: Step) -> None:
        pass

    def visit_shot(self, shot: Shot) -> None:
        pass

    def visit_tally(self, tally: Tally) -> None:
        pass

    def end_run(self) -> None:
        pass

    def result(self) -> ResultT:
        raise NotImplementedError(f"{type(self).__name__} makes no result")


def accept(records: Iterable[Record], visitor: RunVisitor[ResultT]) -> ResultT:
    """Walk ``records`` (a scene, then steps, shots and tallies) with ``visitor``; its result.

    >>> class Count(BaseVisitor[int]):
    ...     n = 0
    ...     def visit_step(self, step: Step) -> None: self.n += 1
    ...     def result(self) -> int: return self.n
    >>> from sheli.engine import run
    >>> run("xiangshe", seed=1).accept(Count()) > 1000
    True
    """
    it = iter(records)
    first = next(it)
    if not isinstance(first, Scene):
        raise ValueError("a run's records begin with its scene")
    visitor.begin_run(first)
    step, shot, tally = visitor.visit_step, visitor.visit_shot, visitor.visit_tally
    for r in it:
        if isinstance(r, Step):
            step(r)
        elif isinstance(r, Shot):
            shot(r)
        elif isinstance(r, Tally):
            tally(r)
    visitor.end_run()
    return visitor.result()


_NUMERALS = "〇一二三四五六七八九十"


def _number_of(text: str) -> int:
    return int(text) if text.isdigit() else _NUMERALS.index(text)


def _split_number(word: str) -> tuple[str, int]:
    """An item's word and its number (``筭八`` → 筭, 8; ``旌`` → 旌, 1)."""
    k = len(word)
    while k > 1 and (word[k - 1].isdigit() or word[k - 1] in _NUMERALS):
        k -= 1
    return (word, 1) if k == len(word) else (word[:k], _number_of(word[k:]))


def holding_of(words: list[str]) -> Holding:
    """The holding that a step line's ``holds`` words tell (what :func:`holds_words` writes
    read back). A second 筭 word, or 筭一, is the 筭 of a count in the left hand
    (``counting``); another one alone is read as an item: the line writes both alike. The
    fill of a cup is known only for the 觶 and the 爵, whose words give it.

    >>> h = holding_of(["張弓", "搢矢三", "挾矢一", "執矢二", "扑"])
    >>> h.bow, h.belt, h.fingers, h.side, h.discipline_rod
    ('張', 3, 1, 2, '執')
    >>> holds_words(holding_of(["觶(實)", "筭八", "筭十"]))
    ['觶(實)', '筭八', '筭十']
    >>> holding_of(["以巾執矢三"]).hand, holding_of(["以巾執矢三"]).count("巾")
    (3, 1)
    """
    bow: str | None = None
    hand = belt = fingers = counting = side = 0
    rod: str | None = None
    full = False
    items: list[tuple[str, int]] = []
    for w in words:
        if w in ("張弓", "弛弓"):
            bow = w[0]
        elif w.startswith("搢矢"):
            belt = _number_of(w[2:])
        elif w.startswith("挾矢"):
            fingers = _number_of(w[2:])
        elif w.startswith("執矢"):
            side = _number_of(w[2:])
        elif w.startswith("矢") and len(w) > 1:
            hand = _number_of(w[1:])
        elif w.startswith(ARROWS_IN_CLOTH):
            hand = _number_of(w[len(ARROWS_IN_CLOTH) :])
            items.append((CLOTH, 1))
        elif w in ("搢扑", "扑"):
            rod = "搢" if w == "搢扑" else "執"
        elif w.endswith(("(實)", "(虛)")):
            items.append((w[:-3], 1))
            full = w.endswith("(實)")
        else:
            name, n = _split_number(w)
            # an item of one is written without its number (筭), a count in hand with it
            if name == "筭" and (w == "筭一" or any(k == "筭" for k, _ in items)):
                counting = n
            else:
                items.append((name, n))
    return Holding(
        bow=bow,
        hand=hand,
        belt=belt,
        fingers=fingers,
        discipline_rod=rod,
        cup_full=full,
        items=tuple(items),
        counting=counting,
        side=side,
    )


def _timed_points(path: list[list[float]] | None) -> tuple[tuple[float, float, float], ...] | None:
    if path is None:
        return None
    return tuple((float(x), float(y), float(t)) for x, y, t in path)


class LogReader:
    """Reads the lines of an event log (docs/event-log.md, parsed) back into typed records:
    what the line gives, typed as the engine types it (a walk's points as floats, ``with`` a
    tuple …). What the line does not give is left empty: the world's objects, the places
    resolved on the plan, the round a step announces; a holding is its words read back
    (:func:`holding_of`). Each record's ``to_json()`` is its line again.

    >>> from sheli.engine import run
    >>> records = run("xiangshe", seed=1).records
    >>> read = LogReader().read([r.to_json() for r in records])
    >>> [r.to_json() for r in read] == [r.to_json() for r in records]
    True
    >>> read[5].path == records[5].path, read[5].joined_with == records[5].joined_with
    (True, True)
    """

    def __init__(self) -> None:
        self._shared = Shared()  # the optional fields typed, once for each value

    def read(self, lines: Iterable[Mapping[str, Any]]) -> list[Record]:
        return [self.record(d) for d in lines]

    def record(self, d: Mapping[str, Any]) -> Record:
        """The record of one line."""
        kind = d["type"]
        rest = {k: v for k, v in d.items() if k != "type"}
        if kind == "step":
            return self.step(d)
        if kind == "scene":
            return Scene(**rest)
        if kind == "tally":
            return Tally(**rest)
        if kind == "shot":
            target, struck = rest.pop("hou", None), rest.pop("struck", "")
            return Shot(**rest, target=target, struck=struck)
        raise ValueError(f"a log line of type {kind!r}: not scene, step, shot or tally")

    def step(self, d: Mapping[str, Any]) -> Step:
        optional = self._shared({k: v for k, v in d.items() if k in _FIELD_OF_KEY})
        with_ = d.get("with")
        return _new_step(
            (
                d["seq"], d["round"], d["section"], d["cite"], d["jing"], d["actor"], d["verb"],
                d["x"], d["y"], d["facing"], holding_of(d["holds"]), d["says"], d["place"],
                d["dress"], d["line"], Objects(), None, None, None,
                *optional[: -len(_NO_TIME)],
                d.get("t"), d.get("dur"), _timed_points(d.get("path")),
                tuple(with_) if with_ else (), d.get("moment"),
            )
        )  # fmt: skip

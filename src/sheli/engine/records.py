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
...          None, "門外", ("襲",), 4, {}, Objects())
>>> s.to_json()["holds"], s.to_json()["line"]
([], 4)
>>> Tally(2, 19, 14, "right", "右賢於左二純一奇", seq=9).to_json()["announcement"]
'右賢於左二純一奇'
"""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each field's
# annotation given as a string (Scene, Step, Shot and Tally: many small compiles at every
# start of the engine; see docs/benchmarks.md, "Start-up").

from collections.abc import Mapping
from typing import Any, NamedTuple, Protocol

import msgspec

from sheli.engine.state import Holding, Objects, holds_words

__all__ = ["Record", "RunVisitor", "Scene", "Shared", "Shot", "Step", "Tally"]

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


class Step(NamedTuple):
    """One act of one person (a ``step`` line).

    The fixed fields are those of every step line; ``more`` holds the optional ones the step
    has, in the log's order (``file``, ``obj``, ``count``, ``note``, ``assumes``, ``at``,
    ``as``, what the verb adds — ``shot``, ``to``, ``side`` … — and ``name``). ``holding``
    (the actor's) and ``objects`` (the world's) are the state after the act, as numbers;
    ``at_point`` and ``via_point`` the places the line names in words, as the run resolved
    them on its plan (None where it did not).
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
    more: Mapping[str, Any]  # read-only: shared by the lines of one act
    objects: Objects
    at_point: tuple[float, float] | None = None  # ``at`` resolved on the plan, where it is
    via_point: tuple[float, float] | None = None  # ``via`` resolved on the plan

    @property
    def holds(self) -> list[str]:
        """What the actor holds, in the text's words (``搢矢三``): made from ``holding``."""
        return holds_words(self.holding)

    def get(self, key: str, default: Any = None) -> Any:
        """An optional field of the line (``obj``, ``note``, ``at`` …), or ``default``."""
        return self.more.get(key, default)

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
        if self.more:
            d.update(self.more)
        return d

    def json_line(self, tails: dict[int, tuple[Mapping[str, Any], bytes | None]]) -> bytes:
        """The line of :meth:`to_json` in the log, its newline included: the JSON of the
        same bytes, made without its dict: the fixed fields encoded as a struct, then the
        optional ones, whose JSON is made once for each ``more`` (``tails``, kept by the
        caller for one log: the lines of an act share their ``more``). A ``more`` that names
        a fixed field goes the dict's way.

        >>> from sheli.engine.state import Holding, Objects
        >>> s = Step(1, 0, 1, "xiangshe:1", None, "主人", "適", 0.0, 1.0, "南", Holding(),
        ...          None, "門外", ["襲"], 4, {"obj": "觶"}, Objects())
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
        more = self.more
        if not more:
            return head + b"\n"
        tail = tails.get(id(more))
        if tail is None or tail[0] is not more:
            # keyed by identity, the entry holding the dict: its id is not reused
            own = _STEP_FIELDS.isdisjoint(more)
            tail = tails[id(more)] = (more, b"," + _encode(more)[1:] + b"\n" if own else None)
        if tail[1] is None:
            return _encode(self.to_json()) + b"\n"
        return head[:-1] + tail[1]


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


_STEP_FIELDS = frozenset(_StepHead.__struct_fields__)


class Shared:
    """The optional fields of step lines (``Step.more``), one dict for each distinct value:
    of the 515,385 steps of a run with 1,000 衆耦 13,014 differ, and the rest are
    kept once, not once per step (the lines are read-only). Two dicts are one value when
    they write the same JSON (``1`` and ``True`` do not), which is all a line is.

    >>> shared = Shared()
    >>> a = shared({"file": "x.yaml", "count": 1})
    >>> shared({"file": "x.yaml", "count": 1}) is a, shared({"file": "x.yaml", "count": True})
    (True, {'file': 'x.yaml', 'count': True})
    """

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[bytes, dict[str, Any]] = {}

    def __call__(self, more: dict[str, Any]) -> dict[str, Any]:
        try:
            key = _encode(more)  # ten times faster than a key of nested tuples
        except TypeError:
            return more  # a value that is no JSON: kept as it is
        return self._seen.setdefault(key, more)


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


class Tally(NamedTuple):
    """One count (a ``tally`` line): the 筭 of each side, the winner and the announcement."""

    round: int
    right: int
    left: int
    winner: str  # right, left or tie
    announcement: str
    seq: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"type": "tally", **self._asdict()}


Record = Scene | Step | Shot | Tally


class RunVisitor(Protocol):
    """A reader of a run (python-chess's game visitors are the model): ``begin_run`` with the
    scene, then each step, and the shots and tally that follow a step, in the log's order;
    ``end_run``; ``result()`` is what the reader made. See :meth:`sheli.engine.Run.accept`."""

    def begin_run(self, scene: Scene) -> None: ...

    def visit_step(self, step: Step) -> None: ...

    def visit_shot(self, shot: Shot) -> None: ...

    def visit_tally(self, tally: Tally) -> None: ...

    def end_run(self) -> None: ...

    def result(self) -> Any: ...


class BaseVisitor:
    """A visitor that does nothing: subclass it and override what you read."""

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

    def result(self) -> Any:
        return None


def accept(records: list[Any], visitor: Any) -> Any:
    """Walk ``records`` (a scene, then steps, shots and tallies) with ``visitor``; its result.

    >>> class Count(BaseVisitor):
    ...     n = 0
    ...     def visit_step(self, step): self.n += 1
    ...     def result(self): return self.n
    >>> from sheli.engine import run
    >>> run("xiangshe", seed=1).accept(Count()) > 1000
    True
    """
    it = iter(records)
    visitor.begin_run(next(it))
    step, shot, tally = visitor.visit_step, visitor.visit_shot, visitor.visit_tally
    for r in it:
        t = type(r)
        if t is Step:
            step(r)
        elif t is Shot:
            shot(r)
        else:
            tally(r)
    visitor.end_run()
    return visitor.result()

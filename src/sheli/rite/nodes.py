"""A validated spec as plain objects: what :func:`sheli.rite.load_spec` gives and the cache keeps.

The schema (:mod:`sheli.rite.schema`) validates a spec with pydantic; what the engine then
reads is these objects, one class for each of the schema's models, the same names and the
same attributes (a field's Python name: ``if_``, ``else_``, ``from_``, ``with_`` …), built
from the validated models by :func:`from_models`. They are plain so that a spec from the
disk cache is unpickled, and run, without importing pydantic (see docs/benchmarks.md,
"Start-up"). Treat them as read-only, like the models.

Each class here is the schema's model too, for ``isinstance``: the schema registers its
models with them (``isinstance(model, nodes.ActStep)`` holds), so the engine reads a spec
built from the models (a test's, a stand-in's) as it reads one from the cache.

>>> from sheli.rite import load_spec
>>> step = load_spec("xiangshe").spec.steps[0]
>>> isinstance(step, Node), type(step).__name__ in __all__
(True, True)
>>> c = Condition(guests_shoot=True)
>>> c.guests_shoot, c.venue, c == Condition(guests_shoot=True)
(True, None, True)
"""

from __future__ import annotations

from abc import ABCMeta
from typing import TYPE_CHECKING, Any

__all__ = [
    "Act",
    "ActStep",
    "Assumption",
    "CallStep",
    "CastEntry",
    "Condition",
    "ForEachStep",
    "IfStep",
    "ObjectEntry",
    "PairDecl",
    "Params",
    "Procedure",
    "Reading",
    "RoundStep",
    "Rule",
    "Spec",
    "TimeLink",
    "Uncovered",
    "from_models",
]


class Node(metaclass=ABCMeta):  # an ABC for register(), not for abstract methods
    """A mapping of a spec: its fields as attributes (a field not given reads its class
    default, where the class has one)."""

    # every mapping has these (set by the loader); the annotations below, without a value,
    # only tell a type checker what a field holds: a field without a class default stays one
    line: int
    file: str | None

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        return _given(self) == _given(other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the models

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in _given(self).items())
        return f"{type(self).__name__}({inner})"

    def __getstate__(self) -> dict[str, Any]:
        # what is worked out from the fields is worked out again; a field that is its class's
        # default (None, False) is left out (most of a spec's fields are None: a cached spec
        # unpickles a third faster without them) and reads the default back
        return _given(self)

    def model_copy(self, update: dict[str, Any] | None = None) -> Any:
        """A copy with some fields changed (the models' ``model_copy(update=…)``).

        >>> Condition(venue="xie").model_copy(update={"venue": "xiang"}).venue
        'xiang'
        """
        new = object.__new__(type(self))
        new.__dict__.update(_fields(self))
        new.__dict__.update(update or {})
        return new


def _fields(node: Node) -> dict[str, Any]:
    return {k: v for k, v in node.__dict__.items() if not k.startswith("_")}


_NO = object()


def _given(node: Node) -> dict[str, Any]:
    """Its fields but those that are their class's default itself (None, False: the class
    defaults are none of them mutable).

    >>> _given(Condition(venue="xie", hit=None))
    {'venue': 'xie'}
    """
    cls = type(node)
    return {
        k: v
        for k, v in node.__dict__.items()
        if not k.startswith("_") and getattr(cls, k, _NO) is not v
    }


#: a place: a fixture or person named as the text names it, or a relation {southwest_of: 中}
PlaceRef = str | dict[str, Any]


class Assumption(Node):
    id: str
    text: str
    reason: str
    file = None


class Rule(Node):
    cite: str
    enforced_by: str | list[str]
    file = jing = note = None


class Uncovered(Node):
    cite: str
    reason: str
    file = jing = None


class Reading(Node):
    id: str
    group: str
    text: str
    sources: list[str]
    default: bool
    file = venue = note = None


class CastEntry(Node):
    role: str
    dress: list[str]
    holds: list[str]
    file = name = at = facing = note = None


class ObjectEntry(Node):
    obj: str
    at: str | dict[str, Any]
    count: int | str
    file = state = note = None


class Condition(Node):
    # every key of a condition is optional; the engine makes some itself (the default pairs)
    line = 0
    file = None
    venue = guests_shoot = option = reading = arrows_short = winner = no_hits = None
    loser_is = has_dafu = last_pair = next_pair = hit = counted = struck = fault = None
    bout_tie = round = last = first = bound = all = any = not_ = None


class PairDecl(Node):
    name: str
    kind: str
    upper: str
    lower: str
    line = 0
    file = None
    upper_role = "上射"
    lower_role = "下射"
    repeat = None
    when = None


class Params(Node):
    venue: str  # always given (annotations only: no class default)
    options: dict[str, Any]
    file = None

    def values(self) -> dict[str, Any]:
        """The parameters as a new dict (``options`` a copy), without the line and file.

        >>> Params(venue="xie", pairs=0, options={"feast": True}, line=3).values()
        {'venue': 'xie', 'pairs': 0, 'options': {'feast': True}}
        """
        out = {k: v for k, v in _fields(self).items() if k not in ("line", "file")}
        out["options"] = _copy(self.__dict__.get("options", {}))
        return out


#: the fields of an act (the schema's ``_ActFields``, ``line`` and ``file`` with them): an
#: inline step's act is made of its step's
ACT_FIELDS = (
    "line",
    "file",
    "actor",
    "verb",
    "to",
    "at",
    "from_",
    "via",
    "by",
    "obj",
    "count",
    "state",
    "side",
    "facing",
    "says",
    "sets_position",
    "jin_jie",
    "row",
    "assumes",
    "note",
    "alongside",
    "joint",
    "after",
)


class TimeLink(Node):
    cite: str
    verb: str
    behind: int = 0
    cuts: bool = False
    file = None


class _ActFields:
    """The optional fields an act and an inline step share, with their class defaults, each
    typed (a chained ``= None`` would type them all None). A mixin, not a node: the node
    classes are ``Node``'s direct subclasses (``_CLASSES``)."""

    assumes: list[str]
    sets_position: bool = False
    jin_jie: bool = False
    file: str | None = None
    to: PlaceRef | None = None
    at: PlaceRef | None = None
    from_: PlaceRef | None = None
    via: PlaceRef | list[PlaceRef] | None = None
    by: str | None = None
    obj: str | None = None
    count: int | str | None = None
    state: str | None = None
    side: str | None = None
    facing: str | None = None
    says: str | None = None
    row: str | None = None
    note: str | None = None
    alongside: TimeLink | None = None
    joint: TimeLink | None = None
    after: list[TimeLink] | None = None


class Act(Node, _ActFields):
    actor: str  # always given (annotations only: no class default)
    verb: str


class ActStep(Node, _ActFields):
    actor: str | None = None
    verb: str | None = None
    cite: str | None = None
    jing: str | None = None
    do: list[Act] | None = None

    def acts(self) -> list[Act]:
        """The acts of this step, inline or under ``do`` (the inline one made once)."""
        if self.do is not None:
            return self.do
        got = self.__dict__.get("_acts")
        if got is None:
            got = self.__dict__["_acts"] = [Act(**{k: getattr(self, k) for k in ACT_FIELDS})]
        return got


class IfStep(Node):
    if_: Condition
    then: list[Step]
    else_: list[Step]
    file = cite = jing = None


class ForEachStep(Node):
    for_each: str
    in_: str | list[Any]
    do: list[Step]
    file = cite = jing = None


class CallStep(Node):
    call: str
    with_: dict[str, Any]
    file = cite = jing = None


class RoundStep(Node):
    round: int
    file = cite = jing = None


class Procedure(Node):
    params: list[str]
    steps: list[Step]
    file = cite = jing = note = None


class Spec(Node):
    params: Params  # always given (annotation only: no class default)
    rite: str
    chapter: str
    aliases: list[str]
    scope: list[tuple[int, int]]
    assumptions: list[Assumption]
    readings: list[Reading]
    rules: list[Rule]
    uncovered: list[Uncovered]
    cast: list[CastEntry]
    objects: list[ObjectEntry]
    procedures: dict[str, Procedure]
    steps: list[Step]
    # the optional fields that are not lists or mappings (a spec made by the engine itself)
    line = 0
    file = None
    title = extends = pairs = venues_source = None
    excerpt = False
    venues: tuple[str, ...] = ()  # held anywhere


if TYPE_CHECKING:
    # a step of a spec, one of these (the schema's ``Step``); for the type checker only: a
    # module-level Step here would be the name pydantic finds for the schema's own Step when
    # a model is first built from code run in this module's namespace (its doctests)
    Step = ActStep | IfStep | ForEachStep | CallStep | RoundStep

_CLASSES = {c.__name__: c for c in Node.__subclasses__()}


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def from_models(value: Any) -> Any:
    """``value`` with every pydantic model of the schema in it made the node of its name (its
    fields' values converted likewise; lists, dicts and tuples copied).

    >>> from sheli.rite import validate_spec
    >>> spec = from_models(validate_spec({"rite": "-", "chapter": "xiangshe",
    ...                                   "params": {"pairs": 2}}, "-"))
    >>> type(spec).__name__, type(spec.params) is Params, spec.params.pairs, spec.steps
    ('Spec', True, 2, [])
    """
    fields = getattr(type(value), "model_fields", None)
    if fields is not None:
        node = object.__new__(_CLASSES[type(value).__name__])
        node.__dict__.update({k: from_models(getattr(value, k)) for k in fields})
        return node
    if isinstance(value, list):
        return [from_models(v) for v in value]
    if isinstance(value, dict):
        return {k: from_models(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(from_models(v) for v in value)
    return value

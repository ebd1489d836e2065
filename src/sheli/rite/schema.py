"""The rite spec schema: pydantic models a scholar can read beside docs/rite-spec.md.

A spec is YAML; :func:`sheli.rite.load_spec` reads it with the line of every mapping kept
(``__line__``) and validates it against :class:`Spec`. Unknown fields are errors, so a typo
(``acter:``) is reported with its line rather than silently ignored.

>>> spec = Spec.model_validate({"rite": "demo", "chapter": "xiangshe", "steps": [
...     {"cite": "xiangshe:127", "jing": "司射先立于所設中之西南東面",
...      "actor": "司射", "verb": "立", "at": {"southwest_of": "中"}, "facing": "E"}]})
>>> spec.steps[0].verb
'立'
"""

from __future__ import annotations

import copy
from abc import ABCMeta
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    field_validator,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from sheli.rite import nodes

Facing = Literal["N", "S", "E", "W", "NE", "NW", "SE", "SW"]
# A place: a fixture or person named as the text names it, or a relation {southwest_of: 中}.
PlaceRef = str | dict[str, Any]


class _Model(BaseModel):
    # defer_build: a model's validator is built when it first validates, not at import (all
    # of them took a fifth of a second; a spec from the cache is unpickled, never validated)
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=False, defer_build=True)
    # The line of this mapping in the spec file (set by the loader, never written by hand).
    line: SkipJsonSchema[int] = Field(default=0, alias="__line__")
    # The part file it came from when not the spec file itself (include:, extends:).
    file: SkipJsonSchema[str | None] = Field(default=None, alias="__file__")


class Assumption(_Model):
    """Something the text does not say, stated once; acts that rest on it cite its id."""

    id: str
    text: str
    reason: str


class Rule(_Model):
    """A 記 line that governs the rite as a rule rather than as a step (for ``sheli coverage``)."""

    cite: str = Field(description="a passage id, or a range xiangshe:372-377")
    jing: str | None = None
    enforced_by: str | list[str] = Field(description="the engine check or steps that carry it")
    note: str | None = None


class Uncovered(_Model):
    """A passage in scope that the spec does not enact, with the reason why."""

    cite: str = Field(description="a passage id, or a range xiangshe:372-377")
    jing: str | None = None
    reason: str


class Reading(_Model):
    """One way of reading the text where the commentators differ in a way that changes the
    performance. Readings of one ``group`` are alternatives: the one marked ``default`` runs
    unless ``--reading ID`` chooses another; steps under ``if: {reading: ID}`` follow it."""

    id: str
    group: str = Field(description="the question the readings answer differently")
    text: str = Field(description="what the performance does under this reading")
    sources: list[str] = Field(description="passage ids with 注/疏, or editions: 集釋, 義疏 …")
    default: bool = False
    venue: str | None = Field(
        default=None,
        description="the venue whose plan this reading needs (a run on another is refused)",
    )
    note: str | None = None


class PairDecl(_Model):
    """A pair (耦) of the run, or a repeated kind of pair: ``{name: 衆耦{i}, repeat: pairs}``.

    In names, ``{i}`` is the number (1, 2 …); ``{k}`` is the number only when ``repeat`` gives
    more than one (大夫{k}: 大夫 alone, or 大夫1, 大夫2 …).
    """

    name: str
    kind: str = Field(description="the group the pair belongs to: 三耦, 賓耦, 大夫耦, 衆耦 …")
    upper: str = Field(description="the 上射's name")
    lower: str = Field(description="the 下射's name")
    upper_role: str = "上射"
    lower_role: str = "下射"
    repeat: int | str | None = Field(
        default=None, description="how many: a number or a parameter (dafu, pairs) or a sum"
    )
    when: Condition | None = Field(
        default=None,
        description="only when this holds of the run's parameters (guests_shoot, option …)",
    )


class Params(_Model):
    """Defaults for a run; the CLI and :func:`sheli.engine.run` override them."""

    venue: str = Field(default="xie", description="a venue key of the place layer (xie, xiang …)")
    guests_shoot: bool = True
    pairs: int = Field(default=0, ge=0)
    arrows_short: bool = False
    dafu: int = Field(default=1, ge=0, description="大夫 who shoot (each with a 衆賓 as 耦)")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="further choices of the rite, tested by if: {option: {name: value}}",
    )

    def values(self) -> dict[str, Any]:
        """The parameters as a new dict (``options`` a copy), without the line and file:
        what ``model_dump()`` gives, without building the model's serializer.

        >>> Params(pairs=2, options={"feast": True}).values()["pairs"]
        2
        >>> sorted(Params().values())
        ['arrows_short', 'dafu', 'guests_shoot', 'options', 'pairs', 'venue']
        """
        out = {k: getattr(self, k) for k in type(self).model_fields if k not in ("line", "file")}
        out["options"] = copy.deepcopy(self.options)
        return out

    @field_validator("options", mode="before")
    @classmethod
    def _no_line(cls, v: Any) -> Any:
        # the loader marks every mapping with its line; an option is never called __line__
        if isinstance(v, dict):
            return {k: x for k, x in v.items() if k not in ("__line__", "__file__")}
        return v


class CastEntry(_Model):
    """A role present at the start of the archery, with its place, dress and holdings."""

    role: str
    name: str | None = None
    at: PlaceRef | None = None
    facing: Facing | None = None
    dress: list[str] = Field(default_factory=list, description="袒, 決遂")
    holds: list[str] = Field(default_factory=list, description="弓, 矢:4, 扑, 旌 …")
    note: str | None = None


class ObjectEntry(_Model):
    """An object in place at the start: ``{obj: 扑, at: 西階之西}``."""

    obj: str
    at: PlaceRef
    count: int | str = Field(
        default=1,
        description="a number, or a sum over the run: archers, pairs (衆耦), dafu, e.g. "
        "'archers + 4'",
    )
    state: str | None = None
    note: str | None = None


class Condition(_Model):
    """The text's 若 / 則. All given keys must hold; ``all``/``any``/``not`` combine."""

    venue: str | None = None
    guests_shoot: bool | None = None
    option: dict[str, Any] | None = Field(default=None, description="{name: value}: run options")
    reading: str | None = Field(
        default=None, description="the reading (readings:) chosen for the run"
    )
    arrows_short: bool | None = None
    winner: Literal["right", "left", "tie"] | None = None
    no_hits: bool | None = Field(
        default=None, description="the last 數獲 found no hit on either side"
    )
    loser_is: Literal["賓", "主人", "大夫", "大夫之耦", "士"] | None = None
    has_dafu: bool | None = None
    last_pair: bool | None = Field(
        default=None,
        description="every pair of 射耦 but one has shot its 乘矢 this round: the next to "
        "shoot is the last (箭籌八十, 注 xiangshe:378 略以十耦爲正)",
    )
    next_pair: bool | None = Field(
        default=None,
        description="another pair goes up the 西階 after the bound {耦} in the part under way: "
        "while the round's shooting lasts, a pair of 射耦 yet to shoot; once its 數獲 is done, "
        "a later pair whose 不勝者 goes up to drink (xiangshe:213, 219); none after the last "
        "(敖繼公, 義疏: 下耦無與升射者相左相揖之事)",
    )
    hit: bool | None = None
    counted: bool | None = None
    struck: Literal["人", "維綱", "揚觸", "梱復", ""] | None = Field(
        default=None,
        description="the last arrow struck this (its outcome's struck; '' for nothing)",
    )
    fault: Literal["上射", "下射"] | None = Field(
        default=None,
        description="the bound pair {耦}'s 上射/下射 struck a person this round (a 過, 注 "
        "xiangshe:350) and has not been 撻'd",
    )
    bout_tie: bool | None = Field(
        default=None, description="主皮之射: the last bout (verb 勝) was 鈞, neither had more 獲"
    )
    round: int | None = None
    last: str | None = Field(default=None, description="the named loop is at its last item")
    first: str | None = Field(default=None, description="the named loop is at its first item")
    bound: dict[str, Any] | None = Field(
        default=None, description="{耦: 上耦}: a binding has this value"
    )
    all: list[Condition] | None = None
    any: list[Condition] | None = None
    not_: Condition | None = Field(default=None, alias="not")


class TimeLink(_Model):
    """An act of the run named by its passage and verb: the latest such act of another
    person before this one, in the same round (docs/rite-spec.md, *Time*)."""

    cite: str = Field(description="the passage id of the other act (xiangshe:152)")
    verb: str = Field(description="its verb (降)")
    behind: int = Field(
        default=0,
        ge=0,
        description=(
            "with `alongside`: this act starts so many 等 (steps of a 階) after that act, "
            "at the table's seconds for one 等 (下射從之中等: 2, one 等 left between them)"
        ),
    )
    cuts: bool = Field(
        default=False,
        description=(
            "with `joint`: that act stops as this one ends (賓進辭洗 interrupts the 洗), and its "
            "doer's next act of the same verb does the rest (卒洗)"
        ),
    )


class _ActFields(_Model):
    """The fields of an act: written inline in a step, or each item of its ``do:``."""

    actor: str | None = None
    verb: str | None = None
    to: PlaceRef | None = None
    at: PlaceRef | None = None
    from_: PlaceRef | None = Field(default=None, alias="from")
    via: PlaceRef | list[PlaceRef] | None = None
    by: str | None = None
    obj: str | None = None
    count: int | str | None = None
    state: str | None = Field(default=None, description="弓: 張 or 弛; 觶: 實 or 虛")
    side: Literal["右", "左"] | None = None
    facing: Facing | None = None
    says: str | None = None
    sets_position: bool = False
    jin_jie: bool = Field(
        default=False,
        alias="盡階",
        description="升 only: up the 階 to its top step, not onto the 堂 (盡階不升堂 xiangshe:190)",
    )
    row: Literal["北上", "東上", "西上", "南上"] | None = Field(
        default=None,
        description=(
            "a group stands in a row whose head is at `to`/`at`: each joins it behind those "
            "already standing in it (繼…而立), in the group's order"
        ),
    )
    assumes: list[str] = Field(default_factory=list)
    note: str | None = None
    alongside: TimeLink | None = Field(
        default=None,
        description=(
            "the text runs this act alongside another: it starts with that act (the latest "
            "of its passage and verb, in this round, none of this act's people having acted "
            "since), not after the act before it; those after it follow it"
        ),
    )
    joint: TimeLink | None = Field(
        default=None,
        description=(
            "this act is done together with that act of another party (相左, 交, 相揖): both "
            "start at once, and each names the other in the log's `with`"
        ),
    )
    after: list[TimeLink] | None = Field(
        default=None,
        description=(
            "the text has this act wait for those (each the latest of its passage and verb, in "
            "this round, by others): it starts no sooner than they end (興執而俟: the next pair "
            "shoots once the 釋獲者 has refilled the 中 and risen, xiangshe:187)"
        ),
    )


class Act(_ActFields):
    """One act of one actor (or of a group, each in turn)."""

    actor: str
    verb: str


class ActStep(_ActFields):
    """A piece of 經 and the act (or acts, under ``do``) that enact it."""

    cite: str | None = None
    jing: str | None = None
    # a single act written inline (the fields of _ActFields), or several acts sharing the cite
    do: list[Act] | None = None

    @model_validator(mode="after")
    def _one_or_many(self) -> ActStep:
        inline = self.actor is not None or self.verb is not None
        if inline and self.do is not None:
            raise ValueError("give either actor/verb or do:, not both")
        if not inline and self.do is None:
            raise ValueError("a step needs actor and verb (or do: [acts])")
        if inline and (self.actor is None or self.verb is None):
            raise ValueError("a step needs both actor and verb")
        return self

    _acts: list[Act] | None = PrivateAttr(None)

    def acts(self) -> list[Act]:
        """The acts of this step, inline or under ``do`` (built once)."""
        if self.do is not None:
            return self.do
        if self._acts is None:
            # the fields were validated as this step's: constructed, not validated again (a
            # spec from the cache then never needs the models' validators, built on first use)
            fields = {k: getattr(self, k) for k in Act.model_fields}
            act = Act.model_construct(**fields)
            self._acts = [act]
        return self._acts


class IfStep(_Model):
    """The text's 若: ``if: {venue: xie}``, then ``then:`` and optionally ``else:``."""

    if_: Condition = Field(alias="if")
    cite: str | None = None
    jing: str | None = None
    then: list[Step] = Field(default_factory=list)
    else_: list[Step] = Field(default_factory=list, alias="else")


class ForEachStep(_Model):
    """Steps repeated over pairs (三耦, 衆耦) or over the arrows of 拾發."""

    for_each: str
    in_: str | list[Any] = Field(alias="in")
    cite: str | None = None
    jing: str | None = None
    do: list[Step]


class CallStep(_Model):
    """A procedure call: the text's 如初 / 亦如之 / 皆如三耦."""

    call: str
    with_: dict[str, Any] = Field(default_factory=dict, alias="with")
    cite: str | None = None
    jing: str | None = None


class RoundStep(_Model):
    """``round: 2``: the following steps belong to that round (0 outside the three rounds)."""

    round: int = Field(ge=0, le=3)
    cite: str | None = None
    jing: str | None = None


def step_kind(v: Any) -> str:
    """Which kind of step a mapping (or model) is, by its keys."""
    if isinstance(v, dict):
        for key in ("if", "for_each", "call"):
            if key in v:
                return key
        if "round" in v and "verb" not in v:
            return "round"
        return "act"
    kinds: dict[type, str] = {
        IfStep: "if",
        ForEachStep: "for_each",
        CallStep: "call",
        RoundStep: "round",
    }
    return kinds.get(type(v), "act")


Step = Annotated[
    Annotated[ActStep, Tag("act")]
    | Annotated[IfStep, Tag("if")]
    | Annotated[ForEachStep, Tag("for_each")]
    | Annotated[CallStep, Tag("call")]
    | Annotated[RoundStep, Tag("round")],
    Discriminator(step_kind),
]


class Procedure(_Model):
    """A named, reusable run of steps with parameters bound by ``call ... with``."""

    params: list[str] = Field(default_factory=list)
    cite: str | None = None
    jing: str | None = None
    note: str | None = None
    steps: list[Step]


class Spec(_Model):
    """A whole rite spec (see docs/rite-spec.md)."""

    rite: str
    title: str | None = None
    aliases: list[str] = Field(default_factory=list)
    chapter: str
    extends: str | None = Field(default=None, description="the rite this one is a variant of")
    excerpt: bool = Field(
        default=False,
        description="a schematic excerpt (tests): the world rules of place and of the rite's "
        "end are not applied (docs/world-rules.md)",
    )
    scope: list[tuple[int, int]] = Field(default_factory=list)
    params: Params = Field(default_factory=Params)
    venues: tuple[str, ...] = Field(
        default=(),
        description="the venues the rite is held in (keys of the place layer), as "
        "venues_source says; a run asked for another is refused. Empty: any venue",
    )
    venues_source: str | None = Field(
        default=None, description="the text that says where it is held"
    )
    pairs: list[PairDecl] | None = Field(
        default=None,
        description="the pairs of the run; absent: 鄉射禮's (三耦, 賓耦, 大夫耦, 衆耦)",
    )
    assumptions: list[Assumption] = Field(default_factory=list)
    readings: list[Reading] = Field(default_factory=list)
    rules: list[Rule] = Field(default_factory=list)
    uncovered: list[Uncovered] = Field(default_factory=list)
    cast: list[CastEntry] = Field(default_factory=list)
    objects: list[ObjectEntry] = Field(default_factory=list)
    procedures: dict[str, Procedure] = Field(default_factory=dict)
    steps: list[Step] = Field(default_factory=list)

    @field_validator("procedures", mode="before")
    @classmethod
    def _bare_list(cls, v: Any) -> Any:
        # A procedure may be written as a bare list of steps (no params).
        if isinstance(v, dict):
            return {
                k: ({"steps": p} if isinstance(p, list) else p)
                for k, p in v.items()
                if k != "__line__"
            }
        return v


# the engine reads a spec as nodes (sheli.rite.nodes); a spec built from these models (a
# test's, a stand-in's) is read the same: each model is its node class's, for isinstance
for _name in nodes.__all__:
    _node = getattr(nodes, _name)
    if isinstance(_node, ABCMeta):
        _node.register(globals()[_name])

# (no model_rebuild here: with defer_build, each model resolves its forward references and
# builds its validator the first time it validates, which a spec from the cache never does)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a spec (written to docs/rite-spec.schema.json by the tests)."""
    return Spec.model_json_schema(by_alias=True)

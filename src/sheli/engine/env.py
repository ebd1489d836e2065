"""The run's environment and what the verbs and the interpreter share below them.

:class:`Env` is where the lower layers come in: the text (passages, 賈疏 sections, variant
folding), the place (fixtures and relations) and the rite's rules (release, announcement,
count). :class:`Pt` is a place resolved on the plan, :class:`VerbError` a failed
precondition, :func:`count_of` a count given as a sum over the run's names.

>>> count_of("archers + 4", {"archers": 10})
14
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from typing import Any

import msgspec

from sheli.engine.state import World
from sheli.errors import SheliError
from sheli.place.model import Venue
from sheli.rite.loader import LINE_KEY
from sheli.text import get_passage, load_chapter


class VerbError(SheliError):
    """A precondition of a verb does not hold (the message cites the passage)."""


class _NoPlace(VerbError):
    """A place the venue does not know; its message (the venue's, with the names near it) is
    made only when it is shown: a caller that catches it (a word that is not a place, 中西)
    pays nothing."""

    def __init__(self, env: Env, ref: Any, exc: Exception) -> None:
        super().__init__()
        self.why: tuple[Env, Any, Exception] = (env, ref, exc)
        self.msg: str | None = None

    def __str__(self) -> str:
        if self.msg is None:
            env, ref, exc = self.why
            self.msg = f"unknown place {env.words_of(ref)!r}: {exc}"
        return self.msg

    def __reduce__(self) -> tuple[Any, ...]:
        return (VerbError, (str(self),))


class Pt(msgspec.Struct):
    """A resolved place: coordinates (尺), the text's words, whether on the 堂, fixture key."""

    x: float | None
    y: float | None
    desc: str
    on_tang: bool | None
    key: str | None = None  # the fixture name when the place is one (上物, 楅 …)


_RELATION_WORDS = {
    "southwest_of": "之西南",
    "southeast_of": "之東南",
    "northwest_of": "之西北",
    "northeast_of": "之東北",
    "south_of": "之南",
    "north_of": "之北",
    "east_of": "之東",
    "west_of": "之西",
    "foot_of": "下",
    "top_of": "上",
    "top_step_of": "盡階",
}
_TEMPLATE = re.compile(r"\{([^{}]+)\}")
_PARTS: dict[str, list[tuple[str, str | None]]] = {}


def _split_template(s: str) -> list[tuple[str, str | None]]:
    """``"{耦}上射"`` → ``[("", "耦"), ("上射", None)]``: parsed once, filled many times."""
    parts: list[tuple[str, str | None]] = []
    pos = 0
    for m in _TEMPLATE.finditer(s):
        parts.append((s[pos : m.start()], m.group(1)))
        pos = m.end()
    parts.append((s[pos:], None))
    return parts


class PassageInfo(msgspec.Struct, dict=True):
    text: str
    section: int | None
    kind: str = "經"


class Env(msgspec.Struct, dict=True):
    """The lower layers, as the engine uses them.

    - ``passage(cite) -> PassageInfo | None``; ``fold(s)``; ``section_topic(n)``;
    - ``venue``: an object with ``resolve(ref, people=...)``, ``on_tang(p)``, ``point(name)``;
    - ``outcome(round, pair, archer, arrow) -> (hit, on_beat)``; ``detail`` (optional): the
      same key to the whole recorded ``Outcome`` or None (its ``struck`` changes the run);
    - ``release``, ``side_of``, ``announce``, ``count_procedure`` from :mod:`sheli.scoring.rules`.
    """

    passage: Callable[[str], PassageInfo | None]
    fold: Callable[[str], str]
    section_topic: Callable[[int], str]
    venue: Any
    outcome: Callable[[int, str, str, int], tuple[bool, bool | None]]
    release: Callable[[int, bool, bool | None], tuple[bool, str]]
    side_of: Callable[[str], str]
    announce: Callable[[int, int], str]
    count_procedure: Callable[[int, str], list[Any]]
    venue_name: str = "xie"
    detail: Callable[[int, str, str, int], Any] | None = None
    # where a person's body stands (the run's :class:`sheli.engine.bodies.Bodies`), for places
    # named from him (大夫之西 dashe:166): his body, not his point, if the rows moved it
    body_of: Callable[[Any], tuple[float | None, float | None]] | None = None
    # places resolved, by reference: (point, or None if it depends on a person; fixtures named)
    _cache: dict[Any, tuple[Pt | None, list[str]]] = msgspec.field(default_factory=dict)
    # references the plan does not know (not relative to a person): the reference and why
    _unknown: dict[Any, tuple[Any, Exception]] = msgspec.field(default_factory=dict)
    used_fixtures: dict[str, Any] = msgspec.field(default_factory=dict)
    # per run: a template-free reference of the spec → (its filled form, its cache key)
    _prep: dict[int, tuple[Any, Any, Any]] = msgspec.field(default_factory=dict)
    _words_cache: dict[Any, str] = msgspec.field(default_factory=dict)

    @staticmethod
    def fill(s: str, bind: Mapping[str, Any]) -> str:
        """Fill ``{耦}`` and other loop variables from the bindings.

        >>> Env.fill("{耦}上射", {"耦": "次耦"})
        '次耦上射'
        """
        if "{" not in s:
            return s
        parts = _PARTS.get(s)
        if parts is None:
            parts = _PARTS[s] = _split_template(s)
        out = []
        for text, var in parts:
            out.append(text)
            if var is not None:
                val = bind.get(var)
                out.append("{" + var + "}" if val is None else str(val))
        return "".join(out)

    def fill_ref(self, ref: Any, bind: Mapping[str, Any]) -> Any:
        if isinstance(ref, str):
            return self.fill(ref, bind)
        if isinstance(ref, dict):
            return {k: self.fill_ref(v, bind) for k, v in ref.items() if k != LINE_KEY}
        if isinstance(ref, list):
            return [self.fill_ref(v, bind) for v in ref]
        return ref

    def note(self, name: str, world: World) -> None:
        """Record a fixture named as an object's place (楅, 侯 …) for the scene line."""
        if name in self.used_fixtures or world.person(name) is not None:
            return
        info = self._fixture_info(name)
        if info is not None:
            self.used_fixtures[name] = info

    def _fixture_info(self, name: str) -> Any:
        """The fixture (with its source) if the venue has one by that name, else its point.

        Names that are not fixtures (中西, 豐上 …) are remembered, so that the venue's
        error (with its near-name suggestions) is computed once per name, not per step.
        """
        key = ("__not_fixture__", name)
        if key in self._cache:
            return None
        if not may_be_fixture(self.venue, name):
            self._cache[key] = (None, [])
            return None
        for attr in ("fixture", "point"):
            fn = getattr(self.venue, attr, None)
            if fn is None:
                continue
            try:
                return fn(name)
            except Exception:
                continue
        self._cache[key] = (None, [])
        return None

    def _xy(self, p: Any) -> tuple[float | None, float | None]:
        if p is None:
            return None, None
        if hasattr(p, "x"):
            return p.x, p.y
        return p[0], p[1]

    def words_of(self, ref: Any) -> str:
        """The place in the text's words: 中之西南, 西階上 …"""
        if isinstance(ref, str):
            return ref
        if isinstance(ref, dict):
            for k, w in _RELATION_WORDS.items():
                if k in ref:
                    return f"{self.words_of(ref[k])}{w}"
            if "between" in ref:
                return "".join(self.words_of(r) for r in ref["between"]) + "之閒"
            if "front_of" in ref:
                return f"{self.words_of(ref['front_of'])}前"
            if "x_of" in ref or "y_of" in ref:
                return "、".join(f"當{self.words_of(ref[k])}" for k in ("x_of", "y_of") if k in ref)
            if "row" in ref:
                anchor = ref.get("anchor")
                return f"{self.words_of(anchor) if anchor else ''}{ref['row']}"
        return str(ref)

    def _fixtures_in(self, ref: Any, world: World) -> Iterator[str]:
        if isinstance(ref, str):
            if world.person(ref) is None:
                yield ref
        elif isinstance(ref, dict):
            for k, v in ref.items():
                if k not in ("index", "row"):
                    yield from self._fixtures_in(v, world)
        elif isinstance(ref, list):
            for v in ref:
                yield from self._fixtures_in(v, world)

    def resolve(self, ref: Any, world: World, bind: Mapping[str, Any], note: bool = True) -> Pt:
        """Resolve a place reference to coordinates, the text's words and its level.

        The fixtures it names are the scene's (``used_fixtures``) unless ``note`` is False
        (a place looked up only to tell the outputs where a thing went).
        """
        if type(ref) is str:
            # a place word (most): filled, it is its own key
            key = ref = self.fill(ref, bind) if "{" in ref else ref
        elif (prep := self._prep.get(id(ref))) is not None and prep[0] is ref:
            ref, key = prep[1], prep[2]
        else:
            raw = ref
            ref = self.fill_ref(raw, bind)
            key = _hashable(ref)
            if not _has_template(raw):
                # keyed by identity; the entry holds the object, so its id is not reused
                self._prep[id(raw)] = (raw, ref, key)
        if isinstance(ref, str):
            person = world.person(ref)
            if person is not None:
                return Pt(person.x, person.y, f"{person.name}之位", person.on_tang, None)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is not None:
            for n in hit[1] if note else ():
                if n not in self.used_fixtures:
                    self.used_fixtures[n] = self._fixture_info(n)
            return hit[0]
        names = hit[1] if hit is not None else list(self._fixtures_in(ref, world))
        # a place relative to a person moves with him: never cached
        personal = hit is not None or any(world.person(n) is not None for n in _strings(ref))
        failed = self._unknown.get(key)
        if failed is not None and not personal:
            raise _NoPlace(self, *failed)
        people = _PeopleView(world, self.body_of)
        try:
            p = self.venue.resolve(ref, people=people)
        except Exception as exc:  # the place layer's PlaceError, KeyError …
            if not personal:
                self._unknown[key] = (ref, exc)
            raise _NoPlace(self, ref, exc) from None
        x, y = self._xy(p)
        try:
            on_tang = bool(self.venue.on_tang(p))
        except Exception:
            on_tang = None
        if hit is not None:
            words = self._words_cache.get(key)
            if words is None:
                words = self._words_cache[key] = self.words_of(ref)
            return Pt(x, y, words, on_tang, None)
        key_name = None
        if isinstance(ref, str):
            key_name = ref
            fixture = getattr(self.venue, "fixture", None)
            if fixture is not None and may_be_fixture(self.venue, ref):
                try:
                    key_name = fixture(ref).name  # 上物 → 右物: one name per fixture
                except Exception:
                    key_name = ref
        pt = Pt(x, y, self.words_of(ref), on_tang, key_name)
        for n in names if note else ():
            if n not in self.used_fixtures:
                self.used_fixtures[n] = self._fixture_info(n)
        self._cache[key] = (None if personal else pt, names)
        return pt


def may_be_fixture(venue: Any, name: str) -> bool:
    """Whether ``venue`` may have a fixture called ``name``: False only for a
    :class:`~sheli.place.model.Venue` that has no fixture and no other name of one so called
    (asking it would make the message of its error, with its near names, for nothing).

    >>> from sheli.place import load_venue
    >>> may_be_fixture(load_venue("xie"), "上物"), may_be_fixture(load_venue("xie"), "中西")
    (True, False)
    >>> may_be_fixture(object(), "中西")  # a stand-in venue: ask it
    True
    """
    if isinstance(venue, Venue):
        return name in venue.fixtures or name in venue.aliases or name in venue.ambiguous
    return True


def _has_template(ref: Any) -> bool:
    if isinstance(ref, str):
        return "{" in ref
    if isinstance(ref, dict):
        return any(_has_template(v) for k, v in ref.items() if k != LINE_KEY)
    if isinstance(ref, list):
        return any(_has_template(v) for v in ref)
    return False


def _strings(ref: Any) -> Iterator[str]:
    if isinstance(ref, str):
        yield ref
    elif isinstance(ref, dict):
        for v in ref.values():
            yield from _strings(v)
    elif isinstance(ref, list):
        for v in ref:
            yield from _strings(v)


def _hashable(ref: Any) -> Any:
    if isinstance(ref, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in ref.items()))
    if isinstance(ref, list):
        return tuple(_hashable(v) for v in ref)
    return ref


class _PeopleView(Mapping[str, tuple[float, float]]):
    """People's positions, looked up lazily so that resolving a place costs O(1): where each
    one's body stands (``body_of``) if given, else his point. A place named from a person is
    named from where he is: the 司射 who stands 東面于大夫之西 (dashe:166) stands west of the
    大夫 where the row of those before put him, not west of the point the text names for it.

    >>> from sheli.engine.state import Person, World
    >>> w = World(people={"甲": Person("甲", role="甲", x=0.0, y=0.0)})
    >>> _PeopleView(w)["甲"], _PeopleView(w, lambda p: (0.0, -12.0))["甲"]
    ((0.0, 0.0), (0.0, -12.0))
    """

    def __init__(
        self,
        world: World,
        body_of: Callable[[Any], tuple[float | None, float | None]] | None = None,
    ) -> None:
        self._w = world
        self._body_of = body_of

    def __getitem__(self, name: str) -> tuple[float, float]:
        p = self._w.person(name)
        if p is None or p.x is None or p.y is None:
            raise KeyError(name)
        if self._body_of is not None:
            bx, by = self._body_of(p)
            if bx is not None and by is not None:
                return (bx, by)
        return (p.x, p.y)

    def __iter__(self) -> Iterator[str]:
        return iter(self._w.people)

    def __len__(self) -> int:
        return len(self._w.people)


def count_of(expr: int | str, names: Mapping[str, int]) -> int:
    """A count given as a number or a sum over the run's names (+, -, *, max, min, integers).

    >>> count_of("archers + 4", {"archers": 10})
    14
    >>> count_of("max(80, 4 * archers)", {"archers": 30})
    120
    >>> count_of(3, {})
    3
    """
    if isinstance(expr, int):
        return expr

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("max", "min")
            and node.args
            and not node.keywords
        ):
            vals = [ev(a) for a in node.args]
            return max(vals) if node.func.id == "max" else min(vals)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = ev(node.left), ev(node.right)
            return (
                a + b
                if isinstance(node.op, ast.Add)
                else a - b
                if isinstance(node.op, ast.Sub)
                else a * b
            )
        raise ValueError(f"count {expr!r}: use numbers, + - *, and {', '.join(sorted(names))}")

    try:
        tree = ast.parse(str(expr), mode="eval")
    except SyntaxError:
        raise ValueError(f"count {expr!r} is not a number or a sum") from None
    return ev(tree)


@cache
def chapter_sections(chapter: str) -> dict[int, tuple[str, int, int]]:
    """The 賈疏 sections of a chapter: number → (topic, first line, last line).

    >>> chapter_sections("xiangshe")[19][0] != ""
    True
    """
    ch = load_chapter(chapter)
    out: dict[int, tuple[str, int, int]] = {}
    for n in range(1, 100):
        try:
            s = ch.section(n)
        except KeyError:
            continue
        out[n] = (s.topic, s.first, s.last)
    return out


def section_topic(chapter: str, n: int) -> str:
    """The topic of a 賈疏 section ("" if the chapter has no such section)."""
    got = chapter_sections(chapter).get(n)
    return got[0] if got is not None else ""


@cache
def passage_info(cite: str) -> PassageInfo | None:
    """A passage of the real text, as the interpreter needs it (None if there is none).

    >>> passage_info("xiangshe:248").text.endswith("不鼓不釋")
    True
    """
    try:
        p = get_passage(cite)
    except Exception:
        return None
    return PassageInfo(p.text, p.section, p.kind)

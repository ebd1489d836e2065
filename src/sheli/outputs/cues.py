"""Cue sheets: for each person of a run, every step they act in, ready to rehearse from.

A cue sheet gives the person playing a role (司射, 釋獲者, 上耦上射 …) each act of theirs in
order, grouped by 賈疏 section: where to stand (the place in the text's words and in metres
from a marked origin, so a director can tape the floor), which way to face, what to hold and
wear, what to say, whose act is the cue to go, and a small plan of the moment. The floor plan
sheet gives the taping measurements of every fixture at the chosen size of the floor.

Everything comes from the run and the plan it was run on (docs/place.md); nothing is added
to the rite. The sheets are made by a reader of the typed run (:class:`CueReader`, a visitor:
docs/architecture.md), which takes each step's fields and the holding's numbers, never the
words of the event log's lines. Presentation choices (the folding of repeated cues, the
plain-English glosses, the scale) are said so on the sheet.

>>> from sheli.engine import run
>>> r = run("xiangshe", seed=1)
>>> sheet = role_sheet(r, "釋獲者")
>>> sheet.acts == sum(1 for s in r.records if isinstance(s, Step) and s.actor == "釋獲者")
True
>>> said = [w for b in sheet.blocks() for c in b.rows for w in c.says or ()]
>>> [t.announcement for t in r.tallies] == [w for w in said if w != "左右卒射"]
True
"""

from __future__ import annotations

import base64
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from sheli.engine.env import chapter_sections
from sheli.engine.records import BaseVisitor, Scene, Step
from sheli.engine.state import Holding, holds_words
from sheli.engine.variants import variant_assumptions
from sheli.engine.verbs import ENGINE_ASSUMPTIONS
from sheli.errors import did_you_mean
from sheli.glossary import english, held_english, terms_named
from sheli.outputs import diagram
from sheli.outputs.floorplan import (
    HALL_VIEW,
    CuesError,
    FloorRow,
    Scale,
    diagram_defs,
    floor_rows,
    plan_svg,
    positions_at,
    step_diagram,
    venue_scale,
    whole_view,
)
from sheli.outputs.frames import build_frames
from sheli.outputs.marks import Mark, by_performer, performer_marks
from sheli.outputs.runofshow import fmt
from sheli.text.english import section_english
from sheli.text.variants import fold, to_traditional

TEMPLATES = Path(__file__).with_name("cues_templates")

# The roles a director casts first, in the order of the sheet; the archers and everyone else
# who acts in the run follow in the order of the cast.
PRINCIPAL_ROLES = ("司射", "司馬", "獲者", "釋獲者", "弟子", "賓", "主人", "大夫")

# Facing as the text says it (北面 …) and an arrow on a plan with north up (the 堂 side).
FACING: dict[str, tuple[str, str]] = {
    "N": ("北面", "↑"),
    "S": ("南面", "↓"),
    "E": ("東面", "→"),
    "W": ("西面", "←"),
    "NE": ("東北面", "↗"),
    "NW": ("西北面", "↖"),
    "SE": ("東南面", "↘"),
    "SW": ("西南面", "↙"),
}

# --------------------------------------------------------------------------- scale


# --------------------------------------------------------------------------- roles
def roles(run: Any) -> list[str]:
    """Everyone who acts (or is addressed) in the run, principal roles first, then the cast.

    >>> from sheli.engine import run
    >>> roles(run("xiangshe", seed=1))[:4]
    ['司射', '司馬', '獲者', '釋獲者']
    """
    return run.accept(CueReader()).roles()


def role_hint(name: str, known: list[str]) -> str:
    """``; did you mean X?`` for a role name that is not one of ``known``: the role whose
    glossary English it is (a user who read the English sheet types it), else the nearest
    role in the text's terms (traditional or simplified); '' when none is near.

    >>> known = ["司射", "司馬", "釋獲者", "上耦上射"]
    >>> role_hint("director of archery", known), role_hint("Scorer", known)
    ('; did you mean 司射 (director of archery)?', '; did you mean 釋獲者 (scorer)?')
    >>> role_hint("释获", known), role_hint("飛鳥", known)
    ('; did you mean 釋獲者?', '')
    """
    meant = terms_named(name, known, "roles")
    if meant:
        return "; did you mean " + " or ".join(f"{t} ({english(t, 'roles')})" for t in meant) + "?"
    return did_you_mean(to_traditional(name.strip()), known)


def resolve_role(run: Any, name: str) -> str:
    """The actor a ``--role`` names: a role, an archer (上耦上射), a person's name from the
    cast, in traditional, simplified or variant forms.

    >>> from sheli.engine import run
    >>> r = run("xiangshe", seed=1)
    >>> resolve_role(r, "释获者"), resolve_role(r, "司正")
    ('釋獲者', '司馬')
    """
    return run.accept(CueReader()).resolve(name)


# --------------------------------------------------------------------------- the sheet model
@dataclass
class Cue:
    """One step of the run as it concerns one person.

    ``addressed`` is true for a step in which someone else speaks to or hands to this person
    (the step's ``to``): the person does not act, but must hear it. ``after`` is the step
    before it in the whole run: the cue to go. ``index`` is the step's place in the run.
    """

    step: Step
    addressed: bool
    after: Step | None
    scale: Scale
    after_self: Step | None = None  # this person's own previous step
    index: int = 0

    @property
    def seq(self) -> int:
        return self.step.seq

    @property
    def says(self) -> str | None:
        return self.step.says

    @property
    def x_m(self) -> float | None:
        x = self.step.x
        return None if x is None else self.scale.m(x)

    @property
    def y_m(self) -> float | None:
        y = self.step.y
        return None if y is None else self.scale.m(y)

    def key(self) -> tuple[Any, ...]:
        """What makes two cues the same to rehearse.

        What is held (筭八, 筭七 …), the side of a 釋獲 (右/左) and the act before (whose
        shot) may differ between folded cues; the row lists them (see :class:`Row`).
        """
        s = self.step
        return (
            self.addressed,
            s.actor,
            s.verb,
            s.cite,
            s.jing,
            s.place,
            None if s.x is None else round(s.x, 2),
            None if s.y is None else round(s.y, 2),
            s.facing,
            tuple(s.dress or ()),
            s.says,
            s.obj,
            s.at,
            s.to,
            s.via,
            s.note,
        )


@dataclass
class Beat:
    """Consecutive acts of one person enacting one passage: the unit one rehearses.

    興受算坐實八算于中横委其餘于中西南末興共而俟 is one beat of six acts. Others may act in
    between only on the same words (a pair or the 三耦 doing it together); any other act in
    between is a cue and starts a new beat. A step addressed to the person is a beat alone.
    """

    acts: list[Cue]

    def key(self) -> tuple[Any, ...]:
        return tuple(c.key() for c in self.acts)

    @property
    def addressed(self) -> bool:
        return self.acts[0].addressed

    def takes(self, c: Cue, between: Sequence[Step] = ()) -> bool:
        """Whether ``c`` continues this beat; ``between`` are the steps since its last act."""
        last = self.acts[-1]
        a, b = last.step, c.step
        return (
            not last.addressed
            and not c.addressed
            and all(o.cite == a.cite and o.jing == a.jing for o in between)
            and a.cite == b.cite
            and a.jing == b.jing
            and a.section == b.section
            and (a.acting_as and a.acting_as.cite) == (b.acting_as and b.acting_as.cite)
        )


@dataclass
class Row:
    """A line of the sheet: one beat, or the same beat done ``count`` times (folded)."""

    beats: list[Beat]

    @property
    def acts(self) -> list[Cue]:
        """The acts of the (first) beat, in order."""
        return self.beats[0].acts

    @property
    def first(self) -> Cue:
        return self.acts[0]

    @property
    def last(self) -> Cue:
        return self.acts[-1]

    @property
    def step(self) -> Step:
        return self.first.step

    @property
    def count(self) -> int:
        """How many times the beat is done here."""
        return len(self.beats)

    @property
    def cues(self) -> list[Cue]:
        """Every step of the row, all repetitions."""
        return [c for b in self.beats for c in b.acts]

    @property
    def steps(self) -> int:
        return sum(len(b.acts) for b in self.beats)

    @property
    def clock(self) -> str:
        """When the row is done, by the timeline (docs/timeline.md): from its first act's
        start to its last act's end, the first time for a folded row; empty for steps
        without times."""
        a, z = self.first.step, self.last.step
        if a.t is None or z.t is None or z.dur is None:
            return ""
        return f"{fmt(a.t)}–{fmt(z.t + z.dur)}"

    @property
    def seqs(self) -> list[int]:
        """The seq of the first act of each repetition."""
        return [b.acts[0].seq for b in self.beats]

    @property
    def all_seqs(self) -> list[int]:
        return [c.seq for c in self.cues]

    @property
    def says(self) -> list[str]:
        return [c.says for c in self.acts if c.says]

    @property
    def holds(self) -> list[Holding]:
        """What is held after the beat: the distinct holdings (as the text words them) over
        the repetitions, in order."""
        seen: list[Holding] = []
        words: list[list[str]] = []
        for b in self.beats:
            h = b.acts[-1].step.holding
            w = holds_words(h)
            if w not in words:
                words.append(w)
                seen.append(h)
        return seen

    @property
    def sides(self) -> Counter[str]:
        """For 釋獲: how many 筭 went right (上射's hits) and left (下射's), all repetitions.

        (The 數獲 acts carry a side too, the side counted; the act's words show it.)"""
        return Counter(c.step.side for c in self.cues if c.step.side and c.step.verb == "釋獲")

    @property
    def notes(self) -> list[str]:
        out: list[str] = []
        for c in self.acts:
            n = c.step.note
            if n and n not in out:
                out.append(n)
        return out

    @property
    def moves(self) -> bool:
        """The beat changes place or facing (from the act before it, or within)."""
        a = self.first.after_self
        here = [(c.step.place, c.step.facing) for c in self.acts]
        if a is None:
            return True
        return any(p != (a.place, a.facing) for p in here)


@dataclass
class Block:
    """Consecutive rows, done ``reps`` times over in that order (1: not folded)."""

    rows: list[Row]
    reps: int = 1


@dataclass
class SectionCues:
    """The cues of one stretch of one 賈疏 section."""

    section: int | None
    topic: str
    rounds: list[int]
    cites: tuple[str, str] | None
    blocks: list[Block]
    topic_en: str | None = None  # the topic in sheli's English (text/data/en/sections.tsv)

    @property
    def cue_count(self) -> int:
        """Steps (acts and addresses) in this stretch, every repetition counted."""
        return sum(r.steps for b in self.blocks for r in b.rows)


#: an assumption's id as the specs and the engine name it (A-sishe-start, E-youshe)
ASSUMPTION_ID = re.compile(r"\b[AE]-[a-z0-9]+(?:-[a-z0-9]+)*\b")
# a step's assumptions as its sentence lists them: [A-rows] or [A-fei,A-rows]
_ASSUMED = re.compile(r"\[([AE]-[a-z0-9-]+(?:,\s*[AE]-[a-z0-9-]+)*)\]")


class AssumptionMarks:
    """The assumptions a sheet names, numbered in the order it first names them: a reader
    sees "assumption 2", and the sheet's end says what is assumed and why, never the id the
    specs file it under (docs/cues.md, "Assumptions").

    >>> m = AssumptionMarks({"A-rows": ("They stand in a row.", "注"), "E-youshe": ("x", "y")})
    >>> m.mark("He waits. [A-rows,E-youshe] (not counted: A-rows; A-other)")
    'He waits. [assumptions 1, 2] (not counted: assumption 1; A-other)'
    >>> m.listed()
    [(1, 'They stand in a row.', '注'), (2, 'x', 'y')]
    """

    def __init__(self, known: dict[str, tuple[str, str]]) -> None:
        self.known = known
        self.order: dict[str, int] = {}

    def number(self, aid: str) -> int:
        """The number of assumption ``aid`` on this sheet (given it when first named)."""
        return self.order.setdefault(aid, len(self.order) + 1)

    def _one(self, m: re.Match[str]) -> str:
        aid = m.group()
        return f"assumption {self.number(aid)}" if aid in self.known else aid

    def _group(self, m: re.Match[str]) -> str:
        ids = [a.strip() for a in m.group(1).split(",")]
        if not all(a in self.known for a in ids):
            return ASSUMPTION_ID.sub(self._one, m.group())
        ns = [str(self.number(a)) for a in ids]
        return f"[assumption {ns[0]}]" if len(ns) == 1 else f"[assumptions {', '.join(ns)}]"

    def mark(self, text: str) -> str:
        """``text`` with each assumption's id put as its number on this sheet."""
        if "-" not in text:
            return text
        return ASSUMPTION_ID.sub(self._one, _ASSUMED.sub(self._group, text))

    def listed(self) -> list[tuple[int, str, str]]:
        """The assumptions named so far: (number, what is assumed, why), in order."""
        return [(n, *self.known[aid]) for aid, n in self.order.items()]

    def ids(self) -> list[str]:
        """The ids of the assumptions named so far, in their order."""
        return list(self.order)


def split_assumptions(text: str, known: Iterable[str]) -> tuple[str, list[str]]:
    """A note without the ids of the assumptions it names, and those ids: the viewer and the
    sheets give an assumption by what it says, not by the id the specs file it under.

    >>> split_assumptions("主人之吏 (注 xiangshe:111); A-sishe-start", {"A-sishe-start"})
    ('主人之吏 (注 xiangshe:111)', ['A-sishe-start'])
    >>> split_assumptions("注: 誘猶教也 (not counted: A-rounds)", {"A-rounds"})
    ('注: 誘猶教也 (not counted)', ['A-rounds'])
    >>> split_assumptions("堂上三賓 (A-a, A-b)", {"A-a", "A-b"}), split_assumptions("A-x", {"A-x"})
    (('堂上三賓', ['A-a', 'A-b']), ('', ['A-x']))
    """
    known = set(known)
    ids = [m.group() for m in ASSUMPTION_ID.finditer(text) if m.group() in known]
    if not ids:
        return text, []
    out = ASSUMPTION_ID.sub(lambda m: "" if m.group() in known else m.group(), text)
    out = re.sub(r"\(\s*(?:[,;]\s*)*\)", "", out)  # a bracket left empty
    out = re.sub(r"(?:\s*[;,:]\s*)+(?=\)|$)", "", out)  # a separator left before its end
    return " ".join(out.split()), list(dict.fromkeys(ids))


def known_assumptions(run: Any) -> dict[str, tuple[str, str]]:
    """Every assumption a run's steps or notes may name: the engine's, the variants' and the
    spec's, id → (what is assumed, why).

    >>> from sheli.engine import run
    >>> known_assumptions(run("xiangshe", seed=1))["A-sishe-start"][0].startswith("司射 stands")
    True
    """
    known = {**ENGINE_ASSUMPTIONS, **variant_assumptions()}
    # (the live app's run is a lighter record of the spec: its assumptions, where it has them)
    for a in getattr(getattr(run.spec, "spec", None), "assumptions", None) or ():
        known[a.id] = (a.text, a.reason)
    return known


@dataclass
class RoleSheet:
    """Everything one person needs: their cues by section, and the run they come from."""

    role: str
    gloss: str
    name: str | None
    sections: list[SectionCues]
    scale: Scale
    acts: int  # steps the role acts in (== the event log's count)
    addressed: int  # steps addressed to the role by others
    first_place: str | None = None
    diagrams: dict[int, str] = field(default_factory=dict)  # seq → SVG
    # the assumptions it names, numbered (build_book gives it the run's)
    marks: AssumptionMarks = field(default_factory=lambda: AssumptionMarks({}))

    def blocks(self) -> Iterable[Block]:
        for s in self.sections:
            yield from s.blocks

    def rows(self) -> Iterable[Row]:
        for b in self.blocks():
            yield from b.rows

    def cues(self) -> Iterable[Cue]:
        for r in self.rows():
            yield from r.cues


def fold_cues(cues: Sequence[Any], max_block: int = 8) -> list[Block]:
    """Fold runs of repeated beats: a block of k beats done n times over becomes k rows × n.

    Greedy from the start: at each point the block length that covers most beats (the
    shortest on a tie). Every beat stays in a row; nothing is dropped. Items need ``key()``.

    >>> class C:
    ...     def __init__(self, k): self.k = k
    ...     def key(self): return self.k
    >>> [(len(b.rows), b.reps) for b in fold_cues([C(1), C(2), C(1), C(2), C(3)])]
    [(2, 2), (1, 1)]
    """
    blocks: list[Block] = []
    keys = [c.key() for c in cues]
    n, i = len(cues), 0
    while i < n:
        best_k, best_reps = 1, 1
        for k in range(1, min(max_block, (n - i) // 2) + 1):
            reps = 1
            while i + (reps + 1) * k <= n and all(
                keys[i + j] == keys[i + reps * k + j] for j in range(k)
            ):
                reps += 1
            if reps >= 2 and reps * k > best_k * best_reps:
                best_k, best_reps = k, reps
        rows = [Row([cues[i + r * best_k + j] for r in range(best_reps)]) for j in range(best_k)]
        blocks.append(Block(rows, best_reps))
        i += best_k * best_reps
    return blocks


#: The 賈疏 sections of a chapter: number → (topic, first line, last line) — the engine's one
#: lookup (:func:`sheli.engine.env.chapter_sections`), under the name cue sheets and the live
#: app's exports use.
section_topics = chapter_sections


class CueReader(BaseVisitor["CueReader"]):
    """The reader of a run that gathers every person's cues in one pass: the acts of each
    actor and the steps addressed to him (a step's ``to``), each with the step before it and
    his own previous step. Its result is itself: :meth:`roles`, :meth:`resolve`,
    :meth:`sheet`.

    >>> from sheli.engine import run
    >>> reader = run("xiangshe", seed=1).accept(CueReader())
    >>> reader.sheet("釋獲者").sections[0].section  # he brings in the 中 (xiangshe:114)
    13
    """

    def __init__(self, scale: Scale | None = None) -> None:
        self.scale = scale or Scale()
        self.scene: Scene | None = None
        self.chapter: str | None = None
        self.steps: list[Step] = []
        self.cues: dict[str, list[Cue]] = defaultdict(list)
        self._own: dict[str, Step] = {}

    def begin_run(self, scene: Scene) -> None:
        self.scene = scene

    def visit_step(self, step: Step) -> None:
        i = len(self.steps)
        after = self.steps[-1] if i else None
        actor, to = step.actor, step.to
        self.cues[actor].append(Cue(step, False, after, self.scale, self._own.get(actor), i))
        if to and to != actor:
            self.cues[to].append(Cue(step, True, after, self.scale, self._own.get(to), i))
        self._own[actor] = step
        self.steps.append(step)

    def result(self) -> CueReader:
        return self

    @property
    def cast(self) -> list[dict[str, Any]]:
        return self.scene.cast if self.scene is not None else []

    def roles(self) -> list[str]:
        """Everyone who acts or is addressed, principal roles first, then the cast."""
        acting = set(self.cues)
        order = [r for r in PRINCIPAL_ROLES]
        order += [c["actor"] for c in self.cast if c["actor"] not in order]
        order += sorted(a for a in {s.actor for s in self.steps} if a not in order)
        return [r for r in order if r in acting]

    def resolve(self, name: str) -> str:
        """The actor a ``--role`` names (see :func:`resolve_role`)."""
        known = self.roles()
        want = {fold(name.strip()), fold(to_traditional(name.strip()))}
        for actor in known:
            if fold(actor) in want:
                return actor
        for c in self.cast:
            if c.get("name") and fold(c["name"]) in want and c["actor"] in known:
                return c["actor"]
        by_role = [
            c["actor"] for c in self.cast if fold(c.get("role", "")) in want and c["actor"] in known
        ]
        if len(by_role) == 1:
            return by_role[0]
        hint = f" ({name} is several people: {', '.join(by_role)})" if by_role else ""
        hint += role_hint(name, known)
        stop = " " if hint.endswith("?") else ". "
        raise CuesError(f"no role {name!r} in this run{hint}{stop}Roles: {', '.join(known)}")

    def beats(self, role: str, addressed: bool = True) -> list[Beat]:
        """The person's cues as beats (see :class:`Beat`)."""
        cues = [c for c in self.cues.get(role, ()) if addressed or not c.addressed]
        beats: list[Beat] = []
        for c in cues:
            if beats:
                prev = beats[-1].acts[-1].index
                if beats[-1].takes(c, self.steps[prev + 1 : c.index]):
                    beats[-1].acts.append(c)
                    continue
            beats.append(Beat([c]))
        return beats

    def sheet(
        self, role: str, chapter: str = "xiangshe", addressed: bool = True, fold: bool = True
    ) -> RoleSheet:
        """The cue sheet of one person (an actor name), for the 賈疏 sections of ``chapter``."""
        topics = section_topics(chapter)
        beats = self.beats(role, addressed)
        # Group consecutive beats of one 賈疏 section; a section met again later starts anew.
        groups: list[list[Beat]] = []
        for b in beats:
            if groups and groups[-1][0].acts[0].step.section == b.acts[0].step.section:
                groups[-1].append(b)
            else:
                groups.append([b])
        sections = []
        for g in groups:
            n = g[0].acts[0].step.section
            topic, first, last = topics.get(n, ("", 0, 0)) if n is not None else ("", 0, 0)
            blocks = fold_cues(g) if fold else [Block([Row([b])]) for b in g]
            sections.append(
                SectionCues(
                    section=n,
                    topic=topic,
                    rounds=sorted({c.step.round for b in g for c in b.acts}),
                    cites=(f"{chapter}:{first}", f"{chapter}:{last}") if first else None,
                    blocks=blocks,
                    topic_en=section_english(chapter, n) if n is not None else None,
                )
            )
        entry = next((c for c in self.cast if c["actor"] == role), {})
        gloss = english(role, "roles") or ""
        if entry.get("pair") and entry.get("seat"):
            seat = f"{entry['pair']}'s {english(entry['seat'], 'roles') or entry['seat']}"
            gloss = f"{gloss}; {seat}" if gloss else seat
        elif not gloss:
            gloss = english(entry.get("role", ""), "roles") or ""
        cues = [c for b in beats for c in b.acts]
        first_act = next((c for c in cues if not c.addressed), None)
        return RoleSheet(
            role=role,
            gloss=gloss,
            name=entry.get("name"),
            sections=sections,
            scale=self.scale,
            acts=sum(1 for c in cues if not c.addressed),
            addressed=sum(1 for c in cues if c.addressed),
            first_place=first_act.step.place if first_act else None,
        )


def role_sheet(
    run: Any,
    role: str,
    scale: Scale | None = None,
    addressed: bool = True,
    fold: bool = True,
) -> RoleSheet:
    """The cue sheet of one person (an actor name; see :func:`resolve_role`).

    >>> from sheli.engine import run
    >>> s = role_sheet(run("xiangshe", seed=1), "釋獲者")
    >>> s.sections[0].section, s.first_place  # he brings in the 中 (xiangshe:114)
    (13, '門')
    """
    reader = run.accept(CueReader(scale or venue_scale(run.plan)))
    return reader.sheet(role, run.spec.spec.chapter, addressed=addressed, fold=fold)


# --------------------------------------------------------------------------- words
def facing_words(f: str | None) -> tuple[str, str]:
    """('北面', '↑') for 'N'; ('', '') for None.

    >>> facing_words("W")
    ('西面', '←')
    """
    return FACING.get(f or "", ("", ""))


def hold_glosses(h: Holding) -> list[str]:
    """The English of each word of a holding (:func:`sheli.engine.state.holds_words`), from
    the glossary (:func:`sheli.glossary.held_english`); "" where there is none.

    >>> h = Holding(bow="張", fingers=1, items=(("觶", 1), ("飛", 1)), counting=8)
    >>> holds_words(h)
    ['張弓', '挾矢一', '觶(虛)', '飛', '筭八']
    >>> hold_glosses(h)
    ['strung bow', 'arrow between the fingers', 'cup', '', 'tally rods']
    """
    return [held_english(w) or "" for w in holds_words(h)]


def hold_words(h: Holding, gloss: bool = True) -> str:
    """What is held in the text's words (made from the holding's numbers), with a short
    gloss each (``gloss``).

    >>> hold_words(Holding(bow="張", fingers=1))
    '張弓 (strung bow), 挾矢一 (arrow between the fingers)'
    >>> hold_words(Holding(bow="張", fingers=1), gloss=False)
    '張弓, 挾矢一'
    """
    words = holds_words(h)
    glosses = hold_glosses(h) if gloss else [""] * len(words)
    return ", ".join(f"{w} ({g})" if g else w for w, g in zip(words, glosses, strict=True))


def dress_words(dress: Sequence[str]) -> str:
    """The dress in the text's words with its English from the glossary.

    >>> dress_words(["袒", "決遂"])
    '袒 (the arm bared), 決遂 (thumb ring and arm guard)'
    """
    return ", ".join(f"{d} ({en})" if (en := english(d, "dress")) else d for d in dress)


def verb_english(verb: str) -> str:
    """A verb's English from the glossary, "" where it has none (the cue sheets' gloss).

    >>> verb_english("揖"), verb_english("飛")
    ('salute', '')
    """
    return english(verb, "verbs") or ""


def metres_words(x_m: float | None, y_m: float | None) -> str:
    """Where to tape, from the origin: 'W 4.40 m · S 1.41 m'.

    >>> metres_words(-4.4, -1.414), metres_words(0.0, 2.0)
    ('W 4.40 m · S 1.41 m', '0.00 m · N 2.00 m')
    """
    if x_m is None or y_m is None:
        return ""

    def one(v: float, pos: str, neg: str) -> str:
        if abs(v) < 0.005:
            return "0.00 m"
        return f"{pos if v > 0 else neg} {abs(v):.2f} m"

    return f"{one(x_m, 'E', 'W')} · {one(y_m, 'N', 'S')}"


def action_words(step: Step) -> str:
    """The act in the text's terms: verb, object, where it goes, whom it is to.

    >>> from sheli.engine import run
    >>> steps = run("xiangshe", seed=1).accept(CueReader()).steps
    >>> action_words(next(s for s in steps if s.verb == "設"))
    '設 席 → at 賓席'
    """
    parts = [step.verb]
    obj, count, side = step.obj, step.number, step.side
    if obj:
        parts.append(str(obj))
    # A count that is a number and not zero (a 數獲 act that lays no rod shows none).
    if isinstance(count, int) and count > 0:
        parts.append(f"×{count}")
    if side:
        parts.append(f"({side})")
    for value, words in ((step.at, "→ at {}"), (step.to, "→ to {}"), (step.via, "(by {})")):
        if value:
            parts.append(words.format(value))
    return " ".join(parts)


def after_words(row: Row, role: str) -> str:
    """Whose act is the cue to go: the step just before, by someone else, or 'continue'."""
    counts: Counter[str] = Counter()
    for b in row.beats:
        a = b.acts[0].after
        if a is None:
            counts["(first step of the run)"] += 1
        elif a.actor == role:
            counts["straight on from your previous act"] += 1
        else:
            words = f"{a.actor} {action_words(a)}"
            if a.says:
                words += f"「{a.says}」"
            counts[words] += 1
    if len(counts) == 1:
        return next(iter(counts))
    return "; ".join(f"{k} ×{v}" for k, v in counts.most_common())


NEAR_WIDTH = 300  # px: the step diagram beside a cue


def _near_diagrams(
    run: Any, scene: Scene, todo: Sequence[tuple[RoleSheet, Row]], lang: str = "zh-Hant"
) -> None:
    """Step diagrams from :func:`sheli.outputs.diagram.render_svg` ("near" view, the person
    highlighted), each as an <img> of its own: their ids (clip paths, markers) stay apart
    and the header band (cite, 經, words, which the cue already shows) is cropped."""
    frames = {f.seq: f for f in build_frames(run)}
    head = float(getattr(diagram, "HEAD", 0.0))
    for sh, row in todo:
        seq = row.last.seq
        frame = frames.get(seq)
        if frame is None:
            continue
        svg = diagram.render_svg(
            frame, scene, highlight=sh.role, width=NEAR_WIDTH, view="near", lang=lang
        )
        m = re.search(r'height="([0-9.]+)"', svg)
        height = float(m.group(1)) if m else NEAR_WIDTH * 1.3
        data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        shown = max(height - head, 40.0)
        sh.diagrams[seq] = (
            f'<div class="near" style="width:{NEAR_WIDTH * 0.62:.0f}px;'
            f'height:{shown * 0.62:.0f}px;overflow:hidden">'
            f'<img alt="plan at seq {seq}" src="data:image/svg+xml;base64,{data}" '
            f'style="width:{NEAR_WIDTH * 0.62:.0f}px;margin-top:-{head * 0.62:.0f}px"></div>'
        )


# --------------------------------------------------------------------------- the book
@dataclass
class CueBook:
    """The sheets of a run: role sheets and (optionally) the floor plan, ready to render."""

    rite: str
    title: str
    venue_key: str
    venue_title: str
    params: dict[str, Any]
    seed: int | None
    scale: Scale
    sheets: list[RoleSheet]
    floor: list[FloorRow] | None
    venue: Any = field(repr=False)
    origin: str = ""
    diagrams: str = "near"  # near (the step diagram of sheli.outputs.diagram), plan, none
    marks: list[Mark] | None = None  # every performer's own marks (with the floor plan)

    @property
    def performers(self) -> list[tuple[str, list[Mark]]]:
        """The marks by performer (the floor plan's table of marks)."""
        return by_performer(self.marks or ())


ORIGIN_TEXT = (
    "Origin 0,0: the middle of the 堂廉, the south edge of the raised 堂 (the venue data's "
    "origin; marked + on every plan). x runs east (+E, right as you face the 堂), y north "
    "(+N, towards the 堂); the 庭 is south (S)."
)


def build_book(
    run: Any,
    roles_wanted: Sequence[str] | None = None,
    scale: Scale | None = None,
    floor: bool = True,
    addressed: bool = True,
    diagrams: bool | str = True,
    seed: int | None = None,
    lang: str = "zh-Hant",
) -> CueBook:
    """Role sheets for ``roles_wanted`` (names as :func:`resolve_role` takes; None: all) and
    the floor plan.

    ``diagrams``: "near" (True) draws each cue with the step diagram of
    :mod:`sheli.outputs.diagram` in its view round the person (everyone near, what they
    hold, the walk); "plan" with the small plan of this module (lighter: the background is
    drawn once per page); "none" (False) without. ``lang``: the language of the near
    diagrams' words (docs/diagrams.md, "Labels in English").

    >>> from sheli.engine import run
    >>> b = build_book(run("xiangshe", seed=1), ["释获者"], floor=False)
    >>> [s.role for s in b.sheets], b.floor
    (['釋獲者'], None)
    """
    venue = run.plan
    scale = scale or venue_scale(venue)
    reader: CueReader = run.accept(CueReader(scale))
    scene = reader.scene
    assert scene is not None  # every run begins with its scene
    chapter = run.spec.spec.chapter
    wanted = reader.roles() if roles_wanted is None else [reader.resolve(r) for r in roles_wanted]
    sheets = [reader.sheet(r, chapter, addressed=addressed) for r in wanted]
    known = known_assumptions(run)
    for sh in sheets:
        sh.marks = AssumptionMarks(known)
    style = ("near" if diagrams else "none") if isinstance(diagrams, bool) else diagrams
    if style not in ("near", "plan", "none"):
        raise CuesError(f"diagrams: near, plan or none, not {diagrams!r}")
    if style != "none":
        # A diagram where the person's place or facing changes (and for each address and the
        # first beat of a stretch): a beat done where the last one left him needs none.
        todo: list[tuple[RoleSheet, Row]] = []
        for sh in sheets:
            for sec in sh.sections:
                for i, row in enumerate(r for b in sec.blocks for r in b.rows):
                    if i == 0 or row.first.addressed or row.moves:
                        todo.append((sh, row))
        if style == "near":
            _near_diagrams(run, scene, todo, lang)
        else:
            snaps = positions_at(reader.steps, {row.last.seq for _, row in todo})
            for sh, row in todo:
                c = row.last
                other = c.step.actor if c.addressed else None
                sh.diagrams[c.seq] = step_diagram(venue, sh.role, snaps[c.seq], other)
    return CueBook(
        rite=run.rite,
        title=run.title or run.rite,
        venue_key=run.venue,
        venue_title=venue.title,
        params=dict(run.params),
        seed=seed,
        scale=scale,
        sheets=sheets,
        floor=floor_rows(venue, scale, run.scene) if floor else None,
        marks=performer_marks(run.records, scale.m) if floor else None,
        venue=venue,
        origin=ORIGIN_TEXT,
        diagrams=style,
    )


# --------------------------------------------------------------------------- rendering
@cache
def _jinja() -> Any:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,  # every name and word of the text is escaped
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    env.globals.update(
        action_words=action_words,
        after_words=after_words,
        dress_words=dress_words,
        facing_words=facing_words,
        hold_words=hold_words,
        metres_words=metres_words,
        verb_english=verb_english,
    )
    return env


def _run_params(book: CueBook) -> list[tuple[str, str]]:
    p = book.params
    out = []
    if "pairs" in p:
        out.append(("衆耦", str(p["pairs"])))
    if "guests_shoot" in p:
        out.append(("賓主人大夫射", "yes" if p["guests_shoot"] else "no"))
    if p.get("dafu") is not None:
        out.append(("大夫", str(p["dafu"])))
    if p.get("arrows_short"):
        out.append(("矢不備", "yes"))
    return out


def render_html(book: CueBook) -> str:
    """The book as one self-contained HTML page (print CSS: each role from a new page).

    >>> from sheli.engine import run
    >>> page = render_html(build_book(run("xiangshe", seed=1), ["釋獲者"]))
    >>> page.startswith("<!DOCTYPE html>") and "左右鈞" in page
    True
    """
    numbered = {f.name: f.number for f in book.floor} if book.floor else None
    floor_hall = floor_whole = ""
    if book.floor is not None:
        floor_hall = plan_svg(book.venue, book.scale, HALL_VIEW, 470, numbered=numbered)
        floor_whole = plan_svg(
            book.venue, book.scale, whole_view(book.venue), 175, numbered=numbered
        )
    return (
        _jinja()
        .get_template("cues.html.j2")
        .render(
            book=book,
            defs=diagram_defs(book.venue, book.scale) if book.diagrams == "plan" else "",
            run_params=_run_params(book),
            floor_hall=floor_hall,
            floor_whole=floor_whole,
        )
    )


def render_text(book: CueBook, width: int = 100) -> str:
    """The book as plain text for a terminal or a plain printer (no diagrams).

    >>> from sheli.engine import run
    >>> t = render_text(build_book(run("xiangshe", seed=1), ["釋獲者"], floor=False))
    >>> "SAY 「左右鈞」" in t
    True
    """
    lines: list[str] = []
    add = lines.append
    for sh in book.sheets:
        add("=" * width)
        who = f"{sh.role}" + (f" ({sh.name})" if sh.name else "") + f" — {sh.gloss}"
        add(f"{who}: cue sheet, {book.title}, {book.venue_title} ({book.venue_key})")
        times = "time" if sh.addressed == 1 else "times"
        addressed = f", {sh.addressed} {times} addressed (←)" if sh.addressed else ""
        add(f"{sh.acts} acts{addressed}")
        add(book.scale.statement())
        add(book.origin)
        add("Facing: 北面 = towards the 堂. Hits follow this run's outcomes.")
        for sec in sh.sections:
            add("")
            cites = f" ({sec.cites[0]}–{sec.cites[1].split(':')[1]})" if sec.cites else ""
            add(f"賈疏 §{sec.section} {sec.topic}{cites}")
            add("-" * width)
            for b in sec.blocks:
                indent = "  "
                if b.reps > 1:
                    n = len(b.rows)
                    what = f"these {n} acts in this order" if n > 1 else "this act"
                    add(f"  ┌ repeat ×{b.reps}: {what} (seq {', '.join(map(str, b.rows[0].seqs))})")
                    indent = "  │ "
                for row in b.rows:
                    s, c, z = row.step, row.first, row.last
                    times = f" ×{row.count}" if row.count > 1 and b.reps == 1 else ""
                    head = f"{row.seqs[0]:>5} {s.cite:<14}"
                    if c.addressed:
                        add(f"{indent}{head} ← {s.actor} {action_words(s)}{times}")
                    else:
                        chain = " → ".join(
                            f"{action_words(a.step)} ({verb_english(a.step.verb)})"
                            for a in row.acts
                        )
                        add(f"{indent}{head} {chain}{times}")
                    pad = indent + " " * 21
                    add(f"{pad}經 {s.jing}")
                    if row.clock:
                        add(f"{pad}time {row.clock}")
                    for w in row.says:
                        label = "SAY" if not c.addressed else f"{s.actor} says"
                        add(f"{pad}{label} 「{w}」")
                    if not c.addressed:
                        fw, arrow = facing_words(z.step.facing)
                        face = f" · face {fw} {arrow}" if fw else ""
                        where = metres_words(z.x_m, z.y_m)
                        add(f"{pad}at {z.step.place or '—'}  {where}{face}")
                        holds = " … ".join(
                            hold_words(h, gloss=i == 0) or "nothing"
                            for i, h in enumerate(row.holds)
                        )
                        dress = z.step.dress
                        dress_s = f" · dress {dress_words(dress)}" if dress else ""
                        add(f"{pad}holds {holds}{dress_s}")
                        add(f"{pad}cue: {after_words(row, sh.role)}")
                    else:
                        add(f"{pad}{s.actor} at {s.place or '—'}")
                    for note in row.notes:
                        add(f"{pad}· {sh.marks.mark(note)}")
                if b.reps > 1:
                    add("  └")
        if sh.marks.order:
            add("")
            add("Assumptions (what the text does not say)")
            for n, what, why in sh.marks.listed():
                add(f"  {n}. {what} — {why}")
    if book.floor is not None:
        add("=" * width)
        add(f"Floor plan: {book.title}, {book.venue_title} ({book.venue_key})")
        add(book.scale.statement())
        add(book.origin)
        add(f"{'#':>3} {'fixture':<8} {'x m':>8} {'y m':>8}  source")
        for f in book.floor:
            mark = "●" if f.used else " "
            add(f"{f.number:>3} {mark}{f.name:<7} {f.x_m:>8.2f} {f.y_m:>8.2f}  {f.source}")
    return "\n".join(lines) + "\n"

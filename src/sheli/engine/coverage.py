"""Coverage of the text by a spec: which passages are enacted, by which steps, and why not.

For every passage in the spec's ``scope`` (鄉射禮: 110–258 and the 記 lines 333–365,
372–391), the report gives the steps that cite it (with their spec lines and verbs) and the
share of its characters their ``jing`` covers; or the rule that carries it (``rules:``); or
the stated reason it is not enacted (``uncovered:``); or, if none of these, a *gap*.

A passage counts as enacted when a step or a rule carries it; the share enacted is the last
line of ``sheli coverage``. The spec is checked against the text first (every cite a passage,
every ``jing`` in its passage), so a wrong cite is an error, not a gap.

>>> rep = coverage("xiangshe")
>>> rep.count("gap"), rep.share > 0.9
(0, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sheli.engine.check import all_steps, check_spec, parse_cite
from sheli.engine.env import Env, passage_info
from sheli.rite import LoadedSpec, load_spec
from sheli.rite.nodes import ActStep, CallStep, IfStep
from sheli.text import get_passage
from sheli.text.variants import fold

DEFAULT_SCOPE = [(110, 258), (333, 365), (372, 391)]


@dataclass
class PassageCoverage:
    """One passage: what enacts it, or why nothing does."""

    n: int
    text: str
    kind: str
    steps: list[dict[str, Any]] = field(default_factory=list)  # {line, verb, actor, jing}
    rule: str | None = None
    reason: str | None = None
    chars: float = 0.0  # share of the passage's characters covered by the steps' jing

    @property
    def status(self) -> str:
        """``step``, ``rule``, ``uncovered`` (with a reason) or ``gap``."""
        if self.steps:
            return "step"
        if self.rule:
            return "rule"
        if self.reason:
            return "uncovered"
        return "gap"

    @property
    def enacted(self) -> bool:
        return self.status in ("step", "rule")


@dataclass
class Report:
    rite: str
    chapter: str
    passages: list[PassageCoverage]

    def count(self, status: str) -> int:
        return sum(1 for p in self.passages if p.status == status)

    @property
    def share(self) -> float:
        """The share of passages in scope enacted by a step or a rule."""
        if not self.passages:
            return 0.0
        return sum(1 for p in self.passages if p.enacted) / len(self.passages)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rite": self.rite,
            "chapter": self.chapter,
            "share": round(self.share, 4),
            "counts": {s: self.count(s) for s in ("step", "rule", "uncovered", "gap")},
            "passages": [
                {
                    "cite": f"{self.chapter}:{p.n}",
                    "kind": p.kind,
                    "text": p.text,
                    "status": p.status,
                    "steps": p.steps,
                    "chars": round(p.chars, 3),
                    "rule": p.rule,
                    "reason": p.reason,
                }
                for p in self.passages
            ],
        }


def _mark(fold: Callable[[str], str], passage: str, jing: str | None, marks: list[bool]) -> None:
    """Mark the characters of ``passage`` that ``jing`` covers (every occurrence)."""
    if not jing:
        return
    hay, needle = fold(passage), fold(jing)
    start = hay.find(needle)
    while start >= 0 and needle:
        for i in range(start, start + len(needle)):
            marks[i] = True
        start = hay.find(needle, start + 1)


def _check_text(loaded: LoadedSpec) -> None:
    """The static checks that need only the text: cites exist, jing is in its passage."""
    env = Env(
        passage=passage_info,
        fold=fold,
        section_topic=lambda n: "",
        venue=None,
        outcome=lambda *a: (False, None),
        release=lambda *a: (False, ""),
        side_of=lambda a: "right",
        announce=lambda r, left: "",
        count_procedure=lambda n, side: [],
    )
    check_spec(loaded.spec, loaded.file, env)


def coverage(rite: str | Path = "xiangshe") -> Report:
    """The coverage report of a spec (by key, alias or path)."""
    loaded: LoadedSpec = load_spec(rite)
    spec = loaded.spec
    _check_text(loaded)
    scope = [tuple(r) for r in spec.scope] or DEFAULT_SCOPE
    numbers = [n for a, b in scope for n in range(a, b + 1)]
    cov: dict[int, PassageCoverage] = {}
    for n in numbers:
        p = get_passage(f"{spec.chapter}:{n}")
        cov[n] = PassageCoverage(n, p.text, p.kind)
    marks = {n: [False] * len(c.text) for n, c in cov.items()}

    for step, _cite, proc in all_steps(spec):
        own = getattr(step, "cite", None)
        if own is None:
            continue
        try:
            chapter, a, b = parse_cite(own)
        except ValueError:
            continue
        if chapter != spec.chapter or a not in cov:  # a variant's steps may cite its base
            continue
        if isinstance(step, ActStep):
            acts = step.acts()
            verb = "、".join(dict.fromkeys(x.verb for x in acts))
            actor = "、".join(dict.fromkeys(x.actor for x in acts))
        elif isinstance(step, CallStep):
            verb, actor = f"call {step.call}", ""
        elif isinstance(step, IfStep):
            verb, actor = "if", ""
        else:
            verb, actor = type(step).__name__, ""
        entry = {"line": step.line, "verb": verb, "actor": actor, "jing": step.jing}
        if proc:
            entry["procedure"] = proc
        cov[a].steps.append(entry)
        _mark(fold, cov[a].text, step.jing, marks[a])
    for rule in spec.rules:
        chapter, a, b = parse_cite(rule.cite)
        for n in range(a, b + 1) if chapter == spec.chapter else ():
            if n in cov:
                how = rule.enforced_by
                cov[n].rule = how if isinstance(how, str) else "; ".join(how)
    for u in spec.uncovered:
        chapter, a, b = parse_cite(u.cite)
        for n in range(a, b + 1) if chapter == spec.chapter else ():
            if n in cov:
                cov[n].reason = u.reason
    for n, c in cov.items():
        m = marks[n]
        c.chars = sum(m) / len(m) if m else 0.0
    return Report(spec.rite, spec.chapter, [cov[n] for n in numbers])

"""Static checks of a spec before it runs: cites, 經 words, verbs, assumptions, procedures.

Each step's ``jing`` must be found in its passage after variant folding (so 矦/侯, 于/於 and
the like do not matter); its ``cite`` must be a passage of the spec's chapter. The first fault
is raised as a :class:`~sheli.rite.loader.SpecError` naming the line.

A spec that passed is remembered on disk (:func:`check_loaded`), keyed by the bytes of its
files, of the text's passages and of the code that checks them, so a later process running
the same spec against the same text does not check it again.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sheli import diskcache
from sheli.engine.env import Env, passage_info
from sheli.engine.verbs import VERBS
from sheli.rite.loader import SpecError
from sheli.rite.nodes import ActStep, CallStep, ForEachStep, IfStep, RoundStep, Spec

_CITE = re.compile(r"^([a-z]+):(\d+)(?:-(\d+))?$")


def parse_cite(cite: str) -> tuple[str, int, int]:
    """``xiangshe:247`` → (xiangshe, 247, 247); ``xiangshe:372-377`` → (xiangshe, 372, 377).

    >>> parse_cite("xiangshe:372-377")
    ('xiangshe', 372, 377)
    """
    m = _CITE.match(cite.strip())
    if not m:
        raise ValueError(f"{cite!r} is not a passage id like xiangshe:247")
    a = int(m.group(2))
    b = int(m.group(3) or a)
    return m.group(1), a, b


def walk(steps: list[Any], cite: str | None = None) -> Iterator[tuple[Any, str | None]]:
    """Every step with the cite in force for it (inherited from if/for_each)."""
    for s in steps:
        here = getattr(s, "cite", None) or cite
        yield s, here
        if isinstance(s, IfStep):
            yield from walk(s.then, here)
            yield from walk(s.else_, here)
        elif isinstance(s, ForEachStep):
            yield from walk(s.do, here)


def all_steps(spec: Spec) -> Iterator[tuple[Any, str | None, str | None]]:
    """(step, cite in force, procedure name or None) for the main steps and every procedure."""
    for s, c in walk(spec.steps):
        yield s, c, None
    for name, proc in spec.procedures.items():
        for s, c in walk(proc.steps, proc.cite):
            yield s, c, name


# What a check's verdict depends on besides the spec's own files: the checking code, the
# verbs' vocabulary, the passages and their folding (the text layer's code and tables).
_ENGINE = Path(__file__).parent
_TEXT = _ENGINE.parent / "text"
_INPUTS = (
    (_ENGINE, ("check.py", "env.py", "verbs*.py")),
    (_TEXT, ("corpus.py", "variants.py", "data/*.tsv")),
)


def _inputs() -> list[bytes]:
    out = []
    for folder, patterns in _INPUTS:
        for pattern in patterns:
            for p in sorted(folder.glob(pattern)):
                out += [p.name.encode(), p.read_bytes()]
    return out


def check_entry(files: list[Path]) -> Path:
    """The cache entry that says a spec built from ``files`` (the spec's, its parts') passed
    the checks against the real text (``checks/`` in :mod:`sheli.diskcache`'s folder).

    >>> from sheli.rite import load_spec
    >>> loaded = load_spec("xiangshe")
    >>> entry = check_entry(loaded.files)
    >>> entry == check_entry(loaded.files), entry.parent.name
    (True, 'checks')
    """
    return diskcache.cache_dir("checks") / diskcache.key(
        *_inputs(), *(p.read_bytes() for p in files)
    )


def check_loaded(loaded: Any, env: Env) -> None:
    """Check a :class:`~sheli.rite.LoadedSpec` once: against the real text, once per process
    and once for all processes while nothing it depends on changes (:func:`check_entry`); a
    stand-in text every time. Raises :class:`SpecError` like :func:`check_spec`.

    >>> from sheli.engine import default_env
    >>> from sheli.scoring.outcomes import SeededOutcomes
    >>> from sheli.rite import load_spec
    >>> loaded = load_spec("yanshe")
    >>> check_loaded(loaded, default_env("qin", SeededOutcomes(0), "yan")); loaded.checked
    True
    """
    real = env.passage is passage_info
    if loaded.checked and real:
        return
    entry = None
    if real:
        try:
            entry = check_entry(loaded.files)
        except OSError:  # a file gone since it was loaded: check, remember nothing
            entry = None
        if entry is not None and diskcache.read(entry) is True:
            loaded.checked = True
            return
    check_spec(loaded.spec, loaded.file, env)
    loaded.checked = real  # a stand-in text is checked every time
    if entry is not None:
        diskcache.write(entry, True)


def check_spec(spec: Spec, spec_file: str, env: Env) -> None:
    """Raise :class:`SpecError` for the first static fault of the spec."""
    file = spec_file  # the file the entry being checked came from (a part file, or the spec)
    assumption_ids = {a.id for a in spec.assumptions}

    def cite_ok(cite: str, line: int, what: str | None = None) -> None:
        try:
            chapter, a, b = parse_cite(cite)
        except ValueError as exc:
            raise SpecError(str(exc), file=file, line=line, cite=cite, what=what) from None
        # a variant (extends:) enacts its base's passages too: any chapter's passage is a
        # citation; coverage counts only the spec's own chapter
        if env.passage(f"{chapter}:1") is None:
            raise SpecError(f"{cite}: no chapter {chapter!r}", file=file, line=line, cite=cite)
        for n in (a, b):
            if env.passage(f"{chapter}:{n}") is None:
                raise SpecError(
                    f"there is no passage {chapter}:{n}", file=file, line=line, cite=cite, what=what
                )

    for s, cite, _proc in all_steps(spec):
        file = s.file or spec_file
        line = s.line
        own = getattr(s, "cite", None)
        if own is not None:
            cite_ok(own, line)
        jing = getattr(s, "jing", None)
        if jing is not None and own is not None:
            info = env.passage(own)
            if info is not None and env.fold(jing) not in env.fold(info.text):
                raise SpecError(
                    f"jing {jing!r} is not in the passage (which reads {info.text!r})",
                    file=file,
                    line=line,
                    cite=own,
                )
        if isinstance(s, ActStep):
            if cite is None:
                raise SpecError(
                    "a step without cite: (every act enacts a passage)", file=file, line=line
                )
            for a in s.assumes:
                if a not in assumption_ids:
                    raise SpecError(
                        f"assumes {a!r}, which is not under assumptions:",
                        file=file,
                        line=line,
                        cite=cite,
                    )
            for act in s.acts():
                if act.verb not in VERBS:
                    raise SpecError(
                        f"unknown verb {act.verb!r} (the vocabulary is in docs/rite-spec.md)",
                        file=file,
                        line=act.line or line,
                        cite=cite,
                        what=f"{act.verb} by {act.actor}",
                    )
                for a in act.assumes:
                    if a not in assumption_ids:
                        raise SpecError(
                            f"assumes {a!r}, which is not under assumptions:",
                            file=file,
                            line=act.line or line,
                            cite=cite,
                        )
        elif isinstance(s, CallStep) and s.call not in spec.procedures:
            raise SpecError(
                f"no procedure named {s.call!r} (procedures: {', '.join(spec.procedures)})",
                file=file,
                line=line,
                cite=cite,
            )
        elif isinstance(s, RoundStep):
            pass
    for r in spec.rules:
        file = r.file or spec_file
        cite_ok(r.cite, r.line)
    for u in spec.uncovered:
        file = u.file or spec_file
        cite_ok(u.cite, u.line)

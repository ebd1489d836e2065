"""The readings the rite specs model, as the Markdown section of docs/readings.md.

Each spec's ``readings:`` (see docs/rite-spec.md) are data; this module writes them as tables
between two markers in docs/readings.md, so the doc lists exactly what ``--reading`` accepts.
``python -m sheli.rite.readings docs/readings.md`` rewrites the section; a test checks it is
current.

>>> "R-houdao-ao" in spec_readings_markdown()
True
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from sheli.rite import list_specs, load_spec

BEGIN = "<!-- spec readings: begin (written by python -m sheli.rite.readings) -->"
END = "<!-- spec readings: end -->"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def own_readings(spec: Any) -> list[Any]:
    """A spec's readings; for a variant (``extends:``) only those it states itself (the base's
    are listed under the base)."""
    if not spec.extends:
        return list(spec.readings)
    return [r for r in spec.readings if r.file is None]


def spec_readings_markdown() -> str:
    """One section per shipped spec with readings: a table per question, default first."""
    out: list[str] = []
    for key in list_specs():
        spec = load_spec(key).spec
        readings = own_readings(spec)
        if not readings:
            continue
        out.append(f"### {spec.title or key} (`sheli run {key} --reading ID`)")
        out.append("")
        if spec.extends:
            out.append(
                f"A variant of `{spec.extends}`: its base's readings apply where it runs the "
                "base's steps."
            )
            out.append("")
        groups: dict[str, list] = {}
        for r in readings:
            groups.setdefault(r.group, []).append(r)
        for group, rs in groups.items():
            rs.sort(key=lambda r: not r.default)
            out.append(f"**{_cell(group)}**")
            out.append("")
            out.append("| id | default | reading | sources |")
            out.append("|---|---|---|---|")
            for r in rs:
                src = "; ".join(_cell(s) for s in r.sources)
                out.append(f"| `{r.id}` | {'yes' if r.default else ''} | {_cell(r.text)} | {src} |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def rewrite(doc: Path) -> bool:
    """Put the current section between the markers of ``doc``; True if it changed."""
    text = doc.read_text("utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{doc}: the markers {BEGIN!r} and {END!r} are missing")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n\n{spec_readings_markdown()}\n{END}{tail}"
    if new != text:
        doc.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":  # pragma: no cover
    print("rewritten" if rewrite(Path(sys.argv[1])) else "current")

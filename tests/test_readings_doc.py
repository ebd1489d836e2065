"""docs/readings.md lists the readings the specs model, and each one runs.

The spec section of the doc is written from the specs (``python -m sheli.rite.readings
docs/readings.md``); this test fails when a spec gains, loses or changes a reading and the doc
was not rewritten. Each non-default reading must run its rite to the last step: a reading that
breaks the rite is worse than none.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from loglines import log_lines
from sharing import same_run

from sheli.rite import list_specs, load_spec
from sheli.rite.readings import BEGIN, END, own_readings, spec_readings_markdown

DOC = Path(__file__).parent.parent / "docs" / "readings.md"


def test_the_doc_lists_the_specs_readings_as_they_are() -> None:
    text = DOC.read_text("utf-8")
    section = text.split(BEGIN, 1)[1].split(END, 1)[0]
    assert section.strip() == spec_readings_markdown().strip(), (
        "run: python -m sheli.rite.readings docs/readings.md"
    )


def _alternatives() -> list[tuple[str, str]]:
    out = []
    for key in list_specs():
        for r in own_readings(load_spec(key).spec):
            if not r.default:
                out.append((key, r.id))
    return out


def test_every_question_has_one_default() -> None:
    for key in list_specs():
        groups: dict[str, int] = {}
        for r in load_spec(key).spec.readings:
            groups[r.group] = groups.get(r.group, 0) + int(r.default)
        assert all(n == 1 for n in groups.values()), (key, groups)


@pytest.mark.parametrize(
    ("rite", "reading"),
    [pytest.param(r, x, marks=same_run(f"config {r} {x}")) for r, x in _alternatives()],
)
@pytest.mark.slow
def test_each_reading_runs_its_rite_to_the_end(
    rite: str, reading: str, run_once: Callable[..., Any]
) -> None:
    # the 侯道 from the 物 is drawn on its own plan (the 量人 checks the plan against it)
    venue = {"venue": "shegong_ao"} if reading == "R-houdao-ao" else {}
    # seed 0, the default, as tests/test_world_rules.py's configurations: their runs, shared
    default = run_once(rite, seed=0)
    other = run_once(rite, seed=0, readings=[reading], **venue)

    def steps(r) -> list[tuple]:
        return [
            (e["cite"], e["actor"], e["verb"], e["x"], e["y"], e.get("says"))
            for e in log_lines(r)
            if e["type"] == "step"
        ]

    assert steps(other)[-1][0] == steps(default)[-1][0]
    assert reading in other.params["readings"]
    # a reading is modelled only if the performance shows it
    assert steps(other) != steps(default)

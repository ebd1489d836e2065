"""The outputs whose bytes a refactoring of their readers must keep: the 儀注, the cue sheets,
the run-of-show, the viewer's data and the live app's exports, each hashed.

``python tests/golden/outputs.py --write`` records the hashes in ``outputs.tsv`` beside this
file (after a change to an output that a commit names and explains); the test
``tests/test_golden_outputs.py`` compares them. The runs are 鄉射禮 (default and a seed),
大射儀, 燕射, 燕禮 and two readings.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2

HERE = Path(__file__).resolve().parent
TABLE = HERE / "outputs.tsv"

RUNS: dict[str, dict[str, Any]] = {
    "xiangshe": {"rite": "xiangshe"},
    "xiangshe-seed1": {"rite": "xiangshe", "seed": 1},
    "dashe": {"rite": "dashe"},
    "yanshe": {"rite": "yanshe"},
    "yanli": {"rite": "yanli"},
    "dashe-R-sanou-shi": {"rite": "dashe", "reading": "R-sanou-shi"},
    "xiangshe-R-zhi-zuojie": {"rite": "xiangshe", "reading": "R-zhi-zuojie"},
}


def _run(name: str) -> Any:
    from sheli.engine import run

    kw = dict(RUNS[name])
    rite = kw.pop("rite")
    reading = kw.pop("reading", None)
    if reading:
        kw["readings"] = [reading]
    return run(rite, **kw)


def yizhu(r: Any) -> str:
    from sheli.cli.run import _yizhu_text

    return _yizhu_text(r, width=120)


def runofshow(r: Any) -> str:
    from sheli.outputs.runofshow import estimate, sections

    est = estimate(r)
    return json.dumps(
        {"seconds": est.seconds, "walks": est.walks_m, "sections": sections(r, est)},
        ensure_ascii=False,
        default=str,
    )


def cues_text(r: Any) -> str:
    from sheli.outputs.cues import build_book, render_text

    return render_text(build_book(r, diagrams=False))


def cues_plan(r: Any) -> str:
    from sheli.outputs.cues import build_book, render_html

    return render_html(build_book(r, diagrams="plan"))


def cues_near(r: Any) -> str:
    from sheli.outputs.cues import build_book, render_html

    return render_html(build_book(r, ["釋獲者", "司射"], diagrams="near", floor=False))


def viewer_data(r: Any) -> str:
    from sheli.outputs.render import viewer_data as data

    return json.dumps(data(r), ensure_ascii=False)  # in its order, as the page holds it


class _NoTemplates:
    def render(self, name: str, **kw: Any) -> str:
        raise jinja2.TemplateNotFound(name)


def export(_: Any) -> str:
    from sheli.serve import export as ex
    from sheli.serve.live import LiveEvent

    config = {"id": "e1", "created_ms": 0, "rite": "xiangshe", "venue": "xie", "pairs": 1}
    ev = LiveEvent(config | {"guests_shoot": False, "dafu": 1, "cast": [], "hou_dao_m": 20})
    return "\n".join(
        [
            ex.export_jsonl(ev),
            ex.results_csv(ev),
            ex.outcomes_csv(ev),
            ex.run_of_show_html(ev),
            ex.results_html(ev),
            ex.pack_html(_NoTemplates(), ev),
            ex.diagram_svg(ev, 40) or "",
        ]
    )


OUTPUTS: dict[str, Callable[[Any], str]] = {
    "yizhu": yizhu,
    "runofshow": runofshow,
    "cues-text": cues_text,
    "cues-plan": cues_plan,
    "viewer-data": viewer_data,
}
#: outputs too slow or too alike to take for every run: for the first run only
FIRST_ONLY: dict[str, Callable[[Any], str]] = {"cues-near": cues_near, "export": export}


def cases() -> list[str]:
    out = [f"{run}/{o}" for run in RUNS for o in OUTPUTS]
    return out + [f"{next(iter(RUNS))}/{o}" for o in FIRST_ONLY]


def digest(case: str, runs: dict[str, Any] | None = None) -> str:
    name, out = case.split("/")
    runs = {} if runs is None else runs
    if name not in runs:
        runs[name] = _run(name)
    text = {**OUTPUTS, **FIRST_ONLY}[out](runs[name])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_table() -> dict[str, str]:
    out: dict[str, str] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            case, sha = line.split("\t")
            out[case] = sha
    return out


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/golden/outputs.py --write")
    rows = ["# run/output\tsha256 of the output's text"]
    runs: dict[str, Any] = {}
    for case in cases():
        rows.append(f"{case}\t{digest(case, runs)}")
        print(case, file=sys.stderr)
    TABLE.write_text("\n".join(rows) + "\n", encoding="utf-8")

"""The run-of-show by the timeline (sheli.outputs.runofshow.show): the rite's length, each
section's start and each performer's waits, checked against the event log's own times."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest

from sheli.engine import run
from sheli.engine.records import Step, accept
from sheli.outputs.eventlog import record_lines
from sheli.outputs.runofshow import NO_WAIT, RunOfShow, ShowRows, show, show_text

#: every test runs or reads whole rites (README: the quick loop)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def xiangshe(run_once: Callable[..., Any]) -> tuple[RunOfShow, list[dict[str, Any]]]:
    r = run_once("xiangshe", seed=1)
    steps = [json.loads(x) for x in record_lines(r.records)]
    return show(r), [e for e in steps if e["type"] == "step"]


def _performers(step: dict[str, Any]) -> list[str]:
    return [m["name"] for m in step.get("members", ())] or [step["actor"]]


def test_the_length_is_the_timelines_and_less_than_the_acts_added_up(xiangshe) -> None:
    ros, steps = xiangshe
    end = max(s["t"] + s["dur"] for s in steps)
    assert ros.span == pytest.approx(end - min(s["t"] for s in steps))
    assert ros.total == pytest.approx(sum(s["dur"] for s in steps))
    # people act at once: the rite is shorter than its acts one after another
    assert 0.5 < ros.ratio < 0.98


def test_each_section_starts_with_its_first_act(xiangshe) -> None:
    ros, steps = xiangshe
    assert sum(r["steps"] for r in ros.sections) == len(steps)
    at = 0
    for row in ros.sections:
        mine = steps[at : at + row["steps"]]
        at += row["steps"]
        assert {(s["section"], s["round"]) for s in mine} == {row["key"]}
        assert (mine[0]["seq"], mine[-1]["seq"]) == (row["first_seq"], row["last_seq"])
        assert row["start_s"] == min(s["t"] for s in mine)
        assert row["end_s"] == pytest.approx(max(s["t"] + s["dur"] for s in mine))
        assert row["seconds"] == pytest.approx(row["end_s"] - row["start_s"])
        assert row["acts_s"] == pytest.approx(sum(s["dur"] for s in mine))
    # the rounds of shooting come in order, after the feast's start
    starts = {r["round"]: r["start_s"] for r in reversed(ros.sections) if r["round"]}
    assert 0 < starts[1] < starts[2] < starts[3]


def test_each_performers_waits_are_the_gaps_between_his_acts(xiangshe) -> None:
    ros, steps = xiangshe
    acts: dict[str, list[dict[str, Any]]] = {}
    for s in steps:
        for who in _performers(s):
            acts.setdefault(who, []).append(s)
    assert set(ros.present) == set(acts)
    for who, mine in acts.items():
        gaps = [
            (a["seq"], b["seq"], round(b["t"] - (a["t"] + a["dur"]), 2))
            for a, b in itertools.pairwise(mine)
            if b["t"] - (a["t"] + a["dur"]) > NO_WAIT
        ]
        assert [(w.after, w.before, w.seconds) for w in ros.waits.get(who, [])] == gaps, who
        first, last = ros.present[who]
        assert (first, last) == (mine[0]["t"], pytest.approx(mine[-1]["t"] + mine[-1]["dur"]))
        # present = acting + waiting: one person does one thing at a time
        acting = sum(s["dur"] for s in mine)
        assert last - first == pytest.approx(acting + ros.waited(who), abs=0.01 * len(mine))


def test_the_first_pair_stands_while_the_last_pair_shoots(xiangshe) -> None:
    ros, steps = xiangshe
    for rnd in (2, 3):
        shots = [
            s
            for s in steps
            if s["verb"] == "射" and s["actor"].startswith("下耦") and s["round"] == rnd
        ]
        assert len(shots) == 8
        # the 上耦 went to the 堂西 and stands there (his 説決拾 may go on while the 次耦 shoot)
        waits = ros.waits["上耦上射"]
        for shot in shots:
            assert any(w.start <= shot["t"] <= w.start + w.seconds for w in waits), shot["seq"]


def test_the_text_gives_the_length_and_every_performer(xiangshe) -> None:
    ros, _ = xiangshe
    text = show_text(ros, "鄉射禮")
    assert text.startswith("鄉射禮: ") and "by the timeline" in text
    assert len(text.splitlines()) == 3 + len(ros.sections) + 2 + len(ros.present)
    assert "\n上耦上射  " in text


def test_a_run_without_times_is_refused() -> None:
    r = run("xiangshe", pairs=0, guests=False, seed=1)
    bare = [x._replace(t=None) if type(x) is Step else x for x in r.records]
    with pytest.raises(ValueError, match="has no time"):
        accept(bare, ShowRows())

"""Shared fixtures. Tests that proof-read against ../shared/corpus skip where it is absent.

What is costly to make (a render, a run and its frames) is made once per session and shared
by the modules that only read it; under pytest-xdist (``make test``: ``-n auto --dist
loadgroup``) each worker has its own session, and the tests that share a browser are sent to
one worker (``xdist_group``). Tests of several seconds carry the ``slow`` marker:
``pytest -m "not slow"`` is the quick loop (README).
"""

from __future__ import annotations

import os
import resource
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sharing import Once, Shelf, source_hash

from sheli.cli import cli
from sheli.engine import RunOptions, run
from sheli.outputs.frames import build_frames
from sheli.rite import load_spec

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

# pytest collects the examples of every module (--doctest-modules, pyproject): those of src/sheli.
# The helpers here are no test modules and hold none (and two conftests of one name collide).
collect_ignore = [
    "conftest.py",
    "browser/conftest.py",
    "fixtures",
    "golden/logs.py",
    "golden/outputs.py",
]


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    path = SHARED / "corpus"
    if not path.is_dir():
        pytest.skip("../shared/corpus is not beside this checkout")
    return path


@pytest.fixture(scope="session")
def seeds_dir() -> Path:
    path = SHARED / "seeds"
    if not path.is_dir():
        pytest.skip("../shared/seeds is not beside this checkout")
    return path


#: Docstring examples that make or draw whole runs, of over 0.3 s of CPU each (a doctest
#: carries no marker of its own).
SLOW_DOCTESTS = {
    "sheli.cli.diff",
    "sheli.collector.sweep",
    "sheli.engine.paths.check.walk_faults",
    "sheli.engine.run",
    "sheli.engine.timeline",
    "sheli.engine.timeline._meeting",
    "sheli.engine.timeline.overlaps",
    "sheli.engine.timeline.schedule",
    "sheli.engine.timeline.schedule_steps",
    "sheli.engine.timeline.too_close",
    "sheli.engine.verbs_court.measure",
    "sheli.outputs.cues.CueReader",
    "sheli.outputs.cues.build_book",
    "sheli.outputs.cues.render_html",
    "sheli.outputs.cues.render_text",
    "sheli.outputs.cues.roles",
    "sheli.outputs.diagram",
    "sheli.outputs.diagram.crowds",
    "sheli.outputs.diagram.draw.render_svg",
    "sheli.outputs.diagram.draw.render_svg_parts",
    "sheli.outputs.diagram.layout.body_boxes",
    "sheli.outputs.diff",
    "sheli.outputs.english_cues",
    "sheli.outputs.english_cues.english_cue_html",
    "sheli.outputs.english_cues.english_cue_text",
    "sheli.outputs.frames",
    "sheli.outputs.frames.Frame.people_dict",
    "sheli.outputs.ghosts",
    "sheli.outputs.ghosts.reading_pairs",
    "sheli.outputs.pdf",
    "sheli.outputs.pdf.shadow_fonts",
    "sheli.outputs.pdf.subset_font",
    "sheli.outputs.render",
    "sheli.outputs.viewer_english.EnglishTable",
    "sheli.outputs.render.chunk_svgs",
    "sheli.outputs.render.draw_packed",
    "sheli.outputs.render.iter_svgs",
    "sheli.outputs.render.render",
    "sheli.outputs.render.tally_states",
    "sheli.rite.cache",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser tests (tests/browser) share one chromium and one render per session: they
    go to one xdist worker together, and are slow (a browser's start, pages loaded). The
    doctests of SLOW_DOCTESTS are slow too."""
    browser_dir = Path(__file__).parent / "browser"
    for item in items:
        if browser_dir in item.path.parents:
            item.add_marker(pytest.mark.xdist_group("browser"))
            item.add_marker(pytest.mark.slow)
        elif isinstance(item, pytest.DoctestItem) and item.name in SLOW_DOCTESTS:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[None]:
    """The test modules pytest rewrites (their asserts) are kept as byte code
    (tests/__pycache__) even where PYTHONDONTWRITEBYTECODE is set: rewriting them all again
    is some 4 s of CPU in each process of every run (each xdist worker collects them)."""
    kept = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = kept


#: CPU seconds over which a test not marked slow is named at the end of the run (its call and
#: its own fixtures, in its process and the processes it waited for): the quick loop's guard,
#: a report and no assertion, in CPU and not wall time so that a busy machine moves it little.
#: Tests are marked slow from 0.3 s; the report leaves room for noise (README, "Working on
#: sheli: tests").
SLOW_CPU = 0.5
CPU_SPENT = pytest.StashKey[float]()


def _cpu_seconds() -> float:
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


#: CPU seconds spent making the fixtures of a module or the session so far: made once for
#: many tests, they are not counted against the first test that asks for one
SHARED_FIXTURES_CPU = [0.0]


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any]) -> Iterator[Any]:
    start = _cpu_seconds()
    try:
        return (yield)
    finally:
        if fixturedef.scope != "function":
            SHARED_FIXTURES_CPU[0] += _cpu_seconds() - start


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    start, shared = _cpu_seconds(), SHARED_FIXTURES_CPU[0]
    try:
        return (yield)
    finally:
        item.stash[CPU_SPENT] = _cpu_seconds() - start - (SHARED_FIXTURES_CPU[0] - shared)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    start = _cpu_seconds()
    try:
        return (yield)
    finally:
        item.stash[CPU_SPENT] = item.stash.get(CPU_SPENT, 0.0) + _cpu_seconds() - start


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    report = yield
    if call.when == "call":  # the report a worker sends back to pytest-xdist's controller
        report.user_properties.append(("cpu_seconds", round(item.stash.get(CPU_SPENT, 0.0), 2)))
    return report


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Name the tests not marked slow that took over SLOW_CPU seconds of CPU."""
    unmarked = []
    for kind in ("passed", "failed"):
        for report in terminalreporter.stats.get(kind, []):
            cpu = dict(getattr(report, "user_properties", ())).get("cpu_seconds", 0.0)
            if report.when == "call" and cpu > SLOW_CPU and "slow" not in report.keywords:
                unmarked.append((cpu, report.nodeid))
    if unmarked:
        terminalreporter.section(f"not marked slow, over {SLOW_CPU:g} s of CPU")
        for cpu, nodeid in sorted(unmarked, reverse=True):
            terminalreporter.write_line(f"{cpu:6.2f} s  {nodeid}")
        terminalreporter.write_line("mark them @pytest.mark.slow (README: the quick loop)")


@pytest.fixture(scope="session")
def xiangshe_render(tmp_path_factory: pytest.TempPathFactory, shelf: Shelf) -> Path:
    """``sheli render xiangshe --svg -o DIR`` as a user runs it (with the per-step SVG files),
    once per session, for tests/test_render.py and the browser tests, which only read it: the
    directory. Under xdist it is made in the shelf's folder by the first worker to ask, and
    the others read it there (the browser tests and test_render.py's go to both)."""
    base = shelf.folder or tmp_path_factory.mktemp("render")

    def make() -> Path:
        d = base / "render-xiangshe" / "out"  # alone in its folder (test_render.py looks)
        res = CliRunner().invoke(cli, ["render", "xiangshe", "--svg", "-o", str(d)])
        assert res.exit_code == 0, res.output
        assert "wrote" in res.output and "index.html" in res.output
        return d

    return shelf("render xiangshe --svg", make)


@pytest.fixture(scope="session")
def once() -> Once:
    """A session's :class:`Once`: ``once(key, make)``."""
    return Once()


@pytest.fixture(scope="session")
def shelf(tmp_path_factory: pytest.TempPathFactory) -> Shelf:
    """The session's :class:`Shelf` of runs: under pytest-xdist a folder its workers share
    (the parent of each worker's temporary folder, the session's own), else none."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return Shelf(None, salt="")
    folder = tmp_path_factory.getbasetemp().parent / "shelf"
    folder.mkdir(exist_ok=True)
    return Shelf(folder, salt=source_hash(ROOT / "src" / "sheli"))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The shelf's runs (some 1.4 MB each) go as the session ends: pytest keeps the last
    three sessions' temporary folders. Only the xdist controller removes it, once its
    workers have all ended."""
    if "PYTEST_XDIST_WORKER" not in os.environ and session.config.pluginmanager.has_plugin(
        "dsession"
    ):
        folder = session.config._tmp_path_factory.getbasetemp() / "shelf"
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def run_once(once: Once, shelf: Shelf) -> Callable[..., Any]:
    """``run(rite, **kw)`` once per session for each set of arguments, for tests that only read
    the run (its records, its log lines, its ``path_faults``, which it keeps once found): made
    by one xdist worker and read by the others (:class:`Shelf`)."""

    def made(rite: str | Path, **kw: Any) -> Any:
        key = run_key(rite, kw)
        return once(key, lambda: shelf(repr(key), lambda: run(rite, **kw)))

    return made


#: the choices of ``run`` that :func:`run_key` resolves as the engine does
RESOLVED = {"venue", "pairs", "guests", "seed", "arrows_short", "dafu", "readings", "options"}


def run_key(rite: str | Path, kw: dict[str, Any]) -> tuple[str, ...]:
    """The key of ``run(rite, **kw)``: its spec file and the parameters the engine resolves
    them to (the spec's defaults filled in, the seed 0 if none), so that ``run("xiangshe")``
    and ``run("xiangshe", pairs=0, seed=0)``, one run, are made once; with another choice
    (``outcomes``), the arguments as given.

    >>> run_key("xiangshe", {}) == run_key("xiangshe", {"pairs": 0, "seed": 0})
    True
    """
    if set(kw) - RESOLVED:
        return ("run", rite, repr(sorted(kw.items())))
    loaded = load_spec(rite)
    choices = {k: v for k, v in kw.items() if k != "seed"}
    params = RunOptions(**{**choices, "readings": tuple(kw.get("readings") or ())}).params(loaded)
    return ("run", str(loaded.path), repr(sorted(params.items())), repr(kw.get("seed") or 0))


@pytest.fixture(scope="session")
def xiangshe_seed1_frames(run_once: Callable[..., Any]) -> tuple[Any, list[Any]]:
    """The default 鄉射禮 of seed 1 (``run_once``'s): its scene and its frames, once per
    session, for the diagram and label tests, which only read them."""
    r = run_once("xiangshe", seed=1)
    return r.scene, build_frames(r)


@pytest.fixture()
def shared_command_runs(monkeypatch: pytest.MonkeyPatch, run_once: Callable[..., Any]) -> None:
    """The runs the commands a test invokes make (``sheli.engine.run``, where no ``sink`` takes
    its records) taken from ``run_once``: for a test of what a command does with a run (a
    file written, a language), not of the run. The choices a command leaves unset (None, or
    no reading) are the engine's defaults, left out of the key."""

    def shared(rite: Any, *, sink: Any = None, walks_apart: bool = False, **kw: Any) -> Any:
        if sink is not None:
            return run(rite, sink=sink, walks_apart=walks_apart, **kw)
        return run_once(rite, **{k: v for k, v in kw.items() if v is not None and v != []})

    monkeypatch.setattr("sheli.engine.run", shared)

"""tools/transcribe.py reproduces the committed canonical text from the seeds and corpus."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_tool() -> ModuleType:
    name = "sheli_tools_transcribe"
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / "transcribe.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up here
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def built(corpus_dir: Path, seeds_dir: Path):  # type: ignore[no-untyped-def]
    return load_tool().build()


@pytest.mark.slow
def test_data_files_are_reproducible(built) -> None:  # type: ignore[no-untyped-def]
    files, _, _ = built
    data = ROOT / "src" / "sheli" / "text" / "data"
    for name, content in files.items():
        assert (data / name).read_text(encoding="utf-8") == content, name


def test_seed_defects_are_caught(built) -> None:  # type: ignore[no-untyped-def]
    _, stats, rows = built
    # 003's typos (e.g. 大射 北一笴 written once) are corrected from the corpus, and noted.
    dashe = {r.n: r for r in rows["dashe"]}
    assert "seed:003 ∅→北" in dashe[194].note
    # Other chapters' parallel paragraphs in 003 are not taken for 燕禮's passages.
    assert stats["yan"]["rejected:other-chapter-parallel"] > 0
    # 000 and 004 are 鄉射禮 only, 002 is 燕禮 only.
    for chapter, allowed in [("yan", {"seed:002", "seed:003"}), ("dashe", {"seed:003"})]:
        assert {r.source for r in rows[chapter]} - {"corpus:WYG"} <= allowed

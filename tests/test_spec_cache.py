"""Specs kept on disk between processes (sheli.rite.cache): given back only while every file
they were built from is byte for byte the same; a changed part, or a corrupt or unreadable
cache, and the spec is parsed again."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import platformdirs
import pytest

import sheli.rite as R
from sheli import diskcache
from sheli.rite import cache


@pytest.fixture()
def spec_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped 鄉射禮 spec and its parts, copied; the cache in tmp_path/cache."""
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path / "cache"))
    shutil.copy(R.SPEC_DIR / "xiangshe.yaml", tmp_path / "xiangshe.yaml")
    shutil.copytree(R.SPEC_DIR / "xiangshe", tmp_path / "xiangshe")
    return tmp_path / "xiangshe.yaml"


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = R.validate_spec
    monkeypatch.setattr(
        R, "validate_spec", lambda data, file: calls.append(file) or real(data, file)
    )
    return calls


@pytest.mark.slow
def test_a_spec_is_stored_and_given_back(spec_copy: Path) -> None:
    loaded = R.load_spec(spec_copy)
    assert len(list(cache.cache_dir().glob("*.pickle"))) == 1
    again = cache.load(spec_copy)
    assert again is not None and again.spec == loaded.spec
    assert again.parts == loaded.parts and again.path == loaded.path


@pytest.mark.slow
def test_a_changed_part_is_parsed_again(spec_copy: Path, monkeypatch) -> None:
    calls = _parses(monkeypatch)
    first = R.load_spec(spec_copy)
    assert calls == ["xiangshe.yaml"]
    part = spec_copy.parent / "xiangshe" / "after.yaml"
    assert part in first.parts
    text = part.read_text("utf-8")
    part.write_text(text + "\n# a comment changes the bytes, not the spec\n", "utf-8")
    assert cache.load(spec_copy) is None  # the part's bytes changed
    second = R.load_spec(spec_copy)
    assert calls == ["xiangshe.yaml"] * 2
    assert second.spec == first.spec
    # the title changed in the spec file itself: parsed again, and the new title seen
    main = spec_copy.read_text("utf-8")
    spec_copy.write_text(main.replace("title: 鄉射禮", "title: 鄉射禮 (copy)", 1), "utf-8")
    assert R.load_spec(spec_copy).spec.title == "鄉射禮 (copy)"
    assert len(calls) == 3


@pytest.mark.slow
def test_a_corrupt_or_unreadable_cache_is_ignored(spec_copy: Path, tmp_path: Path) -> None:
    loaded = R.load_spec(spec_copy)
    (entry,) = cache.cache_dir().glob("*.pickle")
    entry.write_bytes(b"not a pickle")
    assert cache.load(spec_copy) is None
    cache.store(loaded)  # written again, whole
    assert cache.load(spec_copy) is not None
    entry.write_bytes(entry.read_bytes()[:100])  # cut short
    assert cache.load(spec_copy) is None
    # a cache directory that cannot be made: nothing stored, nothing raised
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache.store(loaded, blocker / "specs")
    assert cache.load(spec_copy, blocker / "specs") is None
    assert not list(tmp_path.glob("**/*.tmp"))


@pytest.mark.slow
def test_a_checked_spec_is_not_checked_again_until_a_file_changes(
    spec_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sheli.engine import check, default_env
    from sheli.rite.loader import SpecError
    from sheli.scoring.outcomes import SeededOutcomes

    env = default_env("xie", SeededOutcomes(0))
    checks: list[str] = []
    real = check.check_spec
    monkeypatch.setattr(
        check, "check_spec", lambda spec, file, env: checks.append(file) or real(spec, file, env)
    )
    check.check_loaded(R.load_spec(spec_copy), env)
    assert checks == ["xiangshe.yaml"]
    assert (
        check.check_entry(R.load_spec(spec_copy).files).parent
        == cache.cache_dir().parent / "checks"
    )
    # another process (a spec loaded afresh, not yet checked): the verdict is read back
    again = cache.load(spec_copy)
    assert again is not None and not again.checked
    check.check_loaded(again, env)
    assert again.checked and checks == ["xiangshe.yaml"]
    # a part's 經 changed so that it is no longer the passage's: checked again, and refused
    part = spec_copy.parent / "xiangshe" / "after.yaml"
    text = part.read_text("utf-8")
    start = text.index("jing: ") + len("jing: ")
    part.write_text(text[:start] + "飛鳥" + text[start:], "utf-8")
    with pytest.raises(SpecError, match="is not in the passage"):
        check.check_loaded(R.load_spec(spec_copy), env)
    assert checks == ["xiangshe.yaml"] * 2


@pytest.mark.skipif(sys.platform != "linux", reason="the two cases read without platformdirs")
@pytest.mark.parametrize(
    ("xdg", "home"),
    [
        (None, "/home/someone"),
        ("/var/tmp/xdg-cache", "/home/someone"),
        ("relative/cache", "/home/someone"),  # not absolute: ignored, as platformdirs does
        ("", "/"),
        (None, "relative-home"),  # platformdirs' own answer (the user's home from pwd)
    ],
)
def test_the_cache_is_where_platformdirs_puts_it(
    monkeypatch: pytest.MonkeyPatch, xdg: str | None, home: str
) -> None:
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    monkeypatch.setenv("HOME", home)
    assert diskcache.user_cache_base() == platformdirs.user_cache_dir("sheli")

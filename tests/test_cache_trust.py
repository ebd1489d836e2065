"""The disk cache trusts only itself (sheli.diskcache; docs/architecture.md, "The cache"): a
folder that others can write is left alone and said once; a planted pickle that would run
code runs nothing; an entry of the wrong shape is a miss, written again; never a traceback."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import sheli.rite as R
from sheli import diskcache
from sheli.rite import cache

RUN = [sys.executable, "-m", "sheli", "run", "xiangshe", "--format", "jsonl"]


def _run(cache_dir: Path, out: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, diskcache.CACHE_ENV: str(cache_dir)}
    return subprocess.run([*RUN, "-o", str(out)], capture_output=True, text=True, env=env)


def _spec_entry(cache_dir: Path) -> Path:
    return cache._entry(R.SPEC_DIR / "xiangshe.yaml", cache_dir / "specs")


@pytest.mark.parametrize("others", [0o002, 0o020])  # o+w, g+w
@pytest.mark.slow
def test_a_cache_that_others_can_write_is_left_alone(tmp_path: Path, others: int) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755 | others)
    done = _run(shared, tmp_path / "log")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("can be written by others") == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert list(shared.iterdir()) == []  # nothing written into it
    assert (tmp_path / "log").read_text(encoding="utf-8").count("\n") > 4000


def test_the_cache_is_made_for_this_user_alone_whatever_the_umask(tmp_path: Path) -> None:
    entry = tmp_path / "cache" / "specs" / "x.pickle"
    old = os.umask(0o002)  # (a user's own group may write what they make, as on some systems)
    try:
        diskcache.write(entry, {"a": 1})
    finally:
        os.umask(old)
    assert [oct(p.stat().st_mode & 0o777) for p in (entry.parent.parent, entry.parent, entry)] == [
        "0o700",
        "0o700",
        "0o600",
    ]
    assert diskcache.read(entry) == {"a": 1}


def test_a_kind_folder_that_others_can_write_is_left_alone(tmp_path: Path) -> None:
    base = tmp_path / "cache"
    (base / "specs").mkdir(parents=True)
    os.chmod(base / "specs", 0o775)  # g+w
    entry = base / "specs" / "x.pickle"
    diskcache.write(entry, {"a": 1})
    assert not entry.exists()
    os.chmod(base / "specs", 0o700)
    diskcache.write(entry, {"a": 1})
    assert diskcache.read(entry) == {"a": 1}
    os.chmod(base / "specs", 0o720)
    assert diskcache.read(entry) is None


class _Planted:
    """A pickle that, unpickled, would run a shell command creating ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.slow
def test_a_planted_pickle_runs_nothing_and_is_written_again(tmp_path: Path) -> None:
    base = tmp_path / "cache"
    entry = _spec_entry(base)
    entry.parent.mkdir(parents=True, mode=0o700)
    marker = tmp_path / "ran"
    entry.write_bytes(pickle.dumps(_Planted(marker)))
    assert not marker.exists()
    done = _run(base, tmp_path / "log")
    assert done.returncode == 0, done.stderr
    assert not marker.exists()  # the pickle was refused before anything of it ran
    assert "Traceback" not in done.stderr
    kept = pickle.loads(entry.read_bytes())  # written again, by the run: now a spec
    assert type(kept[1]).__name__ == "LoadedSpec"


@pytest.mark.parametrize("planted", [42, ("a", "b"), ([("x", 1)], None), {"files": []}])
@pytest.mark.slow
def test_an_entry_of_another_shape_is_a_miss_written_again(tmp_path: Path, planted: object) -> None:
    base = tmp_path / "cache"
    entry = _spec_entry(base)
    entry.parent.mkdir(parents=True, mode=0o700)
    entry.write_bytes(pickle.dumps(planted))
    assert cache.load(R.SPEC_DIR / "xiangshe.yaml", base / "specs") is None
    done = _run(base, tmp_path / "log")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert cache.load(R.SPEC_DIR / "xiangshe.yaml", base / "specs") is not None


def test_an_entry_that_is_not_this_users_is_not_read(tmp_path: Path) -> None:
    if os.getuid() != 0:
        pytest.skip("only root can give a file to another user")
    entry = tmp_path / "x.pickle"
    diskcache.write(entry, {"a": 1})
    assert diskcache.read(entry) == {"a": 1}
    os.chown(entry, 65534, 65534)
    assert diskcache.read(entry) is None

"""Inputs bounded before they are read whole (docs/architecture.md, "Hostile inputs"): a
spec whose aliases would expand it a billionfold, an outcomes file nested 100,000 deep and a
Kanripo file of random text on one line are refused in one line, exit 2, with no traceback;
the work a Kanripo import does grows with its length, not with its length squared."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sheli.text import align, editions
from sheli.text.kanripo import UNKNOWN_ENTITY, parse_kanripo

SHELI = [sys.executable, "-m", "sheli"]


def _sheli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SHELI, *args], capture_output=True, text=True, env={**os.environ, **env}
    )


def _one_line_refusal(done: subprocess.CompletedProcess[str], says: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr


def test_a_billion_laughs_spec_is_refused(tmp_path: Path) -> None:
    # twelve levels of ten aliases: 10¹² nodes expanded, from a file of some 5 KB
    lines = ["a0: &a0 [" + ", ".join(["射"] * 10) + "]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 12)]
    lines += ["rite: xiangshe", "steps: *a11"]
    spec = tmp_path / "laughs.yaml"
    spec.write_text("\n".join(lines) + "\n" + "# padding\n" * 400, encoding="utf-8")
    assert 4_000 < spec.stat().st_size < 6_000
    done = _sheli("run", str(spec))
    _one_line_refusal(done, "its aliases expand it beyond 1,000,000 nodes")
    assert "laughs.yaml:" in done.stderr


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000),
        ("deep-objects.json", '{"a":' * 100_000 + "1" + "}" * 100_000),
        ("deep.jsonl", "[" * 100_000 + "]" * 100_000 + "\n"),
    ],
)
def test_outcomes_nested_100000_deep_are_refused(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    done = _sheli("run", "xiangshe", "--outcomes", str(path))
    _one_line_refusal(done, f"{name}:1: nested too deep")


HEAD = "#+TITLE: 儀禮\n#+PROPERTY: ID KR1d0026\n"
WORDS = "鄉射之禮主人戒賓賓出迎再拜答乃請辭許退送無介席南面東上衆繼而西於阼階"


@pytest.mark.slow
def test_one_line_of_8_mb_is_refused(tmp_path: Path) -> None:
    # the most an import reads (8 MB), on one line: refused at that line, before it is parsed
    rng = random.Random(5)
    n = ((8 << 20) - len(HEAD.encode()) - 1) // 3  # three bytes a character
    path = tmp_path / "one-line.txt"
    path.write_text(HEAD + "".join(rng.choices(WORDS, k=n)) + "\n", encoding="utf-8")
    done = _sheli("text", "import", str(path), SHELI_DATA_DIR=str(tmp_path / "data"))
    _one_line_refusal(done, f"one-line.txt:3: a line of {n:,} characters")
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").rglob("*.json"))


@pytest.mark.slow
def test_every_unknown_entity_of_a_long_line_keeps_its_raw_form() -> None:
    # each 〓 takes the next raw form, in order (a list's pop(0) made this quadratic)
    n = 50_000
    lines = (
        "".join(f"射&KR{9000 + i % 900};" for i in range(k, k + 1000)) for k in range(0, n, 1000)
    )
    doc = parse_kanripo(HEAD + "\n".join(lines) + "\n")
    unknown = [c for c in doc.chars if c.ch == UNKNOWN_ENTITY]
    assert len(unknown) == n
    assert [c.src for c in unknown[:3]] == ["&KR9000;", "&KR9001;", "&KR9002;"]
    assert unknown[-1].src == f"&KR{9000 + (n - 1) % 900};"


def test_a_long_line_is_not_taken_for_the_books_furniture() -> None:
    # a short 卷 title line is furniture (dropped); the same words in a long line are text
    short = parse_kanripo(HEAD + "儀禮注疏卷五\n鄉射之禮\n")
    assert short.text == "鄉射之禮"
    long_line = "儀禮卷" + "射" * 200
    assert parse_kanripo(HEAD + long_line + "\n").text == long_line


def _plain_near(s: str, p: str, lo: int, hi: int) -> tuple[int, int] | None:
    """_near as a scan of every place of the gap (what the pigeonhole filter must equal)."""
    n = len(p)
    if n <= 3:
        return align._near(s, p, lo, hi)
    allowed = max(1, n // 6)
    for x in range(lo, hi - n + 1):
        if sum(s[x + y] != p[y] for y in range(n)) <= allowed:
            return x + (s[x] != p[0]), x + n - (s[x + n - 1] != p[-1])
    return None


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="射禮賓主", max_size=80),
    st.text(alphabet="射禮賓主", min_size=1, max_size=24),
    st.data(),
)
@pytest.mark.slow
def test_near_finds_what_a_scan_of_every_place_finds(s: str, p: str, data: st.DataObject) -> None:
    lo = data.draw(st.integers(0, len(s)))
    hi = data.draw(st.integers(lo, len(s)))
    assert align._near(s, p, lo, hi) == _plain_near(s, p, lo, hi)


def test_near_compares_only_where_a_piece_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    # in a long gap with no copy of the passage, the places compared are the pieces' hits,
    # not every place of the gap
    compared: list[int] = []
    real = align._hits

    def hits(*args: object) -> object:
        for x in real(*args):  # type: ignore[arg-type]
            compared.append(x)
            yield x

    monkeypatch.setattr(align, "_hits", hits)
    rng = random.Random(7)
    s = "".join(rng.choice(WORDS) for _ in range(200_000))
    assert align._near(s, "主人阼階上西面再拜至", 0, len(s)) is None
    assert len(compared) < len(s) // 100


@pytest.mark.slow
def test_an_import_of_random_lines_is_refused_without_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHELI_DATA_DIR", str(tmp_path / "data"))
    rng = random.Random(9)
    lines = ["".join(rng.choice(WORDS) for _ in range(40)) + "¶" for _ in range(1500)]
    path = tmp_path / "lines.txt"
    path.write_text(HEAD + "\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(editions.ImportFailed, match="not 鄉射禮, 燕禮 or 大射儀"):
        editions.import_edition(path, "probe")
    assert editions.list_editions() == []

"""The bundled seed commentary: clean of the seeds' defects, placed right, never invented."""

from __future__ import annotations

import csv
import re
import sys
from importlib import resources
from pathlib import Path

import pytest

from sheli.text.align import fold_text
from sheli.text.commentary import SEED_FILES, notes_for, seed_notes

ROOT = Path(__file__).resolve().parents[1]
PINYIN = re.compile(r"\([a-zāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜü]+\)")
DEBRIS = re.compile(r"[?!@<>A-Za-z\u2150-\u218f\ue000-\uf8ff]")
MARKER = "〔此注/疏於種子本中亂碼, 語料亦無可對, 從闕〕"


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELI_DATA_DIR", str(tmp_path))


def rows(name: str) -> list[list[str]]:
    text = resources.files("sheli.text").joinpath("data", "commentary", name).read_text("utf-8")
    lines = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert lines[0] == "passage\tkind\tstatus\ttext"
    return [ln.split("\t") for ln in lines[1:]]


@pytest.mark.parametrize("name", sorted(SEED_FILES.values()))
def test_no_seed_defect_reaches_the_data(name: str) -> None:
    for pid, kind, status, text in rows(name):
        assert re.fullmatch(r"(xiangshe|yan|dashe):\d+", pid)
        assert kind in ("注", "疏") and status in ("clean", "repaired", "dropped")
        assert not PINYIN.search(text), (pid, text)
        if name != "seed-002-yan.tsv":  # 002 uses ? as a question mark (何者?)
            assert not DEBRIS.search(text), (pid, text)
        assert (text == MARKER) == (status == "dropped")


def test_counts() -> None:
    counts = {n: len(rows(f)) for n, f in SEED_FILES.items()}
    assert counts["seed:000"] > 200 and counts["seed:002"] >= 30 and counts["seed:004"] >= 170
    dropped = sum(r[2] == "dropped" for r in rows(SEED_FILES["seed:000"]))
    assert dropped < 30
    assert not any(n.text == MARKER for n in seed_notes())  # dropped rows are not notes
    # every private-use character of seed 000 was read from the corpus
    assert not any("〓" in n.text for n in seed_notes())
    assert any("弣" in n.text for n in seed_notes() if n.edition == "seed:000")


def test_known_notes() -> None:
    zhu = {(n.passage, n.edition): n.text for n in seed_notes() if n.kind == "注"}
    assert zhu[("xiangshe:1", "seed:004")].startswith("主人州長也")
    assert zhu[("xiangshe:123", "seed:000")] == "猶,有故之辭。拾,更也。"
    # 搢 was a private-use code point in the web copy; the corpus restores it
    assert zhu[("xiangshe:126", "seed:000")] == "未違俟處也。搢,插也,插於帶右。"
    assert zhu[("yan:124", "seed:002")].startswith("大射正,射人之長者也")
    assert zhu[("yan:136", "seed:002")].startswith("筭,數也")


def test_notes_for_orders_zhu_before_shu() -> None:
    notes = notes_for("xiangshe:128")
    kinds = [n.kind for n in notes]
    assert kinds.index("注") < kinds.index("疏")
    assert {n.edition for n in notes} == {"seed:000", "seed:004"}
    assert [n.edition for n in notes_for("xiangshe:128", ["seed:004"])] == ["seed:004"]
    repaired = [n for n in notes if "repaired" in n.source]
    assert repaired and all(n.edition == "seed:000" for n in repaired)


def _grams(s: str, k: int = 4) -> set[str]:
    return {s[i : i + k] for i in range(len(s) - k + 1)}


def _tool():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import extract_commentary as tool
    finally:
        sys.path.pop(0)
    return tool


def test_repairs_come_from_seed_or_corpus(corpus_dir: Path, seeds_dir: Path) -> None:
    """Every character of a note stands in a 4-character run of the seed or of the corpus."""
    keep = re.compile(r"[\u3400-\u9fff\U00020000-\U0002ffff]")
    table = _tool().learn_private_use()  # private-use codes, each read from the corpus
    texts = []
    for p in seeds_dir.glob("00[024]_*"):
        t = p.read_text("utf-8")
        for seq in sorted(table, key=len, reverse=True):
            t = t.replace(seq, table[seq])
        texts.append(fold_text("".join(keep.findall(t))))
    seed = "".join(texts)
    assert "楅" in table.values() and "搢" in table.values()
    corpus = ""
    for ch in ("xiangshe", "yan"):
        with (corpus_dir / f"yili-zhushu-{ch}.tsv").open(encoding="utf-8") as fh:
            corpus += "".join(r["zhu"] + r["shu"] for r in csv.DictReader(fh, delimiter="\t"))
    known = _grams(seed) | _grams(fold_text(corpus))
    for n in seed_notes():
        text = n.text
        if n.kind == "疏" and "。○" in text:
            # the 標起止 head 「“X”至“Y”」 is the seed's own (the WYG 疏 has none)
            head, text = text.split("。○", 1)
            assert fold_text("".join(keep.findall(head))) in seed, (n.passage, head)
        s = fold_text("".join(keep.findall(text)))
        covered = [False] * len(s)
        for i in range(len(s) - 3):
            if s[i : i + 4] in known:
                covered[i : i + 4] = [True] * 4
        assert len(s) < 4 or all(covered), (n.passage, n.kind, n.text)


def test_the_data_is_what_the_tool_makes(corpus_dir: Path, seeds_dir: Path) -> None:
    tool = _tool()
    tool.learn_private_use()
    assert [list(r) for r in tool.seed_002()] == rows(SEED_FILES["seed:002"])
    assert [list(r) for r in tool.seed_000()] == rows(SEED_FILES["seed:000"])

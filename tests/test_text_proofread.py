"""Proof-read sheli's canonical text against the corpus (../shared/corpus).

Every passage must agree with the corpus reading after variant folding, except where
known-differences.tsv lists the difference with a reason; every listed difference must
still be needed. Runs only where ../shared/corpus sits beside the checkout.
"""

from __future__ import annotations

import unicodedata
from importlib import resources
from pathlib import Path

import pytest

from sheli.text import chapters, load_chapter
from sheli.text.variants import fold, normalisations

KEYS = ["xiangshe", "yan", "dashe"]


def known_differences() -> list[list[str]]:
    text = resources.files("sheli.text").joinpath("data/known-differences.tsv").read_text("utf-8")
    rows = [ln.split("\t") for ln in text.splitlines() if ln and not ln.startswith("#")]
    assert rows[0] == ["id", "ours", "corpus", "reason"]
    return rows[1:]


def corpus_lines(corpus_dir: Path, key: str) -> list[str]:
    return (corpus_dir / f"yili-jing-{key}.txt").read_text(encoding="utf-8").splitlines()


def test_known_differences_are_few_and_reasoned() -> None:
    rows = known_differences()
    assert 0 < len(rows) <= 20
    for pid, ours, corp, reason in rows:
        assert ours != corp, pid
        assert len(reason) > 20, f"{pid}: give a reason"
        # Every entry names its witnesses: the text is never emended on a guess.
        assert "集釋" in reason or "seed" in reason, pid


@pytest.mark.parametrize("key", KEYS)
def test_every_passage_agrees_with_the_corpus(corpus_dir: Path, key: str) -> None:
    lines = corpus_lines(corpus_dir, key)
    ch = load_chapter(key)
    assert len(ch.passages) == len(lines)
    diffs = {}
    for row in known_differences():
        diffs.setdefault(row[0], []).append(row)
    unexplained = []
    for p, line in zip(ch.passages, lines, strict=True):
        reading = line
        for _, ours, corp, _ in diffs.get(p.id, []):
            # The corpus fragment carries context, so it must occur exactly once.
            assert fold(reading).count(fold(corp)) == 1, f"{p.id}: {corp} is stale"
            i = fold(reading).find(fold(corp))
            reading = reading[:i] + ours + reading[i + len(corp) :]
        if fold(p.text) != fold(reading):
            unexplained.append(f"{p.id}\n  ours   {p.text}\n  corpus {line}")
    assert not unexplained, "differences not in known-differences.tsv:\n" + "\n".join(unexplained)


def test_known_differences_name_real_passages() -> None:
    for pid, *_ in known_differences():
        key, n = pid.split(":")
        assert 1 <= int(n) <= len(load_chapter(key).passages)


def test_no_seed_defect_reaches_the_text(corpus_dir: Path) -> None:
    """No pinyin, punctuation, note numbers or garbled characters: every character of the
    text is a Han character that the corpus (or a reviewed difference) has."""
    allowed = set()
    for key in KEYS:
        allowed |= set(fold("".join(corpus_lines(corpus_dir, key))))
    allowed |= set(fold("".join(r[1] for r in known_differences())))
    for ch in chapters():
        for p in ch.passages:
            assert p.text, p.id
            for c in p.text:
                assert unicodedata.category(c) == "Lo", f"{p.id}: {c!r}"
                assert fold(c) in allowed, f"{p.id}: {c} is in no witness"


def test_text_is_in_standard_forms() -> None:
    variants = {n.source for n in normalisations()}
    for ch in chapters():
        for p in ch.passages:
            assert not variants & set(p.text), f"{p.id}: {sorted(variants & set(p.text))}"

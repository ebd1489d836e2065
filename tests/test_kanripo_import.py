"""Importing the corpus's Kanripo editions: anchoring, notes, the store, the CLI."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sheli.cli.text_import import import_cmd
from sheli.text import editions
from sheli.text.align import Target, align_doc, fold_text
from sheli.text.commentary import notes_for
from sheli.text.kanripo import KanripoError, parse_kanripo

# The SBCK 鄭注本's transcription gaps (corpus README §6) and the passages on their edges
# whose words are partly lost with them.
SBCK_MISSING = {
    "xiangshe": [77, 78, 79, 221, 222, 223, 224, 225, *range(360, 367)],
    "yan": [110, 111, 112, 113, 114, 152, 153, 154, 155],
    "dashe": [90, 91, 92, 93, 94, 108, 109, 110, 111, 112, 113, 250, 251, 252, 253],
}


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHELI_DATA_DIR", str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("chapter,n", [("xiangshe", 391), ("yan", 185), ("dashe", 324)])
@pytest.mark.slow
def test_zhushu_every_passage_and_its_commentary(corpus_dir: Path, chapter: str, n: int) -> None:
    """注疏: every passage anchored; 注, 疏 and 音義 as the corpus's own table cuts them."""
    r = editions.import_edition(corpus_dir / f"yili-zhushu-{chapter}.txt")
    assert (r.chapter, r.passages, r.anchored, r.unanchored) == (chapter, n, n, [])
    notes = editions.load_edition("注疏")["chapters"][chapter]["notes"]
    with (corpus_dir / f"yili-zhushu-{chapter}.tsv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    differ = []
    for row in rows:
        pid = f"{chapter}:{row['line']}"
        for kind, col in (("注", "zhu"), ("疏", "shu"), ("音義", "yinyi")):
            mine = "".join(x["text"] for x in notes.get(pid, []) if x["kind"] == kind)
            if fold_text(mine) != fold_text(row[col].replace(" ‖ ", "")):
                differ.append((pid, kind))
    # WYG 005-34a: 「(目木)」, a description of 相, stands in small characters before 音義
    assert differ == ([("xiangshe:153", "音義")] if chapter == "xiangshe" else [])


@pytest.mark.slow
def test_first_zhu_of_xiangshe(corpus_dir: Path) -> None:
    editions.import_edition(corpus_dir / "yili-zhushu-xiangshe.txt")
    zhu = [n for n in notes_for("xiangshe:1") if n.edition == "注疏" and n.kind == "注"]
    assert zhu[0].text.startswith("主人州長也")
    kinds = [n.kind for n in notes_for("xiangshe:1", ["注疏"])]
    assert kinds == sorted(kinds, key=["注", "音義", "疏"].index)
    assert "音義" in kinds and "疏" in kinds


@pytest.mark.parametrize("chapter", ["xiangshe", "yan", "dashe"])
@pytest.mark.slow
def test_zhengzhu_only_the_lacunae_are_missing(corpus_dir: Path, chapter: str) -> None:
    r = editions.import_edition(corpus_dir / f"yili-zhengzhu-{chapter}.txt")
    assert r.unanchored == [f"{chapter}:{n}" for n in SBCK_MISSING[chapter]]
    notes = editions.load_edition("鄭注")["chapters"][chapter]["notes"]
    assert {n["kind"] for v in notes.values() for n in v} <= {"注", "本文"}


@pytest.mark.parametrize("edition", ["jishi", "yishu"])
@pytest.mark.parametrize("chapter,n", [("xiangshe", 391), ("yan", 185), ("dashe", 324)])
@pytest.mark.slow
def test_jishi_and_yishu_every_passage(
    corpus_dir: Path, edition: str, chapter: str, n: int
) -> None:
    r = editions.import_edition(corpus_dir / f"yili-{edition}-{chapter}.txt")
    assert r.anchored == n and r.unanchored == []


@pytest.mark.slow
def test_jishi_zhu_of_xiangshe_2(corpus_dir: Path) -> None:
    editions.import_edition(corpus_dir / "yili-jishi-xiangshe.txt")
    (zhu,) = [n for n in notes_for("xiangshe:2", ["集釋"]) if n.kind == "注"]
    assert zhu.text == "退還射宫省錄射事"


def test_jishi_own_explanations(corpus_dir: Path) -> None:
    editions.import_edition(corpus_dir / "yili-jishi-yan.txt")
    notes = notes_for("yan:124", ["集釋"])
    assert [n.kind for n in notes] == ["注", "集釋"]
    assert notes[0].text.startswith("大射正射人之長者也") and "釋曰" not in notes[0].text
    assert notes[1].text.startswith("釋曰大射主于射")


@pytest.mark.slow
def test_yishu_labels(corpus_dir: Path) -> None:
    editions.import_edition(corpus_dir / "yili-yishu-xiangshe.txt")
    kinds = {n.kind for n in notes_for("xiangshe:1", ["義疏"])}
    assert "正義" in kinds
    notes = notes_for("xiangshe:3", ["義疏"])
    assert notes[0].kind == "正義" and notes[0].text.startswith("鄭氏康成曰雖先飲酒")
    assert [n.text for n in notes_for("xiangshe:9", ["義疏"]) if n.kind == "音義"] == ["縣音懸"]


@pytest.mark.slow
def test_tu_moves_ji_and_omits_what_it_refers_to_xiangyinjiu(corpus_dir: Path) -> None:
    r = editions.import_edition(corpus_dir / "yili-tu-xiangshe.txt")
    # 楊復 gives 「以上並見郷飲酒圖」 for passages 21–40 and so on: absent, not lost.
    assert "xiangshe:21" in r.unanchored and "xiangshe:1" not in r.unanchored
    # The 記 「大夫與則公士爲賓」 (310) stands in the body, after passage 3, as ○記.
    assert "xiangshe:310" not in r.unanchored
    kinds = {n.kind for n in notes_for("xiangshe:310", ["儀禮圖"])}
    assert "疏" in kinds


def test_yan_tu_and_shu(corpus_dir: Path) -> None:
    assert editions.import_edition(corpus_dir / "yili-tu-yan.txt").unanchored == ["yan:171"]
    editions.import_edition(corpus_dir / "yili-zhengzhu-xiangshe.txt")  # the 注 reference
    r = editions.import_edition(corpus_dir / "yili-shu-xiangshe.txt")
    assert r.format == "shu" and r.anchored > 250 and r.unplaced <= 1  # the 鄭目録 preface
    shu = notes_for("xiangshe:1", ["單疏"])
    assert shu[0].text.startswith("郷射至乃請　釋曰自此至無介論州長將射先戒賔之事")
    # a 注 head, placed by the 注 it quotes (雖先飲酒主於射也其序賓之禮略)
    assert notes_for("xiangshe:3", ["單疏"])[0].text.startswith("注雖先至禮略　釋曰")
    # 「X至Y」 covering several passages: 「主人至尊東」 … goes where 注疏 prints its 疏
    assert all(n.kind == "疏" for n in notes_for("xiangshe:100", ["單疏"]))


@pytest.mark.slow
def test_another_chapter_is_refused(corpus_dir: Path, data_dir: Path) -> None:
    with pytest.raises(editions.ImportFailed, match="another chapter"):
        editions.import_edition(corpus_dir / "yili-zhushu-yan.txt", chapter="dashe")
    assert not (data_dir / "editions").exists() or not list((data_dir / "editions").iterdir())


def test_failed_import_leaves_the_store(corpus_dir: Path, tmp_path: Path, data_dir: Path) -> None:
    editions.import_edition(corpus_dir / "yili-zhengzhu-yan.txt")
    before = {p.name: p.read_bytes() for p in (data_dir / "editions").iterdir()}
    bad = tmp_path / "bad.txt"
    bad.write_text("#+TITLE: 儀禮\n#+PROPERTY: ID KR1d0026\n天地玄黃宇宙洪荒¶\n", encoding="utf-8")
    r = CliRunner().invoke(import_cmd, [str(bad), "--edition", "鄭注"])
    assert r.exit_code != 0 and "bad.txt" in r.output and "Traceback" not in r.output
    after = {p.name: p.read_bytes() for p in (data_dir / "editions").iterdir()}
    assert after == before


def test_not_kanripo(tmp_path: Path) -> None:
    f = tmp_path / "x.txt"
    f.write_text("just some text\n", encoding="utf-8")
    r = CliRunner().invoke(import_cmd, [str(f)])
    assert r.exit_code == 2 and "x.txt:1: not a recognisable Kanripo edition" in r.output


def test_unbalanced_bracket_names_the_line() -> None:
    with pytest.raises(KanripoError, match=r"<string>:3: '\(' not closed"):
        parse_kanripo("#+TITLE: 儀禮\n鄉射之禮¶\n主人(戒賓¶\n")


def test_cli_report_json_list_remove(corpus_dir: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(import_cmd, [str(corpus_dir / "yili-zhushu-yan.txt"), "--json"])
    assert r.exit_code == 0, r.output
    rep = json.loads(r.output)
    assert rep["chapter"] == "yan" and rep["anchored"] == 185 and rep["format"] == "zhushu"
    r = runner.invoke(import_cmd, ["--list", "--json"])
    assert json.loads(r.output)[0]["edition"] == "注疏"
    assert runner.invoke(import_cmd, ["--remove", "注疏"]).exit_code == 0
    assert notes_for("yan:1", ["注疏"]) == []
    assert runner.invoke(import_cmd, ["--remove", "注疏"]).exit_code == 1


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.sampled_from(list("鄉射之禮主人戒賓出迎再拜答乃請")), min_size=2, max_size=8),
    st.text(alphabet="注文曰也者", min_size=1, max_size=10),
)
def test_align_finds_any_passage_between_notes(words: list[str], note: str) -> None:
    """A passage followed by a bracketed note is anchored exactly, whatever its words."""
    passage = "".join(words)
    doc = parse_kanripo(f"#+PROPERTY: ID KR1d0026\n無介({note}){passage}({note})¶\n")
    al = align_doc(doc, "xiangshe", [Target("xiangshe:3", "無介"), Target("xiangshe:4", passage)])
    assert al.unanchored == []
    a = al.anchors[1]
    assert "".join(c.ch for c in doc.chars[a.start : a.end]) == passage


def test_edition_name_of_another_format_is_refused(corpus_dir: Path) -> None:
    editions.import_edition(corpus_dir / "yili-zhengzhu-yan.txt", edition="mine")
    with pytest.raises(editions.ImportFailed, match="already holds a zhengzhu text"):
        editions.import_edition(corpus_dir / "yili-jishi-yan.txt", edition="mine")


def test_reimport_and_chapters_share_an_edition(corpus_dir: Path) -> None:
    editions.import_edition(corpus_dir / "yili-zhengzhu-yan.txt")
    assert notes_for("xiangshe:1", ["鄭注"]) == []
    editions.import_edition(corpus_dir / "yili-zhengzhu-xiangshe.txt")
    (zhu,) = notes_for("xiangshe:1", ["鄭注"])
    assert zhu.text.startswith("主人州長也") and "KR1d0026" in zhu.source
    assert set(editions.load_edition("鄭注")["chapters"]) == {"yan", "xiangshe"}
    assert notes_for("yan:1", ["鄭注"])  # the first chapter is still there


@pytest.mark.slow
def test_one_juan_file_without_heading(corpus_dir: Path, tmp_path: Path) -> None:
    """The 單疏's 卷十二 alone (the middle of 鄉射禮, no chapter heading) is found by its text."""
    raw = (corpus_dir / "yili-shu-xiangshe.txt").read_text(encoding="utf-8")
    parts = raw.split("# -*- mode")
    juan12 = tmp_path / "KR1d0027_012.txt"
    juan12.write_text("# -*- mode" + parts[2], encoding="utf-8")
    editions.import_edition(corpus_dir / "yili-zhushu-xiangshe.txt")  # the 注 reference
    r = editions.import_edition(juan12)
    assert r.chapter == "xiangshe" and r.format == "shu"
    covered = [
        int(p.split(":")[1]) for p in editions.load_edition("單疏")["chapters"]["xiangshe"]["notes"]
    ]
    # 卷十二 is the archery: its paragraphs sit among the passages of the three rounds
    assert min(covered) > 100 and len(covered) > 80


def test_another_chapter_of_the_yili_is_named(tmp_path: Path) -> None:
    f = tmp_path / "KR1d0028_004.txt"
    f.write_text(
        "#+TITLE: 儀禮注疏\n#+PROPERTY: ID KR1d0028\n"
        "　鄉飲酒禮第四¶\n鄉飲酒之禮主人就先生而謀賓介¶\n",
        encoding="utf-8",
    )
    r = CliRunner().invoke(import_cmd, [str(f)])
    assert r.exit_code == 2
    assert "KR1d0028_004.txt:3: the file is 鄉飲酒禮第四, not 鄉射禮, 燕禮 or 大射儀" in r.output


@pytest.mark.slow
def test_a_part_of_a_chapter_does_not_replace_the_whole(corpus_dir: Path, tmp_path: Path) -> None:
    """One 卷 of the 單疏's 鄉射禮 over the whole chapter: refused in one line, unless --force."""
    raw = (corpus_dir / "yili-shu-xiangshe.txt").read_text(encoding="utf-8")
    juan12 = tmp_path / "KR1d0027_012.txt"
    juan12.write_text("# -*- mode" + raw.split("# -*- mode")[2], encoding="utf-8")
    editions.import_edition(corpus_dir / "yili-zhushu-xiangshe.txt")  # the 注 reference
    whole = editions.import_edition(corpus_dir / "yili-shu-xiangshe.txt")
    r = CliRunner().invoke(import_cmd, [str(juan12)])
    assert r.exit_code == 2, r.output
    assert len(r.output.strip().splitlines()) == 1 and "--force" in r.output
    assert f"{whole.anchored}/{whole.passages} passages anchored" in r.output
    assert editions.load_edition("單疏")["chapters"]["xiangshe"]["anchored"] == whole.anchored
    r = CliRunner().invoke(import_cmd, [str(juan12), "--force", "--json"])
    assert r.exit_code == 0, r.output
    assert editions.load_edition("單疏")["chapters"]["xiangshe"]["anchored"] < whole.anchored


def _as_user(*cmd: str) -> list[str]:
    """``cmd`` as a process a file's mode binds (root writes whatever the mode, so it runs
    without the capabilities that allow it)."""
    if os.geteuid() != 0:
        return list(cmd)
    caps = "-dac_override,-dac_read_search,-fowner"
    return ["setpriv", "--bounding-set", caps, "--inh-caps", caps, "--", *cmd]


@pytest.mark.slow
def test_a_read_only_store_is_refused_in_one_line(corpus_dir: Path, data_dir: Path) -> None:
    """Exit 2 (the store cannot be had, as a file that cannot be read), not 1, one line, no
    traceback; an import and a removal alike; the store left as it was."""
    text = corpus_dir / "yili-zhengzhu-yan.txt"
    editions.import_edition(text, edition="mine")
    store = data_dir / "editions"
    before = {p.name: p.read_bytes() for p in store.iterdir()}
    sheli = [sys.executable, "-m", "sheli", "text", "import"]
    store.chmod(0o555)
    try:
        for args in (
            [str(text), "--edition", "other"],
            [str(text), "--edition", "mine", "--force"],
            ["--remove", "mine"],
        ):
            p = subprocess.run(_as_user(*sheli, *args), capture_output=True, text=True, timeout=120)
            assert p.returncode == 2, (args, p.stderr)
            (line,) = p.stderr.strip().splitlines()
            assert "the store of editions cannot be written" in line and str(store) in line
    finally:
        store.chmod(0o755)
    assert {p.name: p.read_bytes() for p in store.iterdir()} == before

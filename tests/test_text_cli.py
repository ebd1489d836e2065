"""`sheli text` and `sheli search` as a user runs them."""

from __future__ import annotations

import json

from click.testing import CliRunner

from sheli.cli import cli


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args))


def test_text_passage() -> None:
    r = run("text", "xiangshe:1")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert "xiangshe:1" in lines[0]
    assert "州長將射先戒賓之事" in r.output
    assert any(ln.startswith("鄉射之禮主人戒賓") for ln in lines)


def test_text_last_passages_exist() -> None:
    for pid in ["dashe:324", "yan:185"]:
        r = run("text", pid)
        assert r.exit_code == 0 and pid in r.output


def test_text_unknown_id_is_a_clear_error() -> None:
    r = run("text", "xiangshe:392")
    assert r.exit_code != 0
    assert "鄉射禮 has 391 passages" in r.output
    assert "Traceback" not in r.output
    r = run("text", "nosuch:3")
    assert r.exit_code != 0 and "not a chapter" in r.output


def test_text_section_and_range() -> None:
    r = run("text", "xiangshe", "--section", "25", "--json")
    assert r.exit_code == 0
    data = json.loads(r.output)
    ids = [p["id"] for p in data["passages"]]
    assert ids[0] == "xiangshe:246" and ids[-1] == "xiangshe:258"
    assert data["section"]["topic"] == "第三番用樂射之事"
    r = run("text", "xiangshe", "--section", "31")
    assert r.exit_code != 0 and "sections 1 to 30" in r.output
    r = run("text", "xiangshe:110-112", "--json", "--no-notes")
    assert [p["id"] for p in json.loads(r.output)["passages"]] == [
        "xiangshe:110",
        "xiangshe:111",
        "xiangshe:112",
    ]


def test_text_simplified_and_chapter_overview() -> None:
    r = run("text", "xiangshe:248", "--simplified", "--no-notes")
    assert "不鼓不释" in r.output
    r = run("text", "大射")
    assert r.exit_code == 0 and "大射儀第七" in r.output and "38" in r.output


def test_text_inferred_section_is_stated_as_an_assumption() -> None:
    r = run("text", "xiangshe:60", "--json", "--no-notes")
    p = json.loads(r.output)["passages"][0]
    assert p["section"]["inferred"] is True
    r = run("text", "xiangshe:60", "--no-notes")
    assert "assumed" in r.output


def test_search() -> None:
    r = run("search", "不鼓不释")
    assert r.exit_code == 0 and "xiangshe:248" in r.output
    r = run("search", "間若一", "--json")
    ids = [h["id"] for h in json.loads(r.output)]
    assert ids == ["xiangshe:249", "dashe:272"]
    r = run("search", "間若一", "--chapter", "大射", "--json")
    assert [h["id"] for h in json.loads(r.output)] == ["dashe:272"]


def test_search_errors() -> None:
    r = run("search", "")
    assert r.exit_code != 0 and "empty" in r.output
    r = run("search")
    assert r.exit_code != 0
    r = run("search", "射", "--chapter", "周禮")
    assert r.exit_code != 0 and "not a chapter" in r.output

"""Part files (include:), variants (extends:), declared pairs, options and readings.

Each test writes small specs beside a copy of the engine's test rite (tests/fixtures/specs/
mini.yaml: one pair, 誘射, round 1, 取矢, round 2 with 釋獲) and checks what a scholar writing
a spec relies on: a part's errors name the part file and its line; a variant inherits what it
does not say; a reading or option switches steps; bad choices are refused with the known ones.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from loglines import log_lines, shot_lines

from sheli.cli import cli
from sheli.engine import run
from sheli.rite import SpecError, load_spec

MINI = Path(__file__).parent / "fixtures" / "specs" / "mini.yaml"


def _mini() -> dict:
    return yaml.safe_load(MINI.read_text("utf-8"))


def _write(path: Path, data: dict | str) -> Path:
    text = data if isinstance(data, str) else yaml.safe_dump(data, allow_unicode=True)
    path.write_text(text, encoding="utf-8")
    return path


def _split(tmp_path: Path) -> Path:
    """mini.yaml with its steps and procedures moved into parts/archery.yaml."""
    data = _mini()
    (tmp_path / "parts").mkdir()
    _write(
        tmp_path / "parts" / "archery.yaml",
        {"procedures": data.pop("procedures"), "steps": data.pop("steps")},
    )
    data["steps"] = [{"include": "parts/archery.yaml"}]
    return _write(tmp_path / "split.yaml", data)


def _steps(events: list[dict]) -> list[tuple]:
    return [
        (e["cite"], e["actor"], e["verb"], e.get("says")) for e in events if e["type"] == "step"
    ]


def test_a_spec_split_into_parts_runs_as_the_whole(tmp_path: Path) -> None:
    split = _split(tmp_path)
    whole, parts = run(MINI, seed=2), run(split, seed=2)
    assert _steps(log_lines(parts)) == _steps(log_lines(whole))
    assert parts.tallies == whole.tallies
    # each step says which part file it came from; the whole spec's do not
    assert {e.get("file") for e in log_lines(parts) if e["type"] == "step"} == {
        "parts/archery.yaml"
    }
    assert all("file" not in e for e in log_lines(whole) if e["type"] == "step")
    loaded = load_spec(split)
    assert [p.name for p in loaded.files] == ["split.yaml", "archery.yaml"]


def test_an_error_in_a_part_names_the_part_file_and_line(tmp_path: Path) -> None:
    split = _split(tmp_path)
    part = tmp_path / "parts" / "archery.yaml"
    lines = part.read_text("utf-8").splitlines()
    # break the first inline verb of the steps (not of the procedures)
    start = lines.index("steps:")
    n = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("verb: 搢"))
    lines[n] = lines[n].replace("verb: 搢", "verb: 飛")
    part.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SpecError) as err:
        run(split)
    assert err.value.file == "parts/archery.yaml"
    assert err.value.line is not None and abs(err.value.line - (n + 1)) <= 4
    assert "飛" in str(err.value)


@pytest.mark.parametrize(
    ("step", "words"),
    [
        ({"include": "parts/none.yaml"}, "no such file"),
        ({"include": "parts/archery.yaml", "cite": "xiangshe:127"}, "only include"),
    ],
)
def test_a_bad_include_is_refused_with_its_line(tmp_path: Path, step: dict, words: str) -> None:
    split = _split(tmp_path)
    data = yaml.safe_load(split.read_text("utf-8"))
    data["steps"] = [step]
    _write(split, data)
    with pytest.raises(SpecError) as err:
        load_spec(split)
    assert words in str(err.value) and err.value.line is not None


def test_a_part_file_may_not_hold_the_spec_header(tmp_path: Path) -> None:
    split = _split(tmp_path)
    part = tmp_path / "parts" / "archery.yaml"
    data = yaml.safe_load(part.read_text("utf-8"))
    data["rite"] = "other"
    _write(part, data)
    with pytest.raises(SpecError, match="a part file holds"):
        load_spec(split)


def test_a_variant_inherits_what_it_does_not_say(tmp_path: Path) -> None:
    shutil.copy(MINI, tmp_path / "mini.yaml")
    variant = _write(
        tmp_path / "variant.yaml",
        {
            "rite": "variant",
            "title": "a variant",
            "chapter": "xiangshe",
            "extends": str(tmp_path / "mini.yaml"),
            "cast": [
                {
                    "role": "司射",
                    "name": "大射正",
                    "at": "堂西",
                    "facing": "E",
                    "dress": ["袒", "決遂"],
                    "holds": ["弓", "挾矢:4"],
                }
            ],
        },
    )
    base, var = run(tmp_path / "mini.yaml", seed=4), run(variant, seed=4)
    assert _steps(log_lines(var)) == _steps(log_lines(base))
    # the cast entry of the same role is replaced: the 司射 is shown by the variant's name
    assert {e.get("name") for e in log_lines(var) if e.get("actor") == "司射"} == {"大射正"}
    spec = load_spec(variant).spec
    assert spec.rite == "variant" and spec.rules == [] and spec.uncovered == []
    assert [a.id for a in spec.assumptions] == ["A-test"]


def test_declared_pairs_decide_who_shoots(tmp_path: Path) -> None:
    data = _mini()
    data["pairs"] = [
        {"name": "上耦", "kind": "三耦", "upper": "甲", "lower": "乙"},
        {"name": "衆耦{i}", "kind": "衆耦", "upper": "丙{i}", "lower": "丁{i}", "repeat": 2},
        {"name": "賓耦", "kind": "賓耦", "upper": "賓", "lower": "主人", "when": {"not": {}}},
    ]
    spec = _write(tmp_path / "pairs.yaml", data)
    r = run(spec, seed=1)
    archers = {s["person"] for s in shot_lines(r) if s["pair"] != "誘射"}
    assert archers == {"甲", "乙"}  # only the 三耦 shoot in the test rite
    assert set(r.world.pairs) == {"上耦", "衆耦1", "衆耦2"}  # `when` that never holds
    assert r.world.groups["衆耦"] == ["衆耦1", "衆耦2"]
    assert r.world.people["丙2"].seat == "上射"


def _with_reading(tmp_path: Path) -> Path:
    data = _mini()
    data["readings"] = [
        {"id": "R-a", "group": "who", "text": "a", "sources": ["xiangshe:127 注"], "default": True},
        {"id": "R-b", "group": "who", "text": "b", "sources": ["xiangshe:127 疏"]},
    ]
    data["params"]["options"] = {"bow": False}
    data["steps"].insert(
        0,
        {
            "if": {"reading": "R-b"},
            "cite": "xiangshe:127",
            "jing": "司射",
            "then": [{"actor": "司射", "verb": "揖"}],
        },
    )
    data["steps"].insert(
        0,
        {
            "if": {"option": {"bow": True}},
            "cite": "xiangshe:127",
            "jing": "司射",
            "then": [{"actor": "司射", "verb": "拜"}],
        },
    )
    return _write(tmp_path / "readings.yaml", data)


def test_a_reading_and_an_option_switch_steps(tmp_path: Path) -> None:
    spec = _with_reading(tmp_path)
    plain = _steps(log_lines(run(spec)))
    other = _steps(log_lines(run(spec, readings=["R-b"])))
    bowed = _steps(log_lines(run(spec, options={"bow": True})))
    assert other[1:] == plain and other[0][:3] == ("xiangshe:127", "司射", "揖")
    assert bowed[1:] == plain and bowed[0][:3] == ("xiangshe:127", "司射", "拜")
    assert run(spec).params["readings"] == ["R-a"]
    assert run(spec, readings=["R-b"]).params["readings"] == ["R-b"]


def test_bad_readings_and_options_are_refused_naming_the_known(tmp_path: Path) -> None:
    spec = _with_reading(tmp_path)
    with pytest.raises(SpecError, match=r"no reading 'R-c'; did you mean .*\(readings: R-a, R-b\)"):
        run(spec, readings=["R-c"])
    with pytest.raises(SpecError, match="answer the same question"):
        run(spec, readings=["R-a", "R-b"])
    with pytest.raises(SpecError, match=r"no option 'bwo'; did you mean bow\? \(options: bow\)"):
        run(spec, options={"bwo": True})
    res = CliRunner().invoke(cli, ["run", str(spec), "--option", "bow"])
    assert res.exit_code == 2 and "NAME=VALUE" in res.output
    res = CliRunner().invoke(cli, ["run", str(spec), "--reading", "R-x"])
    assert res.exit_code == 2 and "no reading 'R-x'" in res.output
    ok = CliRunner().invoke(cli, ["run", str(spec), "--reading", "R-b", "--option", "bow=true"])
    assert ok.exit_code == 0, ok.output


def test_an_unknown_venue_names_the_venues() -> None:
    with pytest.raises(SpecError) as err:
        run(MINI, venue="nowhere")
    assert "xie" in str(err.value) and "xiang" in str(err.value)

"""Broken specs are rejected with the step's line, its passage and what is wrong.

Each fixture in tests/fixtures/specs/bad_*.yaml marks the faulty step's first line with
``# ERROR``; the error must name that line, the file, the passage and the reason.
Regenerate docs/rite-spec.schema.json with ``python tests/test_spec_loader.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixtures.standin import FixedOutcomes, make_env
from hypothesis import given
from hypothesis import strategies as st

from sheli.engine import run
from sheli.rite import find_spec, validate_spec
from sheli.rite.loader import LINE_KEY, SpecError, load_yaml_with_lines, strip_lines
from sheli.rite.schema import json_schema

ROOT = Path(__file__).resolve().parents[1]
SPECS = Path(__file__).parent / "fixtures" / "specs"
SCHEMA = ROOT / "docs" / "rite-spec.schema.json"

# file → (cite named in the error, words the message must contain)
BROKEN = {
    "bad_pu_up.yaml": ("xiangshe:153", ["升 by 司射", "扑", "不敢佩刑器即尊者之側"]),
    "bad_off_wu.yaml": ("xiangshe:147", ["射 by 上耦上射", "shoots off his 物", "右物"]),
    "bad_xiashe_first.yaml": ("xiangshe:147", ["射 by 上耦下射", "before 上射", "拾發"]),
    "bad_fifth_arrow.yaml": ("xiangshe:132", ["射 by 司射", "fifth arrow", "以將乘矢"]),
    "bad_shihuo_round1.yaml": ("xiangshe:148", ["釋獲 by 釋獲者", "round 1", "獲而未釋獲"]),
    "bad_empty_fu.yaml": ("xiangshe:173", ["取 by 上耦上射", "楅", "holds 0"]),
    "bad_jing.yaml": ("xiangshe:127", ["司射先立于所設楅之西南東面", "not in the passage"]),
    "bad_verb.yaml": ("xiangshe:127", ["unknown verb '飛'"]),
    "bad_place.yaml": ("xiangshe:127", ["unknown place", "中中中"]),
    "bad_cite.yaml": ("xiangshe:999", ["there is no passage xiangshe:999"]),
    "bad_field.yaml": ("xiangshe:127", ["unknown field 'acter'"]),
    "bad_actor.yaml": ("xiangshe:127", ["司躬", "not in the cast"]),
    "bad_call.yaml": ("xiangshe:153", ["no procedure named '耦射'"]),
    "bad_cross.yaml": ("xiangshe:128", ["適 by 司射", "升/降"]),
    "bad_count_left_first.yaml": ("xiangshe:199", ["先數右獲"]),
}


def marked_line(path: Path) -> int:
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.rstrip().endswith("# ERROR"):
            return n
    raise AssertionError(f"{path.name} has no # ERROR marker")


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_spec_names_file_line_passage_and_reason(name: str) -> None:
    path = SPECS / name
    cite, words = BROKEN[name]
    with pytest.raises(SpecError) as info:
        run(path, outcomes=FixedOutcomes())
    err = info.value
    assert err.file == name
    assert err.line == marked_line(path)
    assert err.cite == cite
    text = str(err)
    assert text.startswith(f"{name}:{marked_line(path)} ({cite}")
    for w in words:
        assert w in text, (w, text)


@pytest.mark.parametrize("name", ["bad_pu_up.yaml", "bad_jing.yaml", "bad_yaml.yaml"])
def test_broken_spec_on_the_command_line_is_one_message_and_exit_2(name: str) -> None:
    from sheli.cli import cli

    result = CliRunner().invoke(cli, ["run", str(SPECS / name)])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert f"{name}:" in result.output
    assert result.output.count("\n") == 1


def test_yaml_syntax_error_names_the_line() -> None:
    with pytest.raises(SpecError) as info:
        run(SPECS / "bad_yaml.yaml")
    assert info.value.line in (5, 6)  # the unclosed flow sequence on line 5 ends at EOF
    assert "YAML syntax" in str(info.value)


def test_the_same_broken_spec_fails_the_same_way_with_a_stand_in_venue() -> None:
    # The engine's checks do not depend on the real plan.
    with pytest.raises(SpecError) as info:
        run(SPECS / "bad_xiashe_first.yaml", env=make_env())
    assert info.value.line == marked_line(SPECS / "bad_xiashe_first.yaml")


def test_loader_records_the_line_of_every_mapping() -> None:
    data = load_yaml_with_lines("a: 1\nsteps:\n  - x: 1\n\n  - {y: 2}\n")
    assert data[LINE_KEY] == 1
    assert [s[LINE_KEY] for s in data["steps"]] == [3, 5]
    assert strip_lines(data) == {"a": 1, "steps": [{"x": 1}, {"y": 2}]}


@given(st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=12))
def test_line_numbers_follow_blank_lines(gaps: list[int]) -> None:
    lines, expected = ["steps:"], []
    for g in gaps:
        lines.extend([""] * g)
        lines.append("  - {verb: 立}")
        expected.append(len(lines))
    data = load_yaml_with_lines("\n".join(lines) + "\n")
    assert [s[LINE_KEY] for s in data["steps"]] == expected


def test_validation_error_points_into_nested_steps() -> None:
    text = (
        "rite: t\nchapter: xiangshe\nsteps:\n  - for_each: 耦\n    in: 三耦\n    do:\n"
        "      - cite: xiangshe:139\n        actor: 司射\n        verb: 升\n        by: [1]\n"
    )
    with pytest.raises(SpecError) as info:
        validate_spec(load_yaml_with_lines(text), "t.yaml")
    assert info.value.line == 7
    assert info.value.cite == "xiangshe:139"


def test_a_step_needs_actor_and_verb_or_do() -> None:
    text = "rite: t\nchapter: xiangshe\nsteps:\n  - cite: xiangshe:139\n    actor: 司射\n"
    with pytest.raises(SpecError, match="both actor and verb"):
        validate_spec(load_yaml_with_lines(text), "t.yaml")


def test_spec_found_by_alias_and_unknown_name_refused() -> None:
    assert find_spec(str(SPECS / "mini.yaml")).name == "mini.yaml"
    with pytest.raises(SpecError, match="no rite spec named"):
        find_spec("no-such-rite")


def test_json_schema_in_docs_is_current() -> None:
    schema = json_schema()
    assert "steps" in schema["properties"]
    assert "__line__" not in json.dumps(schema)
    assert SCHEMA.exists(), "run: python tests/test_spec_loader.py"
    assert json.loads(SCHEMA.read_text(encoding="utf-8")) == schema


if __name__ == "__main__":
    SCHEMA.write_text(json.dumps(json_schema(), ensure_ascii=False, indent=2) + "\n", "utf-8")
    print(f"wrote {SCHEMA}")

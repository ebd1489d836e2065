"""Outcome sources: the seeded model, recorded files (CSV, JSON, JSON Lines) and their errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sheli.cli import cli
from sheli.scoring import (
    Outcome,
    OutcomesError,
    OutcomeSource,
    RecordedOutcomes,
    SeededOutcomes,
    load_outcomes,
)

HEADER = "round,pair,archer,arrow,hit,on_beat"
GOOD_ROWS = [
    "1,上耦,上射,1,true,",
    "2,上耦,上射,1,true,",
    "2,上耦,下射,1,false,",
    "3,上耦,上射,1,true,true",
    "3,上耦,下射,1,true,false",
]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def csv_file(tmp_path: Path, rows: list[str], header: str = HEADER) -> Path:
    return write(tmp_path, "shots.csv", "\n".join([header, *rows]) + "\n")


def as_record(row: str) -> dict[str, object]:
    r, pair, archer, arrow, hit, beat = row.split(",")
    rec: dict[str, object] = {
        "round": int(r), "pair": pair, "archer": archer, "arrow": int(arrow), "hit": hit == "true",
    }  # fmt: skip
    if beat:
        rec["on_beat"] = beat == "true"
    return rec


def json_file(tmp_path: Path, records: list[dict[str, object]]) -> Path:
    # one record per line, so that record i is on line i + 2
    body = ",\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    return write(tmp_path, "shots.json", "[\n" + body + "\n]\n")


# ---------------------------------------------------------------- good files


def test_csv_and_json_give_the_same_outcomes(tmp_path: Path) -> None:
    from_csv = load_outcomes(csv_file(tmp_path, GOOD_ROWS))
    from_json = load_outcomes(json_file(tmp_path, [as_record(r) for r in GOOD_ROWS]))
    assert len(from_csv) == len(from_json) == 5
    for o in from_csv.entries.values():
        assert from_json.outcome(o.round, o.pair, o.archer, o.arrow) == (o.hit, o.on_beat)
    assert from_csv.outcome(3, "上耦", "下射", 1) == (True, False)
    assert from_csv.outcome(2, "上耦", "上射", 1) == (True, None)


def test_jsonl_comments_blank_lines_bom_and_simplified_names(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "shots.jsonl",
        '# recorded at the 州序\n\n{"round": 2, "pair": "众耦1", "archer": "上射", '
        '"arrow": 4, "hit": true}\n',
    )
    rec = load_outcomes(path)
    assert rec.outcome(2, "衆耦1", "上射", 4) == (True, None)
    bom = write(tmp_path, "bom.csv", "\ufeff" + HEADER + "\n# a comment\n2,賓耦,下射,2,TRUE,\n")
    assert load_outcomes(bom).outcome(2, "賓耦", "下射", 2) == (True, None)


def test_unused_entries_are_reported_with_their_lines(tmp_path: Path) -> None:
    rec = load_outcomes(csv_file(tmp_path, [*GOOD_ROWS, "2,衆耦9,上射,1,true,"]))
    for o in list(rec.entries.values())[:5]:
        rec.outcome(o.round, o.pair, o.archer, o.arrow)
    warnings = rec.unused()
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{tmp_path / 'shots.csv'}:7:") and "衆耦9上射" in warnings[0]


def test_missing_arrows_are_refused_before_the_run(tmp_path: Path) -> None:
    rec = load_outcomes(csv_file(tmp_path, GOOD_ROWS))
    rec.require([(2, "上耦", "上射", 1)])
    with pytest.raises(OutcomesError, match="round 2 上耦上射 arrow 2"):
        rec.require([(2, "上耦", "上射", 1), (2, "上耦", "上射", 2)])
    with pytest.raises(OutcomesError, match="no outcome recorded"):
        rec.outcome(2, "次耦", "上射", 1)


def test_round_three_hit_without_beat_is_a_warning(tmp_path: Path) -> None:
    rec = load_outcomes(csv_file(tmp_path, ["3,上耦,上射,2,true,"]))
    assert rec.outcome(3, "上耦", "上射", 2) == (True, None)
    assert len(rec.warnings) == 1
    assert rec.warnings[0].startswith(f"{tmp_path / 'shots.csv'}:2: ")
    assert "不鼓不釋" in rec.warnings[0]


def test_run_pairs_restrict_the_names(tmp_path: Path) -> None:
    path = csv_file(tmp_path, ["2,射耦,上射,1,true,"])
    assert len(load_outcomes(path, pairs=["上耦", "射耦"])) == 1
    with pytest.raises(OutcomesError, match="unknown pair"):
        load_outcomes(path)


# ---------------------------------------------------------------- malformed files

BAD_CSV = [
    # (rows, header, line, message fragment)
    ([], "round,pair,archer,arrow,hit", 1, "header"),
    ([], "round,pair,archer,arrow,hit,onbeat", 1, "header"),
    (["2,上耦,上射,1,yes,"], HEADER, 2, "hit must be true or false"),
    (["2,上耦,上射,1,,"], HEADER, 2, "hit is empty"),
    (["3,上耦,上射,1,true,maybe"], HEADER, 2, "on_beat must be true or false"),
    (["2,上耦,上射,0,true,"], HEADER, 2, "arrow must be 1–4"),
    (["2,上耦,上射,1,true,", "2,上耦,上射,5,true,"], HEADER, 3, "arrow must be 1–4"),
    (["2,上耦,上射,one,true,"], HEADER, 2, "arrow must be a number"),
    (["2,四耦,上射,1,true,"], HEADER, 2, "unknown pair"),
    (["2,衆耦0,上射,1,true,"], HEADER, 2, "unknown pair"),
    (["2,上耦,中射,1,true,"], HEADER, 2, "unknown archer"),
    (["2,上耦,上射,1,true,", "2,上耦,下射,1,true,", "2,上耦,上射,1,false,"], HEADER, 4,
     "duplicate"),
    (["0,上耦,上射,1,true,"], HEADER, 2, "round must be 1–3"),
    (["4,上耦,上射,1,true,"], HEADER, 2, "round must be 1–3"),
    (["2,上耦,上射,1,true"], HEADER, 2, "5 fields"),
]  # fmt: skip


@pytest.mark.parametrize(("rows", "header", "line", "fragment"), BAD_CSV)
def test_malformed_csv_is_refused_with_file_and_line(
    tmp_path: Path, rows: list[str], header: str, line: int, fragment: str
) -> None:
    path = csv_file(tmp_path, rows, header)
    with pytest.raises(OutcomesError) as err:
        load_outcomes(path)
    assert err.value.line == line
    assert str(err.value).startswith(f"{path}:{line}: ")
    assert fragment in err.value.message


def test_duplicate_names_the_first_line(tmp_path: Path) -> None:
    path = csv_file(
        tmp_path, ["2,上耦,上射,1,true,", "1,上耦,上射,1,true,", "2,上耦,上射,1,false,"]
    )
    with pytest.raises(OutcomesError, match=r":4: duplicate: .*already given on line 2"):
        load_outcomes(path)


def test_empty_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OutcomesError, match=":1: empty file"):
        load_outcomes(write(tmp_path, "empty.csv", ""))


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OutcomesError, match="cannot read"):
        load_outcomes(tmp_path / "nowhere.csv")


GOOD = {"round": 2, "pair": "上耦", "archer": "上射", "arrow": 1, "hit": True}
BAD_JSON = [
    ({**GOOD, "hit": "yes"}, "hit must be true or false"),
    ({**GOOD, "hit": 1}, "hit must be true or false"),
    ({**GOOD, "on_beat": "sometimes"}, "on_beat must be true or false"),
    ({**GOOD, "arrow": 5}, "arrow must be 1–4"),
    ({**GOOD, "arrow": True}, "arrow must be a number"),
    ({**GOOD, "round": 0}, "round must be 1–3"),
    ({**GOOD, "round": 7}, "round must be 1–3"),
    ({**GOOD, "pair": "左耦"}, "unknown pair"),
    ({**GOOD, "archer": "司射"}, "unknown archer"),
    ({k: v for k, v in GOOD.items() if k != "hit"}, "'hit' is missing"),
    ({**GOOD, "onbeat": True}, "unknown field 'onbeat'"),
]


@pytest.mark.parametrize(("record", "fragment"), BAD_JSON)
def test_malformed_json_is_refused_with_file_and_line(
    tmp_path: Path, record: dict[str, object], fragment: str
) -> None:
    good = [{**GOOD, "arrow": n} for n in (2, 3)]
    path = json_file(tmp_path, [*good, record])  # the bad record is the third, on line 4
    with pytest.raises(OutcomesError) as err:
        load_outcomes(path)
    assert err.value.line == 4
    assert str(err.value).startswith(f"{path}:4: ")
    assert fragment in err.value.message


def test_json_error_points_at_the_field_line(tmp_path: Path) -> None:
    text = (
        '[\n  {"round": 2,\n   "pair": "上耦",\n   "archer": "上射",\n'
        '   "arrow": 9,\n   "hit": true}\n]'
    )
    with pytest.raises(OutcomesError) as err:
        load_outcomes(write(tmp_path, "pretty.json", text))
    assert err.value.line == 5


def test_json_duplicate_and_syntax_errors(tmp_path: Path) -> None:
    path = json_file(tmp_path, [GOOD, {**GOOD, "arrow": 2}, GOOD])
    with pytest.raises(OutcomesError, match=r"shots.json:4: duplicate: .*on line 2"):
        load_outcomes(path)
    broken = write(tmp_path, "broken.json", '[\n{"round": 2,\n "pair": 上耦}\n]')
    with pytest.raises(OutcomesError, match=r"broken.json:3: not valid JSON"):
        load_outcomes(broken)
    not_list = write(tmp_path, "obj.json", '{"round": 2}')
    with pytest.raises(OutcomesError, match="list of records"):
        load_outcomes(not_list)


def test_jsonl_error_names_its_line(tmp_path: Path) -> None:
    lines = [json.dumps(GOOD, ensure_ascii=False), "", json.dumps({**GOOD, "round": 9})]
    path = write(tmp_path, "shots.jsonl", "\n".join(lines) + "\n")
    with pytest.raises(OutcomesError, match=r"shots.jsonl:3: round must be 1–3"):
        load_outcomes(path)


def test_content_sniffing_for_other_extensions(tmp_path: Path) -> None:
    path = write(tmp_path, "shots.txt", json.dumps([GOOD], ensure_ascii=False))
    assert len(load_outcomes(path)) == 1
    path = write(tmp_path, "shots.dat", HEADER + "\n2,上耦,上射,1,false,\n")
    assert load_outcomes(path).outcome(2, "上耦", "上射", 1) == (False, None)


@settings(max_examples=60)
@given(
    st.lists(
        st.tuples(
            st.integers(1, 3),
            st.sampled_from(["上耦", "次耦", "下耦", "衆耦1", "賓耦", "大夫耦1"]),
            st.sampled_from(["上射", "下射"]),
            st.integers(1, 4),
            st.booleans(),
            st.sampled_from([True, False, None]),
        ),
        unique_by=lambda t: t[:4],
        max_size=30,
    ),
    st.randoms(use_true_random=False),
)
@pytest.mark.slow
def test_any_good_file_reads_back_exactly(tmp_path_factory, rows, rnd: random.Random) -> None:
    tmp = tmp_path_factory.mktemp("rt")
    text = lambda b: "" if b is None else str(b).lower()  # noqa: E731
    lines = [f"{r},{p},{a},{n},{text(h)},{text(b)}" for r, p, a, n, h, b in rows]
    rec = load_outcomes(csv_file(tmp, lines))
    assert len(rec) == len(rows)
    order = list(rows)
    rnd.shuffle(order)
    for r, p, a, n, h, b in order:
        assert rec.outcome(r, p, a, n) == (h, b)
    assert rec.unused() == []


def test_cli_refuses_a_malformed_file_without_traceback(tmp_path: Path) -> None:
    path = csv_file(tmp_path, ["2,上耦,上射,1,true,", "2,上耦,上射,7,true,"])
    result = CliRunner().invoke(cli, ["score", "--outcomes", str(path)])
    assert result.exit_code != 0
    assert f"{path}:3: arrow must be 1–4" in result.output
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)  # a clean exit, not a crash


def test_cli_scores_a_recorded_file(tmp_path: Path) -> None:
    rows = [
        *(f"2,上耦,上射,{n},true," for n in (1, 2, 3)),  # three counted on the right
        "2,上耦,下射,1,true,",  # one on the left
        "3,上耦,上射,1,true,false",  # not on the drum: 不鼓不釋
        "3,上耦,下射,1,true,true",
        "1,上耦,上射,1,true,",  # round 1: 獲而未釋獲
    ]
    result = CliRunner().invoke(cli, ["score", "--outcomes", str(csv_file(tmp_path, rows))])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "round 1: 1 hit(s), 獲而未釋獲 (xiangshe:150)",
        "round 2: 右 3 左 1  右賢於左一純",
        "round 3: 右 0 左 1  左賢於右一奇",
    ]


# ---------------------------------------------------------------- the seeded model

KEYS = st.tuples(
    st.integers(1, 3),
    st.sampled_from(["上耦", "次耦", "下耦", "衆耦1", "衆耦12", "賓耦", "大夫耦1"]),
    st.sampled_from(["上射", "下射"]),
    st.integers(1, 4),
)


@given(st.integers(), st.lists(KEYS, min_size=1, max_size=40), st.randoms(use_true_random=False))
@pytest.mark.slow
def test_seeded_outcomes_do_not_depend_on_call_order(seed: int, keys, rnd: random.Random) -> None:
    first = SeededOutcomes(seed)
    forward = {k: first.outcome(*k) for k in keys}
    shuffled = list(keys)
    rnd.shuffle(shuffled)
    second = SeededOutcomes(seed)
    assert {k: second.outcome(*k) for k in shuffled} == forward
    for (r, *_), (_, beat) in forward.items():
        assert (beat is None) == (r != 3)  # on_beat only in round 3


def test_seeds_differ_and_skill_shapes_the_rate() -> None:
    keys = [
        (2, f"衆耦{i}", a, n) for i in range(1, 51) for a in ("上射", "下射") for n in (1, 2, 3, 4)
    ]
    a, b = SeededOutcomes(1), SeededOutcomes(2)
    assert [a.outcome(*k) for k in keys] != [b.outcome(*k) for k in keys]
    sure = SeededOutcomes(5, skill={"上耦上射": 1.0, "上耦下射": 0.0})
    assert all(sure.outcome(r, "上耦", "上射", n)[0] for r in (1, 2, 3) for n in range(1, 5))
    assert not any(sure.outcome(r, "上耦", "下射", n)[0] for r in (1, 2, 3) for n in range(1, 5))
    hits = sum(a.outcome(*k)[0] for k in keys)
    assert 0.1 * len(keys) < hits < 0.6 * len(keys)  # the default skills are 0.15–0.55


def test_seeded_model_refuses_impossible_chances() -> None:
    with pytest.raises(ValueError):
        SeededOutcomes(1, skill={"上耦上射": 1.5})
    with pytest.raises(ValueError):
        SeededOutcomes(1, on_beat=-0.1)


def test_sources_satisfy_the_protocol() -> None:
    assert isinstance(SeededOutcomes(0), OutcomeSource)
    assert isinstance(RecordedOutcomes([]), OutcomeSource)


def test_python_api_refuses_duplicates() -> None:
    o = Outcome(2, "上耦", "上射", 1, True)
    with pytest.raises(OutcomesError, match="given twice"):
        RecordedOutcomes([o, o])

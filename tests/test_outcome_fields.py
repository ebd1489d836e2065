"""The optional outcome fields: where the arrow struck, through, when loosed, struck, flight."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sheli.scoring.outcomes import (
    OPTIONAL_FIELDS,
    Outcome,
    OutcomeFieldError,
    OutcomesError,
    load_outcomes,
)

HEADER = "round,pair,archer,arrow,hit,on_beat"
FULL = HEADER + ",x,y,through,loosed_s,struck,flight"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_with_all_fields_loads_them(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "o.csv",
        FULL + "\n2,上耦,上射,1,true,,-0.9,0.9,true,0.5,,剡注\n2,上耦,下射,1,false,,,,,2,维纲,\n",
    )
    rec = load_outcomes(path)
    first = rec.detail(2, "上耦", "上射", 1)
    assert first is not None
    assert (first.x, first.y, first.through, first.loosed_s) == (-0.9, 0.9, True, 0.5)
    assert (first.struck, first.flight, first.at) == ("", "剡注", (-0.9, 0.9))
    second = rec.detail(2, "上耦", "下射", 1)
    assert second is not None and second.struck == "維綱" and second.at is None
    assert second.loosed_s == 2.0 and second.through is None
    assert rec.outcome(2, "上耦", "上射", 1) == (True, None)


def test_old_header_still_loads_without_the_fields(tmp_path: Path) -> None:
    rec = load_outcomes(write(tmp_path, "o.csv", HEADER + "\n2,上耦,上射,1,true,\n"))
    o = rec.detail(2, "上耦", "上射", 1)
    assert o is not None and o.extras() == {} and o.at is None


def test_csv_optional_columns_any_order_and_subset(tmp_path: Path) -> None:
    path = write(tmp_path, "o.csv", HEADER + ",struck,loosed_s\n2,上耦,上射,1,false,,人,3\n")
    o = load_outcomes(path).detail(2, "上耦", "上射", 1)
    assert o is not None and (o.struck, o.loosed_s) == ("人", 3.0)


def test_json_keys(tmp_path: Path) -> None:
    rec = {"round": 2, "pair": "上耦", "archer": "上射", "arrow": 1, "hit": True}
    rec |= {"x": 1, "y": -2.5, "through": True, "loosed_s": 0, "flight": "剡注"}
    path = write(tmp_path, "o.json", json.dumps([rec], ensure_ascii=False))
    o = load_outcomes(path).detail(2, "上耦", "上射", 1)
    assert o is not None
    assert o.extras() == {"x": 1.0, "y": -2.5, "through": True, "loosed_s": 0.0, "flight": "剡注"}


@pytest.mark.parametrize(
    ("header", "row", "message"),
    [
        (HEADER + ",x", "2,上耦,上射,1,true,,1", "x and y go together"),
        (HEADER + ",x,y", "2,上耦,上射,1,true,,abc,1", 'x must be a number, not "abc"'),
        (HEADER + ",x,y", "2,上耦,上射,1,true,,1,nan", "y must be a finite number"),
        (HEADER + ",x,y", "2,上耦,上射,1,true,,1,300", "y must be within ±100 尺"),
        (HEADER + ",struck", "2,上耦,上射,1,false,,中人", "struck must be empty or one of"),
        (HEADER + ",struck", "2,上耦,上射,1,true,,人", "did not 貫 the 侯, so hit is false"),
        (HEADER + ",struck", "2,上耦,上射,1,true,,梱復", "衆當中鵠而著"),
        (HEADER + ",struck,through", "2,上耦,上射,1,false,,揚觸,true", "struck nothing else"),
        (HEADER + ",struck,x,y", "2,上耦,上射,1,false,,人,0,0", "no place on the face"),
        (HEADER + ",flight", "2,上耦,上射,1,true,,高", "flight must be empty or one of 剡注"),
        (HEADER + ",through", "2,上耦,上射,1,true,,yes", "through must be true or false"),
        (HEADER + ",loosed_s", "2,上耦,上射,1,true,,inf", "loosed_s must be a finite number"),
    ],
)
def test_bad_values_name_file_and_line(tmp_path: Path, header: str, row: str, message: str) -> None:
    path = write(tmp_path, "o.csv", f"{header}\n# a comment\n{row}\n")
    with pytest.raises(OutcomesError) as exc:
        load_outcomes(path)
    text = str(exc.value)
    assert text.startswith(f"{path}:3: ")
    assert message in text
    assert "\n" not in text


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (HEADER + ",z", "unknown column 'z'"),
        (HEADER + ",x,x", "the column 'x' is given twice"),
        ("round,pair,archer,arrow,hit,x,on_beat", "begins with the header"),
    ],
)
def test_bad_headers(tmp_path: Path, header: str, message: str) -> None:
    with pytest.raises(OutcomesError, match=message) as exc:
        load_outcomes(write(tmp_path, "o.csv", header + "\n"))
    assert str(exc.value).startswith(f"{tmp_path / 'o.csv'}:1: ")


def test_json_bad_field_points_at_its_line(tmp_path: Path) -> None:
    text = (
        '[\n {"round": 2, "pair": "上耦", "archer": "上射", "arrow": 1,\n'
        '  "hit": false,\n  "struck": "箭"}\n]\n'
    )
    with pytest.raises(OutcomesError, match=r"o\.json:4: struck must be"):
        load_outcomes(write(tmp_path, "o.json", text))


def test_json_unknown_key_lists_the_optional_ones(tmp_path: Path) -> None:
    rec = {"round": 2, "pair": "上耦", "archer": "上射", "arrow": 1, "hit": True, "pos": 1}
    with pytest.raises(OutcomesError, match="optionally " + ", ".join(OPTIONAL_FIELDS)):
        load_outcomes(write(tmp_path, "o.json", json.dumps([rec])))


def test_outcome_in_python_is_checked() -> None:
    with pytest.raises(OutcomeFieldError, match="round 2 上耦上射 arrow 1: x and y go together"):
        Outcome(2, "上耦", "上射", 1, True, x=1.0)
    o = Outcome(2, "上耦", "上射", 1, False, None, 5, struck="人", loosed_s=1.0)
    assert o.line == 5 and o.struck == "人" and o.key == (2, "上耦", "上射", 1)


def test_parse_outcome_reads_one_record_for_a_live_form() -> None:
    from sheli.scoring.outcomes import parse_outcome

    rec = {"round": "3", "pair": "次耦", "archer": "下射", "arrow": 2, "hit": "false"}
    o = parse_outcome({**rec, "on_beat": True, "struck": "扬触", "loosed_s": 4})
    assert (o.key, o.struck, o.loosed_s, o.line) == ((3, "次耦", "下射", 2), "揚觸", 4.0, None)
    with pytest.raises(OutcomeFieldError) as exc:
        parse_outcome({**rec, "x": 1})
    assert exc.value.field == "y"
    with pytest.raises(OutcomeFieldError, match="unknown field 'pos'"):
        parse_outcome({**rec, "pos": 1})
    with pytest.raises(OutcomeFieldError, match="unknown pair"):
        parse_outcome({**rec, "pair": "公耦"}, pairs=["上耦", "次耦"])

"""The fast YAML loaders give exactly what PyYAML's constructors gave.

``sheli.rite.loader.load_yaml_with_lines`` (the specs) and ``sheli.yamlfile.load_yaml`` (the
venues) build the data from libyaml's node tree in one function instead of PyYAML's generic
constructors.
The references below are the loaders they replace, written out here: the spec loader as it
was (a safe loader whose mapping constructor records ``__line__`` and which keeps dates as
text) and ``yaml.safe_load`` for the venues. "The same" is strict: the same types (``1`` is
not ``1.0`` nor ``True``), the same key order, the same lines, the same errors and lines.
"""

from __future__ import annotations

import datetime
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sheli.place import loader as place_loader
from sheli.rite import SPEC_DIR
from sheli.rite.loader import LINE_KEY, SpecError, load_yaml_with_lines
from sheli.yamlfile import load_yaml

ROOT = Path(__file__).resolve().parents[1]
VENUE_DIR = Path(str(resources.files("sheli.place").joinpath("data")))
SPEC_FILES = sorted(SPEC_DIR.rglob("*.yaml"))  # the specs and their part files
VENUE_FILES = sorted(VENUE_DIR.glob("*.yaml"))
FIXTURE_FILES = sorted((ROOT / "tests" / "fixtures").rglob("*.yaml"))


# ---------------------------------------------------------------- the references


class _RefLineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The spec loader as it was before the fast path (sheli.rite.loader, 2886d32)."""


def _ref_mapping(loader: _RefLineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    mapping = loader.construct_mapping(node, deep=True)
    mapping[LINE_KEY] = node.start_mark.line + 1
    return mapping


def _ref_no_dates(loader: _RefLineLoader, node: yaml.ScalarNode) -> Any:
    return loader.construct_scalar(node)


_RefLineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _ref_mapping)
_RefLineLoader.add_constructor("tag:yaml.org,2002:timestamp", _ref_no_dates)


def ref_spec(text: str) -> Any:
    return yaml.load(text, Loader=_RefLineLoader)  # a SafeLoader subclass


def ref_venue(text: str) -> Any:
    return yaml.safe_load(text)  # the pure-Python SafeLoader, as the venue loader was


def same(a: Any, b: Any, path: str = "", seen: set[tuple[int, int]] | None = None) -> None:
    """Assert ``a`` and ``b`` are the same data: types, key order and values (a list that
    holds itself is compared once).

    >>> same({"a": 1}, {"a": 1.0})
    Traceback (most recent call last):
    AssertionError: .a: int 1 != float 1.0...
    """
    assert type(a) is type(b), f"{path}: {type(a).__name__} {a!r} != {type(b).__name__} {b!r}"
    seen = set() if seen is None else seen
    if isinstance(a, (dict, list)):
        if (id(a), id(b)) in seen:
            return
        seen.add((id(a), id(b)))
    if isinstance(a, dict):
        assert list(a) == list(b), f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            same(a[k], b[k], f"{path}.{k}", seen)
    elif isinstance(a, list):
        assert len(a) == len(b), f"{path}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same(x, y, f"{path}[{i}]", seen)
    elif isinstance(a, float) and a != a:
        assert b != b, f"{path}: nan != {b!r}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def spec_outcome(load: Any, text: str) -> tuple[str, Any]:
    """("ok", data) or ("error", the line the error names)."""
    try:
        return "ok", load(text)
    except SpecError as exc:
        return "error", exc.line
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return "error", mark.line + 1 if mark else None
    except yaml.YAMLError:
        return "error", None
    except ValueError as exc:  # PyYAML's own: int('x') of an explicit !!int x
        return "raised", type(exc).__name__


def assert_same_as_reference(text: str) -> None:
    kind, got = spec_outcome(load_yaml_with_lines, text)
    ref_kind, ref = spec_outcome(ref_spec, text)
    assert kind == ref_kind, (text, got, ref)
    if kind == "ok":
        same(got, ref)
    else:
        assert got == ref, (text, got, ref)


# ---------------------------------------------------------------- the project's files


def test_there_are_files_to_compare() -> None:
    assert len(SPEC_FILES) >= 8 and any(p.parent != SPEC_DIR for p in SPEC_FILES)
    assert {"xie.yaml", "xiang.yaml"} <= {p.name for p in VENUE_FILES}


@pytest.mark.parametrize("path", SPEC_FILES + FIXTURE_FILES, ids=lambda p: p.name)
@pytest.mark.slow
def test_every_spec_and_part_file_loads_as_before(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert_same_as_reference(text)


@pytest.mark.parametrize("path", VENUE_FILES + SPEC_FILES, ids=lambda p: p.name)
@pytest.mark.slow
def test_every_venue_file_loads_as_safe_load_did(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    same(load_yaml(text), ref_venue(text))


def test_the_venues_and_their_names_are_as_before() -> None:
    titles: dict[str, str] = {}
    aliases: dict[str, str] = {}
    for path in VENUE_FILES:
        head = ref_venue(path.read_text("utf-8")) or {}
        titles[path.stem] = str(head.get("title") or path.stem)
        aliases[path.stem] = path.stem
        for alias in head.get("aliases") or []:
            aliases.setdefault(str(alias), path.stem)
    same(place_loader.VENUES, titles)
    same(place_loader.VENUE_ALIASES, aliases)


@pytest.mark.parametrize("path", VENUE_FILES, ids=lambda p: p.name)
def test_read_gives_the_merged_venue_as_before_and_a_new_object_each_time(path: Path) -> None:
    def ref_read(key: str) -> dict[str, Any]:
        data = ref_venue((VENUE_DIR / f"{key}.yaml").read_text("utf-8"))
        if data.get("extends") is None:
            return data
        return place_loader._merge(ref_read(data["extends"]), data)

    first, second = place_loader._read(path.stem), place_loader._read(path.stem)
    same(first, ref_read(path.stem))
    same(second, first)
    assert second is not first  # a caller may change what it got


# ---------------------------------------------------------------- errors, dates, the rare cases


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\nb: [1, 2\nc: 3\n",  # an unclosed flow list
        "steps:\n  - cite: x\n   verb: 立\n",  # a key out of line
        "a: 'open\n",
        "a: 1\na: 1\n--- \nb: 2\n",  # two documents
        "a: *nowhere\n",  # an undefined alias
        "a: !!python/name:os.system x\n",  # not safe
        "a:\n  ? [1, 2]\n  : x\n",  # a list as a key: unhashable
        "<<: 1\n",  # a merge of what is not a mapping
        "a: !!binary '日'\n",  # not base64
    ],
)
def test_a_bad_document_is_a_spec_error_naming_the_file_and_the_line(text: str) -> None:
    with pytest.raises(SpecError) as info:
        load_yaml_with_lines(text, file="t.yaml")
    assert info.value.file == "t.yaml"
    assert str(info.value).startswith("t.yaml")
    assert_same_as_reference(text)


def test_the_broken_fixture_names_its_line() -> None:
    path = ROOT / "tests" / "fixtures" / "specs" / "bad_yaml.yaml"
    with pytest.raises(SpecError) as info:
        load_yaml_with_lines(path.read_text(encoding="utf-8"), file=path.name)
    assert info.value.file == "bad_yaml.yaml" and info.value.line
    assert str(info.value).startswith(f"bad_yaml.yaml:{info.value.line}: YAML syntax")
    assert_same_as_reference(path.read_text(encoding="utf-8"))


def test_a_date_stays_text_in_a_spec_and_is_a_date_in_a_venue() -> None:
    text = "day: 2026-11-22\nat: 2001-12-14t21:59:43.10-05:00\nlist: [2026-01-01]\n"
    data = load_yaml_with_lines(text)
    assert data == {
        "day": "2026-11-22",
        "at": "2001-12-14t21:59:43.10-05:00",
        "list": ["2026-01-01"],
        LINE_KEY: 1,
    }
    assert load_yaml(text)["day"] == datetime.date(2026, 11, 22)
    same(load_yaml(text), ref_venue(text))


def test_each_mapping_carries_its_start_line() -> None:
    text = "a: 1\nsteps:\n  - x: 1\n\n  - {y: 2}\n  -\n    z: 3\n"
    data = load_yaml_with_lines(text)
    assert [s[LINE_KEY] for s in data["steps"]] == [3, 5, 7]
    assert data[LINE_KEY] == 1
    assert_same_as_reference(text)


@pytest.mark.parametrize(
    "text",
    [
        "base: &b {x: 1, y: [1, 2]}\nother:\n  <<: *b\n  y: 3\n",  # a merge key
        "a: &x {k: 1}\nb: *x\nc: &l [1, *x]\nd: *l\n",  # aliases: the same objects
        "s: !!set {a, b}\no: !!omap [{a: 1}, {b: 2}]\n",
        "= : 1\n",  # the value key, taken as the text '='
        "a: !!str 1\nb: !!int '7'\nc: !!float '2'\nd: !!bool 'yes'\ne: !!null ''\n",
        "? [1]\n",  # a list as a key
        "a: !!int x\n",  # PyYAML raises a ValueError, as before
        "",
        "# only a comment\n",
        "- 1\n- x\n",
    ],
)
def test_the_rare_cases_are_as_before(text: str) -> None:
    assert_same_as_reference(text)
    if spec_outcome(ref_venue, text)[0] == "ok":
        same(load_yaml(text), ref_venue(text))


@pytest.mark.parametrize("text", ["&r [*r]\n", "a: &m {b: [*m]}\n"])
def test_a_document_holding_itself_is_refused(text: str) -> None:
    # PyYAML builds a list that holds itself; anything that walks the data would then
    # recurse for ever: refused, in one line
    with pytest.raises(SpecError, match="an alias inside itself"):
        load_yaml_with_lines(text)
    with pytest.raises(yaml.YAMLError):
        load_yaml(text)


def test_a_billion_laughs_is_refused_in_one_line() -> None:
    # nine levels of ten aliases: 10⁹ nodes once expanded, from some 700 bytes
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]")
    text = "\n".join(lines) + "\n"
    with pytest.raises(SpecError, match="beyond 1,000,000 nodes") as info:
        load_yaml_with_lines(text)
    assert info.value.line is not None and "\n" not in str(info.value)


def test_an_alias_is_the_same_object_as_its_anchor() -> None:
    data = load_yaml_with_lines("a: &x {k: 1}\nb: *x\n")
    assert data["a"] is data["b"]
    ref = ref_spec("a: &x {k: 1}\nb: *x\n")
    assert ref["a"] is ref["b"]


# ---------------------------------------------------------------- random documents

# plain scalars that YAML 1.1 reads as something other than text, and some that it does not
TOKENS = [
    "x", "立", "司射", "xiangshe:127", "a b", "yes", "No", "on", "OFF", "true", "False",
    "~", "null", "Null", "0", "-1", "+7", "1_000", "0x1F", "0o17", "017", "0b101", "1:30",
    "190:20:30", "1.5", "-.5", "1e3", "1.0e+3", ".inf", "-.Inf", ".nan", "2026-01-01",
    "2001-12-14 21:59:43.10 -5", "=", "'quoted'", '"dq 1"', "1.2.3", "中-西", "50 * 弓",
]  # fmt: skip
KEYS = ["a", "b", "cite", "verb", "1", "yes", "null", "1.5", "2026-01-01", "=", "名"]

scalars = st.sampled_from(TOKENS)


def _nested(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    pairs = st.lists(st.tuples(st.sampled_from(KEYS), inner), max_size=4)
    return st.lists(inner, max_size=4) | pairs


documents = st.recursive(scalars, _nested, max_leaves=12)


def emit(doc: Any, indent: int = 0, flow: bool = False) -> str:
    """YAML text for ``doc``: a list of pairs is a mapping (duplicate keys kept, as a file may
    have them), a list a sequence, a str a plain or quoted scalar written as it is."""
    pad = " " * indent
    if isinstance(doc, str):
        return doc
    if not doc:
        return "[]" if not doc and isinstance(doc, list) else "{}"
    if flow:
        if isinstance(doc[0], tuple):
            return "{" + ", ".join(f"{k}: {emit(v, flow=True)}" for k, v in doc) + "}"
        return "[" + ", ".join(emit(v, flow=True) for v in doc) + "]"
    lines = []
    if isinstance(doc[0], tuple):
        for k, v in doc:
            if isinstance(v, list) and v:
                lines.append(f"{pad}{k}:\n{emit(v, indent + 2)}")
            else:
                lines.append(f"{pad}{k}: {emit(v, flow=True)}")
    else:
        for v in doc:
            if isinstance(v, list) and v and isinstance(v[0], tuple):
                body = emit(v, indent + 2)
                lines.append(f"{pad}- {body[indent + 2 :]}")
            else:
                lines.append(f"{pad}- {emit(v, flow=True)}")
    return "\n".join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.booleans())
@pytest.mark.slow
def test_random_documents_load_as_before(doc: Any, flow: bool) -> None:
    text = emit(doc, flow=flow) + "\n"
    assert_same_as_reference(text)
    if spec_outcome(ref_venue, text)[0] == "ok":
        same(load_yaml(text), ref_venue(text))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=list("ab1:-[]{},#&*!|>'\" \n?<=~."), max_size=30))
@pytest.mark.slow
def test_random_text_gives_the_same_data_or_the_same_error_line(text: str) -> None:
    assert_same_as_reference(text)

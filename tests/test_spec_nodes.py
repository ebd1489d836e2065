"""A spec as the engine reads it (sheli.rite.nodes): the schema's models' fields, names and
defaults, without pydantic; a spec from the cache the same as one just validated."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from sheli.diskcache import CACHE_ENV
from sheli.rite import load_spec, nodes, schema
from sheli.rite.cache import load as cache_load


def test_every_model_has_its_node_and_is_one() -> None:
    models = {
        name: cls
        for name, cls in vars(schema).items()
        if isinstance(cls, type)
        and issubclass(cls, schema.BaseModel)
        and cls.__module__ == schema.__name__
        and not name.startswith("_")
    }
    classes = {n for n in nodes.__all__ if isinstance(getattr(nodes, n), type)}
    assert set(models) == classes
    for name, model in models.items():
        assert issubclass(model, getattr(nodes, name)), name


def test_the_fields_of_an_act_are_the_schemas() -> None:
    assert set(nodes.ACT_FIELDS) == set(schema.Act.model_fields)


@pytest.mark.parametrize("name", ["Condition", "PairDecl", "Spec", "Act", "ActStep"])
def test_class_defaults_are_the_schemas(name: str) -> None:
    node, model = getattr(nodes, name), getattr(schema, name)
    for field, info in model.model_fields.items():
        if hasattr(node, field):
            assert getattr(node, field) == info.get_default(call_default_factory=True), field
    if name not in ("Spec", "Act", "ActStep"):  # their lists and mappings are always given
        assert all(
            hasattr(node, f) for f in model.model_fields if not model.model_fields[f].is_required()
        )


@pytest.mark.parametrize("name", [n for n in nodes.__all__ if n != "from_models"])
def test_every_field_that_may_be_none_reads_none_when_not_kept(name: str) -> None:
    # a cached spec keeps no field that is None where the class's default is None
    node, model = getattr(nodes, name), getattr(schema, name)
    for field, info in model.model_fields.items():
        if not info.is_required() and info.default is None:
            assert getattr(node, field, 0) is None, field


def test_a_cached_spec_keeps_no_none_and_reads_the_same() -> None:
    spec = load_spec("xiangshe").spec
    step = next(s for s in spec.steps if isinstance(s, nodes.ActStep) and s.do is None)
    nones = [k for k in schema.ActStep.model_fields if getattr(step, k) is None]
    assert "do" in nones
    state = step.__getstate__()
    assert not set(nones) & set(state) and state["verb"] == step.verb
    again = pickle.loads(pickle.dumps(step))
    assert again == step and all(getattr(again, k) is None for k in nones)
    assert again.acts() == step.acts() and again.acts()[0].verb == step.verb
    other = pickle.loads(pickle.dumps(step))
    other.verb = "not " + step.verb
    assert other != step


def test_a_spec_is_nodes_with_every_field_and_cached_equal() -> None:
    loaded = load_spec("xiangshe")
    spec = loaded.spec
    # every field read (those None as their class's default are not kept in the cache)
    assert type(spec) is nodes.Spec and set(vars(spec)) <= set(schema.Spec.model_fields)
    assert all(hasattr(spec, f) for f in schema.Spec.model_fields)
    step = next(s for s in spec.steps if isinstance(s, nodes.ActStep) and s.do is None)
    assert step.acts() is step.acts() and step.acts()[0].verb == step.verb
    again = cache_load(loaded.path)
    assert again is not None and again.spec == spec


@pytest.mark.slow
def test_a_run_from_the_cache_does_not_import_pydantic(tmp_path: Path) -> None:
    heavy = "('pydantic', 'babel', 'opencc')"
    code = (
        "import sys; from sheli.engine import run; run('xiangshe'); "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy}))"
    )
    env = dict(os.environ, **{CACHE_ENV: str(tmp_path)})
    outs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        ).stdout.strip()
        for _ in range(2)
    ]
    assert "pydantic" in outs[0]  # parsed and validated: the cache was empty
    assert outs[1] == "[]"  # from the cache: the spec, its checks, the venue

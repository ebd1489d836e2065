"""A spec as the engine reads it (sheli.rite.nodes): the schema's models' fields, names and
defaults, without pydantic; a spec from the cache the same as one just validated."""

from __future__ import annotations

import os
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


@pytest.mark.parametrize("name", ["Condition", "PairDecl", "Spec"])
def test_class_defaults_are_the_schemas(name: str) -> None:
    node, model = getattr(nodes, name), getattr(schema, name)
    for field, info in model.model_fields.items():
        if hasattr(node, field):
            assert getattr(node, field) == info.get_default(call_default_factory=True), field
    if name != "Spec":  # a Spec's lists and mappings are always given
        assert all(
            hasattr(node, f) for f in model.model_fields if not model.model_fields[f].is_required()
        )


def test_a_spec_is_nodes_with_every_field_and_cached_equal() -> None:
    loaded = load_spec("xiangshe")
    spec = loaded.spec
    assert type(spec) is nodes.Spec and set(vars(spec)) == set(schema.Spec.model_fields)
    step = next(s for s in spec.steps if isinstance(s, nodes.ActStep) and s.do is None)
    assert step.acts() is step.acts() and step.acts()[0].verb == step.verb
    again = cache_load(loaded.path)
    assert again is not None and again.spec == spec


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

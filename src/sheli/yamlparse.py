"""The YAML parser of the data files (PyYAML, with libyaml where it was built with it):
what :mod:`sheli.yamlfile` calls when a text is not in the disk cache. Use
:mod:`sheli.yamlfile`, which keeps a data file parsed once.

>>> load_yaml_lines("steps:\\n  - cite: xiangshe:127\\n")["steps"][0]
{'cite': 'xiangshe:127', '__line__': 2}
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

LINE_KEY = "__line__"  # the key under which load_yaml_lines puts a mapping's start line


# libyaml's parser (C) when PyYAML was built with it: ten times faster on a large spec.
_Base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _LineLoader(_Base):  # type: ignore[misc,valid-type]
    """A safe loader that records the start line of every mapping (PyYAML's generic
    constructors: the slow path, taken only for what :func:`_build` leaves to it)."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict[str, Any]:
    mapping = loader.construct_mapping(node, deep=True)
    mapping[LINE_KEY] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _no_dates(loader: _LineLoader, node: yaml.ScalarNode) -> str:
    # Keep every scalar that looks like a date or time as text: a data file never means a datetime.
    return loader.construct_scalar(node)  # type: ignore[return-value]


_LineLoader.add_constructor("tag:yaml.org,2002:timestamp", _no_dates)


# The fast path. PyYAML's constructors spend more time than libyaml's parser: a generic
# dispatch, a recursion guard and a generator per node. The data of a spec or a venue file is
# only mappings, lists and the plain scalars (text, numbers, true/false, null), so libyaml
# composes the node tree and _build turns it into dicts and lists in one tight function. What
# it does not know (a merge key <<, an explicit !!set or !!binary, a recursive alias, a
# mapping as a key, an unknown tag) makes it give up, and PyYAML's constructors build the
# document as before, with the same data or the same error.
_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"


class _Composer(_Base):  # type: ignore[misc,valid-type]
    """libyaml's composer with the tags of a SafeLoader, resolved without the bookkeeping of
    path resolvers (a SafeLoader has none) and of wildcard resolvers (nor these)."""

    def resolve(self, kind: type, value: Any, implicit: tuple[bool, bool]) -> str:
        # as BaseResolver.resolve: a plain scalar takes the tag of the first implicit
        # resolver (by its first character) that matches it, anything else the default
        if kind is ScalarNode:
            if implicit[0]:
                for tag, regexp in self.yaml_implicit_resolvers.get(value[:1], ()):
                    if regexp.match(value):
                        return tag  # type: ignore[no-any-return]
            return _STR
        return _MAP if kind is MappingNode else _SEQ

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass


# the shortcut holds while the SafeLoader has neither (else: the loader's own resolver)
_SHORTCUT = not _Base.yaml_path_resolvers and None not in _Base.yaml_implicit_resolvers


class _GiveUp(Exception):
    """The document holds what only PyYAML's constructors build (see above)."""


_SAFE = yaml.constructor.SafeConstructor()
# tag → the SafeLoader's constructor of that scalar (``str`` is handled inline)
_SCALARS: dict[str, Any] = {
    "tag:yaml.org,2002:null": _SAFE.construct_yaml_null,
    "tag:yaml.org,2002:bool": _SAFE.construct_yaml_bool,
    "tag:yaml.org,2002:int": _SAFE.construct_yaml_int,
    "tag:yaml.org,2002:float": _SAFE.construct_yaml_float,
    "tag:yaml.org,2002:timestamp": _SAFE.construct_yaml_timestamp,
}
# in load_yaml_lines, a date stays the text it is (as _no_dates above)
_TEXT_DATE_SCALARS = {**_SCALARS, "tag:yaml.org,2002:timestamp": _SAFE.construct_scalar}


def _build(root: Node | None, line_key: str | None, scalars: dict[str, Any]) -> Any:
    """The data of a composed document, as PyYAML's safe constructors make it; with
    ``line_key``, every mapping also gets its 1-based start line under that key.

    Raises :class:`_GiveUp` where the result would not be the same.
    """
    if root is None:
        return None
    made: dict[int, Any] = {}  # an alias is the same node: the same object, as in PyYAML

    def build(node: Node) -> Any:
        cls = node.__class__
        if cls is ScalarNode:
            tag = node.tag
            if tag == _STR:
                return node.value
            make = scalars.get(tag)
            if make is None:
                raise _GiveUp
            return make(node)
        seen = made.get(id(node))
        if seen is not None:
            if seen is made:  # an alias inside itself
                raise _GiveUp
            return seen
        made[id(node)] = made
        if cls is MappingNode and node.tag == _MAP:
            out: Any = {}
            for key_node, value_node in node.value:
                if key_node.__class__ is ScalarNode and key_node.tag == _STR:
                    key = key_node.value
                else:
                    key = build(key_node)
                    if key.__class__ is dict or key.__class__ is list:
                        raise _GiveUp  # unhashable: PyYAML's error names the line
                if value_node.__class__ is ScalarNode and value_node.tag == _STR:
                    out[key] = value_node.value
                else:
                    out[key] = build(value_node)
            if line_key is not None:
                out[line_key] = node.start_mark.line + 1
        elif cls is SequenceNode and node.tag == _SEQ:
            out = [
                item.value if item.__class__ is ScalarNode and item.tag == _STR else build(item)
                for item in node.value
            ]
        else:
            raise _GiveUp
        made[id(node)] = out
        return out

    return build(root)


def _compose(text: str) -> Node | None:
    loader = (_Composer if _SHORTCUT else _Base)(text)
    try:
        return loader.get_single_node()  # type: ignore[no-any-return]
    finally:
        loader.dispose()


def load_yaml(text: str) -> Any:
    """What ``yaml.safe_load(text)`` gives, parsed by libyaml when PyYAML has it (the venue
    files). Raises PyYAML's errors.

    >>> load_yaml("a: [1, x, 2026-01-01]")
    {'a': [1, 'x', datetime.date(2026, 1, 1)]}
    """
    node = _compose(text)
    try:
        return _build(node, None, _SCALARS)
    except _GiveUp:
        return yaml.load(text, Loader=_Base)  # a SafeLoader


def load_yaml_lines(text: str) -> Any:
    """Parse YAML text; every mapping carries its 1-based start line under :data:`LINE_KEY`,
    and a date stays text (a data file never means a datetime). Raises PyYAML's errors.

    >>> load_yaml_lines("day: 2026-01-01")
    {'day': '2026-01-01', '__line__': 1}
    """
    node = _compose(text)
    try:
        return _build(node, LINE_KEY, _TEXT_DATE_SCALARS)
    except _GiveUp:
        return yaml.load(text, Loader=_LineLoader)  # a SafeLoader subclass

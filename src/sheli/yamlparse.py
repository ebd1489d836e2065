"""The YAML parser of the data files: PyYAML's safe loader, libyaml's where PyYAML has it
(use :mod:`sheli.yamlfile`, which keeps a file parsed). A document whose aliases expand it
beyond :data:`MAX_NODES` nodes (a "billion laughs"), or nested too deep, is refused:
>>> load_yaml("a: 2026-01-01"), load_yaml_lines("a: 2026-01-01")
({'a': datetime.date(2026, 1, 1)}, {'a': '2026-01-01', '__line__': 1})
"""

from typing import Any

import yaml

LINE_KEY = "__line__"  # the key under which load_yaml_lines puts a mapping's start line
MAX_NODES = 1_000_000  # aliases expanded: the largest shipped file has 14 000
_Safe: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _LineLoader(_Safe):
    """Every mapping gets its 1-based start line; a date stays text (never a datetime)."""


def _map(loader: Any, node: Any) -> dict[Any, Any]:
    mapping: dict[Any, Any] = loader.construct_mapping(node, deep=True)
    mapping[LINE_KEY] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor("tag:yaml.org,2002:map", _map)
_LineLoader.add_constructor("tag:yaml.org,2002:timestamp", _LineLoader.construct_scalar)


def _size(node: Any, size: dict[int, int]) -> int:  # aliases expanded, each node sized once
    n = size.get(id(node), 1 if node.id == "scalar" else None)
    if n is None:  # (an alias inside itself recurses until Python's limit: too deep)
        kids = [k for pair in node.value for k in pair] if node.id == "mapping" else node.value
        size[id(node)] = n = 1 + sum(_size(k, size) for k in kids)
        if n > MAX_NODES:
            bad = f"its aliases expand it beyond {MAX_NODES:,} nodes"
            raise yaml.MarkedYAMLError(problem=bad, problem_mark=node.start_mark)
    return n


def load_yaml(text: str, loader_class: type = _Safe) -> Any:
    """What ``yaml.safe_load(text)`` gives, or PyYAML's error (the venues)."""
    loader = loader_class(text)
    try:
        root = loader.get_single_node()
        return None if root is None or not _size(root, {}) else loader.construct_document(root)
    except RecursionError:
        raise yaml.YAMLError("nested too deep, or an alias inside itself") from None
    finally:
        loader.dispose()


def load_yaml_lines(text: str) -> Any:
    """As :func:`load_yaml`; every mapping gets its start line, a date stays text (specs)."""
    return load_yaml(text, _LineLoader)

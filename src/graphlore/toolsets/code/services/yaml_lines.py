"""YAML documents with the line each of their keys is written at: where a setting, a route or a port came
from (``file:line`` in the answers agents read)."""

from __future__ import annotations

from typing import Any

import yaml


class _Loader(yaml.SafeLoader):
    """YAML as the safe loader reads it, with Docker Compose's merge tags: ``!override`` (the value replaces the
    merged one: read as the value) and ``!reset`` (the merged value is dropped: read as nothing). Without them a
    Compose override file that writes one (``ports: !override []``) would not load at all."""


def _override(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_scalar(node)


_Loader.add_constructor("!override", _override)
_Loader.add_constructor("!reset", lambda loader, node: None)


def documents(text: str) -> list[tuple[Any, dict[str, int]]]:
    """Each document of ``text`` and the line of each flattened key in it (``a.b``, ``a.list[0]``, a map or list
    item's own line too); a document after a syntax error is not read (as `yaml.safe_load_all` stops)."""
    out: list[tuple[Any, dict[str, int]]] = []
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            lines: dict[str, int] = {}
            _node_lines(node, "", lines)
            out.append((loader.construct_document(node), lines))
    except yaml.YAMLError:
        pass
    finally:
        loader.dispose()
    return out


def _node_lines(node: yaml.Node, prefix: str, out: dict[str, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            name = f"{prefix}.{key.value}" if prefix else str(key.value)
            out[name] = key.start_mark.line + 1
            _node_lines(value, name, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, value in enumerate(node.value):
            out[f"{prefix}[{index}]"] = value.start_mark.line + 1
            _node_lines(value, f"{prefix}[{index}]", out)

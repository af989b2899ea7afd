"""A re-import never undoes an agent's edit: a three-way merge of what the file gives now, what the skill
holds, and what the last import gave (the skill's ``imported`` prop).

Per content field:

- the skill still holds what the last import gave: the file's new value is taken;
- the file gives what the last import gave: the skill's value (the agent's edit) is kept;
- both changed it: for ``conditions`` and ``keywords`` the lists are merged (the file's items, less those
  the agent removed, then the items the agent added), so neither side loses an item; for any other field
  the agent's value is kept and the field is reported as a conflict. A merged list that would break a
  skill's limits (more than ``MAX_CONDITIONS`` conditions) is not written: the agent's list is kept and
  reported as a conflict, as for any other field, so every later update of the skill stays possible.

The playbook is compared without its ``# Title`` line (a renamed skill's heading follows its title), and
rendered again under the merged title. A skill imported before the ``imported`` prop existed has no
record of the last import: if it still hashes to the last import (``import_hash``) it holds exactly what
that import gave; otherwise every field where it differs from the file counts as the agent's (kept,
reported).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from graphlore.toolsets.skills.models import SkillInput
from graphlore.toolsets.skills.playbook import parse, render

#: The props key of the content fields as the last import gave them.
IMPORTED = "imported"
LISTS = ("conditions", "keywords")
_HEADING = "-"


def _body(markdown: str) -> str:
    """The playbook without its title (compared apart from it: the heading follows the title)."""
    return render(dataclasses.replace(parse(markdown), title=_HEADING))


def _comparable(fields: Mapping[str, Any]) -> dict[str, Any]:
    return {**fields, "resolution_md": _body(fields["resolution_md"])}


def _merge_lists(base: list[str], mine: list[str], theirs: list[str]) -> list[str]:
    removed, known = set(base) - set(mine), set(base)
    merged = [item for item in theirs if item not in removed]
    return merged + [item for item in mine if item not in known and item not in merged]


@dataclass
class Merged:
    """The fields to write; the fields where the agent's value was kept over the file's change; the lists
    both changed, merged."""

    fields: dict[str, Any]
    kept: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)


def merge(base: Mapping[str, Any] | None, mine: Mapping[str, Any], theirs: Mapping[str, Any]) -> Merged:
    """Three-way merge of content fields (see the module docstring); ``base`` None: no record of the last
    import, every difference is the agent's."""
    m, t = _comparable(mine), _comparable(theirs)
    b = _comparable(base) if base is not None else None
    out: dict[str, Any] = {}
    kept: list[str] = []
    merged: list[str] = []
    for name in t:
        if m[name] == t[name]:
            out[name] = t[name]
        elif b is not None and m[name] == b[name]:
            out[name] = t[name]
        elif b is not None and t[name] == b[name]:
            out[name] = m[name]
        elif b is not None and name in LISTS:
            out[name] = _merge_lists(b[name], m[name], t[name])
            merged.append(name)
        else:
            out[name] = m[name]
            kept.append(name)
    out["resolution_md"] = render(dataclasses.replace(parse(out["resolution_md"]), title=out["title"]))
    if merged and not _valid(out):
        out |= {name: m[name] for name in merged}
        kept, merged = kept + merged, []
    return Merged(out, kept, merged)


def _valid(fields: dict[str, Any]) -> bool:
    try:
        SkillInput.model_validate(fields)
    except ValidationError:
        return False
    return True

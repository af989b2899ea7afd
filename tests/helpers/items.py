"""Calling the items tools in process, and finding item folders independently of the scanner."""

from __future__ import annotations

import re
from pathlib import Path

from graphlore.runtime import Runtime
from graphlore.toolsets.items import tools
from graphlore.toolsets.items.models import GetIndexStatusRequest, IndexRequest, SearchRequest

TYPE_DIRS = ("bugs", "features", "human-actions", "inquiries")
ITEM_DIR = re.compile(r"^(BUG|FEAT|ACTION|INQ)-\d+")


def item_folders(root: Path) -> list[Path]:
    """Every item folder, found independently of the scanner (agent_runs/ is not a place for items)."""
    dirs = [p for d in (*TYPE_DIRS, "completed") for p in (root / d).glob("*") if p.is_dir()]
    dirs += [p for d in TYPE_DIRS for p in (root / "completed" / d).glob("*") if p.is_dir()]
    return [p for p in dirs if ITEM_DIR.match(p.name)]


def index(runtime: Runtime, root: Path, force: bool = False):
    return tools.index(runtime, IndexRequest(project_path=str(root), force=force))


def status(runtime: Runtime, root: Path):
    return tools.get_index_status(runtime, GetIndexStatusRequest(project_path=str(root)))


def search(runtime: Runtime, root: Path, query: str, **kw):
    return tools.search(runtime, SearchRequest(query=query, project_path=str(root), **kw))


def ids(results) -> list[str]:
    return [r.item_id for r in results]

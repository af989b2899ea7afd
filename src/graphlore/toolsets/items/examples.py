"""A small feature-management folder, indexed, and a valid call of every items tool against it
(:attr:`Toolset.examples`). Tests and ``bench/reliability.py`` start from these calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphlore.runtime import Runtime
from graphlore.toolsets.items.index import ItemIndex

ITEMS = [
    ("bugs/BUG-001-search-misses-accents", "bug_report.json", "PROMPT.md",
     {"title": "Search misses notes with accented characters", "description": "Searching for 'cafe' does not "
      "find 'café'.", "status": "new", "priority": "P1"}, "# Fix\nNormalise accents before indexing."),
    ("bugs/BUG-002-crash-on-empty-title", "bug_report.json", "PROMPT.md",
     {"title": "Crash when a note has an empty title", "description": "Saving a note without a title raises.",
      "status": "in_progress", "priority": "P0"}, "Guard against empty titles in the save path."),
    ("features/FEAT-001-dark-mode", "feature_request.json", "PROMPT.md",
     {"title": "Dark mode", "description": "Offer a dark colour scheme that follows the system setting.",
      "status": "new", "priority": "P2"}, "Add a theme switch and CSS variables."),
    ("human-actions/ACTION-001-renew-certificate", "action_report.json", "INSTRUCTIONS.md",
     {"title": "Renew the TLS certificate", "description": "The certificate expires next month.",
      "status": "pending"}, "Run certbot renew on the web host."),
    ("completed/BUG-003-slow-startup", "bug_report.json", "PROMPT.md",
     {"title": "Slow start-up on large libraries", "description": "Opening 10k notes takes a minute.",
      "status": "resolved"}, "Load the note list lazily."),
]


def write_project(folder: Path) -> Path:
    """The example folder at ``folder/project`` (made fresh)."""
    project = folder / "project"
    for rel, json_name, md_name, meta, body in ITEMS:
        item = project / rel
        item.mkdir(parents=True)
        (item / json_name).write_text(json.dumps(meta), encoding="utf-8")
        (item / md_name).write_text(body, encoding="utf-8")
    return project


def examples(runtime: Runtime, folder: Path) -> dict[str, list[dict[str, Any]]]:
    project = str(write_project(folder))
    ItemIndex(runtime, project).sync()
    return {
        "search": [{"query": "accented characters", "project_path": project},
                   {"query": "crash", "project_path": project, "item_types": ["bug"], "status": ["in_progress"],
                    "include_completed": True, "limit": 3, "threshold": 0.1}],
        "index": [{"project_path": project}],
        "check_duplicates": [{"title": "Accents are ignored by search", "description": "café vs cafe",
                              "project_path": project},
                             {"title": "Dark theme", "description": "", "project_path": project, "threshold": 0.6,
                              "item_type": "feature"}],
        "get_similar": [{"item_id": "BUG-001", "project_path": project},
                        {"item_id": "BUG-003", "project_path": project, "limit": 2, "include_completed": False}],
        "get_index_status": [{"project_path": project}],
    }

"""Read a feature-management folder into items: the items toolset's only reader of item folders (config.py reads .agent-config.json).

Layout: one folder per item under ``bugs/``, ``features/``, ``human-actions/``, ``inquiries/`` (files
in ``ITEM_FILES``) and ``completed/``, which holds archived item folders directly (as real trees do)
or inside the same type folders. ``agent_runs/`` is never indexed. Real trees drift from their own
schemas, so parsing is lenient: a problem inside an item becomes a warning and the item is still
returned with what could be read; only a path that is not a feature-management folder raises. The
folder name is the canonical item id (unique per folder, visible in every listing); a JSON id that
disagrees is reported, not used.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import namedtuple
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from graphlore.contract import quote
from graphlore.errors import InvalidInput, NotFound, ref
from graphlore.roots import ESCAPES, escapes
from graphlore.toolsets.folder_index import read_file

ITEM_TYPES = ("bug", "feature", "action", "inquiry")
TYPE_DIRS = {"bugs": "bug", "features": "feature", "human-actions": "action", "inquiries": "inquiry"}
COMPLETED_DIR = "completed"
NEVER_INDEXED = frozenset({"agent_runs"})
ITEM_FILES = {  # item type -> (metadata JSON, markdown body)
    "bug": ("bug_report.json", "PROMPT.md"),
    "feature": ("feature_request.json", "PROMPT.md"),
    "action": ("action_report.json", "INSTRUCTIONS.md"),
    "inquiry": ("inquiry_report.json", "QUESTION.md"),
}
_PREFIX_TYPES = {"BUG": "bug", "FEAT": "feature", "ACTION": "action", "INQ": "inquiry"}
_ID_KEYS = {"bug": "bug_id", "feature": "feature_id", "action": "action_id", "inquiry": "inquiry_id"}
_FOLDER_RE = re.compile(r"^(BUG|FEAT|ACTION|INQ)-(\d+)(?:-(.*))?$", re.IGNORECASE)
_HEADING_RE = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_ID_PREFIX_RE = re.compile(r"^(?:BUG|FEAT|ACTION|INQ)-\d+\s*[:\-\u2013\u2014]\s*", re.IGNORECASE)
#: At most this much of an item file is read (memory stays flat whatever the file's size): a longer
#: markdown file is indexed from its beginning, a longer JSON file is not read; both with a warning.
MAX_FILE_BYTES = 1_048_576
LAYOUT_HELP = (
    "expected a feature-management folder holding at least one of bugs/, features/, human-actions/, "
    "inquiries/ or completed/, with one folder per item such as bugs/BUG-001-short-title/ "
    "(bug_report.json + PROMPT.md)"
)


@dataclass(frozen=True)
class ScannedItem:
    """One work item as read from disk; ``text`` is exactly what gets indexed and hashed."""

    item_id: str
    item_type: str
    title: str
    description: str
    body: str
    status: str
    priority: str
    path: str
    completed: bool
    mtime: float
    files: dict[str, float] = field(hash=False)
    content_hash: str
    #: What reading this item's own files reported (also part of :attr:`ScanResult.warnings`).
    warnings: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return index_text(self.title, self.description, self.body)


@dataclass
class ScanResult:
    items: list[ScannedItem]
    warnings: list[str]


# rel: posix folder path relative to the project root; folder_id: "BUG-001"; slug: the rest of the name
_Folder = namedtuple("_Folder", "rel item_type folder_id slug completed")


def index_text(title: str, description: str, body: str) -> str:
    return f"TITLE: {title}\n\nDESCRIPTION: {description}\n\nIMPLEMENTATION:\n{body}"


def check_layout(project_path: str | Path) -> Path:
    """Resolve ``project_path`` and make sure it looks like a feature-management folder."""
    given = quote(str(project_path))
    if not str(project_path).strip():
        raise InvalidInput(f"{ref('project_path')} is empty; {LAYOUT_HELP}")
    try:
        root = Path(os.path.realpath(os.path.expanduser(str(project_path))))
        exists, is_dir = root.exists(), root.is_dir()
        layout = is_dir and any((root / name).is_dir() for name in (*TYPE_DIRS, COMPLETED_DIR))
        inner = root / "feature-management"
        nested = not layout and is_dir and inner.is_dir()
    except (ValueError, OSError) as exc:  # a NUL byte, a name too long for the file system, a loop...
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InvalidInput(f"{ref('project_path')} {given} is not a usable path ({reason}); {LAYOUT_HELP}") from exc
    if not exists:  # an unknown project answers not_found, as an unknown library or graph does
        raise NotFound(f"{ref('project_path')} {given} does not exist; {LAYOUT_HELP}")
    if not is_dir:
        raise InvalidInput(f"{ref('project_path')} {given} is a file, not a folder; {LAYOUT_HELP}")
    if not layout:
        hint = f"; did you mean {quote(str(inner), 200)}?" if nested else ""
        raise InvalidInput(f"{quote(str(root), 200)} is not a feature-management folder: {LAYOUT_HELP}{hint}")
    return root


def _subdirs(root: Path, rel_dir: str, warnings: list[str]) -> list[os.DirEntry[str]]:
    """Sub-folders of ``rel_dir``; an entry named like an item that is not a folder is reported."""
    try:
        with os.scandir(root / rel_dir) as it:
            entries = [e for e in it if not e.name.startswith(".") and e.name not in NEVER_INDEXED]
    except FileNotFoundError:
        return []
    except OSError as exc:
        warnings.append(f"{rel_dir}/: cannot list folder ({exc.strerror or exc}); its items were skipped")
        return []
    folders = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            folders.append(entry)
        elif _FOLDER_RE.match(entry.name) or entry.name in TYPE_DIRS:
            what = "a symbolic link that leads to no folder" if entry.is_symlink() else "not a folder"
            warnings.append(f"{rel_dir}/{entry.name}: {what}; skipped")
    return sorted(folders, key=lambda e: e.name)


def _as_item(rel_dir: str, name: str, completed: bool, expected: str | None, warnings: list[str]) -> _Folder | None:
    rel = f"{rel_dir}/{name}"
    match = _FOLDER_RE.match(name)
    if not match:
        warnings.append(f"{rel}/: not an item folder (expected a name like BUG-001-short-title); skipped")
        return None
    prefix, number, slug = match.group(1).upper(), match.group(2), match.group(3) or ""
    item_type = _PREFIX_TYPES[prefix]
    if expected and item_type != expected:
        warnings.append(f"{rel}/: a {item_type} folder inside {rel_dir}/; indexed as a {item_type}")
    return _Folder(rel, item_type, f"{prefix}-{number}", slug, completed)


def _item_folders(root: Path, warnings: list[str]) -> list[_Folder]:
    """Every item folder, sorted by path; stat-free apart from listing directories."""
    found: list[_Folder | None] = []
    for dirname, item_type in TYPE_DIRS.items():
        found += [_as_item(dirname, e.name, False, item_type, warnings) for e in _subdirs(root, dirname, warnings)]
    for entry in _subdirs(root, COMPLETED_DIR, warnings):
        if entry.name in TYPE_DIRS:
            rel_dir = f"{COMPLETED_DIR}/{entry.name}"
            for sub in _subdirs(root, rel_dir, warnings):
                found.append(_as_item(rel_dir, sub.name, True, TYPE_DIRS[entry.name], warnings))
        else:
            found.append(_as_item(COMPLETED_DIR, entry.name, True, None, warnings))
    return sorted((f for f in found if f is not None), key=lambda f: f.rel)


def _stat_mtime(path: str | Path) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def list_item_files(project_path: str | Path, roots: tuple[Path, ...] = ()) -> dict[str, float]:
    """Relative path -> mtime for every file :func:`scan_project` would read; never reads contents.
    A file whose real path leaves ``roots`` (see :func:`graphlore.roots.escapes`) is not listed."""
    root = check_layout(project_path)
    base, out = str(root), {}
    for folder in _item_folders(root, []):
        for name in ITEM_FILES[folder.item_type]:
            rel = f"{folder.rel}/{name}"
            if roots and escapes(f"{base}/{rel}", roots):
                continue
            mtime = _stat_mtime(f"{base}/{rel}")  # plain strings: Path objects cost more than the stat
            if mtime is not None:
                out[rel] = mtime
    return out


def _read(root: Path, rel: str, files: dict[str, float], warnings: list[str], roots: tuple[Path, ...]) -> str | None:
    """Text of one item file (recording its mtime), or None with a warning when it is unusable or its real
    path leaves ``roots`` (then it is not even looked at: its size or mtime say nothing to the caller).

    Only regular files are opened (a named pipe or a device named like an item file is skipped), and
    at most :data:`MAX_FILE_BYTES` of a file are read: a longer markdown file is indexed from its
    beginning, a longer JSON file is not read (see the warnings).
    """
    if roots and escapes(root / rel, roots):
        warnings.append(f"{rel}: {ESCAPES}; the item is indexed without it")
        return None
    found = read_file(root / rel, MAX_FILE_BYTES)
    if found.mtime is not None:
        files[rel] = found.mtime
    if found.problem == "missing":
        warnings.append(f"{rel}: missing; the item is indexed without it")
        return None
    if found.data is None:
        warnings.append(f"{rel}: {found.problem}; the item is indexed without it")
        return None
    raw = found.data
    if found.problem is not None:
        if rel.endswith(".json"):
            warnings.append(f"{rel}: is {found.size:,} bytes, more than the {MAX_FILE_BYTES:,} a metadata file may "
                            "have; not read")
            return None
        warnings.append(f"{rel}: {found.problem} (the rest is not indexed)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if found.problem is not None and exc.start >= len(raw) - 3:
            text = raw[:exc.start].decode("utf-8-sig")  # the cut fell inside a character
        else:
            warnings.append(f"{rel}: not valid UTF-8; undecodable bytes were replaced")
            text = raw.decode("utf-8-sig", errors="replace")
    if "\x00" in text:  # binary data: no store text holds NUL (PostgreSQL's cannot)
        warnings.append(f"{rel}: holds NUL characters (binary data?); each was replaced with U+FFFD")
        text = text.replace("\x00", "\ufffd")
    return text


def _json_problem(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    return f"not valid JSON ({exc})"  # e.g. undecodable bytes


def _load_json(text: str | None, rel: str, warnings: list[str]) -> dict[str, Any] | None:
    try:
        data = json.loads(text) if text is not None else None
    except ValueError as exc:
        warnings.append(f"{rel}: {_json_problem(exc)}; title and metadata taken from the folder name and markdown")
        return None
    except RecursionError:
        warnings.append(f"{rel}: not usable JSON (nested too deeply); title and metadata taken from the folder "
                        "name and markdown")
        return None
    if text is not None and not isinstance(data, dict):
        warnings.append(f"{rel}: expected a JSON object, got {type(data).__name__}; metadata ignored")
        return None
    if data is not None:
        data, replaced = _valid_text(data)
        if replaced:
            warnings.append(f"{rel}: holds {replaced} escape(s) that are not characters (lone surrogates such as "
                            "\\ud800, or NUL \\u0000); each was replaced with U+FFFD")
    return data


def _valid_text(value: Any) -> tuple[Any, int]:
    """``value`` with every lone surrogate and NUL in its strings (keys too) replaced by U+FFFD, and how
    many strings had one. JSON allows both escapes, but a lone surrogate cannot be stored or sent as
    UTF-8, and no store text holds NUL (PostgreSQL's cannot)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            value = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
            return value.replace("\x00", "\ufffd"), 1
        if "\x00" in value:
            return value.replace("\x00", "\ufffd"), 1
        return value, 0
    if isinstance(value, list):
        pairs = [_valid_text(v) for v in value]
        return [v for v, _ in pairs], sum(n for _, n in pairs)
    if isinstance(value, dict):
        out, count = {}, 0
        for key, inner in value.items():
            key, k = _valid_text(key)
            inner, n = _valid_text(inner)
            out[key] = inner
            count += k + n
        return out, count
    return value, 0


def _field(data: dict[str, Any], *keys: str) -> str:
    """First usable text value among ``keys``: strings, numbers, or lists of strings (joined)."""
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return "\n".join(v.strip() for v in value)
    return ""


def _fallback_title(body: str, folder: _Folder) -> str:
    heading = _HEADING_RE.search(body)
    if heading and _ID_PREFIX_RE.sub("", heading.group(1)).strip():
        return _ID_PREFIX_RE.sub("", heading.group(1)).strip()
    slug = folder.slug.replace("-", " ").replace("_", " ").strip()
    return slug[:1].upper() + slug[1:] if slug else folder.folder_id


def _scan_item(root: Path, folder: _Folder, roots: tuple[Path, ...] = ()) -> ScannedItem:
    warnings: list[str] = []
    json_name, md_name = ITEM_FILES[folder.item_type]
    files: dict[str, float] = {}
    json_rel, md_rel = f"{folder.rel}/{json_name}", f"{folder.rel}/{md_name}"
    data = _load_json(_read(root, json_rel, files, warnings, roots), json_rel, warnings)
    body = _read(root, md_rel, files, warnings, roots) or ""
    meta = data or {}
    declared = _field(meta, _ID_KEYS[folder.item_type], "id")
    if declared and declared.upper() != folder.folder_id:
        warnings.append(f"{json_rel}: declares id {declared!r} but the folder name says "
                        f"{folder.folder_id}; using {folder.folder_id} (rename the folder or fix the JSON)")
    title = _field(meta, "title")
    if not title:
        title = _fallback_title(body, folder)
        if data is not None:
            warnings.append(f"{json_rel}: no 'title'; using {title!r}")
    description = _field(meta, "description", "question", "summary")
    status = _field(meta, "status").lower() or ("completed" if folder.completed else "")
    text = index_text(title, description, body)
    mtime = max(files.values()) if files else (_stat_mtime(root / folder.rel) or 0.0)
    return ScannedItem(
        item_id=folder.folder_id, item_type=folder.item_type, title=title, description=description, body=body,
        status=status, priority=_field(meta, "priority"), path=folder.rel, completed=folder.completed,
        mtime=mtime, files=files, content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        warnings=tuple(warnings),
    )


def _dedupe_ids(items: list[ScannedItem], warnings: list[str]) -> list[ScannedItem]:
    """Same id in several folders: an active item keeps it; others become ``{id}@{path}``."""
    by_id: dict[str, list[ScannedItem]] = {}
    for item in items:
        by_id.setdefault(item.item_id, []).append(item)
    renamed: dict[str, str] = {}
    for item_id, group in by_id.items():
        if len(group) < 2:
            continue
        keeper, *others = sorted(group, key=lambda i: (i.completed, i.path))
        for other in others:
            renamed[other.path] = f"{item_id}@{other.path}"
        warnings.append(f"duplicate item id {item_id}: {keeper.path} keeps it; "
                        + ", ".join(f"{o.path} is indexed as {renamed[o.path]}" for o in others))
    return [replace(i, item_id=renamed[i.path]) if i.path in renamed else i for i in items]


def scan_project(
    project_path: str | Path, known: Mapping[str, ScannedItem] | None = None, roots: tuple[Path, ...] = (),
) -> ScanResult:
    """Read every item; problems become warnings, never exceptions (bad layout still raises).

    ``known`` maps folder paths (``bugs/BUG-001-x``) to items read earlier whose files have not
    changed since: those are taken as they are instead of being read again. ``roots``: the folders the
    process may read; a file whose real path leaves them is not read (a warning names it).
    """
    root = check_layout(project_path)
    known = known or {}
    warnings: list[str] = []
    items = []
    for folder in _item_folders(root, warnings):
        item = known.get(folder.rel) or _scan_item(root, folder, roots)
        warnings += item.warnings
        items.append(item)
    return ScanResult(items=_dedupe_ids(items, warnings), warnings=warnings)

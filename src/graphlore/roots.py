"""Which folders a server may read: ``GRAPHLORE_ALLOWED_ROOTS`` (paths joined by ``os.pathsep``).

Folder-backed toolsets (items, code) call :meth:`graphlore.runtime.Runtime.confine`
on every folder a request names, before looking at it. The folder's real path
(``..`` collapsed, every symlink followed) must be one of the roots or inside
one, so neither ``..`` nor a symlink leads out; the refusal says the same thing
whether or not the folder exists, so it tells a caller nothing about what lies
outside. No roots configured means no confinement (the CLI and stdio servers,
which run as the user who starts them); over HTTP the server always has roots
(default: its working directory).

Confining the folder is not enough: a file inside an allowed project may be a
symlink (or sit in a symlinked folder) that leads elsewhere. So every file a
toolset reads from such a folder is checked too (:func:`escapes`); one whose real
path leaves the roots is not read, and the toolset warns, naming the file by its
path inside the project (never its target).
"""

from __future__ import annotations

import os
from pathlib import Path

from graphlore.errors import ConfigError, InvalidInput


def parse_roots(value: str) -> tuple[Path, ...]:
    """The configured roots as real paths; a root that is not an existing folder is a ConfigError."""
    roots = []
    for part in (p.strip() for p in value.split(os.pathsep)):
        if not part:
            continue
        real = Path(os.path.realpath(os.path.expanduser(part)))
        if not real.is_dir():
            raise ConfigError(f"GRAPHLORE_ALLOWED_ROOTS names {part!r}, which is not a folder")
        roots.append(real)
    return tuple(roots)


def confine(path: str | Path, roots: tuple[Path, ...], what: str = "project_path") -> Path:
    """``path``'s real path when it lies under one of ``roots`` (any path when there are none)."""
    try:
        real = Path(os.path.realpath(os.path.expanduser(str(path))))
    except (ValueError, OSError) as exc:  # e.g. an embedded NUL byte
        raise InvalidInput(f"{what} {str(path)!r} is not a usable path ({exc})") from exc
    if not roots or any(real == root or real.is_relative_to(root) for root in roots):
        return real
    allowed = ", ".join(str(r) for r in roots)
    raise InvalidInput(f"{what} {str(path)!r} is outside the folders this server may read ({allowed}); "
                       "the server's GRAPHLORE_ALLOWED_ROOTS sets them")


#: How a toolset's warning ends for a file :func:`escapes` refused (after the file's path in the project).
ESCAPES = "leads outside the folders this server may read (a symlink); not read"


def escapes(path: str | Path, roots: tuple[Path, ...]) -> bool:
    """Whether reading ``path`` would leave the allowed roots: its real path (every symlink followed)
    lies outside all of them. Never when no roots are configured (nothing is confined then)."""
    if not roots:
        return False
    try:
        real = Path(os.path.realpath(path))
    except (ValueError, OSError):
        return True
    return not any(real == root or real.is_relative_to(root) for root in roots)

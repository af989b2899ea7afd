"""How a Rust path names a module: ``crate``, ``self`` and ``super`` read from the file's module, a ``mod`` the
file declares read from its own module (the resolver and the constants folder both read paths so)."""

from __future__ import annotations

from ...model import FileFacts


def absolute(path: str, module: str, facts: FileFacts) -> str:
    """A dotted ``use`` or call path as the project names it (``crate.store.Store`` in crate ``orders`` ->
    ``orders.store.Store``; ``super.x`` one module up; ``memory.Repo`` after ``mod memory;`` -> ``<module>.memory.Repo``);
    any other path is a crate's as written."""
    head, _, rest = path.partition(".")
    if head == "crate":
        base = module.split(".", 1)[0]
    elif head == "self":
        base = module
    elif head == "super":
        base = module.rsplit(".", 1)[0] if "." in module else module
        while rest == "super" or rest.startswith("super."):
            base = base.rsplit(".", 1)[0] if "." in base else base
            rest = rest[6:]
    elif head in facts.extra.get("mods", ()):
        return f"{module}.{path}"
    else:
        return path
    return f"{base}.{rest}" if rest else base


def imports(module: str, facts: FileFacts) -> dict[str, str]:
    """Local name -> the path a ``use`` brings it from, as the project names it."""
    return {alias: absolute(target, module, facts) for imp in facts.imports for target, alias in imp.names
            if alias != "*"}

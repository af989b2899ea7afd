"""Caddy as a gateway (a ``Caddyfile`` in a service, or the one a Caddy container runs with, `layout.edge`): each
``reverse_proxy`` of a site block is a route forwarding to its upstreams (`services.endpoints.Forward`;
`services.links` links it to the target's routes, as any gateway's).

**Paths.** A ``reverse_proxy``'s own path matcher (``reverse_proxy /api/* api:8080``), a named matcher's ``path``
(``@api path /api/* /v1/*``, also in its block form; one route per path; a ``host`` condition names a host, not
part of the route), else the path of the ``handle``, ``handle_path`` or ``route`` block it is in, else every path
(``/**``). ``/api/*`` (or ``/api*``) is every path under ``/api``, ``*`` every path, ``/x`` that path only; a
named matcher with another condition (``method``, ``header``, ``not``, an expression) or a path with a
wildcard inside is not read: the route says so and forwards to a target not known (never guessed). Any method.

**Where to.** The upstreams (arguments, or ``to`` lines in its block; several: one of them); ``{$VAR}`` and
``{env.VAR}`` are environment variables, settled with the environment the deployment gives the service.
``handle_path /api/*`` strips ``/api`` before the request goes on, as does ``uri strip_prefix /api`` in the
same block; another ``uri``/``rewrite`` there is not read (the route says so). Snippets and ``import`` are not
read.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..languages.folding import Folded, choice, env, literal
from ..services.endpoints import ANY, Forward, normalise_path

Route = tuple[int, str, str, Forward | None, str | None, str]

_PLACEHOLDER = re.compile(r"\{(?:\$|env\.)(\w+)\}")


@dataclass
class _Block:
    words: list[str]
    line: int
    children: list[_Block] = field(default_factory=list)


def _tree(text: str) -> list[_Block]:
    """The Caddyfile's directives as a tree (a line ending in ``{`` opens a block, a ``}`` line closes it)."""
    root = _Block([], 0)
    stack = [root]
    for number, raw in enumerate(text.splitlines(), start=1):
        try:
            words = shlex.split(raw, comments=True)
        except ValueError:
            words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if words == ["}"]:
            if len(stack) > 1:
                stack.pop()
            continue
        opens = words[-1] == "{"
        block = _Block(words[:-1] if opens else words, number)
        stack[-1].children.append(block)
        if opens:
            stack.append(block)
    return root.children


def _pattern(path: str) -> str | None:
    """A Caddy path matcher as a route pattern (None: a wildcard inside, not read)."""
    if path == "*":
        return "/**"
    if path.endswith("*") and "*" not in path[:-1]:
        head = path[:-1].rstrip("/")
        return normalise_path(head) + "/**" if head else "/**"
    return None if "*" in path else normalise_path(path)


def _upstream(text: str) -> Folded:
    text = text if "://" in text else f"http://{text}"
    out, last = literal(""), 0
    for found in _PLACEHOLDER.finditer(text):
        out = out + literal(text[last:found.start()]) + env(found.group(1))
        last = found.end()
    return out + literal(text[last:])


def _matchers(site: _Block) -> dict[str, tuple[list[str], str | None]]:
    """Named matchers of a site block: name -> (paths, problem)."""
    out: dict[str, tuple[list[str], str | None]] = {}
    for block in site.children:
        if not block.words or not block.words[0].startswith("@"):
            continue
        conditions = [block.words[1:]] if len(block.words) > 1 else [child.words for child in block.children]
        paths, problem = [], None
        for condition in conditions:
            if not condition or condition[0] == "host":
                continue
            if condition[0] == "path":
                paths += condition[1:]
            else:
                problem = f"its matcher {block.words[0]} ({' '.join(condition)}) is not read"
        out[block.words[0]] = (paths, problem)
    return out


def caddy_routes(path: str, text: str) -> Iterator[Route]:
    """The gateway routes of one Caddyfile (see the module docstring)."""
    for site in _tree(text):
        if not site.words or site.words[0].startswith("("):
            continue   # the global options block, a snippet
        yield from _directives(site.children, _matchers(site), "/**", None, None)


def _directives(blocks: list[_Block], matchers: dict[str, tuple[list[str], str | None]], pattern: str,
                strip: str | None, problem: str | None) -> Iterator[Route]:
    for block in blocks:
        name, args = (block.words[0], block.words[1:]) if block.words else ("", [])
        if name in ("handle", "handle_path", "route"):
            inner, inner_problem = pattern, problem
            paths, why = _paths(args[:1], matchers)
            if why:
                inner, inner_problem = "/**", why
            elif paths:
                inner = paths[0] if len(paths) == 1 else pattern
                inner_problem = problem if len(paths) == 1 else f"{name} matches several paths ({', '.join(paths)}), not read"
            inner_strip = strip
            if name == "handle_path" and paths and len(paths) == 1:
                inner_strip = inner[:-3] if inner.endswith("/**") else inner
            for child in block.children:
                if child.words[:2] == ["uri", "strip_prefix"] and len(child.words) > 2:
                    inner_strip = normalise_path(child.words[2])
                elif child.words[:1] in (["uri"], ["rewrite"]):
                    inner_problem = inner_problem or f"its '{' '.join(child.words)}' is not read"
            yield from _directives(block.children, matchers, inner, inner_strip, inner_problem)
        elif name == "reverse_proxy":
            matcher = args[:1] if args and (args[0].startswith(("/", "@")) or args[0] == "*") else []
            upstreams = args[len(matcher):] + [w for child in block.children if child.words[:1] == ["to"]
                                               for w in child.words[1:]]
            paths, why = _paths(matcher, matchers)
            target = choice([_upstream(u) for u in upstreams]) if upstreams else None
            unread = why or problem
            for one in paths or [pattern]:
                rewrite = (strip, "/") if strip and (one == strip or one.startswith(strip.rstrip("/") + "/")) else None
                forward = Forward(None if unread else target, 0, rewrite, normalise_path(one))
                yield block.line, ANY, one, forward, unread or (None if upstreams else "it names no upstream"), "caddy"


def _paths(matcher: list[str], matchers: dict[str, tuple[list[str], str | None]]) -> tuple[list[str], str | None]:
    """(route patterns, problem) of a directive's matcher token (none: no paths)."""
    if not matcher:
        return [], None
    token = matcher[0]
    written, problem = matchers.get(token, ([], f"no matcher {token} in this site")) if token.startswith("@") \
        else ([token], None)
    if problem:
        return [], problem
    patterns = [_pattern(p) for p in written]
    if any(p is None for p in patterns):
        return [], f"the path matcher {' '.join(written)} is not read"
    return [p for p in patterns if p is not None], None

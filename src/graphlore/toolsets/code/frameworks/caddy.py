"""Caddy as a gateway (a ``Caddyfile`` in a service, or the one a Caddy container runs with, `layout.edge`): each
``reverse_proxy`` of a site block is a route forwarding to its upstreams (`services.endpoints.Forward`;
`services.links` links it to the target's routes, as any gateway's).

**Paths.** A site address's path (``localhost/api/*``: every request of the site), a ``reverse_proxy``'s own path matcher (``reverse_proxy /api/* api:8080``), a named matcher's ``path``
(``@api path /api/* /v1/*``, also in its block form; one route per path; a ``host`` condition names a host, not
part of the route), else the path of the ``handle``, ``handle_path`` or ``route`` block it is in, else every path
(``/**``). ``/api/*`` (or ``/api*``) is every path under ``/api``, ``*`` every path, ``/x`` that path only; a
named matcher with another condition (``method``, ``header``, ``not``, an expression) or a path with a
wildcard inside is not read: the route says so and forwards to a target not known (never guessed). Any method.

**Where to.** The upstreams (arguments, or ``to`` lines in its block; several: one of them); ``{$VAR}`` and
``{env.VAR}`` are environment variables, settled with the environment the deployment gives the service.
``handle_path /api/*`` strips ``/api`` before the request goes on, as does ``uri strip_prefix /api`` in the
same block or the site's (one that only some of the block's paths start with is not read); another
``uri``/``rewrite`` there, or a ``reverse_proxy``'s own ``rewrite``, is not read (the route says so). A matcher
inside a block sees the path the block left (inside ``handle_path /api/*``, ``/orders/*`` is ``/api/orders/**``);
one outside its block's path is reached by no request (no route). Snippets and ``import`` are not read.
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
        pattern, problem = _site_path(site.words)
        strip, problem = _rewrites(site.children, pattern, None, problem)
        yield from _directives(site.children, _matchers(site), pattern, strip, problem)


def _site_path(addresses: list[str]) -> tuple[str, str | None]:
    """(pattern, problem) of a site block's addresses: a path in them (``localhost/api/*``) matches every request
    of the site; different paths, or one with a wildcard inside, are not read."""
    paths, written_as = set(), [a.rstrip(",") for a in addresses if a.rstrip(",")]
    for address in written_as:
        rest = address.split("://", 1)[-1]
        paths.add(rest[rest.index("/"):] if "/" in rest else "*")
    if len(paths) > 1:
        return "/**", f"its site's addresses have different paths ({', '.join(written_as)}), not read"
    written = paths.pop() if paths else "*"
    pattern = _pattern(written)
    return (pattern, None) if pattern is not None else ("/**", f"its site's path {written} is not read")


def _directives(blocks: list[_Block], matchers: dict[str, tuple[list[str], str | None]], pattern: str,
                strip: str | None, problem: str | None, in_order: bool = False) -> Iterator[Route]:
    """The routes of a block's directives: ``pattern`` the paths it is reached by (as the client sends them),
    ``strip`` the prefix of those already stripped (a matcher inside sees the rest); ``in_order``: a ``route``
    block's, run as written (a ``reverse_proxy`` under an earlier one's path is never reached), not sorted by
    how specific their paths are."""
    taken: list[str] = []
    for block in blocks:
        name, args = (block.words[0], block.words[1:]) if block.words else ("", [])
        if name in ("handle", "handle_path", "route"):
            inner, inner_problem, inner_strip = pattern, problem, strip
            paths, why = _paths(args[:1], matchers)
            if why:
                inner_problem = why
            elif len(paths) > 1:
                inner_problem = problem or f"{name} matches several paths ({', '.join(paths)}), not read"
            elif paths:
                own = _outside(strip, paths[0])
                placed = _within(pattern, own)
                if placed is None:
                    continue   # no request reaches it: its path is outside the block it is in
                inner = placed
                if name == "handle_path":
                    inner_strip = own[:-3] if own.endswith("/**") else own
            inner_strip, inner_problem = _rewrites(block.children, inner, inner_strip, inner_problem)
            yield from _directives(block.children, matchers, inner, inner_strip, inner_problem, name == "route")
        elif name == "reverse_proxy":
            matcher = args[:1] if args and (args[0].startswith(("/", "@")) or args[0] == "*") else []
            upstreams = args[len(matcher):] + [w for child in block.children if child.words[:1] == ["to"]
                                               for w in child.words[1:]]
            paths, why = _paths(matcher, matchers)
            target = choice([_upstream(u) for u in upstreams]) if upstreams else None
            # its own ``rewrite <to>`` (Caddy 2.7) changes the path the upstream sees
            unread = why or problem or next((f"its '{' '.join(child.words)}' is not read" for child in block.children
                                             if child.words[:1] == ["rewrite"]), None)
            placed = [_within(pattern, _outside(strip, one)) for one in paths] if paths else [pattern]
            for one in dict.fromkeys(p for p in placed if p is not None):   # none: outside the block it is in
                if in_order and any(_within(earlier, one) == one for earlier in taken):
                    continue
                taken.append(one)
                rewrite = (strip, "/") if strip and (one == strip or one.startswith(strip.rstrip("/") + "/")) else None
                forward = Forward(None if unread else target, 0, rewrite, normalise_path(one))
                yield block.line, ANY, one, forward, unread or (None if upstreams else "it names no upstream"), "caddy"


def _rewrites(children: list[_Block], pattern: str, strip: str | None, problem: str | None,
              ) -> tuple[str | None, str | None]:
    """(strip, problem) after a block's ``uri``/``rewrite`` directives (Caddy runs them before ``reverse_proxy``,
    wherever they are written): ``uri strip_prefix`` that every path of the block has is read, others not."""
    for child in children:
        if child.words[:2] == ["uri", "strip_prefix"] and len(child.words) > 2:
            strip = normalise_path((strip or "").rstrip("/") + "/" + child.words[2].lstrip("/"))
            if not (pattern == strip or _within(strip + "/**", pattern) == pattern):
                problem = problem or f"its '{' '.join(child.words)}' strips only some of its paths ({pattern}): not read"
        elif child.words[:1] in (["uri"], ["rewrite"]):
            problem = problem or f"its '{' '.join(child.words)}' is not read"
    return strip, problem


def _outside(strip: str | None, pattern: str) -> str:
    """A path matcher's pattern inside a block that stripped ``strip``, as the client sends the path."""
    if not strip or strip == "/":
        return pattern
    return strip.rstrip("/") + "/**" if pattern == "/**" else normalise_path(strip.rstrip("/") + pattern)


def _within(outer: str, pattern: str) -> str | None:
    """The paths both ``outer`` (the enclosing block's) and ``pattern`` match, as one route pattern (None: none,
    or not one pattern)."""
    for wide, narrow in ((outer, pattern), (pattern, outer)):
        head = wide[:-3] if wide.endswith("/**") else None
        if wide == narrow or head == "" or head is not None and (narrow == head or narrow.startswith(head + "/")):
            return narrow
    return None


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

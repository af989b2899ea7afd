"""HAProxy as a gateway (``haproxy*.cfg`` in a service, or any ``*.cfg`` an HAProxy container runs with,
`layout.edge`): each ``use_backend`` rule of a ``frontend`` (and its ``default_backend``; a ``listen`` section's
servers) is a route forwarding to the backend's servers (`services.endpoints.Forward`; `services.links` links it
to the target's routes, as any gateway's).

**Paths.** A rule's condition names ACLs (``acl api path_beg /api``, ANDed when several are listed) or writes
one inline (``if { path_beg /api }``), alternatives joined by ``or``/``||``: ``path_beg /p`` is every path under
``/p`` (``/p/**``, one route per value), ``path /p`` that path only; a ``hdr(host)``/``hdr_dom(host)`` ACL names a
host, not part of the route. Any other condition (``path_reg``, ``path_end``, a negation ``!``, ``unless``,
another criterion, an ACL flag that changes its words: ``-m``, ``-f``) is not read: the route (``/**``) says so
and forwards to a target not known (never guessed). The first rule that matches wins, as in HAProxy: a rule's path
under an earlier rule's prefix is never reached (no route), and after a rule not read no later rule is sure (each
says so). A frontend's own ``set-path``/``replace-path`` changes the paths its rules see: not read, each route
says so. ``default_backend`` is ``/**``. Any method.

**Where to.** A backend's ``server name host:port`` lines (several hosts: one of them); ``"${VAR}"`` in an
address is an environment variable, settled with the environment the deployment gives the service. A backend's
``http-request replace-path ^/p(/.*)? \\1`` (or ``^/p/(.*) /\\1``) and ``http-request set-path
%[path,regsub(^/p/?,/)]`` strip the prefix ``/p``; any other
``set-path``/``replace-path``/``replace-uri``/``reqrep`` is not read (the route says so, and forwards to a target
not known).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..languages.folding import Folded, choice, env, literal
from ..services.endpoints import ANY, Forward, normalise_path

Route = tuple[int, str, str, Forward | None, str | None, str]

_SECTIONS = ("global", "defaults", "frontend", "backend", "listen", "resolvers", "peers", "userlist", "program",
             "http-errors", "mailers", "cache", "ring", "crt-store", "traces")
_ENV = re.compile(r"\$\{(\w+)\}")
_STRIP = (re.compile(r"^\^?(/[\w./-]*?)/?\(/\.\*\)\??\$?$"), re.compile(r"^\^?(/[\w./-]*?)/\(\.\*\)\$?$"))
_REWRITES = ("set-path", "replace-path", "replace-uri", "set-uri")
#: ``http-request set-path %[path,regsub(^/api/?,/)]``: the prefix ``/api`` stripped
_REGSUB = re.compile(r"^%\[path,regsub\(\^(/[\w./-]*?)/?\??,/\)\]$")


@dataclass
class _Section:
    kind: str
    name: str
    line: int
    lines: list[tuple[int, list[str]]] = field(default_factory=list)


def _sections(text: str) -> list[_Section]:
    out: list[_Section] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if not raw[:1].isspace() and words[0] in _SECTIONS:
            out.append(_Section(words[0], words[1] if len(words) > 1 else "", number))
        elif out:
            out[-1].lines.append((number, words))
    return out


def _address(text: str) -> Folded:
    """A server's address as a URL: ``"${API_HOST}:8080"`` reads an environment variable."""
    text = text.strip("\"'")
    out, last = literal("http://"), 0
    for found in _ENV.finditer(text):
        out = out + literal(text[last:found.start()]) + env(found.group(1))
        last = found.end()
    return out + literal(text[last:])


def _backend(section: _Section) -> tuple[Folded | None, tuple[str, str] | None, str | None]:
    """(target, rewrite, problem) of a backend (or a listen section's servers)."""
    servers = [words[2] for _, words in section.lines if words[0] == "server" and len(words) > 2]
    target = choice([_address(s) for s in servers]) if servers else None
    rewrite, problem = None, None
    for _, words in section.lines:
        if words[0] in ("http-request", "reqrep", "reqirep") and (words[0] != "http-request" or (
                len(words) > 1 and words[1] in _REWRITES)):
            args = words[2:] if words[0] == "http-request" else words[1:]
            stripped = None
            if words[0] == "http-request" and words[1] == "replace-path":
                stripped = _strip(args)
            elif words[0] == "http-request" and words[1] == "set-path" and args:
                found = _REGSUB.match(args[0])
                stripped = normalise_path(found.group(1)) if found else None
            if stripped is not None:
                rewrite = (stripped, "/")
            else:
                problem = f"its path rewrite '{' '.join(words)}' is not read"
    if target is None:
        problem = problem or f"the backend {section.name} names no server"
    return target, rewrite, problem


def _strip(args: list[str]) -> str | None:
    """The prefix a ``replace-path <regex> <replacement>`` strips, or None for another rewrite."""
    if len(args) < 2 or args[1] not in ("\\1", "/\\1"):
        return None
    for pattern in _STRIP:
        found = pattern.match(args[0])
        if found:
            return normalise_path(found.group(1))
    return None


_HOSTS = frozenset({"hdr(host)", "hdr_dom(host)", "hdr_beg(host)", "hdr_end(host)", "req.hdr(host)"})


def _terms(words: list[str]) -> list[list[str]] | None:
    """A condition as alternatives (``or``/``||``), each a list of terms ANDed: an ACL name or an inline
    ``{ criterion values }``; None for a negation (not read)."""
    alternatives: list[list[str]] = [[]]
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("or", "||"):
            alternatives.append([])
        elif word.startswith("!"):
            return None
        elif word == "{":
            close = words.index("}", index) if "}" in words[index:] else len(words)
            alternatives[-1].append(" ".join(words[index:close + 1]))
            index = close
        else:
            alternatives[-1].append(word)
        index += 1
    return alternatives


#: ACL flags that take an argument: a match method (``-m beg``), a file of patterns (``-f``, ``-M``), an id (``-u``)
_FLAGS_WITH_VALUE = frozenset({"-m", "-f", "-M", "-u"})


def _values(values: list[str]) -> list[str] | None:
    """An ACL's patterns without its flags (``-i``, ``-n``, ``--``); None when a flag changes what they mean
    (``-m beg``) or where they are (``-f file``): not read."""
    if any(v in _FLAGS_WITH_VALUE for v in values):
        return None
    return [v for v in values if not v.startswith("-")]


def _condition(words: list[str], acls: dict[str, list[tuple[str, list[str]]]],
               ) -> tuple[list[str], str | None, bool]:
    """(paths, problem, hosted) of a rule's condition: the route patterns it matches, or why it is not read, and
    whether it also names a host. The terms of an alternative are ANDed, alternatives (``or``) and the lines of
    one ACL name ORed, as HAProxy does."""
    inline = " ".join(words)
    unread = ["/**"], f"its condition '{inline}' is not read", False
    alternatives = _terms(words)
    if alternatives is None:
        return unread
    out: list[str] = []
    hosted = False
    for terms in alternatives:
        paths: list[str] | None = None
        for term in terms:
            if term.startswith("{"):
                inner = term.strip("{} ").split()
                group = [(inner[0], inner[1:])] if inner else []
            elif term in acls:
                group = acls[term]
            else:
                return unread
            if group and all(criterion in _HOSTS for criterion, _ in group):
                hosted = True
                continue   # a host: not part of the route
            if paths is not None or not group or not all(
                    c in ("path_beg", "path") and _values(vs) for c, vs in group):
                return unread
            paths = [v.rstrip("/") + "/**" if c == "path_beg" else v for c, vs in group for v in _values(vs) or []]
        out += paths or ["/**"]
    return list(dict.fromkeys(out or ["/**"])), None, hosted


def _covers(prefix: str, pattern: str) -> bool:
    """Whether every path of ``pattern`` is under the route pattern ``prefix`` (``/api/**``)."""
    if not prefix.endswith("/**"):
        return False
    head = prefix[:-3]
    return not head or pattern == prefix or pattern == head or pattern.startswith(head + "/")


def haproxy_routes(path: str, text: str) -> Iterator[Route]:
    """The gateway routes of one HAProxy configuration file (see the module docstring)."""
    sections = _sections(text)
    backends = {s.name: s for s in sections if s.kind == "backend"}
    for section in sections:
        if section.kind not in ("frontend", "listen"):
            continue
        acls: dict[str, list[tuple[str, list[str]]]] = {}
        ruled = False
        # the frontend's own path rewrite runs before its rules: the paths they see are not the request's
        rewritten = next((f"its frontend's path rewrite '{' '.join(words)}' is not read" for _, words in section.lines
                          if words[0] in ("reqrep", "reqirep") or words[:1] == ["http-request"] and len(words) > 1
                          and words[1] in _REWRITES), None)
        # the first rule that matches wins: the prefixes already taken, and an earlier rule not read
        taken: list[str] = []
        unknown_before: str | None = None
        for number, words in section.lines:
            if words[0] == "acl" and len(words) > 2:
                acls.setdefault(words[1], []).append((words[2], words[3:]))
            elif words[0] in ("use_backend", "default_backend") and len(words) > 1:
                ruled = True
                backend = backends.get(words[1])
                target, rewrite, problem = _backend(backend) if backend is not None else (
                    None, None, f"no backend {words[1]} in this file")
                hosted = False
                if words[0] == "default_backend":
                    paths, unread = ["/**"], None
                elif len(words) > 3 and words[2] in ("if", "unless"):
                    paths, unread, hosted = _condition(words[3:], acls) if words[2] == "if" else (
                        ["/**"], f"its condition 'unless {' '.join(words[3:])}' is not read", False)
                else:
                    paths, unread = ["/**"], None
                if words[0] == "use_backend":
                    unread = rewritten or unread or unknown_before
                    if unread is None and not hosted:
                        paths = [p for p in paths if not any(_covers(t, p) for t in taken)]   # never reached
                        taken += paths
                    elif not hosted and unknown_before is None:
                        unknown_before = f"the rule at line {number}, which may match first, is not read"
                else:
                    unread = rewritten
                for pattern in paths:
                    # a stripped prefix applies to the paths under it; the others pass unchanged
                    applies = rewrite is not None and (pattern in ("/**", rewrite[0]) or pattern.startswith(rewrite[0] + "/"))
                    # a rewrite not read: where the backend's requests land is not known either (never guessed)
                    forward = Forward(None if unread or problem else target, 0, rewrite if applies else None,
                                      normalise_path(pattern))
                    yield number, ANY, pattern, forward, unread or problem, "haproxy"
        if section.kind == "listen" and not ruled and any(w[0] == "server" for _, w in section.lines):
            target, rewrite, problem = _backend(section)
            yield section.line, ANY, "/**", Forward(None if problem else target, 0, rewrite, "/**"), problem, "haproxy"

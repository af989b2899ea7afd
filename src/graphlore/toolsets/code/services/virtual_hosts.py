"""nginx's virtual hosts: the host names a configuration answers to (``server_name``: a host the machine's DNS or
``/etc/hosts`` points at the proxy, read where a client's URL names such a host, `services.identity`), and which
``server { }`` block answers a request (`ServerBlock`, `answering_block`): a forward to the proxy reaches the
locations of that block only, never every block's ``location /``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

_COMMENT = re.compile(r"#[^\n]*")
_SERVER_NAME = re.compile(r"\bserver_name\s+([^;{}]+);")
#: a server name that is a host of its own: no wildcard, regex, variable, catch-all (``_``) or IP address
_HOST_NAME = re.compile(r"[A-Za-z][\w-]*(?:\.[A-Za-z0-9][\w-]*)*")
_SERVER_BLOCK = re.compile(r"\bserver\s*\{")
_LISTEN = re.compile(r"\blisten\s+([^;{}]+);")
#: a ``listen`` address: ``80``, ``*:80``, ``0.0.0.0:8080``, ``[::]:80``, ``localhost:8000``, ``localhost``
_LISTEN_ADDRESS = re.compile(r"^(?:(\[[^\]]*\]|[\w.*-]+):)?(\d+)$|^([A-Za-z][\w.-]*|\d+\.\d+\.\d+\.\d+|\[[^\]]*\])$")
#: addresses that take a request on any of the machine's addresses
_EVERY_ADDRESS = ("*", "0.0.0.0", "[::]")
#: addresses another container never reaches nginx on
_LOOPBACK = re.compile(r"^(?:localhost|127(?:\.\d+){3}|\[::1\])$")


def server_names(text: str) -> list[str]:
    """The host names nginx's ``server_name`` directives answer to (``server_name api.shop.local www.shop;``), as
    written, in order; ``_``, ``*.shop``, ``~^regex``, ``$var`` and IP addresses are left out: no one host."""
    names: list[str] = []
    for match in _SERVER_NAME.finditer(_COMMENT.sub("", text)):
        names += [n for n in match.group(1).split() if _HOST_NAME.fullmatch(n) and n not in names]
    return names


@dataclass(frozen=True)
class ServerBlock:
    """One ``server { }`` block of an nginx configuration file: what picks it for a request."""

    file: str
    #: its place among the file's server blocks (nginx's default for a port is the first block listening on it)
    order: int
    #: the host names it answers to exactly
    names: tuple[str, ...]
    #: its names that are no plain host name (``*.shop``, ``.shop``, ``api.*``, ``~^api``, ``$var``, an address), as
    #: written: `answering_block` matches them as nginx does
    patterns: tuple[str, ...]
    #: the ports it listens on (``listen`` not written: 80); None when a ``listen`` is not read (``${PORT}``)
    ports: tuple[int, ...] | None
    #: the ports it is the ``default_server`` of
    default_for: tuple[int, ...]
    #: every server block of its file, itself included, in order: nginx picks among them all, a block that holds no
    #: location a forward reaches included
    peers: tuple[ServerBlock, ...] = field(default=(), repr=False, compare=False)


def _block_end(text: str, start: int) -> int:
    depth, at = 1, start
    while at < len(text) and depth:
        depth += {"{": 1, "}": -1}.get(text[at], 0)
        at += 1
    return at


def server_blocks(path: str, text: str) -> list[tuple[int, int, ServerBlock]]:
    """(start, end, block) of each top-level ``server { }`` block of one configuration file (offsets in ``text``;
    an ``upstream``'s ``server a:80;`` lines are no block)."""
    text = _COMMENT.sub(lambda m: " " * len(m.group(0)), text)
    out: list[tuple[int, int, ServerBlock]] = []
    for found in _SERVER_BLOCK.finditer(text):
        if any(start <= found.start() < end for start, end, _ in out):
            continue
        end = _block_end(text, found.end())
        body = text[found.end():end]
        own = re.sub(r"\{[^{}]*\}", " ", body)
        while re.search(r"\{[^{}]*\}", own):
            own = re.sub(r"\{[^{}]*\}", " ", own)
        written = [n for m in _SERVER_NAME.finditer(own) for n in m.group(1).split()]
        names = tuple(n for n in written if _HOST_NAME.fullmatch(n))
        ports, default_for = _listens(own)
        out.append((found.start(), end, ServerBlock(
            path, len(out), names, tuple(n for n in written if n not in names and n not in ('""', "_")),
            ports, default_for)))
    peers = tuple(block for _, _, block in out)
    return [(start, end, replace(block, peers=peers)) for start, end, block in out]


def _listens(body: str) -> tuple[tuple[int, ...] | None, tuple[int, ...]]:
    """(the ports a block takes another container's requests on, the ports it is the ``default_server`` of) from its
    ``listen`` lines (none written: 80). nginx picks a block by the address a request reaches first: one listening on
    the loopback address only (``127.0.0.1:80``) never takes another container's request, so it has no port; one on
    another named address, or one not read (``${PORT}``), makes the ports None (not known)."""
    ports: list[int] = []
    default_for: list[int] = []
    written = False
    for listen in _LISTEN.finditer(body):
        written = True
        address, *flags = listen.group(1).split()
        found = _LISTEN_ADDRESS.match(address)
        if found is None:
            return None, ()
        host, port, bare = found.groups()
        host = host or bare or "*"
        number = int(port) if port else 80
        if _LOOPBACK.match(host):
            continue
        if host not in _EVERY_ADDRESS:
            return None, ()
        ports.append(number)
        if "default_server" in flags or "default" in flags:
            default_for.append(number)
    return (tuple(ports) if written else (80,)), tuple(default_for)


def answering_block(blocks: list[ServerBlock], host: str | None, port: int | None) -> tuple[ServerBlock | None, str]:
    """The server block nginx picks for a request with ``Host: host`` on ``port`` (None: not known), as nginx
    does: the block listening there whose ``server_name`` is the host, else the port's ``default_server``, else
    the first block listening there; and, when none can be told, why."""
    if port is None:   # a published port (``localhost:8080``) is not the one nginx listens on in its container
        known = {b.ports for b in blocks}
        if len(known) != 1 or None in known or () in known:
            return None, "the port the request reaches nginx on is not known, and its server blocks listen on different ones"
        port = next(iter(known))[0]
    listening = [b for b in blocks if b.ports is None or port in b.ports]
    if not listening:
        return None, f"no server block listens on port {port}"
    if host is None:
        return None, "the Host header the request carries is not known, so which server block answers is not known"
    if any(b.ports is None for b in listening):
        return None, "a server block's listen is not read, so which block answers is not known"
    found, why = _by_name(listening, host.lower())
    if found is not None or why:
        return found, why
    defaults = [b for b in listening if port in b.default_for]
    if len(defaults) == 1:
        return defaults[0], f"no server_name is {host}: the default_server of port {port}"
    if len({b.file for b in listening}) > 1:
        return None, (f"no server_name is {host}, and the first block of port {port} depends on the order nginx "
                      "includes the files in")
    return min(listening, key=lambda b: b.order), f"no server_name is {host}: the first block on port {port}"


def _by_name(listening: list[ServerBlock], host: str) -> tuple[ServerBlock | None, str]:
    """The block whose ``server_name`` takes ``host`` in nginx's order: the exact name, the longest leading wildcard
    (``*.shop.test``; ``.shop.test`` is also ``shop.test``), the longest trailing one (``api.*``), the first regex in
    the order written (``~^api\\.``); (None, "") when no name takes it; (None, why) when that cannot be told (two
    blocks tie, a variable name, a regex Python cannot read or the order of regexes of several files)."""
    exact = [b for b in listening if host in (n.lower() for n in (*b.names, *b.patterns) if not n.startswith(("~", "$"))
                                               and "*" not in n and not n.startswith("."))]
    if len(exact) > 1:
        return None, f"several server blocks name {host}"
    if exact:
        return exact[0], f"server_name {host}"
    if any("$" in n for b in listening for n in b.patterns if not n.startswith("~")):
        return None, f"a server block's server_name is a variable that may be {host}"
    for kind, fits in (("leading", _leading), ("trailing", _trailing)):
        best = [(len(n), b) for b in listening for n in b.patterns if fits(n.lower(), host)]
        if best:
            longest = max(length for length, _ in best)
            winners = {b for length, b in best if length == longest}
            if len(winners) > 1:
                return None, f"several server blocks' {kind} wildcards take {host} alike"
            return winners.pop(), f"the longest {kind} wildcard server_name that takes {host}"
    regexes = [(b, n[1:]) for b in sorted(listening, key=lambda b: (b.file, b.order)) for n in b.patterns
               if n.startswith("~")]
    if regexes and len({b.file for b, _ in regexes}) > 1:
        return None, f"regex server_names of several files may take {host}, in the order nginx includes them"
    for block, regex in regexes:
        try:
            taken = re.search(_PCRE_NAMED.sub("(?P<", regex), host, re.IGNORECASE) is not None
        except re.error:
            return None, f"the regex server_name ~{regex} is not read here; it may take {host}"
        if taken:
            return block, f"the first regex server_name that takes {host} (~{regex})"
    return None, ""


#: a PCRE named group, ``(?<name>`` or ``(?'name'``... Python writes ``(?P<name>``
_PCRE_NAMED = re.compile(r"\(\?<(?=[A-Za-z_])")


def _leading(name: str, host: str) -> bool:
    if name.startswith("*."):
        return host.endswith(name[1:])
    return name.startswith(".") and (host == name[1:] or host.endswith(name))


def _trailing(name: str, host: str) -> bool:
    return name.endswith(".*") and "*" not in name[:-2] and host.startswith(name[:-1])

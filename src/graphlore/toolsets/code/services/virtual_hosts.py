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
    #: whether it also has a name that is a pattern (``*.shop``, ``~^api``, ``$var``): a host may match it
    patterns: bool
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
            path, len(out), names, len(names) < len([n for n in written if n not in ('""', "_")]),
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
    named = [b for b in listening if host.lower() in (n.lower() for n in b.names)]
    if len(named) == 1:
        return named[0], f"server_name {host}"
    if named:
        return None, f"several server blocks name {host}"
    if any(b.ports is None for b in listening):
        return None, "a server block's listen is not read, so which block answers is not known"
    if any(b.patterns for b in listening):
        return None, f"a server block's server_name is a pattern that may match {host}"
    defaults = [b for b in listening if port in b.default_for]
    if len(defaults) == 1:
        return defaults[0], f"no server_name is {host}: the default_server of port {port}"
    if len({b.file for b in listening}) > 1:
        return None, (f"no server_name is {host}, and the first block of port {port} depends on the order nginx "
                      "includes the files in")
    return min(listening, key=lambda b: b.order), f"no server_name is {host}: the first block on port {port}"

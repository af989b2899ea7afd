"""The host names an nginx configuration answers to (``server_name``): a host the machine's DNS or ``/etc/hosts``
points at the proxy, read where a client's URL names such a host (`services.identity`)."""

from __future__ import annotations

import re

_COMMENT = re.compile(r"#[^\n]*")
_SERVER_NAME = re.compile(r"\bserver_name\s+([^;{}]+);")
#: a server name that is a host of its own: no wildcard, regex, variable, catch-all (``_``) or IP address
_HOST_NAME = re.compile(r"[A-Za-z][\w-]*(?:\.[A-Za-z0-9][\w-]*)*")


def server_names(text: str) -> list[str]:
    """The host names nginx's ``server_name`` directives answer to (``server_name api.shop.local www.shop;``), as
    written, in order; ``_``, ``*.shop``, ``~^regex``, ``$var`` and IP addresses are left out: no one host."""
    names: list[str] = []
    for match in _SERVER_NAME.finditer(_COMMENT.sub("", text)):
        names += [n for n in match.group(1).split() if _HOST_NAME.fullmatch(n) and n not in names]
    return names

"""Which configuration values are secrets, and how they are shown: never as written. An MCP server hands what it
reads to agents, and a password, token or key in a tool's answer is a leak.

**The rule.** A value is a secret when it comes from a secret store (a Kubernetes Secret's ``data``/``stringData``,
the Helm values a Secret's template line reads, a Terraform ``sensitive`` variable) or when its key names a
credential: the key's last word (split at ``.``, ``_``, ``-``, ``:``, ``__`` and camelCase) is ``password``,
``passwd``, ``pwd``, ``pass``, ``secret``, ``token``, ``credential(s)``, ``passphrase``, or ``key`` after ``api``,
``private``, ``secret``, ``access``, ``signing``, ``encryption``, ``master``, ``account``, ``jwt``, ``hmac``,
``client``, ``auth`` or ``license`` (``DB_PASSWORD``,
``jwt.secret``, ``apiKey``, ``AWS_SECRET_ACCESS_KEY``). A secret is shown as its key, where it is written and
``redacted``. Near misses are no credential: a key whose credential word is not its last (``TOKEN_URL``,
``PASSWORD_MIN_LENGTH``, ``SECRET_NAME``), a plural (``MAX_TOKENS``), and any value that is a URL
(``token_endpoint: https://auth/token``): a URL is an address, kept for linking with its userinfo stripped.

**Everywhere.** The userinfo of a URL (``amqp://user:pass@rabbit:5672``) is stripped from every value, note and
tool answer (`strip_userinfo`); a connection string's password part (``Password=...;``, ``Pwd=...``) is redacted
(`redact_text`), and so is an Azure connection string's ``AccountKey=``/``SharedAccessKey=``. The host, port and
path stay: a link needs the host, not the password.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

#: what a secret's value is shown as
REDACTED = "redacted"

_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_CREDENTIAL_WORDS = frozenset({"password", "passwd", "pwd", "pass", "secret", "token", "credential", "credentials",
                               "passphrase"})
_KEY_OWNERS = frozenset({"api", "private", "secret", "access", "signing", "encryption", "master", "account", "jwt",
                         "hmac", "client", "auth", "license"})
#: a URL's scheme and its userinfo (``user:pass@``, ``${USER}:${PASS}@``): stripped, the host kept; the userinfo
#: runs to the authority's last ``@`` (a password written with an unescaped ``@``, ``u:p@ss@db``, is all of it)
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)(?:\$\{[^}\n]*\}|[^/?#\s\"'<>])*@(?=[^\s@/]*[\w\]}])")
#: a connection string's password part (``Password=...;``, ``pwd=...``), its value up to ``;`` or a quote
_CONNECTION_PASSWORD = re.compile(r"(?i)(?<![\w])((?:password|pwd|accountkey|sharedaccesskey)\s*=\s*)([^;\"'\s]+)")
#: ``KEY=VALUE`` in a note, the key a whole word, and ``KEY: VALUE`` where the line starts with it (a settings note;
#: elsewhere a colon is prose): a credential key's value is redacted
_VALUE = r"(\"[^\"]*\"|'[^']*'|[^\s,;()]+)"
_ASSIGNED = re.compile(r"(?<![\w.\-:])([A-Za-z_][\w.\-:]*)(\s*=\s*)" + _VALUE)
_LEADING = re.compile(r"^(\s*[A-Za-z_][\w.\-:]*?)(:\s+)" + _VALUE)

#: a value that only names where the value comes from (``${DB_PASSWORD}``, ``{{ .Values.x }}``): no secret itself
#: (a Terraform ``var.db_password``, a template's unknown ``{?}``)
_REFERENCE = re.compile(r"[\"']?(?:\$\{?[\w.]+\}?|\{\{[^}]*\}\}|\$\([^)]*\)|(?:var|local|module|data)\.[\w.\-]+|\{\?\})[\"']?")


def key_words(key: str) -> list[str]:
    """A key's words, lower case (``spring.datasource.password`` -> ``spring, datasource, password``;
    ``apiKey`` -> ``api, key``)."""
    return [w.lower() for part in re.split(r"[._\-:\s/\[\]]+", key) for w in _WORDS.findall(part)]


def is_credential_key(key: str) -> bool:
    """Whether ``key`` names a credential (see the module docstring: its last word)."""
    words = key_words(key)
    if not words:
        return False
    if words[-1] in _CREDENTIAL_WORDS:
        return True
    return words[-1] == "key" and len(words) > 1 and words[-2] in _KEY_OWNERS


def is_url(value: str) -> bool:
    """Whether the value is a URL (``scheme://host...``): an address, never itself a credential."""
    return re.match(r"(?i)[a-z][a-z0-9+.\-]*://[^\s/]", value.strip().strip("\"'")) is not None


def strip_userinfo(text: str) -> str:
    """``text`` with every URL's userinfo removed (``postgres://app:pw@db:5432/x`` -> ``postgres://db:5432/x``)."""
    return _USERINFO.sub(r"\1", text) if "@" in text else text


def shown_value(key: str, value: str) -> str:
    """How the value of ``key`` is shown: ``redacted`` for a credential key's non-URL value, else the value with its
    userinfo stripped and a connection string's password part redacted."""
    if is_credential_key(key) and not is_url(value) and value.strip() and not _REFERENCE.fullmatch(value.strip()):
        return REDACTED
    return redact_text(value)


def secret_store_value(value: str) -> str | None:
    """What of a secret store's value may be used (for linking) and shown: a URL, its userinfo and query dropped (a
    link needs the host, port and path); None for anything else (the value itself is the secret)."""
    if not is_url(value) or any(c.isspace() for c in value.strip()):
        return None
    return strip_userinfo(value.strip()).split("?", 1)[0].split("#", 1)[0]


def redact_text(text: str) -> str:
    """A note or answer line with its secrets removed: URLs' userinfo stripped, connection-string password parts and
    the values of credential keys written ``KEY=VALUE``/``KEY: VALUE`` redacted (a URL value kept)."""
    text = strip_userinfo(text)
    if "=" not in text and ":" not in text:
        return text
    text = _CONNECTION_PASSWORD.sub(lambda m: m.group(1) + REDACTED, text)

    def one(match: re.Match) -> str:
        key, sign, value = match.group(1).strip(), match.group(2), match.group(3)
        if not is_credential_key(key) or is_url(value) or value == REDACTED or _REFERENCE.fullmatch(value):
            return match.group(0)
        return f"{match.group(1)}{sign}{REDACTED}"

    return _LEADING.sub(one, _ASSIGNED.sub(one, text), count=1)


#: a connection string's password part as the last guard finds it in any text (a source line, a search hit): only
#: where a connection string's part starts (after ``;``, ``?``, ``&`` or a quote), so that code's ``f(password=pw)``
#: and ``password = os.environ[...]`` are left as written
_CONNECTION_PART = re.compile(r"(?i)([;?&\"']\s*(?:password|pwd|accountkey|sharedaccesskey)\s*=\s*)([^;\"'\s&]+)")


#: a quoted literal a credential key is given in source text: ``password = "..."``, ``"ApiKey": "..."``,
#: ``apiKey := "..."``, ``'secret' => '...'``, ``val token: String = "..."`` (the key's quotes, a type between)
_SOURCE_ASSIGNED = re.compile(r"""(?<![\w.\-])(["']?)([A-Za-z_][\w.\-]*)\1(\s*(?::\s*[\w.?\[\]<>]+\s*)?(?::=|=>|=|:)\s*)"""
                              r"""(["'])([^"'\n]+)\4""")
#: an environment or settings read with a literal default: ``getenv("DB_PASSWORD", "...")``, ``.get('token', '...')``
_SOURCE_DEFAULT = re.compile(r"""(\(\s*(["'])([A-Za-z_][\w.\-:]*)\2\s*,\s*)(["'])([^"'\n]+)\4(?=\s*\))""")
_CREDENTIAL_HINT = re.compile(r"(?i)pass|pwd|secret|token|key|credential")


def _literal_redacted(key: str, value: str) -> bool:
    return is_credential_key(key) and not is_url(value) and value != REDACTED and not _REFERENCE.fullmatch(value)


def answer_text(text: str) -> str:
    """Any text of an answer as the last guard leaves it: URLs' userinfo stripped, connection strings' password
    parts redacted, and a quoted literal given to a credential key in source text redacted (a source line, a
    search hit: `scrubbed`)."""
    text = strip_userinfo(text)
    if "=" in text:
        text = _CONNECTION_PART.sub(lambda m: m.group(1) + REDACTED, text)
    if _CREDENTIAL_HINT.search(text) is None:
        return text
    text = _SOURCE_ASSIGNED.sub(lambda m: (f"{m.group(1)}{m.group(2)}{m.group(1)}{m.group(3)}{m.group(4)}{REDACTED}"
                                           f"{m.group(4)}") if _literal_redacted(m.group(2), m.group(5))
                                else m.group(0), text)
    return _SOURCE_DEFAULT.sub(lambda m: f"{m.group(1)}{m.group(4)}{REDACTED}{m.group(4)}"
                               if _literal_redacted(m.group(3), m.group(5)) else m.group(0), text)


def scrubbed(value: Any) -> Any:
    """A tool's answer with every URL's userinfo stripped and every connection string's password part redacted, in
    place where it is a model (`answer_text`): the last guard, whatever reader or tool a value came through (a
    settled URL, a search hit's text, a source line)."""
    if isinstance(value, str):
        return answer_text(value)
    if isinstance(value, list):
        return [scrubbed(item) for item in value]
    if isinstance(value, tuple):
        return tuple(scrubbed(item) for item in value)
    if isinstance(value, dict):
        return {scrubbed(key): scrubbed(item) for key, item in value.items()}
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            setattr(value, name, scrubbed(getattr(value, name)))
    return value

"""NestJS configuration values: ``configService.get('endpoints.orders')`` (also ``getOrThrow``) on a receiver declared
a ``ConfigService`` of ``@nestjs/config`` reads the configuration the service's ``ConfigModule.forRoot({load:
[...]})`` loads: a factory function returning an object (``export default () => ({ endpoints: { orders:
process.env.ORDERS_URL || '' } })``, by name, imported, or written in the array) and ``registerAs('endpoints', () =>
({...}))`` namespaces (the first part of the key names the namespace). The value is the property's, folded in the
factory's file (an environment read stays one, for the deployment to settle). A key no factory sets is the
environment variable of that name when it is written as one (NestJS reads ``process.env`` too); anything else stays
unknown, saying why. Where several services of a tree load configurations, the ones in the files nearest the reading
file count (the longest shared folder)."""

from __future__ import annotations

import posixpath
import re

from ...model import FileFacts
from ..folding import Folded, array_items, choice, env, unknown
from .sources import object_properties, resolve_script

NEST_CONFIG = "@nestjs/config"
#: ``receiver.get`` / ``receiver.getOrThrow`` as a folded call's name
_GETTER = re.compile(r"^(?P<receiver>(?:this\.)?[A-Za-z_$][\w$]*)\.(?:get|getOrThrow)$")
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")


def config_receiver(facts: FileFacts, owner: str, call_name: str) -> bool:
    """Whether ``call_name`` (``configService.get``) reads a ``ConfigService`` of ``@nestjs/config``: the file imports
    the class from there and the receiver is declared of it (a local or parameter of ``owner`` or of the module, or
    a parameter of a constructor of the file: ``constructor(private config: ConfigService)``)."""
    found = _GETTER.match(call_name)
    if found is None:
        return False
    names = {alias for imp in facts.imports if imp.target == NEST_CONFIG for name, alias in imp.names
             if name == "ConfigService"}
    if not names:
        return False
    receiver = found.group("receiver")
    if receiver.startswith("this."):
        name = receiver.removeprefix("this.")
        return any(sym.kind == "constructor" and any(p.lstrip(".") == name and t in names for p, t in sym.params)
                   for sym in facts.symbols)
    for scope in dict.fromkeys((owner, "")):
        if any(written in names for _, written in facts.locals.get(scope, {}).get(receiver, ())):
            return True
    return any(p.lstrip(".") == receiver and t in names for sym in facts.symbols if sym.key == owner
               for p, t in sym.params)


def nest_config(files: dict[str, FileFacts], path: str, key: str, fold_at) -> Folded:
    """The value ``ConfigService.get(key)`` reads in file ``path`` (see the module docstring); ``fold_at(facts,
    line, text)`` folds an expression where a factory writes it."""
    sources = _nearest(path, list(_factories(files)))
    values = []
    for facts, namespace, line, obj in sources:
        parts = key.split(".")
        if namespace is not None:
            if parts[0] != namespace:
                continue
            parts = parts[1:]
        written = _property(obj, parts) if parts else None
        if written is not None:
            values.append(fold_at(facts, line, written))
    if values:
        return choice(values)
    if _ENV_NAME.match(key):
        return env(key)
    if not sources:
        return unknown(f"ConfigService.get('{key}'): no ConfigModule configuration factory is read in the service")
    return unknown(f"ConfigService.get('{key}'): no configuration factory the service loads sets it")


def _factories(files: dict[str, FileFacts]):
    """(file facts, namespace or None, line, object as written) of each configuration factory a file loads or
    registers."""
    for path, facts in files.items():
        nest = any(imp.target == NEST_CONFIG for imp in facts.imports)
        for call in facts.calls if nest else ():
            if call.name == "registerAs" and len(call.args) == 2:
                namespace = _string(call.args[0])
                obj = _arrow_object(call.args[1])
                if namespace is not None and obj is not None:
                    yield facts, namespace, call.line, obj
            if call.name == "forRoot" and call.receiver == ["name", "ConfigModule"] and call.args:
                loaded = object_properties(call.args[0]).get("load", "")
                for item in array_items(loaded):
                    obj = _arrow_object(item)
                    if obj is not None:
                        yield facts, None, call.line, obj
                        continue
                    made = _named_factory(files, path, facts, item.strip())
                    if made is not None:
                        yield made


def _named_factory(files: dict[str, FileFacts], path: str, facts: FileFacts, name: str):
    """A factory the ``load`` array names: a function of this file or one imported (default or named) from another;
    a ``registerAs`` namespace's variable is read with the other namespaces (`_factories`)."""
    if not re.fullmatch(r"[A-Za-z_$][\w$]*", name):
        return None
    home, symbol = path, name
    for imp in facts.imports:
        for imported, alias in imp.names:
            if alias == name and imp.target.startswith("."):
                target = resolve_script(files, path, imp.target)
                if target is not None:
                    home = target
                    symbol = files[target].extra.get("default", "default") if imported == "default" else \
                        files[target].extra.get("exports", {}).get(imported, imported)
    found = files[home].extra.get("object_returns", {}).get(symbol)
    return (files[home], None, found[0], found[1]) if found else None


def _nearest(path: str, sources: list) -> list:
    """The sources in the files sharing the longest folder with ``path``."""
    def shared(other: str) -> int:
        common = posixpath.commonpath(["/" + posixpath.dirname(path), "/" + posixpath.dirname(other)])
        return len([part for part in common.split("/") if part])
    if not sources:
        return []
    best = max(shared(facts.path) for facts, *_ in sources)
    return [s for s in sources if shared(s[0].path) == best]


def _property(obj: str, parts: list[str]) -> str | None:
    for part in parts:
        value = object_properties(obj).get(part)
        if value is None:
            return None
        obj = value
    return obj


def _arrow_object(text: str) -> str | None:
    """The object an arrow function returns as its expression body (``() => ({...})``), else None."""
    head, arrow, body = text.partition("=>")
    if not arrow or not re.fullmatch(r"\s*(?:async\s*)?\(\s*\)\s*", head):
        return None
    body = body.strip()
    while body.startswith("(") and body.endswith(")"):
        body = body[1:-1].strip()
    return body if body.startswith("{") and body.endswith("}") else None


def _string(text: str) -> str | None:
    text = text.strip()
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"`" else None

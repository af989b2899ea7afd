"""The answer keys' schema (``bench/data/code_gold/README.md``) as checks, so that what the benchmarks read is what
the README says: a key with a missing field, a line written as text, a link to no route or a question whose
answer has not the shape its class needs fails ``tests/test_bench_gold.py`` instead of being scored quietly.

``key_problems(key)`` checks one ``<system>.json``; ``question_problems(questions, systems, plans)`` checks the
question sets together (ids unique over every set, each system keyed, each question planned). Each returns the
problems found, in words that name the entry (empty: the file keeps the schema).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

HTTP_METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "ANY", "TRACE", "CONNECT"}
ROUTE_KINDS = {"http", "grpc", "graphql"}
CLIENT_KINDS = {"http", "grpc", "graphql"}
# a file named relative to the system's folder: no absolute path, no ``..``, no backslash, no blank
_FILE = re.compile(r"^(?!/)(?!\./)(?!.*(?:^|/)\.\.(?:/|$))[^\s\\:]+$")
_FILE_LINE = re.compile(r"^([^\s:]+\.[A-Za-z0-9]+|[^\s:]*/[^\s:/]+|[A-Z][A-Za-z]*file):(\d+)\b")

# the answer type each question class may have (README, "Schema of questions.jsonl" and the blind sets' additions)
CLASS_TYPES = {
    "consumers": {"symbols"},
    "call_trace": {"path"},
    "blast_radius": {"impact", "services"},
    "cross_service": {"service_pairs", "services", "routes", "none"},
    "absence": {"none"},
    "implementations": {"symbols"},
    "routes_of": {"routes"},
    "config": {"config"},
    "semantic": {"symbols", "config"},
}


def _is_file(value: object) -> bool:
    return isinstance(value, str) and bool(_FILE.match(value))


def _is_line(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _need(entry: object, where: str, fields: dict[str, type | tuple[type, ...]]) -> list[str]:
    """Each field present with its type."""
    if not isinstance(entry, dict):
        return [f"{where}: not an object"]
    problems = []
    for name, kind in fields.items():
        if name not in entry:
            problems.append(f"{where}: no {name!r}")
        elif not isinstance(entry[name], kind) or (kind is int and isinstance(entry[name], bool)):
            problems.append(f"{where}: {name!r} is {type(entry[name]).__name__}, not "
                            f"{getattr(kind, '__name__', kind)}")
    return problems


def _place(entry: dict, where: str) -> list[str]:
    """``file`` + ``line`` (and ``span`` holding the line, when given) of a code place."""
    problems = []
    if not _is_file(entry.get("file")):
        problems.append(f"{where}: file {entry.get('file')!r} is not a path relative to the system's folder")
    if not _is_line(entry.get("line")):
        problems.append(f"{where}: line {entry.get('line')!r} is not a line number")
    span = entry.get("span")
    if span is not None:
        if not (isinstance(span, list) and len(span) == 2 and all(_is_line(n) for n in span) and span[0] <= span[1]):
            problems.append(f"{where}: span {span!r} is not [first, last]")
    return problems


def _evidence(entry: dict, where: str) -> list[str]:
    """Evidence that names a ``file:line`` names it as a relative path with a line number."""
    problems = []
    evidence = entry.get("evidence")
    for text in evidence if isinstance(evidence, list) else [evidence] if isinstance(evidence, str) else []:
        if not isinstance(text, str):
            problems.append(f"{where}: evidence {text!r} is not text")
            continue
        match = _FILE_LINE.match(text)
        if match and (not _is_file(match.group(1)) or int(match.group(2)) < 1):
            problems.append(f"{where}: evidence {text[:80]!r} names no relative file:line")
    return problems


def _services(key: dict) -> tuple[list[str], set[str]]:
    problems, names = [], set()
    for i, service in enumerate(key.get("services") or []):
        where = f"services[{i}] {service.get('name') if isinstance(service, dict) else ''}"
        problems += _need(service, where, {"name": str, "language": list, "root": str, "role": str,
                                           "required": bool, "names": list})
        if not isinstance(service, dict):
            continue
        names.add(str(service.get("name")))
        for j, name in enumerate(service.get("names") or []):
            problems += _need(name, f"{where} names[{j}]", {"name": str, "source": str, "evidence": str})
    if not names:
        problems.append("services: none")
    return problems, names


def _routes(key: dict, services: set[str]) -> list[str]:
    problems = []
    for i, route in enumerate(key.get("routes") or []):
        where = f"routes[{i}] {route.get('id') if isinstance(route, dict) else ''}"
        problems += _need(route, where, {"id": str, "service": str, "kind": str, "handler": dict,
                                         "certainty": str, "evidence": list, "required": bool})
        if not isinstance(route, dict):
            continue
        if route.get("service") not in services:
            problems.append(f"{where}: service {route.get('service')!r} is none of the key's services")
        kind = route.get("kind")
        if kind not in ROUTE_KINDS:
            problems.append(f"{where}: kind {kind!r} is not one of {sorted(ROUTE_KINDS)}")
        elif kind == "http":
            problems += _http(route, where)
        elif kind == "grpc" and not isinstance(route.get("grpc"), str):
            problems.append(f"{where}: a gRPC route names no 'grpc' (package.Service/Method)")
        for j, path in enumerate(route.get("accept_paths") or []):
            if not (isinstance(path, str) and path.strip() and not re.search(r"\s", path)):
                problems.append(f"{where}: accept_paths[{j}] {path!r} is not a path")
        if isinstance(route.get("handler"), dict) and "file" in route["handler"]:
            problems += _place(route["handler"], f"{where} handler")
        problems += _evidence(route, where)
    return problems


def _http(entry: dict, where: str) -> list[str]:
    problems = []
    if str(entry.get("method", "")).upper() not in HTTP_METHODS:
        problems.append(f"{where}: method {entry.get('method')!r} is not one of {sorted(HTTP_METHODS)}")
    if "path" not in entry or not isinstance(entry["path"], str | None):  # null: a path no file gives
        problems.append(f"{where}: an HTTP entry has no 'path' (text, or null when unknown)")
    return problems


def _clients(key: dict, services: set[str]) -> list[str]:
    problems = []
    for i, client in enumerate(key.get("clients") or []):
        where = f"clients[{i}] {client.get('id') if isinstance(client, dict) else ''}"
        # function null: a call site in no function (an HTML form in a server-side template)
        problems += _need(client, where, {"id": str, "service": str | None, "kind": str, "file": str, "line": int,
                                          "span": list, "function": str | None, "resolution": str, "required": bool})
        if not isinstance(client, dict):
            continue
        if "target_service" not in client:
            problems.append(f"{where}: no 'target_service' (null when it names none)")
        if client.get("service") not in services and client.get("required") is not False \
                and not isinstance(client.get("library"), str):  # a shared library's client runs in its users
            problems.append(f"{where}: service {client.get('service')!r} is none of the key's services")
        if client.get("kind") not in CLIENT_KINDS:
            problems.append(f"{where}: kind {client.get('kind')!r} is not one of {sorted(CLIENT_KINDS)}")
        elif client["kind"] == "http":
            problems += _http(client, where)
        elif client["kind"] == "grpc" and not isinstance(client.get("grpc"), str):
            problems.append(f"{where}: a gRPC client names no 'grpc'")
        problems += _place(client, where)
        span, line = client.get("span"), client.get("line")
        if isinstance(span, list) and len(span) == 2 and _is_line(line) and not span[0] <= line <= span[1]:
            problems.append(f"{where}: line {line} is outside its span {span}")
    return problems


def _messages(key: dict, section: str) -> list[str]:
    problems = []
    for i, entry in enumerate(key.get(section) or []):
        where = f"{section}[{i}] {entry.get('id') if isinstance(entry, dict) else ''}"
        problems += _need(entry, where, {"id": str, "service": str, "kind": str, "file": str, "line": int,
                                         "span": list, "required": bool})
        if isinstance(entry, dict):
            problems += _place(entry, where) + _evidence(entry, where)
            for j, place in enumerate(entry.get("also_accept") or []):
                if not (isinstance(place, dict) and _is_file(place.get("file"))
                        and (_is_line(place.get("line")) or isinstance(place.get("span"), list))):
                    problems.append(f"{where}: also_accept[{j}] is not a file with a line or span")
    return problems


def _links(key: dict) -> list[str]:
    problems = []
    ids = {e.get("id") for section in ("routes", "clients", "producers", "consumers")
           for e in key.get(section) or [] if isinstance(e, dict)}
    for i, link in enumerate(key.get("links") or []):
        where = f"links[{i}] {link.get('id', '') if isinstance(link, dict) else ''}"
        problems += _need(link, where, {"from": str, "to": str, "via": str, "counted_in": str, "kind": str,
                                        "required": bool})
        if not isinstance(link, dict):
            continue
        for end in ("from", "to"):
            if isinstance(link.get(end), str) and link[end] not in ids:
                problems.append(f"{where}: {end} {link[end]!r} is no route, client, producer or consumer of the key")
        also = link.get("also_accept_to") or []
        for j, target in enumerate([also] if isinstance(also, str) else also):  # one route id, or a list
            if target not in ids:
                problems.append(f"{where}: also_accept_to[{j}] {target!r} is no route of the key")
        problems += _evidence(link, where)
    clients = {c.get("id") for c in key.get("clients") or [] if isinstance(c, dict)}
    for i, entry in enumerate(key.get("unresolved") or []):
        where = f"unresolved[{i}]"
        problems += _need(entry, where, {"client": str, "reason": str, "required": bool})
        if isinstance(entry, dict) and entry.get("client") not in clients:
            problems.append(f"{where}: client {entry.get('client')!r} is none of the key's clients")
    return problems


def _unique_ids(key: dict) -> list[str]:
    seen: dict[str, str] = {}
    problems = []
    for section in ("routes", "clients", "links", "producers", "consumers"):
        for entry in key.get(section) or []:
            if isinstance(entry, dict) and "id" in entry:
                if entry["id"] in seen:
                    problems.append(f"{section}: id {entry['id']!r} also in {seen[entry['id']]}")
                seen[entry["id"]] = section
    return problems


def key_problems(key: dict) -> list[str]:
    """Everything in one ``<system>.json`` the README's schema does not allow."""
    if not isinstance(key, dict):
        return ["the key is not an object"]
    problems = [f"no {section!r}" for section in ("system", "source", "services", "routes", "clients", "links")
                if section not in key]
    for section in ("services", "routes", "clients", "links", "left_out", "unresolved", "no_route",
                    "must_not_link", "producers", "consumers"):
        if section in key and not isinstance(key[section], list):
            problems.append(f"{section!r} is not a list")
            key = {**key, section: []}
    service_problems, services = _services(key)
    problems += service_problems + _routes(key, services) + _clients(key, services) + _links(key)
    problems += _messages(key, "producers") + _messages(key, "consumers") + _unique_ids(key)
    for i, entry in enumerate(key.get("left_out") or []):
        problems += _need(entry, f"left_out[{i}]", {"name": str, "kind": str, "why": str})
    return problems


# -- questions -------------------------------------------------------------------------------------------------------


def _items(answer: dict, where: str, field: str = "items") -> list:
    items = answer.get(field)
    return items if isinstance(items, list) else []


def _symbol_items(items: Iterable, where: str) -> list[str]:
    """Code places (``file`` + ``line``), or a route (``route``) where the answer names an endpoint."""
    problems = []
    for i, item in enumerate(items):
        here = f"{where}[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{here}: not an object")
        elif "file" in item or "line" in item:
            problems += _place(item, here)
        elif not isinstance(item.get("route"), str):
            problems.append(f"{here}: neither a file:line nor a route")
    return problems


def _answer(answer: dict, where: str) -> list[str]:
    """The shape the answer's ``type`` says (what the judge in ``code_questions.py`` reads)."""
    kind = answer.get("type")
    if kind == "symbols":
        items = _items(answer, where)
        return ([f"{where}: no items"] if not items else []) + _symbol_items(items, f"{where} items")
    if kind == "path":
        steps = _items(answer, where, "steps")
        return ([f"{where}: no steps"] if not steps else []) + _symbol_items(steps, f"{where} steps")
    if kind == "impact":
        hops = answer.get("hops")
        if "target" not in answer or not isinstance(hops, dict) or not hops:
            return [f"{where}: an impact answer needs a target and hops"]
        return [p for hop, items in hops.items()
                for p in ([f"{where} hops[{hop}]: not a list"] if not isinstance(items, list)
                          else _symbol_items(items, f"{where} hops[{hop}]"))]
    if kind == "services":
        items = answer.get("items")
        ok = isinstance(items, list) and all(isinstance(s, str) for s in items)
        return [] if ok else [f"{where}: a services answer's items are service names"]
    if kind == "service_pairs":
        items = _items(answer, where)
        bad = [i for i, item in enumerate(items) if not isinstance(item, dict)
               or not (item.get("from") or answer.get("from")) and not (item.get("to") or answer.get("to"))]
        return [f"{where} items[{i}]: a pair names neither 'from' nor 'to'" for i in bad] + (
            [f"{where}: no items"] if not isinstance(answer.get("items"), list) else [])
    if kind == "routes":
        problems = [] if isinstance(answer.get("items"), list) else [f"{where}: no items"]
        for i, item in enumerate(_items(answer, where)):
            entry = item if isinstance(item, dict) else dict(zip(("method", "path"), str(item).split(" ", 1), strict=False))
            methods = str(entry.get("method", "")).split("|")
            grpc = entry.get("method") == "grpc" or ("grpc" in entry and "method" not in entry)
            if not grpc and (not all(m.upper() in HTTP_METHODS for m in methods)
                             or not isinstance(entry.get("path"), str)):
                problems.append(f"{where} items[{i}]: not 'METHOD path' ({item!r:.80})")
            for path in entry.get("accept_paths") or []:
                if not (isinstance(path, str) and path.strip() and not re.search(r"\s", path)):
                    problems.append(f"{where} items[{i}]: accept_paths {path!r} is not a path")
        return problems
    if kind == "config":
        items = _items(answer, where)
        bad = [i for i, item in enumerate(items) if not isinstance(item, dict)
               or not any(f in item for f in ("key", "value", "evidence", "file"))]
        return ([f"{where}: no items"] if not items else []) + [
            f"{where} items[{i}]: names no key, value, evidence or file" for i in bad]
    if kind == "none":
        return [f"{where}: an absence answer says what was grepped and the nearest evidence"
                ] if "grepped" not in answer or "evidence" not in answer else []
    return [f"{where}: answer type {kind!r} is not one of symbols, path, impact, services, service_pairs, "
            "routes, config, none"]


def question_problems(questions: list[dict], systems: set[str], plans: Iterable[str]) -> list[str]:
    """Everything in the question sets the README's schema does not allow: ids unique over every set, a key for
    each system, the answer type the class needs, and a plan for each question (none is silently unscored)."""
    problems, seen, planned = [], set(), set(plans)
    for question in questions:
        qid = question.get("id") if isinstance(question, dict) else None
        where = f"question {qid!r}"
        problems += _need(question, where, {"id": str, "system": str, "class": str, "question": str,
                                            "answer": dict})
        if not isinstance(question, dict) or not isinstance(question.get("answer"), dict):
            continue
        if qid in seen:
            problems.append(f"{where}: id used twice")
        seen.add(qid)
        if question.get("system") not in systems:
            problems.append(f"{where}: system {question.get('system')!r} has no key")
        allowed = CLASS_TYPES.get(question.get("class"))
        if allowed is None:
            problems.append(f"{where}: class {question.get('class')!r} is not one of {sorted(CLASS_TYPES)}")
        elif question["answer"].get("type") not in allowed:
            problems.append(f"{where}: a {question['class']} question's answer is {sorted(allowed)}, "
                            f"not {question['answer'].get('type')!r}")
        problems += _answer(question["answer"], where)
        if qid not in planned:
            problems.append(f"{where}: no plan in bench/code_questions.py")
    return problems

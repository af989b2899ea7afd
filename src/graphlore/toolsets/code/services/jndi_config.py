"""The settings a Java web application reads through its container, for its service's ``describe``: what its
``WEB-INF/web.xml`` declares (``<env-entry>`` names, types and values, ``<context-param>``, servlets'
``<init-param>``, ``<resource-ref>``), what Tomcat's ``META-INF/context.xml`` gives (``<Environment>``,
``<Parameter>``, ``<Resource>``), and where the code reads them: a JNDI ``lookup`` of a ``java:`` name (or of a
name on a ``Context`` variable), ``@Resource(lookup=..)`` and a ``@Resource(name=..)`` the module declares (a name it
does not is a Spring bean's as often), and
``getInitParameter("x")``, each read with the value the module's files declare for its name in what the read
sees (`_sees`: a JNDI read the JNDI names, a ``ServletContext`` the context parameters, a servlet or filter its own
init parameters), or saying that none does (the container's deployment gives it). Each line ends with its
``file:line``.

Only the service's own modules are read: a library's code runs in whichever service uses it, and which one's
values it sees is not in its files."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..layout.layout import Layout
from ..model import FileFacts
from .webapp import WEB_INF

#: a Tomcat ``context.xml`` beside ``WEB-INF`` (Maven's war layout, then the Eclipse and NetBeans ones)
META_INF = tuple(where.replace("WEB-INF", "META-INF") for where in WEB_INF)
#: the JNDI context types whose ``lookup`` reads a setting by a relative name
_CONTEXTS = {"Context", "InitialContext", "DirContext", "InitialDirContext"}
_ENV = "java:comp/env/"
_NAMING_CONTEXTS = {"java:comp/env", "java:comp", "java:global", "java:app", "java:module"}
_STRING = re.compile(r'^"((?:[^"\\]|\\.)*)"$')
#: settings read per service, at most (then how many more: never a silent drop)
MAX_READS = 40


@dataclass(frozen=True)
class Declared:
    """A name the module's deployment files declare: what declares it, its value (None: none written), where."""

    kind: str
    name: str
    value: str | None
    where: str
    detail: str = ""
    #: who can read it (`_sees`): a JNDI name, a context parameter, or an init parameter of ``owner`` (the
    #: servlet's or filter's class)
    scope: str = "jndi"
    owner: str = ""

    def __str__(self) -> str:
        value = f" = {self.value}" if self.value is not None else ""
        detail = f" ({self.detail})" if self.detail else ""
        return f"{self.kind} {self.name}{value}{detail} ({self.where})"


def _strip(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _text(element: ET.Element, name: str) -> str | None:
    for child in element:
        if _strip(child.tag) == name:
            return (child.text or "").strip()
    return None


def _line(lines: list[str], *needles: str) -> int:
    """The first line holding every needle (1-based), 0 when none does."""
    return next((n for n, line in enumerate(lines, 1) if all(x in line for x in needles)), 0)


def _read(path: Path) -> tuple[list[ET.Element], list[str]]:
    """The file's XML elements and its lines; none when it is absent or not well-formed (nothing is listed)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        return list(ET.fromstring(text).iter()), text.splitlines()
    except (OSError, ET.ParseError):
        return [], []


def _web_xml(path: Path, rel: str) -> list[Declared]:
    elements, lines = _read(path)
    out: list[Declared] = []

    def add(kind: str, name: str | None, value: str | None, tag: str, detail: str = "", scope: str = "jndi",
            owner: str = "") -> None:
        if name:
            out.append(Declared(kind, name, value, f"{rel}:{_line(lines, f'>{name}<', tag)}", detail, scope, owner))

    for element in elements:
        tag = _strip(element.tag)
        if tag == "env-entry":
            add("web.xml env-entry", _text(element, "env-entry-name"), _text(element, "env-entry-value"),
                "env-entry-name", _text(element, "env-entry-type") or "")
        elif tag == "context-param":
            add("web.xml context-param", _text(element, "param-name"), _text(element, "param-value"), "param-name",
                scope="context")
        elif tag in ("servlet", "filter"):   # its init-params: only its own class's getInitParameter reads them
            owner = _text(element, f"{tag}-class") or ""
            for param in element:
                if _strip(param.tag) == "init-param":
                    add("web.xml init-param", _text(param, "param-name"), _text(param, "param-value"), "param-name",
                        scope="init", owner=owner)
        elif tag == "resource-ref":
            add("web.xml resource-ref", _text(element, "res-ref-name"), None, "res-ref-name",
                _text(element, "res-type") or "")
    return out


def _context_xml(path: Path, rel: str) -> list[Declared]:
    elements, lines = _read(path)
    out = []
    for element in elements:
        tag, name = _strip(element.tag), element.get("name")
        if tag in ("Environment", "Parameter", "Resource") and name:
            override = element.get("override")
            detail = "override=false: web.xml cannot change it" if override == "false" else ""
            value = element.get("value") if tag != "Resource" else None
            line = _line(lines, f'name="{name}"')
            out.append(Declared(f"context.xml {tag}", name, value, f"{rel}:{line}", detail or element.get("type", ""),
                                "context" if tag == "Parameter" else "jndi"))
    return out


def _declared(root: Path, module: str) -> list[Declared]:
    folder = root / module if module != "." else root
    prefix = f"{module}/" if module != "." else ""
    out: list[Declared] = []
    for where in WEB_INF:
        out += _web_xml(folder / where / "web.xml", f"{prefix}{where}/web.xml")
    for where in META_INF:
        out += _context_xml(folder / where / "context.xml", f"{prefix}{where}/context.xml")
    return out


def _string(arg: str) -> str | None:
    found = _STRING.match(arg.strip())
    return found.group(1) if found else None


#: the receivers of ``getInitParameter`` that read the context's parameters, and those that read the servlet's or
#: filter's own (a bare call: ``GenericServlet``'s, its own)
_CONTEXT_READERS = {"getServletContext", "ServletContext"}
_CONFIG_READERS = {"getServletConfig", "getFilterConfig", "ServletConfig", "FilterConfig"}


def _init_reader(fact: FileFacts, call) -> str:
    """``getInitParameter``: "context" (a ``ServletContext``'s), "init" (a servlet's or filter's own), "" (not known)."""
    receiver = call.receiver
    if receiver is None:
        return "init"
    if receiver[:1] == ["call"]:
        named = receiver[2]
    elif receiver[:1] == ["name"]:
        written = [str(t) for _, t in fact.locals.get(call.owner, {}).get(receiver[1], [])]
        named = written[0].rsplit(".", 1)[-1] if len(set(written)) == 1 else ""
    else:
        named = ""
    return "context" if named in _CONTEXT_READERS else "init" if named in _CONFIG_READERS else ""


def _reads(fact: FileFacts) -> list[tuple[str, str, int, str, str]]:
    """(how, name as the code writes it, line, symbol key, the scope a ``getInitParameter`` reads: `_init_reader`)
    of each setting the file's code reads."""
    out = []
    for call in fact.calls:
        name = _string(call.args[0]) if call.args else None
        if name is None:
            continue
        if call.name == "lookup":
            receiver = call.receiver or []
            written = [t for _, t in fact.locals.get(call.owner, {}).get(receiver[1], [])] if receiver[:1] == [
                "name"] else receiver[1:2] if receiver[:1] in (["type"], ["new"]) else []
            if name.rstrip("/") in _NAMING_CONTEXTS:   # the naming context itself, not a setting
                continue
            if name.startswith("java:") or any(str(t).rsplit(".", 1)[-1] in _CONTEXTS for t in written):
                out.append(("JNDI lookup", name, call.line, call.owner, ""))
        elif call.name == "getInitParameter":
            out.append(("getInitParameter", name, call.line, call.owner, _init_reader(fact, call)))
    for sym in fact.symbols:
        for annotation in sym.annotations:
            if annotation.name.rsplit(".", 1)[-1] != "Resource":
                continue
            args = dict(annotation.args)
            name = _string(args.get("lookup") or args.get("name") or args.get("mappedName") or "")
            if name:   # a bare name may be a Spring bean's: `jndi_config` keeps it only when the module declares it
                out.append(("@Resource", name, sym.line_start, sym.key, ""))
    return sorted(out, key=lambda read: read[2])


def _sees(how: str, scope: str, reader: str, declared: Declared) -> bool:
    """Whether a read (``how``, the ``getInitParameter`` scope, the reading class) sees the declared name: JNDI reads
    the JNDI names, a ``ServletContext`` its context parameters, a servlet or filter its own init parameters (an
    unknown receiver either)."""
    if how != "getInitParameter":
        return declared.scope == "jndi"
    if declared.scope == "init":
        return scope != "context" and declared.owner == reader
    return declared.scope == "context" and scope != "init"


def _env_name(name: str) -> str:
    return name[len(_ENV):] if name.startswith(_ENV) else name


def jndi_config(layout: Layout, root: Path, facts: Mapping[str, FileFacts]) -> dict[str, list[str]]:
    """Per microservice, its container settings and where its code reads them (see the module docstring)."""
    out: dict[str, list[str]] = {}
    for service_name, service in layout.services.items():
        lines: list[str] = []
        reads: list[str] = []
        for module in service.modules:
            declared = _declared(root, module)
            by_name: dict[str, list[Declared]] = {}
            for one in declared:
                by_name.setdefault(one.name, []).append(one)
            lines += [str(one) for one in declared]
            own = sorted((p, f) for p, f in facts.items() if f.language in ("java", "kotlin")
                         and layout.module_of(p) == module)
            for path, fact in own:
                for how, name, line, owner, scope in _reads(fact):
                    reader = f"{fact.package}.{owner.split('#', 1)[0]}" if fact.package else owner.split("#", 1)[0]
                    found = [d for d in by_name.get(_env_name(name), []) if _sees(how, scope, reader, d)]
                    if how == "@Resource" and not found and not name.startswith("java:"):
                        continue   # Spring's @Resource(name = "bean") injects a bean: no container setting
                    given = "; ".join(f"{d.kind} {d.value if d.value is not None else '(no value)'} ({d.where})"
                                      for d in found) or "declared in none of the module's files: the container's " \
                                                         "deployment gives it"
                    where = owner.replace("#", ".").split("(", 1)[0]
                    reads.append(f"{how} {name} read at {path}:{line} ({where}): {given}")
        if len(reads) > MAX_READS:
            reads = reads[:MAX_READS] + [f"... {len(reads) - MAX_READS} more container settings read"]
        if lines or reads:
            out[service_name] = list(dict.fromkeys(lines + reads))
    return out

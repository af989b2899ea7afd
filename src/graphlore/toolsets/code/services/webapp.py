"""A Java web application's deployment: the servlet mappings of its ``WEB-INF/web.xml`` and its context root.

**Servlet mappings.** Each ``<servlet>`` (its ``<servlet-class>``, by ``<servlet-name>``) and the
``<url-pattern>`` of each ``<servlet-mapping>`` that names it; a ``<servlet>`` named after an ``Application``
subclass with no class of its own (the JAX-RS 2 way) maps that class.

**Context root.** A module packaged as a ``war`` is served under its context root: ``<context-root>`` in
``WEB-INF/jboss-web.xml`` (WildFly, JBoss), else the war's name (Tomcat's and Jetty's default: ``ROOT`` serves at
``/``): the one the module's Dockerfiles deploy it under (several: not known), else Maven's ``<build><finalName>``,
project properties resolved. A war with neither is served under a
name the deployment chooses (``artifactId-version`` by default, renamed as often): ``{?}``, never guessed. A
module that is no war (a jar, a Quarkus or Spring Boot application) has no context root.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..layout.walk import DOCKERFILE

#: where a module's ``WEB-INF`` is: Maven's and Gradle's war layout, then the Eclipse and NetBeans ones
WEB_INF = ("src/main/webapp/WEB-INF", "WebContent/WEB-INF", "web/WEB-INF", "WEB-INF")
_PROPERTY = re.compile(r"\$\{([^}]+)\}")
#: a Dockerfile's ``COPY``/``ADD`` (options left out): the war it deploys, under the name it gives it
_COPY = re.compile(r"^\s*(?:COPY|ADD)\s+(?:--\S+\s+)*(.+?)\s*$", re.I | re.M)


@dataclass
class WebApp:
    """What the module's deployment says about the paths it serves."""

    #: servlet class (fully qualified, as written) -> the URL patterns it is mapped to, in file order
    mappings: dict[str, list[str]] = field(default_factory=dict)
    #: the file the mappings are read from
    web_xml: str = ""
    #: why ``web_xml`` could not be read ("" when it was, or there is none): its mappings are not known
    unreadable: str = ""
    #: ``<web-app metadata-complete="true">``: the container ignores ``@WebServlet`` (the mappings are all there)
    metadata_complete: bool = False
    #: "" none (not a war, or served at ``/``); None: a war whose context root the deployment chooses
    context_root: str | None = ""
    #: where the context root is written (``pom.xml <finalName>``), or why it is not known
    context_source: str = ""

    def context(self) -> str:
        """The context root as a path prefix: ``/name``, "" for none, ``/{?}`` when the deployment chooses."""
        if self.context_root is None:
            return "/{?}"
        return f"/{self.context_root}" if self.context_root else ""


def _strip(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _child_text(element: ET.Element, name: str) -> str | None:
    for child in element:
        if _strip(child.tag) == name and child.text and child.text.strip():
            return child.text.strip()
    return None


def _parse(path: Path) -> ET.Element | None:
    try:
        return ET.parse(path).getroot()
    except (ET.ParseError, OSError):
        return None


def _mappings(web_xml: ET.Element) -> dict[str, list[str]]:
    classes: dict[str, str] = {}
    for servlet in (e for e in web_xml if _strip(e.tag) == "servlet"):
        name = _child_text(servlet, "servlet-name")
        if name:
            classes[name] = _child_text(servlet, "servlet-class") or name
    out: dict[str, list[str]] = {}
    for mapping in (e for e in web_xml if _strip(e.tag) == "servlet-mapping"):
        name = _child_text(mapping, "servlet-name")
        if name not in classes:
            continue
        patterns = [c.text.strip() for c in mapping if _strip(c.tag) == "url-pattern" and c.text and c.text.strip()]
        out.setdefault(classes[name], []).extend(p for p in patterns if p not in out.get(classes[name], []))
    return out


def _war_name(pom: ET.Element) -> tuple[str | None, str]:
    """The war's name (``<finalName>``, properties resolved) and where it is written; None when not given."""
    props = {"project.artifactId": _child_text(pom, "artifactId") or "", "artifactId": _child_text(pom, "artifactId") or ""}
    version = _child_text(pom, "version")
    if version:
        props["project.version"] = props["version"] = version
    for element in pom:
        if _strip(element.tag) == "properties":
            props.update({_strip(p.tag): (p.text or "").strip() for p in element})
    build = next((e for e in pom if _strip(e.tag) == "build"), None)
    written = _child_text(build, "finalName") if build is not None else None
    if written is None:
        return None, "the war's name is not set (no <finalName>): the deployment chooses it"
    resolved = _PROPERTY.sub(lambda m: props.get(m.group(1), m.group(0)), written)
    if "${" in resolved:
        return None, f"the war's name {written!r} is not known (a property not in the pom)"
    return resolved, "pom.xml <finalName>"


def read_webapp(root: Path, module: str) -> WebApp:
    """The module's web application (see the module docstring); an empty one when it has none."""
    folder = root / module if module != "." else root
    web = WebApp()
    for where in WEB_INF:
        found = _parse(folder / where / "web.xml")
        if found is None and (folder / where / "web.xml").is_file():
            web.web_xml = f"{module}/{where}/web.xml" if module != "." else f"{where}/web.xml"
            web.unreadable = f"{web.web_xml} is not well-formed XML"
            break
        if found is not None:
            web.mappings = _mappings(found)
            web.metadata_complete = found.get("metadata-complete", "").strip().lower() == "true"
            web.web_xml = f"{module}/{where}/web.xml" if module != "." else f"{where}/web.xml"
            break
    for where in WEB_INF:   # a war of annotated servlets and resources has no web.xml, but may name its root
        jboss = _parse(folder / where / "jboss-web.xml")
        context = _child_text(jboss, "context-root") if jboss is not None else None
        if context is not None:
            web.context_root, web.context_source = context.strip("/"), "jboss-web.xml <context-root>"
            return web
    pom = _parse(folder / "pom.xml")
    if pom is None or (_child_text(pom, "packaging") or "jar") != "war":
        return web
    name, web.context_source = _war_name(pom)
    deployed = _deployed_names(folder)
    if len(deployed) > 1:
        name, web.context_source = None, f"the Dockerfiles deploy the war as {', '.join(sorted(deployed))}"
    elif deployed:
        name, web.context_source = next(iter(deployed)), "the Dockerfile's war name"
    web.context_root = None if name is None else ("" if name == "ROOT" else name)
    return web


def _deployed_names(folder: Path) -> set[str]:
    """The names the module's Dockerfiles deploy its war under when they say (``COPY target/app.war
    .../deployments/ROOT.war``: ``ROOT``; a named war copied into a folder: its own name); a war copied by a
    pattern (``*.war``) keeps the name the build gives it."""
    names: set[str] = set()
    try:
        dockerfiles = [p for p in folder.iterdir() if p.is_file() and DOCKERFILE.match(p.name)]
    except OSError:
        return names
    for dockerfile in dockerfiles:
        try:
            text = dockerfile.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for args in _COPY.findall(text):
            *sources, target = args.split()
            for source in (s for s in sources if s.endswith(".war")):
                if target.endswith(".war"):
                    names.add(PurePosixPath(target).stem)
                elif not any(c in source for c in "*?[$"):
                    names.add(PurePosixPath(source).stem)
    return names
